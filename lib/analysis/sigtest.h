/*
 * sigtest: the significance tests of nsysjax-diff.  Two-sample rank test
 * (Mann-Whitney U with the normal approximation), a large-sample z test
 * of a difference of means, multiple-testing adjustment of p-values, and
 * sorting and medians of integer samples (durations in ns).
 *
 * Sources of the formulas:
 * - Mann-Whitney U: H. B. Mann and D. R. Whitney (1947), "On a test of
 *   whether one of two random variables is stochastically larger than the
 *   other", Ann. Math. Statist. 18(1); ties take midranks, and the variance
 *   its usual tie correction (E. L. Lehmann, "Nonparametrics", 1975,
 *   chapter 1); the tie term and the continuity correction of 1/2 as
 *   scipy.stats.mannwhitneyu
 *   (method="asymptotic", use_continuity=True, two-sided), whose
 *   documented example this module reproduces (tests/unit/sigtest_test.c).
 * - Holm: S. Holm (1979), "A simple sequentially rejective multiple test
 *   procedure", Scand. J. Statist. 6(2).  Benjamini-Hochberg: Y. Benjamini
 *   and Y. Hochberg (1995), "Controlling the false discovery rate", JRSS B
 *   57(1).  Adjusted p-values as R's p.adjust ("holm", "BH").
 */
#ifndef NSYSJAX_SIGTEST_H
#define NSYSJAX_SIGTEST_H

#include <stddef.h>
#include <stdint.h>

/* Sort V[0..N) ascending in place (introsort-free quicksort with median of
 * three and insertion sort for short runs; O(N log N) expected). */
void sigtest_sort_i64(int64_t *v, size_t n);

/* The median of the sorted V[0..N) (the mean of the middle two when N is
 * even); 0 when N is 0. */
double sigtest_median(const int64_t *v, size_t n);

/* The result of a Mann-Whitney U test of samples A (before) and B
 * (after). */
struct sigtest_mwu {
	double u;		/* U of B: pairs (a, b) with b > a, plus half
				   the ties; in [0, na * nb] */
	double z;		/* (u - na nb / 2) / sigma, continuity-corrected
				   towards 0; 0 when sigma is 0 */
	double p;		/* two-sided p-value, in [0, 1]; 1 when every
				   value is tied or a sample is empty */
};

/*
 * Mann-Whitney U of the sorted samples A[0..NA) and B[0..NB) (ascending,
 * as sigtest_sort_i64 leaves them), in O(NA + NB): midranks for ties,
 * sigma^2 = na nb / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))) over tie
 * groups of size t, N = na + nb; z = (|U - na nb / 2| - 1/2) / sigma
 * (0 when |U - na nb / 2| <= 1/2), signed as U - na nb / 2; p = erfc(|z| /
 * sqrt 2).  Returns the result in *R.
 */
void sigtest_mwu(const int64_t *a, size_t na, const int64_t *b, size_t nb,
    struct sigtest_mwu *r);

/*
 * The power of sigtest_mwu at its limit: the smallest two-sided p-value
 * it can give for samples of NA and NB values, that of the most extreme
 * ordering (every value of one sample above every value of the other,
 * no ties): U = 0 or NA NB, sigma^2 = NA NB (NA + NB + 1) / 12,
 * z = (NA NB / 2 - 1/2) / sigma, p = erfc(z / sqrt 2); 1 when a sample
 * is empty or z <= 0 (one value a side).  In [0, 1].
 */
double sigtest_mwu_pmin(size_t na, size_t nb);

/*
 * The samples a side sigtest_mwu needs for its smallest p-value, times
 * FACTOR (the multiplier of the adjustment at its most favourable: the
 * number of tests for Holm, 1 for Benjamini-Hochberg), to be below
 * ALPHA: the least n >= 1 with FACTOR * sigtest_mwu_pmin(n, n) < ALPHA;
 * 0 when none up to 2^20 (ALPHA <= 0, say).  O(log) evaluations: the
 * p-value falls as n grows.
 */
size_t sigtest_mwu_need(double factor, double alpha);

/* The two-sided p-value of a standard normal statistic Z: erfc(|z| /
 * sqrt 2). */
double sigtest_p_normal(double z);

/*
 * The two-sided p-value of Student's t statistic T with DF > 0 degrees of
 * freedom (DF need not be an integer: Welch-Satterthwaite): I_x(DF / 2,
 * 1 / 2), x = DF / (DF + T^2), the regularised incomplete beta function
 * evaluated by its continued fraction (modified Lentz), to about 1e-14
 * relative.  Infinite DF gives the normal p-value; NaN gives NaN.
 */
double sigtest_p_t(double t, double df);

enum sigtest_adjust {
	SIGTEST_HOLM,		/* family-wise error rate, any dependence */
	SIGTEST_BH		/* false discovery rate (Benjamini-Hochberg) */
};

/*
 * Replace the N p-values P[0..N) by their adjusted values (method M), in
 * O(N log N): Holm's p(i) = max over j <= i of min(1, (N - j + 1) p(j)),
 * BH's p(i) = min over j >= i of min(1, N p(j) / j), for the p-values in
 * ascending order p(1) <= ... <= p(N), each written back in its place.
 * NaN p-values are not allowed.
 */
void sigtest_adjust(double *p, size_t n, enum sigtest_adjust m);

#endif
