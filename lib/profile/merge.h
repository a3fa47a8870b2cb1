/*
 * merge: join the frames of separate extractions of one run's processes
 * (directories of NAME.tsv written by nsysjax-extract -o, or by parts.h's
 * workers), given in the run's process order, into the frames that one
 * extraction of every process writes, byte for byte.
 *
 * Per frame (extract.h's names):
 *  - thunk, communication, module: each part is sorted by the frame's
 *    index (frames.h frames_finish); a k-way merge on that key, ties to
 *    the earlier part, as the row order breaks ties in one extraction.
 *    OrigDurMs/OrigStartMs are left empty everywhere when some part has
 *    them empty (one extraction fills them only when every profile had
 *    them).
 *  - compile, nvtx: each part's rows in part order (per-profile blocks).
 *  - stackframes: the parts' trees re-interned in part order, so that ids
 *    are numbered in order of first appearance as one extraction does.
 *  - hlo: rows keyed by (ProgramId, Name); a part's row whose stacks (in
 *    merged ids) and OpNames match none already kept is a new variant,
 *    as extract.c's hlo_variant decides; sorted as extract_write does.
 *  - heap: per ProgramId the first part's traces; a later part whose
 *    traces differ is a warning, as in one extraction.
 * What makes one extraction differ from merged parts is a Device found in
 * two parts (copies of one run, two runs given together): ThunkExecution
 * is numbered per (ProgramId, Device) over all profiles (hidden time is
 * each profile's own, frames.h).  merge_shared_begin finds such devices
 * and merge_write renumbers their rows, so that the parts merge into one
 * extraction's bytes all the same (merge_shared.c), or says why they
 * cannot.
 *
 * Memory: the sorted frames stream (one row per part held); hlo and
 * stackframes hold the distinct rows and frames (as many as the distinct
 * programs have, not growing with identical processes); the heap frame
 * streams.  At most MERGE_FANIN parts are open at once, fewer when the
 * limit of open files (RLIMIT_NOFILE, raised up to its hard limit as the
 * merge needs) leaves less than MERGE_SPARE_FILES beside them: beyond,
 * the first parts are merged into unlinked temporary files ($TMPDIR),
 * just enough of them that the rest fit (on 256 parts and a fan-in of
 * 128, 130 parts are written twice, not all 256).
 */
#ifndef NSYSJAX_MERGE_H
#define NSYSJAX_MERGE_H

#include <stddef.h>

#include "base/err.h"

struct tsv_writer;

/* The most part files a merge reads at once (about 10 kB of memory
 * each), and the open files it leaves for everything else. */
#define MERGE_FANIN 1024
#define MERGE_SPARE_FILES 32

/*
 * The EXTRACT_* bits of the frames found in every one of DIRS[0..N) (N >=
 * 1): those of DIRS[0] (any NAME.tsv of extract_frame_names), each
 * required in the others.  Returns the bits (0 when DIRS[0] has none: an
 * error), with an err message "DIR: no NAME.tsv (DIR0 has one)" or "DIR:
 * no frame (NAME.tsv) in it" on failure.
 */
unsigned merge_frames(const char *const *dirs, size_t n);

/*
 * Whether the parts DIRS[0..N) are distinct directories (by device and
 * inode: one part named twice, whose rows would count twice) holding
 * distinct profiles: the identities in each part's profiles.tsv
 * (input.h input_ident: the bytes of the file that holds a profile, as
 * one extraction compares its inputs) meet in no two parts.  A part
 * without profiles.tsv (frames made otherwise) is taken as it is.
 * Returns 0, or -1 with an err message "DIR1 and DIR2 are the same
 * directory: give each part once" (DIR1 before DIR2 in DIRS), "IN1 (in
 * DIR1) and IN2 (in DIR2) hold the same profile (the same bytes): give
 * each process's profile once", "DIR: reason" when one cannot be looked
 * up, or a profiles.tsv that cannot be read (tsv.h's messages, "column
 * Hash: not 16 hex digits").  O(n log n) in the parts, O(1) expected
 * per profile.
 */
int merge_distinct(const char *const *dirs, size_t n);

/*
 * What merging the parts DIRS[0..N) needs when they share a Device (read
 * from their module.tsv, or communication.tsv, thunk.tsv: the first
 * present; a part with none has no device): merge_write renumbers
 * ThunkExecution of the
 * thunk and communication frames as one extraction does (frames.c
 * number_thunks: trace order, profile after profile).  First one pass
 * over the parts' thunk.tsv (a thread per core taking a part at a time)
 * checks that each (ProgramId, Name) on a shared device is communication
 * in every part or in none: the communication frame alone numbers its
 * rows as the thunk frame does only then.  Memory: the distinct
 * (ProgramId, Name) of those thunks, not their rows.
 * *SH: NULL when no Device is shared (merge as ever), else what
 * merge_write and merge_write_dir take; free with merge_shared_free.
 * Returns 0; 1 when the parts share a device but cannot be merged so,
 * with an err message "device D is in both DIR1 and DIR2: WHY" (the
 * first shared device met in part order; WHY: "DIR has no thunk.tsv,
 * which the merge reads", "N parts, more than one merge opens at once
 * (F)", "thunk NAME of ProgramId P is communication in one part and not
 * in another"): extract them in one process, or refuse them; -1 with an
 * err message naming the file (unreadable, malformed, a column missing).
 */
struct merge_shared;
int merge_shared_begin(const char *const *dirs, size_t n,
    struct merge_shared **sh);
void merge_shared_free(struct merge_shared *sh);

/*
 * Write frame BIT (one EXTRACT_* value) merged from DIRS[0..N) to W,
 * header first; SH from merge_shared_begin over the same DIRS, or NULL.
 * Warnings (heap traces that differ) are appended to NOTES.  Returns 0,
 * or -1 with an err message naming the file: missing or unreadable, a
 * header other than the first part's, a malformed row (tsv.h's
 * messages), a part not sorted as the frame is, a StackFrameIds id not
 * in the part's stackframes.tsv, or a write error.
 */
int merge_write(const char *const *dirs, size_t n, unsigned bit,
    struct tsv_writer *w, struct err_notes *notes,
    const struct merge_shared *sh);

/*
 * merge_write for each frame in BITS into OUTDIR/NAME.tsv (OUTDIR
 * existing), all written or none (outfile.h), after OUTDIR/profiles.tsv:
 * the parts' rows in part order, the table one extraction of their
 * inputs writes (refused as merge_distinct refuses them), and, when a
 * part has one, OUTDIR/cmdbufs.tsv (extract.h EXTRACT_CMDBUF_TABLE: a
 * buffer's rows from the first part that lists it).  The frames are merged at
 * once, a thread per processor online (hlo and stackframes in one), when
 * their parts all fit in the open files at once (else one after the
 * other): on the shared 4-process run 0.75 x the wall, on 64 synthetic
 * parts 0.76 x.  Notes in frame order; the error reported is the first
 * frame's that failed.  Returns as merge_write.
 */
int merge_write_dir(const char *const *dirs, size_t n, unsigned bits,
    const char *outdir, struct err_notes *notes,
    const struct merge_shared *sh);

#endif
