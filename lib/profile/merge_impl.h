/*
 * merge's private parts, for merge.c and merge_shared.c alone: the
 * fan-in, and what merge_shared_begin found for the merge of parts that
 * share a device (merge.h).
 */
#ifndef NSYSJAX_MERGE_IMPL_H
#define NSYSJAX_MERGE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/strtab.h"
#include "base/u64map.h"

/* The most sources one merge opens at once (merge.h, merge.c). */
size_t merge_fanin(void);

/*
 * A communication thunk on a shared device whose hidden time is not
 * interval work (not a split command buffer, frames.h): its hidden time
 * summed over the compute thunks of every part, as one extraction sums
 * it (frames.c compute_overlap).
 */
struct merge_fix {
	size_t row;		/* its data row in the part's thunk.tsv, from 0 */
	size_t comm_row;	/* and in the part's communication.tsv */
	size_t program;		/* ProgramId, an id of merge_shared.prog */
	int64_t device;
	int64_t start;		/* ProjStart, ns */
	int64_t dur;		/* ProjDur before hidden time, ns */
	int64_t hidden;		/* over every part's compute thunks, ns */
};

struct merge_shared {
	size_t n;		/* parts */
	struct u64map shared;	/* the Devices found in two parts or more */
	struct strtab prog;	/* the ProgramIds of the fixes */
	struct merge_fix *fix;	/* by part, then row */
	size_t nfix, capfix;
	size_t *first;		/* part k's fixes: fix[first[k]..first[k+1]) */
};

/* Whether DEVICE is in two parts or more. */
int merge_shared_device(const struct merge_shared *sh, int64_t device);

#endif
