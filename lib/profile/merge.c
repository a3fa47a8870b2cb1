/* Joining separately extracted frames (merge.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/ids.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/num.h"
#include "base/outfile.h"
#include "base/pool.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "base/u64map.h"
#include "profile/extract.h"
#include "profile/input.h"
#include "profile/merge.h"
#include "profile/merge_impl.h"

/* ---- one part's frame file ---- */

#define MAXKEY 5

/* A sort key column: its name and whether it is an integer. */
struct keycol {
	const char *name;
	int num;
};

static const struct keycol thunk_key[] = {
	{ "ProgramId", 0 }, { "ProgramExecution", 1 }, { "Name", 0 },
	{ "ThunkExecution", 1 }, { "Device", 1 }, { NULL, 0 }
};
static const struct keycol module_key[] = {
	{ "ProgramId", 0 }, { "ProgramExecution", 1 }, { "Device", 1 },
	{ NULL, 0 }
};
static const struct keycol heap_key[] = { { "ProgramId", 0 }, { NULL, 0 } };

struct src {
	FILE *fp;
	struct tsv_reader *r;
	char *name;		/* for messages */
	size_t index;		/* part order: ties go to the lower */
	int eof;
	const struct keycol *key;
	size_t nkey;
	long col[MAXKEY];
	const char *s[MAXKEY];	/* string keys, unescaped (tsv_field) */
	int64_t v[MAXKEY];	/* integer keys */
	char *ps[MAXKEY];	/* the previous row's string keys */
	size_t pcap[MAXKEY];
	int64_t pv[MAXKEY];	/* and integer keys */
	/* The string keys' ids in TAB[i], shared by the sources of a merge
	 * (NULL: none): equal ids are equal strings, so that the heap's
	 * comparisons, mostly of equal ProgramIds and thunk names, do not
	 * compare the strings (they were 40% of a merge's time).
	 * STRTAB_NONE: not interned (beyond MERGE_MAX_IDS). */
	struct strtab *tab;
	size_t id[MAXKEY], pid[MAXKEY];
	uint64_t hash;		/* heap: of this part's current group */
	int ingroup;		/* heap: hash has begun */
};

/* The most distinct values of one string key given ids in a merge:
 * beyond (not an SPMD run's thunk names), strings are compared. */
#define MERGE_MAX_IDS ((size_t)1 << 18)

/* What a merge carries down to its groups: where warnings go, whether
 * heap rows are compared (no heapsums in the parts), and the ids of the
 * string keys (struct src). */
struct mctx {
	struct err_notes *notes;
	int text_check;
	struct strtab tab[MAXKEY];
	/* Parts that share a device (merge_shared_begin), or NULL; with it
	 * the thunk or communication frame is renumbered. */
	const struct merge_shared *sh;
};

static char *
frame_path(const char *dir, unsigned bit)
{
	const char *name = "";
	char *p;
	size_t i;

	for (i = 0; extract_frame_names[i]; i++)
		if (bit == 1u << i)
			name = extract_frame_names[i];
	p = mem_alloc(strlen(dir) + strlen(name) + 6);
	sprintf(p, "%s/%s.tsv", dir, name);
	return p;
}

static int
src_key(struct src *s)
{
	size_t i;

	for (i = 0; i < s->nkey; i++) {
		if (s->key[i].num) {
			if (tsv_get_i64(s->r, (size_t)s->col[i], &s->v[i], 0) != 0)
				return -1;
		} else {
			s->s[i] = tsv_field(s->r, (size_t)s->col[i]);
		}
	}
	return 0;
}

/* Keep the current row's key as the previous one (buffers reused: no
 * allocation per row). */
static void
save_key(struct src *s)
{
	size_t i, n;

	for (i = 0; i < s->nkey; i++) {
		if (s->key[i].num) {
			s->pv[i] = s->v[i];
			continue;
		}
		s->pid[i] = s->id[i];
		n = strlen(s->s[i]) + 1;
		mem_grow(&s->ps[i], &s->pcap[i], n, 1);
		memcpy(s->ps[i], s->s[i], n);
	}
}

/* One key column of two rows: integers V and W when NUM, else strings
 * S and T with ids ID and JD (struct src: equal ids, equal strings). */
static int
col_cmp(int num, int64_t v, size_t id, const char *s, int64_t w, size_t jd,
    const char *t)
{
	if (num)
		return (v > w) - (v < w);
	if (id != STRTAB_NONE && id == jd)
		return 0;
	return strcmp(s, t);
}

/* Whether the current key sorts before the previous row's. */
static int
before_prev(const struct src *s)
{
	size_t i;
	int c;

	for (i = 0; i < s->nkey; i++)
		if ((c = col_cmp(s->key[i].num, s->v[i], s->id[i], s->s[i],
		    s->pv[i], s->pid[i], s->ps[i])) != 0)
			return c < 0;
	return 0;
}

/* The ids of S's string keys (struct src): the previous row's when the
 * string is the same (the common case), else from the table. */
static void
key_ids(struct src *s, int first)
{
	size_t i, len;

	for (i = 0; i < s->nkey; i++) {
		struct strtab *t = s->tab ? &s->tab[i] : NULL;

		if (s->key[i].num)
			continue;
		if (t == NULL) {
			s->id[i] = STRTAB_NONE;
			continue;
		}
		if (!first && s->pid[i] != STRTAB_NONE &&
		    strcmp(s->s[i], s->ps[i]) == 0) {
			s->id[i] = s->pid[i];
			continue;
		}
		len = strlen(s->s[i]);
		s->id[i] = t->n < MERGE_MAX_IDS ?
		    strtab_intern(t, s->s[i], len, NULL) :
		    strtab_find(t, s->s[i], len);
	}
}

/*
 * Read the next row of S and its key; EOF sets s->eof.  A part must be
 * sorted as its frame is (the merge's premise): a row before the one
 * read before it is an error.
 */
static int
src_next(struct src *s)
{
	int rc, first = s->r != NULL && tsv_lineno(s->r) < 2;

	if (s->key && !first)
		save_key(s);
	if ((rc = tsv_next(s->r)) < 0)
		return -1;
	if (rc == 0) {
		s->eof = 1;
		return 0;
	}
	if (s->key == NULL)
		return 0;
	if (src_key(s) != 0)
		return -1;
	key_ids(s, first);
	if (!first && before_prev(s))
		return err_fail("%s:%ld: not in the frame's order (the part must "
		    "be an nsysjax-extract output)", s->name, tsv_lineno(s->r));
	return 0;
}

static int
keycmp(const struct src *a, const struct src *b)
{
	size_t i;
	int c;

	for (i = 0; i < a->nkey; i++)
		if ((c = col_cmp(a->key[i].num, a->v[i], a->id[i], a->s[i],
		    b->v[i], b->id[i], b->s[i])) != 0)
			return c;
	return 0;
}

static void
src_close(struct src *s)
{
	size_t i;

	for (i = 0; i < MAXKEY; i++)
		free(s->ps[i]);
	tsv_rclose(s->r);
	if (s->fp)
		fclose(s->fp);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

/* Open FP (named NAME; S takes both) and read its header and first row;
 * string keys get ids in TAB (or none: NULL). */
static int
src_open_fp(struct src *s, FILE *fp, char *name, size_t index,
    const struct keycol *key, struct strtab *tab)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->fp = fp;
	s->name = name;
	s->index = index;
	s->key = key;
	s->tab = tab;
	if ((s->r = tsv_ropen(fp, name)) == NULL)
		return -1;
	for (i = 0; key && key[i].name; i++)
		if ((s->col[i] = tsv_require(s->r, key[i].name)) < 0)
			return -1;
	s->nkey = i;
	return src_next(s);
}

static int
src_open(struct src *s, const char *dir, unsigned bit, size_t index,
    const struct keycol *key, struct strtab *tab)
{
	char *path = frame_path(dir, bit);
	FILE *fp = fopen(path, "r");

	if (fp == NULL) {
		err_fail("%s: cannot open: %s", path, strerror(errno));
		free(path);
		memset(s, 0, sizeof(*s));
		return -1;
	}
	return src_open_fp(s, fp, path, index, key, tab);
}

/* Whether S has the header of the first part, FIRST. */
static int
same_header(const struct src *s, const struct src *first)
{
	size_t i;

	if (tsv_ncols(s->r) != tsv_ncols(first->r))
		return 0;
	for (i = 0; i < tsv_ncols(s->r); i++)
		if (strcmp(tsv_colname(s->r, i), tsv_colname(first->r, i)) != 0)
			return 0;
	return 1;
}

static int
write_header(struct tsv_writer *w, const struct tsv_reader *r)
{
	size_t i;

	for (i = 0; i < tsv_ncols(r); i++)
		tsv_str(w, tsv_colname(r, i));
	return tsv_eor(w);
}

static int
copy_row(struct tsv_writer *w, const struct tsv_reader *r)
{
	size_t len;
	const char *line = tsv_rawline(r, &len);

	tsv_raw(w, line, len);
	return tsv_eor(w);
}

/* ---- sorted frames: thunk, communication, module ---- */

/* A binary heap of sources by (key, part). */
struct pq {
	struct src **v;
	size_t n;
};

static int
pq_less(const struct src *a, const struct src *b)
{
	int c = keycmp(a, b);

	return c < 0 || (c == 0 && a->index < b->index);
}

static void
pq_down(struct pq *q, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct src *t;

		if (l < q->n && pq_less(q->v[l], q->v[m]))
			m = l;
		if (l + 1 < q->n && pq_less(q->v[l + 1], q->v[m]))
			m = l + 1;
		if (m == i)
			return;
		t = q->v[i];
		q->v[i] = q->v[m];
		q->v[m] = t;
		i = m;
	}
}

static void
pq_build(struct pq *q)
{
	size_t i;

	for (i = q->n / 2; i-- > 0;)
		pq_down(q, i);
}

/* Whether the Orig columns of S's rows are empty (S is at its first
 * row); -1 when S has no row or no such column. */
static int
orig_empty(struct src *s, long col)
{
	size_t len;

	if (s->eof || col < 0)
		return -1;
	(void)tsv_rawfield(s->r, (size_t)col, &len);
	return len == 0;
}

/* Row of S to W, with the fields at BLANK[0..1] empty when >= 0. */
static int
emit(struct tsv_writer *w, struct src *s, const long *blank)
{
	size_t i, len;
	const char *f;

	if (blank[0] < 0)
		return copy_row(w, s->r);
	for (i = 0; i < tsv_ncols(s->r); i++) {
		if ((long)i == blank[0] || (long)i == blank[1]) {
			tsv_empty(w);
			continue;
		}
		f = tsv_rawfield(s->r, i, &len);
		tsv_raw(w, f, len);
	}
	return tsv_eor(w);
}

/* The heap of S[0..N)'s sources with a row, and the Orig columns to
 * leave empty in BLANK (struct emit). */
static void
kway_start(struct src *s, size_t n, struct pq *q, long *blank)
{
	int some_empty = 0, some_full = 0;
	size_t i;

	q->v = mem_calloc(n + 1, sizeof(*q->v));
	q->n = 0;
	blank[0] = blank[1] = -1;
	for (i = 0; i < n; i++) {
		long c = tsv_col(s[i].r, "OrigDurMs");
		int e = orig_empty(&s[i], c);

		some_empty |= e == 1;
		some_full |= e == 0;
		if (!s[i].eof)
			q->v[q->n++] = &s[i];
	}
	if (some_empty && some_full) {
		blank[0] = tsv_col(s[0].r, "OrigDurMs");
		blank[1] = tsv_col(s[0].r, "OrigStartMs");
	}
	pq_build(q);
}

static int
kway(struct src *s, size_t n, struct tsv_writer *w)
{
	struct pq q;
	long blank[2];
	int rc = 0;

	kway_start(s, n, &q, blank);
	while (q.n > 0 && rc == 0) {
		struct src *t = q.v[0];

		if ((rc = emit(w, t, blank)) == 0 && (rc = src_next(t)) == 0 &&
		    t->eof)
			q.v[0] = q.v[--q.n];
		pq_down(&q, 0);
	}
	free(q.v);
	return rc;
}

/* ---- parts that share a device (merge_shared_begin) ---- */

/* T's row into G: BLANK's fields empty, ThunkExecution (column TE) left
 * to the group; the text between those fields copied as it was read, a
 * span at a time. */
static void
group_add(struct merge_group *g, struct src *t, const long *blank, long te)
{
	size_t i, len, flen, from = 0;
	const char *line = tsv_rawline(t->r, &len), *fs;

	merge_group_row(g, t->s[0], t->v[1], t->s[2], t->v[3], t->v[4],
	    t->index);
	for (i = 0; i < tsv_ncols(t->r); i++) {
		long c = (long)i;

		if (c != te && c != blank[0] && c != blank[1])
			continue;
		/* The text before field I, with the TAB before it. */
		fs = tsv_rawfield(t->r, i, &flen);
		merge_group_text(g, line + from, (size_t)(fs - line) - from);
		from = (size_t)(fs - line) + flen;
		if (c == te)
			merge_group_te(g);
	}
	merge_group_text(g, line + from, len - from);
}

/* kway for the thunk or communication frame of parts that share a
 * device: rows renumbered by groups (merge_group). */
static int
kway_shared(struct src *s, size_t n, struct tsv_writer *w)
{
	struct pq q;
	struct merge_group *g = merge_group_new();
	long blank[2];
	int rc = 0;

	kway_start(s, n, &q, blank);
	while (q.n > 0 && rc == 0) {
		struct src *t = q.v[0];

		if (!merge_group_in(g, t->s[0], t->v[1], t->s[2]) &&
		    (rc = merge_group_flush(g, w)) != 0)
			break;
		group_add(g, t, blank, t->col[3]);
		if ((rc = src_next(t)) == 0 && t->eof)
			q.v[0] = q.v[--q.n];
		pq_down(&q, 0);
	}
	if (rc == 0)
		rc = merge_group_flush(g, w);
	merge_group_free(g);
	free(q.v);
	return rc;
}

static int heap_rows(struct src *s, size_t k, struct tsv_writer *w,
    struct mctx *c);

/* Merge S[0..N) (open, headers checked) into W, header first. */
static int
merge_open(struct src *s, size_t n, struct tsv_writer *w, struct mctx *c)
{
	if (write_header(w, s[0].r) != 0)
		return -1;
	if (s[0].key == heap_key)
		return heap_rows(s, n, w, c);
	if (c->sh != NULL && s[0].key == thunk_key)
		return kway_shared(s, n, w);
	return kway(s, n, w);
}

static int merge_sorted(const char *const *dirs, size_t n, size_t index0,
    unsigned bit, const struct keycol *key, struct src *out,
    struct mctx *c);

/*
 * Open parts DIRS[0..N) of frame BIT as sources S[0..), at most
 * merge_fanin() of them: when there are more parts, the first ones are
 * merged in groups into temporary files, each group a source (its index that of
 * its first part, so that ties still go to the earlier part), until the
 * groups and the parts left fit.  Returns the number of sources, or 0
 * with an err message.
 */
static size_t
open_sources(const char *const *dirs, size_t n, unsigned bit,
    const struct keycol *key, struct src *s, struct mctx *c)
{
	size_t i = 0, k = 0, f = merge_fanin();
	int rc = 0;

	while (rc == 0 && n - i + k > f) {
		/* Parts folded into one source: as few as make the rest
		 * fit, as many as one merge can open beside the K sources
		 * already open; with no room left (over f * f / 2 parts),
		 * all the rest, in a merge that groups them in turn. */
		size_t g = n - i + k - f + 1;

		if (k + 1 < f && g > f - k - 1)
			g = f - k - 1;
		if (g < 2 || k + 1 >= f)
			g = n - i;
		rc = merge_sorted(dirs + i, g, i, bit, key, &s[k++], c);
		i += g;
	}
	for (; i < n && rc == 0; i++)
		rc = src_open(&s[k++], dirs[i], bit, i, key, c->tab);
	for (i = 1; i < k && rc == 0; i++)
		if (!same_header(&s[i], &s[0]))
			rc = err_fail("%s: header differs from that of %s",
			    s[i].name, s[0].name);
	if (rc == 0)
		return k;
	for (i = 0; i < k; i++)
		src_close(&s[i]);
	return 0;
}

/* Merge DIRS[0..N) into an unlinked temporary file, opened as *OUT. */
static int
merge_sorted(const char *const *dirs, size_t n, size_t index0,
    unsigned bit, const struct keycol *key, struct src *out,
    struct mctx *c)
{
	struct src *s = mem_calloc(merge_fanin() + 1, sizeof(*s));
	FILE *fp = outfile_anon("nsysjax-merge");
	struct tsv_writer *w;
	size_t k = 0, i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (fp != NULL && (k = open_sources(dirs, n, bit, key, s, c)) > 0) {
		w = tsv_wopen(fp, "temporary file");
		rc = merge_open(s, k, w, c);
		if (tsv_wclose(w) != 0)
			rc = -1;
	}
	for (i = 0; i < k; i++)
		src_close(&s[i]);
	free(s);
	if (rc == 0 && (fflush(fp) != 0 || fseek(fp, 0, SEEK_SET) != 0))
		rc = err_fail("temporary file: %s", strerror(errno));
	if (rc != 0) {
		if (fp)
			fclose(fp);
		return -1;
	}
	return src_open_fp(out, fp, mem_strdup(dirs[0]), index0, key, c->tab);
}

static int
write_sorted(const char *const *dirs, size_t n, unsigned bit,
    const struct keycol *key, struct tsv_writer *w, struct mctx *c)
{
	struct src *s = mem_calloc(merge_fanin() + 1, sizeof(*s));
	size_t k = open_sources(dirs, n, bit, key, s, c), i;
	int rc = k > 0 ? merge_open(s, k, w, c) : -1;

	for (i = 0; i < k; i++)
		src_close(&s[i]);
	free(s);
	return rc;
}

/* ---- concatenated frames: compile, nvtx ---- */

static int
write_concat(const char *const *dirs, size_t n, unsigned bit,
    struct tsv_writer *w)
{
	struct src first, s;
	size_t i;
	int rc;

	if (src_open(&first, dirs[0], bit, 0, NULL, NULL) != 0) {
		src_close(&first);
		return -1;
	}
	rc = write_header(w, first.r);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0 && (rc = src_open(&s, dirs[i], bit, i, NULL, NULL)) == 0 &&
		    !same_header(&s, &first))
			rc = err_fail("%s: header differs from that of %s",
			    s.name, first.name);
		while (rc == 0 && !(i ? &s : &first)->eof) {
			struct src *t = i ? &s : &first;

			if ((rc = copy_row(w, t->r)) == 0)
				rc = src_next(t);
		}
		if (i > 0)
			src_close(&s);
	}
	src_close(&first);
	return rc;
}

/* ---- heap: the first part's traces of each ProgramId ---- */

static uint64_t
hash_line(uint64_t h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return (h ^ '\n') * 0x100000001b3ull;
}

/*
 * When every part has heapsums (extract_write_heapsums: parts.h's
 * workers), compare the digests of each ProgramId in part order, as
 * extract.c compares the dumps of one extraction, and return 1; 0 when
 * some part has none (the rows are compared instead).
 */
static int
heapsums_notes(const char *const *dirs, size_t n, struct err_notes *notes)
{
	struct strtab prog;
	unsigned long long *digest = NULL;
	unsigned char *warned = NULL;
	size_t i, cap = 0, capw = 0, len = 0;
	char *line = NULL, *path;
	FILE *fp;

	for (i = 0; i < n; i++) {
		struct stat st;

		path = mem_alloc(strlen(dirs[i]) + 10);
		sprintf(path, "%s/heapsums", dirs[i]);
		len = stat(path, &st) == 0;
		free(path);
		if (!len)
			return 0;
	}
	memset(&prog, 0, sizeof(prog));
	for (i = 0; i < n; i++) {
		path = mem_alloc(strlen(dirs[i]) + 10);
		sprintf(path, "%s/heapsums", dirs[i]);
		fp = fopen(path, "r");
		while (fp && getline(&line, &len, fp) > 0) {
			char *t1 = strchr(line, '\t'), *t2, *nl;
			uint64_t d;
			size_t id;
			int added;

			if (t1 == NULL || (t2 = strchr(t1 + 1, '\t')) == NULL)
				continue;
			if ((nl = strchr(t2, '\n')) != NULL)
				*nl = '\0';
			if (num_x64(t1 + 1, (size_t)(t2 - t1 - 1), &d) != 0)
				continue;	/* not extract_write_heapsums' */
			id = strtab_intern(&prog, line, (size_t)(t1 - line), &added);
			mem_grow(&digest, &cap, id + 1, sizeof(*digest));
			mem_grow(&warned, &capw, id + 1, 1);
			if (added) {
				digest[id] = d;
				warned[id] = 0;
			} else if (digest[id] != d && !warned[id]) {
				warned[id] = 1;
				*t1 = '\0';
				err_note(notes, "%s: heap simulator traces differ from "
				    "those of an earlier dump of ProgramId %s; the "
				    "heap frame has the first", t2 + 1, line);
			}
		}
		if (fp)
			fclose(fp);
		free(path);
	}
	free(line);
	free(digest);
	free(warned);
	strtab_free(&prog);
	return 1;
}

static int
heap_rows(struct src *s, size_t k, struct tsv_writer *w, struct mctx *c)
{
	struct pq q = { mem_calloc(k + 1, sizeof(*q.v)), 0 };
	char *program = NULL;
	struct src *owner = NULL;
	int rc = 0;
	size_t i;

	for (i = 0; i < k; i++)
		if (!s[i].eof)
			q.v[q.n++] = &s[i];
	pq_build(&q);
	while (q.n > 0 && rc == 0) {
		struct src *t = q.v[0];
		size_t len;
		const char *line = tsv_rawline(t->r, &len);

		if (program == NULL || strcmp(program, t->s[0]) != 0) {
			free(program);
			program = mem_strdup(t->s[0]);
			owner = t;
		}
		if (!t->ingroup)
			t->hash = 0xcbf29ce484222325ull;
		t->ingroup = 1;
		t->hash = hash_line(t->hash, line, len);
		if (t == owner)
			rc = copy_row(w, t->r);
		if (rc == 0)
			rc = src_next(t);
		/* The end of T's group: the owner's ended before. */
		if (rc == 0 && (t->eof || strcmp(t->s[0], program) != 0)) {
			if (t != owner && t->hash != owner->hash && c->text_check)
				err_note(c->notes, "%s: heap simulator traces differ "
				    "from those of %s for ProgramId %s; the heap "
				    "frame has the first", t->name, owner->name,
				    program);
			t->ingroup = 0;
		}
		if (t->eof)
			q.v[0] = q.v[--q.n];
		pq_down(&q, 0);
	}
	free(program);
	free(q.v);
	return rc;
}


/* ---- hlo and stackframes ---- */

/* One hlo row kept: raw fields around StackFrameIds, stacks in merged
 * ids. */
struct hrow {
	char *pre, *post;	/* raw, tab-joined */
	size_t *stacks, nstacks;
	size_t next;		/* 1 + the next variant's index; 0: none */
};

/* A (ProgramId, Name): unescaped, for the output order. */
struct hkey {
	char *program, *name;
	size_t first;		/* its first row */
};

struct hlomerge {
	struct strtab frames;	/* "<merged parent + 1>\t<raw frame>" */
	struct strtab keys;	/* raw "ProgramId\tName" */
	struct hkey *key;
	size_t capkey;
	struct hrow *rows;
	size_t nrows, caprows;
	size_t *map;		/* the current part's frame ids -> merged */
	size_t nmap, capmap;
	char *header;		/* the first part's hlo header, tab-joined */
	char *keybuf;		/* extract_stack_node's scratch */
	size_t capkeybuf;
	int read;		/* every part has been read */
};

static void
hlomerge_free(struct hlomerge *h)
{
	size_t i;

	for (i = 0; i < h->nrows; i++) {
		free(h->rows[i].pre);
		free(h->rows[i].post);
		free(h->rows[i].stacks);
	}
	for (i = 0; i < h->keys.n; i++) {
		free(h->key[i].program);
		free(h->key[i].name);
	}
	strtab_free(&h->frames);
	strtab_free(&h->keys);
	free(h->header);
	free(h->keybuf);
	free(h->key);
	free(h->rows);
	free(h->map);
}

/* The part's stack frame tree into the merged one (h->map). */
static int
part_frames(struct hlomerge *h, const char *dir)
{
	static const char *const cols[] = { "FrameId", "ParentFrameId",
	    "Frame", NULL };
	struct src s;
	long c[3];
	int rc;

	h->nmap = 0;
	if ((rc = src_open(&s, dir, EXTRACT_STACKFRAMES, 0, NULL, NULL)) == 0)
		rc = tsv_columns(s.r, cols, 3, 0, c);
	while (rc == 0 && !s.eof) {
		int64_t id, parent = -1;
		const char *frame = tsv_field(s.r, (size_t)c[2]);

		if ((rc = tsv_get_i64(s.r, (size_t)c[0], &id, 0)) != 0 ||
		    (rc = tsv_get_i64(s.r, (size_t)c[1], &parent, 1)) < 0)
			break;
		rc = 0;
		if (id != (int64_t)h->nmap || parent < -1 || parent >= id) {
			rc = err_fail("%s:%ld: FrameId %lld after %zu frames, "
			    "parent %lld: not a stackframes frame", s.name,
			    tsv_lineno(s.r), (long long)id, h->nmap,
			    (long long)parent);
			break;
		}
		mem_grow(&h->map, &h->capmap, h->nmap + 1, sizeof(*h->map));
		h->map[h->nmap++] = extract_stack_node(&h->frames, &h->keybuf,
		    &h->capkeybuf, parent < 0 ? STRTAB_NONE : h->map[parent],
		    frame, strlen(frame));
		rc = src_next(&s);
	}
	src_close(&s);
	return rc;
}

/* The frame ids of the part's StackFrameIds (base/ids.h), each below
 * its stackframes frame's count, into merged ids. */
static int
part_stacks(struct hlomerge *h, const struct src *s, long col,
    struct hrow *r)
{
	struct ids ids = { NULL, 0, 0 };
	size_t i;

	if (ids_read(s->r, (size_t)col, h->nmap, &ids) != 0) {
		ids_free(&ids);
		return -1;
	}
	for (i = 0; i < ids.n; i++)
		ids.v[i] = h->map[ids.v[i]];
	r->stacks = ids.v;
	r->nstacks = ids.n;
	return 0;
}

static char *
raw_fields(const struct src *s, size_t from, size_t to)
{
	size_t i, len, n = 0;
	char *out = mem_alloc(1), *f;

	out[0] = '\0';
	for (i = from; i < to; i++) {
		f = (char *)tsv_rawfield(s->r, i, &len);
		out = mem_realloc(out, n + len + 2, 1);
		if (i > from)
			out[n++] = '\t';
		memcpy(out + n, f, len);
		n += len;
		out[n] = '\0';
	}
	return out;
}

static int
same_row(const struct hrow *a, const struct hrow *b)
{
	/* No stacks: no array (NULL), which memcmp may not be given. */
	return a->nstacks == b->nstacks && (a->nstacks == 0 ||
	    memcmp(a->stacks, b->stacks, a->nstacks * sizeof(*a->stacks)) ==
	    0) &&
	    strcmp(a->post, b->post) == 0;
}

/* Keep row R of (ProgramId, Name) K unless a variant has its source. */
static void
keep_row(struct hlomerge *h, size_t k, int added, struct hrow *r)
{
	size_t last;

	if (!added) {
		for (last = h->key[k].first;; last = h->rows[last].next - 1) {
			if (same_row(&h->rows[last], r)) {
				free(r->pre);
				free(r->post);
				free(r->stacks);
				return;
			}
			if (h->rows[last].next == 0)
				break;
		}
		h->rows[last].next = h->nrows + 1;
	} else {
		h->key[k].first = h->nrows;
	}
	mem_grow(&h->rows, &h->caprows, h->nrows + 1, sizeof(*h->rows));
	h->rows[h->nrows++] = *r;
}

/* Whether S has the header of the first part's hlo.tsv (recorded). */
static int
same_as_first(struct hlomerge *h, const struct src *s)
{
	size_t i, len = 0;
	char *hd = mem_alloc(1);

	hd[0] = '\0';
	for (i = 0; i < tsv_ncols(s->r); i++) {
		const char *c = tsv_colname(s->r, i);

		hd = mem_realloc(hd, len + strlen(c) + 2, 1);
		len += (size_t)sprintf(hd + len, "%s%s", i ? "\t" : "", c);
	}
	if (h->header == NULL) {
		h->header = hd;
		return 0;
	}
	i = strcmp(hd, h->header) != 0;
	free(hd);
	return i ? err_fail("%s: header differs from the first part's",
	    s->name) : 0;
}

static int
part_hlo(struct hlomerge *h, const char *dir)
{
	struct src s;
	long cp, cn, cs;
	char *key = NULL;
	size_t cap = 0;
	int rc;

	if ((rc = src_open(&s, dir, EXTRACT_HLO, 0, NULL, NULL)) == 0)
		rc = same_as_first(h, &s);
	if (rc == 0 && ((cp = tsv_require(s.r, "ProgramId")) < 0 ||
	    (cn = tsv_require(s.r, "Name")) < 0 ||
	    (cs = tsv_require(s.r, "StackFrameIds")) < 0))
		rc = -1;
	while (rc == 0 && !s.eof) {
		struct hrow r;
		size_t lp, ln, k;
		const char *p = tsv_rawfield(s.r, (size_t)cp, &lp);
		const char *n = tsv_rawfield(s.r, (size_t)cn, &ln);
		int added;

		memset(&r, 0, sizeof(r));
		if ((rc = part_stacks(h, &s, cs, &r)) != 0) {
			free(r.stacks);
			break;
		}
		r.pre = raw_fields(&s, 0, (size_t)cs);
		r.post = raw_fields(&s, (size_t)cs + 1, tsv_ncols(s.r));
		mem_grow(&key, &cap, lp + ln + 2, 1);
		memcpy(key, p, lp);
		key[lp] = '\t';
		memcpy(key + lp + 1, n, ln);
		k = strtab_intern(&h->keys, key, lp + ln + 1, &added);
		if (added) {
			mem_grow(&h->key, &h->capkey, k + 1, sizeof(*h->key));
			h->key[k].program = mem_strdup(tsv_field(s.r, (size_t)cp));
			h->key[k].name = mem_strdup(tsv_field(s.r, (size_t)cn));
		}
		keep_row(h, k, added, &r);
		rc = src_next(&s);
	}
	free(key);
	src_close(&s);
	return rc;
}

/* Read every part's stack frames and (WITH_HLO) hlo rows into H. */
static int
hlomerge_read(struct hlomerge *h, const char *const *dirs, size_t n,
    int with_hlo)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++)
		if (part_frames(h, dirs[i]) != 0 ||
		    (with_hlo && part_hlo(h, dirs[i]) != 0))
			return -1;
	return 0;
}


static int
cmp_key(const void *a, const void *b, const void *ctx)
{
	const struct hkey *sort_keys = ctx;
	const struct hkey *x = &sort_keys[*(const size_t *)a];
	const struct hkey *y = &sort_keys[*(const size_t *)b];
	int c = strcmp(x->program, y->program);

	return c ? c : strcmp(x->name, y->name);
}

static int
hlo_out(const struct hlomerge *h, const char *dir0, struct tsv_writer *w)
{
	size_t i, r, n = h->keys.n, *p = mem_calloc(n + 1, sizeof(*p));
	struct src s;
	int rc;

	/* The header: the first part's. */
	if ((rc = src_open(&s, dir0, EXTRACT_HLO, 0, NULL, NULL)) == 0)
		rc = write_header(w, s.r);
	src_close(&s);
	for (i = 0; i < n; i++)
		p[i] = i;
	sort_stable(p, n, sizeof(*p), cmp_key, h->key);
	for (i = 0; i < n && rc == 0; i++) {
		for (r = h->key[p[i]].first + 1; r != 0 && rc == 0;
		    r = h->rows[r - 1].next) {
			const struct hrow *row = &h->rows[r - 1];

			tsv_raw(w, row->pre, strlen(row->pre));
			ids_write(w, row->stacks, row->nstacks);
			tsv_raw(w, row->post, strlen(row->post));
			rc = tsv_eor(w);
		}
	}
	free(p);
	return rc;
}

/* Frame BIT (hlo or stackframes) from H, read here the first time
 * (with the hlo rows when WITH_HLO): merge_write_dir writes both frames
 * from one reading of the parts. */
static int
write_hlo_frames(const char *const *dirs, size_t n, unsigned bit,
    struct tsv_writer *w, struct hlomerge *h, int with_hlo)
{
	if (!h->read) {
		if (hlomerge_read(h, dirs, n, with_hlo) != 0)
			return -1;
		h->read = 1;
	}
	return bit == EXTRACT_HLO ? hlo_out(h, dirs[0], w) :
	    extract_write_stacktree(&h->frames, w);
}

/* ---- the interface ---- */

static int
exists(const char *dir, unsigned bit)
{
	char *p = frame_path(dir, bit);
	struct stat st;
	int rc = stat(p, &st) == 0;

	free(p);
	return rc;
}

/* A part's directory by (device, inode), then its index. */
struct partid {
	uint64_t dev, ino;
	size_t i;
};

static int
cmp_partid(const void *a, const void *b)
{
	const struct partid *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

int
merge_distinct(const char *const *dirs, size_t n)
{
	struct merge_idents pi;
	struct partid *id = mem_calloc(n + 1, sizeof(*id));
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		struct stat st;

		if (stat(dirs[i], &st) != 0)
			rc = err_fail("%s: %s", dirs[i], strerror(errno));
		else
			id[i] = (struct partid){ (uint64_t)st.st_dev,
			    (uint64_t)st.st_ino, i };
	}
	if (rc == 0)
		qsort(id, n, sizeof(*id), cmp_partid);
	for (i = 0; i + 1 < n && rc == 0; i++)
		if (id[i].dev == id[i + 1].dev && id[i].ino == id[i + 1].ino)
			rc = err_fail("%s and %s are the same directory: give "
			    "each part once", dirs[id[i].i], dirs[id[i + 1].i]);
	free(id);
	if (rc == 0 && (rc = merge_idents_load(&pi, dirs, n)) == 0)
		merge_idents_free(&pi);
	return rc != 0 ? -1 : 0;
}

unsigned
merge_frames(const char *const *dirs, size_t n)
{
	unsigned bits = 0;
	size_t i, k;

	for (k = 0; extract_frame_names[k]; k++)
		if (exists(dirs[0], 1u << k))
			bits |= 1u << k;
	if (bits == 0) {
		err_fail("%s: no frame (NAME.tsv) in it", dirs[0]);
		return 0;
	}
	if (bits & EXTRACT_HLO)
		bits |= EXTRACT_STACKFRAMES;
	for (i = 1; i < n; i++)
		for (k = 0; extract_frame_names[k]; k++)
			if ((bits & (1u << k)) && !exists(dirs[i], 1u << k)) {
				err_fail("%s: no %s.tsv (%s has one)", dirs[i],
				    extract_frame_names[k], dirs[0]);
				return 0;
			}
	return bits;
}

/* Frame BIT of DIRS[0..N) to W; H caches the hlo frames' reading; SH
 * as merge_write takes it. */
static int
write_frame(const char *const *dirs, size_t n, unsigned bit,
    struct tsv_writer *w, struct err_notes *notes, struct hlomerge *h,
    int with_hlo, const struct merge_shared *sh)
{
	struct mctx c = { notes, 1, { { 0 } }, sh };
	const struct keycol *key = bit == EXTRACT_MODULE ? module_key :
	    bit == EXTRACT_HEAP ? heap_key : thunk_key;
	size_t i;
	int rc;

	switch (bit) {
	case EXTRACT_HEAP:
		c.text_check = !heapsums_notes(dirs, n, notes);
		/* FALLTHROUGH */
	case EXTRACT_THUNK:
	case EXTRACT_COMMUNICATION:
	case EXTRACT_MODULE:
		rc = write_sorted(dirs, n, bit, key, w, &c);
		for (i = 0; i < MAXKEY; i++)
			strtab_free(&c.tab[i]);
		return rc;
	case EXTRACT_COMPILE:
	case EXTRACT_NVTX:
		return write_concat(dirs, n, bit, w);
	case EXTRACT_HLO:
	case EXTRACT_STACKFRAMES:
		return write_hlo_frames(dirs, n, bit, w, h, with_hlo);
	}
	return err_fail("unknown frame");
}

int
merge_write(const char *const *dirs, size_t n, unsigned bit,
    struct tsv_writer *w, struct err_notes *notes,
    const struct merge_shared *sh)
{
	struct hlomerge h;
	int rc;

	memset(&h, 0, sizeof(h));
	rc = write_frame(dirs, n, bit, w, notes, &h, bit == EXTRACT_HLO, sh);
	hlomerge_free(&h);
	return rc;
}

/* merge_write_dir's frames: one hlomerge for hlo and stackframes. */
struct dirctx {
	const char *const *dirs;
	size_t n;
	struct err_notes *notes;
	struct hlomerge h;
	int with_hlo;
	const struct merge_shared *sh;
};

static int
write_dir_frame(unsigned bit, struct tsv_writer *w, void *arg)
{
	struct dirctx *d = arg;

	return write_frame(d->dirs, d->n, bit, w, d->notes, &d->h, d->with_hlo,
	    d->sh);
}

/* ---- merge_write_dir's frames in threads ---- */

/*
 * One job of the threads: the frames of BITS (one frame, or hlo and
 * stackframes, which share one reading of the parts), each into its
 * outfile, opened and later committed by the calling thread (the
 * temporary files' registry, base/tempfile.h, is not thread-safe).
 */
struct dirjob {
	unsigned bits;
	struct outfile *of;	/* merge_write_dir's, by frame index */
	struct dirctx d;	/* with NOTES its own */
	struct err_notes notes;
	char *err;		/* the err message when RC != 0 */
	int rc;
};

struct dirjobs {
	struct dirjob *v;
	size_t n;
	size_t next;		/* the next job to take (atomic) */
};

static void
run_dirjob(struct dirjob *j)
{
	size_t i;

	j->d.notes = &j->notes;
	for (i = 0; extract_frame_names[i] && j->rc == 0; i++)
		if (j->bits & (1u << i))
			j->rc = extract_frame_fill(j->of, 1u << i,
			    write_dir_frame, &j->d);
	if (j->rc != 0)
		j->err = mem_strdup(err_msg());
	hlomerge_free(&j->d.h);
}

static void *
dirjob_thread(void *arg)
{
	struct dirjobs *js = arg;
	size_t k;

	while ((k = __atomic_fetch_add(&js->next, 1, __ATOMIC_RELAXED)) < js->n)
		run_dirjob(&js->v[k]);
	return NULL;
}

/* The jobs of BITS, in frame order: a job a frame, hlo and stackframes
 * one job. */
static size_t
dir_jobs(const char *const *dirs, size_t n, unsigned bits, struct outfile *of,
    struct dirjob *v, const struct merge_shared *sh)
{
	size_t i, nj = 0;

	for (i = 0; extract_frame_names[i]; i++) {
		unsigned bit = 1u << i;

		if (!(bits & bit))
			continue;
		if (bit == EXTRACT_STACKFRAMES && (bits & EXTRACT_HLO)) {
			v[nj - 1].bits |= bit;	/* hlo's job, just before */
			continue;
		}
		memset(&v[nj], 0, sizeof(v[nj]));
		v[nj].bits = bit;
		v[nj].of = of;
		v[nj].d.dirs = dirs;
		v[nj].d.n = n;
		v[nj].d.with_hlo = (bits & EXTRACT_HLO) != 0;
		v[nj].d.sh = sh;
		nj++;
	}
	return nj;
}

/*
 * The threads merge_write_dir runs its jobs in: one per processor online,
 * at most one per job, and 1 (no thread) when the threads' sources at
 * once, N each, would not fit in merge_fanin()'s open files (the parts are
 * then grouped through temporary files, which only the calling thread
 * may create).
 */
static size_t
dir_threads(size_t n, size_t njobs)
{
	size_t t = pool_cores();

	if (t > njobs)
		t = njobs;
	while (t > 1 && t * (n + 2) > merge_fanin())
		t--;
	return t;
}

/*
 * merge_write_dir with its frames merged at once in threads (a frame's
 * merge is one serial stream, but the frames are independent): the
 * workers' serial tail.  Notes are kept in frame order, and the error
 * reported is the first frame's that failed, as in one thread.
 */
static int
write_dir_threads(const char *const *dirs, size_t n, unsigned bits,
    const char *outdir, struct err_notes *notes, size_t nth,
    const struct merge_shared *sh)
{
	struct outfile of[EXTRACT_NFRAMES];
	struct dirjob v[EXTRACT_NFRAMES];
	size_t i, nj = dir_jobs(dirs, n, bits, of, v, sh);
	struct dirjobs js = { v, nj, 0 };
	int rc = 0;

	memset(of, 0, sizeof(of));
	for (i = 0; extract_frame_names[i] && rc == 0; i++)
		if (bits & (1u << i))
			rc = extract_frame_open(of, outdir, 1u << i);
	if (rc == 0)
		pool_run(nth, dirjob_thread, &js);
	for (i = 0; i < nj; i++) {
		size_t k;

		if (rc == 0 && v[i].rc != 0)
			rc = err_fail("%s", v[i].err);
		for (k = 0; rc == 0 && k < v[i].notes.n; k++)
			err_note(notes, "%s", v[i].notes.v[k]);
		err_notes_free(&v[i].notes);
		free(v[i].err);
	}
	return extract_frames_end(of, bits, rc);
}

/* The number of dir_jobs of BITS. */
static size_t
count_dir_jobs(unsigned bits)
{
	size_t i, nj = 0;

	for (i = 0; extract_frame_names[i]; i++)
		nj += (bits & (1u << i)) != 0;
	if ((bits & EXTRACT_HLO) && (bits & EXTRACT_STACKFRAMES))
		nj--;
	return nj;
}

int
merge_write_dir(const char *const *dirs, size_t n, unsigned bits,
    const char *outdir, struct err_notes *notes,
    const struct merge_shared *sh)
{
	struct dirctx d;
	struct merge_idents pi;
	struct merge_cmdbufs mc = { dirs, n };
	struct outfile of, cb;
	size_t nth = dir_threads(n, count_dir_jobs(bits));
	int rc, with_cb = merge_cmdbufs_any(dirs, n);

	/* The profiles, committed with the frames (extract_write_dir). */
	if (merge_idents_load(&pi, dirs, n) != 0)
		return -1;
	rc = extract_idents_open(&of, outdir, merge_idents_write, &pi);
	merge_idents_free(&pi);
	if (rc != 0)
		return -1;
	/* What the command buffers hold, when a part knows it. */
	if (with_cb && extract_side_open(&cb, outdir, EXTRACT_CMDBUF_TABLE
	    ".tsv", merge_cmdbufs_write, &mc) != 0)
		return extract_idents_end(&of, -1);
	if (nth > 1) {
		rc = write_dir_threads(dirs, n, bits, outdir, notes, nth, sh);
		return extract_idents_end(&of, with_cb ?
		    extract_idents_end(&cb, rc) : rc);
	}
	memset(&d, 0, sizeof(d));
	d.sh = sh;
	d.dirs = dirs;
	d.n = n;
	d.notes = notes;
	d.with_hlo = (bits & EXTRACT_HLO) != 0;
	rc = extract_write_frames(outdir, bits, write_dir_frame, &d);
	hlomerge_free(&d.h);
	if (with_cb)
		rc = extract_idents_end(&cb, rc);
	return extract_idents_end(&of, rc);
}
