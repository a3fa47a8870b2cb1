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
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-critpath [-h] [-s | -k | -b | --svg] [-c table] "
    "[-m module] [-H hlo] [-e program:exec] [--comm-scale F] "
    "[--scale REGEX=F] [thunk ...]";

static const struct opt_tool tool = { usage_line,
    "  (default)                the critical path of each module execution\n"
    "  -s, --scenarios          what-if scenarios: predicted step per scenario\n"
    "  -k, --slack              the slack of every thunk\n"
    "  -b, --breakdown          the critical time by label per execution\n"
    "      --svg                one execution as an SVG picture\n"
    "  -c, --corrections=TABLE  clock corrections of nsysjax-align -o\n"
    "  -m, --module=FRAME       the module frame (module ranges per device)\n"
    "  -H, --hlo=FRAME          the hlo frame (async pairs, --scale matches)\n"
    "  -e, --exec=PROGRAM:EXEC  --svg: the execution to draw (default: first)\n"
    "      --comm-scale=F       scenario comm-xF: communication F times as long\n"
    "      --scale=REGEX=F      scenario scale:REGEX=F: matching thunks F times\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version\n"
    "Scenarios are estimates from the measured graph.\n" };

enum { O_SVG = 256, O_COMM, O_SCALE };

static void
read_table(const char *path, struct align_table *t)
{
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		err_die("%s:", path);
	if (align_table_read(fp, path, t) != 0)
		err_die_last();
	fclose(fp);
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
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	const char *corr = NULL, *module = NULL, *hlo = NULL, *exec = NULL;
	const char *comm[16], *scale[64];
	size_t ncomm = 0, nscale = 0, i;
	int c, mode = CRITPATH_MODE_PATH;
	struct align_table t = { 0 };
	struct err_notes notes = { 0 };
	struct critpath_run *r;
	struct tsv_writer *w;
	struct filter *in;

	while ((c = opt_next(argc, argv, ":bc:e:hH:km:sV", longopts,
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
	r = critpath_run_new(mode);
	for (i = 0; i < ncomm; i++)
		critpath_add_comm_scale(r, opt_f64(&tool, "--comm-scale",
		    comm[i], 0, 1e6), comm[i]);
	for (i = 0; i < nscale; i++)
		if (critpath_add_scale(r, scale[i]) != 0)
			opt_usage(&tool, "%s", err_msg());
	if (exec) {
		const char *colon = strrchr(exec, ':');
		int64_t k;
		char *p;

		if (colon == NULL || num_i64(colon + 1, strlen(colon + 1),
		    &k) != 0)
			opt_usage(&tool, "-e '%s': not PROGRAM:EXECUTION", exec);
		p = mem_strndup(exec, (size_t)(colon - exec));
		critpath_set_exec(r, p, k);
		free(p);
	}
	if (corr) {
		read_table(corr, &t);
		critpath_set_corrections(r, &t);
	}
	/* Side tables first: their rows are corrected as the thunks'. */
	if (module && filter_load(module, critpath_load_module, r) != 0)
		err_die_last();
	if (hlo && filter_load(hlo, critpath_load_hlo, r) != 0)
		err_die_last();
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL)
		err_die_last();
	w = tsv_wopen(stdout, "<stdout>");
	if (critpath_run_frames(r, in, w, stdout, &notes) != 0) {
		char *msg = mem_strdup(err_msg());

		(void)tsv_wclose(w);
		err_die("%s", msg);
	}
	if (tsv_wclose(w) != 0)
		err_die_last();
	if (mode == CRITPATH_MODE_SVG && fflush(stdout) != 0)
		err_die("<stdout>: write error:");
	err_notes_print(&notes);
	err_notes_free(&notes);
	critpath_run_free(r);
	align_table_free(&t);
	filter_close(in);
	return 0;
}
