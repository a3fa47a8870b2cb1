/*
 * Fuzz target: the TSV stream reader (tsv.h): header, escapes, ragged
 * rows, numbers and times of every field, written back through the
 * writer's escaping and raw pass-through paths.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fields(struct tsv_reader *r, struct tsv_writer *w)
{
	const char *s;
	size_t i, len;
	int64_t v;
	double d;

	for (i = 0; i < tsv_ncols(r); i++) {
		s = tsv_rawfield(r, i, &len);
		tsv_raw(w, s, len);
		s = tsv_field(r, i);
		tsv_strn(w, s, strlen(s));
		if (tsv_get_i64(r, i, &v, i & 1) == 0)
			tsv_i64(w, v);
		if (tsv_get_f64(r, i, &d, i & 1) == 0)
			tsv_f64(w, d);
		if (tsv_get_ms(r, i, &v, i & 1) == 0)
			tsv_ms(w, v);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct tsv_reader *r;
	struct tsv_writer *w;
	const char *line;
	size_t len;
	FILE *fp;

	if (n == 0 || (fp = fmemopen((void *)data, n, "r")) == NULL)
		return 0;
	if ((r = tsv_ropen(fp, "fuzz")) != NULL) {
		w = tsv_wopen(fuzz_null(), "null");
		(void)tsv_col(r, "ProgramId");
		(void)tsv_require(r, tsv_colname(r, tsv_ncols(r) - 1));
		while (tsv_next(r) == 1) {
			line = tsv_rawline(r, &len);
			if (strlen(line) > len || tsv_lineno(r) < 2)
				abort();
			fields(r, w);
			(void)tsv_eor(w);
		}
		(void)tsv_wclose(w);
		tsv_rclose(r);
	}
	fclose(fp);
	return 0;
}
