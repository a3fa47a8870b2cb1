/*
 * nsysjax-collectives reads a thunk or communication frame and adds the
 * nccl-tests algorithm and bus bandwidth of every communication thunk,
 * or prints the bandwidth and hidden-time summaries of the reference's
 * analyses/communication.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "base/err.h"
#include "base/opt.h"
#include "analysis/filter.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-collectives [-dh] [-s bandwidth | hidden | waits] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -d, --drop-compute     write communication rows only\n"
    "  -s, --summary=TABLE    write a summary instead of rows:\n"
    "                         bandwidth (bus bandwidth per collective and\n"
    "                         message size), hidden (hidden time) or\n"
    "                         waits (wait per collective instance)\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

static enum coll_mode
summary_mode(const char *arg)
{
	if (strcmp(arg, "bandwidth") == 0)
		return COLL_BANDWIDTH;
	if (strcmp(arg, "hidden") == 0)
		return COLL_HIDDEN;
	if (strcmp(arg, "waits") == 0)
		return COLL_WAITS;
	opt_usage(&tool, "unknown summary '%s'", arg);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "drop-compute", no_argument, NULL, 'd' },
		{ "summary", required_argument, NULL, 's' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	enum coll_mode mode = COLL_ROWS;
	struct filter *in;
	struct tsv_writer *w;
	int c, rc;

	while ((c = opt_next(argc, argv, ":dhs:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'd':
			if (mode == COLL_ROWS)
				mode = COLL_COMM_ROWS;
			break;
		case 's':
			mode = summary_mode(optarg);
			break;
		}
	}
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL)
		err_die_last();
	w = tsv_wopen(stdout, "<stdout>");
	rc = coll_run(in, w, mode);
	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
	filter_close(in);
	return 0;
}
