/*
 * nsysdb_out.c: what an nsys export loaded by nsysdb.c hands out: the
 * ranges' names (read by a deferred scan of NVTX_EVENTS once the sweep's
 * memory is freed), the rows of the nvtx frame, the projected ranges of
 * the XLA frames, the push/pop ranges of the compile frame, and the
 * release of it all (nsysdb.h).  It calls into nsysdb.c (nsysdb_impl.h),
 * never the other way.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/tsv.h"
#include "formats/sqldb.h"
#include "profile/nsysdb.h"
#include "profile/nsysdb_impl.h"

/* ---- the names' scan (deferred names) ---- */

/* The names' scan on a thread of its own: the rows it has done are
 * published (named) as it goes, for the writer to follow. */
struct nsysdb_namer {
	char sql[512];		/* the scan's */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t named;		/* ranges whose entries are in the arena */
	int done, rc;
	char msg[1024];		/* the err message of a failure */
	struct sqldb *db;	/* its own connection */
};

/* Publish that the first K ranges have their entries (all, when DONE). */
static void
names_publish(struct nsysdb *d, size_t k, int done)
{
	struct nsysdb_namer *nm = d->namer;

	if (nm == NULL)
		return;
	pthread_mutex_lock(&nm->mu);
	nm->named = k;
	nm->done = done;
	pthread_cond_broadcast(&nm->cv);
	pthread_mutex_unlock(&nm->mu);
}

/*
 * The texts of the ranges, read from DB in a second scan of NVTX_EVENTS
 * in rowid order (the ranges' order), into the arena that the first
 * scan sized (d->textroom): the arena never moves, so that the writer
 * can read the entries published while later ones are written.
 */
static int
names_scan(struct nsysdb *d, struct sqldb *db, const char *sql)
{
	struct sqldb_stmt *st;
	size_t k = 0;
	int rc = 0;

	if ((st = sqldb_prepare(db, sql)) == NULL)
		return err_prefix("NVTX_EVENTS");
	while (k < d->nr && (rc = sqldb_step(st)) == 1) {
		int64_t id = sqldb_i64(st, 0);
		size_t len;

		if (id < d->r[k].id)
			continue;	/* a range ending on another thread */
		(void)sqldb_bytes(st, 2, &len);
		if (id > d->r[k].id || d->narena + (len + 2 > 24 ? len + 2 :
		    24) > d->caparena) {
			rc = err_fail("row %lld: not as first read (the file "
			    "changed?)", (long long)d->r[k].id);
			break;
		}
		nsysdb_text_entry(d, k++, st, 1, 2);
		if (k % 4096 == 0)
			names_publish(d, k, 0);
	}
	sqldb_finalize(st);
	if (rc >= 0 && k < d->nr)
		rc = err_fail("row %lld: not found again (the file changed?)",
		    (long long)d->r[k].id);
	return rc < 0 ? err_prefix("NVTX_EVENTS") : 0;
}

static void *
names_thread(void *arg)
{
	struct nsysdb *d = arg;
	struct nsysdb_namer *nm = d->namer;
	int rc = names_scan(d, nm->db, nm->sql);

	if (rc != 0)
		snprintf(nm->msg, sizeof(nm->msg), "%s", err_msg());
	pthread_mutex_lock(&nm->mu);
	nm->rc = rc;
	pthread_mutex_unlock(&nm->mu);
	names_publish(d, d->nr, 1);
	return NULL;
}

int
nsysdb_names_start(struct nsysdb *d)
{
	const int64_t *t = d->types;
	struct nsysdb_namer *nm;
	int rc;

	if (!d->defer_names)
		return 0;
	d->defer_names = 0;
	d->arena = mem_realloc(d->spare, d->textroom + 1, 1);
	d->caparena = d->textroom + 1;
	d->spare = NULL;
	nm = mem_calloc(1, sizeof(*nm));
	snprintf(nm->sql, sizeof(nm->sql), "SELECT rowid, %s, %s FROM "
	    "NVTX_EVENTS NOT INDEXED WHERE eventType IN (%lld, %lld, %lld, "
	    "%lld)", nsysdb_col(d, "NVTX_EVENTS", "textId"),
	    nsysdb_col(d, "NVTX_EVENTS", "text"), (long long)t[T_PUSHPOP],
	    (long long)t[T_STARTEND], (long long)t[T_TPUSHPOP],
	    (long long)t[T_TSTARTEND]);
	/* A thread of its own when the file can be opened again (an export
	 * read from a zip member is in memory: this thread scans it). */
	if (d->path != NULL && d->nr > 0 &&
	    (nm->db = sqldb_open(d->path)) != NULL) {
		if (pthread_mutex_init(&nm->mu, NULL) != 0)
			goto here;
		if (pthread_cond_init(&nm->cv, NULL) != 0) {
			pthread_mutex_destroy(&nm->mu);
			goto here;
		}
		d->namer = nm;
		if (pthread_create(&nm->th, NULL, names_thread, d) == 0)
			return 0;
		d->namer = NULL;
		pthread_cond_destroy(&nm->cv);
		pthread_mutex_destroy(&nm->mu);
	}
here:
	rc = names_scan(d, d->db, nm->sql);
	sqldb_close(nm->db);
	free(nm);
	return rc;
}

/* Wait until range I has its entry; *READY: how many have (SIZE_MAX
 * when the scan is over or there is none).  Returns -1 when the scan
 * failed (its entries are not to be read). */
static int
names_wait(const struct nsysdb *d, size_t i, size_t *ready)
{
	struct nsysdb_namer *nm = d->namer;
	int rc;

	if (nm == NULL) {
		*ready = SIZE_MAX;
		return 0;
	}
	pthread_mutex_lock(&nm->mu);
	while (nm->named <= i && !nm->done)
		pthread_cond_wait(&nm->cv, &nm->mu);
	*ready = nm->done ? SIZE_MAX : nm->named;
	rc = nm->done && nm->rc != 0 ? -1 : 0;
	pthread_mutex_unlock(&nm->mu);
	return rc;
}

int
nsysdb_names_finish(struct nsysdb *d)
{
	struct nsysdb_namer *nm = d->namer;
	int rc;

	if (nm == NULL)
		return 0;
	pthread_join(nm->th, NULL);
	d->namer = NULL;
	rc = nm->rc;
	if (rc != 0)
		err_fail("%s", nm->msg);
	pthread_cond_destroy(&nm->cv);
	pthread_mutex_destroy(&nm->mu);
	sqldb_close(nm->db);
	free(nm);
	return rc;
}

/* ---- names and output ---- */

/* The name of range I ("domain:text") into *BUF (grown as needed);
 * its length in *LEN. */
static const char *
name_into(const struct nsysdb *d, size_t i, struct nsysdb_cursor *c,
    char **buf, size_t *cap, size_t *len)
{
	int32_t k = d->rdomain[i] >= 0 ? d->ddom[d->rdomain[i]] : -1;
	const char *dom = k >= 0 ? d->dom[k].name : "";
	const char *text = nsysdb_text_of(d, i, c);
	size_t nd = strlen(dom), nt = strlen(text);

	mem_grow(buf, cap, nd + nt + 2, 1);
	memcpy(*buf, dom, nd);
	(*buf)[nd] = ':';
	memcpy(*buf + nd + 1, text, nt + 1);
	*len = nd + nt + 1;
	return *buf;
}

const char *
nsysdb_name(struct nsysdb *d, size_t i)
{
	size_t len;

	/* Its callers check nsysdb_names_finish first. */
	if (d->namer != NULL && nsysdb_names_finish(d) != 0)
		return "";

	return name_into(d, i, &d->cur, &d->scratch, &d->capscratch, &len);
}

/*
 * ":id:id:...:id", the ids of R[I] and its ancestors by PARENT from the
 * root, into *BUF (grown as needed; NUL-terminated), with its length in
 * *LEN and the number of ancestors (I's depth, Lvl) in *LVL.  Written
 * from the end backwards, by hand: it runs for millions of rows.
 */
static const char *
range_stack(const struct nvtxproj_range *r, const int32_t *parent, size_t i,
    char **buf, size_t *cap, size_t *len, size_t *lvl)
{
	size_t depth = 0, pos;
	long x;

	for (x = (long)i; x >= 0; x = parent[x])
		depth++;
	mem_grow(buf, cap, depth * 21 + 1, 1);
	pos = depth * 21;
	(*buf)[pos] = '\0';
	for (x = (long)i; x >= 0; x = parent[x]) {
		int64_t id = r[x].id;
		uint64_t a = id < 0 ? (uint64_t)0 - (uint64_t)id : (uint64_t)id;

		pos = (size_t)(num_u64_digits(*buf + pos, a) - *buf);
		if (id < 0)
			(*buf)[--pos] = '-';
		(*buf)[--pos] = ':';
	}
	*len = depth * 21 - pos;
	*lvl = depth - 1;
	return *buf + pos;
}

/* A formatter's own buffers (one per thread). */
struct rowbuf {
	char *name, *stack;
	size_t capname, capstack;
	struct nsysdb_cursor cur;
	size_t ready;		/* ranges known to have their names */
};

/* Row K of P's order (range P->order[K]) to W. */
static int
nvtx_row(const struct nsysdb *d, const struct nvtxproj *p, size_t k,
    struct tsv_writer *w, struct rowbuf *b)
{
	size_t i = p->order[k], len = 0, slen, lvl;
	const struct nvtxproj_range *r = &d->r[i];
	const char *name = "";
	const char *stack = range_stack(d->r, p->parent, i, &b->stack,
	    &b->capstack, &slen, &lvl);

	/* The names' scan may still be under way: wait for this one.  A
	 * failed scan leaves names empty, and nsysdb_write_nvtx fails. */
	if ((i < b->ready || names_wait(d, i, &b->ready) == 0))
		name = name_into(d, i, &b->cur, &b->name, &b->capname, &len);
	tsv_strn(w, name, len);
	tsv_i64(w, p->pstart[i]);
	tsv_i64(w, p->pend[i] - p->pstart[i]);
	tsv_i64(w, r->start);
	tsv_i64(w, r->end - r->start);
	tsv_str(w, d->rpushpop[i] ? "PushPop" : "StartEnd");
	tsv_i64(w, PIDOF(r->tid));
	tsv_i64(w, TIDOF(r->tid));
	tsv_i64(w, p->nops[i]);
	tsv_i64(w, (int64_t)lvl);
	tsv_i64(w, p->nchild[i]);
	tsv_i64(w, r->id);
	if (p->parent[i] < 0)
		tsv_empty(w);
	else
		tsv_i64(w, d->r[p->parent[i]].id);
	tsv_raw(w, stack, slen);	/* digits and colons: nothing to escape */
	return tsv_eor(w);
}

/* Rows a formatter does at a time: large enough that handing a chunk
 * over costs nothing, small enough that two in memory are a few MB. */
#define CHUNK	8192

/*
 * Two formatters: the caller formats the even chunks of rows straight
 * into the output, a helper thread the odd ones into two memory writers
 * in turn, which the caller copies out in order.  Formatting (numbers,
 * escapes, range stacks) is most of the cost of writing millions of
 * rows; the bytes are the same as one formatter's.
 */
struct fmtjob {
	const struct nsysdb *d;
	const struct nvtxproj *p;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct tsv_writer *buf[2];
	size_t full[2];		/* chunk + 1 that buf holds, 0: free */
	int stop;
	struct rowbuf rb;
};

static void *
fmt_thread(void *arg)
{
	struct fmtjob *j = arg;
	size_t k, r;

	for (k = 1; k * CHUNK < j->p->nout; k += 2) {
		int s = (int)(k / 2 % 2);

		pthread_mutex_lock(&j->mu);
		while (j->full[s] != 0 && !j->stop)
			pthread_cond_wait(&j->cv, &j->mu);
		pthread_mutex_unlock(&j->mu);
		if (j->stop)
			break;
		tsv_mreset(j->buf[s]);
		for (r = k * CHUNK; r < (k + 1) * CHUNK && r < j->p->nout; r++)
			(void)nvtx_row(j->d, j->p, r, j->buf[s], &j->rb);
		pthread_mutex_lock(&j->mu);
		j->full[s] = k + 1;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
	}
	return NULL;
}

/* Chunk K (odd) from the helper to W. */
static int
take_chunk(struct fmtjob *j, size_t k, struct tsv_writer *w)
{
	int s = (int)(k / 2 % 2), rc;
	const char *rows;
	size_t len;

	pthread_mutex_lock(&j->mu);
	while (j->full[s] != k + 1)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	rows = tsv_mbuf(j->buf[s], &len);
	rc = tsv_rows(w, rows, len);
	pthread_mutex_lock(&j->mu);
	j->full[s] = 0;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return rc;
}

/* All rows of P to W, on two threads when there are several chunks and
 * a thread can be started, else on this one. */
static int
nvtx_rows(struct nsysdb *d, const struct nvtxproj *p, struct tsv_writer *w)
{
	struct rowbuf rb = { NULL, NULL, 0, 0, { 0, 0 }, 0 };
	struct fmtjob j;
	pthread_t th;
	int threaded = 0, rc = 0;
	size_t k, r;

	memset(&j, 0, sizeof(j));
	j.d = d, j.p = p;
	if (p->nout > CHUNK && pthread_mutex_init(&j.mu, NULL) == 0) {
		if (pthread_cond_init(&j.cv, NULL) == 0) {
			j.buf[0] = tsv_mopen();
			j.buf[1] = tsv_mopen();
			threaded = pthread_create(&th, NULL, fmt_thread, &j) == 0;
			if (!threaded)
				pthread_cond_destroy(&j.cv);
		}
		if (!threaded)
			pthread_mutex_destroy(&j.mu);
	}
	for (k = 0; k * CHUNK < p->nout && rc == 0; k++) {
		if (threaded && k % 2 == 1) {
			rc = take_chunk(&j, k, w);
			continue;
		}
		for (r = k * CHUNK; r < (k + 1) * CHUNK && r < p->nout &&
		    rc == 0; r++)
			rc = nvtx_row(d, p, r, w, &rb);
	}
	if (threaded) {
		pthread_mutex_lock(&j.mu);
		j.stop = 1;
		pthread_cond_broadcast(&j.cv);
		pthread_mutex_unlock(&j.mu);
		pthread_join(th, NULL);
		pthread_cond_destroy(&j.cv);
		pthread_mutex_destroy(&j.mu);
	}
	if (j.buf[0] != NULL) {
		tsv_wclose(j.buf[0]);
		tsv_wclose(j.buf[1]);
	}
	free(j.rb.name);
	free(j.rb.stack);
	free(rb.name);
	free(rb.stack);
	return rc;
}

int
nsysdb_write_nvtx(struct nsysdb *d, const struct nvtxproj *p,
    struct tsv_writer *w, int header)
{
	int rc = 0;

	if (header && tsv_header(w, nsysdb_nvtx_columns) != 0)
		rc = -1;
	if (rc == 0)
		rc = nvtx_rows(d, p, w);
	if (nsysdb_names_finish(d) != 0)
		rc = -1;
	return rc;
}

void
nsysdb_proj_ranges(struct nsysdb *d, const struct nvtxproj *p,
    struct proj_range **out, size_t *n, char ***names, size_t *nnames)
{
	struct proj_range *v = mem_calloc(p->nout + 1, sizeof(*v));
	char **s = mem_calloc(p->nout + 1, sizeof(*s));
	size_t k;

	for (k = 0; k < p->nout; k++) {
		size_t i = p->order[k];
		const struct nvtxproj_range *r = &d->r[i];

		s[k] = mem_strdup(nsysdb_name(d, i));
		v[k].name = s[k];
		v[k].start = p->pstart[i];
		v[k].dur = p->pend[i] - p->pstart[i];
		v[k].orig_start = r->start;
		v[k].orig_dur = r->end - r->start;
		v[k].pid = PIDOF(r->tid);
		v[k].tid = TIDOF(r->tid);
		v[k].num_gpu_ops = p->nops[i];
		v[k].id = r->id;
		v[k].parent = p->parent[i] < 0 ? -1 : d->r[p->parent[i]].id;
	}
	*out = v;
	*n = p->nout;
	*names = s;
	*nnames = p->nout;
}

/* ---- push/pop ranges (nvtx_pushpop_trace) ---- */

static const struct nvtxproj_range *pp_r;

static int
cmp_pp(const void *pa, const void *pb)
{
	const struct nvtxproj_range *a = &pp_r[*(const size_t *)pa];
	const struct nvtxproj_range *b = &pp_r[*(const size_t *)pb];

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

int
nsysdb_pushpop(struct nsysdb *d, struct compile_range **out, size_t *n)
{
	struct nvtxproj_range *r = mem_calloc(d->nr + 1, sizeof(*r));
	size_t *map = mem_calloc(d->nr + 1, sizeof(*map));
	size_t *ord, i, m = 0;
	struct compile_range *v;
	struct nvtxproj p;

	for (i = 0; i < d->nr; i++)
		if (d->rpushpop[i]) {
			map[m] = i;
			r[m++] = d->r[i];
		}
	/* No calls: only the CPU tree is wanted. */
	nvtxproj_run(r, m, NULL, 0, NULL, NULL, &p);
	v = mem_calloc(m + 1, sizeof(*v));
	for (i = 0; i < m; i++) {
		v[i].start_ns = r[i].start;
		v[i].end_ns = r[i].end;
		v[i].dur_ns = r[i].end - r[i].start;
		v[i].name = mem_strdup(nsysdb_name(d, map[i]));
		v[i].tid = TIDOF(r[i].tid);
		v[i].range_id = r[i].id;
		v[i].parent_id = p.parent[i] < 0 ? -1 : r[p.parent[i]].id;
	}
	for (i = 0; i < m; i++) {
		size_t len, lvl;

		v[i].range_stack = mem_strdup(range_stack(r, p.parent, i,
		    &d->stackbuf, &d->capstackbuf, &len, &lvl));
		if (p.parent[i] >= 0) {
			v[p.parent[i]].num_child++;
			v[p.parent[i]].dur_child_ns += v[i].dur_ns;
		}
	}
	for (i = 0; i < m; i++)
		v[i].dur_nonchild_ns = v[i].dur_ns - v[i].dur_child_ns;
	/* The report's order: by start (then longer first, then id). */
	ord = mem_calloc(m + 1, sizeof(*ord));
	for (i = 0; i < m; i++)
		ord[i] = i;
	pp_r = r;
	qsort(ord, m, sizeof(*ord), cmp_pp);
	*out = mem_calloc(m + 1, sizeof(**out));
	for (i = 0; i < m; i++)
		(*out)[i] = v[ord[i]];
	*n = m;
	free(v);
	free(ord);
	free(map);
	free(r);
	nvtxproj_free(&p);
	return 0;
}

void
nsysdb_free(struct nsysdb *d)
{
	size_t i;

	(void)nsysdb_names_finish(d);
	sqldb_close(d->db);
	for (i = 0; i < d->nstr; i++)
		free(d->sval[i]);
	free(d->sid);
	free(d->sval);
	free(d->r);
	free(d->rtext);
	free(d->rdomain);
	free(d->ddom);
	free(d->rpushpop);
	free(d->arena);
	for (i = 0; i < d->ndom; i++)
		free(d->dom[i].name);
	free(d->dom);
	free(d->c);
	free(d->spare);
	free(d->corder);
	free(d->g);
	free(d->gop);
	free(d->gcall);
	free(d->rbyid);
	free(d->threads);
	free(d->scratch);
	free(d->stackbuf);
	free(d->path);
	memset(d, 0, sizeof(*d));
}
