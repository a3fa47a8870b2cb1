#include <stdint.h>
#include <stdlib.h>

#include "base/tsv.h"
#include "unit.h"

static void
f64(double v, const char *want)
{
	char b[400];

	tsv_fmt_f64(b, v);
	CHECK_STR(b, want);
	CHECK(v != v || *want == '\0' || strtod(b, NULL) == v);
}

static void
ms(long long ns, const char *want)
{
	char b[32];

	tsv_fmt_ms(b, ns);
	CHECK_STR(b, want);
}

static void
writer(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");
	const char *hdr[] = { "A", "B", NULL };

	CHECK_INT(tsv_header(w, hdr), 0);
	tsv_str(w, "a\tb\\c\nd\re");
	tsv_ms(w, 1500);
	CHECK_INT(tsv_eor(w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(out, "A\tB\na\\tb\\\\c\\nd\\re\t0.0015\n");
	free(out);
}

/* The smallest double: "0." then 323 zeros then "5", with no exponent. */
static void
denormal(void)
{
	char want[400];

	memset(want, '0', 325);
	want[1] = '.';
	want[325] = '5';
	want[326] = '\0';
	f64(5e-324, want);
}

static void
i64s(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");

	tsv_i64(w, 0);
	tsv_i64(w, -42);
	tsv_i64(w, INT64_MIN);
	tsv_i64(w, INT64_MAX);
	CHECK_INT(tsv_eor(w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(out, "0\t-42\t-9223372036854775808\t9223372036854775807\n");
	free(out);
}

int
main(void)
{
	f64(0, "0");
	f64(1, "1");
	f64(-2.5, "-2.5");
	f64(1e-05, "0.00001");
	f64(0.1, "0.1");
	f64(1e22, "10000000000000000000000");
	f64(56.92704226615405, "56.92704226615405");
	f64(0.05743899999155383, "0.05743899999155383");
	denormal();
	f64(NAN, "");
	ms(35869654956LL, "35869.654956");
	ms(2000000, "2");
	ms(-1500, "-0.0015");
	ms(0, "0");
	ms(1, "0.000001");
	ms(-35869654956LL, "-35869.654956");
	ms(INT64_MIN, "-9223372036854.775808");
	i64s();
	writer();
	return unit_done("tsv");
}
