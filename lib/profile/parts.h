/*
 * parts: nsysjax-extract over the many processes of a large run with
 * memory bounded by the largest process, not by their number.  Each
 * profile is extracted alone (extract_opts.only) into a directory of
 * frames of its own under $TMPDIR (or /tmp), by one of JOBS worker
 * processes: a worker takes the next profile not taken yet whenever it
 * is free, the dearest first (those with HLO dumps of their own to
 * decode: a dear profile met last would hold the run up), extracts
 * them one after the other, and with fewer workers than cores reads the
 * next one's members
 * in a thread while it extracts one (extract_ahead_start), as one
 * extraction in one process does;
 * merge.h joins the directories into the frames of one extraction.
 * A part leaves out the hlo rows that a lower part holds (extract.h,
 * struct extract_seen), whether its own worker extracted that part or
 * another worker finished it before (its DIR/rowkeys).
 * Workers are forked processes, not threads: a profile's extraction keeps
 * its state in one struct extract, and a worker that fails or crashes
 * cannot take the others' memory with it.  (A process per profile cost
 * a third more CPU than -j 0 on the shared run, mostly the page faults
 * of a fresh heap, and read nothing ahead: -j 1 took twice -j 0's time.)
 *
 * A worker's peak memory is what one profile needs (about 50 MB for one
 * of the shared archives), and with fewer workers than cores the next
 * one's members (about 30 MB more); the parent holds the profile list
 * and the HLO dumps that several profiles share (dumpcache.h), which it
 * decodes before forking the workers, who share them with it.
 * From parts_extract to parts_remove, SIGINT, SIGTERM and SIGHUP stop
 * the workers and remove the parts before the program ends by them.
 */
#ifndef NSYSJAX_PARTS_H
#define NSYSJAX_PARTS_H

#include <stddef.h>

#include "base/err.h"
#include "profile/extract.h"

struct parts {
	char *tmp;		/* the temporary directory */
	char **dirs;		/* dirs[k]: profile k's frames (part-K) */
	size_t n;
	unsigned frames;	/* the EXTRACT_* bits in every part */
};

/*
 * Extract each profile PR[0..NP) of PATHS (extract_profiles' list, O the
 * options it narrowed) into its own directory of P, JOBS (>= 1) workers
 * at once.
 * The parts hold O->frames plus what merging them needs: module (for the
 * device check) with thunk or communication, stackframes with hlo.
 * Workers' notes are appended to NOTES in profile order.  Returns 0, or
 * -1 with an err message: extract_load's for the first profile (in
 * order) that failed, "profile NAME: worker killed by signal S", or a
 * temporary directory that cannot be made.  On failure nothing is left
 * in $TMPDIR; on success parts_remove removes it.
 */
int parts_extract(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, unsigned jobs,
    struct parts *p, struct err_notes *notes);

/*
 * Whether two of the profiles of PATHS[0..N) (nsys-jax archives; DUMPDIR
 * as input.h takes it) have a launcher thread of the same device
 * (XlaLauncher:#global=G,...# in thread-metadata.parquet): copies of one
 * run, or two runs given together.  Their merge checks each part's thunk
 * frame (merge.h merge_shared_begin), so the caller adds it to the parts
 * of the communication frame alone.  Reads each input's
 * thread-metadata.parquet alone;
 * profiles without one (archives before July 2024 number their devices
 * by profile, launchers.h; SQLite exports) are not looked at.  Returns
 * 1 when a device is shared, 0 when none is or when an input cannot be
 * read (the extraction then reports it; its message is dropped here).
 */
int parts_devices_shared(const char *const *paths, size_t n,
    const char *dumpdir);

/* Remove P's directories and files, and release P. */
void parts_remove(struct parts *p);

#endif
