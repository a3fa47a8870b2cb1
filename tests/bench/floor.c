/*
 * The decompression floor of nsysjax-extract, for make bench: read and
 * decompress, with the same libraries, every member that extract reads
 * from the given archives (trace and thread metadata, the push/pop trace,
 * the after-optimizations HLO dumps), and do nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive.h"
#include "base/err.h"

static int
wanted(const char *m)
{
	return strncmp(m, "nvtx_gpu_proj_trace/trace.parquet", 33) == 0 ||
	    strncmp(m, "thread-metadata.parquet", 23) == 0 ||
	    strncmp(m, "report_nvtx_pushpop_trace.csv", 29) == 0 ||
	    (strncmp(m, "dump/", 5) == 0 &&
	    strstr(m, "after_optimizations.hlo.pb") != NULL);
}

int
main(int argc, char *argv[])
{
	size_t total = 0;
	int i;

	err_setprog(argv[0]);
	for (i = 1; i < argc; i++) {
		struct archive *a = archive_open(argv[i]);
		size_t k;

		if (a == NULL)
			err_die("%s: %s", argv[i], err_msg());
		for (k = 0; k < archive_count(a); k++) {
			uint8_t *data;
			size_t len;

			if (!wanted(archive_name(a, k)))
				continue;
			if (archive_read_plain(a, archive_name(a, k), &data, &len))
				err_die_last();
			total += len;
			free(data);
		}
		archive_close(a);
	}
	printf("%zu bytes\n", total);
	return 0;
}
