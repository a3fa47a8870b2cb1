/*
 * num: the one parser of numbers in text, for TSV fields and command-line
 * arguments alike.  Only plain decimals are numbers: no spaces, no hex,
 * no "inf" or "nan" (strtod alone would take them all).
 */
#ifndef NSYSJAX_NUM_H
#define NSYSJAX_NUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * S[0..N) as a signed decimal integer ([+-]digits) into *V.
 * Returns 0, or -1 (nothing recorded; the caller names the input) when
 * it is empty, holds anything else, or is outside int64_t.
 */
int num_i64(const char *s, size_t n, int64_t *v);

/*
 * S[0..N) as a finite decimal number (strtod's decimal syntax: digits,
 * sign, point, exponent) into *V.  Returns 0, or -1 as num_i64.
 */
int num_f64(const char *s, size_t n, double *v);

/*
 * S[0..N) as 1 to 16 hexadecimal digits (no sign, no "0x"; either case)
 * into *V: what "%016llx" writes (a digest).  Returns 0, or -1 as num_i64.
 */
int num_x64(const char *s, size_t n, uint64_t *v);

/*
 * The double X as an int64_t *V, truncated toward zero (C11 6.3.1.4),
 * when X is in range: -2^63 <= X < 2^63.  Returns 0, or -1 (nothing
 * recorded) for NaN, an infinity or a value outside int64_t, whose
 * conversion would be undefined behaviour.  The one checked conversion:
 * a cast elsewhere stands out.
 */
int num_f64_i64(double x, int64_t *v);

/* The most digits num_u64_digits writes (UINT64_MAX has 20). */
#define NUM_U64_DIGITS	20

/*
 * V in decimal, written backwards so that its last digit is at END[-1]
 * (no sign, no NUL); returns its first digit, at most NUM_U64_DIGITS
 * bytes before END.  Two digits at a step (a table of the 100 pairs):
 * the writers of million-row frames spend a tenth of their time here.
 */
char *num_u64_digits(char *end, uint64_t v);

#endif
