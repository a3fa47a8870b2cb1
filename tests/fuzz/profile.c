/*
 * Fuzz target: a whole extraction (extract_load, every frame written) of
 * an nsys-jax profile laid out as a directory, whose members come from
 * the input: up to four parts separated by the line NSYSJAX-MEMBER are
 * the trace, the thread metadata, the push/pop CSV and one HLO dump
 * (program 1); a part left out is a missing member.  Where the archive
 * target meets zip CRCs, this one reaches the frame building: modules,
 * thunks, devices, communication facts, compile frame, hlo rows.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/extract.h"
#include "fuzz.h"
#include "base/tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define SEP	"\nNSYSJAX-MEMBER\n"
#define NMEMBER	4

static const char *const member[NMEMBER] = {
	"nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet",
	"report_nvtx_pushpop_trace.csv",
	"dump/module_0001.jit_f.sm_90_gpu_after_optimizations.hlo.pb"
};
static char dir[64];

static void
cleanup(void)
{
	char path[256];
	size_t i;

	for (i = 0; i < NMEMBER; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, member[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/nvtx_gpu_proj_trace", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dump", dir);
	rmdir(path);
	rmdir(dir);
}

static void
make_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[256];

	snprintf(dir, sizeof(dir), "%.40s/nsysjax-fuzz.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		abort();
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/nvtx_gpu_proj_trace", dir);
	if (mkdir(path, 0700) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/dump", dir);
	if (mkdir(path, 0700) != 0)
		abort();
}

/* The first SEP in P[0..N), or NULL (memmem is not POSIX). */
static const uint8_t *
find_sep(const uint8_t *p, size_t n)
{
	size_t k = strlen(SEP);
	const uint8_t *q;

	for (q = p; (q = memchr(q, SEP[0], n - (size_t)(q - p))) != NULL; q++)
		if (n - (size_t)(q - p) >= k && memcmp(q, SEP, k) == 0)
			return q;
	return NULL;
}

/* Member I holds P[0..N), or is missing when P is NULL. */
static void
put_member(size_t i, const uint8_t *p, size_t n)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, member[i]);
	if (p == NULL) {
		unlink(path);
		return;
	}
	if ((fp = fopen(path, "wb")) == NULL ||
	    (n > 0 && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct extract_opts o = { .allow_missing_hlo = 1,
	    .frames = (1u << EXTRACT_NFRAMES) - 1 };
	const uint8_t *p = data, *end = data + n, *sep;
	const char *path = dir;
	struct tsv_writer *w;
	struct extract *x = extract_new();
	unsigned bit;
	size_t i;

	if (dir[0] == '\0')
		make_dir();
	for (i = 0; i < NMEMBER; i++) {
		if (p == NULL) {
			put_member(i, NULL, 0);
			continue;
		}
		sep = find_sep(p, (size_t)(end - p));
		put_member(i, p, (size_t)((sep ? sep : end) - p));
		p = sep ? sep + strlen(SEP) : NULL;
	}
	o.keep_autotuning = n % 2;
	if (extract_load(x, &path, 1, &o) == 0)
		for (bit = 1; bit < 1u << EXTRACT_NFRAMES; bit <<= 1) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)extract_write(x, bit, w);
			(void)tsv_wclose(w);
		}
	extract_free(x);
	return 0;
}
