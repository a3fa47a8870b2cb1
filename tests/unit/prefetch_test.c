/* prefetch: plain members decompressed; dumps as stored, decompressed
 * unless known (by length and digest) or not .xz. */
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "profile/prefetch.h"
#include "unit.h"

static char dir[] = "/tmp/nsysjax-prefetch-test.XXXXXX";

/* Write DATA[0..N) to DIR/NAME. */
static void
put(const char *name, const uint8_t *data, size_t n)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "wb")) == NULL || fwrite(data, 1, n, fp) != n ||
	    fclose(fp) != 0)
		abort();
}

/* S as one .xz stream into OUT (at most CAP bytes); its length. */
static size_t
xz(const char *s, uint8_t *out, size_t cap)
{
	size_t pos = 0;

	if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL,
	    (const uint8_t *)s, strlen(s), out, &pos, cap) != LZMA_OK)
		abort();
	return pos;
}

/* Dump NAME handed over: its stored bytes are WANT[0..WN), and its
 * decompressed ones PLAIN (NULL: not decompressed). */
static void
check_dump(struct prefetch *pf, const char *name, const uint8_t *want,
    size_t wn, const char *plain)
{
	uint8_t *raw = NULL, *data = NULL;
	size_t rawlen = 0, len = 0;

	CHECK_INT(prefetch_take_dump(pf, name, &raw, &rawlen, &data, &len), 1);
	CHECK(raw != NULL && rawlen == wn && memcmp(raw, want, wn) == 0);
	if (plain == NULL)
		CHECK(data == NULL);
	else
		CHECK(data != NULL && len == strlen(plain) &&
		    memcmp(data, plain, len) == 0);
	free(raw);
	free(data);
	/* Handed over once. */
	CHECK_INT(prefetch_take_dump(pf, name, &raw, &rawlen, &data, &len), 0);
}

int
main(void)
{
	static const char *const names[] = { "report.csv", "a.hlo.pb.xz",
	    "b.hlo.pb.xz", "c.hlo.pb", "d.hlo.pb.xz", "e.hlo.pb.xz",
	    "gone.hlo.pb.xz" };
	const size_t nm = sizeof(names) / sizeof(names[0]);
	const char *text = "csv text, decompressed", *a = "dump a",
	    *b = "dump b, decoded by the thread", *c = "a plain dump",
	    *d = "dump d";
	uint8_t xr[256], xa[256], xb[256], xd[256], xe[256], *data;
	size_t nr, na, nb, nd, ne, len, i;
	struct prefetch_known known[2];
	struct prefetch *pf;
	char **members;

	if (mkdtemp(dir) == NULL)
		abort();
	nr = xz(text, xr, sizeof(xr));
	na = xz(a, xa, sizeof(xa));
	nb = xz(b, xb, sizeof(xb));
	/* D: as long as A, other bytes; E: A corrupt. */
	nd = xz(d, xd, sizeof(xd));
	CHECK_INT(nd, na);
	memcpy(xe, xa, na);
	xe[na / 2] ^= 0x55;
	ne = na;
	put(names[0], xr, nr);
	put(names[1], xa, na);
	put(names[2], xb, nb);
	put(names[3], (const uint8_t *)c, strlen(c));
	put(names[4], xd, nd);
	put(names[5], xe, ne);

	/* A is known; D has A's length, not its digest. */
	known[0].len = na;
	known[0].digest = mem_digest(xa, na);
	known[1].len = 3;
	known[1].digest = mem_digest(xb, nb);
	members = mem_calloc(nm, sizeof(*members));
	for (i = 0; i < nm; i++)
		members[i] = mem_strdup(names[i]);
	pf = prefetch_start(dir, members, nm, 1, known, 2);
	CHECK(pf != NULL);
	if (pf != NULL) {
		/* The plain member, decompressed; not a dump. */
		CHECK_INT(prefetch_take_dump(pf, names[0], &data, &len, &data,
		    &len), 0);
		CHECK_INT(prefetch_take(pf, names[0], &data, &len), 1);
		CHECK(len == strlen(text) && memcmp(data, text, len) == 0);
		free(data);
		/* A dump is no plain member. */
		CHECK_INT(prefetch_take(pf, names[2], &data, &len), 0);
		check_dump(pf, names[1], xa, na, NULL);
		check_dump(pf, names[2], xb, nb, b);
		check_dump(pf, names[3], (const uint8_t *)c, strlen(c), NULL);
		check_dump(pf, names[4], xd, nd, d);
		/* Corrupt: as stored, for the caller to report. */
		check_dump(pf, names[5], xe, ne, NULL);
		/* A member that could not be read is not handed over. */
		CHECK_INT(prefetch_take_dump(pf, names[6], &data, &len, &data,
		    &len), 0);
		prefetch_free(pf);
	}
	for (i = 0; i + 1 < nm; i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	return unit_done("prefetch_test");
}
