/*
 * tsv: the TSV stream of nsysjax (ARCHITECTURE.md, "The TSV stream
 * contract").  UTF-8, LF line ends, a header line, the same field count on
 * every line.  TAB, LF, CR and backslash inside a field are written as
 * \t \n \r \\ (the Miller 6 / linear-TSV rule) and unescaped on reading.
 * Numbers never use exponent notation.
 */
#ifndef NSYSJAX_TSV_H
#define NSYSJAX_TSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tsv_writer;

/*
 * Start writing TSV to FP, named NAME in error messages ("<stdout>").
 * Output is buffered by the writer; nothing is written until a row ends.
 */
struct tsv_writer *tsv_wopen(FILE *fp, const char *name);

/* Write a field holding the N bytes at S (escaped as above). */
void tsv_strn(struct tsv_writer *w, const char *s, size_t n);

/* Write a field holding the C string S; NULL writes an empty field. */
void tsv_str(struct tsv_writer *w, const char *s);

/* Write an empty field (an absent value). */
void tsv_empty(struct tsv_writer *w);

/* Write a decimal integer field. */
void tsv_i64(struct tsv_writer *w, int64_t v);

/* Write 0 or 1. */
void tsv_bool(struct tsv_writer *w, int v);

/*
 * Write a time given in integer nanoseconds as exact decimal milliseconds:
 * 35869654956 -> "35869.654956", -1500 -> "-0.0015", 2000000 -> "2".
 */
void tsv_ms(struct tsv_writer *w, int64_t ns);

/*
 * Write a double as the shortest decimal that reads back to the same
 * value, without exponent (1e-05 -> "0.00001"); NaN and infinities write
 * an empty field.
 */
void tsv_f64(struct tsv_writer *w, double v);

/*
 * End the current row.  Returns 0, or -1 with an err message naming the
 * output when a write failed (full disk, closed pipe).
 */
int tsv_eor(struct tsv_writer *w);

/*
 * Write a header row from the NULL-terminated array NAMES.  Returns as
 * tsv_eor.
 */
int tsv_header(struct tsv_writer *w, const char *const *names);

/*
 * Flush and release the writer (FP itself is not closed).  Returns 0, or
 * -1 with an err message if any write failed.
 */
int tsv_wclose(struct tsv_writer *w);

/*
 * Format V as tsv_f64 does into BUF (at least 400 bytes: the longest
 * double without exponent).  Returns the length; 0 for NaN/infinity.
 */
size_t tsv_fmt_f64(char *buf, double v);

/* Format NS nanoseconds as tsv_ms does into BUF (>= 32 bytes). */
size_t tsv_fmt_ms(char *buf, int64_t ns);

#endif
