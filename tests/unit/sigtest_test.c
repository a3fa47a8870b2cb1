/* sigtest: the Mann-Whitney U test against published and hand-derived
 * values, p-value adjustment (Holm, Benjamini-Hochberg) by hand, sorting
 * and medians. */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/sigtest.h"
#include "unit.h"

static void
mwu(int64_t *a, size_t na, int64_t *b, size_t nb, struct sigtest_mwu *r)
{
	sigtest_sort_i64(a, na);
	sigtest_sort_i64(b, nb);
	sigtest_mwu(a, na, b, nb, r);
}

/*
 * The example of scipy.stats.mannwhitneyu's documentation: males [19 22 16 29 24], females
 * [20 11 17 12]; "U1 = 17.0" for males, and with method="asymptotic" the
 * two-sided p-value printed is 0.11134688653314041.  Our U is of the
 * second sample (AFTER), so U of (females, males) is 17.
 */
static void
scipy_example(void)
{
	int64_t males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
	struct sigtest_mwu r;

	mwu(females, 4, males, 5, &r);
	CHECK_NEAR(r.u, 17, 0);
	CHECK_NEAR(r.p, 0.11134688653314041, 1e-12);
	CHECK(r.z > 0);
	/* the other way round: U = 20 - 17 = 3, the same p, z negative */
	mwu(males, 5, females, 4, &r);
	CHECK_NEAR(r.u, 3, 0);
	CHECK_NEAR(r.p, 0.11134688653314041, 1e-12);
	CHECK(r.z < 0);
}

/*
 * R's documented behaviour, wilcox.test(c(1,2,3), c(4,5,6), exact =
 * FALSE): W = 0, p-value = 0.08086.  By hand: mu = 4.5, sigma^2 = 3 * 3 *
 * 7 / 12 = 5.25, z = (4.5 - 0.5) / sqrt(5.25) = 1.745743, p = erfc(z /
 * sqrt 2) = 0.0808556.
 */
static void
separated(void)
{
	int64_t a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct sigtest_mwu r;

	mwu(a, 3, b, 3, &r);
	CHECK_NEAR(r.u, 9, 0);	/* every AFTER value is larger */
	CHECK_NEAR(r.z, 4.0 / sqrt(5.25), 1e-12);
	CHECK_NEAR(r.p, 0.0808556, 1e-5);
}

/*
 * Ties, by hand: BEFORE [1 2 2], AFTER [2 3 4].  Pooled and sorted: 1, 2,
 * 2, 2, 3, 4; midranks 1, 3, 3, 3, 5, 6.  AFTER's rank sum 3 + 5 + 6 =
 * 14, U = 14 - 3 * 4 / 2 = 8 (BEFORE's U = 9 - 8 = 1).  One tie group of
 * 3: sum(t^3 - t) = 24; sigma^2 = 9 / 12 * (7 - 24 / 30) = 4.65; z = (|8
 * - 4.5| - 0.5) / sqrt(4.65) = 1.3912166; p = erfc(z / sqrt 2) =
 * 0.1641597.
 */
static void
ties(void)
{
	int64_t a[] = { 2, 1, 2 }, b[] = { 4, 3, 2 };
	struct sigtest_mwu r;

	mwu(a, 3, b, 3, &r);
	CHECK_NEAR(r.u, 8, 0);
	CHECK_NEAR(r.z, 3 / sqrt(4.65), 1e-12);
	CHECK_NEAR(r.p, 0.1641597, 1e-6);
}

static void
degenerate(void)
{
	int64_t a[] = { 5, 5, 5 }, b[] = { 5, 5 }, c[] = { 7 };
	struct sigtest_mwu r;

	mwu(a, 3, b, 2, &r);		/* every value tied */
	CHECK_NEAR(r.p, 1, 0);
	CHECK_NEAR(r.u, 3, 0);		/* half of 3 * 2 */
	mwu(a, 3, b, 0, &r);		/* an empty sample */
	CHECK_NEAR(r.p, 1, 0);
	mwu(b, 1, c, 1, &r);		/* 1 against 1: |U - mu| = 1/2 */
	CHECK_NEAR(r.p, 1, 0);
	CHECK_NEAR(r.u, 1, 0);
}

/*
 * Adjustment by hand, p = (0.01, 0.04, 0.03, 0.005), m = 4.  Ascending
 * 0.005, 0.01, 0.03, 0.04.  Holm: 4 * 0.005 = 0.02, 3 * 0.01 = 0.03,
 * 2 * 0.03 = 0.06, 1 * 0.04 = 0.04 -> running maximum 0.06.  BH: from
 * the largest, 0.04 * 4 / 4 = 0.04, 0.03 * 4 / 3 = 0.04, 0.01 * 4 / 2 =
 * 0.02, 0.005 * 4 / 1 = 0.02 (running minimum).
 */
static void
adjust(void)
{
	double h[] = { 0.01, 0.04, 0.03, 0.005 };
	double b[] = { 0.01, 0.04, 0.03, 0.005 };
	double one[] = { 0.7 }, big[] = { 0.5, 0.6 };

	sigtest_adjust(h, 4, SIGTEST_HOLM);
	CHECK_NEAR(h[0], 0.03, 1e-15);
	CHECK_NEAR(h[1], 0.06, 1e-15);
	CHECK_NEAR(h[2], 0.06, 1e-15);
	CHECK_NEAR(h[3], 0.02, 1e-15);
	sigtest_adjust(b, 4, SIGTEST_BH);
	CHECK_NEAR(b[0], 0.02, 1e-15);
	CHECK_NEAR(b[1], 0.04, 1e-15);
	CHECK_NEAR(b[2], 0.04, 1e-15);
	CHECK_NEAR(b[3], 0.02, 1e-15);
	sigtest_adjust(one, 1, SIGTEST_HOLM);
	CHECK_NEAR(one[0], 0.7, 0);
	sigtest_adjust(big, 2, SIGTEST_HOLM);	/* capped at 1 */
	CHECK_NEAR(big[0], 1, 0);
	CHECK_NEAR(big[1], 1, 0);
	sigtest_adjust(NULL, 0, SIGTEST_BH);
}

/*
 * Student's t, by closed forms: with 1 degree of freedom (Cauchy) the
 * two-sided p is 1 - 2 atan(|t|) / pi; with 2, 1 - |t| / sqrt(2 + t^2);
 * and the tables' 5% points: t = 12.706 (df 1), 2.228 (df 10), 1.960
 * (df infinite).
 */
static void
student(void)
{
	double t;

	for (t = 0.25; t < 40; t *= 1.7) {
		CHECK_NEAR(sigtest_p_t(t, 1), 1 - 2 * atan(t) / M_PI, 1e-12);
		CHECK_NEAR(sigtest_p_t(-t, 2), 1 - t / sqrt(2 + t * t), 1e-12);
	}
	CHECK_NEAR(sigtest_p_t(12.706, 1), 0.05, 1e-4);
	CHECK_NEAR(sigtest_p_t(2.228, 10), 0.05, 1e-3);
	CHECK_NEAR(sigtest_p_t(1.96, INFINITY), 0.05, 1e-3);
	CHECK_NEAR(sigtest_p_t(0, 3.5), 1, 1e-15);
	CHECK(isnan(sigtest_p_t(1, 0)));
}

static void
sort_median(void)
{
	int64_t v[1000];
	size_t i;
	int ok = 1;

	for (i = 0; i < 1000; i++)	/* many repeats, and a descent */
		v[i] = i < 500 ? (int64_t)(i * 7919 % 13) : (int64_t)(1000 - i);
	sigtest_sort_i64(v, 1000);
	for (i = 1; i < 1000; i++)
		ok &= v[i - 1] <= v[i];
	CHECK(ok);
	CHECK_NEAR(sigtest_median(v, 0), 0, 0);
	{
		int64_t a[] = { 1, 3, 8 }, b[] = { 1, 2, 4, 9 };

		CHECK_NEAR(sigtest_median(a, 3), 3, 0);
		CHECK_NEAR(sigtest_median(b, 4), 3, 0);
	}
}

/*
 * The test's power at its limit.  Three against three, every value after
 * above every value before: the p-value of sigtest_mwu itself on such
 * samples is the smallest there is (pmin), about 0.0809 by hand (U = 9,
 * sigma^2 = 9 * 7 / 12, z = (4.5 - 0.5) / 2.2913 = 1.7457): no single
 * test of three executions a side reaches 0.05.  By hand, four a side
 * give z = 7.5 / sqrt(12) = 2.1651, p = 0.0304: need(1, 0.05) is 4; with
 * Holm over 49 tests, 7 give p = 0.00216 (z = 24 / 7.8262 = 3.0667),
 * times 49 = 0.106, and 8 give 0.00094 (z = 31.5 / 9.5219 = 3.3082),
 * times 49 = 0.046: need(49, 0.05) is 8.
 */
static void
power(void)
{
	int64_t a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct sigtest_mwu r;

	mwu(a, 3, b, 3, &r);
	CHECK_NEAR(sigtest_mwu_pmin(3, 3), r.p, 1e-12);
	CHECK_NEAR(sigtest_mwu_pmin(3, 3), 0.0809, 0.001);
	CHECK_NEAR(sigtest_mwu_pmin(4, 4), 0.0304, 0.001);
	CHECK_NEAR(sigtest_mwu_pmin(1, 1), 1, 0);
	CHECK_NEAR(sigtest_mwu_pmin(0, 5), 1, 0);
	CHECK(sigtest_mwu_need(1, 0.05) == 4);
	CHECK(sigtest_mwu_need(49, 0.05) == 8);
	CHECK(sigtest_mwu_need(1, 0) == 0);
}

int
main(void)
{
	power();
	scipy_example();
	separated();
	ties();
	degenerate();
	adjust();
	student();
	sort_median();
	return unit_done("sigtest");
}
