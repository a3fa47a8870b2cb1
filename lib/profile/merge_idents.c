/*
 * merge_idents.c: the profiles that the parts of a merge hold (the
 * identities of input.h, each part's profiles.tsv), so that a profile
 * given twice, to two parts, is refused as one extraction refuses it, and
 * the merged directory lists them all (merge_impl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "base/u64map.h"
#include "profile/input.h"
#include "profile/merge_impl.h"

void
merge_idents_free(struct merge_idents *p)
{
	free(p->v);
	strtab_free(&p->str);
	u64map_free(&p->map);
	memset(p, 0, sizeof(*p));
}

static size_t
intern_field(struct merge_idents *p, struct tsv_reader *r, long col)
{
	const char *f = tsv_field(r, (size_t)col);

	return strtab_intern(&p->str, f, strlen(f), NULL);
}

/* Hash of the current row: exactly 16 hex digits into *H; 0, or -1
 * with an err message. */
static int
get_hash(struct tsv_reader *r, long col, uint64_t *h)
{
	const char *f = tsv_field(r, (size_t)col);
	char *end;

	errno = 0;
	*h = strtoull(f, &end, 16);
	if (strlen(f) != 16 || *end != '\0' || errno != 0 || f[0] == '-' ||
	    f[0] == '+' || f[0] == ' ')
		return err_fail("%s:%ld: column Hash: not 16 hex digits: '%s'",
		    tsv_name(r), tsv_lineno(r), f);
	return 0;
}

/* Row E of part K against the rows of earlier parts: 0, or 1 with the
 * message of the one-process check (input.h input_open). */
static int
pident_add(struct merge_idents *p, const char *const *dirs, struct pident e)
{
	uint64_t key = u64map_mix((uint64_t)e.bytes ^ e.hash);
	struct u64map_it it;
	size_t j;

	for (j = u64map_first(&p->map, key, &it); j != U64MAP_NONE;
	    j = u64map_next(&p->map, &it)) {
		const struct pident *o = &p->v[j];

		/* The trace's size and CRC-32 (input.h): the same
		 * profile in any container, a combined archive's key
		 * aside. */
		if (o->bytes == e.bytes && o->hash == e.hash &&
		    o->part != e.part) {
			err_fail("%s (in %s) and %s (in %s) hold the same "
			    "profile (the same trace: %lld bytes, CRC-32 "
			    "%08llx): give each process's profile once",
			    strtab_get(&p->str, o->input), dirs[o->part],
			    strtab_get(&p->str, e.input), dirs[e.part],
			    (long long)e.bytes, (unsigned long long)e.hash);
			return 1;
		}
	}
	mem_grow(&p->v, &p->cap, p->n + 1, sizeof(*p->v));
	p->v[p->n] = e;
	u64map_add(&p->map, key, p->n++);
	return 0;
}

/* Part K's profiles.tsv into P.  A part without one (an extraction by
 * an older version, or frames made by hand) adds nothing.  Returns 0,
 * 1 when one of its profiles is in an earlier part, -1 when it cannot
 * be read; either with an err message. */
static int
pidents_read(struct merge_idents *p, const char *const *dirs, size_t k)
{
	char *path = mem_path(dirs[k], INPUT_IDENT_TABLE ".tsv");
	FILE *fp = fopen(path, "r");
	struct tsv_reader *r = NULL;
	long c[4];
	int rc = 0;

	if (fp == NULL && errno != ENOENT)
		rc = err_fail("%s: cannot open: %s", path, strerror(errno));
	if (fp && ((r = tsv_ropen(fp, path)) == NULL ||
	    tsv_columns(r, input_ident_columns, 4, 0, c) != 0))
		rc = -1;
	while (r && rc == 0 && (rc = tsv_next(r)) == 1) {
		struct pident e = { .part = k };

		if ((rc = tsv_get_i64(r, (size_t)c[0], &e.bytes, 0)) == 0 &&
		    (rc = get_hash(r, c[1], &e.hash)) == 0) {
			e.within = intern_field(p, r, c[2]);
			e.input = intern_field(p, r, c[3]);
			rc = pident_add(p, dirs, e);
		}
	}
	tsv_rclose(r);
	if (fp)
		fclose(fp);
	free(path);
	return rc;
}

/* Every part's profiles into P, none of them in two parts: 0, or the
 * first failure's 1 or -1, with its err message (P then freed).
 * O(profiles) expected time; memory: the rows (tens of bytes each). */
int
merge_idents_load(struct merge_idents *p, const char *const *dirs, size_t n)
{
	size_t k;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	for (k = 0; k < n && rc == 0; k++)
		rc = pidents_read(p, dirs, k);
	if (rc != 0)
		merge_idents_free(p);
	return rc;
}

/* The parts' profiles as one extraction's table (input.h
 * input_write_idents): rows in part order. */
int
merge_idents_write(struct tsv_writer *w, void *arg)
{
	const struct merge_idents *p = arg;
	char hex[17];
	size_t i;
	int rc = tsv_header(w, input_ident_columns);

	for (i = 0; i < p->n && rc == 0; i++) {
		snprintf(hex, sizeof(hex), "%016llx",
		    (unsigned long long)p->v[i].hash);
		tsv_i64(w, p->v[i].bytes);
		tsv_str(w, hex);
		tsv_str(w, strtab_get(&p->str, p->v[i].within));
		tsv_str(w, strtab_get(&p->str, p->v[i].input));
		rc = tsv_eor(w);
	}
	return rc;
}
