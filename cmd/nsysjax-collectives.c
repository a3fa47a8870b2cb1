/*
 * nsysjax-collectives reads a thunk or communication frame and adds the
 * nccl-tests algorithm and bus bandwidth of every communication thunk,
 * or prints the bandwidth and hidden-time summaries of the reference's
 * analyses/communication.py and the wait per collective instance (several
 * from one pass with -o); with -m, ProgramIds that are one SPMD step
 * (lib/analysis/spmd.h) are joined into one instance per collective.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/filter.h"
#include "analysis/spmd.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-collectives [-dh] [-s table[,table...] [-o dir] "
    "[-m module-frame]]\n           [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -d, --drop-compute     write communication rows only\n"
    "  -s, --summary=LIST     write summaries instead of rows, separated\n"
    "                         by commas: bandwidth (bus bandwidth per\n"
    "                         collective and message size), hidden\n"
    "                         (hidden time), waits (wait per collective\n"
    "                         instance)\n"
    "  -o, --output=DIR       write each summary to DIR/TABLE.tsv (needed\n"
    "                         for more than one; else stdout)\n"
    "  -m, --modules=FILE     the module frame: join the ProgramIds of one\n"
    "                         SPMD step (same module name and collectives,\n"
    "                         other devices) into one instance per\n"
    "                         collective (the reference does not join)\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

/* The summaries, in the order of enum coll_mode from COLL_BANDWIDTH. */
static const char *const summaries[] = { "bandwidth", "hidden", "waits" };
#define NSUMMARIES 3

static int
summary_parse(const char *name)
{
	return opt_index(name, summaries, NSUMMARIES);
}

struct table_job {
	const struct coll_summary *s;
	int t;
};

static int
write_table(struct tsv_writer *w, void *arg)
{
	const struct table_job *j = arg;

	return j->t == 0 ? coll_summary_bandwidth(j->s, w) :
	    j->t == 1 ? coll_summary_hidden(j->s, w) :
	    coll_summary_waits(j->s, w);
}

static int
read_modules(FILE *fp, const char *path, void *scan)
{
	struct tsv_reader *r = tsv_ropen(fp, path);
	int rc = r == NULL ? -1 : coll_load_modules(r, scan);

	tsv_rclose(r);
	return rc;
}

/* The summaries of IN (the join's SCAN, or NULL), and the notes: the
 * join's, and with the waits (bit 2 of TABLES) the instances short of
 * devices. */
static struct coll_summary *
summarize(struct filter *in, struct spmd_scan *scan, unsigned tables)
{
	struct err_notes notes = { 0 };
	struct coll_summary *s;
	size_t n;

	if (coll_summarize(in, scan, &s, &notes) != 0)
		err_die_last();
	if ((tables & 4u) && (n = coll_summary_incomplete(s)) > 0)
		err_note(&notes, "%zu collective instances have fewer devices "
		    "than their CollectiveSize: their wait is over the devices "
		    "present%s", n, scan ? "" : " (-m joins the ProgramIds of "
		    "one SPMD step)");
	err_notes_print(&notes);
	err_notes_free(&notes);
	return s;
}

/* The summaries of TABLES (bits) from one pass over IN, each to
 * DIR/TABLE.tsv, whole or not at all (outfile.h), or the one to stdout
 * (DIR NULL). */
static void
write_tables(struct filter *in, struct spmd_scan *scan, unsigned tables,
    const char *dir)
{
	struct coll_summary *s = summarize(in, scan, tables);
	struct table_job j;
	struct tsv_writer *w;

	if (dir != NULL && outfile_mkdirs(dir) != 0)
		err_die_last();
	for (j.s = s, j.t = 0; j.t < NSUMMARIES; j.t++) {
		if (!(tables & (1u << j.t)))
			continue;
		if (dir != NULL) {
			if (outfile_table(dir, summaries[j.t], write_table,
			    &j) != 0)
				err_die_last();
			continue;
		}
		w = tsv_wopen(stdout, "<stdout>");
		if ((write_table(w, &j) != 0) | (tsv_wclose(w) != 0))
			err_die_last();
	}
	coll_summary_free(s);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "drop-compute", no_argument, NULL, 'd' },
		{ "modules", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "summary", required_argument, NULL, 's' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	enum coll_mode mode = COLL_ROWS;
	unsigned tables = 0;
	const char *dir = NULL, *modules = NULL;
	struct spmd_scan *scan = NULL;
	struct filter *in;
	struct tsv_writer *w;
	int c, rc, t;

	while ((c = opt_next(argc, argv, ":dhm:s:o:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'd':
			if (mode == COLL_ROWS)
				mode = COLL_COMM_ROWS;
			break;
		case 'm':
			modules = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 's':
			tables |= opt_bits(&tool, "summary", optarg,
			    summary_parse);
			break;
		}
	}
	if (dir != NULL && tables == 0)
		opt_usage(&tool, "-o: no summary (-s)");
	if (modules != NULL && tables == 0)
		opt_usage(&tool, "-m: no summary (-s): the rows' bandwidth "
		    "does not depend on the join");
	if ((tables & (tables - 1)) != 0 && dir == NULL)
		opt_usage(&tool, "more than one summary: -o dir");
	if (modules != NULL) {
		scan = spmd_scan_new();
		opt_read(modules, read_modules, scan);
	}
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL)
		err_die_last();
	if (tables != 0) {
		write_tables(in, scan, tables, dir);
		spmd_scan_free(scan);
		filter_close(in);
		return 0;
	}
	for (t = 0; t < NSUMMARIES; t++)
		if (tables & (1u << t))
			mode = (enum coll_mode)(COLL_BANDWIDTH + t);
	w = tsv_wopen(stdout, "<stdout>");
	rc = coll_run(in, w, mode);
	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
	filter_close(in);
	return 0;
}
