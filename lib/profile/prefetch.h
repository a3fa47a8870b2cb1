/*
 * prefetch: read and decompress archive members in a background thread,
 * so that decoding the next profile's members (mostly xz) overlaps the
 * analysis of the current one on a second core.
 *
 * The thread opens its own handle on the archive (libzip handles are not
 * shared between threads) and records no errors: a member it could not
 * read is simply absent, and the caller reads it again itself, which
 * reports the error with full context.
 */
#ifndef NSYSJAX_PREFETCH_H
#define NSYSJAX_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

struct prefetch;

/* A dump the caller has decoded already: the length and mem_digest
 * (mem.h) of its bytes as stored. */
struct prefetch_known {
	size_t len;
	uint64_t digest;
};

/*
 * Start reading MEMBERS[0..N) of the archive at PATH: the first NPLAIN
 * with archive_read_plain (archive.h), the rest as HLO dumps: their bytes
 * as stored (archive_read), and decompressed too when they are .xz data
 * whose length and digest are none of KNOWN[0..NKNOWN) (copied): a dump
 * that an earlier profile had, byte for byte, is not decompressed for
 * nothing (dumpcache.h).  Takes ownership of MEMBERS and
 * its strings.  Returns NULL if no thread could be started (the caller
 * then reads everything itself).
 */
struct prefetch *prefetch_start(const char *path, char **members, size_t n,
    size_t nplain, const struct prefetch_known *known, size_t nknown);

/*
 * Wait for the thread, then hand over member NAME: returns 1 and moves
 * the buffer to *DATA, *LEN (the caller frees it), or 0 when NAME was not
 * prefetched or could not be read.
 */
int prefetch_take(struct prefetch *pf, const char *name, uint8_t **data,
    size_t *len);

/*
 * As prefetch_take, for dump NAME: returns 1 and moves its bytes as
 * stored to *RAW, *RAWLEN and its decompressed bytes to *DATA, *LEN, or
 * NULL to *DATA when they were not decompressed (known, not .xz, or
 * corrupt: the caller decodes *RAW itself, which reports the error).
 * Returns 0 when NAME was not prefetched or could not be read.  The
 * caller frees both.
 */
int prefetch_take_dump(struct prefetch *pf, const char *name, uint8_t **raw,
    size_t *rawlen, uint8_t **data, size_t *len);

/* Wait for the thread and free everything not taken.  NULL is allowed. */
void prefetch_free(struct prefetch *pf);

#endif
