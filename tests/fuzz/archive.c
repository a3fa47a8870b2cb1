/*
 * Fuzz target: zip archives as nsysjax-extract reads them: the member
 * list (archive_open), every member read whole and, when it is .xz data,
 * decompressed (archive_read_plain), then the whole extraction of the
 * archive as an nsys-jax profile (extract_load) and its frames written.
 */
#include <stdint.h>
#include <stdlib.h>

#include "formats/archive.h"
#include "profile/extract.h"
#include "fuzz.h"
#include "base/tsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
extract(const char *path)
{
	struct extract_opts o = { .allow_missing_hlo = 1,
	    .frames = (1u << EXTRACT_NFRAMES) - 1 };
	struct tsv_writer *w;
	struct extract *x = extract_new();
	unsigned bit;

	if (extract_load(x, &path, 1, &o) == 0)
		for (bit = 1; bit < 1u << EXTRACT_NFRAMES; bit <<= 1) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)extract_write(x, bit, w);
			(void)tsv_wclose(w);
		}
	extract_free(x);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const char *path = fuzz_file(0, data, n);
	struct archive *a;
	uint8_t *p;
	size_t i, len;

	if ((a = archive_open(path)) == NULL)
		return 0;
	(void)archive_path(a);
	for (i = 0; i < archive_count(a); i++) {
		if (!archive_has(a, archive_name(a, i)))
			abort();
		if (archive_read_plain(a, archive_name(a, i), &p, &len) == 0)
			free(p);
	}
	(void)archive_read(a, "no such member", &p, &len);
	archive_close(a);
	extract(path);
	return 0;
}
