/* Decoded HLO dumps kept across the profiles of a run (dumpcache.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/sort.h"
#include "base/u64map.h"
#include "formats/archive.h"
#include "formats/hlo.h"
#include "formats/xz.h"
#include "profile/dumpcache.h"
#include "profile/heap.h"
#include "profile/input.h"

/* A dump of the plan: its key in the directories, where it is first. */
struct plan_dump {
	uint64_t size;		/* as stored */
	uint32_t crc;		/* CRC-32 of the stored bytes, if HAS_CRC */
	int has_crc;		/* a zip's member (else: size alone) */
	int taken;		/* a dump of the cache is this one */
	size_t count;		/* members with this key in the run */
	size_t first;		/* order of first appearance */
	char *path;		/* the archive that holds it first */
	char *member;
};

struct dumpcache {
	struct dumpcache_dump **d;
	size_t n, cap;
	struct u64map byraw;	/* rawdigest -> index in D */
	struct plan_dump *plan;
	size_t nplan, capplan;
	struct u64map bysize;	/* size -> index in PLAN */
	uint64_t *own;		/* per input: stored bytes left out of PLAN */
	size_t nown;
};

/* A dump member of an input, while planning: the input's index and its
 * entry's order of first appearance (plan_dump.first). */
struct plan_member {
	size_t input;
	size_t first;
};

static void
dump_free(struct dumpcache_dump *d)
{
	hlo_free(d->m);
	heap_free(d->heap);
	free(d->raw);
	free(d);
}

static void
plan_free(struct dumpcache *c)
{
	size_t i;

	for (i = 0; i < c->nplan; i++) {
		free(c->plan[i].path);
		free(c->plan[i].member);
	}
	free(c->plan);
	c->plan = NULL;
	c->nplan = c->capplan = 0;
	u64map_free(&c->bysize);
	free(c->own);
	c->own = NULL;
	c->nown = 0;
}

struct dumpcache *
dumpcache_new(void)
{
	return mem_calloc(1, sizeof(struct dumpcache));
}

void
dumpcache_free(struct dumpcache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		dump_free(c->d[i]);
	free(c->d);
	u64map_free(&c->byraw);
	plan_free(c);
	free(c);
}

size_t
dumpcache_count(const struct dumpcache *c)
{
	return c->n;
}

const struct dumpcache_dump *
dumpcache_at(const struct dumpcache *c, size_t i)
{
	return c->d[i];
}

struct dumpcache_dump *
dumpcache_find(const struct dumpcache *c, const uint8_t *raw, size_t len,
    uint64_t digest)
{
	struct u64map_it it;
	size_t i;

	for (i = u64map_first(&c->byraw, digest, &it); i != U64MAP_NONE;
	    i = u64map_next(&c->byraw, &it))
		if (c->d[i]->rawlen == len && memcmp(c->d[i]->raw, raw, len) == 0)
			return c->d[i];
	return NULL;
}

/* A new dump of RAW, as dumpcache_add decodes it, not in any cache;
 * NULL with the decoder's err message. */
static struct dumpcache_dump *
decode(uint8_t *raw, size_t rawlen, uint64_t rawdigest, uint8_t *data,
    size_t len, int heap)
{
	struct dumpcache_dump *d = mem_calloc(1, sizeof(*d));
	const uint8_t *pb;

	d->raw = raw;
	d->rawlen = rawlen;
	d->rawdigest = rawdigest;
	if (data == NULL && !xz_is_xz_data(raw, rawlen))
		len = rawlen;
	else if (data == NULL && xz_decode(raw, rawlen, &data, &len) != 0)
		goto bad;
	pb = data ? data : raw;
	if ((d->m = hlo_load(pb, len)) == NULL)
		goto bad;
	d->digest = mem_digest(pb, len);
	if (heap && (d->heap = heap_load(pb, len)) == NULL)
		goto bad;
	free(data);
	return d;
bad:
	free(data);
	dump_free(d);
	return NULL;
}

/* Mark D planned when its stored bytes are those of a dump of the plan
 * that no dump of C is yet (one dump per entry: with sizes alone, other
 * dumps of the same size are not kept). */
static void
plan_mark(struct dumpcache *c, struct dumpcache_dump *d)
{
	struct u64map_it it;
	uint32_t crc = 0;
	int have_crc = 0;
	size_t i;

	for (i = u64map_first(&c->bysize, d->rawlen, &it); i != U64MAP_NONE;
	    i = u64map_next(&c->bysize, &it)) {
		struct plan_dump *e = &c->plan[i];

		if (e->taken || e->size != d->rawlen)
			continue;
		if (e->has_crc && !have_crc) {
			crc = (uint32_t)crc32_z(0, d->raw, d->rawlen);
			have_crc = 1;
		}
		if (!e->has_crc || e->crc == crc) {
			e->taken = 1;
			d->planned = 1;
			return;
		}
	}
}

static void
add(struct dumpcache *c, struct dumpcache_dump *d)
{
	plan_mark(c, d);
	mem_grow(&c->d, &c->cap, c->n + 1, sizeof(*c->d));
	u64map_add(&c->byraw, d->rawdigest, c->n);
	c->d[c->n++] = d;
}

struct dumpcache_dump *
dumpcache_add(struct dumpcache *c, uint8_t *raw, size_t rawlen,
    uint64_t rawdigest, uint8_t *data, size_t len, int heap)
{
	struct dumpcache_dump *d = decode(raw, rawlen, rawdigest, data, len,
	    heap);

	if (d != NULL)
		add(c, d);
	return d;
}

void
dumpcache_release(struct dumpcache *c)
{
	size_t i, n = 0;

	u64map_free(&c->byraw);
	for (i = 0; i < c->n; i++) {
		if (!c->d[i]->used && !c->d[i]->planned) {
			dump_free(c->d[i]);
			continue;
		}
		c->d[i]->used = 0;
		u64map_add(&c->byraw, c->d[i]->rawdigest, n);
		c->d[n++] = c->d[i];
	}
	c->n = n;
}

/* ---- the plan ---- */

/* The entry of C's plan for a member of SIZE and CRC (HAS_CRC), added
 * (count 0) when new. */
static struct plan_dump *
plan_entry(struct dumpcache *c, uint64_t size, uint32_t crc, int has_crc)
{
	struct u64map_it it;
	struct plan_dump *e;
	size_t i;

	for (i = u64map_first(&c->bysize, size, &it); i != U64MAP_NONE;
	    i = u64map_next(&c->bysize, &it)) {
		e = &c->plan[i];
		if (e->size == size && e->has_crc == has_crc && e->crc == crc)
			return e;
	}
	mem_grow(&c->plan, &c->capplan, c->nplan + 1, sizeof(*c->plan));
	e = &c->plan[c->nplan];
	memset(e, 0, sizeof(*e));
	e->size = size;
	e->crc = crc;
	e->has_crc = has_crc;
	e->first = c->nplan;
	u64map_add(&c->bysize, size, c->nplan++);
	return e;
}

/* Count the dumps of the profiles of input PATH (the run's INPUT-th)
 * into C's plan, each listed in *M (*NM of them, capacity *CAPM). */
static void
plan_input(struct dumpcache *c, const char *path, const char *dumpdir,
    size_t input, struct plan_member **m, size_t *nm, size_t *capm)
{
	struct input_set in;
	size_t k, j;

	memset(&in, 0, sizeof(in));
	if (input_open(&path, 1, dumpdir, &in) != 0) {
		input_close(&in);
		return;
	}
	for (k = 0; k < in.n; k++) {
		const struct input_profile *p = &in.p[k];

		for (j = 0; p->dumps != NULL && j < p->ndump; j++) {
			struct plan_dump *e;
			uint64_t size;
			uint32_t crc;
			int r = archive_stat(p->dumps, p->dump[j].member,
			    &size, &crc);

			if (r < 0)
				continue;
			e = plan_entry(c, size, crc, r);
			mem_grow(m, capm, *nm + 1, sizeof(**m));
			(*m)[*nm].input = input;
			(*m)[(*nm)++].first = e->first;
			if (e->count++ == 0) {
				e->path = mem_strdup(archive_path(p->dumps));
				e->member = mem_strdup(p->dump[j].member);
			}
		}
	}
	input_close(&in);
}

/* The bytes a planned entry saves: one decoding per profile but one. */
static uint64_t
saving(const struct plan_dump *e)
{
	return (uint64_t)(e->count - 1) * e->size;
}

/* Larger savings first, then the order of first appearance. */
static int
cmp_saving(const void *a, const void *b, const void *ctx)
{
	const struct plan_dump *x = a, *y = b;
	uint64_t sx = saving(x), sy = saving(y);

	(void)ctx;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

void
dumpcache_plan(struct dumpcache *c, const char *const *paths, size_t n,
    const char *dumpdir)
{
	struct plan_dump *all;
	struct plan_member *m = NULL;
	uint64_t total = 0, *size;
	unsigned char *kept;
	size_t i, nall, nm = 0, capm = 0;

	plan_free(c);
	for (i = 0; i < n; i++)
		plan_input(c, paths[i], dumpdir, i, &m, &nm, &capm);
	/* Keep the entries worth it, within the budget. */
	all = c->plan;
	nall = c->nplan;
	size = mem_calloc(nall + 1, sizeof(*size));
	kept = mem_calloc(nall + 1, 1);
	for (i = 0; i < nall; i++)
		size[all[i].first] = all[i].size;
	sort_stable(all, nall, sizeof(*all), cmp_saving, NULL);
	c->plan = NULL;
	c->nplan = c->capplan = 0;
	u64map_free(&c->bysize);
	for (i = 0; i < nall; i++) {
		struct plan_dump *e = &all[i];

		if (e->count >= 2 && total + e->size <= DUMPCACHE_PLAN_BYTES) {
			total += e->size;
			kept[e->first] = 1;
			mem_grow(&c->plan, &c->capplan, c->nplan + 1,
			    sizeof(*c->plan));
			c->plan[c->nplan] = *e;
			u64map_add(&c->bysize, e->size, c->nplan++);
			continue;
		}
		free(e->path);
		free(e->member);
	}
	free(all);
	/* What each input decodes for itself: its dumps left out. */
	c->own = mem_calloc(n + 1, sizeof(*c->own));
	c->nown = n;
	for (i = 0; i < nm; i++)
		if (!kept[m[i].first])
			c->own[m[i].input] += size[m[i].first];
	free(m);
	free(size);
	free(kept);
	/* Dumps already in the cache may be planned ones (of this plan:
	 * an earlier plan's marks go). */
	for (i = 0; i < c->n; i++) {
		c->d[i]->planned = 0;
		plan_mark(c, c->d[i]);
	}
}

uint64_t
dumpcache_own_bytes(const struct dumpcache *c, size_t input)
{
	return input < c->nown ? c->own[input] : 0;
}

/* ---- preloading ---- */

/* One dump to decode in dumpcache_preload's threads. */
struct job {
	uint8_t *raw;
	size_t rawlen;
	uint64_t rawdigest;
	struct dumpcache_dump *d;	/* the result, or NULL */
};

struct jobs {
	struct job *v;
	size_t n;
	size_t next;		/* the next job to take (atomic) */
	int heap;
};

static void *
decode_jobs(void *arg)
{
	struct jobs *js = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&js->next, 1, __ATOMIC_RELAXED)) <
	    js->n) {
		struct job *j = &js->v[i];

		/* A bad dump: the extraction will say so in its turn. */
		j->d = decode(j->raw, j->rawlen, j->rawdigest, NULL, 0,
		    js->heap);
	}
	return NULL;
}

/* Read the stored bytes of the plan's entries not yet in C into JS,
 * each input opened once. */
static void
read_jobs(struct dumpcache *c, struct jobs *js)
{
	struct archive *ar = NULL;
	size_t i;

	js->v = mem_calloc(c->nplan + 1, sizeof(*js->v));
	for (i = 0; i < c->nplan; i++) {
		const struct plan_dump *e = &c->plan[i];
		struct job *j = &js->v[js->n];

		if (e->taken)
			continue;
		if (ar == NULL || strcmp(archive_path(ar), e->path) != 0) {
			archive_close(ar);
			if ((ar = archive_open(e->path)) == NULL)
				continue;
		}
		if (archive_read(ar, e->member, &j->raw, &j->rawlen) != 0)
			continue;
		j->rawdigest = mem_digest(j->raw, j->rawlen);
		if (dumpcache_find(c, j->raw, j->rawlen, j->rawdigest)) {
			free(j->raw);
			continue;
		}
		js->n++;
	}
	archive_close(ar);
}

size_t
dumpcache_preload(struct dumpcache *c, unsigned threads, int heap)
{
	struct jobs js;
	size_t i, added = 0;

	if (threads == 0 && (threads = pool_cores()) < 2)
		return 0;
	memset(&js, 0, sizeof(js));
	js.heap = heap;
	read_jobs(c, &js);
	pool_run(threads < js.n ? threads : js.n, decode_jobs, &js);
	for (i = 0; i < js.n; i++) {
		struct job *j = &js.v[i];

		if (j->d == NULL)
			continue;
		if (dumpcache_find(c, j->raw, j->rawlen, j->rawdigest)) {
			dump_free(j->d);
			continue;
		}
		add(c, j->d);
		added++;
	}
	free(js.v);
	return added;
}
