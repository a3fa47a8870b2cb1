/*
 * nsysjax-collectives reads a thunk or communication frame and adds the
 * nccl-tests algorithm and bus bandwidth of every communication thunk,
 * or prints the bandwidth and hidden-time summaries of the reference's
 * analyses/communication.py.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "base/err.h"
#include "analysis/filter.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-collectives [-dh] [-s bandwidth | hidden | waits] [file ...]";

static _Noreturn void
help(void)
{
	printf("%s\n\n"
	    "  -d, --drop-compute     write communication rows only\n"
	    "  -s, --summary=TABLE    write a summary instead of rows:\n"
	    "                         bandwidth (bus bandwidth per collective and\n"
	    "                         message size), hidden (hidden time) or\n"
	    "                         waits (wait per collective instance)\n"
	    "  -h, --help             this text\n", usage_line);
	exit(0);
}

static enum coll_mode
summary_mode(const char *arg)
{
	if (strcmp(arg, "bandwidth") == 0)
		return COLL_BANDWIDTH;
	if (strcmp(arg, "hidden") == 0)
		return COLL_HIDDEN;
	if (strcmp(arg, "waits") == 0)
		return COLL_WAITS;
	err_usage(usage_line, "unknown summary '%s'", arg);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "drop-compute", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "summary", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	enum coll_mode mode = COLL_ROWS;
	struct filter *in;
	struct tsv_writer *w;
	int c, rc;

	err_setprog(argv[0]);
	opterr = 0;	/* one message per problem: ours */
	while ((c = getopt_long(argc, argv, ":dhs:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (mode == COLL_ROWS)
				mode = COLL_COMM_ROWS;
			break;
		case 'h':
			help();
		case 's':
			mode = summary_mode(optarg);
			break;
		case ':':
			err_usage(usage_line, "option '%s' needs an argument",
			    argv[optind - 1]);
		default:
			err_usage(usage_line, "unknown option '%s'",
			    argv[optind - 1]);
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
