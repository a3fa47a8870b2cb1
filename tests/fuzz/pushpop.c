/*
 * Fuzz target: the nvtx_pushpop_trace CSV report (compile_parse_csv) and
 * the compile frame built from its ranges (compile_add_profile: splicing
 * of parallel ranges, ParentId trees and cycles, program names, autotuner
 * cleanup), written as TSV.
 */
#include <stdint.h>
#include <stdlib.h>

#include "profile/compile.h"
#include "fuzz.h"
#include "base/tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *
fingerprint(void *ctx, int64_t program_id, const char *name)
{
	(void)ctx;
	(void)name;
	return program_id % 2 ? "fp" : NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct compile_frame cf = { 0 };
	struct compile_range *r;
	struct tsv_writer *w;
	char *csv = fuzz_str(data, n);
	size_t nr;

	if (compile_parse_csv(csv, n, &r, &nr) == 0) {
		(void)compile_add_profile(&cf, "a", r, nr, NULL, NULL, 0);
		(void)compile_add_profile(&cf, "b", r, nr, fingerprint, NULL,
		    COMPILE_CLEAN);
		w = tsv_wopen(fuzz_null(), "null");
		(void)compile_write(w, &cf);
		(void)tsv_wclose(w);
		compile_free(&cf);
		compile_ranges_free(r, nr);
	}
	free(csv);
	return 0;
}
