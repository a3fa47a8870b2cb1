/*
 * Fuzz target: the JSON path reader (json_find, json_i64_array) as the
 * cost rules use it on XLA's backend_config, and the GpuTargetConfigProto
 * text reader (device_pbtxt) on the same bytes, and the run metadata's
 * reader of that text (meta_pbtxt).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "profile/device.h"
#include "profile/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const char *const path[] = { "gemm_backend_config",
	    "dot_dimension_numbers", "lhs_contracting_dimensions" };
	const char *s = (const char *)data;
	struct device_info d;
	char *mv[META_NKEYS] = { NULL };
	const char *ms[META_NKEYS] = { NULL };
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
	meta_pbtxt(s, n, mv, ms);
	for (k = 0; k < META_NKEYS; k++) {
		/* A value has its source, and lies in no more than the text. */
		if ((mv[k] == NULL) != (ms[k] == NULL) ||
		    (mv[k] && strlen(mv[k]) > n + 40))
			abort();
		free(mv[k]);
	}
	return 0;
}
