/*
 * Fuzz target: the cost rules (hlocost) over every instruction of an HLO
 * dump: operands, computations and parameters that are missing or of
 * the wrong kind, cycles of called computations, shapes of any rank,
 * windows and dimension numbers that point anywhere.
 */
#include <stdint.h>
#include <stdlib.h>

#include "formats/hlo.h"
#include "formats/hlocost.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct hlo_module *m;
	struct hlocost_ctx *c;
	struct hlocost k;
	size_t i;

	if ((m = hlo_load(data, n)) == NULL)
		return 0;
	c = hlocost_new(m);
	for (i = 0; i < hlo_count(m); i++) {
		hlocost_inst(c, i, &k);
		/* Unknown is all zero; matmul FLOPs are FLOPs. */
		if (!k.known && (k.flops || k.bytes || k.matmul_flops))
			abort();
		if (k.matmul_flops > k.flops)
			abort();
	}
	hlocost_free(c);
	hlo_free(m);
	return 0;
}
