/*
 * unit: a minimal test harness for lib/ modules.  Each tests/unit/X.c is a
 * program whose main() calls CHECK* macros and returns unit_done(), which
 * prints "X: N passed, N failed" and exits 1 on any failure.
 */
#ifndef NSYSJAX_UNIT_H
#define NSYSJAX_UNIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;

/* The next of a test's pseudo-random numbers from *STATE (nonzero):
 * Marsaglia's xorshift64 (13, 7, 17), the same sequence on every
 * machine. */
static inline uint64_t
unit_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#define CHECK(cond) do { \
	if (cond) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
	    __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	if (g_ && w_ && strcmp(g_, w_) == 0) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: got '%s', want '%s'\n", \
	    __FILE__, __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ == w_) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", \
	    __FILE__, __LINE__, #got, g_, w_); } \
} while (0)

#define CHECK_NEAR(got, want, rel) do { \
	double g_ = (got), w_ = (want); \
	if (fabs(g_ - w_) <= (rel) * fabs(w_) || g_ == w_) unit_pass++; \
	else { unit_fail++; fprintf(stderr, "%s:%d: %s = %.17g, want %.17g\n", \
	    __FILE__, __LINE__, #got, g_, w_); } \
} while (0)

static inline int
unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail);
	return unit_fail ? 1 : 0;
}

#endif
