/*
 * The cmdbufs side table of merged parts (merge.h merge_write_dir): as
 * one extraction writes it (extract.h EXTRACT_CMDBUF_TABLE), each
 * (ProgramId, CommandBuffer) once, from the first part that lists it,
 * in part order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "profile/extract.h"
#include "profile/merge_impl.h"

static const char *const cols[] = {
	"ProgramId", "CommandBuffer", "Operation", "Kind", NULL
};

static char *
table_path(const char *dir)
{
	return mem_path(dir, EXTRACT_CMDBUF_TABLE ".tsv");
}

int
merge_cmdbufs_any(const char *const *dirs, size_t n)
{
	size_t k;
	FILE *fp;

	for (k = 0; k < n; k++) {
		char *path = table_path(dirs[k]);

		fp = fopen(path, "r");
		free(path);
		if (fp) {
			fclose(fp);
			return 1;
		}
	}
	return 0;
}

/* The key "ProgramId\tCommandBuffer" of R's row, in *KEY. */
static size_t
row_key(struct tsv_reader *r, const long *c, char **key, size_t *cap)
{
	size_t pn, bn;
	const char *p = tsv_rawfield(r, (size_t)c[0], &pn);
	const char *b = tsv_rawfield(r, (size_t)c[1], &bn);

	mem_grow(key, cap, pn + bn + 1, 1);
	memcpy(*key, p, pn);
	(*key)[pn] = '\t';
	memcpy(*key + pn + 1, b, bn);
	return pn + bn + 1;
}

/* Part K's rows of buffers no earlier part listed, to W; SEEN: the
 * buffers' keys, PART[id] the part that listed each. */
static int
copy_part(const char *dir, size_t k, struct tsv_writer *w,
    struct strtab *seen, size_t **part, size_t *cappart)
{
	char *path = table_path(dir), *key = NULL;
	FILE *fp = fopen(path, "r");
	struct tsv_reader *r = NULL;
	size_t i, n, cap = 0, id;
	long c[4];
	int rc = 0, added;

	if (fp == NULL && errno != ENOENT)
		rc = err_fail("%s: cannot open: %s", path, strerror(errno));
	if (fp && ((r = tsv_ropen(fp, path)) == NULL ||
	    tsv_columns(r, cols, 4, 0, c) != 0))
		rc = -1;
	while (r && rc == 0 && (rc = tsv_next(r)) == 1) {
		rc = 0;
		n = row_key(r, c, &key, &cap);
		id = strtab_intern(seen, key, n, &added);
		if (added) {
			mem_grow(part, cappart, id + 1, sizeof(**part));
			(*part)[id] = k;
		}
		if ((*part)[id] != k)
			continue;	/* an earlier part's buffer */
		for (i = 0; i < 4; i++) {
			const char *f = tsv_rawfield(r, (size_t)c[i], &n);

			tsv_raw(w, f, n);
		}
		rc = tsv_eor(w);
	}
	tsv_rclose(r);
	if (fp)
		fclose(fp);
	free(key);
	free(path);
	return rc;
}

int
merge_cmdbufs_write(struct tsv_writer *w, void *arg)
{
	const struct merge_cmdbufs *m = arg;
	struct strtab seen = { 0 };
	size_t k, *part = NULL, cap = 0;
	int rc = tsv_header(w, cols);

	for (k = 0; k < m->n && rc == 0; k++)
		rc = copy_part(m->dirs[k], k, w, &seen, &part, &cap);
	strtab_free(&seen);
	free(part);
	return rc;
}
