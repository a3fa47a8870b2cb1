/*
 * align: the estimate over rows (complete instances, median, rounding,
 * spread, refusals, invariance under a clock shift) and the corrections
 * table (write, read, lookup, bad tables).
 */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/align.h"
#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

static char why[512];

/* Add a collective row of instance KEY. */
static void
add(struct align_est *e, const char *key, int64_t dev, int64_t size,
    int64_t end)
{
	CHECK_INT(align_est_add(e, key, strlen(key), dev, size, end), 0);
}

/* Solve E (then freed) into T; returns what align_est_solve returns. */
static int
solve(struct align_est *e, struct align_table *t)
{
	int rc = align_est_solve(e, t, why, sizeof(why));

	align_est_free(e);
	return rc;
}

static int64_t
corr(const struct align_table *t, int64_t dev)
{
	const struct align_corr *c = align_table_find(t, dev);

	return c ? c->corr_ns : INT64_MIN;
}

/* Two devices, one instance: ends 0 and 3 ns, mean 1.5, skews -1.5 and
 * +1.5, rounded to the nearest ns with ties upwards: -1 and 2. */
static void
rounding(void)
{
	struct align_est *e = align_est_new();
	struct align_table t;

	add(e, "a", 7, 2, 0);
	add(e, "a", 3, 2, 3);
	CHECK_INT(solve(e, &t), 0);
	CHECK_STR(why, "");
	CHECK_INT(t.n, 2);
	CHECK_INT(t.v[0].device, 3);	/* sorted by device */
	CHECK_INT(t.v[0].corr_ns, 2);
	CHECK_INT(t.v[1].corr_ns, -1);
	CHECK_INT(t.v[0].instances, 1);
	CHECK_INT(t.v[0].spread_ns, 0);
	align_table_free(&t);
}

/* Median over instances: the middle one for an odd count, the mean of
 * the two middle ones for an even count (numpy); spread = max - min. */
static void
median(void)
{
	/* device 1 - device 0 per instance: skews of device 1 are d/2. */
	static const int64_t d[] = { 10, 2, 40, 6 };
	struct align_est *e = align_est_new();
	struct align_table t;
	char key[32];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "i%d", i);
		add(e, key, 0, 2, 1000 * i);
		add(e, key, 1, 2, 1000 * i + d[i]);
	}
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(corr(&t, 1), 5);	/* skews 5, 1, 20 */
	CHECK_INT(corr(&t, 0), -5);
	CHECK_INT(t.v[1].instances, 3);
	CHECK_INT(t.v[1].spread_ns, 19);
	align_table_free(&t);

	e = align_est_new();
	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "i%d", i);
		add(e, key, 0, 2, -1000 * i);
		add(e, key, 1, 2, -1000 * i + d[i]);
	}
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(corr(&t, 1), 4);	/* skews 1 3 5 20: (3 + 5) / 2 */
	CHECK_INT(corr(&t, 0), -4);
	CHECK_INT(t.v[0].instances, 4);
	align_table_free(&t);
}

/* Four devices whose clocks are off by OFF[d] ns: one instance per
 * step, each device ending JITTER[step][d] ns after the true end. */
static void
clocks(struct align_est *e, const int64_t off[4], int steps)
{
	static const int64_t jitter[5][4] = {
		{ 0, 3, 1, 2 }, { 5, 0, 0, 1 }, { 1, 1, 1, 1 },
		{ 2, 7, 0, 3 }, { 0, 0, 4, 0 }
	};
	char key[32];
	int s, d;

	for (s = 0; s < steps; s++) {
		snprintf(key, sizeof(key), "p\t%d\tar\t0", s);
		for (d = 0; d < 4; d++)
			add(e, key, d, 4, 1000000 * s + off[d] + jitter[s][d]);
	}
}

/* Incomplete instances, instances with a device twice and smaller
 * collectives do not count: only complete instances of the largest
 * size decide. */
static void
complete_only(void)
{
	static const int64_t off[4] = { 100, -20, 0, 4000 };
	struct align_est *e = align_est_new(), *f = align_est_new();
	struct align_table t, u;
	size_t i;

	clocks(e, off, 5);
	clocks(f, off, 5);
	add(f, "half", 0, 4, 99999999);	/* seen on two devices only */
	add(f, "half", 1, 4, -99999999);
	add(f, "dup", 0, 4, 5);		/* device 0 twice */
	add(f, "dup", 0, 4, 5000000);
	add(f, "dup", 1, 4, 7);
	add(f, "dup", 2, 4, 9);
	add(f, "pair", 2, 2, 123456789);	/* a smaller collective */
	add(f, "pair", 3, 2, 0);
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(solve(f, &u), 0);
	CHECK_INT(t.n, 4);
	CHECK_INT(u.n, 4);
	for (i = 0; i < t.n && i < u.n; i++) {
		CHECK_INT(u.v[i].corr_ns, t.v[i].corr_ns);
		CHECK_INT(u.v[i].instances, 5);
	}
	/* Offsets minus their mean (1020), up to the jitter's median. */
	CHECK(llabs(corr(&t, 3) - (4000 - 1020)) <= 4);
	CHECK(llabs(corr(&t, 1) - (-20 - 1020)) <= 4);
	align_table_free(&t);
	align_table_free(&u);
}

/*
 * Shifting one device's clock by C (a multiple of N ns) moves every
 * aligned end time by the same C / N: the corrections differ from the
 * unshifted ones by C - C/N on that device and -C/N on the others.
 */
static void
invariance(void)
{
	static const int64_t off[4] = { 17, -3, 250, 9 };
	int64_t shifted[4], c = 4 * 123457;
	struct align_est *e = align_est_new(), *f = align_est_new();
	struct align_table t, u;
	int d;

	for (d = 0; d < 4; d++)
		shifted[d] = off[d] + (d == 2 ? c : 0);
	clocks(e, off, 4);
	clocks(f, shifted, 4);
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(solve(f, &u), 0);
	for (d = 0; d < 4; d++)
		CHECK_INT(u.v[d].corr_ns - t.v[d].corr_ns,
		    (d == 2 ? c : 0) - c / 4);
	align_table_free(&t);
	align_table_free(&u);

	/* Shifting every device changes nothing. */
	e = align_est_new();
	f = align_est_new();
	for (d = 0; d < 4; d++)
		shifted[d] = off[d] + 777;
	clocks(e, off, 5);
	clocks(f, shifted, 5);
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(solve(f, &u), 0);
	for (d = 0; d < 4; d++)
		CHECK_INT(u.v[d].corr_ns, t.v[d].corr_ns);
	align_table_free(&t);
	align_table_free(&u);
}

/* Each refusal, with its reason. */
static void
refusals(void)
{
	struct align_est *e;
	struct align_table t;

	e = align_est_new();
	CHECK_INT(solve(e, &t), 1);
	CHECK(strstr(why, "no collectives") != NULL);
	CHECK_INT(t.n, 0);

	e = align_est_new();	/* proc0: one device, collectives of 4 */
	add(e, "a", 0, 4, 10);
	add(e, "b", 0, 4, 20);
	CHECK_INT(solve(e, &t), 1);
	CHECK_STR(why, "one device (0) in the collectives, which span up to 4: "
	    "nothing to align");

	e = align_est_new();
	add(e, "a", 0, 1, 10);
	add(e, "b", 1, 1, 20);
	CHECK_INT(solve(e, &t), 1);
	CHECK(strstr(why, "largest CollectiveSize is 1") != NULL);

	e = align_est_new();	/* the reference asserts here */
	add(e, "a", 0, 2, 10);
	add(e, "a", 1, 2, 10);
	add(e, "b", 2, 2, 20);
	CHECK_INT(solve(e, &t), 1);
	CHECK(strstr(why, "3 devices, but the largest collectives span 2") != NULL);

	e = align_est_new();	/* combined4's ProgramId mismatch, in small */
	add(e, "p1", 0, 2, 10);
	add(e, "p2", 1, 2, 10);
	CHECK_INT(solve(e, &t), 1);
	CHECK_STR(why, "no complete collective: no instance of CollectiveSize 2 "
	    "was seen on all 2 devices");
	CHECK_INT(t.n, 0);
}

/*
 * Collectives of unknown size (0: named, no dump) span every device of
 * the collectives: three devices, "a" and "b" on all three with ends
 * 10, 13, 16 and 100, 103, 106 (mean 13 and 103: skews -3, 0, 3 ns),
 * "c" on two only (not used); with "k" of known size 3 (ends 20, 26, 23:
 * skews -3, 3, 0) the medians of (-3, -3, -3), (0, 0, 3), (3, 3, 0).
 */
static void
unknown_size(void)
{
	struct align_est *e = align_est_new();
	struct align_table t;

	add(e, "a", 0, 0, 10);
	add(e, "a", 1, 0, 13);
	add(e, "a", 2, 0, 16);
	add(e, "b", 2, 0, 106);
	add(e, "b", 0, 0, 100);
	add(e, "b", 1, 0, 103);
	add(e, "c", 0, 0, 0);
	add(e, "c", 1, 0, 1000);
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(t.n, 3);
	CHECK_INT(corr(&t, 0), -3);
	CHECK_INT(corr(&t, 1), 0);
	CHECK_INT(corr(&t, 2), 3);
	CHECK_INT(t.v[0].instances, 2);
	align_table_free(&t);

	e = align_est_new();
	add(e, "a", 0, 0, 10);
	add(e, "a", 1, 0, 13);
	add(e, "a", 2, 0, 16);
	add(e, "b", 0, 0, 100);
	add(e, "b", 1, 0, 103);
	add(e, "b", 2, 0, 106);
	add(e, "k", 0, 3, 20);
	add(e, "k", 1, 3, 26);
	add(e, "k", 2, 3, 23);
	CHECK_INT(solve(e, &t), 0);
	CHECK_INT(corr(&t, 0), -3);
	CHECK_INT(corr(&t, 1), 0);
	CHECK_INT(corr(&t, 2), 3);
	CHECK_INT(t.v[1].instances, 3);
	align_table_free(&t);

	/* Known collectives over more devices than present: declined as
	 * before, the unknown ones (taken as the 2 present) left out. */
	e = align_est_new();
	add(e, "a", 0, 0, 10);
	add(e, "a", 1, 0, 12);
	add(e, "k", 0, 4, 20);
	CHECK_INT(solve(e, &t), 1);
	CHECK(strstr(why, "2 devices, but the largest collectives span 4") !=
	    NULL);
}

static void
bad_rows(void)
{
	struct align_est *e = align_est_new();
	struct align_table t;

	CHECK_INT(align_est_add(e, "a", 1, 0, -1, 5), -1);
	CHECK(strstr(err_msg(), "CollectiveSize -1") != NULL);
	CHECK_INT(align_est_add(e, "a", 1, 0, 2, INT64_MAX), -1);
	CHECK(strstr(err_msg(), "out of range") != NULL);
	CHECK_INT(align_est_add(e, "a", 1, 0, 2, INT64_MIN), -1);
	CHECK(strstr(err_msg(), "out of range") != NULL);
	/* Ends too far apart for exact sums: an error, not a wrong answer. */
	add(e, "a", 0, 2, -3 * ALIGN_MAX_NS);
	add(e, "a", 1, 2, 3 * ALIGN_MAX_NS);
	CHECK_INT(solve(e, &t), -1);
	CHECK(strstr(err_msg(), "too far") != NULL);
}

/* Read TEXT as a corrections table into *T. */
static int
read_text(const char *text, struct align_table *t)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc = align_table_read(fp, "c.tsv", t);

	fclose(fp);
	return rc;
}

static void
table(void)
{
	struct align_table t = { 0 }, u;
	struct align_corr v[] = {
		{ -2, -25632211, 5, 1050 }, { 0, 279850226, 5, 0 },
		{ 9, 1, 1, 123456789012 }
	};
	struct tsv_writer *w;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	t.v = v;
	t.n = 3;
	CHECK(align_table_find(&t, -2) == &v[0]);
	CHECK(align_table_find(&t, 9) == &v[2]);
	CHECK(align_table_find(&t, 1) == NULL);
	fp = open_memstream(&buf, &len);
	w = tsv_wopen(fp, "mem");
	CHECK_INT(align_table_write(w, &t), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(buf, "Device\tCorrectionMs\tInstances\tSpreadMs\n"
	    "-2\t-25.632211\t5\t0.00105\n0\t279.850226\t5\t0\n"
	    "9\t0.000001\t1\t123456.789012\n");
	/* Read back (columns by name, extra ones ignored, any order). */
	CHECK_INT(read_text(buf, &u), 0);
	CHECK_INT(u.n, 3);
	for (i = 0; i < u.n && i < 3; i++) {
		CHECK_INT(u.v[i].device, v[i].device);
		CHECK_INT(u.v[i].corr_ns, v[i].corr_ns);
	}
	align_table_free(&u);
	free(buf);
	CHECK_INT(read_text("X\tCorrectionMs\tDevice\n"
	    "a\t1.5\t4\nb\t-0.25\t-1\n", &u), 0);
	CHECK_INT(u.n, 2);
	CHECK_INT(corr(&u, 4), 1500000);
	CHECK_INT(corr(&u, -1), -250000);
	align_table_free(&u);
	CHECK_INT(read_text("Device\tCorrectionMs\n", &u), 0);
	CHECK_INT(u.n, 0);
}

static void
bad_tables(void)
{
	struct align_table u;

	CHECK_INT(read_text("Device\tInstances\n0\t5\n", &u), -1);
	CHECK_STR(err_msg(), "c.tsv: missing column 'CorrectionMs'");
	CHECK_INT(read_text("Device\tCorrectionMs\n0\t1\n1\tabc\n", &u), -1);
	CHECK_STR(err_msg(), "c.tsv:3: column CorrectionMs: not a number: 'abc'");
	CHECK_INT(read_text("Device\tCorrectionMs\n0\t1\n1\n", &u), -1);
	CHECK_STR(err_msg(), "c.tsv:3: 1 field, the header has 2");
	CHECK_INT(read_text("Device\tCorrectionMs\n3\t1\n0\t1\n3\t2\n", &u), -1);
	CHECK_STR(err_msg(), "c.tsv: device 3 listed twice");
	CHECK_INT(read_text("Device\tCorrectionMs\n0\t3000000000000\n", &u), -1);
	CHECK_STR(err_msg(), "c.tsv:2: column CorrectionMs: not a time in ms (at "
	    "most 2^60 ns): '3000000000000'");
	CHECK_INT(read_text("", &u), -1);
	CHECK_STR(err_msg(), "c.tsv: no header line");
}

int
main(void)
{
	rounding();
	median();
	complete_only();
	invariance();
	refusals();
	bad_rows();
	unknown_size();
	table();
	bad_tables();
	return unit_done("align");
}
