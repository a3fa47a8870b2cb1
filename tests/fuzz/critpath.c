/*
 * Fuzz target: nsysjax-critpath's reading and analysis (every mode, with
 * scenarios, corrections and the picture) on what it reads.  The input
 * is up to four TSV texts separated by form feeds: the thunk frame, the
 * module frame, the hlo frame and a corrections table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "analysis/critpath.h"
#include "analysis/filter.h"
#include "base/err.h"
#include "base/tsv.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char *files[FUZZ_NTMP];

static void
one(enum critpath_mode mode, const struct align_table *t)
{
	struct err_notes notes = { 0 };
	struct critpath_run *r = critpath_run_new(mode);
	struct tsv_writer *w;
	struct filter *in;

	critpath_add_comm_scale(r, 2, "2");
	(void)critpath_add_scale(r, "fusion|all-=0.5");
	if (t)
		critpath_set_corrections(r, t);
	(void)filter_load(files[1], critpath_load_module, r);
	(void)filter_load(files[2], critpath_load_hlo, r);
	if ((in = filter_open(files, 1)) != NULL) {
		w = tsv_wopen(fuzz_null(), "null");
		(void)critpath_run_frames(r, in, w, fuzz_null(), &notes);
		(void)tsv_wclose(w);
		filter_close(in);
	}
	err_notes_free(&notes);
	critpath_run_free(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct align_table t = { 0 };
	FILE *fp;
	int m, hast;

	fuzz_files(data, n, files);
	if ((fp = fopen(files[3], "r")) == NULL)
		abort();
	hast = align_table_read(fp, "corr", &t) == 0;
	fclose(fp);
	for (m = CRITPATH_MODE_PATH; m <= CRITPATH_MODE_SVG; m++)
		one((enum critpath_mode)m, hast ? &t : NULL);
	align_table_free(&t);
	return 0;
}
