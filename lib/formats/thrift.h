/*
 * thrift: a reader for the Thrift compact protocol, the encoding of
 * Parquet's footer (FileMetaData) and page headers.  There is no schema
 * here: the caller walks a struct field by field with thrift_field(),
 * reads the fields it knows and hands every other one to thrift_skip().
 *
 * Errors are sticky.  The first problem (truncated input, over-long
 * varint, bad type, nesting deeper than THRIFT_MAX_DEPTH, a count larger
 * than the bytes left could hold) records an err message, sets t->bad and
 * moves the cursor to the end, after which every read returns 0 or NULL
 * and thrift_field() returns THRIFT_STOP.  So a parser may read a whole
 * struct and test t->bad once at the end; no loop can run away on bad
 * input, because each element and field consumes at least one byte.
 */
#ifndef NSYSJAX_THRIFT_H
#define NSYSJAX_THRIFT_H

#include <stddef.h>
#include <stdint.h>

/* Compact-protocol type codes, as found in field and list headers. */
enum thrift_type {
	THRIFT_STOP = 0,
	THRIFT_TRUE = 1,	/* a bool field holding true; BOOL in lists */
	THRIFT_FALSE = 2,	/* a bool field holding false */
	THRIFT_BYTE = 3,
	THRIFT_I16 = 4,
	THRIFT_I32 = 5,
	THRIFT_I64 = 6,
	THRIFT_DOUBLE = 7,
	THRIFT_BINARY = 8,	/* also strings */
	THRIFT_LIST = 9,
	THRIFT_SET = 10,
	THRIFT_MAP = 11,
	THRIFT_STRUCT = 12
};

/* Nesting limit of thrift_skip(): parquet.thrift itself needs about 6. */
#define THRIFT_MAX_DEPTH 64

struct thrift {
	const uint8_t *p;	/* next byte to read */
	const uint8_t *end;	/* one past the last byte */
	int bad;		/* set by the first error */
};

/* Start reading the LEN bytes at BUF (BUF may be NULL when LEN is 0). */
void thrift_init(struct thrift *t, const uint8_t *buf, size_t len);

/*
 * Read the next field header of the current struct.  *LAST is the id of
 * the previous field of this struct (start each struct with 0; field ids
 * are deltas from it), and is updated.  Returns the field's type with its
 * id in *ID, or THRIFT_STOP (0) at the end of the struct or on error.
 * For bool fields the value is the type: THRIFT_TRUE or THRIFT_FALSE.
 */
int thrift_field(struct thrift *t, int *last, int *id);

/* An unsigned LEB128 varint of at most 64 bits (10 bytes). */
uint64_t thrift_varint(struct thrift *t);

/* A zigzag varint: an i64, or an i32/i16 (error if out of its range). */
int64_t thrift_i64(struct thrift *t);
int32_t thrift_i32(struct thrift *t);

/*
 * A binary or string: returns a pointer into the input, not NUL-terminated,
 * with its length in *LEN; NULL (and *LEN 0) on error.
 */
const uint8_t *thrift_binary(struct thrift *t, size_t *len);

/*
 * A list or set header: returns the element count and stores the element
 * type in *ETYPE.  The count is checked against the bytes left (every
 * element takes at least one), so it may size an allocation.
 */
size_t thrift_list(struct thrift *t, int *etype);

/*
 * Skip one value of type TYPE (any type, nested containers and structs
 * included, at most THRIFT_MAX_DEPTH deep).  For THRIFT_TRUE/FALSE as a
 * field type nothing is read (the value was in the header).
 */
void thrift_skip(struct thrift *t, int type);

/* Skip a list element of type TYPE: unlike fields, bools take a byte. */
void thrift_skip_elem(struct thrift *t, int type);

/* Mark T bad with an err message (printf FMT) unless it already is. */
void thrift_fail(struct thrift *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
