/* What a capture cannot show, from its frames (capture.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/capture.h"
#include "analysis/spmd.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/strtab.h"
#include "base/tsv.h"

/* One ProgramId of module.tsv. */
struct prog {
	size_t name;		/* in names */
	int missing;		/* extraction's placeholder: no dump */
	int compiled;		/* in compile.tsv: warm-up skips one more */
	int cmdbuf;		/* holds command buffer rows */
	int64_t cbmax;		/* their largest ProgramExecution */
	int64_t maxexec, nexec;
	size_t ndev0;		/* devices with its execution 0 */
	size_t ncut;		/* first or last executions with fewer thunks */
	int64_t proc;		/* its first row's process */
	int64_t *dev;		/* its devices, sorted (rows without Device) */
	size_t ndev, capdev;
	size_t rep;		/* the SPMD join's: the ProgramId of its step */
};

/* Per ProgramId and device: the NumThunks of its executions 0 and 1
 * and of the module's last two (-1: none). */
struct ends {
	int64_t n[4];
};

struct check {
	struct strtab progs, names, bufs, gpus, hosts;
	struct prog *p;
	size_t cap;
	size_t *nprog;		/* per name: its ProgramIds */
	size_t namecap;
	double *bufown;		/* per buffer: its own rows' time */
	unsigned char *bufopen;	/* per buffer: an inner row seen */
	unsigned char *bufnohlo;	/* per buffer: of a module without dump */
	size_t bufcap;
	unsigned char *dev;	/* devices seen, by id */
	size_t devcap, ndev;
	unsigned char *proc;	/* processes seen, by index */
	size_t proccap, nproc;
	size_t nprofile;	/* profiles in meta.tsv */
	double total;		/* all thunk time, ms */
	int64_t maxcoll;
	int comm;
	struct strtab endkeys;	/* "prog\tdevice" -> ends */
	struct ends *ends;
	size_t endcap;
	struct spmd_scan *scan;	/* the SPMD join (spmd.h) */
	struct strtab occ;	/* rows without Device: "Name\tThunkExecution"
				 * of the execution read, its count */
	size_t *nocc, occcap;
	size_t occprog;		/* the execution read (rows without Device) */
	int64_t occexec;
	int graphs;		/* a profile's CudaGraphTrace is "graph" */
	const struct capture_facts *facts;	/* or NULL */
};

static int
is_placeholder(const char *id)
{
	size_t n = strlen(id);

	return n > 12 && strcmp(id + n - 12, "-missing-hlo") == 0;
}

/* Open DIR/NAME.tsv; NULL with *ABSENT set when it is not there and
 * OPTIONAL is set (no message), else NULL with an err message. */
static struct tsv_reader *
open_frame(const char *dir, const char *name, int optional, FILE **fp,
    char **path, int *absent)
{
	struct tsv_reader *r;

	*absent = 0;
	*path = mem_alloc(strlen(dir) + strlen(name) + 6);
	sprintf(*path, "%s/%s.tsv", dir, name);
	if ((*fp = fopen(*path, "r")) == NULL) {
		if (optional && errno == ENOENT)
			*absent = 1;
		else
			err_fail("%s: cannot open: %s", *path, strerror(errno));
		free(*path);
		*path = NULL;
		return NULL;
	}
	if ((r = tsv_ropen(*fp, *path)) == NULL) {
		fclose(*fp);
		free(*path);
		*path = NULL;
	}
	return r;
}

static void
close_frame(struct tsv_reader *r, FILE *fp, char *path)
{
	tsv_rclose(r);
	if (fp)
		fclose(fp);
	free(path);
}

static int
field_i64(struct tsv_reader *r, long c, int64_t *v)
{
	const char *s = tsv_field(r, (size_t)c);

	if (*s == '\0') {
		*v = -1;
		return 0;
	}
	if (num_i64(s, strlen(s), v) != 0)
		return err_fail("%s:%ld: not an integer: '%s'", tsv_name(r),
		    tsv_lineno(r), s);
	return 0;
}

static size_t
prog_of(struct check *k, const char *id, const char *name)
{
	int added;
	size_t i = strtab_intern(&k->progs, id, strlen(id), &added);
	size_t nm;

	if (!added)
		return i;
	mem_grow(&k->p, &k->cap, i + 1, sizeof(*k->p));
	memset(&k->p[i], 0, sizeof(k->p[i]));
	k->p[i].cbmax = -1;
	k->p[i].proc = -1;
	k->p[i].missing = is_placeholder(id);
	nm = strtab_intern(&k->names, name, strlen(name), &added);
	if (added) {
		size_t c = k->namecap;

		mem_grow(&k->nprog, &c, nm + 1, sizeof(*k->nprog));
		k->namecap = c;
		k->nprog[nm] = 0;
	}
	k->p[i].name = nm;
	if (strcmp(id, "unknown") != 0 && !k->p[i].missing)
		k->nprog[nm]++;
	return i;
}

/* Mark id D in the set *SET (capacity *CAP), counting it in *N when
 * new: devices and processes are small integers. */
static void
see(unsigned char **set, size_t *cap, size_t *n, int64_t d)
{
	size_t c = *cap;

	if (d < 0 || d >= (1 << 24))
		return;
	if ((size_t)d >= *cap) {
		mem_grow(set, &c, (size_t)d + 1, 1);
		memset(*set + *cap, 0, c - *cap);
		*cap = c;
	}
	if (!(*set)[d]) {
		(*set)[d] = 1;
		(*n)++;
	}
}

/* Device D into P's sorted devices. */
static void
prog_dev(struct prog *p, int64_t d)
{
	size_t i = p->ndev;

	while (i > 0 && p->dev[i - 1] > d)
		i--;
	if (i > 0 && p->dev[i - 1] == d)
		return;
	mem_grow(&p->dev, &p->capdev, p->ndev + 1, sizeof(*p->dev));
	memmove(p->dev + i + 1, p->dev + i, (p->ndev - i) * sizeof(*p->dev));
	p->dev[i] = d;
	p->ndev++;
}

/* Execution EXEC of program PI on device DEV had NTH thunks: kept when
 * it is one of the four the cut rule compares (ends). */
static void
end_of(struct check *k, size_t pi, int64_t exec, int64_t dev, int64_t nth)
{
	const struct prog *p = &k->p[pi];
	char key[64];
	int len = snprintf(key, sizeof(key), "%zu\t%lld", pi, (long long)dev);
	int added, slot = exec == 0 ? 0 : exec == 1 ? 1 :
	    exec == p->maxexec - 1 ? 2 : exec == p->maxexec ? 3 : -1;
	size_t i, c = k->endcap;

	if (slot < 0)
		return;
	i = strtab_intern(&k->endkeys, key, (size_t)len, &added);
	if (added) {
		mem_grow(&k->ends, &c, i + 1, sizeof(*k->ends));
		k->endcap = c;
		k->ends[i].n[0] = k->ends[i].n[1] = k->ends[i].n[2] =
		    k->ends[i].n[3] = -1;
	}
	/* With 3 executions, execution 1 is both next to the first and
	 * before the last. */
	if (exec == 1 && p->maxexec == 2)
		k->ends[i].n[2] = nth;
	k->ends[i].n[slot] = nth;
}

enum { M_PROG, M_EXEC, M_DEV, M_NAME, M_NTH, M_PROC, M_N };

/* module.tsv, PASS 0: programs, devices, processes, thunk counts;
 * PASS 1: the thunk counts of the executions the cut rule compares. */
static int
read_modules(struct check *k, const char *dir, int pass)
{
	static const char *const cols[] = { "ProgramId", "ProgramExecution",
	    "Device", "Name", "NumThunks", "Process" };
	long c[M_N];
	FILE *fp;
	char *path;
	int absent;
	struct tsv_reader *r = open_frame(dir, "module", 0, &fp, &path,
	    &absent);
	int64_t exec, dev, nth, proc;
	struct prog *p;
	size_t pi;
	int rc;

	if (r == NULL)
		return -1;
	rc = tsv_columns(r, cols, M_N, 1u << M_PROC, c);
	while (rc == 0 && (rc = tsv_next(r)) == 1) {
		if ((rc = field_i64(r, c[M_EXEC], &exec)) != 0 ||
		    (rc = field_i64(r, c[M_DEV], &dev)) != 0 ||
		    (rc = field_i64(r, c[M_NTH], &nth)) != 0 ||
		    (c[M_PROC] >= 0 && (rc = field_i64(r, c[M_PROC], &proc)) != 0))
			break;
		if (c[M_PROC] < 0)
			proc = 0;
		/* The index first: prog_of may move k->p. */
		pi = prog_of(k, tsv_field(r, (size_t)c[M_PROG]),
		    tsv_field(r, (size_t)c[M_NAME]));
		p = &k->p[pi];
		if (pass == 0) {
			see(&k->dev, &k->devcap, &k->ndev, dev);
			see(&k->proc, &k->proccap, &k->nproc, proc);
			if (p->proc < 0)
				p->proc = proc;
			if (exec == 0)
				p->ndev0++;
			if (exec > p->maxexec)
				p->maxexec = exec;
			p->nexec++;
			prog_dev(p, dev);
		} else if (p->maxexec >= 2) {
			end_of(k, pi, exec, dev, nth);
		}
	}
	close_frame(r, fp, path);
	return rc < 0 ? -1 : 0;
}

/*
 * The cut rule: a first execution with fewer thunks than the next, or a
 * last one with fewer than the one before, on a device.  Not fewer than
 * the module's most: a command buffer traced per graph runs its
 * operations one by one in the warm-up execution (0), then as one graph
 * launch, so every later execution has fewer thunks than the first.
 */
static void
count_cuts(struct check *k)
{
	size_t i;

	for (i = 0; i < k->endkeys.n; i++) {
		const char *key = strtab_get(&k->endkeys, i);
		const int64_t *n = k->ends[i].n;
		size_t pi = (size_t)strtoull(key, NULL, 10);

		if (n[0] >= 0 && n[1] >= 0 && n[0] < n[1])
			k->p[pi].ncut++;
		if (n[3] >= 0 && n[2] >= 0 && n[3] < n[2])
			k->p[pi].ncut++;
	}
}

enum { T_PROG, T_EXEC, T_NAME, T_DUR, T_COMM, T_CSIZE, T_CBUF, T_DEV,
    T_TEXEC, T_START, T_N };

static size_t
buf_of(struct check *k, const char *prog, const char *buf)
{
	size_t lp = strlen(prog), lb = strlen(buf), i, c = k->bufcap;
	char *key = mem_alloc(lp + lb + 2);
	int added;

	memcpy(key, prog, lp);
	key[lp] = '\t';
	memcpy(key + lp + 1, buf, lb + 1);
	i = strtab_intern(&k->bufs, key, lp + lb + 1, &added);
	free(key);
	if (added) {
		mem_grow(&k->bufown, &c, i + 1, sizeof(*k->bufown));
		c = k->bufcap;
		mem_grow(&k->bufopen, &c, i + 1, 1);
		c = k->bufcap;
		mem_grow(&k->bufnohlo, &c, i + 1, 1);
		k->bufcap = c;
		k->bufown[i] = 0;
		k->bufopen[i] = 0;
		k->bufnohlo[i] = is_placeholder(prog);
	}
	return i;
}

/*
 * The device of a row of a thunk frame without Device (frames made by
 * hand): the k-th row of one (Name, ThunkExecution) in an execution is
 * on the k-th of its program's devices (module frame), the rows of an
 * execution being each device's in turn.
 */
static int64_t
row_device(struct check *k, size_t pi, int64_t exec, const char *name,
    int64_t texec)
{
	const struct prog *p = &k->p[pi];
	char *key;
	size_t len = strlen(name), i, c;
	int added;

	if (p->ndev == 0)
		return 0;
	if (pi != k->occprog || exec != k->occexec) {
		strtab_free(&k->occ);
		memset(&k->occ, 0, sizeof(k->occ));
		k->occprog = pi;
		k->occexec = exec;
	}
	key = mem_alloc(len + 24);
	memcpy(key, name, len);
	len += (size_t)snprintf(key + len, 24, "\t%lld", (long long)texec);
	i = strtab_intern(&k->occ, key, len, &added);
	free(key);
	if (added) {
		c = k->occcap;
		mem_grow(&k->nocc, &c, i + 1, sizeof(*k->nocc));
		k->occcap = c;
		k->nocc[i] = 0;
	}
	return p->dev[k->nocc[i]++ % p->ndev];
}

/* Row R of ProgramId PI into the SPMD join (spmd.h): its collectives
 * (Communication 1, CollectiveSize above 1) in start order per device. */
static int
scan_row(struct check *k, struct tsv_reader *r, const long *c, size_t pi,
    int64_t exec, int coll, int64_t csize)
{
	struct spmd_row sr;

	memset(&sr, 0, sizeof(sr));
	sr.prog = tsv_field(r, (size_t)c[T_PROG]);
	sr.name = tsv_field(r, (size_t)c[T_NAME]);
	sr.exec = exec;
	sr.coll = coll && csize > 1;
	sr.csize = csize;
	if ((c[T_TEXEC] >= 0 && tsv_get_i64(r, (size_t)c[T_TEXEC], &sr.texec,
	    1) < 0) || (c[T_START] >= 0 && tsv_get_ms(r, (size_t)c[T_START],
	    &sr.start_ns, 1) < 0) || (c[T_DEV] >= 0 &&
	    tsv_get_i64(r, (size_t)c[T_DEV], &sr.dev, 0) < 0))
		return -1;
	if (c[T_DEV] < 0)
		sr.dev = row_device(k, pi, exec, sr.name, sr.texec);
	spmd_scan_row(k->scan, &sr);
	return 0;
}

/* One row of thunk.tsv. */
static int
thunk_row(struct check *k, struct tsv_reader *r, const long *c)
{
	const char *prog = tsv_field(r, (size_t)c[T_PROG]);
	const char *cb = c[T_CBUF] >= 0 ? tsv_field(r, (size_t)c[T_CBUF]) : "";
	const char *name, *s = tsv_field(r, (size_t)c[T_DUR]);
	size_t pi = strtab_find(&k->progs, prog, strlen(prog)), b;
	int64_t exec, csize;
	double dur = 0;
	int comm;

	if (*s && num_f64(s, strlen(s), &dur) != 0)
		return err_fail("%s:%ld: not a number: '%s'", tsv_name(r),
		    tsv_lineno(r), s);
	k->total += dur;
	if ((comm = strcmp(tsv_field(r, (size_t)c[T_COMM]), "1") == 0))
		k->comm = 1;
	if (field_i64(r, c[T_CSIZE], &csize) != 0 ||
	    field_i64(r, c[T_EXEC], &exec) != 0)
		return -1;
	if (csize > k->maxcoll)
		k->maxcoll = csize;
	if (pi != STRTAB_NONE && spmd_scan_candidate(k->scan, prog) &&
	    scan_row(k, r, c, pi, exec, comm, csize) != 0)
		return -1;
	if (*cb == '\0')
		return 0;
	name = tsv_field(r, (size_t)c[T_NAME]);
	b = buf_of(k, prog, cb);
	if (strcmp(name, cb) == 0)
		k->bufown[b] += dur;
	else
		k->bufopen[b] = 1;
	if (pi != STRTAB_NONE) {
		k->p[pi].cmdbuf = 1;
		if (exec > k->p[pi].cbmax)
			k->p[pi].cbmax = exec;
	}
	return 0;
}

static int
read_thunks(struct check *k, const char *dir)
{
	static const char *const cols[] = { "ProgramId", "ProgramExecution",
	    "Name", "ProjDurMs", "Communication", "CollectiveSize",
	    "CommandBuffer", "Device", "ThunkExecution", "ProjStartMs" };
	long c[T_N];
	FILE *fp;
	char *path;
	int absent;
	struct tsv_reader *r = open_frame(dir, "thunk", 0, &fp, &path,
	    &absent);
	int rc;

	if (r == NULL)
		return -1;
	rc = tsv_columns(r, cols, T_N, 1u << T_CBUF | 1u << T_DEV |
	    1u << T_TEXEC | 1u << T_START, c);
	k->occprog = SIZE_MAX;
	while (rc == 0 && (rc = tsv_next(r)) == 1)
		rc = thunk_row(k, r, c) == 0 ? 0 : -1;
	close_frame(r, fp, path);
	return rc < 0 ? -1 : 0;
}

/* Column COL of the optional frame NAME, each row's value to FN. */
static int
read_column(struct check *k, const char *dir, const char *name,
    const char *col, const char *key, void (*fn)(struct check *,
    const char *))
{
	FILE *fp;
	char *path;
	int absent, rc = 0;
	struct tsv_reader *r = open_frame(dir, name, 1, &fp, &path, &absent);
	long c, kc = -1;

	if (r == NULL)
		return absent ? 0 : -1;
	if ((c = tsv_require(r, col)) < 0 ||
	    (key && (kc = tsv_require(r, "Key")) < 0))
		rc = -1;
	while (rc == 0 && (rc = tsv_next(r)) == 1) {
		rc = 0;
		if (kc >= 0 && strcmp(tsv_field(r, (size_t)kc), key) != 0)
			continue;
		fn(k, tsv_field(r, (size_t)c));
	}
	close_frame(r, fp, path);
	return rc < 0 ? -1 : 0;
}

static void
compiled(struct check *k, const char *id)
{
	size_t i = strtab_find(&k->progs, id, strlen(id));

	if (i != STRTAB_NONE)
		k->p[i].compiled = 1;
}

/* A profile's GpuName row of meta.tsv (one per profile). */
static void
gpu(struct check *k, const char *v)
{
	k->nprofile++;
	if (*v)
		strtab_intern(&k->gpus, v, strlen(v), NULL);
}

static void
host(struct check *k, const char *v)
{
	if (*v)
		strtab_intern(&k->hosts, v, strlen(v), NULL);
}

static void
graph_trace(struct check *k, const char *v)
{
	if (strcmp(v, "graph") == 0)
		k->graphs = 1;
}

/* ---- the findings: one row each ---- */

/* What a test found: the finding with the capture's numbers, and the
 * consequence when it holds numbers too (else the row's). */
struct found {
	char what[384];
	char why[384];
};

static void
put(char *buf, size_t cap, const char *fmt, ...) ERR_PRINTF(3, 4);

static void
put(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
}

/* "a, b, c" of up to 3 module names of programs matching WANT. */
static void
some_names(const struct check *k, int (*want)(const struct prog *),
    char *buf, size_t cap)
{
	size_t i, n = 0, m = 0;

	buf[0] = '\0';
	for (i = 0; i < k->progs.n && n + 1 < cap; i++) {
		if (!want(&k->p[i]))
			continue;
		if (m++ == 3) {
			snprintf(buf + n, cap - n, ", ...");
			return;
		}
		n += (size_t)snprintf(buf + n, cap - n, "%s%.60s", m > 1 ? ", " : "",
		    strtab_get(&k->names, k->p[i].name));
	}
}

static int want_missing(const struct prog *p) { return p->missing; }
static int want_cut(const struct prog *p) { return p->ncut > 0; }

static int
t_nonvtx(const struct check *k, struct found *f)
{
	const struct capture_facts *x = k->facts;

	if (x == NULL || x->no_nvtx == 0)
		return 0;
	put(f->what, sizeof(f->what), "no NVTX: %s%zu of %zu profiles (%.60s%s) "
	    "hold GPU work but no NVTX ranges (nsys ran without -t nvtx)",
	    x->no_nvtx == x->profiles ? "all " : "", x->no_nvtx, x->profiles,
	    x->first, x->no_nvtx > 1 ? ", ..." : "");
	return 1;
}

static int
t_missing(const struct check *k, struct found *f)
{
	if (k->maxcoll <= 0 || (size_t)k->maxcoll <= k->ndev)
		return 0;
	put(f->what, sizeof(f->what), "processes missing: collectives span "
	    "%lld devices but the profiles hold %zu", (long long)k->maxcoll,
	    k->ndev);
	return 1;
}

static int
t_gpus(const struct check *k, struct found *f)
{
	if (k->gpus.n <= 1)
		return 0;
	put(f->what, sizeof(f->what), "mixed runs: the profiles come from %zu "
	    "GPU models (%.60s, %.60s%s)", k->gpus.n, strtab_get(&k->gpus, 0),
	    strtab_get(&k->gpus, 1), k->gpus.n > 2 ? ", ..." : "");
	return 1;
}

/* Every device runs a module of the step once at execution 0; two runs'
 * profiles may number their devices and processes alike: the largest of
 * the devices, the processes and the profiles.  A step compiled apart
 * on some processes is one module under several ProgramIds, which the
 * SPMD join makes one (their devices are disjoint, so their executions
 * 0 add up). */
static int
t_programs(const struct check *k, struct found *f)
{
	size_t i, common = 0, all = k->ndev > k->nproc ? k->ndev : k->nproc;
	size_t *n = mem_calloc(k->progs.n + 1, sizeof(*n));

	if (k->nprofile > all)
		all = k->nprofile;
	for (i = 0; i < k->progs.n; i++)
		n[k->p[i].rep] += k->p[i].ndev0;
	for (i = 0; i < k->progs.n; i++)
		if (n[i] >= all)
			common++;
	free(n);
	if (all <= 1 || k->names.n == 0 || common > 0)
		return 0;
	put(f->what, sizeof(f->what), "mixed runs: no module ran in all %zu "
	    "processes and devices", all);
	return 1;
}

static int
t_dumps(const struct check *k, struct found *f)
{
	char names[256];
	size_t i, nmiss = 0, nall = 0;

	for (i = 0; i < k->progs.n; i++) {
		nmiss += k->p[i].missing;
		nall += strcmp(strtab_get(&k->progs, i), "unknown") != 0;
	}
	if (nmiss == 0)
		return 0;
	some_names(k, want_missing, names, sizeof(names));
	put(f->what, sizeof(f->what), "no HLO dumps for %s%zu of %zu modules "
	    "(%s)", nmiss == nall ? "all " : "", nmiss, nall, names);
	return 1;
}

static int
t_graphs(const struct check *k, struct found *f)
{
	size_t i, nbuf = 0;
	double own = 0;

	for (i = 0; i < k->bufs.n; i++)
		if (!k->bufopen[i] && k->bufown[i] > 0 && (!k->bufnohlo[i] ||
		    k->graphs)) {
			nbuf++;
			own += k->bufown[i];
		}
	if (nbuf == 0)
		return 0;
	put(f->what, sizeof(f->what), "CUDA graphs traced per graph");
	put(f->why, sizeof(f->why), "no per-operation time inside %zu command "
	    "buffer%s holding %.1f%% of GPU time", nbuf, nbuf == 1 ? "" : "s",
	    k->total > 0 ? 100 * own / k->total : 0.0);
	return 1;
}

static int
t_nocoll(const struct check *k, struct found *f)
{
	if (k->ndev <= 1 || k->comm)
		return 0;
	put(f->what, sizeof(f->what), "no collectives to align clocks");
	if (k->hosts.n > 1)
		put(f->why, sizeof(f->why), "the %zu devices on %zu hosts keep "
		    "each host's own clock, so waits, skews and the critical "
		    "path across devices are not measured", k->ndev, k->hosts.n);
	else
		put(f->why, sizeof(f->why), "the %zu devices' timelines keep "
		    "their own clocks, so waits, skews and the critical path "
		    "across devices are not measured", k->ndev);
	return 1;
}

/* A step compiled apart: ProgramIds of one module name that the SPMD
 * join makes one step (the same collectives in the same order, disjoint
 * devices) and that ran on different processes.  Two programs of one
 * name on one process (another shape, another jit) are not. */
static int
t_split(const struct check *k, struct found *f)
{
	char names[64];
	size_t i, split = 0;
	unsigned char *apart = mem_calloc(k->progs.n + 1, 1);

	for (i = 0; i < k->progs.n; i++) {
		size_t r = k->p[i].rep;

		if (r != i && k->p[i].proc != k->p[r].proc && !apart[r]) {
			apart[r] = 1;
			if (split++ == 0)
				snprintf(names, sizeof(names), "%.60s",
				    strtab_get(&k->names, k->p[r].name));
		}
	}
	free(apart);
	if (split == 0)
		return 0;
	put(f->what, sizeof(f->what), "processes compiled the step "
	    "differently: %zu module%s (%s%s) with several fingerprints", split,
	    split == 1 ? "" : "s", names, split > 1 ? ", ..." : "");
	return 1;
}

static int
t_warmup(const struct check *k, struct found *f)
{
	char names[64];
	size_t i, warm = 0;

	for (i = 0; i < k->progs.n; i++)
		if (k->p[i].cmdbuf &&
		    k->p[i].cbmax < k->p[i].compiled + k->comm && warm++ == 0)
			snprintf(names, sizeof(names), "%.60s",
			    strtab_get(&k->names, k->p[i].name));
	if (warm == 0)
		return 0;
	put(f->what, sizeof(f->what), "command buffers in warm-up executions "
	    "only: %zu module%s (%s%s) ran its command buffers only in "
	    "executions the warm-up rule leaves out", warm, warm == 1 ? "" :
	    "s", names, warm > 1 ? ", ..." : "");
	return 1;
}

static int
t_cut(const struct check *k, struct found *f)
{
	char names[256];
	size_t i, cut = 0;

	for (i = 0; i < k->progs.n; i++)
		cut += k->p[i].ncut;
	if (cut == 0)
		return 0;
	some_names(k, want_cut, names, sizeof(names));
	put(f->what, sizeof(f->what), "the capture window cuts steps: %zu "
	    "first or last module execution%s (%s) with fewer thunks than the "
	    "module's others", cut, cut == 1 ? "" : "s", names);
	return 1;
}

static const char fix_mixed[] = "report each run by itself and compare "
    "them with pipelines/diff.sh";

/* The findings, one row each, in rank order (capture.h): the id names
 * the row in the code only; the consequence is the row's unless the test
 * gives one with the capture's numbers (found.why). */
static const struct finding_row {
	const char *id;
	int rank;
	int (*test)(const struct check *, struct found *);
	const char *consequence;
	const char *fix;
} findings[] = {
	{ "no-nvtx", 0, t_nonvtx, "no thunks and no XLA modules, so no "
	    "per-operation or per-module times",
	    "nsys profile -t cuda,nvtx ... (nsys-jax and nsysjax-profile set "
	    "it)" },
	{ "processes-missing", 1, t_missing, "the missing processes' time, "
	    "waits and stragglers are not seen, and clocks align only among "
	    "those present", "give the profile of every process of the run "
	    "(nsys-jax writes one per process)" },
	{ "mixed-gpus", 2, t_gpus, "one report of them mixes two runs",
	    fix_mixed },
	{ "mixed-programs", 2, t_programs, "the profiles are of different "
	    "programs, whose times and clocks do not compare", fix_mixed },
	{ "no-dumps", 3, t_dumps, "no flame graphs by source, no costs "
	    "(roofline, PGLE), no heap, no collective sizes or groups for them",
	    "run with XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_proto' and "
	    "a cold JAX compilation cache (JAX_ENABLE_COMPILATION_CACHE=false, "
	    "or an empty cache directory: a cached module is not compiled, so "
	    "not dumped), then give the dumps (dump/ beside each export, or "
	    "nsysjax-extract -d DIR, report.sh -X -d -X DIR)" },
	{ "graph-trace", 4, t_graphs, NULL, "nsys profile "
	    "--cuda-graph-trace=node (nsysjax-profile sets it)" },
	{ "no-collectives", 5, t_nocoll, NULL, "capture steps that run "
	    "collectives on every device (HLO dumps say which thunks are "
	    "collectives; without them, only thunks named as XLA collectives, "
	    "all-reduce-start.3 say, are known)" },
	{ "compiled-differently", 6, t_split, "their kernels differ between "
	    "processes (autotuning), so their times do not compare and "
	    "stragglers may be compilation", "autotune once and share it: "
	    "XLA_FLAGS=--xla_gpu_dump_autotune_results_to=FILE on one process, "
	    "--xla_gpu_load_autotune_results_from=FILE on all" },
	{ "warm-up-only", 7, t_warmup, "the steady state has none of their "
	    "graph replays", "capture more steps (a later, longer window: nsys "
	    "--capture-range, --delay, --duration)" },
	{ "cut-steps", 8, t_cut, "partial executions distort times and "
	    "variability", "start and stop the capture between steps (nsys "
	    "--capture-range=cudaProfilerApi around whole steps), or leave "
	    "those executions out (report.sh --skip)" },
};

/* Each row's test in rank order (the table is in that order), a line
 * "N. WHAT: CONSEQUENCE. Fix: FIX" per finding. */
static int
write_findings(const struct check *k, FILE *out, size_t *n)
{
	size_t i;
	struct found f;

	for (i = 0; i < sizeof(findings) / sizeof(findings[0]); i++) {
		f.what[0] = f.why[0] = '\0';
		if (!findings[i].test(k, &f))
			continue;
		if (fprintf(out, "%zu. %s: %s. Fix: %s\n", ++*n, f.what,
		    f.why[0] ? f.why : findings[i].consequence,
		    findings[i].fix) < 0)
			return -1;
	}
	return 0;
}

static void
check_free(struct check *k)
{
	size_t i;

	/* Before strtab_free, which zeroes the count. */
	for (i = 0; i < k->progs.n; i++)
		free(k->p[i].dev);
	strtab_free(&k->progs);
	strtab_free(&k->names);
	strtab_free(&k->bufs);
	strtab_free(&k->gpus);
	strtab_free(&k->hosts);
	free(k->nprog);
	free(k->bufown);
	free(k->bufopen);
	free(k->bufnohlo);
	free(k->dev);
	free(k->proc);
	strtab_free(&k->endkeys);
	free(k->ends);
	strtab_free(&k->occ);
	free(k->nocc);
	spmd_scan_free(k->scan);
	free(k->p);
}

/* The SPMD join (spmd.h) of the ProgramIds read: each a candidate by its
 * module name, but for the placeholders and "unknown" (no name to go
 * by). */
static void
start_join(struct check *k)
{
	size_t i;

	k->scan = spmd_scan_new();
	for (i = 0; i < k->progs.n; i++) {
		const char *id = strtab_get(&k->progs, i);
		int named = !k->p[i].missing && strcmp(id, "unknown") != 0;

		spmd_scan_module(k->scan, id, named ?
		    strtab_get(&k->names, k->p[i].name) : "");
	}
}

/* Each ProgramId's representative (struct prog rep); the join's notes
 * are the report's, not the check's. */
static void
end_join(struct check *k)
{
	struct err_notes notes;
	size_t i, r;
	const char *rep;

	memset(&notes, 0, sizeof(notes));
	(void)spmd_scan_end(k->scan, &notes);
	err_notes_free(&notes);
	for (i = 0; i < k->progs.n; i++) {
		rep = spmd_scan_rep(k->scan, strtab_get(&k->progs, i));
		r = strtab_find(&k->progs, rep, strlen(rep));
		k->p[i].rep = r == STRTAB_NONE ? i : r;
	}
}

int
capture_check(const char *dir, const struct capture_facts *facts,
    FILE *out, const char *outname, size_t *nfound)
{
	struct check k;
	int rc = 0;

	memset(&k, 0, sizeof(k));
	k.facts = facts;
	*nfound = 0;
	if (dir == NULL)
		goto write;	/* no frames: the facts alone */
	rc = read_modules(&k, dir, 0);
	if (rc == 0)
		rc = read_modules(&k, dir, 1);
	if (rc == 0) {
		count_cuts(&k);
		start_join(&k);
		rc = read_thunks(&k, dir);
	}
	if (rc == 0)
		end_join(&k);
	if (rc == 0)
		rc = read_column(&k, dir, "compile", "ProgramId", NULL,
		    compiled);
	if (rc == 0)
		rc = read_column(&k, dir, "meta", "Value", "GpuName", gpu);
	if (rc == 0)
		rc = read_column(&k, dir, "meta", "Value", "Hostname", host);
	if (rc == 0)
		rc = read_column(&k, dir, "meta", "Value", "CudaGraphTrace",
		    graph_trace);
write:
	if (rc == 0) {
		if (write_findings(&k, out, nfound) != 0 || fflush(out) != 0 ||
		    ferror(out))
			rc = err_fail("%s: write error: %s", outname,
			    strerror(errno));
	}
	check_free(&k);
	return rc;
}
