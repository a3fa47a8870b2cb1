/*
 * archive: uniform read access to the members of an nsys-jax output,
 * whether it is a .zip (read in place with libzip, nothing extracted to
 * disk) or the directory it was extracted to.  Member names are relative
 * paths with '/' separators, as stored in the zip, so the same input gives
 * the same names either way; except that what macOS adds (__MACOSX/ at
 * the top, .DS_Store files) is no member, and a top folder that holds
 * every member (a zip made of a folder) is taken off the names, unless
 * it is "dump" or "nvtx_gpu_proj_trace" (a profile's own folders).
 */
#ifndef NSYSJAX_ARCHIVE_H
#define NSYSJAX_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

struct archive;

/*
 * Open PATH: a regular file must be a zip archive; a directory is walked
 * recursively, following symbolic links (a dangling one is a member that
 * cannot be read; a link to a directory above it is skipped), at most 16
 * directories deep.  The zip is read as unzip reads it: its central
 * directory, whatever its local headers say of fields unzip ignores.
 * Returns NULL with an err message such as "not a zip archive",
 * "truncated zip archive (...)" (a file that begins as a zip and has no
 * end of central directory), "truncated or damaged zip archive", "cannot open:
 * <strerror>" (the path is not included; callers prefix), "DIR:
 * directories nested more than 16 deep", or "two members named NAME:
 * ..." (a zip whose central directory lists one name twice: unzip reads
 * the last, so which is the profile's is ambiguous).
 */
struct archive *archive_open(const char *path);

/*
 * Call once in main, before any thread starts and before archive_open:
 * libzip converts every zip entry's DOS time with mktime(3) as it reads
 * the directory, and glibc, with TZ unset, checks /etc/localtime (a
 * stat, and a read when it changed) on each call: 1,400 stat calls for
 * one nsys-jax archive, 6,000 for the shared 4-process run, 2 % of the
 * extraction's CPU.  With TZ unset this sets it to ":/etc/localtime",
 * the same zone, which glibc then reads once (tzset(3): a TZ equal to
 * the last one is not looked at again).  A TZ already set is left as it
 * is.  setenv(3) is not thread-safe: hence before any thread.
 */
void archive_quiet_tz(void);

/* Release everything; a NULL argument is allowed. */
void archive_close(struct archive *a);

/* The path given to archive_open. */
const char *archive_path(const struct archive *a);

/* Number of regular-file members, and the I-th name in strcmp order. */
size_t archive_count(const struct archive *a);
const char *archive_name(const struct archive *a, size_t i);

/* Whether NAME is a regular-file member. */
int archive_has(const struct archive *a, const char *name);

/*
 * Read member NAME whole into a new buffer *DATA of *LEN bytes (with a NUL
 * after the last byte, not counted).  Caller frees *DATA.  Returns 0, or -1
 * with an err message "NAME: missing member", "NAME: <read error>" or (for
 * zips) "NAME: truncated or corrupt member".
 */
int archive_read(struct archive *a, const char *name, uint8_t **data,
    size_t *len);

/*
 * As archive_read, then, when the member is .xz data (by its magic bytes:
 * a combined archive names it "X.xz/<profile>"), decompress it (xz.h).
 * Errors are prefixed with NAME.
 */
int archive_read_plain(struct archive *a, const char *name, uint8_t **data,
    size_t *len);

/*
 * What the directory says of member NAME without reading it: its size
 * as stored in bytes (*SIZE) and, for a zip, the CRC-32 of its bytes
 * from the central directory (*CRC).  Two members whose sizes or CRCs
 * differ differ; equal ones may still differ (compare the bytes).
 * Returns 1 with *CRC set (a zip member), 0 with *CRC = 0 (a file of a
 * directory: the size from stat(2), no CRC), or -1 with an err message
 * "NAME: missing member" or "NAME: cannot stat member[: reason]".
 */
int archive_stat(struct archive *a, const char *name, uint64_t *size,
    uint32_t *crc);

/*
 * The identity of member NAME's bytes: their size (*SIZE, bytes) and
 * CRC-32 (*CRC, zlib's crc32, the zip format's), whatever holds them:
 * for a zip the central directory's values (libzip checks them when the
 * member is read), computed over the bytes when it has none; for a
 * directory computed over the file (one read, about 3 GB/s).  So a
 * member in a zip and the same file in a directory agree.  Returns 0, or
 * -1 with an err message "NAME: missing member", "NAME: ...: cannot
 * open: <reason>", "NAME: ...: read error" or "NAME: truncated or
 * corrupt member".  archive_file_digest does the same for the file
 * PATH (its messages name PATH).
 */
int archive_digest(struct archive *a, const char *name, uint64_t *size,
    uint32_t *crc);
int archive_file_digest(const char *path, uint64_t *size, uint32_t *crc);

#endif
