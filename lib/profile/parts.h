/*
 * parts: nsysjax-extract over the many processes of a large run with
 * memory bounded by the largest process, not by their number.  Each
 * profile is extracted alone (extract_opts.only) into a directory of
 * frames of its own under $TMPDIR (or /tmp), by one of JOBS worker
 * processes: worker W takes profiles W, W + JOBS, ... one after the
 * other, and with fewer workers than cores reads the next one's members
 * in a thread while it extracts one (extract_ahead_start), as one
 * extraction in one process does;
 * merge.h joins the directories into the frames of one extraction.
 * Workers are forked processes, not threads: a profile's extraction keeps
 * its state in one struct extract, and a worker that fails or crashes
 * cannot take the others' memory with it.  (A process per profile cost
 * a third more CPU than -j 0 on the shared run, mostly the page faults
 * of a fresh heap, and read nothing ahead: -j 1 took twice -j 0's time.)
 *
 * A worker's peak memory is what one profile needs (about 50 MB for one
 * of the shared archives), and with fewer workers than cores the next
 * one's members (about 30 MB more); the parent holds only the profile
 * list.
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

/* Remove P's directories and files, and release P. */
void parts_remove(struct parts *p);

/* The number of processors online, at least 1: the default JOBS. */
unsigned parts_cores(void);

#endif
