/* The TSV reader: header, fields, escapes, numbers, errors. */
#include <stdint.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

static struct tsv_reader *
open_text(const char *text, FILE **fp)
{
	*fp = fmemopen((void *)text, strlen(text), "r");
	return tsv_ropen(*fp, "t.tsv");
}

static void
basics(void)
{
	FILE *fp;
	struct tsv_reader *r = open_text("A\tB\\tx\tC\n1\ta\\\\b\\nc\t-2.5\n"
	    "-9223372036854775808\t\t0.000001\n7\tz\t35869.654956", &fp);
	int64_t v;
	double d;
	size_t n;
	const char *raw;

	CHECK(r != NULL);
	CHECK_INT(tsv_ncols(r), 3);
	CHECK_STR(tsv_colname(r, 1), "B\tx");
	CHECK_INT(tsv_col(r, "C"), 2);
	CHECK_INT(tsv_col(r, "D"), -1);
	CHECK_INT(tsv_require(r, "D"), -1);
	CHECK_STR(err_msg(), "t.tsv: missing column 'D'");
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_lineno(r), 2);
	CHECK_STR(tsv_field(r, 1), "a\\b\nc");
	/* n is set by the call: read it only after (argument order is unspecified). */
	raw = tsv_rawfield(r, 1, &n);
	CHECK(n == 7 && strncmp(raw, "a\\\\b\\nc", n) == 0);
	raw = tsv_rawline(r, &n);
	CHECK(n == 14 && strncmp(raw, "1\ta\\\\b\\nc\t-2.5", n) == 0);
	CHECK_INT(tsv_get_i64(r, 0, &v, 0), 0);
	CHECK_INT(v, 1);
	CHECK_INT(tsv_get_f64(r, 2, &d, 0), 0);
	CHECK(d == -2.5);
	CHECK_INT(tsv_get_ms(r, 2, &v, 0), 0);
	CHECK_INT(v, -2500000);
	CHECK_INT(tsv_get_i64(r, 1, &v, 0), -1);
	CHECK_STR(err_msg(), "t.tsv:2: column B\tx: not an integer: 'a\\\\b\\nc'");
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_i64(r, 0, &v, 0), 0);
	CHECK(v == INT64_MIN);
	v = 5;
	CHECK_INT(tsv_get_i64(r, 1, &v, 1), 1);
	CHECK_INT(v, 5);
	CHECK_INT(tsv_get_i64(r, 1, &v, 0), -1);
	CHECK_INT(tsv_get_ms(r, 2, &v, 0), 0);
	CHECK_INT(v, 1);
	CHECK_INT(tsv_next(r), 1);	/* no final LF */
	CHECK_INT(tsv_get_ms(r, 2, &v, 0), 0);
	CHECK_INT(v, 35869654956LL);
	CHECK_INT(tsv_next(r), 0);
	tsv_rclose(r);
	fclose(fp);
}

static void
numbers(void)
{
	FILE *fp;
	struct tsv_reader *r = open_text("X\n9223372036854775808\n1e-3\ninf\n"
	    "1.23456789\n 1\n999999999999.999999\n1.15e12\n-1.16e12\n", &fp);
	int64_t v;
	double d;

	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_i64(r, 0, &v, 0), -1);	/* overflow */
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_f64(r, 0, &d, 0), 0);
	CHECK(d == 1e-3);
	CHECK_INT(tsv_get_ms(r, 0, &v, 0), 0);
	CHECK_INT(v, 1000);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_f64(r, 0, &d, 0), -1);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_ms(r, 0, &v, 0), 0);
	CHECK_INT(v, 1234568);			/* rounded to the ns */
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_i64(r, 0, &v, 0), -1);	/* leading space */
	CHECK_INT(tsv_next(r), 1);		/* times: within 2^60 ns */
	CHECK_INT(tsv_get_ms(r, 0, &v, 0), 0);
	CHECK_INT(v, 999999999999999999);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_ms(r, 0, &v, 0), 0);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_get_ms(r, 0, &v, 0), -1);
	tsv_rclose(r);
	fclose(fp);
}

/* Each bad input gives -1 (or NULL) and a message naming file and line. */
static void
errors(void)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "", "t.tsv: no header line" },
		{ "A\tA\n", "t.tsv:1: duplicate column 'A'" },
		{ "A\t\n", "t.tsv:1: empty column name (column 2)" },
		{ "A\tB\n1\n", "t.tsv:2: 1 field, the header has 2" },
		{ "A\tB\n1\t2\t3\n", "t.tsv:2: 3 fields, the header has 2" },
		{ "A\r\n1\r\n", "t.tsv:1: carriage return" },
		{ "A\n1\r\n", "t.tsv:2: carriage return" },
		{ "A\n\\x\n", "t.tsv:2: bad escape" },
		{ "A\nab\\\n", "t.tsv:2: bad escape" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *fp;
		struct tsv_reader *r = open_text(bad[i].text, &fp);
		int rc = r == NULL ? -1 : tsv_next(r);

		CHECK_INT(rc, -1);
		CHECK(strncmp(err_msg(), bad[i].msg, strlen(bad[i].msg)) == 0);
		tsv_rclose(r);
		fclose(fp);
	}
}

/* Input handed to the wrong tool: a zip, xz, gzip, zstd, Parquet or
 * SQLite file is named as such by its magic bytes (from each format's
 * specification), with the tool that reads it. */
static void
magic(void)
{
	static const struct { const char *text; size_t len; const char *msg; } bad[] = {
		{ "PK\3\4\24\0\0\0\10\0", 10, "t.tsv: a zip archive, not TSV: nsysjax-extract" },
		{ "\xfd" "7zXZ\0\0\4\xe6", 10, "t.tsv: xz-compressed, not TSV" },
		{ "\x1f\x8b\10\0", 4, "t.tsv: gzip-compressed" },
		{ "\x28\xb5\x2f\xfd\0", 5, "t.tsv: zstd-compressed" },
		{ "PAR1\x15\4", 6, "t.tsv: a Parquet file, not TSV" },
		{ "SQLite format 3\0\20\0", 19, "t.tsv: an SQLite database, not TSV: nsysjax-extract" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *fp = fmemopen((void *)bad[i].text, bad[i].len, "r");

		CHECK(tsv_ropen(fp, "t.tsv") == NULL);
		CHECK(strncmp(err_msg(), bad[i].msg, strlen(bad[i].msg)) == 0);
		fclose(fp);
	}
	/* Text that merely starts with the same letters is TSV. */
	{
		static const char ok[] = "PAR\tPK\n1\t2\n";
		FILE *fp = fmemopen((void *)ok, sizeof(ok) - 1, "r");
		struct tsv_reader *r = tsv_ropen(fp, "t.tsv");

		CHECK(r != NULL);
		CHECK_INT(tsv_next(r), 1);
		tsv_rclose(r);
		fclose(fp);
	}
}

/* A NUL byte is no text: refused, naming the line. */
static void
nul_byte(void)
{
	static const char text[] = "A\tB\n1\t2\n3\t\0\n";
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct tsv_reader *r = tsv_ropen(fp, "t.tsv");

	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(tsv_next(r), -1);
	CHECK_STR(err_msg(), "t.tsv:3: NUL byte in line (TSV is text)");
	tsv_rclose(r);
	fclose(fp);
}

/* A 1 MB field: no fixed line buffer. */
static void
long_field(void)
{
	size_t n = 1 << 20;
	char *text = malloc(n + 8);
	FILE *fp;
	struct tsv_reader *r;

	memcpy(text, "A\n", 2);
	memset(text + 2, 'x', n);
	text[n + 2] = '\0';
	r = open_text(text, &fp);
	CHECK_INT(tsv_next(r), 1);
	CHECK_INT(strlen(tsv_field(r, 0)), n);
	tsv_rclose(r);
	fclose(fp);
	free(text);
}

int
main(void)
{
	basics();
	numbers();
	errors();
	nul_byte();
	magic();
	long_field();
	return unit_done("tsvread");
}
