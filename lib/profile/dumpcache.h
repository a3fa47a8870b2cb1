/*
 * dumpcache: decoded XLA HLO dumps (after optimizations), kept across the
 * profiles of a run.  In an SPMD run every process dumps the same
 * modules, byte for byte: a dump is known by the bytes of its member as
 * stored (the .xz file, compared whole), and one decoded for an earlier
 * profile is not decompressed nor decoded again.
 *
 * Two kinds of entries:
 *  - kept for the next profile only: dumpcache_release, after each
 *    profile, frees those the profile did not use, so the cache holds at
 *    most one profile's dumps besides the current one's;
 *  - planned (dumpcache_plan): the dumps that several profiles of the
 *    run hold, by the sizes and CRC-32s of the inputs' directories, up
 *    to DUMPCACHE_PLAN_BYTES of stored bytes; once decoded they stay to
 *    the end.  dumpcache_preload decodes them at once, in a thread per
 *    core, before parts.h forks its workers, which then inherit them
 *    (copy on write) instead of each decoding them again, and before
 *    extract.h's one process starts (whose read-ahead thread would
 *    otherwise decode them for the next profile meanwhile).
 * Memory is thus bounded by one profile's dumps twice plus the planned
 * ones, whatever the number of processes.  Not thread-safe: one cache
 * per process (dumpcache_preload's own threads apart).
 */
#ifndef NSYSJAX_DUMPCACHE_H
#define NSYSJAX_DUMPCACHE_H

#include <stddef.h>
#include <stdint.h>

struct hlo_module;
struct heap;

/* The most stored (.xz) bytes of the planned dumps.  Decoded, a dump
 * takes about 34 times its stored size (the shared run's five planned
 * dumps: 0.62 MB stored, 21 MB decoded), so 4 MiB bounds the planned
 * dumps near 140 MB; every worker would otherwise hold its own copy of
 * those its profile uses. */
#define DUMPCACHE_PLAN_BYTES ((uint64_t)4 << 20)

/* One decoded dump. */
struct dumpcache_dump {
	uint8_t *raw;		/* the member's bytes as stored */
	size_t rawlen;
	uint64_t rawdigest;	/* mem_digest of RAW */
	struct hlo_module *m;
	uint64_t digest;	/* mem_digest of the decompressed dump */
	struct heap *heap;	/* its buffer assignment's traces, or NULL */
	int used;		/* by the profile being extracted */
	int planned;		/* kept to the end (dumpcache_plan) */
};

struct dumpcache;

/* A new, empty cache; free it with dumpcache_free (NULL allowed). */
struct dumpcache *dumpcache_new(void);
void dumpcache_free(struct dumpcache *c);

/* The number of dumps in C, and the I-th (0 <= I < count). */
size_t dumpcache_count(const struct dumpcache *c);
const struct dumpcache_dump *dumpcache_at(const struct dumpcache *c, size_t i);

/* The dump of C whose member bytes are RAW[0..LEN) (mem_digest DIGEST),
 * or NULL. */
struct dumpcache_dump *dumpcache_find(const struct dumpcache *c,
    const uint8_t *raw, size_t len, uint64_t digest);

/*
 * Decode the member whose bytes are RAW[0..RAWLEN) (mem_digest RAWDIGEST)
 * into a new dump of C, and return it: its HLO module (hlo.h) and, with
 * HEAP set, its buffer assignment's traces (heap.h).  DATA[0..LEN) are
 * its decompressed bytes when a reader already decompressed them
 * (prefetch.h), else NULL: .xz data (by its magic) is decompressed here.
 * Takes RAW (kept in the dump) and DATA.  A dump of the plan is marked
 * planned.  NULL on a bad dump, with the err message of xz.h, hlo.h or
 * heap.h (the caller names the member); nothing is added then.
 */
struct dumpcache_dump *dumpcache_add(struct dumpcache *c, uint8_t *raw,
    size_t rawlen, uint64_t rawdigest, uint8_t *data, size_t len, int heap);

/* After a profile: free the dumps it did not use (dumpcache_dump.used
 * unset) but the planned ones, and clear USED of the rest. */
void dumpcache_release(struct dumpcache *c);

/*
 * Plan C over the inputs PATHS[0..N) of a run (nsys-jax archives or
 * SQLite exports; DUMPDIR as input.h takes it): the after-optimizations
 * dumps that two profiles or more hold, known by size and CRC-32 as the
 * zip directories give them (the size alone in a directory of files),
 * chosen by the bytes they would save ((profiles - 1) x size, largest
 * first, then in input order) up to DUMPCACHE_PLAN_BYTES.  Reads
 * directories only, no member.  An input that does not open, or a member
 * that cannot be listed, is left out of the plan without an error: the
 * extraction reports it when it reaches it.  Replaces an earlier plan.
 */
void dumpcache_plan(struct dumpcache *c, const char *const *paths, size_t n,
    const char *dumpdir);

/*
 * After dumpcache_plan over PATHS[0..N): the stored (.xz) bytes of the
 * after-optimizations dumps of PATHS[INPUT]'s profiles that the plan
 * leaves out, which its extraction decodes for itself: an estimate of
 * what that input costs more than the others (parts.h starts the
 * dearest first).  0 for an input that did not open, or out of range.
 */
uint64_t dumpcache_own_bytes(const struct dumpcache *c, size_t input);

/*
 * Decode the dumps of C's plan not in C yet, in up to THREADS threads
 * (0: one per processor online, and on a single processor none: the
 * dumps are then kept as the extraction meets them, which costs no
 * time there), each read from the first input that holds it, and add them to C
 * (planned, with their traces when HEAP is set).  A dump that cannot be
 * read or decoded is left out without an error (as above); two members
 * whose size and CRC agree but whose bytes differ are one decoded, the
 * other read by the extraction.  Returns the number of dumps added.
 */
size_t dumpcache_preload(struct dumpcache *c, unsigned threads, int heap);

#endif
