/*
 * The heap, hlo and stackframes frames of an extraction: the rows of the
 * instructions its thunks execute, while the profile's HLO dumps are
 * loaded (extract.c loads and classifies them, then calls here), and the
 * record of the rows other parts hold (extract_seen).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/strtab.h"
#include "formats/hlo.h"
#include "formats/hlocost.h"
#include "profile/dumpcache.h"
#include "profile/extract.h"
#include "profile/extract_impl.h"
#include "profile/heap.h"

/* ---- heap frame ---- */

/*
 * Give each ProgramId of modules M0.. the heap simulator traces of its
 * dump, from the first dump loaded for it.  The reference
 * (xla_module_metadata(...).unique_result) requires every dump of a
 * program to give the same traces: a dump that does not is warned about
 * once per ProgramId.
 */
void
extract_heap_rows(struct extract *x, size_t m0)
{
	struct extract_hlo *h = x->hlo;
	struct extract_heap *e;
	size_t i, j = 0, k;
	int added;

	for (i = m0; i < x->fr.nmodules; i++) {
		const struct frames_module *m = &x->fr.modules[i];

		if (m->hlo == NULL)
			continue;
		/* Executions of one module often follow each other. */
		if (j >= h->n || h->d[j]->m != m->hlo)
			for (j = 0; j < h->n && h->d[j]->m != m->hlo; j++)
				;
		if (j == h->n || h->heaped[j] || h->d[j]->heap == NULL)
			continue;	/* done with this dump */
		h->heaped[j] = 1;
		k = strtab_intern(&x->heapkeys, m->program,
		    strlen(m->program), &added);
		if (added) {
			mem_grow(&x->heaps, &x->capheaps, k + 1,
			    sizeof(*x->heaps));
			e = &x->heaps[k];
			e->program = m->program;
			e->h = heap_ref(h->d[j]->heap);
			e->differs = 0;
			e->origin = mem_alloc(strlen(x->in.p[m->profile].path) +
			    strlen(h->member[j]) + 2);
			sprintf(e->origin, "%s:%s", x->in.p[m->profile].path,
			    h->member[j]);
			continue;
		}
		e = &x->heaps[k];
		if (!e->differs && !heap_equal(e->h, h->d[j]->heap)) {
			e->differs = 1;
			err_note(&x->warnings, "%s:%s: heap simulator traces differ from those "
			    "of an earlier dump of ProgramId %s; the heap frame "
			    "has the first", x->in.p[m->profile].path,
			    h->member[j], m->program);
		}
	}
}

/* ---- hlo frame and stack frames ---- */

size_t
extract_stack_node(struct strtab *t, char **buf, size_t *cap, size_t parent,
    const char *text, size_t len)
{
	size_t k, v = parent == STRTAB_NONE ? 0 : parent + 1;
	char digits[NUM_U64_DIGITS], *d;

	/* Called for every frame of every stack: no printf, no malloc. */
	d = num_u64_digits(digits + sizeof(digits), v);
	k = (size_t)(digits + sizeof(digits) - d);
	mem_grow(buf, cap, len + 32, 1);
	memcpy(*buf, d, k);
	(*buf)[k++] = '\t';
	memcpy(*buf + k, text, len);
	return strtab_intern(t, *buf, k + len, NULL);
}

static char *
join_lines(const char *const *v, size_t n)
{
	size_t i, len = 1;
	char *out, *p;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	p = out = mem_alloc(len);
	for (i = 0; i < n; i++) {
		size_t k = strlen(v[i]);

		if (i)
			*p++ = '\n';
		memcpy(p, v[i], k);
		p += k;
	}
	*p = '\0';
	return out;
}

/* One note per module (ProgramId) whose cuBLAS or cuDNN calls have a
 * backend_config that is not JSON: their FLOPs are unknown. */
static void
malformed_note(struct extract *x, const struct hlo_module *m)
{
	const char *first;
	size_t n = hlocost_malformed(x->cost_c, &first);
	char key[96];

	if (n == 0)
		return;
	snprintf(key, sizeof(key), "malformed-config %s", hlo_program_id(m));
	if (strtab_find(&x->strings, key, strlen(key)) != STRTAB_NONE)
		return;
	extract_intern(x, key);
	err_note(&x->warnings, "module %s: %zu cuBLAS/cuDNN call%s with a "
	    "backend_config that is not JSON (first: %s): FLOPs unknown",
	    hlo_name(m), n, n == 1 ? "" : "s", first);
}

/* The roofline columns of row R: instruction IN of M, costed. */
static void
row_cost(struct extract *x, struct extract_hlorow *r,
    const struct hlo_module *m, const struct hlo_inst *in)
{
	if (x->cost_m != m) {
		hlocost_free(x->cost_c);
		x->cost_c = hlocost_new(m);
		x->cost_m = m;
		malformed_note(x, m);
	}
	hlocost_inst(x->cost_c, hlo_index(m, in), &r->cost);
}

/* Fill row R from instruction IN of module M (hlo.h hlo_src). */
static int
fill_row(struct extract *x, struct extract_hlorow *r, struct hlo_module *m,
    const struct hlo_inst *in)
{
	struct hlo_src src;
	size_t i, j;

	memset(&src, 0, sizeof(src));
	if (hlo_src(m, in, &src) != 0) {
		hlo_src_free(&src);
		return err_prefix("%s: %s", hlo_name(m), in->name);
	}
	r->opcode = extract_intern(x, in->opcode);
	r->comm = in->comm;
	r->collective = in->comm == 1 && in->collective ?
	    extract_intern(x, in->collective) : NULL;
	r->message_size = in->message_size;
	r->collective_size = in->collective_size;
	r->op_name = mem_strdup(in->op_name);
	r->scheduling_name = mem_strdup(in->scheduling_name);
	r->stacks = mem_calloc(src.nstack + 1, sizeof(*r->stacks));
	for (i = 0; i < src.nstack; i++) {
		size_t node = STRTAB_NONE;

		for (j = 0; j < src.stack[i].nframe; j++)
			node = extract_stack_node(&x->stackframes,
			    &x->keybuf, &x->capkeybuf, node,
			    src.stack[i].frame[j], strlen(src.stack[i].frame[j]));
		if (node != STRTAB_NONE)
			r->stacks[r->nstacks++] = node;
	}
	r->op_names = join_lines(src.op_name, src.nop_name);
	hlo_src_free(&src);
	row_cost(x, r, m, in);
	return 0;
}

void
extract_hlorow_free(struct extract_hlorow *r)
{
	free(r->op_name);
	free(r->scheduling_name);
	free(r->stacks);
	free(r->op_names);
}

/* Whether rows A and B have the same stacks and op_names. */
static int
same_source(const struct extract_hlorow *a, const struct extract_hlorow *b)
{
	return a->nstacks == b->nstacks && memcmp(a->stacks, b->stacks,
	    a->nstacks * sizeof(*a->stacks)) == 0 &&
	    strcmp(a->op_names, b->op_names) == 0;
}

/*
 * Instruction NAME of dump M has the ProgramId of row ID, which came from
 * another dump (a program compiled more than once shares its fingerprint;
 * so do the processes): when its stacks or op_names differ from those of
 * row ID and its variants, add it as a variant, so that the flame graphs
 * can mark the disagreement (nsysjax-fold's [inconsistent metadata]).
 */
static int
hlo_variant(struct extract *x, size_t id, struct hlo_module *m,
    const char *name)
{
	struct extract_hlorow v;
	size_t last = id, n = 1, vid;
	char key[64];

	memset(&v, 0, sizeof(v));
	if (fill_row(x, &v, m, hlo_find(m, name)) != 0) {
		extract_hlorow_free(&v);
		return -1;
	}
	for (;; n++) {
		if (same_source(&x->rows[last], &v)) {
			extract_hlorow_free(&v);
			return 0;
		}
		if (x->rows[last].next == 0)
			break;
		last = x->rows[last].next - 1;
	}
	snprintf(key, sizeof(key), "%zu\v%zu", id, n);
	vid = strtab_intern(&x->rowkeys, key, strlen(key), NULL);
	mem_grow(&x->rows, &x->caprows, vid + 1, sizeof(*x->rows));
	v.program = x->rows[id].program;
	v.name = x->rows[id].name;
	v.variant = n;
	x->rows[vid] = v;
	x->rows[last].next = vid + 1;
	return 0;
}

/* The digest of loaded dump M: thunks come grouped by module, so the
 * last one found is nearly always the one asked for. */
static uint64_t
dump_digest(struct extract_hlo *h, const struct hlo_module *m)
{
	size_t i;

	if (h->last < h->n && h->d[h->last]->m == m)
		return h->d[h->last]->digest;
	for (i = 0; i < h->n && h->d[i]->m != m; i++)
		;
	h->last = i;
	return i < h->n ? h->d[i]->digest : 0;
}

/* Whether the instruction of row ID was already compared in a dump with
 * DIGEST (dumps repeat in every process: each is compared once). */
static int
checked(struct extract *x, uint64_t digest, size_t id)
{
	unsigned char key[sizeof(digest) + sizeof(id)];
	int added;

	memcpy(key, &digest, sizeof(digest));
	memcpy(key + sizeof(digest), &id, sizeof(id));
	strtab_intern(&x->checked, (const char *)key, sizeof(key), &added);
	return !added;
}

/*
 * Once per dump of the profile (SEEN holds the dumps noted): how many
 * instructions name stack frames beyond the module's stack_frame_index
 * (hlo.h hlo_frames_beyond).  They keep every row, and the frames that
 * exist.
 */
static void
beyond_note(struct extract *x, const struct frames_module *m,
    const struct hlo_module ***seen, size_t *n, size_t *cap)
{
	int64_t max;
	size_t i, nframe, k;

	for (i = *n; i-- > 0;)
		if ((*seen)[i] == m->hlo)
			return;
	mem_grow(seen, cap, *n + 1, sizeof(**seen));
	(*seen)[(*n)++] = m->hlo;
	if ((k = hlo_frames_beyond(m->hlo, &max, &nframe)) == 0)
		return;
	err_note(&x->warnings, "%s: module %s: %zu of %zu HLO instructions "
	    "name stack frames beyond the %zu of its stack_frame_index (ids "
	    "up to %lld): their source stacks keep the frames that exist, or "
	    "none", x->in.p[m->profile].path, m->name, k, hlo_count(m->hlo),
	    nframe, (long long)max);
}

void
extract_seen_free(struct extract_seen *s)
{
	strtab_free(&s->rows);
	free(s->part);
	memset(s, 0, sizeof(*s));
}

int
extract_seen_save(const struct extract_seen *s, size_t part, FILE *fp)
{
	size_t id;

	for (id = 0; id < s->rows.n; id++) {
		uint32_t len = (uint32_t)s->rows.len[id];

		if (s->part[id] != part)
			continue;
		if (fwrite(&len, sizeof(len), 1, fp) != 1 ||
		    fwrite(strtab_get(&s->rows, id), 1, len, fp) != len)
			return -1;
	}
	return 0;
}

/* Note row id ID of S (just interned, ADDED when new) as held by PART,
 * unless a lower part holds it. */
static void
seen_note(struct extract_seen *s, size_t id, int added, size_t part)
{
	mem_grow(&s->part, &s->cap, id + 1, sizeof(*s->part));
	if (added || part < s->part[id])
		s->part[id] = part;
}

size_t
extract_seen_load(struct extract_seen *s, size_t part, FILE *fp)
{
	char *buf = NULL;
	size_t cap = 0, n = 0, id;
	uint32_t len;
	int added;

	/* A key is a digest and "ProgramId\tName": a length of 0 or past a
	 * mebibyte is no record of extract_seen_save's. */
	while (fread(&len, sizeof(len), 1, fp) == 1 && len > 0 &&
	    len <= ((uint32_t)1 << 20)) {
		mem_grow(&buf, &cap, len, 1);
		if (fread(buf, 1, len, fp) != len)
			break;
		id = strtab_intern(&s->rows, buf, len, &added);
		seen_note(s, id, added, part);
		n++;
	}
	free(buf);
	return n;
}

/* Whether a lower part holds the row KEY of the dump of DIGEST
 * (extract_opts.seen_rows); if not, it is noted as held by this one. */
static int
seen_before(struct extract *x, uint64_t digest, const char *key)
{
	struct extract_seen *s = x->o.seen_rows;
	size_t n = strlen(key), id;
	int added;

	if (s == NULL)
		return 0;
	mem_grow(&x->keybuf, &x->capkeybuf, n + sizeof(digest) + 1, 1);
	memcpy(x->keybuf, &digest, sizeof(digest));
	memcpy(x->keybuf + sizeof(digest), key, n);
	id = strtab_intern(&s->rows, x->keybuf, n + sizeof(digest), &added);
	if (!added && s->part[id] < s->cur)
		return 1;
	seen_note(s, id, added, s->cur);
	return 0;
}

/*
 * Add a row for each (ProgramId, instruction) of thunks T0.. not seen
 * before, while the profile's HLO modules are loaded, and a variant row
 * for each dump that disagrees with the rows already there (hlo_variant).
 * A thunk that is no instruction of its dump has no row (classify noted
 * it).
 */
int
extract_hlo_rows(struct extract *x, size_t t0)
{
	const struct hlo_module **seen = NULL;
	char *key = NULL;
	size_t i, cap = 0, nseen = 0, capseen = 0;

	for (i = t0; i < x->fr.nthunks; i++) {
		const struct frames_thunk *t = &x->fr.thunks[i];
		const struct frames_module *m = &x->fr.modules[t->module];
		struct extract_hlorow *r;
		size_t id;
		int added, rc;

		if (m->hlo == NULL || extract_is_cmdbuf_row(t))
			continue;
		if (m->hlo != (nseen ? seen[nseen - 1] : NULL))
			beyond_note(x, m, &seen, &nseen, &capseen);
		if (t->id_mismatch || hlo_find(m->hlo, t->name) == NULL)
			continue;
		mem_grow(&key, &cap, strlen(m->program) + strlen(t->name) + 2,
		    1);
		sprintf(key, "%s\t%s", m->program, t->name);
		if (seen_before(x, dump_digest(x->hlo, m->hlo), key))
			continue;
		id = strtab_intern(&x->rowkeys, key, strlen(key), &added);
		if (checked(x, dump_digest(x->hlo, m->hlo), id))
			continue;
		if (!added) {
			rc = hlo_variant(x, id, m->hlo, t->name);
		} else {
			mem_grow(&x->rows, &x->caprows, id + 1,
			    sizeof(*x->rows));
			r = &x->rows[id];
			memset(r, 0, sizeof(*r));
			r->program = m->program;
			r->name = strchr(strtab_get(&x->rowkeys, id), '\t') + 1;
			rc = fill_row(x, r, m->hlo, hlo_find(m->hlo, t->name));
		}
		if (rc != 0) {
			free(key);
			free(seen);
			return err_prefix("%s", x->in.p[m->profile].path);
		}
	}
	free(key);
	free(seen);
	return 0;
}
