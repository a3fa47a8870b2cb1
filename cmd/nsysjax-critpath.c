/*
 * nsysjax-critpath reads the thunk frame (with the module and hlo frames
 * beside it) and writes, per module execution across its devices, the
 * critical path, the slack of every thunk, the critical time by label or
 * what-if scenarios; or draws one execution as SVG.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "analysis/critpath.h"
#include "analysis/filter.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-critpath [-h] [-s | -k | -b | --svg] [-c table] "
    "[-m module] [-H hlo] [-e program:exec] [--comm-scale F] "
    "[--scale REGEX=F] [-t list -o dir] [thunk ...]";

static const struct opt_tool tool = { usage_line,
    "  (default)                the critical path of each module execution\n"
    "  -s, --scenarios          what-if scenarios: predicted step per scenario\n"
    "  -k, --slack              the slack of every thunk\n"
    "  -b, --breakdown          the critical time by label per execution\n"
    "      --svg                one execution as an SVG picture\n"
    "  -t, --table=LIST         with -o: the tables to write in one pass:\n"
    "                           path, scenarios, slack, breakdown\n"
    "  -o, --output=DIR         write each table of -t to DIR/TABLE.tsv\n"    "  -c, --corrections=TABLE  clock corrections of nsysjax-align -o\n"
    "  -m, --module=FRAME       the module frame (module ranges per device)\n"
    "  -H, --hlo=FRAME          the hlo frame (async pairs, --scale matches)\n"
    "  -e, --exec=PROGRAM:EXEC  --svg: the execution to draw (default: first)\n"
    "      --comm-scale=F       scenario comm-xF: communication F times as long\n"
    "      --scale=REGEX=F      scenario scale:REGEX=F: matching thunks F times\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version\n"
    "Scenarios are estimates from the measured graph.\n" };

enum { O_SVG = 256, O_COMM, O_SCALE };

/* align_table_read for opt_read. */
static int
read_table(FILE *fp, const char *path, void *t)
{
	return align_table_read(fp, path, t);
}

/* What main holds, released before dying on bad input (no leak under
 * LeakSanitizer, whatever the optimiser keeps in registers). */
static struct {
	struct critpath_run *r;
	struct align_table t;
	struct filter *in;
	struct tsv_writer *w;
	struct err_notes notes;
	/* -o: a file and a writer per table */
	struct outfile of[CRITPATH_MODE_SVG];
	struct tsv_writer *tw[CRITPATH_MODE_SVG];
} m;

static void
release(void)
{
	size_t i;

	for (i = 0; i < CRITPATH_MODE_SVG; i++) {
		if (m.tw[i])
			(void)tsv_wclose(m.tw[i]);
		m.tw[i] = NULL;
		if (m.of[i].fp || m.of[i].path)
			outfile_discard(&m.of[i]);
	}
	if (m.w)
		(void)tsv_wclose(m.w);
	m.w = NULL;
	critpath_run_free(m.r);
	m.r = NULL;
	align_table_free(&m.t);
	filter_close(m.in);
	m.in = NULL;
	err_notes_free(&m.notes);
}

/* Release everything, then die with the message recorded. */
static _Noreturn void
die_last(void)
{
	static char msg[4096];

	snprintf(msg, sizeof(msg), "%s", err_msg());
	release();
	err_die("%s", msg);
}

/* The tables of -t, by mode (critpath.h's order). */
static const char *const table_names[CRITPATH_MODE_SVG] = { "path",
	"scenarios", "slack", "breakdown" };

static int
table_parse(const char *name)
{
	return opt_index(name, table_names, CRITPATH_MODE_SVG);
}

/*
 * -o: the tables of TABLES (bits by mode) from the thunk rows of m.in, each
 * into DIR/TABLE.tsv, in one pass; every file written whole or not at
 * all (a failure discards them all).  Returns 0, or -1 with an err message.
 */
static int
run_tables(const char *dir, unsigned tables)
{
	int i, rc = 0;

	if (outfile_mkdirs(dir) != 0)
		return -1;
	for (i = 0; i < CRITPATH_MODE_SVG; i++) {
		char *path;

		if (!(tables & (1u << i)))
			continue;
		path = mem_alloc(strlen(dir) + strlen(table_names[i]) + 6);
		sprintf(path, "%s/%s.tsv", dir, table_names[i]);
		rc = outfile_open(&m.of[i], path);
		free(path);
		if (rc != 0)
			return -1;
		m.tw[i] = tsv_wopen(m.of[i].fp, m.of[i].path);
	}
	if (critpath_run_tables(m.r, m.in, m.tw, &m.notes) != 0)
		return -1;
	for (i = 0; i < CRITPATH_MODE_SVG; i++) {
		if (!m.tw[i])
			continue;
		rc = tsv_wclose(m.tw[i]);
		m.tw[i] = NULL;
		if (rc != 0 || outfile_close(&m.of[i]) != 0)
			return -1;
	}
	for (i = 0; i < CRITPATH_MODE_SVG; i++)
		if (m.of[i].path && outfile_commit(&m.of[i]) != 0)
			return -1;
	return 0;
}

static void
set_mode(int *mode, int m, int c)
{
	if (*mode != CRITPATH_MODE_PATH && *mode != m)
		opt_usage(&tool, "-s, -k, -b and --svg exclude each other "
		    "(-%c)", c < 256 ? c : '-');
	*mode = m;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "scenarios", no_argument, NULL, 's' },
		{ "slack", no_argument, NULL, 'k' },
		{ "breakdown", no_argument, NULL, 'b' },
		{ "svg", no_argument, NULL, O_SVG },
		{ "corrections", required_argument, NULL, 'c' },
		{ "module", required_argument, NULL, 'm' },
		{ "hlo", required_argument, NULL, 'H' },
		{ "exec", required_argument, NULL, 'e' },
		{ "comm-scale", required_argument, NULL, O_COMM },
		{ "scale", required_argument, NULL, O_SCALE },
		{ "table", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	const char *corr = NULL, *module = NULL, *hlo = NULL, *exec = NULL;
	const char *dir = NULL;
	unsigned tables = 0;
	const char *comm[16], *scale[64];
	size_t ncomm = 0, nscale = 0, i;
	int c, mode = CRITPATH_MODE_PATH;

	mem_huge_pages(argv);	/* first: it may execute us again */
	while ((c = opt_next(argc, argv, ":bc:e:hH:km:o:st:V", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 's':
			set_mode(&mode, CRITPATH_MODE_SCEN, c);
			break;
		case 'k':
			set_mode(&mode, CRITPATH_MODE_SLACK, c);
			break;
		case 'b':
			set_mode(&mode, CRITPATH_MODE_BREAKDOWN, c);
			break;
		case O_SVG:
			set_mode(&mode, CRITPATH_MODE_SVG, c);
			break;
		case 't':
			tables |= opt_bits(&tool, "table", optarg, table_parse);
			break;
		case 'o':
			dir = optarg;
			break;
		case 'c':
			corr = optarg;
			break;
		case 'm':
			module = optarg;
			break;
		case 'H':
			hlo = optarg;
			break;
		case 'e':
			exec = optarg;
			break;
		case O_COMM:
			(void)opt_f64(&tool, "--comm-scale", optarg, 0, 1e6);
			if (ncomm == sizeof(comm) / sizeof(comm[0]))
				opt_usage(&tool, "too many --comm-scale");
			comm[ncomm++] = optarg;
			break;
		case O_SCALE:
			if (nscale == sizeof(scale) / sizeof(scale[0]))
				opt_usage(&tool, "too many --scale");
			scale[nscale++] = optarg;
			break;
		}
	}
	if ((tables != 0) != (dir != NULL))
		opt_usage(&tool, "-t and -o go together");
	if (dir && mode != CRITPATH_MODE_PATH)
		opt_usage(&tool, "-t excludes -s, -k, -b and --svg");
	if (corr)
		opt_read(corr, read_table, &m.t);
	m.r = critpath_run_new(mode);
	for (i = 0; i < ncomm; i++)
		critpath_add_comm_scale(m.r, opt_f64(&tool, "--comm-scale",
		    comm[i], 0, 1e6), comm[i]);
	for (i = 0; i < nscale; i++)
		if (critpath_add_scale(m.r, scale[i]) != 0) {
			static char msg[1024];

			snprintf(msg, sizeof(msg), "%s", err_msg());
			release();
			opt_usage(&tool, "%s", msg);
		}
	if (exec) {
		const char *colon = strrchr(exec, ':');
		int64_t k;
		char *p;

		if (colon == NULL || num_i64(colon + 1, strlen(colon + 1),
		    &k) != 0) {
			release();
			opt_usage(&tool, "-e '%s': not PROGRAM:EXECUTION", exec);
		}
		p = mem_strndup(exec, (size_t)(colon - exec));
		critpath_set_exec(m.r, p, k);
		free(p);
	}
	if (corr)
		critpath_set_corrections(m.r, &m.t);
	/* Side tables first: their rows are corrected as the thunks'. */
	if (module && filter_load(module, critpath_load_module, m.r) != 0)
		die_last();
	if (hlo && filter_load(hlo, critpath_load_hlo, m.r) != 0)
		die_last();
	if ((m.in = filter_open(argv + optind, (size_t)(argc - optind))) ==
	    NULL)
		die_last();
	if (dir) {
		if (run_tables(dir, tables) != 0)
			die_last();
		err_notes_print(&m.notes);
		release();
		return 0;
	}
	m.w = tsv_wopen(stdout, "<stdout>");
	if (critpath_run_frames(m.r, m.in, m.w, stdout, &m.notes) != 0)
		die_last();
	c = tsv_wclose(m.w);
	m.w = NULL;
	if (c != 0)
		die_last();
	if (mode == CRITPATH_MODE_SVG && fflush(stdout) != 0) {
		release();
		err_die("<stdout>: write error:");
	}
	err_notes_print(&m.notes);
	release();
	return 0;
}
