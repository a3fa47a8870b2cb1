/*
 * Fuzz target: the TSV filters' analyses on what they read: collective
 * bandwidths and summaries (also with the side table as the module
 * frame of the SPMD join), clock alignment (estimated, with its skews,
 * and applied from a corrections table), the warm-up split (also with
 * the side table applied as corrections, nsysjax-warmup -a), compile
 * statistics, the flame-graph folding with its side tables, the
 * statistics of nsysjax-stats (every table), the comparison of two runs
 * (nsysjax-diff: the rows against the side table as frames, with the
 * side tables of both runs, by every key), differential folded stacks
 * (the four texts as folded files) and the roofline (nsysjax-roofline:
 * the rows against the side table as module frame and the hlo frame,
 * every table, with an A100's peaks and with none).  The input is up to four TSV texts
 * separated by form feeds: the rows (a thunk, module, communication or
 * compile frame), a side table (compile frame, module frame or
 * corrections), the hlo frame and the stackframes frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "analysis/collectives.h"
#include "analysis/compilestats.h"
#include "analysis/diff.h"
#include "analysis/filter.h"
#include "analysis/fold.h"
#include "analysis/roofline.h"
#include "analysis/spmd.h"
#include "analysis/stats.h"
#include "fuzz.h"
#include "base/err.h"
#include "base/tsv.h"
#include "analysis/warmup.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char *files[FUZZ_NTMP];

static struct filter *
rows(void)
{
	return filter_open(files, 1);
}

static struct tsv_reader *
side(size_t i, FILE **fp)
{
	struct tsv_reader *r;

	if ((*fp = fopen(files[i], "r")) == NULL)
		abort();
	if ((r = tsv_ropen(*fp, files[i])) == NULL)
		fclose(*fp);
	return r;
}

static void
collectives(void)
{
	static const enum coll_mode mode[] = { COLL_ROWS, COLL_COMM_ROWS,
	    COLL_BANDWIDTH, COLL_HIDDEN, COLL_WAITS };
	struct tsv_writer *w;
	struct filter *in;
	size_t i;

	for (i = 0; i < sizeof(mode) / sizeof(*mode); i++) {
		if ((in = rows()) == NULL)
			return;
		w = tsv_wopen(fuzz_null(), "null");
		(void)coll_run(in, w, mode[i]);
		(void)tsv_wclose(w);
		filter_close(in);
	}
}

/* The summaries with the side table as the module frame of the SPMD
 * join (nsysjax-collectives -m). */
static void
collectives_joined(void)
{
	struct err_notes notes = { 0 };
	struct coll_summary *s = NULL;
	struct spmd_scan *scan = spmd_scan_new();
	struct tsv_reader *r;
	struct tsv_writer *w;
	struct filter *in;
	FILE *fp;

	r = side(1, &fp);
	if (r != NULL && coll_load_modules(r, scan) == 0 &&
	    (in = rows()) != NULL) {
		if (coll_summarize(in, scan, &s, &notes) == 0) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)coll_summary_bandwidth(s, w);
			(void)coll_summary_hidden(s, w);
			(void)coll_summary_waits(s, w);
			(void)tsv_wclose(w);
		}
		coll_summary_free(s);
		filter_close(in);
	}
	if (r != NULL) {
		tsv_rclose(r);
		fclose(fp);
	}
	err_notes_free(&notes);
	spmd_scan_free(scan);
}

static void
align(void)
{
	struct align_table t = { 0 };
	struct tsv_writer *w;
	struct align_run *r;
	struct filter *in;
	FILE *fp;

	if ((in = rows()) == NULL)
		return;
	r = align_run_new();
	align_keep_skews(r);
	w = tsv_wopen(fuzz_null(), "null");
	if (align_read(r, in) == 0) {
		(void)align_table_write(w, align_result(r));
		(void)align_write_skews(r, w);
		(void)align_write(r, w);
	}
	(void)tsv_wclose(w);
	align_run_free(r);
	filter_close(in);
	if ((fp = fopen(files[1], "r")) == NULL)
		abort();
	if (align_table_read(fp, "side", &t) == 0 && (in = rows()) != NULL) {
		r = align_run_new();
		w = tsv_wopen(fuzz_null(), "null");
		(void)align_apply(r, in, w, &t);
		(void)tsv_wclose(w);
		align_run_free(r);
		filter_close(in);
	}
	align_table_free(&t);
	fclose(fp);
}

/* The rows split with the side table applied as corrections, when it
 * reads as one. */
static void
warmup_apply(struct warmup_facts *f)
{
	struct align_table t = { 0 };
	struct align_applier a = { NULL, &t };
	struct warmup_rewrite rw = { align_applier_start, align_applier_line,
	    &a };
	struct warmup_stats st;
	struct tsv_writer *w;
	struct filter *in;
	FILE *fp;

	if ((fp = fopen(files[1], "r")) == NULL)
		abort();
	if (align_table_read(fp, "side", &t) == 0 &&
	    (in = rows()) != NULL) {
		a.run = align_run_new();
		w = tsv_wopen(fuzz_null(), "null");
		if (warmup_run(in, w, f, WARMUP_OUT_MARK, &rw, &st) == 0)
			align_apply_end(a.run, &t);
		(void)tsv_wclose(w);
		align_run_free(a.run);
		filter_close(in);
	}
	align_table_free(&t);
	fclose(fp);
}

static void
warmup(void)
{
	static const enum warmup_mode mode[] = { WARMUP_OUT_STEADY,
	    WARMUP_OUT_INIT, WARMUP_OUT_MARK };
	struct warmup_facts f;
	struct warmup_stats st;
	struct tsv_reader *r;
	struct tsv_writer *w;
	struct filter *in;
	size_t i;
	FILE *fp;
	int yes;

	warmup_facts_init(&f);
	if ((r = side(1, &fp)) != NULL) {
		(void)warmup_load_compiled(&f, r);
		tsv_rclose(r);
		fclose(fp);
	}
	/* The rows as a thunk frame of command buffers' forms too. */
	if ((r = side(0, &fp)) != NULL) {
		(void)warmup_load_forms(&f, r);
		tsv_rclose(r);
		fclose(fp);
	}
	if (warmup_prescan_communication(files, 1, &yes) == 1)
		f.communication = yes;
	for (i = 0; i < 3; i++) {
		f.skip = i == 2 ? 1 : -1;
		if ((in = rows()) == NULL)
			break;
		w = tsv_wopen(fuzz_null(), "null");
		(void)warmup_run(in, w, &f, mode[i], NULL, &st);
		(void)tsv_wclose(w);
		filter_close(in);
	}
	warmup_apply(&f);
	warmup_facts_free(&f);
}

static void
compilestats(void)
{
	struct cstats_opts o = { CSTATS_STATS, 0, 1 };
	struct tsv_writer *w;
	struct filter *in;
	struct cstats *s;

	if ((in = rows()) == NULL)
		return;
	s = cstats_new();
	if (cstats_read(s, in) == 0 && cstats_attribute(s) == 0)
		for (o.table = CSTATS_STATS; o.table <= CSTATS_COMPILATIONS;
		    o.table++) {
			o.flags = o.table == CSTATS_PASSES ? CSTATS_CLEAN :
			    CSTATS_CLEAN | CSTATS_GROUP;
			o.top = o.table == CSTATS_SUMMARY ? 0.97 : 1;
			w = tsv_wopen(fuzz_null(), "null");
			(void)cstats_write(s, w, &o);
			(void)tsv_wclose(w);
		}
	cstats_free(s);
	filter_close(in);
	/* One profile at a time (cstats_stream), two of the tables. */
	for (o.table = CSTATS_SUMMARY; o.table <= CSTATS_COMPILATIONS;
	    o.table += CSTATS_COMPILATIONS - CSTATS_SUMMARY) {
		o.flags = CSTATS_CLEAN;
		o.top = 0.97;
		if ((in = rows()) == NULL)
			return;
		s = cstats_new();
		if (cstats_stream(s, &o) == 0 && cstats_read(s, in) == 0 &&
		    cstats_attribute(s) == 0) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)cstats_write(s, w, &o);
			(void)tsv_wclose(w);
		}
		cstats_free(s);
		filter_close(in);
	}
}

/* Side table I into F with LOAD; -1 if it failed. */
static int
load(struct fold *f, size_t i, int (*loadfn)(struct fold *,
    struct tsv_reader *))
{
	struct tsv_reader *r;
	FILE *fp;
	int rc;

	if ((r = side(i, &fp)) == NULL)
		return -1;
	rc = loadfn(f, r);
	tsv_rclose(r);
	fclose(fp);
	return rc;
}

static void
fold(void)
{
	struct fold_opts o = { FOLD_SOURCE, 0.99, 1000, 0 };
	struct filter *in;
	struct fold *f;

	for (o.by = FOLD_SOURCE; o.by <= FOLD_OPCODE; o.by++) {
		f = fold_new(&o);
		if ((o.by != FOLD_SOURCE || load(f, 3, fold_load_stackframes)
		    == 0) && load(f, 2, fold_load_hlo) == 0) {
			(void)load(f, 1, fold_load_modules);
			if ((in = rows()) != NULL && fold_read_thunks(f, in) == 0
			    && fold_finish(f) == 0) {
				(void)fold_totals(f);
				(void)fold_write(f, fuzz_null(), "null");
			}
			filter_close(in);
		}
		fold_free(f);
		o.top = 1;
	}
}

/* nsysjax-fold -o: several jobs from one load (fold_select), a program
 * alone among them, with and without the module rows. */
static void
fold_jobs(void)
{
	static const enum fold_by by[] = { FOLD_SOURCE, FOLD_OP_NAME,
	    FOLD_OPCODE, FOLD_SOURCE, FOLD_OP_NAME };
	static const char *const prog[] = { NULL, NULL, NULL, "0", "1" };
	struct fold_opts o = { FOLD_SOURCE, 0.99, 1000, 7 };
	struct fold *f = fold_new(&o);
	struct filter *in;
	size_t i;

	if (load(f, 3, fold_load_stackframes) == 0 &&
	    load(f, 2, fold_load_hlo) == 0) {
		(void)load(f, 1, fold_load_modules);
		if ((in = rows()) != NULL && fold_read_thunks(f, in) == 0)
			for (i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
				fold_select(f, by[i], prog[i], prog[i] ? 1 : 0,
				    i == 3);
				if (fold_finish(f) != 0)
					break;
				(void)fold_write(f, fuzz_null(), "null");
			}
		filter_close(in);
	}
	fold_free(f);
}

/* Every table of nsysjax-stats: the rows with the side table as module
 * frame and the hlo frame; the tables without a module frame; offsets
 * alone (it needs a Collective column, which rows without it would make
 * an error for every table); and the facts, command buffers and compile
 * tables, with the fourth text as the compile frame. */
static void
stats(void)
{
	/* The report's facts and the compile frame's tables (the fourth
	 * text as the compile frame): a pass of their own, as the facts
	 * need the module frame's Process column. */
	const unsigned facts = STATS_BIT(STATS_FACTS) | STATS_BIT(STATS_CMDBUFS)
	    | STATS_BIT(STATS_PROGRAM_IDS) | STATS_BIT(STATS_COMPILE_PROFILES);
	const unsigned offsets = STATS_BIT(STATS_OFFSETS);
	struct stats_opts o = { 0, 0.1, STATS_TOP, 1 };
	struct tsv_writer *w;
	struct filter *in;
	struct stats *s;
	int t, pass;

	for (pass = 0; pass < 4; pass++) {
		o.tables = pass == 0 ? ((1u << STATS_NTABLES) - 1) & ~offsets &
		    ~facts : pass == 1 ? STATS_BIT(STATS_VARIABILITY) |
		    STATS_BIT(STATS_COSTS) | STATS_BIT(STATS_SCATTER) :
		    pass == 2 ? offsets : facts;
		o.ratio = pass == 0 ? 0.1 : 0;
		s = stats_new(&o);
		if ((pass == 1 || stats_load_modules(s, files[1]) == 0) &&
		    filter_load(files[2], stats_load_hlo, s) == 0 &&
		    (pass != 3 || filter_load(files[3], stats_load_compile, s) == 0) &&
		    (in = rows()) != NULL) {
			if (stats_read(s, in) == 0)
				for (t = 0; t < STATS_NTABLES; t++) {
					if (!(o.tables & STATS_BIT(t)))
						continue;
					w = tsv_wopen(fuzz_null(), "null");
					(void)stats_write(s, t, w);
					(void)tsv_wclose(w);
				}
			filter_close(in);
		}
		stats_free(s);
	}
}

/* nsysjax-roofline's tables, with a datasheet's peaks and with none. */
static void
roofline(void)
{
	struct roofline_peaks p;
	struct tsv_writer *w;
	struct filter *in;
	struct roofline *r;
	int pass, t;

	for (pass = 0; pass < 2; pass++) {
		memset(&p, 0, sizeof(p));
		if (pass == 0)
			(void)roofline_peaks_of("NVIDIA A100-SXM4-40GB", 108,
			    1.41e9, 8, 0, 0, &p);
		r = roofline_new(&p);
		if (filter_load(files[2], roofline_load_hlo, r) == 0 &&
		    filter_load(files[1], roofline_load_modules, r) == 0 &&
		    (in = rows()) != NULL) {
			if (roofline_read(r, in) == 0)
				for (t = 0; t < ROOFLINE_NTABLES; t++) {
					w = tsv_wopen(fuzz_null(), "null");
					(void)roofline_write(r, t, w);
					(void)tsv_wclose(w);
				}
			filter_close(in);
		}
		roofline_free(r);
	}
}

/* Read file I with FN into D for run RUN; -1 if it failed. */
static int
diff_file(struct diff *d, int run, size_t i,
    int (*fn)(struct diff *, int, struct tsv_reader *))
{
	struct tsv_reader *r;
	FILE *fp;
	int rc;

	if ((r = side(i, &fp)) == NULL)
		return -1;
	rc = fn(d, run, r);
	tsv_rclose(r);
	fclose(fp);
	return rc;
}

static void
diff(void)
{
	struct diff_opts o = { DIFF_KEY_THUNK, "ProjDurMs", SIGTEST_HOLM, 0.05,
	    10, 0, 0, 0 };
	struct tsv_writer *w;
	struct diff *d;
	size_t i;
	int run;

	for (o.key = DIFF_KEY_THUNK; o.key <= DIFF_KEY_SOURCE; o.key++) {
		d = diff_new(&o);
		for (run = 0; run < 2; run++)
			for (i = 1; i < FUZZ_NTMP; i++)
				(void)diff_file(d, run, i, diff_load_side);
		if (diff_file(d, 0, 0, diff_read) == 0 &&
		    diff_file(d, 1, o.key == DIFF_KEY_THUNK ? 0 : 1,
		    diff_read) == 0 && diff_finish(d) == 0) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)diff_write_items(d, w);
			(void)diff_write_summary(d, w);
			(void)tsv_wclose(w);
			(void)diff_report(d, fuzz_null(), 3);
			(void)diff_regressed(d);
		}
		diff_free(d);
		o.adjust = SIGTEST_BH;
		o.min_share = 0.5;
	}
}

static void
folddiff(void)
{
	struct fold_diff *x = fold_diff_new();
	FILE *fp;
	size_t i;

	for (i = 0; i < FUZZ_NTMP; i++) {
		if ((fp = fopen(files[i], "r")) == NULL)
			abort();
		if (fold_diff_read(x, i % 2, fp, files[i]) != 0) {
			fclose(fp);
			break;
		}
		fclose(fp);
	}
	(void)fold_diff_write(x, 0, fuzz_null(), "null");
	(void)fold_diff_write(x, 1, fuzz_null(), "null");
	fold_diff_free(x);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	fuzz_files(data, n, files);
	collectives();
	collectives_joined();
	align();
	warmup();
	compilestats();
	fold();
	fold_jobs();
	stats();
	diff();
	folddiff();
	roofline();
	return 0;
}
