#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "base/u64map.h"
#include "formats/archive.h"
#include "profile/input.h"
#include "profile/nsysrep.h"

#define TRACE "nvtx_gpu_proj_trace/trace.parquet"

static const char sqlite_magic[16] = "SQLite format 3";

/* The dump suffixes, preferred first. */
static const char *const dump_suffixes[] = {
	"after_optimizations.hlo.pb.xz", "after_optimizations.hlo.pb", NULL
};

/* The push/pop trace, in order of preference: newer nsys-jax writes
 * parquet, older the CSV (xz-compressed). */
static const char *const pushpop_members[] = {
	"report_nvtx_pushpop_trace.parquet",
	"report_nvtx_pushpop_trace.csv.xz", "report_nvtx_pushpop_trace.csv",
	NULL
};

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

char *
input_name(const char *path)
{
	static const char *const ext[] = {
		".zip", ".sqlite", ".nsys-rep", ".xz", ".csv", ".parquet",
		NULL
	};
	size_t n = strlen(path), i, e;
	const char *b;
	char *s;

	if (strcmp(path, "-") == 0)
		return mem_strdup("stdin");
	while (n > 1 && path[n - 1] == '/')
		n--;
	s = mem_strndup(path, n);
	b = strrchr(s, '/');
	b = b ? b + 1 : s;
	memmove(s, b, strlen(b) + 1);
	for (i = 0; ext[i]; i++) {
		n = strlen(s);
		e = strlen(ext[i]);
		if (n > e && strcmp(s + n - e, ext[i]) == 0)
			s[n - e] = '\0';
	}
	return s;
}

static struct input_profile *
add_profile(struct input_set *s, struct archive *a, const char *path,
    char *name, enum input_kind kind)
{
	struct input_profile *p;

	mem_grow(&s->p, &s->capp, s->n + 1, sizeof(*s->p));
	p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->key = mem_strdup(name);
	p->kind = kind;
	p->ar = a;
	p->path = path;
	return p;
}

static void
add_archive(struct input_set *s, struct archive *a)
{
	mem_grow(&s->ar, &s->capar, s->nar + 1, sizeof(*s->ar));
	s->ar[s->nar++] = a;
}

/* input.h */
char *
input_member(const struct input_profile *p, const char *base)
{
	char *m;

	if (archive_has(p->ar, base))
		return mem_strdup(base);
	m = mem_path(base, p->key);
	if (archive_has(p->ar, m))
		return m;
	free(m);
	return NULL;
}

/* ---- HLO dumps ---- */

/*
 * The program id of dump member NAME (PREFIX "module_NNNN.<...>SUFFIX"
 * [+ "/" KEY]) and the rank of its suffix, or -1 when it is not an
 * after-optimizations dump; *KEY is the profile a combined archive's
 * member belongs to (after its one "/" past the module's name), or NULL
 * for a member of every profile of the archive.
 */
static int
dump_id(const char *name, const char *prefix, int64_t *id, const char **key)
{
	size_t np = strlen(prefix), n;
	const char *p, *end, *slash;
	char buf[32];
	int rank;

	if (strncmp(name, prefix, np) != 0 ||
	    strncmp(name + np, "module_", 7) != 0)
		return -1;
	p = name + np + 7;
	*id = 0;
	for (end = p; *end >= '0' && *end <= '9' && end - p < 18; end++)
		*id = *id * 10 + (*end - '0');
	if (end == p || *end != '.')
		return -1;
	/* XLA writes %04d: "module_01." is no dump of program 1. */
	snprintf(buf, sizeof(buf), "%04lld", (long long)*id);
	if (strlen(buf) != (size_t)(end - p) || strncmp(buf, p, end - p) != 0)
		return -1;
	n = strlen(name);
	*key = NULL;
	if ((slash = strchr(end, '/')) != NULL) {
		/* A combined archive's "<dump>/<profile>". */
		if (slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
			return -1;
		*key = slash + 1;
		n = (size_t)(slash - name);
	}
	for (rank = 0; dump_suffixes[rank]; rank++) {
		size_t k = strlen(dump_suffixes[rank]);

		if ((size_t)(n - (size_t)(end + 1 - name)) > k &&
		    strncmp(name + n - k, dump_suffixes[rank], k) == 0)
			return rank;
	}
	return -1;
}

static int
cmp_dump(const void *pa, const void *pb)
{
	const struct input_dump *a = pa, *b = pb;

	return (a->program_id > b->program_id) -
	    (a->program_id < b->program_id);
}

/* The dumps being chosen for one profile: by program id, with the rank
 * of each one's suffix. */
struct dumpsel {
	struct u64map byid;
	int *rank;
	size_t cap, caprank;
};

/* Member NAME, the dump of program ID with suffix rank R, for profile P:
 * kept when P has none of that program yet or a worse suffix. */
static void
dump_add(struct input_profile *p, struct dumpsel *s, int64_t id,
    const char *name, int r)
{
	size_t j = u64map_get(&s->byid, (uint64_t)id);

	if (j != U64MAP_NONE) {
		if (r < s->rank[j]) {
			free(p->dump[j].member);
			p->dump[j].member = mem_strdup(name);
			s->rank[j] = r;
		}
		return;
	}
	mem_grow(&p->dump, &s->cap, p->ndump + 1, sizeof(*p->dump));
	mem_grow(&s->rank, &s->caprank, p->ndump + 1, sizeof(*s->rank));
	u64map_add(&s->byid, (uint64_t)id, p->ndump);
	p->dump[p->ndump].program_id = id;
	p->dump[p->ndump].member = mem_strdup(name);
	s->rank[p->ndump++] = r;
}

/*
 * The HLO dumps of profiles P[0..NP), all of them in archive D (NULL:
 * none) under PREFIX: one per program, the preferred suffix, then the
 * first name (archive_name order).  One pass over D's members for all
 * the profiles of a combined archive (a pass per profile was quadratic
 * in its size); a member "<dump>/<profile>" goes to that profile alone.
 */
static void
resolve_dumps(struct input_profile *p, size_t np, struct archive *d,
    const char *prefix)
{
	struct dumpsel *sel;
	struct strtab keys = { 0 };
	size_t i, j, *of;

	for (j = 0; j < np; j++)
		p[j].dumps = d;
	if (d == NULL || np == 0)
		return;
	sel = mem_calloc(np, sizeof(*sel));
	of = mem_calloc(np, sizeof(*of));
	for (j = 0; j < np; j++)
		of[strtab_intern(&keys, p[j].key, strlen(p[j].key), NULL)] = j;
	for (i = 0; i < archive_count(d); i++) {
		const char *name = archive_name(d, i), *key;
		int64_t id;
		int r = dump_id(name, prefix, &id, &key);

		if (r < 0)
			continue;
		if (key == NULL) {
			for (j = 0; j < np; j++)
				dump_add(&p[j], &sel[j], id, name, r);
		} else if ((j = strtab_find(&keys, key, strlen(key))) !=
		    STRTAB_NONE) {
			dump_add(&p[of[j]], &sel[of[j]], id, name, r);
		}
	}
	for (j = 0; j < np; j++) {
		u64map_free(&sel[j].byid);
		free(sel[j].rank);
		if (p[j].ndump > 0)
			qsort(p[j].dump, p[j].ndump, sizeof(*p[j].dump),
			    cmp_dump);
	}
	strtab_free(&keys);
	free(sel);
	free(of);
}

char *
input_thunk_metadata(const struct input_profile *p, int64_t program_id,
    const char *module)
{
	static const char *const suf[] = { ".thunk_metadata.pb.xz",
	    ".thunk_metadata.pb", NULL };
	const struct input_dump *d = input_dump(p, program_id);
	const char *b, *dot;
	size_t i, np, len;
	char *m;

	if (d == NULL)
		return NULL;
	/* "<dir>module_NNNN." from the HLO dump's name (a combined
	 * archive's "<dir>module_NNNN.<...>/<profile>" too). */
	for (b = d->member; *b; b++)
		if ((b == d->member || b[-1] == '/') &&
		    strncmp(b, "module_", 7) == 0)
			break;
	if (*b == '\0')
		return NULL;
	if ((dot = strchr(b, '.')) == NULL)
		return NULL;
	np = (size_t)(dot + 1 - d->member);
	for (i = 0; suf[i]; i++) {
		len = np + strlen(module) + strlen(suf[i]) +
		    (p->key ? strlen(p->key) + 1 : 0) + 1;
		m = mem_calloc(len, 1);
		memcpy(m, d->member, np);
		strcat(m, module);
		strcat(m, suf[i]);
		if (archive_has(p->dumps, m))
			return m;
		if (p->key) {
			strcat(m, "/");
			strcat(m, p->key);
			if (archive_has(p->dumps, m))
				return m;
		}
		free(m);
	}
	return NULL;
}

const struct input_dump *
input_dump(const struct input_profile *p, int64_t program_id)
{
	struct input_dump k;

	k.program_id = program_id;
	if (p->ndump == 0)
		return NULL;
	return bsearch(&k, p->dump, p->ndump, sizeof(*p->dump), cmp_dump);
}

/* ---- nsys-jax archives ---- */

/* The members of P, an nsys-jax archive's profile (its dumps apart:
 * resolve_dumps, once for all the profiles of the archive). */
static void
resolve_nsysjax(struct input_profile *p)
{
	const char *const *b;

	p->trace = input_member(p, TRACE);
	p->threads = input_member(p, "thread-metadata.parquet");
	for (b = pushpop_members; *b && p->pushpop == NULL; b++)
		p->pushpop = input_member(p, *b);
}

/* The dump directory DIR as an archive (NULL when it does not exist). */
static int
open_dumpdir(struct input_set *s, const char *dir, int required,
    struct archive **out)
{
	struct stat sb;

	*out = NULL;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		if (required)
			return err_fail("%s: not a directory (--hlo-dump)",
			    dir);
		return 0;
	}
	if ((*out = archive_open(dir)) == NULL)
		return err_prefix("%s", dir);
	add_archive(s, *out);
	return 0;
}

/* The dump directory of a bare export PATH: "dump" beside it. */
static char *
default_dumpdir(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;
	char *d = mem_alloc(n + 5);

	memcpy(d, path, n);
	strcpy(d + n, "dump");
	return d;
}

/* Whether PATH is a regular file that starts like a SQLite database (or
 * is named so: a damaged export must get the SQLite reader's message). */
static int
is_sqlite_file(const char *path)
{
	struct stat sb;
	char hdr[16];
	size_t got = 0;
	FILE *fp;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	if (ends_with(path, ".sqlite"))
		return 1;
	if ((fp = fopen(path, "rb")) != NULL) {
		got = fread(hdr, 1, sizeof(hdr), fp);
		fclose(fp);
	}
	return got == sizeof(hdr) && memcmp(hdr, sqlite_magic, 16) == 0;
}

/*
 * The export DB as the profile of input PATH (DB itself, or the export of
 * the report PATH), its dumps in DUMPDIR or "dump" beside PATH.  DB is
 * taken over.
 */
static int
open_sqlite_file(struct input_set *s, const char *path, char *db,
    const char *dumpdir)
{
	struct input_profile *p;
	struct archive *d;
	char *dir = dumpdir ? NULL : default_dumpdir(path);
	int rc;

	rc = open_dumpdir(s, dumpdir ? dumpdir : dir, dumpdir != NULL, &d);
	free(dir);
	if (rc != 0) {
		free(db);
		return -1;
	}
	p = add_profile(s, NULL, path, input_name(path), INPUT_SQLITE);
	p->sqlite_file = db;
	resolve_dumps(p, 1, d, "");
	return 0;
}

/* An archive holding one top-level *.sqlite: 1, 0 if none, -1 if more. */
static int
find_sqlite(struct input_set *s, struct archive *a, const char *path,
    const char *dumpdir)
{
	struct input_profile *p;
	struct archive *d = a;
	const char *found = NULL;
	struct stat sb;
	size_t i;

	for (i = 0; i < archive_count(a); i++) {
		const char *m = archive_name(a, i);

		if (strchr(m, '/') != NULL || !ends_with(m, ".sqlite"))
			continue;
		if (found)
			return err_fail("%s: holds %s and %s: one nsys export "
			    "per input (give each process its own)", path,
			    found, m);
		found = m;
	}
	if (found == NULL)
		return 0;
	if (dumpdir && open_dumpdir(s, dumpdir, 1, &d) != 0)
		return -1;
	p = add_profile(s, a, path, input_name(path), INPUT_SQLITE);
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		p->sqlite_file = mem_path(path, found);
	} else {
		p->sqlite_member = mem_strdup(found);
	}
	resolve_dumps(p, 1, d, dumpdir ? "" : "dump/");
	return 1;
}

static int
find_profiles(struct input_set *s, struct archive *a, const char *path,
    const char *dumpdir)
{
	size_t i, before = s->n, plen = strlen(TRACE "/");
	int rc;

	if (archive_has(a, TRACE)) {
		struct input_profile *p = add_profile(s, a, path,
		    input_name(path), INPUT_NSYSJAX);

		resolve_nsysjax(p);
		resolve_dumps(p, 1, a, "dump/");
		return 0;
	}
	for (i = 0; i < archive_count(a); i++) {
		const char *m = archive_name(a, i);

		if (strncmp(m, TRACE "/", plen) == 0 && m[plen] != '\0' &&
		    strchr(m + plen, '/') == NULL)
			add_profile(s, a, path, mem_strdup(m + plen),
			    INPUT_NSYSJAX);
	}
	if (s->n > before) {	/* else s->p may be NULL: no offset on it */
		for (i = before; i < s->n; i++)
			resolve_nsysjax(&s->p[i]);
		resolve_dumps(&s->p[before], s->n - before, a, "dump/");
		return 0;
	}
	if ((rc = find_sqlite(s, a, path, dumpdir)) != 0)
		return rc < 0 ? -1 : 0;
	return err_fail("%s: no %s: not an nsys-jax archive (nor an nsys "
	    "export: no *.sqlite)", path, TRACE);
}

/*
 * What makes two inputs the same profile: the same file (device and
 * inode, symbolic links followed), or the same trace: the size and
 * CRC-32 of the profile's own trace (nvtx_gpu_proj_trace/trace.parquet,
 * or its *.sqlite export), whatever holds it: a directory, a zip of it
 * (with a top folder or not), a zip re-made by another tool or at
 * another level.  A zip's central directory holds its members' CRC-32s,
 * so a zip's trace costs nothing; a file's is computed, and only for
 * profiles whose trace has the size of another's (input_ident computes
 * every one, for the parts of a merge).
 */

/* The size of profile P's trace into *SIZE, and its CRC-32 into P when
 * the zip's directory gives it: 0, or -1 when it cannot be read (the
 * check then passes it: extracting it reports the error). */
static int
trace_size(struct input_profile *p, uint64_t *size)
{
	const char *m = p->sqlite_member ? p->sqlite_member : p->trace;
	struct stat sb;
	uint32_t crc;
	int rc;

	if (p->ident)
		return p->ident > 0 ? (*size = p->ident_bytes, 0) : -1;
	if (m == NULL || p->ar == NULL) {
		if (p->sqlite_file == NULL || stat(p->sqlite_file, &sb) != 0 ||
		    !S_ISREG(sb.st_mode))
			return -1;
		*size = (uint64_t)sb.st_size;
		return 0;
	}
	if ((rc = archive_stat(p->ar, m, size, &crc)) < 0)
		return -1;	/* its message is replaced when it matters */
	if (rc == 1) {
		p->ident = 1;
		p->ident_bytes = *size;
		p->ident_crc = crc;
	}
	return 0;
}

/* Profile P's trace identity into P->ident_bytes, P->ident_crc: 1, or
 * 0 when it cannot be read. */
static int
trace_digest(struct input_profile *p)
{
	const char *m = p->sqlite_member ? p->sqlite_member : p->trace;
	uint64_t size;
	int rc;

	if (p->ident == 0 && trace_size(p, &size) != 0)
		p->ident = -1;
	if (p->ident != 0)
		return p->ident > 0;
	if (m != NULL && p->ar != NULL)
		rc = archive_digest(p->ar, m, &p->ident_bytes, &p->ident_crc);
	else
		rc = archive_file_digest(p->sqlite_file, &p->ident_bytes,
		    &p->ident_crc);
	p->ident = rc == 0 ? 1 : -1;
	return rc == 0;
}

/*
 * Duplicates found by sorting: one key per input (or profile), and I its
 * index, so that equal keys sort in index order.  With each key followed
 * by the next equal one, the pair reported is the one a pairwise search
 * in index order would find first: the smallest I that has a later equal,
 * with its next equal.
 */
struct dupkey {
	uint64_t a, b;		/* device and inode, or size and CRC-32 */
	const char *name;	/* or a profile name */
	size_t i;
};

static int
cmp_dupkey(const void *pa, const void *pb)
{
	const struct dupkey *x = pa, *y = pb;
	int c;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->name != NULL && (c = strcmp(x->name, y->name)) != 0)
		return c;
	return (x->i > y->i) - (x->i < y->i);
}

/* Sort K[0..NK); NEXT[i] := the index of the next key equal to that of
 * index i, for each i that has one (the others are left as they are). */
static void
next_equal(struct dupkey *k, size_t nk, size_t *next)
{
	size_t j;

	qsort(k, nk, sizeof(*k), cmp_dupkey);
	for (j = 0; j + 1 < nk; j++)
		if (k[j].a == k[j + 1].a && k[j].b == k[j + 1].b &&
		    (k[j].name == NULL || strcmp(k[j].name, k[j + 1].name) == 0))
			next[k[j].i] = k[j + 1].i;
}

/* The first input of PATHS[0..N) that is the same file as a later one,
 * into *I and *J: 1, or 0 when there is none.  O(n log n). */
static int
same_file(const char *const *paths, size_t n, size_t *i, size_t *j)
{
	struct dupkey *k = mem_alloc((n ? n : 1) * sizeof(*k));
	size_t *next = mem_alloc((n ? n : 1) * sizeof(*next));
	size_t x, nk = 0;
	struct stat sb;

	for (x = 0; x < n; x++) {
		next[x] = n;
		if (stat(paths[x], &sb) == 0)
			k[nk++] = (struct dupkey){ (uint64_t)sb.st_dev,
			    (uint64_t)sb.st_ino, NULL, x };
	}
	next_equal(k, nk, next);
	for (x = 0; x < n && next[x] == n; x++)
		;
	*i = x;
	*j = x < n ? next[x] : n;
	free(next);
	free(k);
	return x < n;
}

/* The first profile of S whose trace is a later one's, into *I and *J:
 * 1, or 0 when there is none.  Sizes first (stat, or a zip's directory),
 * then the CRC-32 of the traces whose size is not unique.  O(n log n)
 * and the reading of those traces. */
static int
same_trace(struct input_set *s, size_t *i, size_t *j)
{
	size_t n = s->n, x, nk = 0, nc = 0;
	struct dupkey *k = mem_alloc((n ? n : 1) * sizeof(*k));
	struct dupkey *c = mem_alloc((n ? n : 1) * sizeof(*c));
	size_t *next = mem_alloc((n ? n : 1) * sizeof(*next));
	uint64_t size;

	for (x = 0; x < n; x++)
		if (trace_size(&s->p[x], &size) == 0)
			k[nk++] = (struct dupkey){ size, 0, NULL, x };
	qsort(k, nk, sizeof(*k), cmp_dupkey);
	for (x = 0; x < nk; x++) {
		const struct input_profile *p = &s->p[k[x].i];

		if (((x > 0 && k[x - 1].a == k[x].a) ||
		    (x + 1 < nk && k[x + 1].a == k[x].a)) &&
		    trace_digest(&s->p[k[x].i]))
			c[nc++] = (struct dupkey){ p->ident_bytes,
			    p->ident_crc, NULL, k[x].i };
	}
	for (x = 0; x < n; x++)
		next[x] = n;
	next_equal(c, nc, next);
	for (x = 0; x < n && next[x] == n; x++)
		;
	*i = x;
	*j = x < n ? next[x] : n;
	free(next);
	free(c);
	free(k);
	return x < n;
}

/* The index in PATHS[0..N) of the input of profile K of S. */
static size_t
input_of(const struct input_set *s, size_t k, const char *const *paths,
    size_t n)
{
	size_t i;

	for (i = 0; i < n && paths[i] != s->p[k].path; i++)
		;
	return i;
}

/* "PATH", or "PATH (profile KEY)" in a combined archive, into BUF. */
static const char *
profile_label(const struct input_profile *p, char *buf, size_t cap)
{
	if (p->trace && strcmp(p->trace, TRACE) != 0)
		snprintf(buf, cap, "%s (profile %s)", p->path, p->key);
	else
		snprintf(buf, cap, "%s", p->path);
	return buf;
}

/* A profile given twice (the same file, or the same trace in another
 * container or under another name: it would be taken as two
 * processes): -1 with the message.  The pair reported is the one whose
 * first input comes first; the same file before the same trace. */
static int
check_distinct(struct input_set *s, const char *const *paths, size_t n)
{
	size_t fi, fj, ti, tj, ii;
	char a[1024], b[1024];
	int f = same_file(paths, n, &fi, &fj);

	if (!same_trace(s, &ti, &tj) ||
	    (f && (ii = input_of(s, ti, paths, n)) >= fi)) {
		if (!f)
			return 0;
		return err_fail("%s and %s are the same file: give each "
		    "process's profile once", paths[fi], paths[fj]);
	}
	(void)ii;
	return err_fail("%s and %s hold the same profile (the same trace: "
	    "%llu bytes, CRC-32 %08lx): give each process's profile once",
	    profile_label(&s->p[ti], a, sizeof(a)),
	    profile_label(&s->p[tj], b, sizeof(b)),
	    (unsigned long long)s->p[ti].ident_bytes,
	    (unsigned long)s->p[ti].ident_crc);
}

/* Two profiles with one name: -1 with the message.  O(n log n). */
static int
check_names(const struct input_set *s)
{
	struct dupkey *k = mem_alloc((s->n ? s->n : 1) * sizeof(*k));
	size_t *next = mem_alloc((s->n ? s->n : 1) * sizeof(*next));
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n; i++) {
		k[i] = (struct dupkey){ 0, 0, s->p[i].name, i };
		next[i] = s->n;
	}
	next_equal(k, s->n, next);
	for (i = 0; i < s->n && rc == 0; i++)
		if (next[i] < s->n)
			rc = err_fail("%s and %s both hold a profile named %s",
			    s->p[i].path, s->p[next[i]].path, s->p[i].name);
	free(next);
	free(k);
	return rc;
}

/*
 * The identity of profile K: the size and CRC-32 of its trace (as
 * check_distinct compares them), and within a combined archive the
 * profile's key, for people.  0 when the trace cannot be read (stdin, a
 * pipe).
 */
int
input_ident(struct input_set *s, size_t k, struct input_ident *out)
{
	struct input_profile *p = &s->p[k];

	memset(out, 0, sizeof(*out));
	if (!trace_digest(p))
		return 0;
	out->bytes = (int64_t)p->ident_bytes;
	out->hash = p->ident_crc;
	/* A single profile's trace is TRACE itself; a combined archive's
	 * is TRACE/<key>. */
	out->within = p->trace && strcmp(p->trace, TRACE) != 0 ? p->key : "";
	return 1;
}

const char *const input_ident_columns[] = { "Bytes", "Hash", "Profile",
    "Input", NULL };

int
input_write_idents(struct input_set *s, size_t lo, size_t hi,
    struct tsv_writer *w)
{
	struct input_ident id;
	char hex[17];
	size_t k;
	int rc = tsv_header(w, input_ident_columns);

	for (k = lo; k < hi && rc == 0; k++) {
		if (!input_ident(s, k, &id))
			continue;
		snprintf(hex, sizeof(hex), "%016llx",
		    (unsigned long long)id.hash);
		tsv_i64(w, id.bytes);
		tsv_str(w, hex);
		tsv_str(w, id.within);
		tsv_str(w, s->p[k].path);
		rc = tsv_eor(w);
	}
	return rc;
}

/* NAMES, "A,B,...", as the ProfileNames of S's profiles in order: 0, or
 * -1 with the message when they are not one per profile. */
static int
rename_profiles(struct input_set *s, const char *names)
{
	const char *p = names;
	size_t k;

	for (k = 0; k < s->n; k++) {
		size_t len = strcspn(p, ",");

		if (*p == '\0' || len == 0)
			return err_fail("%zu profile names for %zu profiles",
			    k, s->n);
		free(s->p[k].name);
		s->p[k].name = mem_strndup(p, len);
		p += len + (p[len] == ',');
	}
	if (*p != '\0')
		return err_fail("more profile names than the %zu profiles",
		    s->n);
	return 0;
}

int
input_open(const char *const *paths, size_t n, const char *dumpdir,
    struct input_set *s)
{
	return input_open_named(paths, n, dumpdir, NULL, s);
}

int
input_open_named(const char *const *paths, size_t n, const char *dumpdir,
    const char *names, struct input_set *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		struct archive *a;

		if (nsysrep_is_report(paths[i])) {
			char *db = nsysrep_export(paths[i]);

			if (db == NULL ||
			    open_sqlite_file(s, paths[i], db, dumpdir) != 0)
				return -1;
			continue;
		}
		if (is_sqlite_file(paths[i])) {
			if (open_sqlite_file(s, paths[i],
			    mem_strdup(paths[i]), dumpdir) != 0)
				return -1;
			continue;
		}
		if ((a = archive_open(paths[i])) == NULL)
			return err_prefix("%s", paths[i]);
		add_archive(s, a);
		if (find_profiles(s, a, paths[i], dumpdir) != 0)
			return -1;
	}
	/* The names given are the names: four report.sqlite under -n are
	 * four profiles. */
	if ((names && rename_profiles(s, names) != 0) || check_names(s) != 0)
		return -1;
	return check_distinct(s, paths, n);
}

void
input_close(struct input_set *s)
{
	size_t i, k;

	for (i = 0; i < s->nar; i++)
		archive_close(s->ar[i]);
	for (i = 0; i < s->n; i++) {
		struct input_profile *p = &s->p[i];

		free(p->name);
		free(p->key);
		free(p->trace);
		free(p->threads);
		free(p->pushpop);
		free(p->sqlite_file);
		free(p->sqlite_member);
		for (k = 0; k < p->ndump; k++)
			free(p->dump[k].member);
		free(p->dump);
	}
	free(s->ar);
	free(s->p);
	memset(s, 0, sizeof(*s));
}
