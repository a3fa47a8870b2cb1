/* ids: the StackFrameIds grammar (base/ids.h), valid and malformed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/tsv.h"
#include "unit.h"

static struct ids got;

static int
parse(const char *s, size_t bound)
{
	return ids_parse(s, strlen(s), bound, &got, "in.tsv", 7,
	    "StackFrameIds");
}

/* S parses into the N ids WANT. */
static void
valid(const char *s, const size_t *want, size_t n)
{
	size_t i;

	CHECK_INT(parse(s, SIZE_MAX), 0);
	CHECK_INT(got.n, n);
	for (i = 0; i < n && i < got.n; i++)
		CHECK_INT(got.v[i], want[i]);
}

/* S is refused with the message MSG. */
static void
malformed(const char *s, size_t bound, const char *msg)
{
	CHECK_INT(parse(s, bound), -1);
	CHECK_STR(err_msg(), msg);
}

#define SYN "in.tsv:7: column StackFrameIds: not a list of ids separated " \
	"by single spaces, at character "

static void
grammar(void)
{
	static const size_t one[] = { 0 }, three[] = { 12, 0, 7 };
	static const size_t big[] = { (size_t)INT64_MAX };

	valid("", NULL, 0);
	valid("0", one, 1);
	valid("12 0 7", three, 3);
	valid("9223372036854775807", big, 1);
	/* A second read replaces the first. */
	valid("0", one, 1);

	malformed(" 1", SIZE_MAX, SYN "1: ' 1'");
	malformed("1 ", SIZE_MAX, SYN "2: '1 '");
	malformed("1  2", SIZE_MAX, SYN "3: '1  2'");
	malformed("1\t2", SIZE_MAX, SYN "2: '1\t2'");
	malformed("1,2", SIZE_MAX, SYN "2: '1,2'");
	malformed("1 x", SIZE_MAX, SYN "3: '1 x'");
	malformed("+1", SIZE_MAX, SYN "1: '+1'");
	malformed("-1", SIZE_MAX, SYN "1: '-1'");
	malformed("1 01", SIZE_MAX, SYN "3: '1 01'");
	malformed(" ", SIZE_MAX, SYN "1: ' '");
	malformed("9223372036854775808", SIZE_MAX, "in.tsv:7: column "
	    "StackFrameIds: id out of range at character 1: "
	    "'9223372036854775808'");
	malformed("0 3 9", 9, "in.tsv:7: column StackFrameIds: no stack "
	    "frame 9 (character 5)");
	/* A long field is shown cut. */
	malformed("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 "
	    "23 24 x", SIZE_MAX, SYN "66: '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 "
	    "18 19 20 21 22 2...'");
}

/* ids_write writes what ids_read reads back, from a TSV row. */
static void
round_trip(void)
{
	static const size_t v[] = { 3, 0, 41 };
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");
	const char *hdr[] = { "Name", "StackFrameIds", NULL };
	struct tsv_reader *r;

	CHECK_INT(tsv_header(w, hdr), 0);
	tsv_str(w, "a");
	ids_write(w, v, 3);
	CHECK_INT(tsv_eor(w), 0);
	tsv_str(w, "b");
	ids_write(w, NULL, 0);
	CHECK_INT(tsv_eor(w), 0);
	tsv_str(w, "c");
	tsv_str(w, "3 x");
	CHECK_INT(tsv_eor(w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(out, "Name\tStackFrameIds\na\t3 0 41\nb\t\nc\t3 x\n");

	fp = fmemopen(out, len, "r");
	r = tsv_ropen(fp, "rt.tsv");
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(ids_read(r, 1, 42, &got), 0);
	CHECK_INT(got.n, 3);
	CHECK_INT(got.v[2], 41);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(ids_read(r, 1, 42, &got), 0);
	CHECK_INT(got.n, 0);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(ids_read(r, 1, 42, &got), -1);
	CHECK_STR(err_msg(), "rt.tsv:4: column StackFrameIds: not a list of "
	    "ids separated by single spaces, at character 3: '3 x'");
	tsv_rclose(r);
	fclose(fp);
	free(out);
}

int
main(void)
{
	grammar();
	round_trip();
	ids_free(&got);
	CHECK(got.v == NULL && got.n == 0);
	return unit_done("ids");
}
