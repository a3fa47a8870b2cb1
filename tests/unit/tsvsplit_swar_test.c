/*
 * tsvsplit_test.c on the TSV reader's portable scan (8 bytes in a 64-bit
 * word), which machines without SSE2 run: base/tsv.c compiled here with
 * TSV_SWAR, in place of the library's.
 */
#define TSV_SWAR
#define TSVSPLIT_NAME "tsvsplit_swar"
#include "base/tsv.c"
#include "tsvsplit_test.c"
