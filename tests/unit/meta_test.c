/*
 * Tests of lib/profile/meta's reading of device-metadata.parquet: a
 * DOUBLE column whose value is no int64_t (1e300, NaN) is no value, as
 * the GPU reader (device.c) takes it, not a conversion of undefined
 * behaviour (C11 6.3.1.4: -9223372036854775808 on x86-64); an in-range
 * double is its integer part.  The profile is a directory holding a
 * trace (which meta_write does not read) and the parquet file, written
 * here with pqwrite.h.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/tsv.h"
#include "profile/meta.h"
#include "pqwrite.h"
#include "unit.h"

static char dir[] = "/tmp/meta_test.XXXXXX";

static void
put_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
		abort();
}

/* Profile P under DIR whose GPU has SMCOUNT SMs and MEM bytes (DOUBLE
 * columns); the meta frame's rows of it into OUT (NUL-terminated). */
static void
meta_of(const char *p, double smcount, double mem, char *out, size_t cap)
{
	double sm[1] = { smcount }, gm[1] = { mem };
	const char *name[1] = { "NVIDIA H100" };
	size_t nlen[1] = { 11 }, len, got;
	struct wcol c[] = {
		{ "('TARGET_INFO_GPU', 'name')", T_BYTE_ARRAY, FLAT, 0, 0,
		    E_PLAIN, NULL, NULL, NULL, name, nlen, NULL, NULL },
		{ "('TARGET_INFO_GPU', 'smCount')", T_DOUBLE, FLAT, 0, 0,
		    E_PLAIN, NULL, NULL, sm, NULL, NULL, NULL, NULL },
		{ "('TARGET_INFO_GPU', 'totalMemory')", T_DOUBLE, FLAT, 0, 0,
		    E_PLAIN, NULL, NULL, gm, NULL, NULL, NULL, NULL },
	};
	struct wopt o = plainopt;
	uint8_t *pq = pqwrite(c, 3, 1, &o, &len);
	char path[512];
	struct err_notes notes;
	struct tsv_writer *w;
	FILE *fp = tmpfile();
	const char *paths[1] = { path };

	memset(&notes, 0, sizeof(notes));
	snprintf(path, sizeof(path), "%s/%s", dir, p);
	if (mkdir(path, 0755) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/%s/nvtx_gpu_proj_trace", dir, p);
	if (mkdir(path, 0755) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/%s/nvtx_gpu_proj_trace/trace.parquet",
	    dir, p);
	put_file(path, "trace", 5);
	snprintf(path, sizeof(path), "%s/%s/device-metadata.parquet", dir, p);
	put_file(path, pq, len);
	free(pq);
	snprintf(path, sizeof(path), "%s/%s", dir, p);
	if (fp == NULL || (w = tsv_wopen(fp, "meta")) == NULL)
		abort();
	CHECK_INT(meta_write(paths, 1, NULL, NULL, w, &notes), 0);
	CHECK_INT(tsv_wclose(w), 0);
	rewind(fp);
	got = fread(out, 1, cap - 1, fp);
	out[got] = '\0';
	fclose(fp);
	err_notes_free(&notes);
}

int
main(void)
{
	static char out[8192];
	char cmd[64];

	if (mkdtemp(dir) == NULL)
		abort();
	/* 1e300 SMs and NaN bytes: both keys empty. */
	meta_of("bad", 1e300, 0.0 / 0.0, out, sizeof(out));
	CHECK(strstr(out, "bad\tSmCount\t\t\n") != NULL);
	CHECK(strstr(out, "bad\tGpuMemoryBytes\t\t\n") != NULL);
	CHECK(strstr(out, "-9223372036854775808") == NULL);
	CHECK(strstr(out, "bad\tGpuName\tNVIDIA H100\tdevice-metadata.parquet\n") !=
	    NULL);
	/* -2^63 is the last in range below; 2^63 the first out above. */
	meta_of("edge", -9223372036854775808.0, 9223372036854775808.0, out,
	    sizeof(out));
	CHECK(strstr(out, "edge\tSmCount\t-9223372036854775808\t"
	    "device-metadata.parquet\n") != NULL);
	CHECK(strstr(out, "edge\tGpuMemoryBytes\t\t\n") != NULL);
	/* An H100's: 132 SMs, 80 GiB, as doubles. */
	meta_of("h100", 132.0, 85899345920.0, out, sizeof(out));
	CHECK(strstr(out, "h100\tSmCount\t132\tdevice-metadata.parquet\n") !=
	    NULL);
	CHECK(strstr(out, "h100\tGpuMemoryBytes\t85899345920\t"
	    "device-metadata.parquet\n") != NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
	(void)bytesdup;
	return unit_done("meta_test");
}
