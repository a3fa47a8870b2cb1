/* Compile statistics: the name rules, the parallel attribution over a
 * hand-made frame whose shares are exact binary fractions, every table,
 * the top-fraction cut, the push/pop report readers (CSV, xz, parquet)
 * and the errors. */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compilestats.h"
#include "base/err.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "pqwrite.h"
#include "base/tsv.h"
#include "profile/compile.h"
#include "unit.h"

#define P(s) s, strlen(s)

static void
names(void)
{
	const char *g;

	CHECK_INT(cstats_clean(P("XlaAutotunerMeasurement:#op=dot.1#")), 23);
	CHECK_INT(cstats_clean(P("XlaAutotunerMeasurement")), 23);
	CHECK_INT(cstats_clean(P("XlaEmitGpuAsm:#module=split_module#")), 13);
	/* Only a suffix: removesuffix, not replace. */
	CHECK_INT(cstats_clean(P("A:#module=split_module#B")), 24);
	CHECK_INT(cstats_clean(P(":#module=split_module#")), 0);
	CHECK_INT(cstats_clean(P("XlaPass")), 7);
	CHECK_STR(cstats_group(P("XlaPass:#name=dce#")), "XlaPasses");
	CHECK_STR(cstats_group(P("XlaPassPipeline:#name=p#")),
	    "XlaPassPipelines");
	CHECK(cstats_group(P("XlaPass")) == NULL);
	CHECK(cstats_group(P("XlaPassX:#")) == NULL);
	/* The length counts: a cleaned prefix is what is grouped. */
	g = cstats_group("XlaPass:#name=dce#", 8);
	CHECK(g == NULL);
	CHECK(cstats_is_compile("XlaCompile"));
	CHECK(cstats_is_compile("XlaCompile:#module=m,program_id=1#"));
	CHECK(!cstats_is_compile("XlaCompileBackend:#module=m#"));
	CHECK(!cstats_is_compile("XlaCompil"));
	CHECK(!cstats_is_compile("TSL:XlaCompile"));
}

#define H "ProfileName\tRangeId\tName\tTID\tParentId\tRangeStack\tStartMs" \
	"\tDurMs\tDurChildMs\tDurNonChildMs\tProgramId\tProgramName\n"

/*
 * Profile p: XlaCompile (1) on thread 1 runs 0-100 ms; under it A (2)
 * 0-10 and the launcher L (3) 10-90, whose main-thread children M1 (4)
 * 12-15 and M2 (5) 70-75 lie before and after the parallel region of
 * workers W1 (10, thread 2) 20-60, W2 (11, thread 3) 25-65 and W2's
 * child W2c (12) 30-40.  Region 45 ms, worker DurNonChild 40 + 30 + 10
 * = 80: each worker ms of DurNonChild is worth 45/80 = 0.5625 ms.
 * Profile q: one compilation on another thread number.
 */
static const char frame[] = H
    "p\t1\tXlaCompile\t1\t\t:1\t0\t100\t90\t10\tP1\tm\n"
    "p\t2\tXlaPassPipeline:#name=p#\t1\t1\t:1:2\t0\t10\t0\t10\tP1\tm\n"
    "p\t3\tXlaCompileBackend:#module=m,program_id=1#\t1\t1\t:1:3\t10\t80"
    "\t\t\tP1\tm\n"
    "p\t4\tXlaPass:#name=a#\t1\t3\t:1:3:4\t12\t3\t0\t3\tP1\tm\n"
    "p\t5\tXlaPass:#name=b#\t1\t3\t:1:3:5\t70\t5\t0\t5\tP1\tm\n"
    "p\t10\tXlaEmitGpuAsm:#module=split_module#\t2\t3\t:1:3:10\t20\t40"
    "\t0\t40\tP1\tm\n"
    "p\t11\tXlaAutotunerMeasurement:#op=x#\t3\t3\t:1:3:11\t25\t40\t10"
    "\t30\tP1\tm\n"
    "p\t12\tXlaEmitGpuAsm\t3\t11\t:1:3:11:12\t30\t10\t0\t10\tP1\tm\n"
    "q\t1\tXlaCompile:#module=n,program_id=2#\t7\t\t:1\t5\t0.000003\t0"
    "\t0.000003\t\t\n";

struct result {
	int rc;
	char *out;
};

/* Run with cstats_stream (one profile at a time) when set. */
static int streaming;

/* Run the tool's steps over TEXT, written to a file "f.tsv". */
static struct result
run(const char *text, enum cstats_table t, int flags, double top)
{
	struct cstats_opts o = { t, flags, top };
	struct result res = { 0, NULL };
	char path[] = "/tmp/cstats_test.XXXXXX";
	struct tsv_writer *w;
	struct filter *in;
	struct cstats *s = cstats_new();
	char *files[1];
	size_t len;
	FILE *fp, *out;
	int fd = mkstemp(path);

	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	files[0] = path;
	out = open_memstream(&res.out, &len);
	w = tsv_wopen(out, "out");
	in = NULL;
	if ((streaming && cstats_stream(s, &o) != 0) ||
	    (in = filter_open(files, 1)) == NULL || cstats_read(s, in) != 0 ||
	    cstats_attribute(s) != 0 || cstats_write(s, w, &o) != 0)
		res.rc = -1;
	tsv_wclose(w);
	fclose(out);
	filter_close(in);
	cstats_free(s);
	unlink(path);
	return res;
}

/* Check a run's status and output (the whole text), and free it. */
#define CHECK_RUN(res, wantrc, want) do { \
	struct result r_ = (res); \
	CHECK_INT(r_.rc, wantrc); \
	CHECK_STR(r_.out, want); \
	free(r_.out); \
} while (0)

/* Check that a run fails with the message WANT (its path replaced). */
static void
check_error(const char *text, const char *want)
{
	struct result res = run(text, CSTATS_STATS, 0, 1);
	const char *m = err_msg(), *colon = strchr(m, ':');

	CHECK_INT(res.rc, -1);
	/* The temporary file name differs per run: compare from the ':'. */
	CHECK_STR(colon ? colon : m, want);
	free(res.out);
}

static void
stats(void)
{
	/* Shares are written as doubles, own times as exact decimals. */
	CHECK_RUN(run(frame, CSTATS_STATS, 0, 1), 0,
	    "Name\tDurNonChildMs\tDurChildMs\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t53\n"
	    "XlaEmitGpuAsm:#module=split_module#\t22.5\t0\n"
	    "XlaAutotunerMeasurement:#op=x#\t16.875\t5.625\n"
	    "XlaCompile\t10\t90\n"
	    "XlaPassPipeline:#name=p#\t10\t0\n"
	    "XlaEmitGpuAsm\t5.625\t0\n"
	    "XlaPass:#name=b#\t5\t0\n"
	    "XlaPass:#name=a#\t3\t0\n"
	    "XlaCompile:#module=n,program_id=2#\t0.000003\t0\n");
	/* Cleaned and grouped. */
	CHECK_RUN(run(frame, CSTATS_STATS, CSTATS_CLEAN | CSTATS_GROUP, 1), 0,
	    "Name\tDurNonChildMs\tDurChildMs\n"
	    "XlaEmitGpuAsm\t28.125\t0\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t53\n"
	    "XlaAutotunerMeasurement\t16.875\t5.625\n"
	    "XlaCompile\t10\t90\n"
	    "XlaPassPipelines\t10\t0\n"
	    "XlaPasses\t8\t0\n"
	    "XlaCompile:#module=n,program_id=2#\t0.000003\t0\n");
}

/* The frame without profile q: fractions of exactly 100 ms. */
static char *
profile_p(void)
{
	char *s = mem_strdup(frame);

	*strstr(s, "q\t1\t") = '\0';
	return s;
}

static void
summaries(void)
{
	char *p = profile_p();

	CHECK_RUN(run(p, CSTATS_SUMMARY, 0, 1), 0,
	    "Name\tDurNonChildMs\tDurChildMs\tFracNonChild\n"
	    "XlaEmitGpuAsm\t28.125\t0\t0.28125\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t53\t0.27\n"
	    "XlaAutotunerMeasurement\t16.875\t5.625\t0.16875\n"
	    "XlaCompile\t10\t90\t0.1\n"
	    "XlaPassPipeline:#name=p#\t10\t0\t0.1\n"
	    "XlaPass:#name=b#\t5\t0\t0.05\n"
	    "XlaPass:#name=a#\t3\t0\t0.03\n");
	/* The notebook's cut: cumulative fraction <= top. */
	CHECK_RUN(run(p, CSTATS_SUMMARY, 0, 0.75), 0,
	    "Name\tDurNonChildMs\tDurChildMs\tFracNonChild\n"
	    "XlaEmitGpuAsm\t28.125\t0\t0.28125\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t53\t0.27\n"
	    "XlaAutotunerMeasurement\t16.875\t5.625\t0.16875\n");
	CHECK_RUN(run(p, CSTATS_SUMMARY, 0, 0.2), 0,
	    "Name\tDurNonChildMs\tDurChildMs\tFracNonChild\n");
	CHECK_RUN(run(p, CSTATS_RANGES, 0, 0.3), 0,
	    "Name\tDurNonChildMs\tDurChildMs\tDurNonChildPercent\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t53\t27\n");
	CHECK_RUN(run(p, CSTATS_NOPASS, 0, 1), 0,
	    "Name\tDurNonChildMs\tDurNonChildPercent\n"
	    "XlaCompileBackend:#module=m,program_id=1#\t27\t27\n"
	    "XlaEmitGpuAsm:#module=split_module#\t22.5\t22.5\n"
	    "XlaAutotunerMeasurement:#op=x#\t16.875\t16.875\n"
	    "XlaCompile\t10\t10\n"
	    "XlaPassPipelines\t10\t10\n"
	    "XlaPasses\t8\t8\n"
	    "XlaEmitGpuAsm\t5.625\t5.625\n");
	/* Passes: percent of the passes' own total; grouping never. */
	CHECK_RUN(run(p, CSTATS_PASSES, CSTATS_GROUP, 1), 0,
	    "Name\tDurNonChildMs\tDurNonChildPercent\n"
	    "XlaPass:#name=b#\t5\t62.5\n"
	    "XlaPass:#name=a#\t3\t37.5\n");
	free(p);
}

static void
compilations(void)
{
	CHECK_RUN(run(frame, CSTATS_COMPILATIONS, CSTATS_GROUP, 0.5), 0,
	    "ProfileName\tRangeId\tProgramId\tProgramName\tCompileStartMs"
	    "\tCompileDurS\tName\tDurNonChildS\tShare\n"
	    "p\t1\tP1\tm\t0\t0.1\tXlaCompileBackend:#module=m,program_id=1#"
	    "\t0.027\t0.27\n"
	    "p\t1\tP1\tm\t0\t0.1\tXlaEmitGpuAsm:#module=split_module#"
	    "\t0.0225\t0.225\n");
}

/* Attribution errors, each with the input line of the range at fault. */
static void
errors(void)
{
	char *bad = mem_strdup(frame), *m2;

	/* M2 moved into the parallel region. */
	m2 = strstr(bad, "\t70\t5\t");
	memcpy(m2, "\t50\t5\t", 6);
	check_error(bad, ":6: RangeId 5: main-thread range inside the "
	    "parallel region of RangeId 3");
	free(bad);
	check_error(H "p\t1\tXlaPass:#name=a#\t1\t\t:1\t0\t1\t0\t1\t\t\n",
	    ": profile 'p': no XlaCompile range, so no main thread");
	check_error(H "p\t1\tXlaCompile\t1\t\t:1\t0\t1\t0\t1\t\t\n"
	    "p\t1\tXlaPass\t1\t\t:1\t0\t1\t0\t1\t\t\n",
	    ":3: RangeId 1: appears twice");
	check_error(H "p\t1\tXlaCompile\t1\t\t:1\t0\t1\t\t\t\t\n",
	    ":2: RangeId 1: empty DurChildMs and DurNonChildMs, yet no "
	    "parallel work under it");
	check_error(H "p\t1\tXlaCompile\t1\t\t:1\t0\t1\t\t1\t\t\n",
	    ":2: column DurChildMs: empty while DurNonChildMs is not");
	check_error(H "p\t1\tXlaCompile\t1\t\t:2\t0\t1\t0\t1\t\t\n",
	    ":2: column RangeStack: ':2' does not end with ':1', its RangeId");
	check_error(H "p\t1\tXlaCompile\tx\t\t:1\t0\t1\t0\t1\t\t\n",
	    ":2: column TID: not an integer: 'x'");
	check_error("RangeId\tName\n1\tXlaCompile\n",
	    ": missing column 'TID'");
	/* Without ProfileName, ProgramId, ProgramName: one profile. */
	CHECK_RUN(run("RangeId\tName\tTID\tParentId\tRangeStack\tStartMs\t"
	    "DurMs\tDurChildMs\tDurNonChildMs\n"
	    "1\tXlaCompile\t1\t\t:1\t0\t2\t1\t1\n"
	    "2\tXlaPass:#name=a#\t1\t1\t:1:2\t0\t1\t0\t1\n",
	    CSTATS_COMPILATIONS, 0, 1), 0,
	    "ProfileName\tRangeId\tProgramId\tProgramName\tCompileStartMs"
	    "\tCompileDurS\tName\tDurNonChildS\tShare\n"
	    "\t1\t\t\t0\t0.002\tXlaCompile\t0.001\t0.5\n"
	    "\t1\t\t\t0\t0.002\tXlaPass:#name=a#\t0.001\t0.5\n");
}

/* ---- push/pop reports ---- */

#define CSVH "Start (ns),End (ns),Duration (ns),DurChild (ns)," \
	"DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId," \
	"RangeStack,NameTree\n"

/*
 * An XlaCompile on thread 1 (0-100 ns) with XlaCompileBackend (10-90)
 * and, on thread 2 without a parent, a worker (20-60) that the frame
 * builder grafts under the backend range: a parallel region of 40 ns.
 */
static const char report[] = CSVH
    "0,100,100,80,20,\"TSL:XlaCompile:#module=m#\",9,1,0,1,1,,:1,x\n"
    "10,90,80,0,80,\"TSL:XlaCompileBackend:#module=m,program_id=4#\","
    "9,1,1,0,2,1,:1:2,x\n"
    "20,60,40,0,40,TSL:XlaEmitGpuAsm,9,2,0,0,3,,:3,x\n"
    "200,300,100,0,100,TSL:XlaOther,9,1,0,0,4,,:4,x\n";

static const char report_stats[] =
    "Name\tDurNonChildMs\tDurChildMs\n"
    "XlaCompileBackend:#module=m,program_id=4#\t0.00004\t0.00004\n"
    "XlaEmitGpuAsm\t0.00004\t0\n"
    "XlaCompile\t0.00002\t0.00008\n";

/* Frame CF into S through a TSV file (PATH.tsv), as a pipeline does. */
static int
frame_to_stats(struct cstats *s, const struct compile_frame *cf,
    const char *path)
{
	char tsv[80];
	char *files[1] = { tsv };
	struct tsv_writer *w;
	struct filter *in;
	FILE *fp;
	int rc;

	snprintf(tsv, sizeof(tsv), "%s.tsv", path);
	if ((fp = fopen(tsv, "w")) == NULL)
		return -1;
	w = tsv_wopen(fp, tsv);
	rc = compile_write(w, cf);
	if (tsv_wclose(w) != 0 || fclose(fp) != 0 || rc != 0)
		return -1;
	if ((in = filter_open(files, 1)) == NULL)
		return -1;
	rc = cstats_read(s, in);
	filter_close(in);
	unlink(tsv);
	return rc;
}

/* Load the LEN bytes at DATA as a report file; write the stats. */
static struct result
load(const void *data, size_t len, const char *suffix)
{
	struct cstats_opts o = { CSTATS_STATS, 0, 1 };
	struct result res = { 0, NULL };
	struct cstats *s = cstats_new();
	struct compile_frame cf = { 0 };
	struct tsv_writer *w;
	char path[64];
	size_t outlen;
	FILE *fp, *out;
	int fd;

	snprintf(path, sizeof(path), "/tmp/cstats_test.XXXXXX%s", suffix);
	fd = mkstemps(path, (int)strlen(suffix));
	fp = fdopen(fd, "w");
	fwrite(data, 1, len, fp);
	fclose(fp);
	out = open_memstream(&res.out, &outlen);
	w = tsv_wopen(out, "out");
	/* The profile layer reads the report; its compile frame reaches
	 * compilestats as TSV, as in extract -f compile | compilestats. */
	if (compile_load_report(&cf, path, "r", COMPILE_CLEAN) != 0 ||
	    frame_to_stats(s, &cf, path) != 0 ||
	    cstats_attribute(s) != 0 || cstats_write(s, w, &o) != 0)
		res.rc = -1;
	compile_free(&cf);
	tsv_wclose(w);
	fclose(out);
	cstats_free(s);
	unlink(path);
	return res;
}

static void
csv(void)
{
	uint8_t xz[4096];
	size_t n = 0;
	struct result res;
	const char *m;

	CHECK_RUN(load(P(report), ".csv"), 0, report_stats);
	CHECK_INT(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL,
	    (const uint8_t *)report, strlen(report), xz, &n, sizeof(xz)),
	    LZMA_OK);
	CHECK_RUN(load(xz, n, ".csv.xz"), 0, report_stats);
	/* A damaged xz stream. */
	xz[n / 2] ^= 0xff;
	res = load(xz, n, ".csv.xz");
	CHECK_INT(res.rc, -1);
	m = strstr(err_msg(), ".csv.xz: ");
	CHECK(m != NULL && strncmp(m, P(".csv.xz: corrupt xz data")) == 0);
	free(res.out);
	/* A CSV error says FILE:LINE. */
	res = load(P(CSVH "0,1,1,0,1,TSL:XlaCompile,9,x,0,0,1,,:1,x\n"),
	    ".csv");
	CHECK_INT(res.rc, -1);
	m = strstr(err_msg(), ".csv:");
	CHECK_STR(m, ".csv:2: column TID: not an integer: 'x'");
	free(res.out);
	res = load(P("Start (ns),Name\n"), ".csv");
	CHECK_INT(res.rc, -1);
	m = strstr(err_msg(), ".csv: ");
	CHECK_STR(m, ".csv: missing column End (ns)");
	free(res.out);
}

/* The same report as nsys-jax's parquet (bare time column names). */
static void
parquet(void)
{
	static const int64_t start[] = { 0, 10, 20, 200 };
	static const int64_t end[] = { 100, 90, 60, 300 };
	static const int64_t child[] = { 80, 0, 0, 0 };
	static const int64_t nonchild[] = { 20, 80, 40, 100 };
	static const int64_t tid[] = { 1, 1, 2, 1 };
	static const int64_t nchild[] = { 1, 0, 0, 0 };
	static const int64_t id[] = { 1, 2, 3, 4 };
	static const int64_t parent[] = { 0, 1, 0, 0 };
	static const uint8_t hasparent[] = { 0, 1, 0, 0 };
	static const char *const name[] = { "TSL:XlaCompile:#module=m#",
	    "TSL:XlaCompileBackend:#module=m,program_id=4#",
	    "TSL:XlaEmitGpuAsm", "TSL:XlaOther" };
	static const char *const stack[] = { ":1", ":1:2", ":3", ":4" };
	size_t nlen[4], slen[4], i, len;
	struct wcol c[10];
	uint8_t *p;

	for (i = 0; i < 4; i++) {
		nlen[i] = strlen(name[i]);
		slen[i] = strlen(stack[i]);
	}
	memset(c, 0, sizeof(c));
	c[0].name = "Start", c[0].i64 = start;
	c[1].name = "End", c[1].i64 = end;
	c[2].name = "DurChild", c[2].i64 = child;
	c[3].name = "DurNonChild", c[3].i64 = nonchild;
	c[4].name = "TID", c[4].i64 = tid;
	c[5].name = "NumChild", c[5].i64 = nchild;
	c[6].name = "RangeId", c[6].i64 = id;
	c[7].name = "ParentId", c[7].i64 = parent, c[7].opt = 1;
	c[7].valid = hasparent;
	for (i = 0; i < 8; i++)
		c[i].type = T_INT64;
	c[8].name = "Name", c[8].str = name, c[8].slen = nlen;
	c[9].name = "RangeStack", c[9].str = stack, c[9].slen = slen;
	c[8].type = c[9].type = T_BYTE_ARRAY;
	p = pqwrite(c, 10, 4, &plainopt, &len);
	CHECK_RUN(load(p, len, ".parquet"), 0, report_stats);
	free(p);
	(void)bytesdup;
}

/*
 * One profile at a time: every table of the two-profile frame, and of
 * the frame with profile p again after q, is the same as with every
 * range held; p again after q is an error naming the line.
 */
static void
stream(void)
{
	static const int flags[] = { 0, CSTATS_CLEAN | CSTATS_GROUP };
	char *twice = mem_alloc(2 * sizeof(frame));
	struct result a, b;
	enum cstats_table t;
	size_t f;

	for (t = CSTATS_STATS; t <= CSTATS_COMPILATIONS; t++)
		for (f = 0; f < 2; f++) {
			if (t == CSTATS_PASSES && f == 1)
				continue;
			streaming = 0;
			a = run(frame, t, flags[f], t == CSTATS_SUMMARY ? 0.97 :
			    1);
			streaming = 1;
			b = run(frame, t, flags[f], t == CSTATS_SUMMARY ? 0.97 :
			    1);
			CHECK_INT(a.rc, 0);
			CHECK_INT(b.rc, 0);
			CHECK_STR(b.out, a.out);
			free(a.out);
			free(b.out);
		}
	/* p, q, then p again (its rows renamed "p" after the q row). */
	strcpy(twice, frame);
	strcat(twice, "p\t20\tXlaCompile\t1\t\t:20\t200\t1\t0\t1\t\t\n");
	b = run(twice, CSTATS_STATS, 0, 1);
	CHECK_INT(b.rc, -1);
	CHECK(strstr(err_msg(), ":11: ProfileName 'p' again after other "
	    "profiles") != NULL);
	free(b.out);
	streaming = 0;
	b = run(twice, CSTATS_STATS, 0, 1);
	CHECK_INT(b.rc, 0);
	free(b.out);
	free(twice);
}

int
main(void)
{
	err_setprog("compilestats_test");
	names();
	stats();
	summaries();
	compilations();
	errors();
	csv();
	parquet();
	stream();
	return unit_done("compilestats_test");
}
