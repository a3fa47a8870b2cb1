/*
 * parquet_impl.h: private to the parquet module (parquet.c, the metadata;
 * parquet_page.c, the pages).  Nobody else includes it: everyone else
 * sees struct pq_file as an opaque pointer (parquet.h).
 */
#ifndef NSYSJAX_PARQUET_IMPL_H
#define NSYSJAX_PARQUET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/thrift.h"

/* Physical types, repetitions, encodings, codecs, page types. */
enum { T_BOOLEAN, T_INT32, T_INT64, T_INT96, T_FLOAT, T_DOUBLE,
	T_BYTE_ARRAY, T_FLBA };
enum { R_REQUIRED, R_OPTIONAL, R_REPEATED };
enum { E_PLAIN = 0, E_PLAIN_DICT = 2, E_RLE = 3, E_RLE_DICT = 8 };
enum { C_NONE, C_SNAPPY, C_GZIP, C_LZO, C_BROTLI, C_LZ4, C_ZSTD,
	C_LZ4_RAW };
enum { P_DATA, P_INDEX, P_DICT, P_DATA_V2 };
#define CONVERTED_LIST 3

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct chunk {			/* a column chunk: one leaf in one row group */
	int64_t nvalues;	/* levels: values, nulls, empty lists */
	int64_t data_off;	/* first data page */
	int64_t dict_off;	/* dictionary page, or <= 0 */
	int64_t size;		/* bytes of all its pages */
	int type, codec;
	int meta;		/* ColumnMetaData was present */
	int external;		/* file_path set: pages in another file */
};

struct rowgroup {
	int64_t nrows;
	size_t first, n;	/* its chunks: pq_file.chunks[first..+n) */
};

struct field {			/* a top-level column */
	char *name;
	int kind;		/* enum pq_kind, or -1: unsupported */
	char why[80];		/* for kind -1: the unsupported feature */
	size_t leaf;		/* its first leaf column */
	int type;		/* physical type of that leaf */
	int maxdef, maxrep;	/* highest definition, repetition level */
	int defrow;		/* lists: lowest def level of a non-null row */
	int defelem;		/* lists: lowest def level of an element */
};

struct pq_file {
	const uint8_t *data;
	size_t end;		/* where FileMetaData starts: pages lie before */
	int64_t nrows;
	struct field *fields;
	size_t nfields, nleaves;
	struct rowgroup *rgs;
	size_t nrgs;
	struct chunk *chunks;
	size_t nchunks;
	size_t budget;		/* pq_set_budget's bytes, 0: none */
};

#define PQ_NTYPES	8
#define PQ_NENCS	10
#define PQ_NCODECS	8
extern const char *const pq_typenames[PQ_NTYPES];
extern const char *const pq_encnames[PQ_NENCS];
extern const char *const pq_codecnames[PQ_NCODECS];

/* The name of V in TAB[0..N), or "#V" written to BUF when out of it. */
const char *pq_enumname(const char *const *tab, size_t n, int v,
    char buf[16]);

#define TYPENAME(v, b) pq_enumname(pq_typenames, PQ_NTYPES, (v), (b))
#define ENCNAME(v, b) pq_enumname(pq_encnames, PQ_NENCS, (v), (b))
#define CODECNAME(v, b) pq_enumname(pq_codecnames, PQ_NCODECS, (v), (b))

/*
 * Footer parsing.  Thrift readers accept any integer type for an integer
 * field and skip a field of unexpected type, as Thrift itself does; the
 * checks that matter happen on the parsed values.
 * pq_intfield: field value of TYPE as an integer, DFLT when not one.
 * pq_enumfield: an enum field: a small number, or -1 if out of any sane
 * range.
 */
int64_t pq_intfield(struct thrift *t, int type, int64_t dflt);
int pq_enumfield(struct thrift *t, int type);

#endif
