/*
 * Fuzz target: xz_decode, the whole-buffer .xz decompressor (members
 * ending in .xz: HLO dumps, push/pop CSV).
 */
#include <stdint.h>
#include <stdlib.h>

#include "formats/xz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	uint8_t *out;
	size_t len;

	(void)xz_is_xz_data(data, n);
	if (xz_decode(data, n, &out, &len) == 0) {
		if (out[len] != '\0')
			abort();
		free(out);
	}
	return 0;
}
