/*
 * stats: every table of nsysjax-stats on hand-made frames whose numbers
 * are worked out by hand (comments), the cost rounding, errors; and the
 * two other analyses the pipelines moved into C: the skew table of
 * align_est_skews and the wait table of coll_summary_waits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/align.h"
#include "analysis/collectives.h"
#include "analysis/filter.h"
#include "analysis/stats.h"
#include "base/err.h"
#include "base/tsv.h"
#include "unit.h"

static char dir[] = "/tmp/stats_test.XXXXXX";

/* Write TEXT to DIR/NAME; returns the path (static, one per name). */
static char *
file(const char *name, const char *text)
{
	static char paths[8][256];
	static int n;
	char *p = paths[n++ % 8];
	FILE *fp;

	snprintf(p, 256, "%s/%s", dir, name);
	if ((fp = fopen(p, "w")) == NULL || fputs(text, fp) < 0 ||
	    fclose(fp) != 0)
		abort();
	return p;
}

/*
 * Two devices; module p ("step") runs twice, q ("small") once.  Totals
 * p 36 ms, q 0.1 ms: the top modules are p alone (36 / 36.1 = 0.997 is
 * past 0.99 before q).
 */
static const char modules[] =
    "ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\tNumThunks\n"
    "p\t1\t0\tstep\t100\t10\t2\n"
    "p\t1\t1\tstep\t101\t9\t2\n"
    "p\t2\t0\tstep\t200\t10\t2\n"
    "p\t2\t1\tstep\t203\t7\t2\n"
    "q\t1\t0\tsmall\t150\t0.1\t1\n";

/* Compute thunk f and collective ar in each execution of p; g in q. */
static const char thunks[] =
    "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tProjDurHiddenMs\tCommunication\n"
    "p\t1\tf\t0\t0\t100\t4\t0\t0\n"
    "p\t1\tf\t0\t1\t101\t2\t0\t0\n"
    "p\t2\tf\t0\t0\t200\t4\t0\t0\n"
    "p\t2\tf\t0\t1\t204\t6\t0.0005\t0\n"
    "p\t1\tar\t0\t0\t105\t5\t1\t1\n"
    "p\t1\tar\t0\t1\t107\t3\t0\t1\n"
    "p\t2\tar\t0\t0\t205\t5\t0\t1\n"
    "p\t2\tar\t0\t1\t206\t4\t0\t1\n"
    "q\t1\tg\t0\t0\t150\t0.1\t0\t\n";

static const char hlo[] =
    "ProgramId\tName\tSchedulingName\n"
    "p\tf\tfusion\"1\n"
    "p\tar\t\n"
    "p\tf\tsecond\n";

/* Table T of S as text (free it). */
static char *
written(struct stats *s, enum stats_table t)
{
	struct tsv_writer *w;
	char *got = NULL;
	size_t len;
	FILE *fp = open_memstream(&got, &len);

	w = tsv_wopen(fp, "mem");
	CHECK_INT(stats_write(s, t, w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	return got;
}

/* Run the tables of O over the frames; table T as text in *OUT (free
 * it).  Returns stats_read's result. */
static int
run(struct stats_opts *o, const char *rows, enum stats_table t, char **out)
{
	char *files[1];
	struct filter *in;
	struct stats *s = stats_new(o);
	int rc;

	*out = NULL;
	files[0] = file("rows.tsv", rows);
	if (stats_needs_modules(o->tables) &&
	    stats_load_modules(s, file("module.tsv", modules)) != 0) {
		stats_free(s);
		return -1;
	}
	if (stats_needs_hlo(o->tables)) {
		FILE *h = fopen(file("hlo.tsv", hlo), "r");
		struct tsv_reader *r = tsv_ropen(h, "hlo.tsv");

		CHECK_INT(stats_load_hlo(r, s), 0);
		tsv_rclose(r);
		fclose(h);
	}
	if ((in = filter_open(files, 1)) == NULL)
		abort();
	rc = stats_read(s, in);
	filter_close(in);
	if (rc == 0)
		*out = written(s, t);
	stats_free(s);
	return rc;
}

static void
table(unsigned tables, enum stats_table t, const char *rows,
    const char *want)
{
	struct stats_opts o = { tables, 0.1, STATS_TOP, 0 };
	char *got;

	CHECK_INT(run(&o, rows, t, &got), 0);
	CHECK_STR(got, want);
	free(got);
}

/* Thunks of p: ar 5+3+5+4 = 17 ms, f 4+2+4+6 = 16 ms.  Totals: modules
 * 36; wall: device 0 from 100 to 210, device 1 from 101 to 210. */
static void
runtime(void)
{
	unsigned both = STATS_BIT(STATS_THUNKS) | STATS_BIT(STATS_TOTALS);

	table(both, STATS_THUNKS, thunks,
	    "ProgramId\tName\tExecutions\tProjDurMs\n"
	    "p\tar\t4\t17\n"
	    "p\tf\t4\t16\n");
	table(both, STATS_TOTALS, thunks,
	    "Quantity\tValue\n"
	    "all_thunks_active_ms\t33\n"
	    "all_modules_active_ms\t36\n"
	    "all_modules_wall_ms\t219\n");
}

/*
 * p: durations 10 9 10 7, mean 9, std sqrt(2); 100 * 36e6 / 36.1e6 ns
 * percent;
 * waits 5 - 3 = 2 and 5 - 4 = 1: mean 1.5, std sqrt(0.5), 100 * 1.5 / 9
 * percent; start spreads 1 + 3 over 36.  q: one row, no communication.
 */
static void
module_table(void)
{
	table(STATS_BIT(STATS_MODULES), STATS_MODULES, thunks,
	    "ProgramId\tName\tExecutions\tNumThunksMean\tNumThunksStd\tProjDurMs\t"
	    "ProjDurMeanMs\tProjDurStdMs\tProjDurPercent\tWaitMeanMs\tWaitStdMs\t"
	    "WaitPercent\tStartSpreadFraction\tTopModule\n"
	    "p\tstep\t4\t2\t0\t36\t9\t1.4142135623730951\t99.7229916897507\t1.5\t"
	    "0.7071067811865476\t16.666666666666668\t0.1111111111111111\t1\n"
	    "q\tsmall\t1\t1\t\t0.1\t0.1\t\t0.2770083102493075\t\t\t\t\t0\n");
}

/* f: 4 2 4 6, mean 4, std sqrt(8/3), relative sqrt(1/6); g one row. */
static void
variability(void)
{
	struct stats_opts o = { STATS_BIT(STATS_VARIABILITY), 0.5, 0.99, 0 };
	char *got;

	table(STATS_BIT(STATS_VARIABILITY), STATS_VARIABILITY, thunks,
	    "ProgramId\tName\tExecutions\tMeanMs\tStdMs\tRelStd\tMinMs\tMaxMs\n"
	    "p\tf\t4\t4\t1.632993161855452\t0.408248290463863\t2\t6\n");
	/* Above the ratio 0.5 nothing varies. */
	CHECK_INT(run(&o, thunks, STATS_VARIABILITY, &got), 0);
	CHECK_STR(got, "ProgramId\tName\tExecutions\tMeanMs\tStdMs\tRelStd\t"
	    "MinMs\tMaxMs\n");
	free(got);
}

/*
 * Module biases: execution 1 starts 100, 101 (mean 100.5), durations 10,
 * 9; execution 2 starts 200, 203, durations 10, 7: device 0 start -1,
 * duration +1; device 1 the opposite.  Thunk f: execution 1 starts 100,
 * 101 and ends 104, 103; execution 2 starts 200, 204 and ends 204, 210:
 * device 0 biases -0.5 +0.5 -2 -3, mean -1.25, largest |bias| 2 and 3.
 */
static void
stragglers(void)
{
	table(STATS_BIT(STATS_STRAGGLERS), STATS_STRAGGLERS, thunks,
	    "ProgramId\tName\tDevice\tExecutions\tStartBiasMs\tDurBiasMs\t"
	    "ThunkBiasMs\tOutlierScoreMs\n"
	    "p\tstep\t0\t2\t-1\t1\t-1.25\t5\n"
	    "p\tstep\t1\t2\t1\t-1\t1.25\t5\n");
}

/*
 * The plots' tables.  Rows with a Collective: thunks e, f, h (compute)
 * and ar (a collective) of p in executions 1 and 2 (module frame: mean
 * starts 100.5 and 201.5); f again as ThunkExecution 1 on device 0 alone
 * (an incomplete instance) and in execution 3 (not in the module frame).
 * ar's last row names another collective.
 */
static const char prows[] =
    "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tCommunication\tCollective\n"
    "p\t1\tf\t0\t0\t100\t4\t0\t\n"
    "p\t1\tf\t0\t1\t101\t2\t0\t\n"
    "p\t1\te\t0\t0\t100\t1\t0\t\n"
    "p\t1\te\t0\t1\t101\t1\t0\t\n"
    "p\t1\th\t0\t0\t100\t2\t0\t\n"
    "p\t1\th\t0\t1\t100.0000002\t2\t0\t\n"
    "p\t1\tar\t0\t0\t105\t5\t1\tall-reduce\n"
    "p\t1\tar\t0\t1\t107\t3\t1\tall-reduce\n"
    "p\t1\tf\t1\t0\t102\t1\t0\t\n"
    "p\t2\tf\t0\t0\t200\t4\t0\t\n"
    "p\t2\tf\t0\t1\t204\t6\t0\t\n"
    "p\t2\te\t0\t0\t200\t1\t0\t\n"
    "p\t2\te\t0\t1\t204\t1\t0\t\n"
    "p\t2\th\t0\t0\t201.5\t2\t0\t\n"
    "p\t2\th\t0\t1\t201.5000002\t2\t0\t\n"
    "p\t2\tar\t0\t0\t205\t5\t1\tall-reduce\n"
    "p\t2\tar\t0\t1\t206\t4\t1\tall-gather\n"
    "p\t3\tf\t0\t0\t300\t1\t0\t\n"
    "p\t3\tf\t0\t1\t301\t1\t0\t\n"
    "q\t1\tg\t0\t0\t150\t0.1\t0\t\n";

/*
 * Offsets (executions 1 and 2 count): f's instance means 100.5 and 202,
 * offsets 0 and 0.5 (mean 0.25), device 0's biases -0.5 and -2 (mean
 * -1.25); e the same numbers (before f: by Name); ar's means 106 and
 * 205.5, offsets 5.5 and 4, biases -1 and -0.5; h's offsets -0.4999999
 * and 0.0000001, its biases -0.0000001: printed 0, not -0.  By device,
 * then offset.  Scatter: every compute row, f's seven of 4 2 4 6 1 1 1
 * ms: mean 19 / 7, variance (75 - 7 (19 / 7)^2) / 6; e and h constant.
 */
static void
plot_tables(void)
{
	unsigned both = STATS_BIT(STATS_SCATTER) | STATS_BIT(STATS_OFFSETS);
	struct stats_opts o = { STATS_BIT(STATS_SCATTER), 0.1, STATS_TOP, 0 };
	char *got;

	table(both, STATS_OFFSETS, prows,
	    "ProgramId\tName\tThunkExecution\tDevice\tExecutions\tOffsetMs\t"
	    "StartBiasMs\tCommunication\tCollective\n"
	    "p\th\t0\t0\t2\t-0.250000\t0.000000\t0\t\n"
	    "p\te\t0\t0\t2\t0.250000\t-1.250000\t0\t\n"
	    "p\tf\t0\t0\t2\t0.250000\t-1.250000\t0\t\n"
	    "p\tar\t0\t0\t2\t4.750000\t-0.750000\t1\tall-gather\n"
	    "p\th\t0\t1\t2\t-0.250000\t0.000000\t0\t\n"
	    "p\te\t0\t1\t2\t0.250000\t1.250000\t0\t\n"
	    "p\tf\t0\t1\t2\t0.250000\t1.250000\t0\t\n"
	    "p\tar\t0\t1\t2\t4.750000\t0.750000\t1\tall-gather\n");
	table(both, STATS_SCATTER, prows,
	    "ProgramId\tName\tExecutions\tMeanMs\tRelStd\n"
	    "p\te\t4\t1.000000\t0.000000\n"
	    "p\tf\t7\t2.714286\t0.728017\n"
	    "p\th\t4\t2.000000\t0.000000\n");
	/* The scatter needs no module frame, nor Collective. */
	CHECK(!stats_needs_modules(o.tables));
	CHECK(stats_needs_modules(STATS_BIT(STATS_OFFSETS)));
	CHECK_INT(run(&o, thunks, STATS_SCATTER, &got), 0);
	CHECK_STR(got, "ProgramId\tName\tExecutions\tMeanMs\tRelStd\n"
	    "p\tf\t4\t4.000000\t0.408248\n");
	free(got);
	/* Offsets need it: the rows without it are an error. */
	o.tables = STATS_BIT(STATS_OFFSETS);
	CHECK_INT(run(&o, thunks, STATS_OFFSETS, &got), -1);
	CHECK(strstr(err_msg(), "Collective") != NULL);
	free(got);
}

/* f: compute, the smallest of 4 2 4 6.0005 ms; ar: communication, the
 * largest of 5+1 3 5 4 ms; g has no HLO facts; the first hlo row counts. */
static void
costs(void)
{
	struct stats_opts o = { STATS_BIT(STATS_COSTS), 0.1, 0.99, 1 };
	char *got;

	table(STATS_BIT(STATS_COSTS), STATS_COSTS, thunks,
	    "ProgramId\tName\tCostLine\n"
	    "p\tar\tcosts { name: \"\" cost_us: 6000.0 }\n"
	    "p\tf\tcosts { name: \"fusion\\\"1\" cost_us: 2000.0 }\n");
	CHECK_INT(run(&o, thunks, STATS_COSTS, &got), 0);
	CHECK(got && strstr(got, "name: \"ar\" cost_us: 6000.0"));
	free(got);
}

/* Tenths of a us from ns, half to even. */
static void
cost_lines(void)
{
	char *buf = NULL;
	size_t cap = 0;

	stats_cost_line(&buf, &cap, "x", 1, 1234550);
	CHECK_STR(buf, "costs { name: \"x\" cost_us: 1234.6 }");
	stats_cost_line(&buf, &cap, "x", 1, 1234450);
	CHECK_STR(buf, "costs { name: \"x\" cost_us: 1234.4 }");
	stats_cost_line(&buf, &cap, "x", 1, 1234451);
	CHECK_STR(buf, "costs { name: \"x\" cost_us: 1234.5 }");
	CHECK_INT(stats_cost_line(&buf, &cap, "a\"b", 3, 49),
	    strlen("costs { name: \"a\\\"b\" cost_us: 0.0 }"));
	CHECK_STR(buf, "costs { name: \"a\\\"b\" cost_us: 0.0 }");
	free(buf);
}

/* Without ProjStartMs, stragglers cannot be computed: the message names
 * the input and the column; a bad number names the line. */
static void
errors(void)
{
	struct stats_opts o = { STATS_BIT(STATS_STRAGGLERS), 0.1, 0.99, 0 };
	char *got;

	CHECK_INT(run(&o, "ProgramId\tProgramExecution\tName\tThunkExecution\t"
	    "Device\tProjDurMs\nx\t1\tf\t0\t0\t1\n", STATS_STRAGGLERS, &got), -1);
	CHECK(strstr(err_msg(), "rows.tsv: missing column 'ProjStartMs'"));
	o.tables = STATS_BIT(STATS_VARIABILITY);
	CHECK_INT(run(&o, "ProgramId\tName\tProjDurMs\nx\tf\t1\nx\tf\tz\n",
	    STATS_VARIABILITY, &got), -1);
	CHECK(strstr(err_msg(), "rows.tsv:3: column ProjDurMs"));
	CHECK_INT(stats_table_parse("stragglers"), STATS_STRAGGLERS);
	CHECK_INT(stats_table_parse("nope"), -1);
	CHECK_STR(stats_table_name(STATS_COSTS), "costs");
	CHECK(stats_needs_modules(STATS_BIT(STATS_TOTALS)));
	CHECK(!stats_needs_modules(STATS_BIT(STATS_VARIABILITY) |
	    STATS_BIT(STATS_COSTS)));
}

/*
 * The report's facts.  The module frame of the other tables with the
 * Process of each row (h0 on device 0, h1 on device 1), the thunk rows
 * above, and a compile frame: p compiled by h1 (an outermost range of
 * 30 ms, a pass inside it) and by h0 (25.5 ms); q by h0 (1 ms); r, no
 * module of the frame, and a range of no program.
 *
 * p: compute f 4 + 2 + 4 + 6 = 16 ms (f's hidden time is no
 * communication); ar's whole durations (ProjDurMs + ProjDurHiddenMs) 6,
 * 3 in execution 1 and 5, 4 in execution 2: 18 ms, 1 ms hidden (share
 * 1 / 18); waits 6 - 3 + 3 - 3 = 3 and 1: 4 ms, 4 / 36 of its time, no
 * barrier.  q: one device, so no wait; g's empty Communication is
 * compute.  The work module is p; compile times 30 + 25.5 and 1.
 *
 * XLA's program ids: 7 names step (twice: once) and small, 12 step,
 * and 3 other (the first "program_id=" followed by digits); by number.
 */
static const char fact_modules[] =
    "ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\tProcess\n"
    "p\t1\t0\tstep\t100\t10\th0\n"
    "p\t1\t1\tstep\t101\t9\th1\n"
    "p\t2\t0\tstep\t200\t10\th0\n"
    "p\t2\t1\tstep\t203\t7\th1\n"
    "q\t1\t0\tsmall\t150\t0.1\th0\n";

static const char fact_compile[] =
    "ProfileName\tRangeId\tName\tParentId\tDurMs\tProgramId\tProgramName\n"
    "h1\t1\tXlaCompile:#module=step,program_id=7#\t\t30\tp\tstep\n"
    "h1\t2\tXlaPass:#name=x,program_id=7#\t1\t20\tp\tstep\n"
    "h0\t3\tXlaCompile:#module=step,program_id=12#\t\t25.5\tp\tstep\n"
    "h0\t4\tXlaCompile:#module=small,program_id=7#\t\t1\tq\tsmall\n"
    "h0\t5\tXlaCompile:#program_id=x,program_id=3#\t\t2\tr\tother\n"
    "h2\t6\tXlaAutotune\t\t5\t\t\n";

/* Table T of the facts' frames (the compile frame alone for TABLES
 * without rows), as text. */
static char *
fact_table(unsigned tables, enum stats_table t)
{
	struct stats_opts o = { tables, 0.1, STATS_TOP, 0 };
	struct stats *s = stats_new(&o);
	char *files[1] = { file("rows.tsv", thunks) }, *got = NULL;
	FILE *fp = fopen(file("compile.tsv", fact_compile), "r");
	struct tsv_reader *r = tsv_ropen(fp, "compile.tsv");
	struct filter *in;

	if (stats_needs_modules(tables))
		CHECK_INT(stats_load_modules(s, file("module.tsv",
		    fact_modules)), 0);
	CHECK_INT(stats_load_compile(r, s), 0);
	tsv_rclose(r);
	fclose(fp);
	if (stats_needs_rows(tables)) {
		if ((in = filter_open(files, 1)) == NULL)
			abort();
		CHECK_INT(stats_read(s, in), 0);
		filter_close(in);
	}
	got = written(s, t);
	stats_free(s);
	return got;
}

static void
facts(void)
{
	unsigned all = STATS_BIT(STATS_FACTS) | STATS_BIT(STATS_PROGRAM_IDS) |
	    STATS_BIT(STATS_COMPILE_PROFILES);
	unsigned ids = STATS_BIT(STATS_PROGRAM_IDS) |
	    STATS_BIT(STATS_COMPILE_PROFILES);
	const char *want_ids = "XlaProgramId\tModules\n3\tother\n"
	    "7\tstep,small\n12\tstep\n";
	const char *want_profiles = "ProfileName\nh1\nh0\nh2\n";
	char *got;

	got = fact_table(all, STATS_FACTS);
	CHECK_STR(got, "ProgramId\tName\tDevices\tProcesses\tExecutions\t"
	    "ProjDurMs\tComputeMs\tCommunicationMs\tHiddenMs\tHiddenShare\t"
	    "CollectiveWaitMs\tWaitShare\tBarrier\tWorkModule\tCompiledBy\t"
	    "CompileMs\n"
	    "p\tstep\t2\th0,h1\t4\t36\t16\t18\t1\t0.05555555555555555\t"
	    "4\t0.1111111111111111\t0\t1\th1,h0\t55.5\n"
	    "q\tsmall\t1\th0\t1\t0.1\t0.1\t0\t0\t\t\t\t0\t0\th0\t1\n");
	free(got);
	got = fact_table(all, STATS_PROGRAM_IDS);
	CHECK_STR(got, want_ids);
	free(got);
	/* Without the facts: no module frame, no thunk rows. */
	CHECK(!stats_needs_rows(ids) && !stats_needs_modules(ids));
	CHECK(stats_needs_compile(ids) && stats_needs_rows(all));
	got = fact_table(ids, STATS_PROGRAM_IDS);
	CHECK_STR(got, want_ids);
	free(got);
	got = fact_table(ids, STATS_COMPILE_PROFILES);
	CHECK_STR(got, want_profiles);
	free(got);
}

/*
 * Command buffers: command_buffer_2 runs once (0.1 ms) and holds fusion.1
 * and fusion.2 (0.3 ms inside it); command_buffer_3 is none, as the
 * column does not mark it; of 1 ms in all.  Without the column, the rows
 * named command_buffer_N are the command buffers (not command_buffer_
 * nor command_buffer_1x), largest first.
 */
static void
cmdbufs(void)
{
	unsigned t = STATS_BIT(STATS_CMDBUFS);

	table(t, STATS_CMDBUFS, "ProgramId\tName\tProjDurMs\tCommandBuffer\n"
	    "p\tcommand_buffer_2\t0.1\tcommand_buffer_2\n"
	    "p\tfusion.1\t0.25\tcommand_buffer_2\n"
	    "p\tfusion.2\t0.05\tcommand_buffer_2\n"
	    "p\tcommand_buffer_3\t0.2\t\n"
	    "p\tgemm\t0.4\t\n",
	    "ProgramId\tName\tExecutions\tProjDurMs\tInnerMs\tFraction\n"
	    "p\tcommand_buffer_2\t1\t0.4\t0.3\t0.4\n");
	table(t, STATS_CMDBUFS, "ProgramId\tName\tProjDurMs\n"
	    "p\tcommand_buffer_2\t0.1\n"
	    "q\tcommand_buffer_3\t0.2\n"
	    "p\tcommand_buffer_3\t0.2\n"
	    "p\tcommand_buffer_3\t0.3\n"
	    "p\tcommand_buffer_\t0.1\n"
	    "p\tcommand_buffer_1x\t0.1\n",
	    "ProgramId\tName\tExecutions\tProjDurMs\tInnerMs\tFraction\n"
	    "p\tcommand_buffer_3\t2\t0.5\t0\t0.5\n"
	    "q\tcommand_buffer_3\t1\t0.2\t0\t0.2\n"
	    "p\tcommand_buffer_2\t1\t0.1\t0\t0.1\n");
}

/* Devices 5 and 2: instance "b" ends at 10 and 14 ms (mean 12), "a" at
 * 3 and 2 ms (mean 2.5); "c" is incomplete.  Instances are numbered in
 * key order (a = 1), rows by device. */
static void
skews(void)
{
	struct align_est *e = align_est_new();
	struct tsv_writer *w;
	char *got = NULL;
	size_t len;
	FILE *fp;

	CHECK_INT(align_est_add(e, "b", 1, 5, 2, 10000000), 0);
	CHECK_INT(align_est_add(e, "b", 1, 2, 2, 14000000), 0);
	CHECK_INT(align_est_add(e, "a", 1, 5, 2, 3000000), 0);
	CHECK_INT(align_est_add(e, "a", 1, 2, 2, 2000000), 0);
	CHECK_INT(align_est_add(e, "c", 1, 2, 2, 2000000), 0);	/* incomplete */
	fp = open_memstream(&got, &len);
	w = tsv_wopen(fp, "mem");
	CHECK_INT(align_est_skews(e, w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(got, "Device\tInstance\tEndTimeSkewMs\n"
	    "2\t1\t-0.5\n2\t2\t2\n5\t1\t0.5\n5\t2\t-2\n");
	free(got);
	align_est_free(e);
}

/* Instance x: exposed 3 and 5.5 ms, a wait of 2.5; y on one device. */
static void
waits(void)
{
	struct coll_summary *s = coll_summary_new();
	struct tsv_writer *w;
	char *got = NULL;
	size_t len;
	FILE *fp;

	coll_summary_add(s, "x", "all-reduce", 8, 1.0, 3000000, 0);
	coll_summary_add(s, "x", "all-reduce", 8, 1.0, 5500000, 7);
	coll_summary_add(s, "z", "all-gather", 8, 1.0, 1, 0);
	coll_summary_add(s, "z", "all-gather", 8, 1.0, 2, 0);
	coll_summary_add(s, "y", "all-reduce", 8, 1.0, 1, 0);
	fp = open_memstream(&got, &len);
	w = tsv_wopen(fp, "mem");
	CHECK_INT(coll_summary_waits(s, w), 0);
	CHECK_INT(tsv_wclose(w), 0);
	fclose(fp);
	CHECK_STR(got, "Collective\tWaitMs\tMessageSize\tDevices\n"
	    "all-gather\t0.000001\t8\t2\nall-reduce\t2.5\t8\t2\n");
	free(got);
	coll_summary_free(s);
}

int
main(void)
{
	char cmd[64];

	if (mkdtemp(dir) == NULL)
		abort();
	runtime();
	module_table();
	variability();
	stragglers();
	plot_tables();
	costs();
	cost_lines();
	errors();
	facts();
	cmdbufs();
	skews();
	waits();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		CHECK(0);
	return unit_done("stats_test");
}
