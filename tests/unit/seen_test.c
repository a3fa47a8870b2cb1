/*
 * The hlo rows parts hold (profile/extract.h, struct extract_seen), as
 * parts.c's workers hand them to each other: extract_seen_save writes
 * the rows of one part, extract_seen_load adds them as that part's
 * unless a lower part holds them, and stops at the first malformed
 * record.  Worked by hand: the lowest part wins, whatever order the
 * parts are loaded in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strtab.h"
#include "profile/extract.h"
#include "unit.h"

/* Load part PART's rows NAMES[0..N) (one record each) into S. */
static size_t
load_names(struct extract_seen *s, size_t part, const char *const *names,
    size_t n)
{
	FILE *fp = tmpfile();
	size_t i, got;

	for (i = 0; i < n; i++) {
		uint32_t len = (uint32_t)strlen(names[i]);

		fwrite(&len, sizeof(len), 1, fp);
		fwrite(names[i], 1, len, fp);
	}
	rewind(fp);
	got = extract_seen_load(s, part, fp);
	fclose(fp);
	return got;
}

/* The rows S saves for PART, as "name,name,...". */
static char *
saved(const struct extract_seen *s, size_t part)
{
	FILE *fp = tmpfile();
	static char out[256];
	char key[64];
	uint32_t len;
	size_t n = 0;

	CHECK_INT(extract_seen_save(s, part, fp), 0);
	rewind(fp);
	out[0] = '\0';
	while (fread(&len, sizeof(len), 1, fp) == 1 && len < sizeof(key) &&
	    fread(key, 1, len, fp) == len) {
		key[len] = '\0';
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s",
		    n ? "," : "", key);
	}
	fclose(fp);
	return out;
}

static void
lowest_part_wins(void)
{
	struct extract_seen s;
	const char *p2[] = { "a", "b" }, *p1[] = { "b", "c" }, *p3[] = { "a",
	    "c", "d" };
	/* A key with a NUL and a tab, as the digest and "ProgramId\tName"
	 * make them. */
	const char nul[] = { 'x', '\0', '\t', 'y' };

	memset(&s, 0, sizeof(s));
	CHECK_INT(load_names(&s, 2, p2, 2), 2);
	CHECK_INT(load_names(&s, 1, p1, 2), 2);
	CHECK_INT(load_names(&s, 3, p3, 3), 3);
	CHECK_STR(saved(&s, 1), "b,c");
	CHECK_STR(saved(&s, 2), "a");
	CHECK_STR(saved(&s, 3), "d");
	CHECK_STR(saved(&s, 0), "");
	CHECK_INT(s.rows.n, 4);
	CHECK_INT(s.part[strtab_find(&s.rows, "a", 1)], 2);
	CHECK_INT(s.part[strtab_find(&s.rows, "b", 1)], 1);

	/* Bytes that are not text round-trip. */
	{
		FILE *fp = tmpfile();
		struct extract_seen t;
		uint32_t len = sizeof(nul);

		memset(&t, 0, sizeof(t));
		fwrite(&len, sizeof(len), 1, fp);
		fwrite(nul, 1, sizeof(nul), fp);
		rewind(fp);
		CHECK_INT(extract_seen_load(&t, 5, fp), 1);
		fclose(fp);
		CHECK(strtab_find(&t.rows, nul, sizeof(nul)) != STRTAB_NONE);
		fp = tmpfile();
		CHECK_INT(extract_seen_save(&t, 5, fp), 0);
		CHECK_INT(ftell(fp), sizeof(len) + sizeof(nul));
		fclose(fp);
		extract_seen_free(&t);
	}
	extract_seen_free(&s);
}

/* A truncated or absurd record ends the load; the records before it
 * count. */
static void
malformed(void)
{
	struct extract_seen s;
	FILE *fp = tmpfile();
	uint32_t len = 3, big = (uint32_t)1 << 30, zero = 0;

	memset(&s, 0, sizeof(s));
	fwrite(&len, sizeof(len), 1, fp);
	fwrite("abc", 1, 3, fp);
	fwrite(&len, sizeof(len), 1, fp);
	fwrite("de", 1, 2, fp);		/* truncated */
	rewind(fp);
	CHECK_INT(extract_seen_load(&s, 0, fp), 1);
	fclose(fp);
	CHECK_INT(s.rows.n, 1);

	fp = tmpfile();
	fwrite(&big, sizeof(big), 1, fp);
	fwrite("xyz", 1, 3, fp);
	rewind(fp);
	CHECK_INT(extract_seen_load(&s, 0, fp), 0);
	fclose(fp);

	fp = tmpfile();
	fwrite(&zero, sizeof(zero), 1, fp);
	fwrite(&len, sizeof(len), 1, fp);
	fwrite("xyz", 1, 3, fp);
	rewind(fp);
	CHECK_INT(extract_seen_load(&s, 0, fp), 0);
	fclose(fp);
	CHECK_INT(s.rows.n, 1);
	extract_seen_free(&s);
}

int
main(void)
{
	lowest_part_wins();
	malformed();
	return unit_done("seen_test");
}
