/*
 * nsysjax-align reads a thunk, communication or module frame and
 * subtracts from ProjStartMs of every row its device's clock offset,
 * estimated from the end times of the largest collectives or read from a
 * corrections table written by an earlier run.
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
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-align [-h] [-a table | [-o table] [-s skews]] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -a, --apply=TABLE        apply the corrections of TABLE (streaming)\n"
    "  -o, --corrections=TABLE  also write the corrections estimated to TABLE\n"
    "  -s, --skews=FILE         also write the skews behind them to FILE\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version\n" };

/* align_table_read for opt_read. */
static int
read_table(FILE *fp, const char *path, void *t)
{
	return align_table_read(fp, path, t);
}

static int
table_cb(struct tsv_writer *w, void *t)
{
	return align_table_write(w, t);
}

static int
skews_cb(struct tsv_writer *w, void *r)
{
	return align_write_skews(r, w);
}

/* Flush the output, then die with the message of the failure before. */
static _Noreturn void
die_after(struct tsv_writer *w)
{
	char *msg = mem_strdup(err_msg());

	(void)tsv_wclose(w);
	err_die("%s", msg);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "apply", required_argument, NULL, 'a' },
		{ "corrections", required_argument, NULL, 'o' },
		{ "skews", required_argument, NULL, 's' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	const char *apply = NULL, *out = NULL, *skews = NULL;
	struct align_table t = { 0 };
	struct align_run *r;
	struct tsv_writer *w;
	struct filter *in;
	int c;

	while ((c = opt_next(argc, argv, ":a:ho:s:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'a':
			apply = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			skews = optarg;
			break;
		}
	}
	if (apply && (out || skews))
		opt_usage(&tool, "-a and -%c exclude each other",
		    out ? 'o' : 's');
	if (apply)
		opt_read(apply, read_table, &t);
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL)
		err_die_last();
	r = align_run_new();
	w = tsv_wopen(stdout, "<stdout>");
	if (apply) {
		if (align_apply(r, in, w, &t) != 0)
			die_after(w);
		align_report(r, apply);
	} else {
		if (skews)
			align_keep_skews(r);
		if (align_read(r, in) != 0)
			err_die_last();
		/* Whole files or none (outfile.h). */
		if (out && outfile_tsv(out, table_cb,
		    (void *)align_result(r)) != 0)
			err_die_last();
		if (skews && outfile_tsv(skews, skews_cb, r) != 0)
			err_die_last();
		align_report(r, NULL);
		if (align_write(r, w) != 0)
			die_after(w);
	}
	if (tsv_wclose(w) != 0)
		err_die_last();
	align_run_free(r);
	align_table_free(&t);
	filter_close(in);
	return 0;
}
