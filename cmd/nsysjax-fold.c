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
#include "base/opt.h"
#include "analysis/filter.h"
#include "analysis/fold.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-fold [-hv] [-b by] [-M modules] [-S stackframes] [-t top]"
    " [-u unit] -H hlo [file ...]\n"
    "       nsysjax-fold -d [-n] before.folded after.folded";

static const struct opt_tool tool = { usage_line,
    "  -b, --by=KIND           source (Python frames, then op_name; the\n"
    "                          default), op_name (split at '/'), or\n"
    "                          opcode (a TSV table of time by HLO opcode)\n"
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
    "  -h, --help              this text\n"
    "  -V, --version           the version\n" };

struct opts {
	struct fold_opts fo;
	const char *hlo, *modules, *stackframes;
	int verbose, diff, normalize;
};

static void
parse_by(const char *arg, struct fold_opts *o)
{
	if (strcmp(arg, "source") == 0)
		o->by = FOLD_SOURCE;
	else if (strcmp(arg, "op_name") == 0)
		o->by = FOLD_OP_NAME;
	else if (strcmp(arg, "opcode") == 0)
		o->by = FOLD_OPCODE;
	else
		opt_usage(&tool, "unknown --by '%s'", arg);
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

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "diff", no_argument, NULL, 'd' },
		{ "hlo", required_argument, NULL, 'H' },
		{ "modules", required_argument, NULL, 'M' },
		{ "normalize", no_argument, NULL, 'n' },
		{ "stackframes", required_argument, NULL, 'S' },
		{ "top", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = opt_next(argc, argv, ":H:M:S:b:dhnt:u:vV", longopts,
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
		case 't':
			o->fo.top = parse_top(optarg);
			break;
		case 'u':
			o->fo.unit_ns = parse_unit(optarg);
			break;
		case 'v':
			o->verbose = 1;
			break;
		}
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
	if (o->fo.by == FOLD_SOURCE && o->stackframes == NULL)
		opt_usage(&tool, "--by source needs -S stackframes");
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
static void
report(const struct fold_totals *t, int verbose)
{
	char a[32], b[32], c[32];

	tsv_fmt_ms(a, t->thunks_ns);
	tsv_fmt_ms(b, t->modules_ns);
	tsv_fmt_ms(c, t->wall_ns);
	if (verbose)
		err_warn("%zu of %zu modules selected; thunks %s ms, "
		    "modules %s ms, wall %s ms", t->ntop, t->nprograms, a,
		    t->have_modules ? b : "-", t->have_modules ? c : "-");
	if (t->nunknown > 0)
		err_warn("%zu instruction%s with no hlo row: "
		    "[GPU active];[Unknown]", t->nunknown,
		    t->nunknown == 1 ? "" : "s");
	if (verbose && t->ninconsistent > 0)
		err_warn("%zu instruction%s whose hlo rows disagree: "
		    "[inconsistent metadata]", t->ninconsistent,
		    t->ninconsistent == 1 ? "" : "s");
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

int
main(int argc, char *argv[])
{
	struct opts o = { { FOLD_SOURCE, 0.99, 1000 }, NULL, NULL, NULL, 0, 0,
	    0 };
	struct tsv_writer *w;
	struct filter *in;
	struct fold *f;
	int rc;

	parse(argc, argv, &o);
	if (o.diff)
		return diff(argv[optind], argv[optind + 1], o.normalize);
	f = fold_new(&o.fo);
	if (o.fo.by == FOLD_SOURCE)
		load(f, o.stackframes, fold_load_stackframes);
	load(f, o.hlo, fold_load_hlo);
	if (o.modules != NULL)
		load(f, o.modules, fold_load_modules);
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL ||
	    fold_read_thunks(f, in) != 0 || fold_finish(f) != 0)
		err_die_last();
	if (o.fo.by == FOLD_OPCODE) {
		w = tsv_wopen(stdout, "<stdout>");
		rc = fold_write_opcodes(f, w);
		if (tsv_wclose(w) != 0 || rc != 0)
			err_die_last();
	} else if (fold_write_folded(f, stdout, "<stdout>") != 0)
		err_die_last();
	report(fold_totals(f), o.verbose);
	filter_close(in);
	fold_free(f);
	return 0;
}
