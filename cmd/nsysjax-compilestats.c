/*
 * nsysjax-compilestats reads a compile frame, or nvtx_pushpop_trace
 * reports, and writes where XLA compilation time went: the reference's
 * parallel-compilation-aware statistics, its notebook summary, the tables
 * of analyses/summary.py, or a breakdown of each compilation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compilestats.h"
#include "formats/archive.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/tsv.h"
#include "profile/compile.h"
#include "profile/input.h"

static const char usage_line[] =
    "usage: nsysjax-compilestats [-cghk] [-f fraction] [-n names] [-p] "
    "[-t list [-o dir]] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -t, --table=LIST       the tables to write, separated by commas:\n"
    "                         stats (default), summary, ranges,\n"
    "                         no-pass-detail, passes, compilations\n"
    "  -o, --output=DIR       write each table to DIR/TABLE.tsv (needed\n"
    "                         for more than one table; else stdout)\n"
    "  -f, --top=FRACTION     only the largest rows adding up to at\n"
    "                         most FRACTION of the total (0.97: the\n"
    "                         notebook's summary)\n"
    "  -c, --clean            clean names as the notebook does\n"
    "  -g, --group-passes     XlaPass:# -> XlaPasses, XlaPassPipeline:#\n"
    "                         -> XlaPassPipelines\n"
    "  -p, --pushpop          inputs are nsys stats nvtx_pushpop_trace\n"
    "                         reports (.csv, .csv.xz, .parquet) or nsys\n"
    "                         SQLite exports (.sqlite)\n"
    "  -n, --names=A,B,...    with -p: ProfileName of each input\n"
    "  -k, --keep-autotuning  with -p: keep autotuner detail\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

/* The tables by name, in the order -o writes them. */
static const struct {
	const char *name;
	enum cstats_table t;
} tab[] = {
	{ "stats", CSTATS_STATS }, { "summary", CSTATS_SUMMARY },
	{ "ranges", CSTATS_RANGES }, { "no-pass-detail", CSTATS_NOPASS },
	{ "passes", CSTATS_PASSES },
	{ "compilations", CSTATS_COMPILATIONS }
};
#define NTAB (sizeof(tab) / sizeof(tab[0]))

static int
table_parse(const char *arg)
{
	size_t i;

	for (i = 0; i < NTAB; i++)
		if (strcmp(arg, tab[i].name) == 0)
			return (int)i;
	return -1;
}

/* The index in tab of table T. */
static size_t
table_parse_enum(enum cstats_table t)
{
	size_t i;

	for (i = 0; i < NTAB && tab[i].t != t; i++)
		;
	return i;
}

/* One table for outfile_tsv. */
struct table_job {
	struct cstats *s;
	const struct cstats_opts *o;
};

static int
table_cb(struct tsv_writer *w, void *arg)
{
	const struct table_job *j = arg;

	return cstats_write(j->s, w, j->o);
}

/* The rows of F, a compile frame built from the report SRC, into S. */
static void
add_frame(struct cstats *s, const struct compile_frame *f, const char *src)
{
	size_t i;

	for (i = 0; i < f->nrows; i++) {
		const struct compile_row *c = &f->rows[i];
		struct cstats_range x = {
			.profile = f->profiles[c->profile],
			.range_id = c->range_id, .name = c->name,
			.tid = c->tid, .parent_id = c->parent_id,
			.range_stack = c->range_stack,
			.start = c->start, .dur = c->dur,
			.dur_child = c->dur_child,
			.dur_nonchild = c->dur_nonchild,
			.child_nan = c->child_nan,
			.program_id = c->program_id,
			.program_name = c->program_name, .src = src
		};

		cstats_add(s, &x);
	}
}

/* The N reports FILES, named by the comma-separated NAMES or their paths. */
static void
load_reports(struct cstats *s, char *const *files, size_t n,
    const char *names, int flags)
{
	static char *const std[] = { "-" };
	const char *p = names;
	size_t k, count = 1;

	if (n == 0) {
		files = std;
		n = 1;
	}
	for (k = 0; names != NULL && names[k] != '\0'; k++)
		count += names[k] == ',';
	if (names != NULL && count != n)
		opt_usage(&tool, "-n gives %zu names for %zu inputs",
		    count, n);
	for (k = 0; k < n; k++) {
		struct compile_frame f = { 0 };
		char *name;

		if (names != NULL) {
			size_t len = strcspn(p, ",");

			name = mem_strndup(p, len);
			p += len + 1;
		} else
			name = input_name(files[k]);
		if (compile_load_report(&f, files[k], name, flags) != 0)
			err_die_last();
		add_frame(s, &f, strcmp(files[k], "-") ? files[k] : "<stdin>");
		compile_free(&f);
		/* One profile at a time (cstats_stream): fold this one. */
		if (cstats_attribute(s) != 0)
			err_die_last();
		free(name);
	}
}

static void
load_frames(struct cstats *s, char *const *files, size_t n)
{
	struct filter *in;

	if ((in = filter_open(files, n)) == NULL || cstats_read(s, in) != 0)
		err_die_last();
	filter_close(in);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "clean", no_argument, NULL, 'c' },
		{ "group-passes", no_argument, NULL, 'g' },
		{ "keep-autotuning", no_argument, NULL, 'k' },
		{ "names", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "pushpop", no_argument, NULL, 'p' },
		{ "table", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'f' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct cstats_opts o = { CSTATS_STATS, 0, 1 }, to[NTAB];
	const char *names = NULL, *dir = NULL;
	int c, pushpop = 0, keep = 0;
	unsigned tables = 0;
	size_t i, nt = 0;
	struct tsv_writer *w;
	struct cstats *s;

	archive_quiet_tz();	/* before any thread */
	while ((c = opt_next(argc, argv, ":cf:ghkn:o:pt:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'c':
			o.flags |= CSTATS_CLEAN;
			break;
		case 'f':
			o.top = opt_f64(&tool, "-f", optarg, 0, 1);
			break;
		case 'g':
			o.flags |= CSTATS_GROUP;
			break;
		case 'k':
			keep = 1;
			break;
		case 'n':
			names = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'p':
			pushpop = 1;
			break;
		case 't':
			tables |= opt_bits(&tool, "table", optarg, table_parse);
			break;
		}
	}
	if (!pushpop && (keep || names != NULL))
		opt_usage(&tool, "-k and -n go with -p");
	if (tables == 0)
		tables = 1u << table_parse_enum(CSTATS_STATS);
	for (i = 0; i < NTAB; i++)
		if (tables & (1u << i)) {
			to[nt] = o;
			to[nt++].table = tab[i].t;
		}
	if (nt > 1 && dir == NULL)
		opt_usage(&tool, "more than one table needs -o");
	if ((tables & (1u << table_parse_enum(CSTATS_COMPILATIONS))) && nt > 1)
		opt_usage(&tool, "the compilations table goes alone");
	if ((tables & (1u << table_parse_enum(CSTATS_PASSES))) &&
	    (o.flags & CSTATS_GROUP))
		opt_usage(&tool, "-g leaves no passes for -t passes");
	s = cstats_new();
	/* Memory: the largest profile, not all of them; every table
	 * folded from one attribution. */
	if (cstats_stream_tables(s, to, nt) != 0)
		err_die_last();
	if (pushpop)
		load_reports(s, argv + optind, (size_t)(argc - optind), names,
		    keep ? 0 : COMPILE_CLEAN);
	else
		load_frames(s, argv + optind, (size_t)(argc - optind));
	if (cstats_attribute(s) != 0)
		err_die_last();
	/* -o DIR is made when missing, as nsysjax-stats does. */
	if (dir && outfile_mkdirs(dir) != 0)
		err_die_last();
	for (i = 0; i < nt; i++) {
		if (dir) {
			struct table_job j = { s, &to[i] };
			const char *name = tab[table_parse_enum(to[i].table)].name;

			if (outfile_table(dir, name, table_cb, &j) != 0)
				err_die_last();
			continue;
		}
		w = tsv_wopen(stdout, "<stdout>");
		if (cstats_write(s, w, &to[i]) != 0 || tsv_wclose(w) != 0)
			err_die_last();
	}
	cstats_free(s);
	return 0;
}
