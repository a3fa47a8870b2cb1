#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/tsv.h"

struct filter {
	char *const *files;
	size_t n, cur;
	FILE *fp;
	struct tsv_reader *r, *first;	/* current, and the first file's */
	const char *firstname;
};

static const char *
display(const struct filter *f, size_t i)
{
	return f->n == 0 || strcmp(f->files[i], "-") == 0 ? "<stdin>" :
	    f->files[i];
}

static int
open_file(struct filter *f, size_t i)
{
	const char *name = display(f, i);

	if (f->n == 0 || strcmp(f->files[i], "-") == 0)
		f->fp = stdin;
	else if ((f->fp = fopen(f->files[i], "r")) == NULL)
		return err_fail("%s: cannot open: %s", name, strerror(errno));
	if ((f->r = tsv_ropen(f->fp, name)) == NULL)
		return -1;
	return 0;
}

static int
same_header(const struct tsv_reader *a, const struct tsv_reader *b)
{
	size_t i;

	if (tsv_ncols(a) != tsv_ncols(b))
		return 0;
	for (i = 0; i < tsv_ncols(a); i++)
		if (strcmp(tsv_colname(a, i), tsv_colname(b, i)) != 0)
			return 0;
	return 1;
}

struct filter *
filter_open(char *const *files, size_t n)
{
	struct filter *f = mem_calloc(1, sizeof(*f));

	f->files = files;
	f->n = n;
	if (open_file(f, 0) != 0) {
		filter_close(f);
		return NULL;
	}
	f->first = f->r;
	f->firstname = display(f, 0);
	return f;
}

struct tsv_reader *
filter_reader(const struct filter *f)
{
	return f->r;
}

static void
close_current(struct filter *f)
{
	if (f->r != f->first)
		tsv_rclose(f->r);
	if (f->fp && f->fp != stdin)
		fclose(f->fp);
	f->r = NULL;
	f->fp = NULL;
}

int
filter_next(struct filter *f)
{
	int rc;

	while ((rc = tsv_next(f->r)) == 0 && f->cur + 1 < f->n) {
		close_current(f);
		if (open_file(f, ++f->cur) != 0)
			return -1;
		if (!same_header(f->r, f->first))
			return err_fail("%s: header differs from %s's",
			    display(f, f->cur), f->firstname);
	}
	return rc;
}

int
filter_load(const char *path, int (*fn)(struct tsv_reader *, void *),
    void *arg)
{
	struct tsv_reader *r;
	FILE *fp;
	int rc;

	if ((fp = fopen(path, "r")) == NULL)
		return err_fail("%s: cannot open: %s", path, strerror(errno));
	if ((r = tsv_ropen(fp, path)) == NULL)
		rc = -1;
	else
		rc = fn(r, arg);
	tsv_rclose(r);
	fclose(fp);
	return rc;
}

void
filter_close(struct filter *f)
{
	if (f == NULL)
		return;
	close_current(f);
	tsv_rclose(f->first);
	free(f);
}
