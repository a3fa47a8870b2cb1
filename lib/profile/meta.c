/* The meta frame of meta.h: what each profile says of its machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/tsv.h"
#include "formats/archive.h"
#include "formats/parquet.h"
#include "formats/pbtxt.h"
#include "formats/sqldb.h"
#include "formats/xz.h"
#include "profile/input.h"
#include "profile/meta.h"

const char *const meta_key[] = {
	"GpuName", "Gpus", "ComputeCapability", "SmCount", "GpuMemoryBytes",
	"Driver", "CudaDriver", "Cuda", "Cudnn", "Nccl", "Nsys", "Jax", "Xla",
	"XlaFlags", "Os", "Kernel", "Cpu", "Hostname", "CudaGraphTrace", NULL
};

/* One profile's values and where each came from. */
struct meta {
	char *v[META_NKEYS];
	const char *src[META_NKEYS];
	/* The CPU when nsys has no description of it (CpuDescription
	 * "unknown", as on Grace hosts): its architecture and cores. */
	char arch[64], cores[16];
	const char *archsrc;
};

/* V[K] = S[0..N) from SRC unless already set or S is empty. */
static void
setn(char **v, const char **src, int k, const char *s, size_t n,
    const char *from)
{
	if (s == NULL)
		return;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n' ||
	    s[n - 1] == '\r'))
		n--;
	if (v[k] != NULL || n == 0)
		return;
	v[k] = mem_alloc(n + 1);
	memcpy(v[k], s, n);
	v[k][n] = '\0';
	src[k] = from;
}

static void
set(struct meta *m, int k, const char *s, const char *from)
{
	if (s)
		setn(m->v, m->src, k, s, strlen(s), from);
}

static void
set_i64(struct meta *m, int k, int64_t x, const char *from)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)x);
	set(m, k, buf, from);
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- GpuTargetConfigProto text ---- */

void
meta_pbtxt(const char *s, size_t n, char **v, const char **src)
{
	static const char from[] = "gpu_target_config";
	const char *p = s, *end = s + n, *l, *x;
	/* The block a line is in: 1 compute capability, 2 dnn version. */
	int in = 0;
	long ver[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } };
	int seen[2] = { 0, 0 };
	size_t len, xn;
	double d;
	char buf[64];

	while (pbtxt_next(&p, end, &l, &len)) {
		if (len >= 25 && memcmp(l, "cuda_compute_capability {", 25)
		    == 0)
			in = 1, seen[0] = 1;
		else if (len >= 18 && memcmp(l, "dnn_version_info {", 18) == 0)
			in = 2, seen[1] = 1;
		else if (len == 1 && *l == '}')
			in = 0;
		else if (in && (pbtxt_field(l, len, "major", &x, &xn) ||
		    pbtxt_field(l, len, "minor", &x, &xn) ||
		    pbtxt_field(l, len, "patch", &x, &xn)) &&
		    num_f64(x, xn, &d) == 0 && d >= 0 && d < 1e9)
			ver[in - 1][*l == 'm' ? (l[1] == 'a' ? 0 : 1) : 2] =
			    (long)d;
		else if (pbtxt_field(l, len, "device_description_str", &x, &xn))
			setn(v, src, META_GPU, x, xn, from);
		else if (pbtxt_field(l, len, "core_count", &x, &xn))
			setn(v, src, META_SMS, x, xn, from);
		else if (pbtxt_field(l, len, "device_memory_size", &x, &xn))
			setn(v, src, META_GPUMEM, x, xn, from);
	}
	/* proto3: a field at 0 is not written, so a block seen with no
	 * minor has minor 0. */
	if (seen[0]) {
		snprintf(buf, sizeof(buf), "%ld.%ld", ver[0][0], ver[0][1]);
		setn(v, src, META_CC, buf, strlen(buf), from);
	}
	if (seen[1]) {
		snprintf(buf, sizeof(buf), "%ld.%ld.%ld", ver[1][0], ver[1][1],
		    ver[1][2]);
		setn(v, src, META_CUDNN, buf, strlen(buf), from);
	}
}

/* ---- TARGET_INFO_SYSTEM_ENV, from parquet or SQLite ---- */

/* The version at the end of path component C[0..N): "2024.4.1", or the
 * tail of "NsightSystems-cli-2026.3.1" (after a '-' or '_'): digits and
 * dots, a digit first, a dot within.  Its length, or 0. */
static size_t
version_tail(const char *c, size_t n, const char **v)
{
	size_t i = n;
	int dot = 0;

	while (i > 0 && ((c[i - 1] >= '0' && c[i - 1] <= '9') || c[i - 1] == '.')) {
		dot |= c[i - 1] == '.';
		i--;
	}
	if (!dot || i == n || !(c[i] >= '0' && c[i] <= '9') || c[n - 1] == '.' ||
	    (i > 0 && c[i - 1] != '-' && c[i - 1] != '_'))
		return 0;
	*v = c + i;
	return n - i;
}

/* The nsys version in its TargetInstallDir: the last path component that
 * ends in a version (".../2024.4.1/target-linux-x64",
 * ".../NsightSystems-cli-2026.3.1/target-linux-sbsa-armv8"). */
static void
nsys_of_dir(struct meta *m, const char *dir, const char *from)
{
	const char *c = dir, *e, *v = NULL, *best = NULL;
	size_t n, bestn = 0;

	for (; *c; c = e + (*e == '/')) {
		if ((e = strchr(c, '/')) == NULL)
			e = c + strlen(c);
		if ((n = version_tail(c, (size_t)(e - c), &v)) > 0) {
			best = v;
			bestn = n;
		}
	}
	if (best)
		setn(m->v, m->src, META_NSYS, best, bestn, from);
}

/* The variables of meta.h from DeviceEnvironment's "A=x;B=y;...". */
static void
environment(struct meta *m, const char *env, const char *from)
{
	static const struct { const char *var; int key; } vars[] = {
		{ "CUDA_VERSION", META_CUDA }, { "NCCL_VERSION", META_NCCL },
		{ "NV_CUDNN_VERSION", META_CUDNN }, { "XLA_FLAGS", META_XLAFLAGS },
		{ "JAX_VERSION", META_JAX }, { "XLA_VERSION", META_XLA },
	};
	const char *p = env, *e, *eq;
	size_t i, k;

	for (; *p; p = e + (*e != '\0')) {
		if ((e = strchr(p, ';')) == NULL)
			e = p + strlen(p);
		if ((eq = memchr(p, '=', (size_t)(e - p))) == NULL)
			continue;
		k = (size_t)(eq - p);
		for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
			if (strlen(vars[i].var) == k &&
			    memcmp(p, vars[i].var, k) == 0)
				setn(m->v, m->src, vars[i].key, eq + 1,
				    (size_t)(e - eq - 1), from);
	}
}

/* One TARGET_INFO_SYSTEM_ENV row NAME = VALUE. */
static void
system_env(struct meta *m, const char *name, const char *value,
    const char *from)
{
	char buf[32];
	double d;

	if (strcmp(name, "NvDriverVersion") == 0)
		set(m, META_DRIVER, value, from);
	else if (strcmp(name, "CudaDriverVersion") == 0) {
		/* cudaDriverGetVersion's 1000 x major + 10 x minor. */
		if (num_f64(value, strlen(value), &d) == 0 && d >= 1000 &&
		    d < 1e9) {
			snprintf(buf, sizeof(buf), "%d.%d", (int)d / 1000,
			    (int)d % 1000 / 10);
			set(m, META_CUDADRIVER, buf, from);
		}
	} else if (strcmp(name, "OsDescription") == 0)
		set(m, META_OS, value, from);
	else if (strcmp(name, "SoftwareReleaseVersion") == 0)
		set(m, META_KERNEL, value, from);
	else if (strcmp(name, "CpuDescription") == 0 &&
	    strcmp(value, "unknown") != 0)
		set(m, META_CPU, value, from);
	else if (strcmp(name, "Hostname") == 0)
		set(m, META_HOST, value, from);
	else if (strcmp(name, "CpuArchitecture") == 0 && !m->arch[0] &&
	    *value) {
		snprintf(m->arch, sizeof(m->arch), "%s", value);
		m->archsrc = from;
	} else if (strcmp(name, "CpuCores") == 0 && !m->cores[0])
		snprintf(m->cores, sizeof(m->cores), "%s", value);
	else if (strcmp(name, "TargetInstallDir") == 0)
		nsys_of_dir(m, value, from);
	else if (strcmp(name, "DeviceEnvironment") == 0)
		environment(m, value, from);
}

/* ---- nsys-jax's parquet files ---- */

/* String column NAME of F, read into *C; 0, or -1 (absent, unreadable). */
static int
str_column(const struct pq_file *f, const char *name, struct pq_column *c)
{
	long i = pq_column_index(f, name);

	if (i < 0 || pq_read_column(f, (size_t)i, c) != 0)
		return -1;
	if (c->kind != PQ_STRING) {
		pq_column_free(c);
		return -1;
	}
	return 0;
}

/* Integer column "('TARGET_INFO_GPU', 'NAME')" at row 0; 0 if none (or a
 * double outside int64_t). */
static int
gpu_i64(const struct pq_file *f, const char *name, int64_t *v)
{
	char buf[96];
	struct pq_column c;
	long i;
	int ok = 0;

	snprintf(buf, sizeof(buf), "('TARGET_INFO_GPU', '%s')", name);
	if ((i = pq_column_index(f, buf)) < 0 ||
	    pq_read_column(f, (size_t)i, &c) != 0)
		return 0;
	if ((c.kind == PQ_INT64 || c.kind == PQ_BOOL) && c.n > 0 &&
	    c.valid[0])
		*v = c.i64[0], ok = 1;
	else if (c.kind == PQ_DOUBLE && c.n > 0 && c.valid[0])
		ok = num_f64_i64(c.f64[0], v) == 0;	/* NaN, 1e300: none */
	pq_column_free(&c);
	return ok;
}

static int
device_parquet(struct meta *m, const uint8_t *data, size_t len)
{
	static const char from[] = "device-metadata.parquet";
	struct pq_file *f = pq_open(data, len);
	struct pq_column c;
	int64_t x, y;
	char buf[48];

	if (f == NULL)
		return -1;
	if (str_column(f, "('TARGET_INFO_GPU', 'name')", &c) == 0) {
		if (c.n > 0 && c.valid[0])
			set(m, META_GPU, c.str[0], from);
		pq_column_free(&c);
	}
	/* A row per GPU the process used (joined with its NVTX name). */
	if (pq_nrows(f) > 0)
		set_i64(m, META_GPUS, pq_nrows(f), from);
	if (gpu_i64(f, "computeMajor", &x) && gpu_i64(f, "computeMinor", &y)) {
		snprintf(buf, sizeof(buf), "%lld.%lld", (long long)x,
		    (long long)y);
		set(m, META_CC, buf, from);
	}
	if (gpu_i64(f, "smCount", &x))
		set_i64(m, META_SMS, x, from);
	if (gpu_i64(f, "totalMemory", &x))
		set_i64(m, META_GPUMEM, x, from);
	pq_close(f);
	return 0;
}

static int
system_parquet(struct meta *m, const uint8_t *data, size_t len)
{
	struct pq_file *f = pq_open(data, len);
	struct pq_column name, value;
	int64_t i;

	if (f == NULL)
		return -1;
	if (str_column(f, "name", &name) != 0) {
		pq_close(f);
		return err_fail("no string column 'name'");
	}
	if (str_column(f, "value", &value) != 0) {
		pq_column_free(&name);
		pq_close(f);
		return err_fail("no string column 'value'");
	}
	for (i = 0; i < name.n && i < value.n; i++)
		if (name.valid[i] && value.valid[i])
			system_env(m, name.str[i], value.str[i],
			    "system-metadata.parquet");
	pq_column_free(&name);
	pq_column_free(&value);
	pq_close(f);
	return 0;
}

/* ---- SQLite exports ---- */

/* Each row of SQL (two text columns) to FN; 0, or -1 (err message). */
static int
rows(struct sqldb *db, const char *sql, struct meta *m,
    void (*fn)(struct meta *, const char *, const char *, const char *),
    const char *from)
{
	struct sqldb_stmt *st = sqldb_prepare(db, sql);
	const char *a, *b;
	size_t n;
	int r;

	if (st == NULL)
		return -1;
	while ((r = sqldb_step(st)) == 1)
		if ((a = sqldb_text(st, 0, &n)) != NULL &&
		    (b = sqldb_text(st, 1, &n)) != NULL)
			fn(m, a, b, from);
	sqldb_finalize(st);
	return r;
}

static void
export_meta(struct meta *m, const char *name, const char *value,
    const char *from)
{
	if (strcmp(name, "EXPORT_PRODUCT_VERSION") == 0)
		set(m, META_NSYS, value, from);
}

/* TARGET_INFO_GPU's first GPU (lowest id) and the number of GPUs. */
static int
sqlite_gpu(struct sqldb *db, struct meta *m)
{
	static const char from[] = "TARGET_INFO_GPU";
	static const struct { const char *sql; int key; } q[] = {
		{ "SELECT count(*) FROM TARGET_INFO_GPU", META_GPUS },
		{ "SELECT name FROM TARGET_INFO_GPU ORDER BY id", META_GPU },
		{ "SELECT computeMajor || '.' || computeMinor FROM "
		  "TARGET_INFO_GPU ORDER BY id", META_CC },
		{ "SELECT smCount FROM TARGET_INFO_GPU ORDER BY id", META_SMS },
		{ "SELECT totalMemory FROM TARGET_INFO_GPU ORDER BY id",
		  META_GPUMEM },
	};
	static const char *const need[] = { "id", "id", "computeMinor",
	    "smCount", "totalMemory" };
	struct sqldb_stmt *st;
	const char *s;
	size_t i, n;
	int r;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		if (!sqldb_has_column(db, "TARGET_INFO_GPU", need[i]))
			continue;
		if ((st = sqldb_prepare(db, q[i].sql)) == NULL)
			return -1;
		if ((r = sqldb_step(st)) == 1 && !sqldb_isnull(st, 0) &&
		    (s = sqldb_text(st, 0, &n)) != NULL)
			setn(m->v, m->src, q[i].key, s, n, from);
		sqldb_finalize(st);
		if (r < 0)
			return -1;
	}
	return 0;
}

static const char graphs[] = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";

/* CudaGraphTrace "graph" when the export holds whole-graph launches (nsys
 * --cuda-graph-trace=graph, its default): rows of graphs, one per launch,
 * and no time of the operations inside. */
static int
graph_rows(struct sqldb *db, struct meta *m)
{
	struct sqldb_stmt *st = sqldb_prepare(db, "SELECT 1 FROM "
	    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE LIMIT 1");
	int r;

	if (st == NULL)
		return -1;
	if ((r = sqldb_step(st)) == 1)
		set(m, META_GRAPHTRACE, "graph", graphs);
	sqldb_finalize(st);
	return r < 0 ? -1 : 0;
}

/* Every source of an export; a failing one is a note. */
static void
from_sqlite(struct sqldb *db, struct meta *m, const char *what,
    struct err_notes *notes)
{
	static const char *const exp[] = { "META_DATA_EXPORT",
	    "EXPORT_META_DATA" };
	char sql[96];
	size_t i;

	for (i = 0; i < 2; i++)
		if (sqldb_has_table(db, exp[i])) {
			snprintf(sql, sizeof(sql), "SELECT name, value FROM %s",
			    exp[i]);
			if (rows(db, sql, m, export_meta, exp[i]) < 0)
				err_note(notes, "%s: %s: %s", what, exp[i],
				    err_msg());
			break;
		}
	if (sqldb_has_table(db, "TARGET_INFO_GPU") && sqlite_gpu(db, m) < 0)
		err_note(notes, "%s: TARGET_INFO_GPU: %s", what, err_msg());
	if (sqldb_has_table(db, graphs) && graph_rows(db, m) < 0)
		err_note(notes, "%s: %s: %s", what, graphs, err_msg());
	if (sqldb_has_column(db, "TARGET_INFO_SYSTEM_ENV", "value") &&
	    rows(db, "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV", m,
	    system_env, "TARGET_INFO_SYSTEM_ENV") < 0)
		err_note(notes, "%s: TARGET_INFO_SYSTEM_ENV: %s", what,
		    err_msg());
}

/* ---- a profile ---- */

/* Whether dump member NAME is a gpu_target_config of P. */
static int
is_config(const struct input_profile *p, const char *name)
{
	static const char *const suf[] = { ".gpu_target_config.pbtxt",
	    ".gpu_target_config.pbtxt.xz" };
	char buf[64];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (ends_with(name, suf[i]))
			return 1;
		if (p->key && strlen(p->key) < 24) {
			snprintf(buf, sizeof(buf), "%s/%s", suf[i], p->key);
			if (ends_with(name, buf))
				return 1;
		}
	}
	return 0;
}

/* The first gpu_target_config of P's dumps (by name: the same output
 * for the same input); a bad one is a note. */
static void
from_config(const struct input_profile *p, struct meta *m,
    struct err_notes *notes)
{
	const char *best = NULL, *name;
	uint8_t *data, *plain;
	size_t i, len, n;

	if (p->dumps == NULL)
		return;
	for (i = 0; i < archive_count(p->dumps); i++) {
		name = archive_name(p->dumps, i);
		if (is_config(p, name) && (best == NULL ||
		    strcmp(name, best) < 0))
			best = name;
	}
	if (best == NULL)
		return;
	if (archive_read(p->dumps, best, &data, &len) != 0) {
		err_note(notes, "%s: %s: %s", p->path, best, err_msg());
		return;
	}
	if (xz_is_xz_data(data, len)) {
		if (xz_decode(data, len, &plain, &n) != 0) {
			err_note(notes, "%s: %s: %s", p->path, best, err_msg());
			free(data);
			return;
		}
		free(data);
		data = plain;
		len = n;
	}
	meta_pbtxt((const char *)data, len, m->v, m->src);
	free(data);
}

/* Parquet member BASE of P through FN; a bad one is a note. */
static void
from_parquet(const struct input_profile *p, const char *base,
    int (*fn)(struct meta *, const uint8_t *, size_t), struct meta *m,
    struct err_notes *notes)
{
	char *name = input_member(p, base);
	uint8_t *data;
	size_t len;

	if (name == NULL)
		return;
	if (archive_read(p->ar, name, &data, &len) != 0) {
		err_note(notes, "%s: %s: %s; its metadata left out", p->path,
		    name, err_msg());
		free(name);
		return;
	}
	if (fn(m, data, len) != 0)
		err_note(notes, "%s: %s: %s; its metadata left out", p->path,
		    name, err_msg());
	free(data);
	free(name);
}

/* No CPU description: "aarch64, 72 cores" from what nsys does say. */
static void
cpu_fallback(struct meta *m)
{
	char buf[96];

	if (m->v[META_CPU] || !m->arch[0])
		return;
	if (m->cores[0] && strspn(m->cores, "0123456789") == strlen(m->cores))
		snprintf(buf, sizeof(buf), "%s, %s cores", m->arch, m->cores);
	else
		snprintf(buf, sizeof(buf), "%s", m->arch);
	set(m, META_CPU, buf, m->archsrc);
}

static void
profile_meta(const struct input_profile *p, struct meta *m,
    struct err_notes *notes)
{
	struct sqldb *db = NULL;
	uint8_t *data;
	size_t len;
	const char *what = p->sqlite_file ? p->sqlite_file : p->path;

	if (p->kind == INPUT_SQLITE) {
		if (p->sqlite_file)
			db = sqldb_open(p->sqlite_file);
		else if (archive_read(p->ar, p->sqlite_member, &data, &len)
		    == 0) {
			db = sqldb_open_mem(data, len);
			free(data);
		}
		if (db == NULL)
			err_note(notes, "%s: %s; its metadata left out", what,
			    err_msg());
		else {
			from_sqlite(db, m, what, notes);
			sqldb_close(db);
		}
	} else {
		from_parquet(p, "device-metadata.parquet", device_parquet, m,
		    notes);
		from_parquet(p, "system-metadata.parquet", system_parquet, m,
		    notes);
	}
	from_config(p, m, notes);
	cpu_fallback(m);
}

/* M's rows to W, M's values freed; 0, or -1 (a failed write). */
static int
write_profile(struct tsv_writer *w, const char *name, struct meta *m)
{
	int k, rc = 0;

	for (k = 0; k < META_NKEYS; k++) {
		tsv_str(w, name);
		tsv_str(w, meta_key[k]);
		if (m->v[k])
			tsv_str(w, m->v[k]);
		else
			tsv_empty(w);
		if (m->src[k])
			tsv_str(w, m->src[k]);
		else
			tsv_empty(w);
		if (tsv_eor(w) != 0)
			rc = -1;
		free(m->v[k]);
	}
	return rc;
}

static const char *const head[] = { "ProfileName", "Key", "Value",
    "Source", NULL };

int
meta_write(const char *const *paths, size_t n, const char *dumpdir,
    const char *names, struct tsv_writer *w, struct err_notes *notes)
{
	struct input_set s;
	struct meta m;
	size_t i;
	int rc = 0;

	if (input_open_named(paths, n, dumpdir, names, &s) != 0) {
		input_close(&s);
		return -1;
	}
	if (tsv_header(w, head) != 0)
		rc = -1;
	for (i = 0; i < s.n && rc == 0; i++) {
		memset(&m, 0, sizeof(m));
		profile_meta(&s.p[i], &m, notes);
		rc = write_profile(w, s.p[i].name, &m);
	}
	input_close(&s);
	return rc;
}

/* The rows of the meta frame PATH to W, its header checked (the
 * columns of meta_write, in order); 0, or -1 with an err message. */
static int
copy_part(const char *path, struct tsv_writer *w)
{
	FILE *fp = fopen(path, "r");
	struct tsv_reader *r;
	const char *f;
	size_t i, len;
	int rc = 0;

	if (fp == NULL)
		return err_fail("%s: cannot open: %s", path, strerror(errno));
	if ((r = tsv_ropen(fp, path)) == NULL)
		rc = -1;
	if (r && tsv_ncols(r) != 4)
		rc = err_fail("%s: not a meta frame (%zu columns)", path,
		    tsv_ncols(r));
	for (i = 0; r && rc == 0 && head[i]; i++)
		if (strcmp(tsv_colname(r, i), head[i]) != 0)
			rc = err_fail("%s: not a meta frame (column %zu is not "
			    "%s)", path, i + 1, head[i]);
	while (r && rc == 0 && (rc = tsv_next(r)) == 1) {
		for (i = 0; i < tsv_ncols(r); i++) {
			f = tsv_rawfield(r, i, &len);
			tsv_raw(w, f, len);
		}
		rc = tsv_eor(w) != 0 ? -1 : 0;
	}
	tsv_rclose(r);
	fclose(fp);
	return rc < 0 ? -1 : 0;
}

int
meta_merge(const char *const *dirs, size_t n, struct tsv_writer *w)
{
	size_t i, have = 0;
	char *path;
	FILE *fp;
	int rc = 0;

	for (i = 0; i < n; i++) {
		path = mem_path(dirs[i], "meta.tsv");
		if ((fp = fopen(path, "r")) != NULL) {
			have++;
			fclose(fp);
		}
		free(path);
	}
	if (have == 0)
		return 1;
	if (have < n)
		return err_fail("%zu of the %zu parts have a meta.tsv "
		    "(extract the others again)", have, n);
	if (tsv_header(w, head) != 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		path = mem_path(dirs[i], "meta.tsv");
		rc = copy_part(path, w);
		free(path);
	}
	return rc;
}
