/*
 * costcheck: the invariants of XLA's cost rules (formats/hlocost.h) on
 * every instruction of a module, for the fuzz targets that cost one
 * (hlocost: a fuzzed module; json: a fuzzed backend_config).
 */
#ifndef NSYSJAX_COSTCHECK_H
#define NSYSJAX_COSTCHECK_H

#include <stdlib.h>

#include "formats/hlo.h"
#include "formats/hlocost.h"

/* Cost every instruction of M, abort() on a broken invariant (unknown
 * is all zero; matmul FLOPs are FLOPs; the malformed count is at most
 * the instructions), then free M. */
static inline void
fuzz_check_costs(struct hlo_module *m)
{
	struct hlocost_ctx *c = hlocost_new(m);
	struct hlocost k;
	const char *first;
	size_t i;

	for (i = 0; i < hlo_count(m); i++) {
		hlocost_inst(c, i, &k);
		if (!k.known && (k.flops || k.bytes || k.matmul_flops))
			abort();
		if (k.matmul_flops > k.flops)
			abort();
	}
	if (hlocost_malformed(c, &first) > hlo_count(m))
		abort();
	hlocost_free(c);
	hlo_free(m);
}

#endif
