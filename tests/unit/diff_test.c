/* diff: matching (fingerprint, then module name; added, removed), keys
 * from the hlo frame, contributions at BEFORE's executions, the totals,
 * the gate, the order of rows; small frames built by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

#define P(s) s, strlen(s)

static const struct diff_opts defaults = { DIFF_KEY_THUNK, "ProjDurMs",
    SIGTEST_HOLM, 0.05, -1, 0, 0, 0 };

/* TEXT as a TSV reader of a memory stream (the stream in *FP). */
static struct tsv_reader *
reader(const char *text, FILE **fp)
{
	*fp = fmemopen((void *)text, strlen(text), "r");
	return tsv_ropen(*fp, "mem");
}

static int
side(struct diff *d, int run, const char *text)
{
	FILE *fp;
	struct tsv_reader *r = reader(text, &fp);
	int rc = r ? diff_load_side(d, run, r) : -1;

	tsv_rclose(r);
	fclose(fp);
	return rc;
}

static int
frame(struct diff *d, int run, const char *text)
{
	FILE *fp;
	struct tsv_reader *r = reader(text, &fp);
	int rc = r ? diff_read(d, run, r) : -1;

	tsv_rclose(r);
	fclose(fp);
	return rc;
}

/* The output of WRITE as a string (static buffer). */
static const char *
table(struct diff *d, int summary)
{
	static char buf[8192];
	FILE *fp = fmemopen(buf, sizeof buf, "w");
	struct tsv_writer *w = tsv_wopen(fp, "mem");

	if (summary)
		diff_write_summary(d, w);
	else
		diff_write_items(d, w);
	tsv_wclose(w);
	fputc('\0', fp);
	fclose(fp);
	return buf;
}

/* Field COL (0-based) of line LINE (0: header) of TEXT (static). */
static const char *
field(const char *text, int line, int col)
{
	static char buf[256];
	const char *p = text, *e;
	int i;

	for (i = 0; i < line && p; i++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	for (i = 0; i < col && p; i++)
		p = strchr(p, '\t') ? strchr(p, '\t') + 1 : NULL;
	if (p == NULL)
		return "(none)";
	e = p + strcspn(p, "\t\n");
	snprintf(buf, sizeof buf, "%.*s", (int)(e - p), p);
	return buf;
}

#define HDR "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjDurMs\n"

/*
 * BEFORE: program A (module "step") runs twice on device 0: thunk f 1 ms
 * and 2 ms, thunk g 1 ms each.  AFTER: the same module with another
 * fingerprint B, run 4 times: f 3 ms each, g 1 ms, plus a new thunk h
 * 0.5 ms once.  Program C ("init") only BEFORE, 5 ms.
 * Module executions: E_b = 2, E_a = 4.  Contributions at E_b:
 * f: 12 * 2 / 4 - 3 = 3 ms; g: 4 * 2 / 4 - 2 = 0; h: 0.5 * 2 / 4 = 0.25;
 * C's thunk: -5.  Total change -1.75 ms of 10 ms before.
 */
static void
matching(void)
{
	struct diff *d = diff_new(&defaults);
	const struct diff_total *t;
	const char *s;

	CHECK_INT(side(d, 0, "ProgramId\tProgramName\nA\tstep\nC\tinit\n\t\n"), 0);
	CHECK_INT(side(d, 1, "ProgramId\tProgramExecution\tName\tDevice\n"
	    "B\t0\tstep\t0\n"), 0);
	CHECK_INT(frame(d, 0, HDR "A\t0\tf\t0\t0\t1\nA\t0\tg\t0\t0\t1\n"
	    "A\t1\tf\t0\t0\t2\nA\t1\tg\t0\t0\t1\nC\t0\tk\t0\t0\t5\n"), 0);
	CHECK_INT(frame(d, 1, HDR "B\t0\tf\t0\t0\t3\nB\t0\tg\t0\t0\t1\n"
	    "B\t1\tf\t0\t0\t3\nB\t1\tg\t0\t0\t1\nB\t2\tf\t0\t0\t3\n"
	    "B\t2\tg\t0\t0\t1\nB\t3\tf\t0\t0\t3\nB\t3\tg\t0\t0\t1\n"
	    "B\t3\th\t0\t0\t0.5\n"), 0);
	CHECK_INT(diff_finish(d), 0);
	s = table(d, 0);
	/* rows by |contribution|: k (-5), f (3), h (0.25), g (0) */
	CHECK_STR(field(s, 1, 3), "k");
	CHECK_STR(field(s, 1, 0), "init");
	CHECK_STR(field(s, 1, 4), "removed");
	CHECK_STR(field(s, 1, 16), "-5");
	CHECK_STR(field(s, 2, 3), "f");
	CHECK_STR(field(s, 2, 0), "step");
	CHECK_STR(field(s, 2, 1), "A");
	CHECK_STR(field(s, 2, 2), "B");
	CHECK_STR(field(s, 2, 4), "name");
	CHECK_STR(field(s, 2, 5), "2");
	CHECK_STR(field(s, 2, 6), "4");
	CHECK_STR(field(s, 2, 7), "1.5");	/* mean before */
	CHECK_STR(field(s, 2, 8), "3");
	CHECK_STR(field(s, 2, 11), "1.5");	/* delta */
	CHECK_STR(field(s, 2, 12), "100");	/* percent */
	CHECK_STR(field(s, 2, 13), "1");	/* every after sample slower */
	CHECK_STR(field(s, 2, 16), "3");
	CHECK_STR(field(s, 3, 3), "h");
	CHECK_STR(field(s, 3, 4), "added");
	CHECK_STR(field(s, 3, 16), "0.25");
	CHECK_STR(field(s, 3, 14), "");		/* no test */
	CHECK_STR(field(s, 4, 3), "g");
	CHECK_STR(field(s, 4, 16), "0");
	t = diff_total(d);
	CHECK_NEAR(t->before_ms, 10, 1e-12);
	CHECK_NEAR(t->after_ms, 16.5, 1e-12);
	CHECK_NEAR(t->change_ms, -1.75, 1e-12);
	CHECK_NEAR(t->change_pct, -17.5, 1e-12);
	CHECK_INT(t->items, 4);
	CHECK_INT(t->added, 1);
	CHECK_INT(t->removed, 1);
	CHECK_NEAR(atof(field(s, 2, 17)), 3 / -1.75, 1e-12);
	/* the module table: init, then step (executions 2 -> 4, per
	 * execution 2.5 ms -> 4.125 ms: sum 5 -> 16.5), then (all) */
	s = table(d, 1);
	CHECK_STR(field(s, 1, 0), "init");
	CHECK_STR(field(s, 1, 3), "removed");
	CHECK_STR(field(s, 2, 0), "step");
	CHECK_STR(field(s, 2, 4), "2");
	CHECK_STR(field(s, 2, 5), "4");
	CHECK_STR(field(s, 2, 6), "5");
	CHECK_STR(field(s, 2, 7), "16.5");
	CHECK_STR(field(s, 2, 8), "2.5");
	CHECK_STR(field(s, 2, 9), "4.125");
	CHECK_STR(field(s, 2, 17), "3.25");	/* 16.5 * 2 / 4 - 5 */
	CHECK_STR(field(s, 3, 0), "(all)");
	CHECK_STR(field(s, 3, 17), "-1.75");
	diff_free(d);
}

/* Keys by op_name: two fusions renamed between runs, one op_name. */
static void
op_name(void)
{
	struct diff_opts o = defaults;
	struct diff *d;
	const char *s;

	o.key = DIFF_KEY_OP_NAME;
	d = diff_new(&o);
	CHECK_INT(side(d, 0, "ProgramId\tName\tOpName\tStackFrameIds\n"
	    "A\tfusion.1\tjit(f)/dot\t\n"), 0);
	CHECK_INT(side(d, 1, "ProgramId\tName\tOpName\tStackFrameIds\n"
	    "A\tfusion.7\tjit(f)/dot\t\n"), 0);
	CHECK_INT(frame(d, 0, HDR "A\t0\tfusion.1\t0\t0\t2\n"
	    "A\t0\tcopy\t0\t0\t1\n"), 0);
	CHECK_INT(frame(d, 1, HDR "A\t0\tfusion.7\t0\t0\t2.5\n"
	    "A\t0\tcopy\t0\t0\t1\n"), 0);
	CHECK_INT(diff_finish(d), 0);
	s = table(d, 0);
	CHECK_STR(field(s, 0, 3), "OpName");
	CHECK_STR(field(s, 1, 3), "jit(f)/dot");
	CHECK_STR(field(s, 1, 4), "id");
	CHECK_STR(field(s, 1, 16), "0.5");
	CHECK_STR(field(s, 2, 3), "[copy]");	/* copy has no hlo row */
	diff_free(d);
}

/* The gate: an item 20% slower in 30 executions, significant. */
static void
gate(void)
{
	struct diff_opts o = defaults;
	struct diff *d;
	int i;

	o.threshold = 10;
	d = diff_new(&o);
	diff_set_kind(d, DIFF_THUNKS);
	for (i = 0; i < 30; i++) {
		CHECK_INT(diff_add(d, 0, P("A"), P("f"), i, 0,
		    1000000 + i), 0);
		CHECK_INT(diff_add(d, 1, P("A"), P("f"), i, 0,
		    1200000 + i), 0);
	}
	CHECK_INT(diff_finish(d), 0);
	CHECK_INT(diff_regressed(d), 1);
	CHECK_NEAR(diff_total(d)->change_pct, 20 * 1000000.0 / 1000014.5,
	    1e-9);
	diff_free(d);
	/* the same at -t 25: no regression */
	o.threshold = 25;
	d = diff_new(&o);
	diff_set_kind(d, DIFF_THUNKS);
	for (i = 0; i < 30; i++) {
		diff_add(d, 0, P("A"), P("f"), i, 0, 1000000 + i);
		diff_add(d, 1, P("A"), P("f"), i, 0, 1200000 + i);
	}
	CHECK_INT(diff_finish(d), 0);
	CHECK_INT(diff_regressed(d), 0);
	diff_free(d);
}

static void
errors(void)
{
	struct diff *d = diff_new(&defaults);

	CHECK_INT(side(d, 0, "ProgramId\tProgramName\nA\tx\nA\ty\n"), -1);
	CHECK_INT(side(d, 0, "Foo\tBar\n1\t2\n"), -1);
	CHECK_INT(frame(d, 0, HDR "A\t0\tf\t0\t0\t-1\n"), -1);
	CHECK_INT(frame(d, 1, "ProgramId\tProgramExecution\tName\tDevice\t"
	    "ProjDurMs\nA\t0\tm\t0\t1\n"), -1);	/* module vs thunk */
	/* StackFrameIds in base/ids.h's grammar: the whole list, not only
	 * its first id, and no sign (strtoll took " +3"). */
	CHECK_INT(side(d, 0, "ProgramId\tName\tOpName\tStackFrameIds\n"
	    "A\tf\tx\t3 y\n"), -1);
	CHECK_STR(err_msg(), "mem:2: column StackFrameIds: not a list of ids "
	    "separated by single spaces, at character 3: '3 y'");
	CHECK_INT(side(d, 0, "ProgramId\tName\tOpName\tStackFrameIds\n"
	    "A\tf\tx\t +3\n"), -1);
	CHECK_STR(err_msg(), "mem:2: column StackFrameIds: not a list of ids "
	    "separated by single spaces, at character 1: ' +3'");
	diff_free(d);
	d = diff_new(&defaults);
	CHECK_INT(diff_finish(d), -1);
	diff_free(d);
}


/* The thunk and module frames of a run: a barrier module B (one
 * all-reduce "ar" per execution, SLOW ms on device 0, 1 ms on device 1)
 * and a working module W (compute "f" 5 ms and an all-gather "ag" 1 ms on
 * each device), 2 executions, on the devices DEVS ("01", "0", "1"). */
static void
run_frames(char *thunks, char *modules, size_t cap, int slow,
    const char *devs)
{
	size_t n = 0, m = 0;
	const char *dv;
	int e;

	n += (size_t)snprintf(thunks + n, cap - n, "ProgramId\tProgramExecution"
	    "\tName\tThunkExecution\tDevice\tProjDurMs\tCommunication"
	    "\tProjDurHiddenMs\n");
	m += (size_t)snprintf(modules + m, cap - m, "ProgramId\tProgramExecution"
	    "\tDevice\tName\tProjDurMs\n");
	for (e = 0; e < 2; e++)
		for (dv = devs; *dv; dv++) {
			int d = *dv - '0', ar = d == 0 ? slow : 1;

			n += (size_t)snprintf(thunks + n, cap - n,
			    "B\t%d\tar\t0\t%d\t%d\t1\t0\n"
			    "W\t%d\tf\t0\t%d\t5\t0\t0\n"
			    "W\t%d\tag\t0\t%d\t1\t1\t0\n", e, d, ar, e, d, e, d);
			m += (size_t)snprintf(modules + m, cap - m,
			    "B\t%d\t%d\tsync\t%d\nW\t%d\t%d\twork\t6\n", e, d, ar,
			    e, d);
		}
}

/* A comparison of two runs built by run_frames. */
static struct diff *
two_runs(const struct diff_opts *o, int slow0, const char *dev0, int slow1,
    const char *dev1)
{
	static char t[2][4096], m[2][4096];
	struct diff *d = diff_new(o);

	run_frames(t[0], m[0], sizeof t[0], slow0, dev0);
	run_frames(t[1], m[1], sizeof t[1], slow1, dev1);
	CHECK(side(d, 0, m[0]) == 0 && side(d, 1, m[1]) == 0);
	CHECK(frame(d, 0, t[0]) == 0 && frame(d, 1, t[1]) == 0);
	CHECK(diff_finish(d) == 0);
	return d;
}

/* Barriers (barrier.h): by hand, B waits per instance (SLOW + 1) - 2 x 1
 * = SLOW - 1 ms over SLOW + 1 ms of module time: a barrier above 0.5. */
static void
barriers(void)
{
	struct diff_opts o = defaults;
	const struct diff_total *t;
	struct diff *d;

	/* Both devices in each run; B's device 0 9 ms, then 19 ms: W is
	 * 2 x 2 x 6 = 24 ms in each run, B 2 x 10 = 20 then 2 x 20 = 40. */
	d = two_runs(&o, 9, "01", 19, "01");
	t = diff_total(d);
	CHECK(t->barriers == 1);
	CHECK_NEAR(t->before_ms, 24, 1e-9);
	CHECK_NEAR(t->after_ms, 24, 1e-9);
	CHECK_NEAR(t->change_ms, 0, 1e-9);
	CHECK_NEAR(t->barrier_before_ms, 20, 1e-9);
	CHECK_NEAR(t->barrier_after_ms, 40, 1e-9);
	CHECK_NEAR(t->barrier_change_ms, 20, 1e-9);
	diff_free(d);
	/* -B: B counted, 44 -> 64 ms. */
	o.barriers = 1;
	d = two_runs(&o, 9, "01", 19, "01");
	t = diff_total(d);
	CHECK(t->barriers == 0);
	CHECK_NEAR(t->before_ms, 44, 1e-9);
	CHECK_NEAR(t->after_ms, 64, 1e-9);
	CHECK_NEAR(t->change_ms, 20, 1e-9);
	diff_free(d);
	o.barriers = 0;
	/* Either side of the rule: 2 ms on device 0 waits 1 of 3 ms (1/3):
	 * no barrier; 4 ms waits 3 of 5 (0.6): a barrier. */
	d = two_runs(&o, 2, "01", 2, "01");
	CHECK(diff_total(d)->barriers == 0);
	diff_free(d);
	d = two_runs(&o, 4, "01", 4, "01");
	CHECK(diff_total(d)->barriers == 1);
	diff_free(d);
	/* Processes of one run: device 1 before, device 0 after.  Alone,
	 * neither has a peer to wait for; pooled, device 0 waits 8 ms of
	 * each 9 ms execution: B is a barrier, the total W's 12 -> 12 ms. */
	d = two_runs(&o, 9, "1", 9, "0");
	t = diff_total(d);
	CHECK(t->barriers == 1);
	CHECK_NEAR(t->before_ms, 12, 1e-9);
	CHECK_NEAR(t->after_ms, 12, 1e-9);
	CHECK_NEAR(t->barrier_before_ms, 2, 1e-9);
	CHECK_NEAR(t->barrier_after_ms, 18, 1e-9);
	diff_free(d);
	/* Two runs on the same device are two runs: no pooling, no peer. */
	d = two_runs(&o, 1, "0", 9, "0");
	CHECK(diff_total(d)->barriers == 0);
	diff_free(d);
}

int
main(void)
{
	matching();
	op_name();
	gate();
	errors();
	barriers();
	return unit_done("diff");
}
