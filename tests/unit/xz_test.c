#include <sys/resource.h>
#include <sys/wait.h>

#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
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

/*
 * A stream of "hello" whose index claims CLAIM uncompressed bytes, its
 * CRCs right (liblzma writes the index and footer): the block is the
 * real one, only the index lies.  Into OUT, its length returned.
 */
static size_t
forged(uint64_t claim, uint8_t *out, size_t cap)
{
	uint8_t real[256];
	size_t n = 0, pos, blk;
	uint64_t memlimit = (uint64_t)1 << 26;
	lzma_stream_flags f;
	lzma_index *idx = NULL, *lie = lzma_index_init(NULL);
	lzma_index_iter it;

	encode((const uint8_t *)"hello", 5, real, &n, sizeof(real));
	CHECK_INT(lzma_stream_footer_decode(&f, real + n - 12), LZMA_OK);
	pos = n - 12 - (size_t)f.backward_size;
	blk = pos;
	CHECK_INT(lzma_index_buffer_decode(&idx, &memlimit, NULL, real, &pos,
	    n - 12), LZMA_OK);
	lzma_index_iter_init(&it, idx);
	CHECK_INT(lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK), 0);
	CHECK_INT(lzma_index_append(lie, NULL, it.block.unpadded_size, claim),
	    LZMA_OK);
	memcpy(out, real, blk);
	pos = blk;
	CHECK_INT(lzma_index_buffer_encode(lie, out, &pos, cap), LZMA_OK);
	f.backward_size = lzma_index_size(lie);
	CHECK_INT(lzma_stream_footer_encode(&f, out + pos), LZMA_OK);
	lzma_index_end(idx, NULL);
	lzma_index_end(lie, NULL);
	return pos + 12;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/*
 * A 64-byte stream whose index claims 4 GiB - 1 is corrupt data, named
 * so whatever the memory: under a 1 GiB address-space limit (in a child:
 * ASan reserves terabytes, so not under it) the decoder still says
 * "corrupt xz data", where it once asked malloc for 4 GiB first.
 */
#ifndef UNDER_ASAN
/* The same stream decoded in a child under a 1 GiB address-space limit. */
static void
claim_limited(const uint8_t *xz, size_t n)
{
	uint8_t *out = NULL;
	size_t len;
	int st = -1;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		struct rlimit rl = { (rlim_t)1 << 30, (rlim_t)1 << 30 };

		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(3);
		_exit(xz_decode(xz, n, &out, &len) == -1 &&
		    strstr(err_msg(), "corrupt xz data") != NULL ? 0 : 4);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_INT(st, 0);
}
#endif

static void
test_claim(void)
{
	uint8_t xz[256], *out = NULL;
	size_t n = forged(((uint64_t)1 << 32) - 1, xz, sizeof(xz)), len;

	CHECK(n < 100);
	CHECK_INT(xz_last_size(xz, n), ((uint64_t)1 << 32) - 1);
	CHECK_INT(xz_decode(xz, n, &out, &len), -1);
	CHECK(strstr(err_msg(), "corrupt xz data") != NULL);
#ifndef UNDER_ASAN
	claim_limited(xz, n);
#endif
}

/* Data that compresses beyond the ratio xz_decode believes at once
 * (zeros: about 7,000 to 1) decodes whole, its buffer grown. */
static void
test_ratio(void)
{
	size_t big = 16000000, cap = 1 << 20, n = 0;
	uint8_t *zeros = mem_calloc(big, 1), *xz = mem_alloc(cap);

	encode(zeros, big, xz, &n, cap);
	CHECK(n * 1024 < big);
	CHECK_INT(xz_last_size(xz, n), big);
	check_decode(xz, n, zeros, big);
	free(zeros);
	free(xz);
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
	test_claim();
	test_ratio();
	return unit_done("xz");
}
