/*
 * Fuzz target: the cost rules (hlocost) over every instruction of an HLO
 * dump: operands, computations and parameters that are missing or of
 * the wrong kind, cycles of called computations, shapes of any rank,
 * windows and dimension numbers that point anywhere.
 */
#include <stdint.h>
#include <stdlib.h>

#include "costcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct hlo_module *m;

	if ((m = hlo_load(data, n)) != NULL)
		fuzz_check_costs(m);
	return 0;
}
