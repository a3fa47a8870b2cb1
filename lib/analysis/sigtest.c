#include <math.h>
#include <stdlib.h>

#include "analysis/sigtest.h"
#include "base/mem.h"

static void
swap(int64_t *a, int64_t *b)
{
	int64_t t = *a;

	*a = *b;
	*b = t;
}

static void
insertion(int64_t *v, size_t n)
{
	size_t i, j;
	int64_t x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Quicksort on the smaller side recursively, the larger in the loop, so
 * that the stack stays O(log n); median of three pivots, and a three-way
 * partition, since samples repeat (identical durations are common). */
void
sigtest_sort_i64(int64_t *v, size_t n)
{
	size_t lt, gt, i;
	int64_t p;

	while (n > 24) {
		if (v[n / 2] < v[0])
			swap(&v[n / 2], &v[0]);
		if (v[n - 1] < v[0])
			swap(&v[n - 1], &v[0]);
		if (v[n - 1] < v[n / 2])
			swap(&v[n - 1], &v[n / 2]);
		p = v[n / 2];
		lt = 0, gt = n, i = 0;
		while (i < gt) {	/* [0,lt) < p, [lt,i) == p, [gt,n) > p */
			if (v[i] < p)
				swap(&v[lt++], &v[i++]);
			else if (v[i] > p)
				swap(&v[i], &v[--gt]);
			else
				i++;
		}
		if (lt < n - gt) {
			sigtest_sort_i64(v, lt);
			v += gt, n -= gt;
		} else {
			sigtest_sort_i64(v + gt, n - gt);
			n = lt;
		}
	}
	insertion(v, n);
}

double
sigtest_median(const int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	if (n % 2)
		return (double)v[n / 2];
	return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

double
sigtest_p_normal(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

double
sigtest_mwu_pmin(size_t na, size_t nb)
{
	double m = (double)na * (double)nb, z;

	if (na == 0 || nb == 0)
		return 1;
	z = (m / 2 - 0.5) / sqrt(m / 12 * ((double)na + (double)nb + 1));
	return z > 0 ? sigtest_p_normal(z) : 1;
}

size_t
sigtest_mwu_need(double factor, double alpha)
{
	size_t lo = 1, hi = 1, mid, cap = (size_t)1 << 20;

	/* Doubling to a size that suffices, then bisection: pmin(n, n)
	 * decreases with n (z grows as sqrt(n) / ...). */
	while (!(factor * sigtest_mwu_pmin(hi, hi) < alpha)) {
		if (hi >= cap)
			return 0;
		lo = hi + 1;
		hi *= 2;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (factor * sigtest_mwu_pmin(mid, mid) < alpha)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* The continued fraction of the incomplete beta function I_x(a, b)
 * (Abramowitz and Stegun 26.5.8), by the modified Lentz method. */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d, f, num, delta;
	int m, k;

	d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? 1 / tiny : 1 / d;
	f = d;
	for (k = 2; k <= 800; k++) {	/* d_1 is in the start */
		m = k / 2;
		if (k % 2 == 0)		/* d_{2m} */
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		else			/* d_{2m+1} */
			num = -(a + m) * (a + b + m) * x /
			    ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		delta = c * d;
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

/* The regularised incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double
beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	    b * log1p(-x));
	/* the fraction converges fast for x < (a + 1) / (a + b + 2) */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double
sigtest_p_t(double t, double df)
{
	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (isinf(df))
		return sigtest_p_normal(t);
	if (isinf(t))
		return 0;
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

/* Walk the two sorted samples as one merged sequence, tie group by tie
 * group: the group's midrank goes to each member, its size to the tie
 * term. */
void
sigtest_mwu(const int64_t *a, size_t na, const int64_t *b, size_t nb,
    struct sigtest_mwu *r)
{
	size_t i = 0, j = 0, ta, tb, t;
	double rank = 0, rb = 0, ties = 0, n, mu, var, d;
	int64_t x;

	r->u = 0, r->z = 0, r->p = 1;
	if (na == 0 || nb == 0)
		return;
	while (i < na || j < nb) {
		x = j >= nb || (i < na && a[i] < b[j]) ? a[i] : b[j];
		for (ta = 0; i < na && a[i] == x; i++)
			ta++;
		for (tb = 0; j < nb && b[j] == x; j++)
			tb++;
		t = ta + tb;
		/* ranks rank+1 .. rank+t, midrank rank + (t + 1) / 2 */
		rb += (double)tb * (rank + ((double)t + 1) / 2);
		rank += (double)t;
		ties += (double)t * t * t - (double)t;
	}
	n = (double)na + (double)nb;
	r->u = rb - (double)nb * ((double)nb + 1) / 2;
	mu = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	    ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return;		/* every value tied: no evidence */
	d = fabs(r->u - mu) - 0.5;
	if (d <= 0)
		return;
	r->z = (r->u > mu ? d : -d) / sqrt(var);
	r->p = sigtest_p_normal(r->z);
}

struct pidx {
	double p;
	size_t i;
};

/* Ascending p, ties by position: a deterministic order. */
static int
cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void
sigtest_adjust(double *p, size_t n, enum sigtest_adjust m)
{
	struct pidx *s;
	double run, q;
	size_t k;

	if (n == 0)
		return;
	s = mem_calloc(n, sizeof *s);
	for (k = 0; k < n; k++)
		s[k].p = p[k], s[k].i = k;
	qsort(s, n, sizeof *s, cmp_pidx);
	if (m == SIGTEST_HOLM) {
		run = 0;
		for (k = 0; k < n; k++) {
			q = (double)(n - k) * s[k].p;
			if (q > 1)
				q = 1;
			if (q > run)
				run = q;
			p[s[k].i] = run;
		}
	} else {
		run = 1;
		for (k = n; k-- > 0;) {
			q = (double)n * s[k].p / (double)(k + 1);
			if (q < run)
				run = q;
			p[s[k].i] = run;
		}
	}
	free(s);
}
