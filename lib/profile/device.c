/* The device descriptions of device.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/outfile.h"
#include "formats/archive.h"
#include "formats/parquet.h"
#include "formats/pbtxt.h"
#include "formats/sqldb.h"
#include "formats/xz.h"
#include "profile/device.h"

static void
unknown(struct device_info *d)
{
	memset(d, 0, sizeof(*d));
	d->major = d->minor = -1;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The largest core count or compute capability taken from a file: a
 * double or int64 beyond it (a corrupt or hostile value) is unknown,
 * never converted (C11 6.3.1.4: out of range is undefined). */
#define DEVICE_INT_MAX	(1 << 30)

/* The largest SM clock (GHz) and memory bandwidth (B/s) believed: a
 * hundred times today's (about 2 GHz and 8 TB/s); beyond, unknown. */
#define CLOCK_GHZ_MAX	200.0
#define BW_MAX		1e15

/* V as an integer in [0, DEVICE_INT_MAX] into *OUT: 1, or 0 (NaN, out of
 * range) with *OUT untouched. */
static int
small_f64(double v, int64_t *out)
{
	if (!(v >= 0 && v <= DEVICE_INT_MAX))
		return 0;
	*out = (int64_t)v;
	return 1;
}

/* V if in [0, DEVICE_INT_MAX], else UNKNOWN. */
static int64_t
small_i64(int64_t v, int64_t unknown_v)
{
	return v >= 0 && v <= DEVICE_INT_MAX ? v : unknown_v;
}

/* ---- GpuTargetConfigProto text ---- */

/* The number after "KEY:" on line L[0..N), if L is that field. */
static int
field(const char *l, size_t n, const char *key, double *v)
{
	const char *x;
	size_t xn;

	return pbtxt_field(l, n, key, &x, &xn) && num_f64(x, xn, v) == 0;
}

int
device_pbtxt(const char *s, size_t n, struct device_info *out)
{
	const char *p = s, *end = s + n, *l;
	int in_cc = 0;
	size_t len;
	int64_t k;
	double v;

	unknown(out);
	out->source = "gpu_target_config.pbtxt";
	while (pbtxt_next(&p, end, &l, &len)) {
		if (len >= 25 && memcmp(l, "cuda_compute_capability {", 25)
		    == 0) {
			in_cc = 1;
			out->major = out->minor = 0;	/* proto3 defaults */
		} else if (len == 1 && *l == '}')
			in_cc = 0;
		else if (in_cc && field(l, len, "major", &v))
			out->major = small_f64(v, &k) ? (int)k : -1;
		else if (in_cc && field(l, len, "minor", &v))
			out->minor = small_f64(v, &k) ? (int)k : -1;
		else if (field(l, len, "core_count", &v))
			out->sms = small_f64(v, &k) ? k : 0;
		else if (field(l, len, "clock_rate_ghz", &v))
			out->clock_hz = v > 0 && v <= CLOCK_GHZ_MAX ? v * 1e9 : 0;
		else if (field(l, len, "memory_bandwidth", &v))
			out->bw = v > 0 && v <= BW_MAX ? v : 0;
		else if (len > 26 && memcmp(l, "device_description_str: \"",
		    25) == 0 && l[len - 1] == '"')
			snprintf(out->name, sizeof(out->name), "%.*s",
			    (int)(len - 26), l + 25);
	}
	return out->name[0] != '\0' || out->sms > 0;
}

/* ---- device-metadata.parquet ---- */

static long
col(const struct pq_file *f, const char *name)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "('TARGET_INFO_GPU', '%s')", name);
	return pq_column_index(f, buf);
}

/* Integer column NAME at row ROW, or 0. */
static int64_t
pq_i64_at(const struct pq_file *f, const char *name, int64_t row)
{
	struct pq_column c;
	long i = col(f, name);
	int64_t v = 0;

	if (i < 0 || pq_read_column(f, (size_t)i, &c) != 0)
		return 0;
	if (c.kind == PQ_INT64 && row < c.n && c.valid[row])
		v = c.i64[row];
	else if (c.kind == PQ_DOUBLE && row < c.n && c.valid[row] &&
	    num_f64_i64(c.f64[row], &v) != 0)
		v = 0;		/* NaN or outside int64_t: none */
	pq_column_free(&c);
	return v;
}

static int
from_parquet(const uint8_t *data, size_t len, struct device_info *out)
{
	struct pq_file *f = pq_open(data, len);
	struct pq_column c;
	long i;
	int64_t row = 0;

	unknown(out);
	out->source = "device-metadata.parquet";
	if (f == NULL)
		return -1;
	if ((i = col(f, "name")) < 0 || pq_nrows(f) == 0) {
		pq_close(f);
		return 0;
	}
	if (pq_read_column(f, (size_t)i, &c) != 0) {
		pq_close(f);
		return -1;
	}
	if (c.kind == PQ_STRING)
		for (row = 0; row < c.n && !c.valid[row]; row++)
			;
	if (c.kind != PQ_STRING || row == c.n) {
		pq_column_free(&c);
		pq_close(f);
		return 0;
	}
	snprintf(out->name, sizeof(out->name), "%s", c.str[row]);
	pq_column_free(&c);
	out->sms = small_i64(pq_i64_at(f, "smCount", row), 0);
	out->clock_hz = (double)pq_i64_at(f, "clockRate", row);
	out->bw = (double)pq_i64_at(f, "memoryBandwidth", row);
	if (col(f, "computeMajor") >= 0) {
		out->major = (int)small_i64(pq_i64_at(f, "computeMajor", row),
		    -1);
		out->minor = (int)small_i64(pq_i64_at(f, "computeMinor", row),
		    -1);
	}
	pq_close(f);
	return 1;
}

/* ---- SQLite export ---- */

static int
from_sqlite(struct sqldb *db, struct device_info *out)
{
	static const char sql[] = "SELECT name, smCount, clockRate, "
	    "memoryBandwidth, computeMajor, computeMinor FROM TARGET_INFO_GPU "
	    "ORDER BY id LIMIT 1";
	struct sqldb_stmt *st;
	const char *name;
	size_t len;
	int rc;

	unknown(out);
	out->source = "TARGET_INFO_GPU";
	if (!sqldb_has_table(db, "TARGET_INFO_GPU"))
		return 0;
	if ((st = sqldb_prepare(db, sql)) == NULL)
		return -1;
	if ((rc = sqldb_step(st)) == 1) {
		name = sqldb_text(st, 0, &len);
		snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
		out->sms = small_i64(sqldb_i64(st, 1), 0);
		out->clock_hz = (double)sqldb_i64(st, 2);
		out->bw = (double)sqldb_i64(st, 3);
		if (!sqldb_isnull(st, 4)) {
			out->major = (int)small_i64(sqldb_i64(st, 4), -1);
			out->minor = (int)small_i64(sqldb_i64(st, 5), -1);
		}
	}
	sqldb_finalize(st);
	return rc;
}

/* ---- inputs ---- */

static int
read_pbtxt(const uint8_t *data, size_t len, struct device_info *out)
{
	uint8_t *plain = NULL;
	size_t n;
	int r;

	if (xz_is_xz_data(data, len)) {
		if (xz_decode(data, len, &plain, &n) != 0)
			return -1;
		r = device_pbtxt((const char *)plain, n, out);
		free(plain);
		return r;
	}
	return device_pbtxt((const char *)data, len, out);
}

/* The first member of A whose name ends with one of SUFFIX[0..). */
static const char *
member(const struct archive *a, const char *const *suffix)
{
	size_t i, k;

	for (i = 0; i < archive_count(a); i++)
		for (k = 0; suffix[k]; k++)
			if (ends_with(archive_name(a, i), suffix[k]))
				return archive_name(a, i);
	return NULL;
}

/* The export DATA[0..LEN) (an archive member): as from_sqlite. */
static int
sqlite_mem(const uint8_t *data, size_t len, struct device_info *out)
{
	struct sqldb *s = sqldb_open_mem(data, len);
	int r;

	if (s == NULL)
		return -1;
	r = from_sqlite(s, out);
	sqldb_close(s);
	return r;
}

/* The device of the first member that gives it, in the order of SRC
 * below: 1; 0 when none does; -1 with an err message (a reader's
 * prefixed with the member's name). */
static int
from_archive(struct archive *a, struct device_info *out)
{
	static const char *const meta[] = { "device-metadata.parquet", NULL };
	static const char *const pbtxt[] = { ".gpu_target_config.pbtxt",
	    ".gpu_target_config.pbtxt.xz", NULL };
	static const char *const db[] = { ".sqlite", NULL };
	/* Each kind of member: its names' endings and its reader, which
	 * returns as this function does. */
	static const struct {
		const char *const *suffix;
		int (*read)(const uint8_t *, size_t, struct device_info *);
	} src[] = {
		{ meta, from_parquet }, { pbtxt, read_pbtxt }, { db, sqlite_mem }
	};
	const char *m;
	uint8_t *data;
	size_t len, i;
	int r;

	unknown(out);
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		if ((m = member(a, src[i].suffix)) == NULL)
			continue;
		if (archive_read(a, m, &data, &len) != 0)
			return -1;
		r = src[i].read(data, len, out);
		free(data);
		if (r != 0)
			return r < 0 ? err_prefix("%s", m) : 1;
	}
	return 0;
}

int
device_read(const char *path, struct device_info *out)
{
	struct archive *a;
	struct sqldb *db;
	FILE *fp;
	uint8_t head[100], *data;
	size_t n, len;
	int r;

	unknown(out);
	if (ends_with(path, ".pbtxt") || ends_with(path, ".pbtxt.xz")) {
		if ((a = archive_open(path)) != NULL) {
			/* A directory of that name: read as an archive. */
			r = from_archive(a, out);
			archive_close(a);
			return r < 0 ? err_prefix("%s", path) : r;
		}
		if ((fp = fopen(path, "rb")) == NULL)
			return err_fail("%s: cannot open", path);
		r = mem_read_all(fp, &data, &len);
		fclose(fp);
		if (r != 0)
			return err_fail("%s: read error", path);
		r = read_pbtxt(data, len, out);
		free(data);
		return r < 0 ? err_prefix("%s", path) : r;
	}
	if ((fp = fopen(path, "rb")) != NULL) {
		n = fread(head, 1, sizeof(head), fp);
		fclose(fp);
		if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
			if ((db = sqldb_open(path)) == NULL)
				return err_prefix("%s", path);
			r = from_sqlite(db, out);
			sqldb_close(db);
			return r < 0 ? err_prefix("%s", path) : r;
		}
	}
	if ((a = archive_open(path)) == NULL)
		return err_prefix("%s", path);
	r = from_archive(a, out);
	archive_close(a);
	return r < 0 ? err_prefix("%s", path) : r;
}

static void
write_pbtxt(FILE *fp, const struct device_info *d)
{
	fprintf(fp, "gpu_device_info {\n");
	if (d->sms > 0)
		fprintf(fp, "  core_count: %lld\n", (long long)d->sms);
	if (d->bw > 0)
		fprintf(fp, "  memory_bandwidth: %.0f\n", d->bw);
	if (d->clock_hz > 0)
		fprintf(fp, "  clock_rate_ghz: %.9f\n", d->clock_hz / 1e9);
	if (d->major >= 0)
		fprintf(fp, "  cuda_compute_capability {\n    major: %d\n"
		    "    minor: %d\n  }\n", d->major, d->minor);
	fprintf(fp, "}\n");
	if (d->name[0] && strchr(d->name, '"') == NULL &&
	    strchr(d->name, '\n') == NULL)
		fprintf(fp, "device_description_str: \"%s\"\n", d->name);
}

int
device_write_pbtxt(const struct device_info *d, const char *path)
{
	struct outfile o;

	if (outfile_open(&o, path) != 0)
		return -1;
	write_pbtxt(o.fp, d);
	if (outfile_close(&o) != 0) {
		outfile_discard(&o);
		return -1;
	}
	return outfile_commit(&o);
}
