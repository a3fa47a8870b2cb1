/* Folding: the frame and leaf rules, rounding, the splice, and whole
 * folds of small side tables (fallbacks, equal splits, top modules, idle
 * roots, variants, the opcode table, errors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "analysis/fold.h"
#include "base/tsv.h"
#include "unit.h"

#define P(s) s, strlen(s)

static void
put_frame(void)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	fold_put_frame(&buf, &len, &cap, P("a;b\tc\nd\x7f"));
	CHECK_INT(len, 8);
	CHECK(memcmp(buf, "a:b c d ", 8) == 0);
	fold_put_frame(&buf, &len, &cap, P("[é]"));
	CHECK(len == 12 && memcmp(buf + 8, "[é]", 4) == 0);
	free(buf);
}

/*
 * fold_put_frame copies eight bytes at a step when none needs replacing:
 * every byte value, at every place in and across the words, and every
 * length, against the rule applied a byte at a time.
 */
static void
put_frame_words(void)
{
	char src[40], want[40], *buf = NULL;
	size_t len, cap = 0, n, at, i, bad = 0;
	int c;

	for (c = 0; c < 256; c++)
		for (n = 1; n <= sizeof(src); n++)
			for (at = 0; at < n; at += 3) {
				for (i = 0; i < n; i++)
					src[i] = (char)('a' + i % 26);
				src[at] = (char)c;
				memcpy(want, src, n);
				if (c == ';')
					want[at] = ':';
				else if (c < 0x20 || c == 0x7f)
					want[at] = ' ';
				len = 1;	/* after a byte already there */
				fold_put_frame(&buf, &len, &cap, src, n);
				if (len != n + 1 || memcmp(buf + 1, want, n) != 0)
					bad++;
			}
	CHECK_INT(bad, 0);
	free(buf);
}

/* The leaf rule on LINE from START; returns the result (static). */
static const char *
leaf(const char *line, size_t start)
{
	static char buf[64];
	size_t len = strlen(line);

	memcpy(buf, line, len + 1);
	fold_leaf_safe(buf, start, &len);
	buf[len] = '\0';
	return buf;
}

static void
leaf_rule(void)
{
	CHECK_STR(leaf("step 3", 0), "step_3");
	CHECK_STR(leaf("a;step 3", 2), "a;step_3");
	CHECK_STR(leaf("x  12", 0), "x _12");
	CHECK_STR(leaf("a 1.5", 0), "a_1.5");
	CHECK_STR(leaf("a 5.", 0), "a_5.");
	CHECK_STR(leaf("a .5", 0), "a_.5");
	CHECK_STR(leaf("a\t7", 0), "a_7");
	/* Not a count: two dots, no digit, no space, the whole leaf. */
	CHECK_STR(leaf("v 1.2.3", 0), "v 1.2.3");
	CHECK_STR(leaf("v .", 0), "v .");
	CHECK_STR(leaf("x5", 0), "x5");
	CHECK_STR(leaf("123", 0), "123");
	CHECK_STR(leaf("a;12", 2), "a;12");
	CHECK_STR(leaf("step 3x", 0), "step 3x");
	/* Unicode spaces that Perl's \s matches: one '_' for the bytes. */
	CHECK_STR(leaf("a\xc2\xa0" "3", 0), "a_3");
	CHECK_STR(leaf("a\xe2\x80\x83" "42", 0), "a_42");
	CHECK_STR(leaf("a\xe3\x80\x80" "1", 0), "a_1");
	CHECK_STR(leaf("a\xc3\xa9" "1", 0), "a\xc3\xa9" "1");
}

static void
rounding(void)
{
	int64_t whole[] = { 1500, 1500, 1000, 0 }, c[4];
	double frac[] = { 0, 0, 0, 0.75 }, third[] = { 1.0 / 3, 1.0 / 3,
	    1.0 / 3 };
	int64_t three[] = { 3, 3, 3 }, big[] = { 999, 2 };
	double many[] = { 1500.5, 0 };

	/* 1.5 + 1.5 + 1 + 0.00075 us: 4.00075 rounds to 4. */
	fold_round(whole, frac, 4, 1000, c);
	CHECK_INT(c[0] + c[1] + c[2] + c[3], 4);
	CHECK_INT(c[0], 2);
	CHECK_INT(c[1], 1);
	CHECK_INT(c[2], 1);
	CHECK_INT(c[3], 0);
	/* 10 ns over three stacks: 4, 3, 3, the lowest index first. */
	fold_round(three, third, 3, 1, c);
	CHECK_INT(c[0], 4);
	CHECK_INT(c[1], 3);
	CHECK_INT(c[2], 3);
	/* Fractions worth more than a unit carry into the count: 2.4995
	 * and 0.002 us sum to 2.5015, rounded 3. */
	fold_round(big, many, 2, 1000, c);
	CHECK_INT(c[0], 3);
	CHECK_INT(c[1], 0);
}

static struct fold_seq
mkseq(const char *const *names, size_t n, struct fold_str *buf)
{
	struct fold_seq s;
	size_t i;

	for (i = 0; i < n; i++) {
		buf[i].s = names[i];
		buf[i].n = strlen(names[i]);
	}
	s.f = buf;
	s.n = n;
	return s;
}

static void
common(void)
{
	static const char *const a[] = { "[GPU active]", "main", "wrapper",
	    "train:199", "ckpt", "sync", "op" };
	static const char *const b[] = { "[GPU active]", "main", "wrapper",
	    "train:290", "exec", "exec2", "sync", "op" };
	static const char *const c[] = { "x", "y", "x" };
	static const char *const d[] = { "x", "x" };
	struct fold_str fa[8], fb[8], fc[3], fd[2];
	struct fold_seq v[3];
	size_t p, s;

	v[0] = mkseq(a, 7, fa);
	v[1] = mkseq(b, 8, fb);
	CHECK_INT(fold_common(v, 2, &p, &s), 0);
	CHECK_INT(p, 3);
	CHECK_INT(s, 2);
	v[1] = mkseq(a, 7, fb);
	CHECK_INT(fold_common(v, 2, &p, &s), 1);
	/* One a prefix of the other: nothing after the marker. */
	v[1] = mkseq(a, 5, fb);
	CHECK_INT(fold_common(v, 2, &p, &s), 0);
	CHECK_INT(p, 5);
	CHECK_INT(s, 0);
	/* Prefix and suffix never overlap in the shorter. */
	v[0] = mkseq(c, 3, fc);
	v[1] = mkseq(d, 2, fd);
	CHECK_INT(fold_common(v, 2, &p, &s), 0);
	CHECK_INT(p, 1);
	CHECK_INT(s, 1);
	/* Three at once: what all share. */
	v[0] = mkseq(a, 7, fa);
	v[1] = mkseq(b, 8, fb);
	v[2] = mkseq(a, 2, fc);
	CHECK_INT(fold_common(v, 3, &p, &s), 0);
	CHECK_INT(p, 2);
	CHECK_INT(s, 0);
}

/* ---- whole folds ---- */

static int
load(struct fold *f, int (*fn)(struct fold *, struct tsv_reader *),
    const char *text)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	struct tsv_reader *r = tsv_ropen(fp, "t.tsv");
	int rc = r != NULL ? fn(f, r) : -1;

	tsv_rclose(r);
	fclose(fp);
	return rc;
}

/* Finish F and write its folded stacks, or the opcode table. */
static char *
output(struct fold *f, int opcodes)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct tsv_writer *w;

	CHECK_INT(fold_finish(f), 0);
	if (opcodes) {
		w = tsv_wopen(fp, "mem");
		CHECK_INT(fold_write_opcodes(f, w), 0);
		CHECK_INT(tsv_wclose(w), 0);
	} else
		CHECK_INT(fold_write_folded(f, fp, "mem"), 0);
	fclose(fp);
	return out;
}

static const char frames[] =
    "FrameId\tParentFrameId\tFrame\n"
    "0\t\tmain.py:1[<module>]\n"
    "1\t0\tlib.py:2[f]\n"
    "2\t1\top/a\n"
    "3\t1\top/b;c\n"
    "4\t0\tstep 3\n"
    "5\t1\top/d\n";

static const char hlo[] =
    "ProgramId\tName\tOpcode\tStackFrameIds\tOpNames\n"
    "P\tk1\tfusion\t2 3\top/a\\nop/b;c\n"
    "P\tk2\tcustom-call\t\tx/y\n"
    "P\tk3\tfusion\t\t\n"
    "P\tk4\tcopy\t4\t\n"
    "P\tk6\tfusion\t2 3 5\t\n";

/* The outputs of the folds below, worked out by hand (the comments of
 * source, op_name and top_and_idle say how). */
static const char small_source[] =
	    "[GPU active];[Unknown] 5\n"
	    "[GPU active];[Unknown];x/y 7\n"
	    "[GPU active];main.py:1[<module>];lib.py:2[f];op/a 9\n"
	    "[GPU active];main.py:1[<module>];lib.py:2[f];op/b:c 8\n"
	    "[GPU active];main.py:1[<module>];lib.py:2[f];op/d 3\n"
	    "[GPU active];main.py:1[<module>];step_3 1\n";
static const char small_op_name[] =
	    "[GPU active];[Unknown] 16\n"
	    "[GPU active];op;a 5\n"
	    "[GPU active];op;b:c 5\n"
	    "[GPU active];x;y 7\n";
static const char modules_op_name[] =
	    "[GPU active];[Unknown] 4000\n"
	    "[GPU active];a;b 80000\n"
	    "[GPU idle between module executions] 105000\n"
	    "[GPU idle during module execution] 15500\n";
static const char modules_opcode[] =
	    "Opcode\tProjDurMs\tFraction\n"
	    "fusion\t0.08\t0.8040201005025126\n"
	    "GPU idle during modules\t0.0155\t0.15577889447236182\n"
	    "\t0.004\t0.04020100502512563\n";

/* A fold of the tables above with thunks k1..k6 (k5 has no hlo row),
 * its hlo rows read for the folds KINDS (0: BY's). */
static struct fold *
small_k(enum fold_by by, int64_t unit, unsigned kinds)
{
	struct fold_opts o = { by, 0.99, unit, kinds };
	struct fold *f = fold_new(&o);

	if (by == FOLD_SOURCE || (kinds & (1u << FOLD_SOURCE)))
		CHECK_INT(load(f, fold_load_stackframes, frames), 0);
	CHECK_INT(load(f, fold_load_hlo, hlo), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k1"), 6), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k1"), 4), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k2"), 7), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k3"), 3), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k4"), 1), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k5"), 2), 0);
	CHECK_INT(fold_add_thunk(f, P("P"), P("k6"), 10), 0);
	return f;
}

static struct fold *
small(enum fold_by by, int64_t unit)
{
	return small_k(by, unit, 0);
}

static void
source(void)
{
	struct fold *f = small(FOLD_SOURCE, 1);
	char *out = output(f, 0);

	/* k1 over its two stacks, k6 over three (4, 3, 3 by the sorted
	 * order), k2 to its op_name, k3 and k5 to [Unknown]; ';' and the
	 * leaf's " 3" made safe. */
	CHECK_STR(out, small_source);
	CHECK_INT(fold_totals(f)->nunknown, 1);
	CHECK_INT(fold_totals(f)->thunks_ns, 33);
	CHECK_INT(fold_totals(f)->have_modules, 0);
	free(out);
	fold_free(f);
}

static void
op_name(void)
{
	struct fold *f = small(FOLD_OP_NAME, 1);
	char *out = output(f, 0);

	CHECK_STR(out, small_op_name);
	free(out);
	fold_free(f);
	/* In us, 33 ns are 0.033 us: counts still sum to the rounded total. */
	f = small(FOLD_OP_NAME, 1000);
	out = output(f, 0);
	CHECK_STR(out,
	    "[GPU active];[Unknown] 0\n"
	    "[GPU active];op;a 0\n"
	    "[GPU active];op;b:c 0\n"
	    "[GPU active];x;y 0\n");
	free(out);
	fold_free(f);
}

/* Programs A, B, C with module time 95, 4.5 and 1 us (C on two
 * devices); the hlo rows read for the folds KINDS (0: BY's). */
static struct fold *
modules_k(enum fold_by by, double top, unsigned kinds)
{
	struct fold_opts o = { by, top, 1, kinds };
	struct fold *f = fold_new(&o);

	CHECK_INT(load(f, fold_load_hlo,
	    "ProgramId\tName\tOpcode\tStackFrameIds\tOpNames\n"
	    "A\tt\tfusion\t\ta/b\n"), 0);
	CHECK_INT(load(f, fold_load_modules,
	    "ProgramId\tDevice\tProjStartMs\tProjDurMs\tX\n"
	    "A\t0\t0\t0.095\tx\n"
	    "B\t0\t0.2\t0.0045\tx\n"
	    "C\t0\t0.3\t0.0005\tx\n"
	    "C\t1\t0\t0.0005\tx\n"), 0);
	CHECK_INT(fold_add_thunk(f, P("A"), P("t"), 80000), 0);
	CHECK_INT(fold_add_thunk(f, P("B"), P("t"), 4000), 0);
	CHECK_INT(fold_add_thunk(f, P("C"), P("t"), 1000), 0);
	return f;
}

static struct fold *
modules(enum fold_by by, double top)
{
	return modules_k(by, top, 0);
}

/* Two thunks of concurrent streams, 60 and 50 us, inside a module of
 * 100 us: 110 us of thunk time, no idle time, not -10 us (the opcode
 * table's idle row and the folded stacks' idle line are 0). */
static void
idle_never_negative(void)
{
	struct fold_opts o = { FOLD_OPCODE, 0.99, 1, 0 };
	struct fold *f = fold_new(&o);
	char *out;

	CHECK_INT(load(f, fold_load_hlo,
	    "ProgramId\tName\tOpcode\tStackFrameIds\tOpNames\n"
	    "A\tt\tfusion\t\ta/b\n"
	    "A\tu\tfusion\t\ta/c\n"), 0);
	CHECK_INT(load(f, fold_load_modules,
	    "ProgramId\tDevice\tProjStartMs\tProjDurMs\n"
	    "A\t0\t0\t0.1\n"), 0);
	CHECK_INT(fold_add_thunk(f, P("A"), P("t"), 60000), 0);
	CHECK_INT(fold_add_thunk(f, P("A"), P("u"), 50000), 0);
	out = output(f, 1);
	CHECK_STR(out, "Opcode\tProjDurMs\tFraction\n"
	    "fusion\t0.11\t1\n"
	    "GPU idle during modules\t0\t0\n");
	free(out);
	fold_free(f);
}

static void
top_and_idle(void)
{
	struct fold *f = modules(FOLD_OP_NAME, 0.99);
	const struct fold_totals *t;
	char *out = output(f, 0);

	/* C is left out: A and B make 99.5%.  Idle during modules 15.5
	 * us; between them, on device 0, 204.5 - 99.5 us. */
	CHECK_STR(out, modules_op_name);
	t = fold_totals(f);
	CHECK_INT(t->ntop, 2);
	CHECK_INT(t->nprograms, 3);
	CHECK_INT(t->thunks_ns, 84000);
	CHECK_INT(t->modules_ns, 99500);
	CHECK_INT(t->wall_ns, 204500);
	free(out);
	fold_free(f);

	/* --top 1: every module, device 1 too. */
	f = modules(FOLD_OP_NAME, 1);
	out = output(f, 0);
	t = fold_totals(f);
	CHECK_INT(t->ntop, 3);
	CHECK_INT(t->thunks_ns, 85000);
	CHECK_INT(t->modules_ns, 100500);
	CHECK_INT(t->wall_ns, 300500 + 500);
	free(out);
	fold_free(f);

	/* The opcode table: the idle row makes the total module time. */
	f = modules(FOLD_OPCODE, 0.99);
	out = output(f, 1);
	CHECK_STR(out, modules_opcode);
	free(out);
	fold_free(f);
}

/* Without module rows: thunk time ranks programs, no idle roots. */
static void
no_modules(void)
{
	struct fold_opts o = { FOLD_OPCODE, 0.9, 1, 0 };
	struct fold *f = fold_new(&o);
	char *out;

	CHECK_INT(load(f, fold_load_hlo,
	    "ProgramId\tName\tOpcode\nA\tt\tfusion\nB\tt\tcopy\n"), 0);
	CHECK_INT(fold_add_thunk(f, P("A"), P("t"), 90), 0);
	CHECK_INT(fold_add_thunk(f, P("B"), P("t"), 10), 0);
	out = output(f, 1);
	CHECK_STR(out, "Opcode\tProjDurMs\tFraction\nfusion\t0.00009\t1\n");
	CHECK_INT(fold_totals(f)->ntop, 1);
	free(out);
	fold_free(f);
}

static void
variants(void)
{
	struct fold_opts o = { FOLD_SOURCE, 1, 1, 0 };
	struct fold *f = fold_new(&o);
	char *out;

	CHECK_INT(load(f, fold_load_stackframes,
	    "FrameId\tParentFrameId\tFrame\n"
	    "0\t\tm\n1\t0\ta\n2\t1\ts\n3\t0\tb\n4\t3\tc\n5\t4\ts\n"), 0);
	/* k: two dumps disagree; d: the same row twice; u: other counts. */
	CHECK_INT(load(f, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\tOpNames\n"
	    "Q\tk\t2\t\nQ\tk\t5\t\n"
	    "Q\td\t2\t\nQ\td\t2\t\n"
	    "Q\tu\t2\t\nQ\tu\t2 5\t\n"), 0);
	CHECK_INT(fold_add_thunk(f, P("Q"), P("k"), 6), 0);
	CHECK_INT(fold_add_thunk(f, P("Q"), P("d"), 5), 0);
	CHECK_INT(fold_add_thunk(f, P("Q"), P("u"), 4), 0);
	out = output(f, 0);
	CHECK_STR(out,
	    "[GPU active];m;[inconsistent metadata];s 6\n"
	    "[GPU active];m;a;s 7\n"
	    "[GPU active];m;b;c;s 2\n");
	CHECK_INT(fold_totals(f)->ninconsistent, 2);
	free(out);
	fold_free(f);
}

/* Variants past the arrays' first growth (new_var kept a
 * pointer into the variant array across its growth): 40 keys, each
 * twice, the second time with another stack, so that every key has 2
 * variants that disagree.  Under ASan the old code wrote to freed
 * memory; without it, variants could be lost. */
static void
variants_grow(void)
{
	struct fold_opts o = { FOLD_SOURCE, 1, 1, 0 };
	struct fold *f = fold_new(&o);
	char text[4096];
	size_t n = 0;
	int i, pass;

	CHECK_INT(load(f, fold_load_stackframes,
	    "FrameId\tParentFrameId\tFrame\n"
	    "0\t\tm\n1\t0\ta\n2\t1\ts\n3\t0\tb\n4\t3\tc\n5\t4\ts\n"), 0);
	n += (size_t)snprintf(text + n, sizeof(text) - n,
	    "ProgramId\tName\tStackFrameIds\tOpNames\n");
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < 40; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
			    "p\tn%d\t%s\t\n", i, pass ? "5" : "2");
	CHECK_INT(load(f, fold_load_hlo, text), 0);
	for (i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		CHECK_INT(fold_add_thunk(f, P("p"), P(name), 1000), 0);
	}
	free(output(f, 0));
	/* Every key's two variants disagree: all 40 are inconsistent. */
	CHECK_INT(fold_totals(f)->ninconsistent, 40);
	fold_free(f);
}

/* Module rows of a long run: 330,000 executions of 1 ms
 * from one hour on are valid (their starts were summed); durations
 * that add up to more than 2^60 ns are not. */
static void
modules_long(void)
{
	struct fold_opts o = { FOLD_OPCODE, 1, 1, 0 };
	struct fold *f = fold_new(&o);
	int64_t hour = 3600 * INT64_C(1000000000), i;
	int rc = 0;

	for (i = 0; i < 330000 && rc == 0; i++)
		rc = fold_add_module(f, P("p"), 0, hour + i * 1000000, 1000000);
	CHECK_INT(rc, 0);
	CHECK_INT(fold_add_module(f, P("p"), 0, 0, TSV_MAX_NS), -1);
	CHECK_STR(err_msg(), "module durations add up to more than 2^60 ns");
	CHECK_INT(fold_add_module(f, P("p"), 0, TSV_MAX_NS + 1, 1), -1);
	fold_free(f);
}

/* Load TEXT with FN into a new fold; returns the err message or "". */
static const char *
load_error(enum fold_by by, int (*fn)(struct fold *, struct tsv_reader *),
    const char *text)
{
	struct fold_opts o = { by, 0.99, 1, 0 };
	struct fold *f = fold_new(&o);
	int rc = 0;

	if (fn == fold_load_hlo && by == FOLD_SOURCE)
		rc = load(f, fold_load_stackframes, frames);
	if (rc == 0)
		rc = load(f, fn, text);
	fold_free(f);
	return rc == 0 ? "" : err_msg();
}

static void
errors(void)
{
	struct fold_opts o = { FOLD_SOURCE, 0.99, 1, 0 };
	struct fold *f;

	CHECK_STR(load_error(FOLD_SOURCE, fold_load_stackframes,
	    "FrameId\tParentFrameId\tFrame\n1\t\tx\n"),
	    "t.tsv:2: column FrameId: expected the row number, got 1");
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_stackframes,
	    "FrameId\tParentFrameId\tFrame\n0\t0\tx\n"),
	    "t.tsv:2: column ParentFrameId: not a smaller FrameId: 0");
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_stackframes,
	    "FrameId\tParentFrameId\tFrame\n0\t\tx\n1\tz\ty\n"),
	    "t.tsv:3: column ParentFrameId: not an integer: 'z'");
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_stackframes,
	    "FrameId\tFrame\n0\tx\n"), "t.tsv: missing column 'ParentFrameId'");
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\tOpNames\nP\tk\t1 x\t\n"),
	    "t.tsv:2: column StackFrameIds: not a list of ids separated by "
	    "single spaces, at character 3: '1 x'");
	/* The grammar of base/ids.h: one space between ids, as written. */
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\tOpNames\nP\tk\t1  9\t\n"),
	    "t.tsv:2: column StackFrameIds: not a list of ids separated by "
	    "single spaces, at character 3: '1  9'");
	CHECK_STR(load_error(FOLD_SOURCE, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\tOpNames\nP\tk\t1 9\t\n"),
	    "t.tsv:2: column StackFrameIds: no stack frame 9 (character 3)");
	CHECK_STR(load_error(FOLD_OP_NAME, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\nP\tk\t1\n"),
	    "t.tsv: missing column 'OpNames'");
	CHECK_STR(load_error(FOLD_OPCODE, fold_load_hlo,
	    "ProgramId\tName\tOpNames\nP\tk\t\n"),
	    "t.tsv: missing column 'Opcode'");
	CHECK_STR(load_error(FOLD_OP_NAME, fold_load_modules,
	    "ProgramId\tDevice\tProjStartMs\tProjDurMs\nP\t0\t1\t-0.5\n"),
	    "t.tsv:2: column ProjDurMs: negative duration");
	CHECK_STR(load_error(FOLD_OP_NAME, fold_load_modules,
	    "ProgramId\tDevice\tProjStartMs\tProjDurMs\nP\tx\t1\t1\n"),
	    "t.tsv:2: column Device: not an integer: 'x'");
	/* Source needs the frames first: a caller's mistake, said so. */
	f = fold_new(&o);
	CHECK_INT(load(f, fold_load_hlo,
	    "ProgramId\tName\tStackFrameIds\tOpNames\n"), -1);
	CHECK_STR(err_msg(), "t.tsv: the stack frames must be read first");
	CHECK_INT(fold_add_thunk(f, P("P"), P("k"), -1), -1);
	CHECK_STR(err_msg(), "negative duration");
	fold_free(f);
}

/* fold_diff_read's counts (through num_f64): decimals as flamegraph.pl
 * reads them, summed per stack; anything else refused by line. */
static void
diff_counts(void)
{
	static const char before[] = "a;b 1.5\na;b 2.\nc\t0.25\n";
	static const char after[] = "a;b 3\n";
	static const char *const bad[] = { "a 1e3\n", "a -1\n", "a .5\n",
	    "a 1.2.3\n", "a inf\n" };
	struct fold_diff *x = fold_diff_new();
	char out[256];
	FILE *fp;
	size_t i;

	fp = fmemopen((void *)before, strlen(before), "r");
	CHECK_INT(fold_diff_read(x, 0, fp, "b.folded"), 0);
	fclose(fp);
	fp = fmemopen((void *)after, strlen(after), "r");
	CHECK_INT(fold_diff_read(x, 1, fp, "a.folded"), 0);
	fclose(fp);
	memset(out, 0, sizeof(out));
	fp = fmemopen(out, sizeof(out) - 1, "w");
	CHECK_INT(fold_diff_write(x, 0, fp, "out"), 0);
	fclose(fp);
	/* 1.5 + 2 = 3.5 before, 3 after; c only before. */
	CHECK_STR(out, "a;b 3.5 3\nc 0.25 0\n");
	fold_diff_free(x);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		x = fold_diff_new();
		fp = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		CHECK_INT(fold_diff_read(x, 0, fp, "x.folded"), -1);
		CHECK(strstr(err_msg(), "x.folded:1: not a count") != NULL);
		fclose(fp);
		fold_diff_free(x);
	}
}

/* One load, several jobs (fold_select, nsysjax-fold -o): each job's
 * output is the single fold's above, whatever ran before it. */
static void
jobs(void)
{
	unsigned all = 1u << FOLD_SOURCE | 1u << FOLD_OP_NAME | 1u << FOLD_OPCODE;
	struct fold *f = modules_k(FOLD_OP_NAME, 0.99, 1u << FOLD_OP_NAME |
	    1u << FOLD_OPCODE);
	const struct fold_totals *t;
	char *out;

	fold_select(f, FOLD_OP_NAME, NULL, 0, 0);
	out = output(f, 0);
	CHECK_STR(out, modules_op_name);
	free(out);
	/* C alone, without its module rows: its thunk (no hlo row) and
	 * no idle root; C is the one candidate. */
	fold_select(f, FOLD_OP_NAME, "C", 1, 1);
	out = output(f, 0);
	CHECK_STR(out, "[GPU active];[Unknown] 1000\n");
	t = fold_totals(f);
	CHECK_INT(t->nprograms, 1);
	CHECK_INT(t->ntop, 1);
	CHECK_INT(t->thunks_ns, 1000);
	CHECK_INT(t->modules_ns, 0);
	CHECK_INT(t->have_modules, 0);
	CHECK_INT(t->nunknown, 1);
	free(out);
	/* A alone keeps its module rows when asked: its own idle time,
	 * no other program's module time. */
	fold_select(f, FOLD_OP_NAME, "A", 1, 0);
	out = output(f, 0);
	CHECK_STR(out, "[GPU active];a;b 80000\n"
	    "[GPU idle between module executions] 0\n"
	    "[GPU idle during module execution] 15000\n");
	free(out);
	fold_select(f, FOLD_OPCODE, NULL, 0, 0);
	out = output(f, 1);
	CHECK_STR(out, modules_opcode);
	free(out);
	fold_select(f, FOLD_OP_NAME, NULL, 0, 0);
	out = output(f, 0);
	CHECK_STR(out, modules_op_name);
	t = fold_totals(f);
	CHECK_INT(t->ntop, 2);
	CHECK_INT(t->nprograms, 3);
	CHECK_INT(t->wall_ns, 204500);
	free(out);
	fold_free(f);

	/* Source then op_name from one load: the lines of one kind never
	 * show in the other's output. */
	f = small_k(FOLD_SOURCE, 1, all);
	fold_select(f, FOLD_SOURCE, NULL, 0, 0);
	out = output(f, 0);
	CHECK_STR(out, small_source);
	free(out);
	fold_select(f, FOLD_OP_NAME, NULL, 0, 0);
	out = output(f, 0);
	CHECK_STR(out, small_op_name);
	free(out);
	/* P alone is the whole run; Q has no thunk: an empty graph. */
	fold_select(f, FOLD_SOURCE, "P", 1, 1);
	out = output(f, 0);
	CHECK_STR(out, small_source);
	free(out);
	fold_select(f, FOLD_SOURCE, "Q", 1, 1);
	out = output(f, 0);
	CHECK_STR(out, "");
	CHECK_INT(fold_totals(f)->nprograms, 0);
	free(out);
	fold_free(f);
}

int
main(void)
{
	put_frame();
	put_frame_words();
	leaf_rule();
	rounding();
	common();
	source();
	op_name();
	top_and_idle();
	idle_never_negative();
	no_modules();
	variants();
	variants_grow();
	modules_long();
	errors();
	diff_counts();
	jobs();
	return unit_done("fold");
}
