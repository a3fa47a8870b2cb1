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

/*
 * Write the N bytes at S, already escaped (a field read with
 * tsv_rawfield), as a field: the pass-through path of filters.
 */
void tsv_raw(struct tsv_writer *w, const char *s, size_t n);

/*
 * A writer into memory, for rows formatted on one thread and written by
 * another (tsv_rows): FP NULL, nothing flushed, the buffer grows.
 * tsv_mbuf gives the rows written since the last tsv_mreset (*LEN bytes,
 * whole rows); tsv_wclose releases it (returns 0).
 */
struct tsv_writer *tsv_mopen(void);
const char *tsv_mbuf(const struct tsv_writer *m, size_t *len);
void tsv_mreset(struct tsv_writer *m);

/*
 * Append the N bytes at S, whole rows formatted by a memory writer, to
 * W (between rows).  Returns as tsv_eor.
 */
int tsv_rows(struct tsv_writer *w, const char *s, size_t n);

/* ---- reading ---- */

struct tsv_reader;

/*
 * Start reading TSV from FP, named NAME in messages ("<stdin>" or the file
 * name), and read the header.  Returns NULL with an err message for empty
 * input ("NAME: no header line"), a CR line end, a NUL byte, or an empty
 * or duplicate column name; input that starts with the magic bytes of a
 * zip, xz, gzip, zstd, Parquet or SQLite file is named as such, with the
 * tool that reads it.  Lines have no length limit.
 */
struct tsv_reader *tsv_ropen(FILE *fp, const char *name);

/* Release the reader (FP itself is not closed); NULL is allowed. */
void tsv_rclose(struct tsv_reader *r);

/* The input's name, as given to tsv_ropen. */
const char *tsv_name(const struct tsv_reader *r);

/* Number of columns, and the name of column I (unescaped). */
size_t tsv_ncols(const struct tsv_reader *r);
const char *tsv_colname(const struct tsv_reader *r, size_t i);

/* Index of the column called NAME, or -1. */
long tsv_col(const struct tsv_reader *r, const char *name);

/* As tsv_col, but a missing column is an error:
 * "NAME: missing column 'X'". */
long tsv_require(const struct tsv_reader *r, const char *col);

/*
 * The indices of columns NAMES[0..N) (N <= 64) into COL[0..N): a column
 * whose bit (1 << k for NAMES[k]) is set in OPTIONAL is -1 when absent;
 * any other must be there.  Returns 0, or -1 with tsv_require's message
 * for the first required column missing.
 */
int tsv_columns(const struct tsv_reader *r, const char *const *names,
    size_t n, uint64_t optional, long *col);

/*
 * Read the next row.  Returns 1, 0 at end of input, or -1 with an err
 * message naming the input and line: a row with another number of fields
 * than the header ("NAME:LINE: 3 fields, the header has 5"), a CR, a NUL
 * byte, a bad escape ("\x"), or a read error.  A last line without LF is
 * accepted.
 */
int tsv_next(struct tsv_reader *r);

/* The line number of the current row (the header is line 1). */
long tsv_lineno(const struct tsv_reader *r);

/* The current row as read, without its LF: for passing rows through. */
const char *tsv_rawline(const struct tsv_reader *r, size_t *len);

/* Field I of the current row as read (still escaped), LEN bytes. */
const char *tsv_rawfield(const struct tsv_reader *r, size_t i, size_t *len);

/*
 * Field I of the current row unescaped and NUL-terminated; valid until
 * the next tsv_next.  (The reader refuses NUL bytes, which tsv_strn's
 * escapes cannot write either.)
 */
const char *tsv_field(struct tsv_reader *r, size_t i);

/*
 * Parse field I of the current row as a decimal integer into *V.  An
 * empty field is an error unless ALLOW_EMPTY, which then returns 1 and
 * leaves *V alone; returns 0 for a value, -1 with an err message
 * "NAME:LINE: column X: not an integer: 'abc'".
 */
int tsv_get_i64(struct tsv_reader *r, size_t i, int64_t *v, int allow_empty);

/* As tsv_get_i64 for a decimal number (strtod syntax, no inf/nan). */
int tsv_get_f64(struct tsv_reader *r, size_t i, double *v, int allow_empty);

/* Times read are within +-TSV_MAX_NS (2^60 ns, 36 years), so that a
 * sum or difference of a few never overflows. */
#define TSV_MAX_NS	((int64_t)1 << 60)

/*
 * As tsv_get_i64 for a time in milliseconds, returned in integer
 * nanoseconds: exact for up to 6 decimals (what tsv_ms writes), rounded
 * to the nearest ns beyond.  A time beyond TSV_MAX_NS is an error.
 */
int tsv_get_ms(struct tsv_reader *r, size_t i, int64_t *ns, int allow_empty);

#endif
