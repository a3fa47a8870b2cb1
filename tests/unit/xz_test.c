#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "formats/xz.h"
#include "unit.h"

/* DATA[0..N) as one .xz stream into OUT at *POS (CRC64, preset 0). */
static void
encode(const uint8_t *data, size_t n, uint8_t *out, size_t *pos, size_t cap)
{
	lzma_ret r = lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, data,
	    n, out, pos, cap);

	CHECK_INT(r, LZMA_OK);
}

/* Decoding IN[0..LEN) gives WANT[0..WN), NUL-terminated. */
static void
check_decode(const uint8_t *in, size_t len, const uint8_t *want, size_t wn)
{
	uint8_t *out = NULL;
	size_t n = 0;

	CHECK_INT(xz_decode(in, len, &out, &n), 0);
	CHECK_INT(n, wn);
	CHECK(out != NULL && memcmp(out, want, wn) == 0 && out[wn] == '\0');
	free(out);
}

int
main(void)
{
	size_t big = 3000000, small = 10, cap = 4000000, p1 = 0, p2, i;
	uint8_t *data = mem_alloc(big), *xz = mem_alloc(cap), *out;
	uint32_t x = 1;

	/* Text-like bytes: repeats for the LZ coder, noise between. */
	for (i = 0; i < big; i++) {
		x = x * 1103515245 + 12345;
		data[i] = (uint8_t)(i % 97 < 60 ? 'a' + i % 26 : x >> 24);
	}
	/* One stream: its size from the index, the data back whole. */
	encode(data, big, xz, &p1, cap);
	CHECK_INT(xz_last_size(xz, p1), big);
	check_decode(xz, p1, data, big);
	/* Two streams, a second small one: the index gives the last
	 * stream's size alone, and the buffer grows for the rest. */
	p2 = p1;
	encode(data, small, xz, &p2, cap);
	CHECK_INT(xz_last_size(xz, p2), small);
	{
		uint8_t *want = mem_alloc(big + small);

		memcpy(want, data, big);
		memcpy(want + big, data, small);
		check_decode(xz, p2, want, big + small);
		free(want);
	}
	/* Stream padding (zeros in fours) is skipped; three zeros are no
	 * padding, and the decoder says so. */
	memset(xz + p1, 0, 8);
	CHECK_INT(xz_last_size(xz, p1 + 8), big);
	check_decode(xz, p1 + 8, data, big);
	CHECK_INT(xz_last_size(xz, p1 + 3), 0);
	CHECK(xz_decode(xz, p1 + 3, &out, &i) != 0);
	/* An empty stream: size 0 read or not, an empty buffer back. */
	p2 = 0;
	encode(data, 0, xz, &p2, cap);
	CHECK_INT(xz_last_size(xz, p2), 0);
	check_decode(xz, p2, data, 0);
	/* A footer or index that does not decode gives no size; a cut
	 * stream is an error either way. */
	p1 = 0;
	encode(data, big, xz, &p1, cap);
	xz[p1 - 20] ^= 0x55;
	CHECK_INT(xz_last_size(xz, p1), 0);
	CHECK(xz_decode(xz, p1, &out, &i) != 0);
	CHECK_INT(xz_last_size(xz, 11), 0);
	CHECK_INT(xz_last_size(xz, p1 / 2), 0);
	CHECK(xz_decode(xz, p1 / 2, &out, &i) != 0);
	free(data);
	free(xz);
	return unit_done("xz");
}
