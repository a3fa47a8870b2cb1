/*
 * Fuzz target: the NVTX range names XLA writes (nvtx.h): module, thunk,
 * compile and launcher names, with and without the TSL: domain.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile/nvtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* P[0..LEN) must lie within S. */
static void
within(const char *s, const char *p, size_t len)
{
	size_t n = strlen(s);

	if (p < s || p > s + n || len > n - (size_t)(p - s))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *s = fuzz_str(data, n);
	const char *p;
	size_t len;
	int64_t id;
	int32_t l[4];

	(void)nvtx_classify(s);
	within(s, nvtx_strip_tsl(s), 0);
	if (nvtx_parse_module(s, &p, &len, &id) == 0) {
		within(s, p, len);
		if (id < -1)
			abort();
	}
	if (nvtx_parse_thunk(s, &p, &len) == 0)
		within(s, p, len);
	/* The same name with its id; an id is never below -1. */
	{
		const char *q;
		size_t qlen;
		int r = nvtx_parse_thunk_id(s, &q, &qlen, &id);

		if (r != (nvtx_parse_thunk(s, &p, &len) == 0 ? 0 : -1) ||
		    (r == 0 && (q != p || qlen != len || id < -1)))
			abort();
	}
	(void)nvtx_parse_launcher(s, l);
	/* A collective's name: a static opcode that S starts with; a size
	 * of 2 (pairwise) or -1 (unknown). */
	{
		const char *c = nvtx_collective(s, &id);

		if ((id != 2 && id != -1) || (c && strncmp(s, c, strlen(c)) != 0))
			abort();
	}
	free(s);
	return 0;
}
