/*
 * nsysjax-diff compares two runs: two thunk (or two module) frames, BEFORE
 * and AFTER, matched by module and thunk name, with per-item statistics,
 * a significance test adjusted for multiple testing, each item's share of
 * the total change, and a regression gate for CI (exit 3; exit 4 when the
 * gate found none but could not have: too few executions).  The rules are
 * in lib/analysis/diff.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/filter.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-diff [-Bhqs] [-A holm|bh] [-a file] [-b file] [-c column]"
    " [-f fraction]\n"
    "           [-k thunk|op_name|source] [-m ms] [-P file] [-p level]"
    " [-t percent]\n"
    "           before after";

static const struct opt_tool tool = { usage_line,
    "  -b, --before=FILE    a side table of BEFORE: its module or compile\n"
    "                       frame (module names, to match modules whose\n"
    "                       fingerprint changed), hlo frame (-k op_name,\n"
    "                       source), stackframes frame (-k source),\n"
    "                       cmdbufs table (what its command buffers hold);\n"
    "                       may be repeated\n"
    "  -a, --after=FILE     the same for AFTER\n"
    "  -k, --key=KEY        items: thunk (module, thunk name; default),\n"
    "                       op_name or source (innermost Python frame)\n"
    "  -c, --column=NAME    the duration column, in ms (default ProjDurMs)\n"
    "  -s, --summary        write the module table, not the item table\n"
    "  -P, --pairs=FILE     write the command buffers paired with their\n"
    "                       operations, and those operations, to FILE\n"
    "  -q, --quiet          no summary on stderr\n"
    "  -f, --min-share=F    test only items (and modules) making at least\n"
    "                       this fraction of both runs' time (default\n"
    "                       0.001)\n"
    "  -A, --adjust=METHOD  p-value adjustment: holm (default) or bh\n"
    "                       (Benjamini-Hochberg)\n"
    "  -p, --alpha=LEVEL    significance level (default 0.05)\n"
    "  -t, --threshold=PCT  gate: exit 3 when an item, a module or the\n"
    "                       total is slower by more than PCT percent and\n"
    "                       significant; else exit 4 when a test had too\n"
    "                       few executions to be significant\n"
    "  -B, --barriers       count barriers (modules whose time is mostly\n"
    "                       collective wait) in the total, the tests and\n"
    "                       the gate, as any module\n"
    "  -m, --min-ms=MS      gate: ignore items and modules contributing\n"
    "                       less than MS ms (default 0)\n"
    "  -h, --help           this text\n"
    "  -V, --version        the version\n" };

struct opts {
	struct diff_opts o;
	const char *side[2][64];
	size_t nside[2];
	int summary, quiet;
	const char *pairs;
};

static void
side(struct opts *o, int run, const char *path)
{
	if (o->nside[run] == sizeof o->side[run] / sizeof o->side[run][0])
		opt_usage(&tool, "too many side tables");
	o->side[run][o->nside[run]++] = path;
}

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "adjust", required_argument, NULL, 'A' },
		{ "after", required_argument, NULL, 'a' },
		{ "alpha", required_argument, NULL, 'p' },
		{ "barriers", no_argument, NULL, 'B' },
		{ "before", required_argument, NULL, 'b' },
		{ "column", required_argument, NULL, 'c' },
		{ "min-share", required_argument, NULL, 'f' },
		{ "key", required_argument, NULL, 'k' },
		{ "min-ms", required_argument, NULL, 'm' },
		{ "pairs", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "summary", no_argument, NULL, 's' },
		{ "threshold", required_argument, NULL, 't' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = opt_next(argc, argv, ":A:Ba:b:c:f:hk:m:P:p:qst:V", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'A':
			if (strcmp(optarg, "holm") == 0)
				o->o.adjust = SIGTEST_HOLM;
			else if (strcmp(optarg, "bh") == 0)
				o->o.adjust = SIGTEST_BH;
			else
				opt_usage(&tool, "unknown --adjust '%s' "
				    "(holm or bh)", optarg);
			break;
		case 'a':
			side(o, 1, optarg);
			break;
		case 'B':
			o->o.barriers = 1;
			break;
		case 'b':
			side(o, 0, optarg);
			break;
		case 'c':
			o->o.column = optarg;
			break;
		case 'f':
			o->o.min_share = opt_f64(&tool, "--min-share", optarg,
			    0, 1);
			break;
		case 'k':
			if (strcmp(optarg, "thunk") == 0)
				o->o.key = DIFF_KEY_THUNK;
			else if (strcmp(optarg, "op_name") == 0)
				o->o.key = DIFF_KEY_OP_NAME;
			else if (strcmp(optarg, "source") == 0)
				o->o.key = DIFF_KEY_SOURCE;
			else
				opt_usage(&tool, "unknown --key '%s' "
				    "(thunk, op_name or source)", optarg);
			break;
		case 'm':
			o->o.min_ms = opt_f64(&tool, "--min-ms", optarg, 0,
			    1e15);
			break;
		case 'P':
			o->pairs = optarg;
			break;
		case 'p':
			o->o.alpha = opt_f64(&tool, "--alpha", optarg, 0, 1);
			if (o->o.alpha == 0 || o->o.alpha == 1)
				opt_usage(&tool, "--alpha '%s': not a level in "
				    "(0, 1)", optarg);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 's':
			o->summary = 1;
			break;
		case 't':
			o->o.threshold = opt_f64(&tool, "--threshold", optarg,
			    0, 1e15);
			break;
		}
	}
	if (argc - optind != 2)
		opt_usage(&tool, "two frames are needed: before after");
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		opt_usage(&tool, "only one of the frames can be stdin");
}

static int
write_pairs(struct tsv_writer *w, void *d)
{
	return diff_write_pairs(d, w);
}

struct ctx {
	struct diff *d;
	int run;
};

static int
load_side(struct tsv_reader *r, void *arg)
{
	struct ctx *c = arg;

	return diff_load_side(c->d, c->run, r);
}

static int
load_frame(struct tsv_reader *r, void *arg)
{
	struct ctx *c = arg;

	return diff_read(c->d, c->run, r);
}

/* Read FILE ("-": standard input) with FN. */
static void
load(const char *file, int (*fn)(struct tsv_reader *, void *), struct ctx *c)
{
	struct tsv_reader *r;

	if (strcmp(file, "-") != 0) {
		if (filter_load(file, fn, c) != 0)
			err_die_last();
		return;
	}
	if ((r = tsv_ropen(stdin, "<stdin>")) == NULL || fn(r, c) != 0)
		err_die_last();
	tsv_rclose(r);
}

int
main(int argc, char *argv[])
{
	struct opts o = { { DIFF_KEY_THUNK, "ProjDurMs", SIGTEST_HOLM, 0.05, -1,
	    0, 0.001, 0 }, { { 0 } }, { 0, 0 }, 0, 0, NULL };
	struct tsv_writer *w;
	struct ctx c;
	size_t i;
	int rc;

	parse(argc, argv, &o);
	c.d = diff_new(&o.o);
	for (c.run = 0; c.run < 2; c.run++) {
		for (i = 0; i < o.nside[c.run]; i++)
			load(o.side[c.run][i], load_side, &c);
		load(argv[optind + c.run], load_frame, &c);
	}
	if (diff_finish(c.d) != 0)
		err_die_last();
	w = tsv_wopen(stdout, "<stdout>");
	rc = o.summary ? diff_write_summary(c.d, w) : diff_write_items(c.d, w);
	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
	if (fflush(stdout) != 0)
		err_die("<stdout>: write error:");
	if (o.pairs && outfile_tsv(o.pairs, write_pairs, c.d) != 0)
		err_die_last();
	if (!o.quiet && diff_report(c.d, stderr, 10) != 0)
		err_die("<stderr>: write error:");
	/* 3: a regression; 4: none found, but some test could not have
	 * found one (too few executions): a CI tells them apart. */
	rc = diff_regressed(c.d) ? 3 : diff_powerless(c.d) ? 4 : 0;
	diff_free(c.d);
	return rc;
}
