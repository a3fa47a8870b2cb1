/*
 * Tests of lib/profile/input's checks of the inputs as a whole, at scale:
 * 2000 profile directories (each nvtx_gpu_proj_trace/trace.parquet
 * holding its own name, which is all input_open reads of it) open in
 * input order, and one profile given twice is found among them; then the
 * other faults on a few inputs.  Nothing is timed: the checks were over
 * every pair of inputs (they sort now), 4e6 steps here, where files on a
 * loaded machine cost more; this is the check that sorting finds the
 * pair the pairwise search found.  A trace's identity is its size and
 * CRC-32 (3d72c540 for "p123", by Python's zlib.crc32).  The expected pairs are the planted
 * ones: the first input that has a later twin, with that twin.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "profile/input.h"
#include "unit.h"

#define N 2000

static char dir[] = "/tmp/input_test.XXXXXX";

/* DIR/NAME as a profile directory whose trace holds TEXT; its path. */
static char *
profile(const char *name, const char *text)
{
	char *p = malloc(strlen(dir) + strlen(name) + 64);
	FILE *fp;
	size_t n;

	sprintf(p, "%s/%s", dir, name);
	n = strlen(p);
	if (mkdir(p, 0755) != 0)
		abort();
	strcpy(p + n, "/nvtx_gpu_proj_trace");
	if (mkdir(p, 0755) != 0)
		abort();
	strcpy(p + n, "/nvtx_gpu_proj_trace/trace.parquet");
	if ((fp = fopen(p, "w")) == NULL || fputs(text, fp) < 0 ||
	    fclose(fp) != 0)
		abort();
	p[n] = '\0';
	return p;
}

/* input_open of PATHS[0..N): 0, or -1 with err_msg() WANT. */
static void
open_want(const char *const *paths, size_t n, const char *want)
{
	struct input_set s;
	char buf[2048];

	if (want == NULL) {
		CHECK_INT(input_open(paths, n, NULL, &s), 0);
	} else {
		CHECK_INT(input_open(paths, n, NULL, &s), -1);
		snprintf(buf, sizeof(buf), want, dir, dir);
		CHECK_STR(err_msg(), buf);
	}
	input_close(&s);
}

int
main(void)
{
	const char **paths = calloc(N + 1, sizeof(*paths));
	const char *few[4];
	struct input_set s;
	char name[32], *x, *q, *sl;
	size_t i, bad = 0;

	if (mkdtemp(dir) == NULL)
		abort();
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		paths[i] = profile(name, name);
	}
	/* All distinct: every profile, in input order, named after its
	 * directory. */
	CHECK_INT(input_open(paths, N, NULL, &s), 0);
	CHECK_INT(s.n, N);
	for (i = 0; i < s.n && i < N; i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		bad += strcmp(s.p[i].name, name) != 0 || s.p[i].path != paths[i];
	}
	CHECK_INT(bad, 0);
	input_close(&s);
	/* And s, p42 by a symbolic link, last: distinct names, one pair of
	 * inputs that are the same file. */
	sl = malloc(strlen(dir) + 8);
	sprintf(sl, "%s/s", dir);
	if (symlink("p42", sl) != 0)
		abort();
	paths[N] = sl;
	open_want(paths, N + 1, "%s/p42 and %s/s are the same file: give each "
	    "process's profile once");

	/* The other faults on a few inputs.  A second p7 (other bytes): the
	 * name clash of p7 and it. */
	x = malloc(strlen(dir) + 8);
	sprintf(x, "%s/x", dir);
	if (mkdir(x, 0755) != 0)
		abort();
	free(x);
	x = profile("x/p7", "another p7");
	few[0] = paths[3];
	few[1] = paths[7];
	few[2] = x;
	open_want(few, 3, "%s/p7 and %s/x/p7 both hold a profile named p7");
	/* q holds p123's bytes. */
	q = profile("q", "p123");
	few[0] = paths[123];
	few[1] = paths[5];
	few[2] = q;
	open_want(few, 3, "%s/p123 and %s/q hold the same profile (the "
	    "same trace: 4 bytes, CRC-32 3d72c540): give each process's "
	    "profile once");
	/* Both faults: the first input that has a later twin is reported,
	 * with its first twin. */
	few[0] = paths[42];
	few[1] = q;
	few[2] = paths[123];
	few[3] = sl;
	open_want(few, 4, "%s/p42 and %s/s are the same file: give each "
	    "process's profile once");
	few[0] = paths[123];
	few[1] = paths[42];
	few[2] = sl;
	few[3] = q;
	open_want(few, 4, "%s/p123 and %s/q hold the same profile (the "
	    "same trace: 4 bytes, CRC-32 3d72c540): give each process's "
	    "profile once");

	for (i = 0; i < N; i++)
		free((char *)paths[i]);
	free(q);
	free(x);
	free(sl);
	free(paths);
	snprintf(name, sizeof(name), "rm -rf %s", dir);
	if (system(name) != 0)
		abort();
	return unit_done("input_test");
}
