/*
 * trace: read nvtx_gpu_proj_trace and thread-metadata tables of one
 * profile into the normalised rows of proj.h, whatever the nsys
 * version that wrote them (doc/formats.md):
 *
 *	<= 2024.4	Name, Projected Start, Projected Duration, Orig Start,
 *			Orig Duration, PID, TID, NumGPUOps, RangeId, ParentId,
 *			... (Name is "domain:text")
 *	2024.5-2025	Text, Start, End, PID, TID, Range ID, Parent ID, ...
 *			(Text has no domain)
 *	>= 2026.1	as 2024.5 plus Domain (Name = Domain ":" Text)
 *
 * The layout is recognised from the columns; an unknown one is an error
 * that lists the columns found.
 */
#ifndef NSYSJAX_TRACE_H
#define NSYSJAX_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/proj.h"

enum trace_layout {
	TRACE_2024_4,	/* Name, Projected Start, ..., NumGPUOps */
	TRACE_2024_5,	/* Text, Start, End, ... */
	TRACE_2026_1	/* Text, Start, End, ..., Domain */
};

struct trace {
	enum trace_layout layout;
	struct proj_range *r;	/* rows with a RangeId, in file order */
	size_t n;
	int has_gpu_ops;	/* NumGPUOps present (2024.4 layout) */
	int has_orig;		/* Orig Start / Orig Duration present */
	char **strings;		/* owned names, freed by trace_free */
	size_t nstrings;
};

struct threads {
	struct proj_thread *t;	/* in file order */
	size_t n;
	char **strings;
	size_t nstrings;
};

/* Times read are within +-TRACE_MAX_NS (2^60 ns, 36 years). */
#define TRACE_MAX_NS	((int64_t)1 << 60)

/*
 * Read trace.parquet (DATA[0..LEN)) into T.  Times are integer ns; a row
 * whose RangeId is null is skipped (data_loaders.py drops them), a null
 * ParentId means a root.  Returns 0, or -1 with an err message (bad
 * parquet, unknown layout, missing column, TID missing as in unpatched
 * nsys 2024.5.1/2024.6.1, "row N: a time beyond 2^60 ns").
 */
int trace_read_parquet(const uint8_t *data, size_t len, struct trace *t);

/* Read thread-metadata.parquet (columns Name, PID, TID) into T.  Both
 * readers leave T for trace_free or threads_free, also after an error. */
int threads_read_parquet(const uint8_t *data, size_t len, struct threads *t);

void trace_free(struct trace *t);
void threads_free(struct threads *t);

#endif
