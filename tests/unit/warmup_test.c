/* The warm-up split: each rule, the fallback, skip counts, the fact
 * loaders, and the filter over small frames (order, modes, errors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "analysis/filter.h"
#include "base/tsv.h"
#include "analysis/warmup.h"
#include "unit.h"

#define P(s) s, strlen(s)

static void
rules(void)
{
	struct warmup_facts f;

	warmup_facts_init(&f);
	warmup_add_compiled(&f, P("A"));
	warmup_add_compiled(&f, P(""));		/* names no program */
	CHECK(warmup_compiled(&f, P("A")));
	CHECK(!warmup_compiled(&f, P("B")));
	CHECK(!warmup_compiled(&f, P("")));
	/* Compiled and communication: two executions are init. */
	CHECK_INT(warmup_skip(&f, P("A"), 1), 2);
	CHECK_INT(warmup_skip(&f, P("A"), 0), 1);
	CHECK_INT(warmup_skip(&f, P("B"), 1), 1);
	CHECK_INT(warmup_skip(&f, P("B"), 0), 0);
	CHECK_INT(warmup_classify(&f, P("A"), 0), WARMUP_INIT);
	CHECK_INT(warmup_classify(&f, P("A"), 1), WARMUP_EDGE);
	CHECK_INT(warmup_classify(&f, P("A"), 2), WARMUP_STEADY);
	CHECK_INT(warmup_classify(&f, P("B"), 0), WARMUP_EDGE);
	CHECK_INT(warmup_classify(&f, P("B"), 1), WARMUP_STEADY);
	CHECK_INT(warmup_classify(&f, P("B"), -1), WARMUP_INIT);
	CHECK(!warmup_steady(WARMUP_INIT, 0));
	CHECK(!warmup_steady(WARMUP_INIT, 1));
	CHECK(warmup_steady(WARMUP_EDGE, 0));
	CHECK(!warmup_steady(WARMUP_EDGE, 1));
	CHECK(warmup_steady(WARMUP_STEADY, 0));
	CHECK(warmup_steady(WARMUP_STEADY, 1));
	/* A skip count overrides both facts, for every program. */
	f.skip = 3;
	CHECK_INT(warmup_skip(&f, P("A"), 1), 3);
	CHECK_INT(warmup_skip(&f, P("B"), 0), 3);
	CHECK_INT(warmup_classify(&f, P("A"), 2), WARMUP_INIT);
	CHECK_INT(warmup_classify(&f, P("B"), 3), WARMUP_STEADY);
	f.skip = 0;
	CHECK_INT(warmup_classify(&f, P("A"), 0), WARMUP_STEADY);
	/* The fallback: rows but none steady. */
	CHECK(warmup_fallback(5, 0));
	CHECK(!warmup_fallback(5, 1));
	CHECK(!warmup_fallback(0, 0));
	warmup_facts_free(&f);
}

static struct tsv_reader *
reader(const char *text, FILE **fp)
{
	*fp = fmemopen((void *)text, strlen(text), "r");
	return tsv_ropen(*fp, "f.tsv");
}

/* Load TEXT with the communication loader: *YES, or -1. */
static int
comm_of(const char *text, int *yes)
{
	FILE *fp;
	struct tsv_reader *r = reader(text, &fp);
	int rc = r ? warmup_load_communication(r, yes) : -1;

	tsv_rclose(r);
	fclose(fp);
	return rc;
}

static void
loaders(void)
{
	struct warmup_facts f;
	struct tsv_reader *r;
	FILE *fp;
	int yes = -1;

	warmup_facts_init(&f);
	r = reader("Name\tProgramId\nx\t7\ny\t\nz\ta\\tb\nw\t7\n", &fp);
	CHECK_INT(warmup_load_compiled(&f, r), 0);
	CHECK_INT(f.compiled.n, 2);
	CHECK(warmup_compiled(&f, P("7")));
	CHECK(warmup_compiled(&f, P("a\\tb")));	/* as escaped in TSV */
	tsv_rclose(r);
	fclose(fp);
	r = reader("Name\nx\n", &fp);
	CHECK_INT(warmup_load_compiled(&f, r), -1);
	CHECK_STR(err_msg(), "f.tsv: missing column 'ProgramId'");
	tsv_rclose(r);
	fclose(fp);
	r = reader("ProgramId\tX\n1\t2\n3\n", &fp);
	CHECK_INT(warmup_load_compiled(&f, r), -1);
	CHECK_STR(err_msg(), "f.tsv:3: 1 field, the header has 2");
	tsv_rclose(r);
	fclose(fp);
	warmup_facts_free(&f);

	CHECK_INT(comm_of("Name\tCommunication\na\t0\nb\t0\n", &yes), 0);
	CHECK_INT(yes, 0);
	CHECK_INT(comm_of("Name\tCommunication\na\t0\nb\t1\nc\tbad\n", &yes), 0);
	CHECK_INT(yes, 1);	/* read up to the first 1 only */
	/* Empty: unknown (a thunk that is no HLO instruction), not 1. */
	CHECK_INT(comm_of("Name\tCommunication\na\t\nb\t0\n", &yes), 0);
	CHECK_INT(yes, 0);
	CHECK_INT(comm_of("Name\tCommunication\na\t\nb\t1\n", &yes), 0);
	CHECK_INT(yes, 1);
	CHECK_INT(comm_of("Name\tCommunication\na\t0\nb\tTrue\n", &yes), -1);
	CHECK_STR(err_msg(), "f.tsv:3: column Communication: not 0 or 1: 'True'");
	/* Without a Communication column: a communication frame. */
	CHECK_INT(comm_of("Name\tCollective\na\tall-gather\n", &yes), 0);
	CHECK_INT(yes, 1);
	CHECK_INT(comm_of("Name\tCollective\n", &yes), 0);
	CHECK_INT(yes, 0);
}

struct result {
	int rc;
	char *out;
	struct warmup_stats st;
};

/* Run the filter over TEXT (a file, as the tool reads it). */
static struct result
run(const char *text, const struct warmup_facts *f, enum warmup_mode mode)
{
	char path[] = "/tmp/warmup_test.XXXXXX";
	struct result res = { 0 };
	struct tsv_writer *w;
	struct filter *in;
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
	if ((in = filter_open(files, 1)) == NULL)
		res.rc = -1;
	else
		res.rc = warmup_run(in, w, f, mode, NULL, &res.st);
	tsv_wclose(w);
	fclose(out);
	filter_close(in);
	unlink(path);
	return res;
}

/* Check a run's status and output, and free the output. */
#define CHECK_RUN(res, wantrc, want) do { \
	struct result r_ = (res); \
	CHECK_INT(r_.rc, wantrc); \
	CHECK_STR(r_.out, want); \
	free(r_.out); \
} while (0)

#define H "ProgramId\tProgramExecution\tCommunication\tX\n"

static const char thunks[] = H
    "A\t0\t1\ta0\n"
    "A\t1\t0\ta1\n"
    "B\t0\t0\tb0\n"
    "A\t2\t0\ta2\n"
    "B\t1\t0\tb1\n"
    "A\t3\t0\ta3\n";

static void
modes(void)
{
	struct warmup_facts f;
	struct result res;

	warmup_facts_init(&f);
	warmup_add_compiled(&f, P("A"));
	/* Communication from the input: A skips 2, B skips 1. */
	res = run(thunks, &f, WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, H "A\t2\t0\ta2\nB\t1\t0\tb1\nA\t3\t0\ta3\n");
	CHECK_INT(res.st.rows, 6);
	CHECK_INT(res.st.steady, 3);
	CHECK_INT(res.st.init, 3);
	CHECK_INT(res.st.communication, 1);
	CHECK_INT(res.st.fallback, 0);
	CHECK_INT(res.st.spooled, 4);	/* up to the first steady row */
	CHECK_RUN(run(thunks, &f, WARMUP_OUT_INIT), 0,
	    H "A\t0\t1\ta0\nA\t1\t0\ta1\nB\t0\t0\tb0\n");
	CHECK_RUN(run(thunks, &f, WARMUP_OUT_MARK), 0,
	    "ProgramId\tProgramExecution\tCommunication\tX\tSteady\n"
	    "A\t0\t1\ta0\t0\nA\t1\t0\ta1\t0\nB\t0\t0\tb0\t0\n"
	    "A\t2\t0\ta2\t1\nB\t1\t0\tb1\t1\nA\t3\t0\ta3\t1\n");
	/* Told there is none: A skips 1, B none. */
	f.communication = WARMUP_COMM_NO;
	res = run(thunks, &f, WARMUP_OUT_INIT);
	CHECK_RUN(res, 0, H "A\t0\t1\ta0\n");
	CHECK_INT(res.st.communication, 0);
	/* A skip count for every program. */
	f.skip = 3;
	res = run(thunks, &f, WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, H "A\t3\t0\ta3\n");
	CHECK_INT(res.st.communication, -1);
	warmup_facts_free(&f);
}

static void
derived(void)
{
	struct warmup_facts f;
	struct result res;

	warmup_facts_init(&f);
	warmup_add_compiled(&f, P("A"));
	/* No 1 in Communication: known only at the end, everything waits. */
	res = run(H "A\t0\t0\ta0\nA\t1\t0\ta1\nB\t0\t0\tb0\n", &f,
	    WARMUP_OUT_MARK);
	CHECK_RUN(res, 0, "ProgramId\tProgramExecution\tCommunication\tX\t"
	    "Steady\nA\t0\t0\ta0\t0\nA\t1\t0\ta1\t1\nB\t0\t0\tb0\t1\n");
	CHECK_INT(res.st.communication, 0);
	CHECK_INT(res.st.spooled, 3);
	/* A late 1 turns the edge rows seen before it into init. */
	res = run(H "A\t1\t0\ta1\nB\t0\t0\tb0\nB\t1\t1\tb1\n", &f,
	    WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, H "B\t1\t1\tb1\n");
	CHECK_INT(res.st.communication, 1);
	warmup_facts_free(&f);
}

static void
fallback(void)
{
	struct warmup_facts f;
	struct result res;
	const char *in = H "A\t0\t1\ta0\nA\t1\t0\ta1\nB\t0\t0\tb0\n";

	warmup_facts_init(&f);
	warmup_add_compiled(&f, P("A"));
	/* Nothing steady: every row kept as steady, the init set empty. */
	res = run(in, &f, WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, in);
	CHECK_INT(res.st.fallback, 1);
	CHECK_INT(res.st.steady, 3);
	CHECK_INT(res.st.init, 0);
	CHECK_RUN(run(in, &f, WARMUP_OUT_INIT), 0, H);
	/* No rows: nothing to fall back from. */
	res = run(H, &f, WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, H);
	CHECK_INT(res.st.fallback, 0);
	/* Under a skip count too. */
	f.skip = 5;
	res = run(in, &f, WARMUP_OUT_MARK);
	CHECK_INT(res.st.fallback, 1);
	CHECK(res.out && strstr(res.out, "b0\t1\n") != NULL);
	free(res.out);
	warmup_facts_free(&f);
}

static void
compile_frame(void)
{
	struct warmup_facts f;
	struct result res;
	const char *in = "ProfileName\tRangeId\tProgramId\np\t1\tA\np\t2\tA\n";

	warmup_facts_init(&f);
	res = run(in, &f, WARMUP_OUT_STEADY);
	CHECK_RUN(res, 0, "ProfileName\tRangeId\tProgramId\n");
	CHECK_INT(res.st.compile_frame, 1);
	CHECK_INT(res.st.init, 2);
	CHECK_INT(res.st.fallback, 0);
	CHECK_RUN(run(in, &f, WARMUP_OUT_INIT), 0, in);
	warmup_facts_free(&f);
}

static void
errors(void)
{
	struct warmup_facts f;

	warmup_facts_init(&f);
	warmup_add_compiled(&f, P("A"));
	CHECK_RUN(run("ProgramId\tX\nA\t1\n", &f, WARMUP_OUT_STEADY), -1, "");
	CHECK(strstr(err_msg(), ": missing column 'ProgramExecution'") != NULL);
	CHECK_RUN(run("ProgramId\tProgramExecution\nA\t1\n", &f,
	    WARMUP_OUT_STEADY), -1, "");
	CHECK(strstr(err_msg(), ": missing column 'Communication'") != NULL);
	CHECK_RUN(run(H "A\t0\t1\ta0\n", &f, WARMUP_OUT_MARK), 0,
	    "ProgramId\tProgramExecution\tCommunication\tX\tSteady\n"
	    "A\t0\t1\ta0\t1\n");
	CHECK_RUN(run("ProgramId\tProgramExecution\tCommunication\tSteady\n",
	    &f, WARMUP_OUT_MARK), -1, "");
	CHECK(strstr(err_msg(), ": column 'Steady' exists already") != NULL);
	/* Decided rows are written before the bad one. */
	CHECK_RUN(run(H "A\t0\t1\ta0\nA\t5\t0\ta5\nA\t6x\t0\ta6\n", &f,
	    WARMUP_OUT_STEADY), -1, H "A\t5\t0\ta5\n");
	CHECK(strstr(err_msg(), ":4: column ProgramExecution: not an integer: "
	    "'6x'") != NULL);
	CHECK_RUN(run(H "A\t0\t1\ta0\nA\t5\t0\ta5\nA\t6\t0\n", &f,
	    WARMUP_OUT_STEADY), -1, H "A\t5\t0\ta5\n");
	CHECK(strstr(err_msg(), ":4: 3 fields, the header has 4") != NULL);
	CHECK_RUN(run(H "A\t0\t2\ta0\n", &f, WARMUP_OUT_STEADY), -1, H);
	CHECK(strstr(err_msg(), ":2: column Communication: not 0 or 1: '2'")
	    != NULL);
	CHECK_RUN(run(H "A\t\t1\ta0\n", &f, WARMUP_OUT_STEADY), -1, H);
	CHECK(strstr(err_msg(), ":2: column ProgramExecution: not an integer")
	    != NULL);
	warmup_facts_free(&f);
}

int
main(void)
{
	rules();
	loaders();
	modes();
	derived();
	fallback();
	compile_frame();
	errors();
	return unit_done("warmup");
}
