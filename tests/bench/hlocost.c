/*
 * The cost of costing, for make bench: every after-optimizations HLO dump
 * of the given archives decoded (hlo_load, which keeps the cost facts) and
 * every instruction costed (hlocost_inst), with the time of each step.
 * Prints the instructions, the FLOPs and matmul FLOPs of all, the
 * instructions that cannot be costed and the seconds of each step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "formats/archive.h"
#include "formats/hlo.h"
#include "formats/hlocost.h"

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int
main(int argc, char *argv[])
{
	double load = 0, costing = 0, t;
	unsigned long long n = 0, unknown = 0, flops = 0, mm = 0;
	struct hlo_module *m;
	struct hlocost_ctx *c;
	struct archive *a;
	struct hlocost k;
	uint8_t *data;
	size_t len, i, j;
	const char *name;
	int arg;

	err_setprog(argv[0]);
	for (arg = 1; arg < argc; arg++) {
		if ((a = archive_open(argv[arg])) == NULL)
			err_die("%s: %s", argv[arg], err_msg());
		for (i = 0; i < archive_count(a); i++) {
			name = archive_name(a, i);
			if (strncmp(name, "dump/", 5) != 0 ||
			    strstr(name, "after_optimizations.hlo.pb") == NULL)
				continue;
			if (archive_read_plain(a, name, &data, &len) != 0)
				err_die("%s: %s", argv[arg], err_msg());
			t = now();
			m = hlo_load(data, len);
			load += now() - t;
			free(data);
			if (m == NULL)
				err_die("%s: %s: %s", argv[arg], name, err_msg());
			t = now();
			c = hlocost_new(m);
			for (j = 0; j < hlo_count(m); j++) {
				hlocost_inst(c, j, &k);
				n++;
				unknown += !k.known;
				flops += k.flops;
				mm += k.matmul_flops;
			}
			hlocost_free(c);
			costing += now() - t;
			hlo_free(m);
		}
		archive_close(a);
	}
	printf("%llu instructions (%llu not costable), %llu FLOP, %llu matmul "
	    "FLOP; hlo_load %.3f s, costing every instruction %.3f s\n", n,
	    unknown, flops, mm, load, costing);
	return 0;
}
