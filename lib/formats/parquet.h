/*
 * parquet: a reader for the Apache Parquet files written by nsys, pandas
 * (pyarrow) and DuckDB.  The file is an in-memory buffer; columns are
 * decoded one at a time, on request, into plain arrays.
 *
 * Supported: flat REQUIRED/OPTIONAL columns of BOOLEAN, INT32, INT64,
 * FLOAT, DOUBLE and BYTE_ARRAY; lists of INT32/INT64 (the 3-level LIST
 * layout, the 2-level legacy one and a bare repeated field); data pages v1
 * and v2, dictionary pages, any number of row groups and pages; encodings
 * PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY and RLE (levels, booleans);
 * codecs UNCOMPRESSED, SNAPPY, GZIP and ZSTD.  Anything else (INT96,
 * FIXED_LEN_BYTE_ARRAY, structs, maps, DELTA_* and BYTE_STREAM_SPLIT
 * encodings, LZ4/BROTLI/LZO, encryption, columns in other files) is
 * refused with a message naming the column and the feature.
 *
 * Every size, count and offset read from the file is checked before use:
 * bad input gives an err message (err.h) and -1 or NULL, never a crash.
 * Messages do not name the file; callers prefix it (err_prefix).  Nothing
 * is allocated for values a header merely claims: a page must be seen to
 * hold its levels and values first, a page may claim no more values than
 * its column chunk, and a chunk of a flat column no more than its row
 * group's rows.  RLE lets a few bytes hold millions of nulls or repeats,
 * though, and list columns millions of elements per row: a caller that
 * must bound memory on untrusted input checks pq_nrows() and sets a
 * budget (pq_set_budget) before reading columns.
 *
 * Values are taken as stored: logical and converted types (UINT_64,
 * TIMESTAMP, DECIMAL, ...) are not applied; BYTE_ARRAY need not be UTF-8.
 */
#ifndef NSYSJAX_PARQUET_H
#define NSYSJAX_PARQUET_H

#include <stddef.h>
#include <stdint.h>

struct pq_file;

/* What a column decodes to (INT32 widens to INT64, FLOAT to DOUBLE). */
enum pq_kind {
	PQ_BOOL,		/* i64 holds 0 or 1 */
	PQ_INT64,		/* i64 */
	PQ_DOUBLE,		/* f64 */
	PQ_STRING,		/* str, len */
	PQ_LIST_INT64		/* list_off, list_val, list_valid */
};

/*
 * One decoded column of n rows.  valid and the arrays of its kind are
 * set (never NULL, even for n == 0), the others are NULL.  Units are the
 * file's: no scaling or logical type is applied.  A null row has
 * valid[i] == 0 and reads as 0
 * (PQ_BOOL, PQ_INT64), NaN (PQ_DOUBLE), "" of length 0 (PQ_STRING) or an
 * empty list (PQ_LIST_INT64).
 */
struct pq_column {
	enum pq_kind kind;
	int64_t n;		/* rows */
	uint8_t *valid;		/* [n]: 1 = present, 0 = null */
	int64_t *i64;		/* [n]: PQ_BOOL, PQ_INT64 */
	double *f64;		/* [n]: PQ_DOUBLE */
	const char **str;	/* [n]: PQ_STRING, each NUL-terminated */
	size_t *len;		/* [n]: PQ_STRING, bytes (may hold NULs) */
	int64_t *list_off;	/* [n + 1]: row i is list_val[off[i]..off[i+1]),
				   off[0] == 0 */
	int64_t *list_val;	/* [list_off[n]]: elements, 0 where null */
	uint8_t *list_valid;	/* [list_off[n]]: 1 = element present */
	char *blob;		/* private: storage behind str */
};

/*
 * Parse the footer of the LEN-byte Parquet file at DATA.  DATA must stay
 * alive and unchanged until pq_close (it is read in place, not copied).
 * No column data is read.  Returns NULL with an err message such as
 * "not a parquet file (bad magic)", "truncated footer",
 * "encrypted parquet files are not supported" or
 * "corrupt footer: <detail>".
 */
struct pq_file *pq_open(const uint8_t *data, size_t len);

/* Release F (not the data given to pq_open).  NULL is allowed. */
void pq_close(struct pq_file *f);

/*
 * The most memory pq_read_column may take for one column on F: BYTES
 * (0, the default: no limit), counted as PQ_VALUE_BYTES per value its
 * column chunks claim (rows, nulls and list elements; more than any
 * kind keeps per value, growth included) and as a page's uncompressed
 * size.  A column that claims more fails with "N values claimed, over
 * the budget of B bytes" or "page at offset N: N bytes uncompressed,
 * over the budget of B bytes", before anything is sized by the claim.
 * The model is zstd's ZSTD_d_windowLogMax: the caller, who knows its
 * memory, bounds the decoder.
 */
#define PQ_VALUE_BYTES 64
void pq_set_budget(struct pq_file *f, size_t bytes);

/* Number of rows in the file, as the footer states (>= 0). */
int64_t pq_nrows(const struct pq_file *f);

/* Number of top-level columns, supported or not. */
size_t pq_ncolumns(const struct pq_file *f);

/*
 * Name of top-level column I, NUL-terminated (cut at a NUL it may hold),
 * or NULL if I >= pq_ncolumns.
 */
const char *pq_column_name(const struct pq_file *f, size_t i);

/* Index of the first top-level column called NAME, or -1 if none. */
long pq_column_index(const struct pq_file *f, const char *name);

/*
 * The kind column I decodes to (an enum pq_kind), or -1 with an err
 * message "column 'X': unsupported <feature>" when pq_read_column would
 * refuse it for its type or shape.  Encodings and codecs are only seen
 * while decoding, so a column with a kind may still fail to read.
 */
int pq_column_kind(const struct pq_file *f, size_t i);

/*
 * Decode every row of top-level column I (< pq_ncolumns) into *OUT, which
 * the caller releases with pq_column_free.  Only this column's pages are
 * read; memory grows with the pages actually decoded.  Returns 0, or -1
 * with an err message starting "column 'X': " (then "row group N: " if
 * there are several) such as "unsupported encoding DELTA_BINARY_PACKED",
 * "unsupported codec LZ4", "corrupt page header at offset N: ..." or
 * "page at offset N: <what is wrong>", and *OUT zeroed.  F is not
 * modified, so different columns may be read from different threads if
 * errors are not needed (the err message buffer is shared).
 */
int pq_read_column(const struct pq_file *f, size_t i, struct pq_column *out);

/* Release the arrays of C and zero it.  Safe on a zeroed column. */
void pq_column_free(struct pq_column *c);

#endif
