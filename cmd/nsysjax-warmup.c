/*
 * nsysjax-warmup splits a thunk, module or communication frame into
 * initialisation and steady state as the reference's
 * apply_warmup_heuristics does, and writes the steady rows, the init rows,
 * or every row marked (lib/warmup.h has the rule).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "base/err.h"
#include "base/opt.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/tsv.h"
#include "analysis/warmup.h"

static const char usage_line[] =
    "usage: nsysjax-warmup [-imqv] -c compiled | -s n [-a table] [--forms-from thunks]\n"
    "           [--communication yes|no | --communication-from file] [file ...]";

enum { OPT_COMM = 256, OPT_COMM_FROM, OPT_FORMS_FROM, OPT_FORMS_ONLY };

static const struct opt_tool tool = { usage_line,
    "  -c, --compiled=FILE     programs compiled within the profile: the\n"
    "                          ProgramId column of FILE (the compile frame);\n"
    "                          may be repeated\n"
    "  --communication=yes|no  whether the profile has communication\n"
    "  --communication-from=FILE\n"
    "                          ... as FILE says: a thunk frame (some\n"
    "                          Communication 1) or a communication frame (a\n"
    "                          row); default: the input's Communication column\n"
    "  --forms-from=FILE       a thunk frame: executions whose command buffers\n"
    "                          ran in another form (plain thunks, CUDA graph)\n"
    "                          than in their program's last execution are init\n"
    "  --forms-only            write the forms of --forms-from as a small thunk\n"
    "                          frame (a row per program's last execution and\n"
    "                          per execution in CUDA-graph form), for\n"
    "                          --forms-from of later runs; no input is read\n"
    "  -q, --quiet             no note of the executions left out by their form\n"
    "                          (for the other frames of a run whose thunk\n"
    "                          frame's split says it)\n"
    "  -s, --skip=N            the first N executions of every program are\n"
    "                          init; -c and --communication* are not read\n"
    "  -a, --apply=TABLE       first subtract the clock corrections of TABLE\n"
    "                          (nsysjax-align -o) from ProjStartMs, as\n"
    "                          nsysjax-align -a TABLE piped in would\n"
    "  -i, --init              write the init rows, not the steady ones\n"
    "  -m, --mark              write every row, with a column Steady (0/1)\n"
    "  -v, --verbose           report counts and facts on stderr\n"
    "  -h, --help              this text\n"
    "  -V, --version           the version\n" };

/* Read one fact file with LOADFN (filter.h filter_load). */
static void
load(const char *path, int (*loadfn)(struct tsv_reader *, void *), void *arg)
{
	if (filter_load(path, loadfn, arg) != 0)
		err_die_last();
}

static int
load_compiled(struct tsv_reader *r, void *facts)
{
	return warmup_load_compiled(facts, r);
}

static int
load_comm(struct tsv_reader *r, void *yes)
{
	return warmup_load_communication(r, yes);
}

static int
load_forms(struct tsv_reader *r, void *facts)
{
	return warmup_load_forms(facts, r);
}

/* The fallback is a warning: the split was dropped, and why. */
static void
report(const struct warmup_stats *st, const struct warmup_facts *f,
    int quiet)
{
	if (st->form_excluded > 0 && !quiet)
		err_warn("%zu execution%s left out of the steady state: %s "
		    "command buffers ran in another form than in the "
		    "program's last execution (XLA runs a command buffer's "
		    "first execution as plain thunks, later ones as a CUDA "
		    "graph)", st->form_excluded,
		    st->form_excluded == 1 ? "" : "s",
		    st->form_excluded == 1 ? "its" : "their");
	if (!st->fallback)
		return;
	if (f->skip >= 0)
		err_warn("no steady-state row among %zu: every ProgramExecution "
		    "is below --skip %" PRId64 "; keeping every row as steady "
		    "state", st->rows, f->skip);
	else
		err_warn("no steady-state row among %zu: every ProgramExecution "
		    "is below its program's skip count (1 if compiled%s); "
		    "keeping every row as steady state: profile more "
		    "executions or set --skip", st->rows,
		    st->communication == 1 ? ", +1 for communication" : "");
}

static void
verbose(const struct warmup_stats *st, const struct warmup_facts *f)
{
	if (st->compile_frame)
		err_warn("%zu rows of a compile frame: all init", st->rows);
	else if (f->skip >= 0)
		err_warn("%zu rows: %zu steady, %zu init; skip %" PRId64
		    " executions%s", st->rows, st->steady, st->init, f->skip,
		    st->fallback ? " (fallback)" : "");
	if (f->forms && !st->compile_frame)
		err_warn("forms of %zu programs: %zu executions in CUDA-graph "
		    "form; %zu executions init by their form", f->progs.n,
		    f->graph.n, st->form_excluded);
	else
		err_warn("%zu rows: %zu steady, %zu init; compiled programs %zu, "
		    "communication %s; %zu rows waited%s", st->rows,
		    st->steady, st->init, f->compiled.n,
		    st->communication == 1 ? "yes" : "no", st->spooled,
		    st->fallback ? " (fallback)" : "");
}

struct opts {
	enum warmup_mode mode;
	const char *apply;	/* -a table */
	const char **compiled;	/* -c files */
	size_t ncompiled;
	const char *comm, *commfrom, *forms;
	int64_t skip;		/* -1: none */
	int verbose;
	int quiet;		/* -q: no note of the forms */
	int forms_only;		/* --forms-only */
};

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "communication", required_argument, NULL, OPT_COMM },
		{ "apply", required_argument, NULL, 'a' },
		{ "communication-from", required_argument, NULL, OPT_COMM_FROM },
		{ "forms-from", required_argument, NULL, OPT_FORMS_FROM },
		{ "compiled", required_argument, NULL, 'c' },
		{ "init", no_argument, NULL, 'i' },
		{ "mark", no_argument, NULL, 'm' },
		{ "skip", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "forms-only", no_argument, NULL, OPT_FORMS_ONLY },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->compiled = mem_calloc((size_t)argc, sizeof(*o->compiled));
	while ((c = opt_next(argc, argv, ":a:c:himqs:vV", longopts, &tool)) != -1) {
		switch (c) {
		case 'a':
			o->apply = optarg;
			break;
		case 'c':
			o->compiled[o->ncompiled++] = optarg;
			break;
		case 'i':
		case 'm':
			if (o->mode != WARMUP_OUT_STEADY)
				opt_usage(&tool, "-i and -m exclude each other");
			o->mode = c == 'i' ? WARMUP_OUT_INIT : WARMUP_OUT_MARK;
			break;
		case 's':
			o->skip = opt_i64(&tool, "--skip", optarg, 0, INT64_MAX);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_FORMS_ONLY:
			o->forms_only = 1;
			break;
		case OPT_COMM:
			if (strcmp(optarg, "yes") != 0 && strcmp(optarg, "no") != 0)
				opt_usage(&tool, "--communication: yes or no, "
				    "not '%s'", optarg);
			o->comm = optarg;
			break;
		case OPT_COMM_FROM:
			o->commfrom = optarg;
			break;
		case OPT_FORMS_FROM:
			o->forms = optarg;
			break;
		}
	}
	if (o->forms_only) {
		if (!o->forms)
			opt_usage(&tool, "--forms-only: which thunk frame? "
			    "give --forms-from FILE");
		if (optind < argc)
			opt_usage(&tool, "--forms-only reads no input");
		return;
	}
	if (o->comm && o->commfrom)
		opt_usage(&tool, "--communication and --communication-from "
		    "exclude each other");
	if (o->skip < 0 && o->ncompiled == 0)
		opt_usage(&tool, "which programs were compiled? give -c "
		    "FILE (the compile frame), or -s N");
}

/* The facts, from the options' files, or read ahead from the inputs. */
static void
gather(const struct opts *o, char *const *files, size_t n,
    struct warmup_facts *f)
{
	size_t i;
	int yes, rc;

	warmup_facts_init(f);
	f->skip = o->skip;
	if (o->forms)
		load(o->forms, load_forms, f);
	if (o->skip >= 0)
		return;		/* overrides: nothing else is read */
	for (i = 0; i < o->ncompiled; i++)
		load(o->compiled[i], load_compiled, f);
	if (o->comm) {
		f->communication = strcmp(o->comm, "yes") == 0;
	} else if (o->commfrom) {
		load(o->commfrom, load_comm, &yes);
		f->communication = yes;
	} else {
		if ((rc = warmup_prescan_communication(files, n, &yes)) < 0)
			err_die_last();
		if (rc == 1)
			f->communication = yes;
	}
}

/* --forms-only: the forms of --forms-from to stdout (warmup_write_forms). */
static int
forms_only(const struct opts *o)
{
	struct warmup_facts f;
	struct tsv_writer *w;

	warmup_facts_init(&f);
	load(o->forms, load_forms, &f);
	w = tsv_wopen(stdout, "<stdout>");
	if (warmup_write_forms(&f, w) != 0 || tsv_wclose(w) != 0)
		err_die_last();
	warmup_facts_free(&f);
	return 0;
}

/* align_table_read for opt_read. */
static int
read_table(FILE *fp, const char *path, void *t)
{
	return align_table_read(fp, path, t);
}

int
main(int argc, char *argv[])
{
	struct opts o = { .mode = WARMUP_OUT_STEADY, .skip = -1 };
	struct align_table table = { 0 };
	struct align_applier a = { NULL, &table };
	struct warmup_rewrite rw = { align_applier_start, align_applier_line,
	    &a };
	struct warmup_facts f;
	struct warmup_stats st;
	struct tsv_writer *w;
	struct filter *in;
	size_t n;
	int rc;

	parse(argc, argv, &o);
	if (o.forms_only) {
		rc = forms_only(&o);
		free(o.compiled);
		return rc;
	}
	n = (size_t)(argc - optind);
	gather(&o, argv + optind, n, &f);
	if (o.apply) {
		opt_read(o.apply, read_table, &table);
		a.run = align_run_new();
	}
	if ((in = filter_open(argv + optind, n)) == NULL)
		err_die_last();
	w = tsv_wopen(stdout, "<stdout>");
	rc = warmup_run(in, w, &f, o.mode, o.apply ? &rw : NULL, &st);
	/* Rows already decided are written even when a later row is bad. */
	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
	if (o.apply) {
		align_apply_end(a.run, &table);
		align_report(a.run, o.apply);
		align_run_free(a.run);
		align_table_free(&table);
	}
	if (o.verbose)
		verbose(&st, &f);
	report(&st, &f, o.quiet);
	filter_close(in);
	warmup_facts_free(&f);
	free(o.compiled);
	return 0;
}
