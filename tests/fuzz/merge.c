/*
 * Fuzz target: merging the parts of separate extractions (merge.h).  The
 * input is one byte choosing the frame, then up to four files separated
 * by a line "\036" (RS): part 0's and part 1's frame, then part 0's and
 * part 1's stackframes.tsv (for the hlo frame).  Both parts are merged
 * to nowhere, and checked for shared devices (merge_shared_begin reads
 * the first of the module, communication and thunk frames).  For the
 * thunk frame, the parts are merged again as parts that share devices:
 * each part's frame is its module.tsv too.  The whole input is also
 * read as a part's rowkeys (extract_seen_load, as parts.c's workers
 * hand them over): what is read saves back to the same rows.  Part 0's
 * and part 1's frames are then their profiles.tsv too (merge_distinct:
 * the identities of the profiles), which must be refused when both
 * are the same text with a row.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/err.h"
#include "base/tsv.h"
#include "profile/extract.h"
#include "profile/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char dirs[2][64];

/* Remove the files of the last input (a module.tsv from one input must
 * not feed merge_shared_begin in the next). */
static void
clear(void)
{
	char path[256];
	size_t i, k;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/profiles.tsv", dirs[i]);
		unlink(path);
		for (k = 0; extract_frame_names[k]; k++) {
			snprintf(path, sizeof(path), "%s/%s.tsv", dirs[i],
			    extract_frame_names[k]);
			unlink(path);
		}
	}
}

static void
cleanup(void)
{
	clear();
	rmdir(dirs[0]);
	rmdir(dirs[1]);
}

static void
mkdirs(void)
{
	const char *t = getenv("TMPDIR");
	size_t i;

	if (dirs[0][0])
		return;
	for (i = 0; i < 2; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%.40s/nsysjax-fuzz.XXXXXX",
		    t && *t ? t : "/tmp");
		if (mkdtemp(dirs[i]) == NULL)
			abort();
	}
	atexit(cleanup);
}

static void
put(const char *dir, const char *frame, const uint8_t *p, size_t n)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.tsv", dir, frame);
	if ((fp = fopen(path, "wb")) == NULL ||
	    (n > 0 && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0)
		abort();
}

/* DATA[0..N) as the rowkeys of part 1: the rows read save back (part
 * 1's) to records that read again to as many rows. */
static void
rowkeys(const uint8_t *data, size_t n)
{
	struct extract_seen s, t;
	FILE *fp = fmemopen((void *)(uintptr_t)data, n, "r");
	char *buf = NULL;
	size_t len = 0, got;

	if (fp == NULL)
		return;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	got = extract_seen_load(&s, 1, fp);
	fclose(fp);
	if ((fp = open_memstream(&buf, &len)) == NULL)
		abort();
	if (extract_seen_save(&s, 1, fp) != 0 || fclose(fp) != 0)
		abort();
	if (got > 0) {
		if ((fp = fmemopen(buf, len, "r")) == NULL)
			abort();
		if (extract_seen_load(&t, 1, fp) != s.rows.n)
			abort();
		fclose(fp);
	}
	if (s.rows.n > got)
		abort();
	free(buf);
	extract_seen_free(&s);
	extract_seen_free(&t);
}

/* The lines of P[0..N) after the first that are not empty (a TSV's
 * rows, the last without LF included). */
static size_t
rows_of(const uint8_t *p, size_t n)
{
	const uint8_t *q = memchr(p, '\n', n), *end = p + n;
	size_t k = 0;

	while (q != NULL && ++q < end) {
		k += *q != '\n';
		q = memchr(q, '\n', (size_t)(end - q));
	}
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const char sep[] = "\n\036\n";
	const uint8_t *p, *end = data + n, *q, *at[4];
	size_t len[4];
	struct merge_shared *sh;
	const char *d[2];
	unsigned bit;
	struct err_notes notes = { NULL, 0, 0 };
	struct tsv_writer *w;
	size_t k, i;

	rowkeys(data, n);
	if (n < 1)
		return 0;
	mkdirs();
	bit = 1u << (data[0] % EXTRACT_NFRAMES);
	for (i = 0; extract_frame_names[i]; i++)
		if (bit == 1u << i)
			break;
	p = data + 1;
	for (k = 0; k < 4; k++) {
		q = p;
		while (q < end && (size_t)(end - q) >= 3 && memcmp(q, sep, 3) != 0)
			q++;
		if ((size_t)(end - q) < 3)
			q = end;
		put(dirs[k % 2], k < 2 ? extract_frame_names[i] : "stackframes",
		    p, (size_t)(q - p));
		at[k] = p;
		len[k] = (size_t)(q - p);
		p = q < end ? q + 3 : end;
	}
	d[0] = dirs[0];
	d[1] = dirs[1];
	w = tsv_wopen(fuzz_null(), "null");
	(void)merge_write(d, 2, bit, w, &notes, NULL);
	(void)tsv_wclose(w);
	(void)merge_frames(d, 2);
	if (merge_shared_begin(d, 2, &sh) == 0)
		merge_shared_free(sh);
	if (bit == EXTRACT_THUNK) {
		for (k = 0; k < 2; k++)
			put(dirs[k], "module", at[k], len[k]);
		if (merge_shared_begin(d, 2, &sh) == 0 && sh != NULL) {
			w = tsv_wopen(fuzz_null(), "null");
			(void)merge_write(d, 2, bit, w, &notes, sh);
			(void)tsv_wclose(w);
		}
		merge_shared_free(sh);
	}
	for (k = 0; k < 2; k++)
		put(dirs[k], "profiles", at[k], len[k]);
	/* The same profile in both parts: refused, if read at all. */
	if (merge_distinct(d, 2) == 0 && len[0] == len[1] &&
	    memcmp(at[0], at[1], len[0]) == 0 && rows_of(at[0], len[0]) > 0)
		abort();
	err_notes_free(&notes);
	clear();
	return 0;
}
