#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/xz.h"

static int
xz_error(lzma_ret r)
{
	switch (r) {
	case LZMA_FORMAT_ERROR:
		return err_fail("not xz data");
	case LZMA_BUF_ERROR:
		return err_fail("truncated xz data");
	case LZMA_MEM_ERROR:
		return err_fail("out of memory decompressing xz data");
	case LZMA_OPTIONS_ERROR:
		return err_fail("unsupported xz options");
	default:
		return err_fail("corrupt xz data (liblzma error %d)", (int)r);
	}
}

/* The largest size xz_last_size gives: beyond it the buffer grows. */
#define XZ_MAX_HINT ((uint64_t)1 << 32)

size_t
xz_last_size(const uint8_t *in, size_t inlen)
{
	lzma_stream_flags flags;
	lzma_index *idx = NULL;
	uint64_t memlimit = (uint64_t)1 << 26, size;
	size_t end = inlen, pos;

	/* Stream padding: zero bytes, in fours. */
	while (end >= 4 && end % 4 == 0 && in[end - 1] == 0 &&
	    in[end - 2] == 0 && in[end - 3] == 0 && in[end - 4] == 0)
		end -= 4;
	if (end < 2 * LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_footer_decode(&flags,
	    in + end - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
	    flags.backward_size > end - 2 * LZMA_STREAM_HEADER_SIZE)
		return 0;
	pos = end - LZMA_STREAM_HEADER_SIZE - (size_t)flags.backward_size;
	if (lzma_index_buffer_decode(&idx, &memlimit, NULL, in, &pos,
	    end - LZMA_STREAM_HEADER_SIZE) != LZMA_OK)
		return 0;
	size = lzma_index_uncompressed_size(idx);
	lzma_index_end(idx, NULL);
	return size < XZ_MAX_HINT ? (size_t)size : 0;
}

/*
 * How much of an index's claim is believed before the data backs it: at
 * most XZ_RATIO times the input (and XZ_TRUST_MAX), so that a 64-byte
 * stream whose index says 4 GiB gets a buffer of kilobytes and fails
 * when its blocks do not decode, naming the data, rather than in
 * malloc.  HLO dumps and CSV compress 5 to 30 times; more compressible
 * data grows the buffer as it decodes (doubling), up to the claim.
 */
#define XZ_RATIO	1024
#define XZ_TRUST_MAX	((size_t)1 << 30)

/* The first buffer's size (with the NUL) for IN[0..INLEN) whose last
 * stream claims CLAIM bytes (0: no claim). */
static size_t
first_cap(size_t inlen, size_t claim)
{
	size_t bound = XZ_TRUST_MAX;

	if (inlen < (XZ_TRUST_MAX - 4096) / XZ_RATIO)
		bound = inlen * XZ_RATIO + 4096;
	if (claim == 0)
		return (inlen < bound / 4 ? inlen * 4 : bound) + 4096;
	return (claim < bound ? claim : bound) + 1;
}

int
xz_decode(const uint8_t *in, size_t inlen, uint8_t **out, size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t claim = xz_last_size(in, inlen), cap, len = 0;
	uint8_t *buf;
	lzma_ret r;

	r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
	if (r != LZMA_OK)
		return xz_error(r);
	/* Its last stream's size and the NUL, when the input can hold it:
	 * one allocation of the right size, where doublings and their
	 * copies and page faults were most of the decompression floor.
	 * Else a guess; more data (or concatenated streams) grows it. */
	cap = first_cap(inlen, claim);
	buf = mem_alloc(cap);
	s.next_in = in;
	s.avail_in = inlen;
	for (;;) {
		if (len + 1 >= cap) {
			/* Doubling, or the claim when it is the nearer. */
			size_t want = cap <= SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;

			if (claim > len && claim + 1 < want)
				want = claim + 1;
			buf = mem_realloc(buf, want, 1);
			cap = want;
		}
		s.next_out = buf + len;
		s.avail_out = cap - len - 1;
		r = lzma_code(&s, LZMA_FINISH);
		len = cap - 1 - s.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			lzma_end(&s);
			free(buf);
			return xz_error(r);
		}
	}
	lzma_end(&s);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int
xz_is_xz_data(const uint8_t *data, size_t len)
{
	static const uint8_t magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	return len >= 6 && memcmp(data, magic, 6) == 0;
}
