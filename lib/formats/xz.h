/*
 * xz: whole-buffer decompression of .xz data with liblzma.
 */
#ifndef NSYSJAX_XZ_H
#define NSYSJAX_XZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decompress the complete .xz stream(s) in IN[0..INLEN) into a new buffer
 * *OUT of *OUTLEN bytes (NUL-terminated one byte past the end, so text
 * parsers may treat it as a C string; the NUL is not counted).  The caller
 * frees *OUT.  Returns 0, or -1 with an err message for data that is not
 * xz ("not xz data"), corrupt ("corrupt xz data") or cut short
 * ("truncated xz data").
 */
int xz_decode(const uint8_t *in, size_t inlen, uint8_t **out, size_t *outlen);

/*
 * The uncompressed size of the last .xz stream in IN[0..INLEN), read from
 * its index (the .xz format, section 4: the stream footer gives the
 * index's size, the index the blocks' sizes; trailing stream padding is
 * skipped), or 0 when the footer or index does not decode (liblzma checks
 * their CRC32s) or the size is 2^32 bytes or more.  xz_decode allocates
 * this much at once when the input could hold it (at most 1024 times
 * INLEN and 1 GiB), else that bound first and more as data decodes; the
 * decoder checks the same index against the data, so a wrong size costs
 * at most that bound, never a wrong result.
 */
size_t xz_last_size(const uint8_t *in, size_t inlen);

/* Whether DATA[0..LEN) starts with the .xz magic bytes FD '7zXZ' 00. */
int xz_is_xz_data(const uint8_t *data, size_t len);

#endif
