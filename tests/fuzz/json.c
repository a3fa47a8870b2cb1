/*
 * Fuzz target: the JSON path reader (json_find, json_i64_array) as the
 * cost rules use it on XLA's backend_config, and the GpuTargetConfigProto
 * text reader (device_pbtxt) on the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "formats/json.h"
#include "profile/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const char *const path[] = { "gemm_backend_config",
	    "dot_dimension_numbers", "lhs_contracting_dimensions" };
	const char *s = (const char *)data;
	struct device_info d;
	struct json_val v;
	int64_t a[8];
	size_t k, na;
	int r;

	for (k = 0; k <= 3; k++) {
		r = json_find(s, n, path + 3 - k, k, &v);
		if (r < -1 || r > 1)
			abort();
		if (r == 1) {
			/* The value lies inside the text. */
			if (v.p < s || v.p + v.n > s + n || v.n == 0)
				abort();
			if (json_i64_array(v, a, 8, &na) == 0 && na > 8)
				abort();
		}
	}
	(void)device_pbtxt(s, n, &d);
	if (d.name[sizeof(d.name) - 1] != '\0')
		abort();
	return 0;
}
