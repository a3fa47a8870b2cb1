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

/*
 * Start reading MEMBERS[0..N) of the archive at PATH with
 * archive_read_plain (archive.h).  Takes ownership of MEMBERS and its
 * strings.  Returns NULL if no thread could be started (the caller then
 * reads everything itself).
 */
struct prefetch *prefetch_start(const char *path, char **members, size_t n);

/*
 * Wait for the thread, then hand over member NAME: returns 1 and moves
 * the buffer to *DATA, *LEN (the caller frees it), or 0 when NAME was not
 * prefetched or could not be read.
 */
int prefetch_take(struct prefetch *pf, const char *name, uint8_t **data,
    size_t *len);

/* Wait for the thread and free everything not taken.  NULL is allowed. */
void prefetch_free(struct prefetch *pf);

#endif
