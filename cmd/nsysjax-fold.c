/*
 * nsysjax-fold reads thunk rows (the steady state of nsysjax-warmup) with
 * the hlo and stackframes frames of nsysjax-extract, and writes the
 * reference's source or op_name flame graph as folded stacks for
 * flamegraph.pl, inferno or speedscope, or its table of GPU time by HLO
 * opcode (lib/fold.h has the rules).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "analysis/filter.h"
#include "analysis/fold.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-fold [-hv] [-b by] [-o dir [-p program ...]] [-M modules]"
    " [-S stackframes] [-t top] [-u unit] -H hlo [file ...]\n"
    "       nsysjax-fold -d [-n] before.folded after.folded |"
    " -P [-w width] [-m minwidth] [file.folded]";

static const struct opt_tool tool = { usage_line,
    "  -b, --by=KIND           source (Python frames, then op_name; the\n"
    "                          default), op_name (split at '/'), or\n"
    "                          opcode (a TSV table of time by HLO opcode);\n"
    "                          with -o, a list (source,op_name,opcode)\n"
    "  -o, --output=DIR        each kind of -b into DIR in one pass:\n"
    "                          source.folded, op_name.folded, opcodes.tsv\n"
    "  -p, --program=ID        with -o, also the thunks of program ID alone\n"
    "                          (no idle roots) as flame graphs:\n"
    "                          DIR/module-<ID's first 12>.source.folded,\n"
    "                          .op_name.folded (repeatable)\n"
    "  -H, --hlo=FILE          the hlo frame of nsysjax-extract\n"
    "  -S, --stackframes=FILE  the stackframes frame (needed by source)\n"
    "  -M, --modules=FILE      the module frame: top modules by module\n"
    "                          time, and the GPU idle roots\n"
    "  -t, --top=FRACTION      keep the largest modules up to this share\n"
    "                          of the time (default 0.99; 1: all)\n"
    "  -u, --unit=UNIT         count unit of folded stacks: us (default)\n"
    "                          or ns\n"
    "  -v, --verbose           report the selection and totals on stderr\n"
    "  -d, --diff              merge two folded files into differential\n"
    "                          lines: stack count_before count_after\n"
    "  -n, --normalize         with -d: scale BEFORE's counts to AFTER's\n"
    "                          total\n"
    "  -P, --prune             cut a folded file to what flamegraph.pl\n"
    "                          draws: stacks narrower than its minimum\n"
    "                          width merged into their parent\n"
    "  -w, --width=PX          with -P: flamegraph.pl's --width (1200)\n"
    "  -m, --minwidth=PX       with -P: flamegraph.pl's --minwidth, pixels\n"
    "                          or N% of the total (0.1)\n"
    "  -h, --help              this text\n"
    "  -V, --version           the version\n" };

struct opts {
	struct fold_opts fo;
	const char *hlo, *modules, *stackframes, *dir;
	const char **program;
	size_t nprogram, capprogram;
	int verbose, diff, normalize, prune;
	struct fold_prune_opts po;
};

/* The kinds of -b, by enum fold_by, and the files -o writes. */
static const char *const kind_names[] = { "source", "op_name", "opcode" };
static const char *const kind_files[] = { "source.folded", "op_name.folded",
    "opcodes.tsv" };

static int
kind_parse(const char *name)
{
	return opt_index(name, kind_names, 3);
}

/* -b: one kind, or with -o a list (the kinds' bits in o->kinds); BY is
 * the first of the list. */
static void
parse_by(const char *arg, struct fold_opts *o)
{
	int k;

	if (strchr(arg, ',') == NULL) {
		if ((k = kind_parse(arg)) < 0)
			opt_usage(&tool, "unknown --by '%s'", arg);
		o->kinds = 1u << k;
	} else
		o->kinds = opt_bits(&tool, "--by", arg, kind_parse);
	for (k = 0; !(o->kinds & (1u << k)); k++)
		;
	o->by = (enum fold_by)k;
}

/* -p ID: a ProgramId that names a file (no '/'), once per 12 characters. */
static void
add_program(struct opts *o, const char *id)
{
	size_t i;

	if (*id == '\0' || strchr(id, '/') != NULL)
		opt_usage(&tool, "--program '%s': not a ProgramId", id);
	for (i = 0; i < o->nprogram; i++)
		if (strncmp(o->program[i], id, 12) == 0)
			opt_usage(&tool, "--program '%s': its first 12 "
			    "characters are those of '%s'", id, o->program[i]);
	mem_grow(&o->program, &o->capprogram, o->nprogram + 1,
	    sizeof(*o->program));
	o->program[o->nprogram++] = id;
}

static double
parse_top(const char *arg)
{
	double v = opt_f64(&tool, "--top", arg, 0, 1);

	if (v == 0)
		opt_usage(&tool, "--top '%s': not a fraction in (0, 1]", arg);
	return v;
}

static int64_t
parse_unit(const char *arg)
{
	if (strcmp(arg, "us") == 0)
		return 1000;
	if (strcmp(arg, "ns") == 0)
		return 1;
	opt_usage(&tool, "unknown --unit '%s' (ns or us)", arg);
}

/* --minwidth: pixels, or a percentage with '%', as flamegraph.pl's. */
static void
parse_minwidth(const char *arg, struct fold_prune_opts *po)
{
	size_t n = strlen(arg);
	char num[64];

	po->percent = n > 0 && arg[n - 1] == '%';
	if (n - (size_t)po->percent >= sizeof(num))
		opt_usage(&tool, "--minwidth '%s': not a number", arg);
	memcpy(num, arg, n - (size_t)po->percent);
	num[n - (size_t)po->percent] = '\0';
	po->minwidth = opt_f64(&tool, "--minwidth", num, 0, 1e9);
}

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "diff", no_argument, NULL, 'd' },
		{ "hlo", required_argument, NULL, 'H' },
		{ "minwidth", required_argument, NULL, 'm' },
		{ "modules", required_argument, NULL, 'M' },
		{ "normalize", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "program", required_argument, NULL, 'p' },
		{ "prune", no_argument, NULL, 'P' },
		{ "stackframes", required_argument, NULL, 'S' },
		{ "top", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "width", required_argument, NULL, 'w' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = opt_next(argc, argv, ":H:M:PS:b:dhm:no:p:t:u:vVw:", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'H':
			o->hlo = optarg;
			break;
		case 'M':
			o->modules = optarg;
			break;
		case 'S':
			o->stackframes = optarg;
			break;
		case 'b':
			parse_by(optarg, &o->fo);
			break;
		case 'd':
			o->diff = 1;
			break;
		case 'n':
			o->normalize = 1;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 'p':
			add_program(o, optarg);
			break;
		case 't':
			o->fo.top = parse_top(optarg);
			break;
		case 'u':
			o->fo.unit_ns = parse_unit(optarg);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'P':
			o->prune = 1;
			break;
		case 'w':
			o->po.width = (int)opt_i64(&tool, "--width", optarg,
			    2 * 10 + 1, 1000000);
			break;
		case 'm':
			parse_minwidth(optarg, &o->po);
			break;
		}
	}
	if (o->prune) {
		if (argc - optind > 1)
			opt_usage(&tool, "--prune reads one folded file");
		return;
	}
	if (o->diff) {
		if (argc - optind != 2)
			opt_usage(&tool, "--diff needs two folded files");
		return;
	}
	if (o->normalize)
		opt_usage(&tool, "--normalize goes with --diff");
	if (o->hlo == NULL)
		opt_usage(&tool, "the hlo frame is needed: -H file");
	if ((o->fo.kinds & (1u << FOLD_SOURCE)) && o->stackframes == NULL)
		opt_usage(&tool, "--by source needs -S stackframes");
	if (o->dir == NULL && (o->fo.kinds & (o->fo.kinds - 1)) != 0)
		opt_usage(&tool, "a list of --by needs -o");
	if (o->dir == NULL && o->nprogram > 0)
		opt_usage(&tool, "--program needs -o");
	if (o->nprogram > 0 && o->fo.kinds == 1u << FOLD_OPCODE)
		opt_usage(&tool, "--program folds flame graphs: -b source "
		    "or op_name");
}

/* A side table's loader and the fold it fills, for filter_load. */
struct side {
	struct fold *f;
	int (*fn)(struct fold *, struct tsv_reader *);
};

static int
load_side(struct tsv_reader *r, void *arg)
{
	struct side *s = arg;

	return s->fn(s->f, r);
}

/* Read the side table PATH with LOADFN. */
static void
load(struct fold *f, const char *path,
    int (*loadfn)(struct fold *, struct tsv_reader *))
{
	struct side s = { f, loadfn };

	if (filter_load(path, load_side, &s) != 0)
		err_die_last();
}

/* The selection and totals with -v; instructions with no metadata always. */
/* WHO: "" for the whole input, "program ID: " for -p's. */
static void
report(const struct fold_totals *t, int verbose, const char *who)
{
	char a[32], b[32], c[32];

	tsv_fmt_ms(a, t->thunks_ns);
	tsv_fmt_ms(b, t->modules_ns);
	tsv_fmt_ms(c, t->wall_ns);
	if (verbose)
		err_warn("%s%zu of %zu modules selected; thunks %s ms, "
		    "modules %s ms, wall %s ms", who, t->ntop, t->nprograms, a,
		    t->have_modules ? b : "-", t->have_modules ? c : "-");
	if (t->nunknown > 0)
		err_warn("%s%zu instruction%s with no hlo row: "
		    "[GPU active];[Unknown]", who, t->nunknown,
		    t->nunknown == 1 ? "" : "s");
	if (verbose && t->ninconsistent > 0)
		err_warn("%s%zu instruction%s whose hlo rows disagree: "
		    "[inconsistent metadata]", who, t->ninconsistent,
		    t->ninconsistent == 1 ? "" : "s");
}

/* -o: a job of the fold and the file it writes. */
struct job {
	enum fold_by by;
	const char *program;	/* NULL: the whole input */
	struct outfile of;
};

/* The folded stacks or opcode table of J's fold into its file, closed. */
static int
write_job(struct fold *f, struct job *j)
{
	int rc = fold_write(f, j->of.fp, j->of.path);

	if (outfile_close(&j->of) != 0)
		rc = -1;
	return rc;
}

/*
 * -o: the jobs of O (each kind of the whole input, then the flame graphs
 * of each program alone), a kind's jobs in turn so that its lines are
 * built once; every file written whole or not at all.  Dies with the
 * message of the first failure (the files written so far discarded).
 */
static void
run_jobs(struct fold *f, const struct opts *o)
{
	struct job *job = mem_calloc(3 * (o->nprogram + 1), sizeof(*job));
	size_t nj = 0, i, p;
	int k, rc = 0;
	char *path;

	if (outfile_mkdirs(o->dir) != 0)
		err_die_last();
	for (k = 0; k < 3; k++) {
		if (!(o->fo.kinds & (1u << k)))
			continue;
		for (p = 0; p <= o->nprogram; p++) {
			if (p > 0 && k == FOLD_OPCODE)
				break;
			job[nj].by = (enum fold_by)k;
			job[nj++].program = p > 0 ? o->program[p - 1] : NULL;
		}
	}
	for (i = 0; i < nj && rc == 0; i++) {
		const char *id = job[i].program;
		size_t idlen = id ? strlen(id) : 0;
		char who[64];

		path = mem_alloc(strlen(o->dir) + 40);
		if (id == NULL)
			sprintf(path, "%s/%s", o->dir, kind_files[job[i].by]);
		else
			sprintf(path, "%s/module-%.12s.%s", o->dir, id,
			    kind_files[job[i].by]);
		rc = outfile_open(&job[i].of, path);
		free(path);
		if (rc != 0)
			break;
		fold_select(f, job[i].by, id, idlen, id != NULL);
		if ((rc = fold_finish(f)) != 0 ||
		    (rc = write_job(f, &job[i])) != 0)
			break;
		/* Once per selection: its first kind's totals. */
		if (i == 0 || job[i].by == job[0].by) {
			snprintf(who, sizeof(who), id ? "program %.40s: " : "",
			    id);
			report(fold_totals(f), o->verbose, who);
		}
	}
	for (i = 0; i < nj && rc == 0; i++)
		rc = outfile_commit(&job[i].of);
	if (rc != 0) {
		static char msg[4096];

		snprintf(msg, sizeof(msg), "%s", err_msg());
		for (i = 0; i < nj; i++)
			if (job[i].of.fp || job[i].of.path)
				outfile_discard(&job[i].of);
		err_die("%s", msg);
	}
	free(job);
}

/* --diff: the two folded files BEFORE and AFTER as differential lines. */
static int
diff(const char *before, const char *after, int normalize)
{
	struct fold_diff *x = fold_diff_new();
	const char *path[2] = { before, after };
	FILE *fp;
	int i;

	for (i = 0; i < 2; i++) {
		if (strcmp(path[i], "-") == 0)
			fp = stdin;
		else if ((fp = fopen(path[i], "r")) == NULL)
			err_die("%s: cannot open:", path[i]);
		if (fold_diff_read(x, i, fp, fp == stdin ? "<stdin>" :
		    path[i]) != 0)
			err_die_last();
		if (fp != stdin)
			fclose(fp);
	}
	if (fold_diff_write(x, normalize, stdout, "<stdout>") != 0)
		err_die_last();
	fold_diff_free(x);
	return 0;
}

/* --prune: the folded file PATH ("-" or NULL: stdin) cut to what
 * flamegraph.pl draws, to stdout; -v says how many lines. */
static int
prune(const char *path, const struct fold_prune_opts *po, int verbose)
{
	const char *name = path == NULL || strcmp(path, "-") == 0 ?
	    "<stdin>" : path;
	struct fold_prune_stats st;
	uint8_t *data;
	size_t len;
	FILE *fp;

	if (name != path)
		fp = stdin;
	else if ((fp = fopen(path, "r")) == NULL)
		err_die("%s: cannot open:", path);
	if (mem_read_all(fp, &data, &len) != 0)
		err_die("%s: read error:", name);
	if (fp != stdin)
		fclose(fp);
	if (fold_prune((const char *)data, len, po, stdout, "<stdout>",
	    &st) != 0)
		err_die_last();
	if (verbose)
		err_warn("%s: %zu lines, %zu written%s%s", name, st.lines_in,
		    st.lines_out, st.whole ? ", whole: " : "",
		    st.whole ? st.why : "");
	free(data);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct filter *in;
	struct fold *f;

	mem_huge_pages(argv);	/* first: it may execute us again */
	memset(&o, 0, sizeof(o));
	o.fo.by = FOLD_SOURCE;
	o.fo.top = 0.99;
	o.fo.unit_ns = 1000;
	o.fo.kinds = 1u << FOLD_SOURCE;
	o.po.width = 1200;
	o.po.minwidth = 0.1;
	parse(argc, argv, &o);
	if (o.prune)
		return prune(optind < argc ? argv[optind] : NULL, &o.po,
		    o.verbose);
	if (o.diff)
		return diff(argv[optind], argv[optind + 1], o.normalize);
	f = fold_new(&o.fo);
	if (o.fo.kinds & (1u << FOLD_SOURCE))
		load(f, o.stackframes, fold_load_stackframes);
	load(f, o.hlo, fold_load_hlo);
	if (o.modules != NULL)
		load(f, o.modules, fold_load_modules);
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL ||
	    fold_read_thunks(f, in) != 0)
		err_die_last();
	if (o.dir != NULL) {
		run_jobs(f, &o);
		filter_close(in);
		fold_free(f);
		free(o.program);
		return 0;
	}
	if (fold_finish(f) != 0)
		err_die_last();
	if (fold_write(f, stdout, "<stdout>") != 0)
		err_die_last();
	report(fold_totals(f), o.verbose, "");
	filter_close(in);
	fold_free(f);
	return 0;
}
