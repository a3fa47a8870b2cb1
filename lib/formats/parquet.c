/*
 * parquet: see parquet.h.  The layout follows the Parquet format spec
 * (parquet.thrift and Encodings.md); numbers below are from those files.
 *
 * A file is: "PAR1", column chunks (pages), FileMetaData (Thrift compact),
 * 4-byte footer length, "PAR1".  pq_open parses FileMetaData into the
 * schema (one struct field per top-level column) and a flat table of
 * column chunks; pq_read_column walks the pages of one leaf column in
 * every row group and appends their values to growing arrays.
 *
 * This file: the metadata (footer, schema, row groups, chunks) and the
 * accessors; parquet_page.c: the pages and values of pq_read_column;
 * pqrle.c: the RLE/bit-packing hybrid; parquet_impl.h: what the two
 * files of this module share.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/parquet.h"
#include "formats/parquet_impl.h"
#include "formats/pqrle.h"
#include "formats/thrift.h"

const char *const pq_typenames[PQ_NTYPES] = {
	"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
	"BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"
};
const char *const pq_encnames[PQ_NENCS] = {
	"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
	"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
	"RLE_DICTIONARY", "BYTE_STREAM_SPLIT"
};
const char *const pq_codecnames[PQ_NCODECS] = {
	"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD",
	"LZ4_RAW"
};

const char *
pq_enumname(const char *const *tab, size_t n, int v, char buf[16])
{
	if (v >= 0 && (size_t)v < n)
		return tab[v];
	snprintf(buf, 16, "#%d", v);
	return buf;
}

struct selem {			/* SchemaElement, while building fields */
	const uint8_t *name;
	size_t namelen;
	int hasname;
	int type;		/* physical type, -1 for a group */
	int rep;		/* R_*, -1 if absent (the root) */
	int64_t nchild;
	int list;		/* annotated LIST (converted or logical) */
};

/*
 * Footer parsing.  Thrift readers below accept any integer type for an
 * integer field and skip a field of unexpected type, as Thrift itself
 * does; the checks that matter happen on the parsed values.
 */
int64_t
pq_intfield(struct thrift *t, int type, int64_t dflt)
{
	if (type == THRIFT_I16 || type == THRIFT_I32 || type == THRIFT_I64)
		return thrift_i64(t);
	thrift_skip(t, type);
	return dflt;
}

/* An enum field: a small number, or -1 if out of any sane range. */
int
pq_enumfield(struct thrift *t, int type)
{
	int64_t v = pq_intfield(t, type, -1);

	return v < 0 || v > INT16_MAX ? -1 : (int)v;
}

static void
parse_logical(struct thrift *t, struct selem *e)
{
	int last = 0, id, type;

	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 3 && type == THRIFT_STRUCT)
			e->list = 1;
		thrift_skip(t, type);
	}
}

static void
parse_selem(struct thrift *t, struct selem *e)
{
	int last = 0, id, type;

	memset(e, 0, sizeof(*e));
	e->type = -1;
	e->rep = -1;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		switch (id) {
		case 1:
			e->type = pq_enumfield(t, type);
			if (e->type < 0)
				e->type = 99;	/* present but unknown */
			break;
		case 3:
			e->rep = pq_enumfield(t, type);
			break;
		case 4:
			if (type != THRIFT_BINARY) {
				thrift_skip(t, type);
				break;
			}
			e->name = thrift_binary(t, &e->namelen);
			e->hasname = 1;
			break;
		case 5:
			e->nchild = pq_intfield(t, type, 0);
			break;
		case 6:
			if (pq_enumfield(t, type) == CONVERTED_LIST)
				e->list = 1;
			break;
		case 10:
			if (type == THRIFT_STRUCT)
				parse_logical(t, e);
			else
				thrift_skip(t, type);
			break;
		default:
			thrift_skip(t, type);
		}
	}
}

static void
parse_meta(struct thrift *t, struct chunk *c)
{
	int last = 0, id, type;

	c->meta = 1;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		switch (id) {
		case 1:
			c->type = pq_enumfield(t, type);
			break;
		case 4:
			c->codec = pq_enumfield(t, type);
			break;
		case 5:
			c->nvalues = pq_intfield(t, type, -1);
			break;
		case 7:
			c->size = pq_intfield(t, type, -1);
			break;
		case 9:
			c->data_off = pq_intfield(t, type, -1);
			break;
		case 11:
			c->dict_off = pq_intfield(t, type, -1);
			break;
		default:
			thrift_skip(t, type);
		}
	}
}

static void
parse_chunk(struct thrift *t, struct chunk *c)
{
	int last = 0, id, type;
	size_t len;

	memset(c, 0, sizeof(*c));
	c->nvalues = c->data_off = c->dict_off = c->size = -1;
	c->type = c->codec = -1;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 1 && type == THRIFT_BINARY)
			c->external = thrift_binary(t, &len) && len > 0;
		else if (id == 3 && type == THRIFT_STRUCT)
			parse_meta(t, c);
		else
			thrift_skip(t, type);
	}
}

static void
parse_chunks(struct thrift *t, struct pq_file *f, struct rowgroup *rg,
    size_t *cap)
{
	size_t n, i;
	int etype;

	n = thrift_list(t, &etype);
	if (etype != THRIFT_STRUCT) {
		while (n-- > 0)
			thrift_skip_elem(t, etype);
		return;
	}
	rg->first = f->nchunks;
	mem_grow(&f->chunks, cap, f->nchunks + n, sizeof(*f->chunks));
	for (i = 0; i < n && !t->bad; i++)
		parse_chunk(t, &f->chunks[f->nchunks++]);
	rg->n = f->nchunks - rg->first;
}

static void
parse_rowgroup(struct thrift *t, struct pq_file *f, struct rowgroup *rg,
    size_t *cap)
{
	int last = 0, id, type, seen = 0;

	rg->nrows = -1;
	rg->first = rg->n = 0;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 1 && type == THRIFT_LIST && !seen) {
			parse_chunks(t, f, rg, cap);
			seen = 1;
		} else if (id == 3) {
			rg->nrows = pq_intfield(t, type, -1);
		} else {
			thrift_skip(t, type);
		}
	}
}

static void
parse_rowgroups(struct thrift *t, struct pq_file *f)
{
	size_t n, cap = 0;
	int etype;

	n = thrift_list(t, &etype);
	if (etype != THRIFT_STRUCT || f->rgs) {
		while (n-- > 0)
			thrift_skip_elem(t, etype);
		return;
	}
	f->rgs = mem_calloc(n, sizeof(*f->rgs));
	for (f->nrgs = 0; f->nrgs < n && !t->bad; f->nrgs++)
		parse_rowgroup(t, f, &f->rgs[f->nrgs], &cap);
}

static struct selem *
parse_schema(struct thrift *t, size_t *nel)
{
	struct selem *el;
	size_t n, i;
	int etype;

	n = thrift_list(t, &etype);
	if (etype != THRIFT_STRUCT) {
		while (n-- > 0)
			thrift_skip_elem(t, etype);
		return NULL;
	}
	el = mem_calloc(n, sizeof(*el));
	for (i = 0; i < n && !t->bad; i++)
		parse_selem(t, &el[i]);
	*nel = n;
	return el;
}

static struct selem *
parse_filemeta(struct thrift *t, struct pq_file *f, size_t *nel)
{
	struct selem *el = NULL;
	int last = 0, id, type;

	f->nrows = -1;
	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP) {
		if (id == 2 && type == THRIFT_LIST && el == NULL)
			el = parse_schema(t, nel);
		else if (id == 3)
			f->nrows = pq_intfield(t, type, -1);
		else if (id == 4 && type == THRIFT_LIST)
			parse_rowgroups(t, f);
		else
			thrift_skip(t, type);
	}
	return el;
}

/*
 * Schema: SchemaElements in depth-first order, the root first; each group
 * says how many children follow.  Each top-level subtree is one column of
 * ours; its primitive elements are leaf columns, numbered in order, and
 * every row group has one column chunk per leaf.
 */

/* End of the subtree at EL[I], adding its leaves to *LEAVES; 0: corrupt. */
static size_t
subtree(const struct selem *el, size_t nel, size_t i, size_t *leaves)
{
	uint64_t need = 1;

	while (need > 0) {
		if (i >= nel || el[i].nchild < 0)
			return 0;
		if (el[i].type >= 0) {
			if (el[i].nchild != 0)
				return 0;
			(*leaves)++;
		}
		need += (uint64_t)el[i].nchild - 1;
		i++;
		if (need > nel - i)
			return 0;
	}
	return i;
}

static void
unsupported(struct field *fd, const char *fmt, ...)
{
	va_list ap;

	fd->kind = -1;
	va_start(ap, fmt);
	vsnprintf(fd->why, sizeof(fd->why), fmt, ap);
	va_end(ap);
}

static int
flatkind(int type)
{
	switch (type) {
	case T_BOOLEAN:
		return PQ_BOOL;
	case T_INT32:
	case T_INT64:
		return PQ_INT64;
	case T_FLOAT:
	case T_DOUBLE:
		return PQ_DOUBLE;
	case T_BYTE_ARRAY:
		return PQ_STRING;
	}
	return -1;
}

/* A list of integers whose element is EL, inside a list node at DEFROW. */
static void
listof(struct field *fd, const struct selem *elem, int defrow)
{
	char b[16];

	fd->defrow = defrow;
	fd->defelem = defrow + 1;
	fd->maxdef = fd->defelem + (elem->rep == R_OPTIONAL);
	fd->maxrep = 1;
	fd->type = elem->type;
	if (elem->type != T_INT32 && elem->type != T_INT64)
		unsupported(fd, "list of %s", TYPENAME(elem->type, b));
	else
		fd->kind = PQ_LIST_INT64;
}

/* Classify the top-level field whose subtree is EL[0..N). */
static void
classify(struct field *fd, const struct selem *el, size_t n)
{
	const struct selem *r;
	char b[16];

	fd->type = el->type;
	if (el->type >= 0 && el->rep == R_REPEATED) {
		listof(fd, el, 0);
	} else if (el->type >= 0) {
		fd->maxdef = el->rep == R_OPTIONAL;
		if ((fd->kind = flatkind(el->type)) < 0)
			unsupported(fd, "type %s", TYPENAME(el->type, b));
	} else if (!el->list || el->nchild != 1 || el[1].rep != R_REPEATED ||
	    el->rep == R_REPEATED) {
		unsupported(fd, "nested column (struct, map or list of lists)");
	} else if (el[1].type >= 0) {
		listof(fd, &el[1], el->rep == R_OPTIONAL);	/* 2-level */
	} else if (el[1].nchild == 1 && n >= 3 && (r = &el[2])->type >= 0 &&
	    r->rep != R_REPEATED) {
		listof(fd, r, el->rep == R_OPTIONAL);		/* 3-level */
	} else {
		unsupported(fd, "nested column (list of structs or lists)");
	}
}

static int
build_fields(struct pq_file *f, const struct selem *el, size_t nel)
{
	size_t i, s, e, nfields;
	struct field *fd;

	if (nel == 0 || el[0].type >= 0 || el[0].nchild < 0 ||
	    (uint64_t)el[0].nchild > nel - 1)
		return err_fail("corrupt footer: bad schema root");
	nfields = (size_t)el[0].nchild;
	f->fields = mem_calloc(nfields, sizeof(*f->fields));
	for (s = 1, i = 0; i < nfields; i++, s = e) {
		fd = &f->fields[i];
		fd->leaf = f->nleaves;
		if ((e = subtree(el, nel, s, &f->nleaves)) == 0)
			return err_fail("corrupt footer: bad schema tree");
		if (!el[s].hasname)
			return err_fail("corrupt footer: unnamed column");
		fd->name = mem_strndup((const char *)el[s].name,
		    el[s].namelen);
		f->nfields++;
		classify(fd, &el[s], e - s);
	}
	if (s != nel)
		return err_fail("corrupt footer: schema has %zu stray elements",
		    nel - s);
	return 0;
}

static int
check_rowgroups(struct pq_file *f)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < f->nrgs; i++) {
		if (f->rgs[i].nrows < 0)
			return err_fail("corrupt footer: row group %zu has no "
			    "row count", i);
		if (f->rgs[i].n != f->nleaves)
			return err_fail("corrupt footer: row group %zu has %zu "
			    "column chunks, schema has %zu", i, f->rgs[i].n,
			    f->nleaves);
		if (f->rgs[i].nrows > INT64_MAX - sum)
			return err_fail("corrupt footer: too many rows");
		sum += f->rgs[i].nrows;
	}
	if (f->nrows < 0)
		return err_fail("corrupt footer: bad row count");
	if (sum != f->nrows)
		return err_fail("corrupt footer: row groups hold %lld rows, "
		    "file says %lld", (long long)sum, (long long)f->nrows);
	return 0;
}

struct pq_file *
pq_open(const uint8_t *data, size_t len)
{
	struct pq_file *f;
	struct selem *el;
	struct thrift t;
	size_t mlen, nel = 0;
	int rc;

	if (len < 4 || (memcmp(data, "PAR1", 4) && memcmp(data, "PARE", 4)))
		return err_fail("not a parquet file (bad magic)"), NULL;
	if (len < 12)
		return err_fail("truncated footer"), NULL;
	if (memcmp(data + len - 4, "PARE", 4) == 0)
		return err_fail("encrypted parquet files are not supported"),
		    NULL;
	if (memcmp(data + len - 4, "PAR1", 4))
		return err_fail("truncated footer (no closing magic)"), NULL;
	mlen = pqrle_le32(data + len - 8);
	if (mlen > len - 12)
		return err_fail("truncated footer"), NULL;
	f = mem_calloc(1, sizeof(*f));
	f->data = data;
	f->end = len - 8 - mlen;
	thrift_init(&t, data + f->end, mlen);
	el = parse_filemeta(&t, f, &nel);
	if (t.bad)
		rc = err_prefix("corrupt footer");
	else if (el == NULL)
		rc = err_fail("corrupt footer: no schema");
	else if ((rc = build_fields(f, el, nel)) == 0)
		rc = check_rowgroups(f);
	free(el);
	if (rc < 0) {
		pq_close(f);
		return NULL;
	}
	return f;
}

void
pq_close(struct pq_file *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nfields; i++)
		free(f->fields[i].name);
	free(f->fields);
	free(f->rgs);
	free(f->chunks);
	free(f);
}

void
pq_set_budget(struct pq_file *f, size_t bytes)
{
	f->budget = bytes;
}

int64_t
pq_nrows(const struct pq_file *f)
{
	return f->nrows;
}

size_t
pq_ncolumns(const struct pq_file *f)
{
	return f->nfields;
}

const char *
pq_column_name(const struct pq_file *f, size_t i)
{
	return i < f->nfields ? f->fields[i].name : NULL;
}

long
pq_column_index(const struct pq_file *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nfields; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return (long)i;
	return -1;
}

int
pq_column_kind(const struct pq_file *f, size_t i)
{
	if (i >= f->nfields)
		return err_fail("column %zu does not exist", i);
	if (f->fields[i].kind < 0)
		return err_fail("column '%s': unsupported %s",
		    f->fields[i].name, f->fields[i].why);
	return f->fields[i].kind;
}

