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

/* The most sources one merge opens at once (merge.h; merge_fanin.c). */
size_t merge_fanin(void);

/* What merge_shared_begin found: the devices merge_group renumbers. */
struct merge_shared {
	size_t n;		/* parts */
	struct u64map shared;	/* the Devices found in two parts or more */
	struct clash {		/* the first of them met, in part order */
		int64_t device;
		size_t a, b;	/* the part that had it, the next */
	} clash;
};

/* Whether DEVICE is in two parts or more. */
int merge_shared_device(const struct merge_shared *sh, int64_t device);

/*
 * The rows of one (ProgramId, ProgramExecution, Name) of the thunk or
 * communication frame merged from parts that share a device, as the
 * k-way merge gives them (by ThunkExecution, Device, part).  One
 * extraction numbers ThunkExecution per (ProgramId, ProgramExecution,
 * Device, Name) in trace order, profile after profile (frames.c
 * number_thunks); a part numbered its own rows from 0.  So the group is
 * held, a part's rows of a device are numbered after the rows of that
 * device in the parts before it, and the group is written in the
 * frame's order again.  It holds one thunk's rows over devices and
 * parts (128 on 32 copies of the shared run), not a frame.
 *
 * merge_group_row starts a row (its key, ThunkExecution TE, DEVICE and
 * PART), merge_group_text appends N bytes of its text (TABs included),
 * merge_group_te marks where its ThunkExecution goes.  merge_group_in:
 * whether a row of (PROG, EXEC, NAME) belongs to the group held (none
 * held: yes).  merge_group_flush writes the rows held to W, each a row,
 * and empties the group; returns tsv_eor's status.
 */
struct merge_group;
struct tsv_writer;
struct merge_group *merge_group_new(void);
void merge_group_free(struct merge_group *g);
int merge_group_in(const struct merge_group *g, const char *prog,
    int64_t exec, const char *name);
void merge_group_row(struct merge_group *g, const char *prog, int64_t exec,
    const char *name, int64_t te, int64_t device, size_t part);
void merge_group_text(struct merge_group *g, const char *s, size_t n);
void merge_group_te(struct merge_group *g);
int merge_group_flush(struct merge_group *g, struct tsv_writer *w);

/* ---- the parts' cmdbufs side tables (merge_cmdbufs.c) ---- */

/* Whether some part of DIRS[0..N) has a cmdbufs.tsv (a part without
 * one, from an older extraction, adds no row). */
int merge_cmdbufs_any(const char *const *dirs, size_t n);

/* The parts' cmdbufs.tsv as one extraction's (extract.h
 * EXTRACT_CMDBUF_TABLE) to W, ARG a struct merge_cmdbufs: a buffer's
 * rows from the first part that lists it.  0, or -1 with an err message
 * (a table that cannot be read, a missing column, a write error). */
struct merge_cmdbufs {
	const char *const *dirs;
	size_t n;
};
int merge_cmdbufs_write(struct tsv_writer *w, void *arg);

/* ---- the profiles the parts hold (merge_idents.c) ---- */

/* The rows of the parts' profiles.tsv, in part order; WITHIN and INPUT
 * are ids in STR.  MAP: the hash of (bytes, hash, within) -> row. */
struct pident {
	int64_t bytes;
	uint64_t hash;
	size_t within, input, part;
};

struct merge_idents {
	struct pident *v;
	size_t n, cap;
	struct strtab str;
	struct u64map map;
};

/* Every part's profiles.tsv of DIRS[0..N) into P, in part order, none of
 * them in two parts: 0; 1 when a profile is in two parts, -1 when a table
 * cannot be read, with an err message (P then freed).  A part without
 * the table adds nothing.  O(profiles) expected time. */
int merge_idents_load(struct merge_idents *p, const char *const *dirs,
    size_t n);
void merge_idents_free(struct merge_idents *p);
/* outfile_tsv's writer of P (ARG) as one extraction's table
 * (input_write_idents): rows in part order.  0, or -1 (err message). */
int merge_idents_write(struct tsv_writer *w, void *arg);

#endif
