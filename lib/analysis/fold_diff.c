/*
 * fold_diff: differential folded stacks (nsysjax-fold --diff;
 * analysis/fold.h), apart from the folding of frames (fold.c), which
 * it shares only fold_round with: two folded-stack files merged into
 * "stack before after" lines, as difffolded.pl writes them.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fold.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

struct fold_diff {
	struct strtab stacks;
	double *count[2];	/* by stack id */
	size_t cap[2];
	double total[2];
};

struct fold_diff *
fold_diff_new(void)
{
	return mem_calloc(1, sizeof(struct fold_diff));
}

void
fold_diff_free(struct fold_diff *x)
{
	if (x == NULL)
		return;
	strtab_free(&x->stacks);
	free(x->count[0]);
	free(x->count[1]);
	free(x);
}

/* The count S[0..N): digits, optionally '.' and digits (flamegraph.pl's
 * \d+(?:\.\d*)?), a subset of num_f64's syntax; -1 if it is not one
 * (or longer than num_f64 takes, 63 bytes). */
static double
diff_count(const char *s, size_t n)
{
	size_t i = 0, dot = 0;
	double v;

	if (n == 0 || s[0] < '0' || s[0] > '9')
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] == '.' && !dot)
			dot = 1;
		else if (s[i] < '0' || s[i] > '9')
			return -1;
	return num_f64(s, n, &v) == 0 ? v : -1;
}

/* Add COUNT to stack S[0..N) of file WHICH. */
static void
fdiff_add(struct fold_diff *x, int which, const char *s, size_t n,
    double count)
{
	size_t id = strtab_intern(&x->stacks, s, n, NULL), old;
	int k;

	for (k = 0; k < 2; k++)
		if (id >= x->cap[k]) {
			old = x->cap[k];
			mem_grow(&x->count[k], &x->cap[k], id + 1,
			    sizeof *x->count[k]);
			memset(x->count[k] + old, 0,
			    (x->cap[k] - old) * sizeof *x->count[k]);
		}
	x->count[which][id] += count;
	x->total[which] += count;
}

static int
diff_line(struct fold_diff *x, int which, const char *line, size_t n)
{
	size_t e = n, b;
	double c;

	if (memchr(line, '\r', n) != NULL || memchr(line, '\0', n) != NULL)
		return err_fail("a CR or NUL byte");
	if (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '\t'))
		return err_fail("space at the end of the line");
	for (b = e; b > 0 && line[b - 1] != ' ' && line[b - 1] != '\t'; b--)
		;
	if (b == 0)
		return err_fail("no count after the stack");
	if ((c = diff_count(line + b, e - b)) < 0)
		return err_fail("not a count: '%.*s'", (int)(e - b),
		    line + b);
	while (b > 0 && (line[b - 1] == ' ' || line[b - 1] == '\t'))
		b--;
	if (b == 0)
		return err_fail("empty stack");
	if (x->total[which] + c > 9007199254740992.0)	/* 2^53 */
		return err_fail("the counts add up to more than 2^53");
	fdiff_add(x, which, line, b, c);
	return 0;
}

int
fold_diff_read(struct fold_diff *x, int which, FILE *fp, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;

	while ((n = getline(&line, &cap, fp)) > 0) {
		lineno++;
		if (line[n - 1] == '\n')
			n--;
		if (diff_line(x, which, line, (size_t)n) != 0) {
			free(line);
			return err_prefix("%s:%ld", name, lineno);
		}
	}
	free(line);
	if (ferror(fp))
		return err_fail("%s: read error: %s", name, strerror(errno));
	return 0;
}

static int
cmp_stack(const void *a, const void *b, const void *ctx)
{
	const struct strtab *t = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	size_t n = t->len[i] < t->len[j] ? t->len[i] : t->len[j];
	int c = memcmp(t->s[i], t->s[j], n);

	return c ? c : (t->len[i] > t->len[j]) - (t->len[i] < t->len[j]);
}

/* BEFORE's counts scaled to AFTER's total, integers by largest
 * remainder, into C[0..N). */
static void
diff_normalize(const struct fold_diff *x, double *c, size_t n)
{
	int64_t *whole = mem_calloc(n ? n : 1, sizeof *whole);
	int64_t *out = mem_calloc(n ? n : 1, sizeof *out);
	double *frac = mem_calloc(n ? n : 1, sizeof *frac);
	double v, f = x->total[0] > 0 ? x->total[1] / x->total[0] : 0;
	size_t i;

	for (i = 0; i < n; i++) {
		v = x->count[0][i] * f;
		whole[i] = (int64_t)floor(v);
		frac[i] = v - floor(v);
	}
	fold_round(whole, frac, n, 1, out);
	for (i = 0; i < n; i++)
		c[i] = (double)out[i];
	free(whole);
	free(out);
	free(frac);
}

int
fold_diff_write(struct fold_diff *x, int normalize, FILE *fp,
    const char *name)
{
	size_t n = x->stacks.n, i, k, *order;
	double *before = x->count[0];
	char a[400], b[400];

	order = mem_calloc(n ? n : 1, sizeof *order);
	for (i = 0; i < n; i++)
		order[i] = i;
	sort_stable(order, n, sizeof *order, cmp_stack, &x->stacks);
	if (normalize && n > 0) {
		before = mem_calloc(n, sizeof *before);
		diff_normalize(x, before, n);
	}
	for (i = 0; i < n; i++) {
		k = order[i];
		tsv_fmt_f64(a, before[k]);
		tsv_fmt_f64(b, x->count[1][k]);
		fwrite(x->stacks.s[k], 1, x->stacks.len[k], fp);
		fprintf(fp, " %s %s\n", a, b);
	}
	if (before != x->count[0])
		free(before);
	free(order);
	if (fflush(fp) != 0 || ferror(fp))
		return err_fail("%s: write error: %s", name, strerror(errno));
	return 0;
}
