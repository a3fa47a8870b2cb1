#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/tempfile.h"
#include "base/tsv.h"

int
outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if ((o->fp = fopen(path, "w")) == NULL)
			return err_fail("%s: cannot create: %s", path,
			    strerror(errno));
		o->path = mem_strdup(path);
		return 0;
	}
	/* A new name of our own (O_EXCL) in the target's directory. */
	if ((fd = tempfile_create(path, NULL, &o->tmp)) < 0)
		return -1;
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		err_fail("%s: cannot create: %s", path, strerror(errno));
		close(fd);
		tempfile_remove(o->tmp);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	o->path = mem_strdup(path);
	return 0;
}

int
outfile_close(struct outfile *o)
{
	int rc = fclose(o->fp);

	o->fp = NULL;
	if (rc != 0)
		return err_fail("%s: write error: %s", o->path,
		    strerror(errno));
	return 0;
}

int
outfile_commit(struct outfile *o)
{
	int rc = 0;

	if (o->tmp)
		rc = tempfile_commit(o->tmp, o->path);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return rc;
}

void
outfile_discard(struct outfile *o)
{
	if (o->fp)
		fclose(o->fp);
	if (o->tmp)
		tempfile_remove(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

int
outfile_mkdirs(const char *dir)
{
	char *p = mem_strdup(dir), *s = p;
	struct stat st;
	int rc = 0;

	for (;;) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0777) == 0)
			tempfile_made_dir(p);	/* removed if left empty */
		else if (errno != EEXIST)
			rc = err_fail("%s: cannot create directory: %s", p,
			    strerror(errno));
		else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = err_fail("%s: not a directory", p);
		*s = c;
		if (rc != 0 || c == '\0')
			break;
	}
	free(p);
	return rc;
}

FILE *
outfile_anon(const char *tag)
{
	const char *dir = getenv("TMPDIR"), *tmp;
	char path[4096];
	FILE *fp;
	int fd;

	if (dir == NULL || *dir == '\0') {
		if ((fp = tmpfile()) == NULL)
			err_fail("cannot create a temporary file: %s",
			    strerror(errno));
		return fp;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, tag) >=
	    sizeof(path)) {
		err_fail("cannot create a temporary file: %s",
		    strerror(ENAMETOOLONG));
		return NULL;
	}
	if ((fd = tempfile_create(path, NULL, &tmp)) < 0) {
		err_fail("cannot create a temporary file: %s", strerror(errno));
		return NULL;
	}
	tempfile_remove(tmp);	/* unlinked at once: nothing to leave */
	if ((fp = fdopen(fd, "w+")) == NULL) {
		err_fail("cannot create a temporary file: %s", strerror(errno));
		close(fd);
	}
	return fp;
}

int
outfile_tsv(const char *path, int (*write)(struct tsv_writer *, void *),
    void *arg)
{
	struct tsv_writer *w;
	struct outfile of;
	int rc;

	if (outfile_open(&of, path) != 0)
		return -1;
	w = tsv_wopen(of.fp, path);
	rc = write(w, arg);
	if (tsv_wclose(w) != 0)
		rc = -1;
	if (outfile_close(&of) != 0)
		rc = -1;
	if (rc != 0) {
		outfile_discard(&of);
		return -1;
	}
	return outfile_commit(&of);
}

/* One table of outfile_tables, for outfile_table. */
struct table_job {
	int t;
	int (*write)(void *, int, struct tsv_writer *);
	void *arg;
};

static int
table_job(struct tsv_writer *w, void *arg)
{
	struct table_job *j = arg;

	return j->write(j->arg, j->t, w);
}

int
outfile_tables(const char *dir, const char *prefix, unsigned tables, int n,
    const char *(*name)(int), int (*write)(void *, int, struct tsv_writer *),
    void *arg)
{
	struct table_job j = { 0, write, arg };
	struct tsv_writer *w;
	char *file;
	int rc = 0;

	if (dir && outfile_mkdirs(dir) != 0)
		return -1;
	for (j.t = 0; j.t < n && rc == 0; j.t++) {
		if (!(tables & (1u << j.t)))
			continue;
		if (dir == NULL) {
			/* A failed table's message stands: the tool dies
			 * with it (the writer is not closed over it). */
			w = tsv_wopen(stdout, "<stdout>");
			if ((rc = write(arg, j.t, w)) == 0 && tsv_wclose(w) != 0)
				rc = -1;
			continue;
		}
		file = mem_alloc(strlen(prefix) + strlen(name(j.t)) + 1);
		sprintf(file, "%s%s", prefix, name(j.t));
		rc = outfile_table(dir, file, table_job, &j);
		free(file);
	}
	return rc;
}

int
outfile_table(const char *dir, const char *name,
    int (*write)(struct tsv_writer *, void *), void *arg)
{
	char *path = mem_alloc(strlen(dir) + strlen(name) + 6);
	int rc;

	sprintf(path, "%s/%s.tsv", dir, name);
	rc = outfile_tsv(path, write, arg);
	free(path);
	return rc;
}

int
outfile_split(FILE *in, size_t size, size_t n,
    size_t (*part)(const void *rec, const void *ctx), const void *ctx,
    const char *tag, FILE **out)
{
	unsigned char rec[512];
	size_t i, k;
	int rc = 0;

	if (size > sizeof(rec) || n > OUTFILE_SPLIT_MAX)
		return err_fail("temporary file: %zu parts of %zu bytes", n,
		    size);
	for (i = 0; i < n; i++)
		if ((out[i] = outfile_anon(tag)) == NULL)
			break;
	if (i < n || fseek(in, 0, SEEK_SET) != 0)
		rc = i < n ? -1 : err_fail("temporary file: %s",
		    strerror(errno));
	while (rc == 0 && fread(rec, size, 1, in) == 1)
		if ((k = part(rec, ctx)) < n &&
		    fwrite(rec, size, 1, out[k]) != 1)
			rc = err_fail("temporary file: write error: %s",
			    strerror(errno));
	if (rc == 0 && ferror(in))
		rc = err_fail("temporary file: read error");
	for (k = 0; rc == 0 && k < n; k++)
		if (fflush(out[k]) != 0 || fseek(out[k], 0, SEEK_SET) != 0)
			rc = err_fail("temporary file: write error: %s",
			    strerror(errno));
	if (rc != 0)
		for (k = 0; k < i; k++)
			fclose(out[k]);
	return rc;
}
