#include <stdio.h>

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
	strtab_free(&t);
	CHECK_INT(t.n, 0);
	return unit_done("strtab");
}
