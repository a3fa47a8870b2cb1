/*
 * nsysjax-stats reads the thunk rows of a steady state (nsysjax-warmup's
 * output) with its module frame and writes the statistics the pipelines
 * report: the thunk table and runtime totals of the top modules, the
 * module table with its waits, the thunks whose duration varies, the
 * per-device biases of the top modules (stragglers), the PGLE costs, the
 * command buffers and the report's facts per module (with the compile
 * frame); lib/analysis/stats.h has the rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/filter.h"
#include "analysis/spmd.h"
#include "analysis/stats.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-stats [-hi] -t table[,...] [-M modules] [-m modules]\n"
    "    [-H hlo] [-C compile] [-o dir] [-r ratio] [-T fraction] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -t, --table=LIST       the tables to write, separated by commas:\n"
    "                         thunks, totals, modules, variability,\n"
    "                         stragglers, costs, scatter, offsets,\n"
    "                         cmdbufs, facts, xla-program-ids,\n"
    "                         compile-profiles, late\n"
    "  -M, --modules=FILE     the steady module frame (thunks, totals,\n"
    "                         modules, stragglers, offsets, facts, late)\n"
    "  -H, --hlo=FILE         the hlo frame of nsysjax-extract (costs)\n"
    "  -C, --compile=FILE     the compile frame of nsysjax-extract\n"
    "                         (facts, xla-program-ids, compile-profiles)\n"
    "  -m, --join=FILE        stragglers, late: the module frame; join the\n"
    "                         ProgramIds of one SPMD step (same module name\n"
    "                         and collectives, other devices) into one\n"
    "                         module for the biases (the reference does not\n"
    "                         join)\n"
    "  -o, --output=DIR       write each table to DIR/TABLE.tsv (needed\n"
    "                         for more than one table; else stdout)\n"
    "  -r, --ratio=R          variability: StdMs / MeanMs above R\n"
    "                         (default 0.1)\n"
    "  -T, --top=FRACTION     top modules up to this share of the module\n"
    "                         time (default 0.99; 1: all)\n"
    "  -i, --instruction-names  costs: the instruction's Name where its\n"
    "                         SchedulingName is empty\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

struct opts {
	struct stats_opts so;
	const char *modules, *hlo, *compile, *dir, *join;
};

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "compile", required_argument, NULL, 'C' },
		{ "hlo", required_argument, NULL, 'H' },
		{ "instruction-names", no_argument, NULL, 'i' },
		{ "join", required_argument, NULL, 'm' },
		{ "modules", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "ratio", required_argument, NULL, 'r' },
		{ "table", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'T' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = opt_next(argc, argv, ":C:H:M:T:him:o:r:t:V", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'C':
			o->compile = optarg;
			break;
		case 'H':
			o->hlo = optarg;
			break;
		case 'M':
			o->modules = optarg;
			break;
		case 'T':
			o->so.top = opt_f64(&tool, "--top", optarg, 0, 1);
			if (o->so.top == 0)
				opt_usage(&tool, "--top '%s': not above 0",
				    optarg);
			break;
		case 'i':
			o->so.fallback = 1;
			break;
		case 'm':
			o->join = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 'r':
			o->so.ratio = opt_f64(&tool, "--ratio", optarg, 0, 1e300);
			break;
		case 't':
			o->so.tables |= opt_bits(&tool, "table", optarg,
			    stats_table_parse);
			break;
		}
	}
	if (o->so.tables == 0)
		opt_usage(&tool, "no table: -t table");
	if (stats_needs_modules(o->so.tables) && o->modules == NULL)
		opt_usage(&tool, "the tables asked for need the module "
		    "frame: -M file");
	if (stats_needs_hlo(o->so.tables) && o->hlo == NULL)
		opt_usage(&tool, "the costs need the hlo frame: -H file");
	if (stats_needs_compile(o->so.tables) && o->compile == NULL)
		opt_usage(&tool, "the tables asked for need the compile "
		    "frame: -C file");
	if (o->join != NULL && !(o->so.tables & (STATS_BIT(STATS_STRAGGLERS) |
	    STATS_BIT(STATS_LATE))))
		opt_usage(&tool, "-m: only the stragglers and late tables join: "
		    "-t stragglers or -t late");
	if ((o->so.tables & (o->so.tables - 1)) != 0 && o->dir == NULL)
		opt_usage(&tool, "more than one table: -o dir");
}

/* The join's module frame into the scanner, as nsysjax-collectives. */
static int
read_join(FILE *fp, const char *path, void *scan)
{
	struct tsv_reader *r = tsv_ropen(fp, path);
	int rc = r == NULL ? -1 : coll_load_modules(r, scan);

	tsv_rclose(r);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct opts o = { { 0, 0.1, STATS_TOP, 0 }, NULL, NULL, NULL, NULL,
	    NULL };
	struct err_notes notes = { 0 };
	struct spmd_scan *scan = NULL;
	struct filter *in;
	struct stats *s;

	parse(argc, argv, &o);
	s = stats_new(&o.so);
	if (o.join != NULL) {
		scan = spmd_scan_new();
		opt_read(o.join, read_join, scan);
		stats_join(s, scan, &notes);
	}
	if (o.modules && stats_load_modules(s, o.modules) != 0)
		err_die_last();
	if (o.hlo && stats_needs_hlo(o.so.tables) &&
	    filter_load(o.hlo, stats_load_hlo, s) != 0)
		err_die_last();
	if (o.compile && stats_needs_compile(o.so.tables) &&
	    filter_load(o.compile, stats_load_compile, s) != 0)
		err_die_last();
	/* The compile frame's tables alone read no thunk rows. */
	if (stats_needs_rows(o.so.tables)) {
		in = filter_open(argv + optind, (size_t)(argc - optind));
		if (in == NULL || stats_read(s, in) != 0)
			err_die_last();
		filter_close(in);
	}
	err_notes_print(&notes);
	err_notes_free(&notes);
	/* -o DIR is made when missing, as the man page's example expects. */
	if (outfile_tables(o.dir, "", o.so.tables, STATS_NTABLES,
	    stats_table_name, stats_write, s) != 0)
		err_die_last();
	stats_free(s);
	spmd_scan_free(scan);
	return 0;
}
