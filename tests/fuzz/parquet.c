/*
 * Fuzz target: the parquet reader (footer, schema, page headers, each
 * encoding and codec, levels) and the three tables read from parquet:
 * nvtx_gpu_proj_trace (every layout), thread-metadata and the push/pop
 * trace.
 */
#include <stdint.h>
#include <stdlib.h>

#include "profile/compile.h"
#include "formats/parquet.h"
#include "formats/pqrle.h"
#include "profile/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * RLE lets a few bytes hold millions of rows (parquet.h): a caller that
 * bounds memory checks pq_nrows first and sets a budget, as this one
 * does (make fuzz runs it with -malloc_limit_mb above the budget).
 */
#define MAXROWS	(1 << 20)
#define BUDGET	((size_t)256 << 20)

static void
columns(struct pq_file *f)
{
	struct pq_column c;
	size_t i;
	int64_t r;

	for (i = 0; i < pq_ncolumns(f); i++) {
		(void)pq_column_name(f, i);
		if (pq_column_kind(f, i) < 0 || pq_read_column(f, i, &c) != 0)
			continue;
		if (c.n != pq_nrows(f))
			abort();
		for (r = 0; r < c.n; r++)
			if (c.kind == PQ_STRING && c.str[r][c.len[r]] != '\0')
				abort();
		if (c.kind == PQ_LIST_INT64 && (c.list_off[0] != 0 ||
		    c.list_off[c.n] < 0))
			abort();
		pq_column_free(&c);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct compile_range *r;
	struct threads th;
	struct trace t;
	struct pq_file *f;
	size_t nr;
	uint32_t v[64];

	(void)pqrle_decode(data, n, n > 0 ? data[0] % 33 : 0, v, 64);
	if ((f = pq_open(data, n)) == NULL)
		return 0;
	(void)pq_column_index(f, "RangeId");
	if (pq_nrows(f) > MAXROWS) {
		pq_close(f);
		return 0;
	}
	pq_set_budget(f, BUDGET);
	columns(f);
	pq_close(f);
	(void)trace_read_parquet(data, n, &t);
	trace_free(&t);
	(void)threads_read_parquet(data, n, &th);
	threads_free(&th);
	if (compile_parse_parquet(data, n, &r, &nr) == 0)
		compile_ranges_free(r, nr);
	return 0;
}
