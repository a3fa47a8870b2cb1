/*
 * Fuzz target: an nsys SQLite export held in memory (nsysdb_open_mem, the
 * path of an export inside a zip): the header checks, the table and
 * column probing, the reading of NVTX ranges, GPU operations, launches,
 * graph nodes and thread names, the projection (nvtxproj), the graph
 * operations of each range (node-level traces, cmdbuf.h), the nvtx frame
 * and the push/pop rows of the compile frame.  Also checks the frame's
 * invariants: a projected range's parent is projected and contains it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/tsv.h"
#include "fuzz.h"
#include "profile/nsysdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
invariants(const struct nvtxproj *p)
{
	size_t k;

	for (k = 0; k < p->nout; k++) {
		size_t i = p->order[k];
		long par = p->parent[i];

		if (p->nops[i] <= 0 || p->pend[i] < p->pstart[i])
			abort();
		if (par >= 0 && (size_t)par >= p->n)
			abort();
		if (k > 0 && p->pstart[p->order[k - 1]] > p->pstart[i])
			abort();
	}
}

/* Node-level graph operations of every range (cmdbuf.h's input): each
 * a valid interval with a name lookup that does not fail. */
static void
graph_ops(struct nsysdb *d)
{
	size_t i, k, n;
	struct nsysdb_gop *g;

	for (i = 0; i < d->nr; i++) {
		n = nsysdb_graph_ops(d, d->r[i].id, &g);
		for (k = 0; k < n; k++)
			if (g[k].end < g[k].start ||
			    nsysdb_string(d, g[k].nameid) == NULL)
				abort();
		free(g);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct nsysdb d;
	struct nvtxproj p;
	struct compile_range *r = NULL;
	size_t nr = 0;
	struct tsv_writer *w;

	if (nsysdb_open_mem(&d, data, n) == 0 && nsysdb_load(&d) == 0 &&
	    nsysdb_load_threads(&d) == 0) {
		nvtxproj_run(d.r, d.nr, d.c, d.nc, d.corder, d.g, &p);
		invariants(&p);
		graph_ops(&d);
		w = tsv_wopen(fuzz_null(), "null");
		(void)nsysdb_write_nvtx(&d, &p, w, 1);
		(void)tsv_wclose(w);
		nvtxproj_free(&p);
		if (nsysdb_pushpop(&d, &r, &nr) == 0)
			compile_ranges_free(r, nr);
	}
	nsysdb_free(&d);
	return 0;
}
