#include <stdio.h>
#include <string.h>

#include "base/strtab.h"
#include "unit.h"

int
main(void)
{
	struct strtab t = { 0 };
	char buf[32];
	size_t i;
	int added;

	CHECK_INT(strtab_find(&t, "a", 1), STRTAB_NONE);
	CHECK_INT(strtab_intern(&t, "a", 1, &added), 0);
	CHECK_INT(added, 1);
	CHECK_INT(strtab_intern(&t, "b\0c", 3, &added), 1);
	CHECK_INT(strtab_intern(&t, "a", 1, &added), 0);
	CHECK_INT(added, 0);
	CHECK_INT(strtab_find(&t, "b\0c", 3), 1);
	CHECK_INT(strtab_find(&t, "b", 1), STRTAB_NONE);
	/* Many strings: ids are insertion order and survive rehashing. */
	for (i = 0; i < 10000; i++) {
		snprintf(buf, sizeof(buf), "s%zu", i);
		strtab_intern(&t, buf, strlen(buf), NULL);
	}
	CHECK_INT(t.n, 10002);
	CHECK_STR(strtab_get(&t, 2 + 1234), "s1234");
	CHECK_INT(strtab_find(&t, "s9999", 5), 10001);
	CHECK_STR(strtab_get(&t, 0), "a");
	/* Copies stay where they were put while the table grows: a copy
	 * longer than a chunk, and many that fill chunks. */
	{
		static char big[200000];
		const char *first, *pbig;

		memset(big, 'x', sizeof(big) - 1);
		first = strtab_get(&t, 0);
		pbig = strtab_get(&t, strtab_intern(&t, big, sizeof(big) - 1, NULL));
		for (i = 0; i < 3000; i++) {
			snprintf(buf, sizeof(buf), "%030zu", i);
			strtab_intern(&t, buf, strlen(buf), NULL);
		}
		CHECK(first == strtab_get(&t, 0) && strcmp(first, "a") == 0);
		CHECK(strlen(pbig) == sizeof(big) - 1 && pbig[12345] == 'x');
		CHECK_INT(strtab_find(&t, big, sizeof(big) - 1), 10002);
		CHECK_INT(strtab_find(&t, "000000000000000000000000002999", 30), 13002);
		CHECK_STR(strtab_get(&t, 10003), "000000000000000000000000000000");
	}
	strtab_free(&t);
	CHECK_INT(t.n, 0);
	return unit_done("strtab");
}
