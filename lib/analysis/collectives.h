/*
 * collectives: the nccl-tests bandwidth metrics of communication thunks
 * and the summaries of the reference's analyses/communication.py.
 */
#ifndef NSYSJAX_COLLECTIVES_H
#define NSYSJAX_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

struct err_notes;
struct tsv_reader;
struct tsv_writer;

/*
 * The bandwidth corrections of collective KIND ("all-gather", ...) over N
 * devices (analysis.py _collective_correction, after nccl-tests
 * doc/PERFORMANCE.md "Bus bandwidth"):
 *	*ALG multiplies MessageSize into the algorithm bandwidth: N for
 *	all-gather and reduce-scatter, whose nccl-tests size is the total
 *	buffer while MessageSize is one device's share; 1 otherwise;
 *	*BUS turns algorithm into bus bandwidth: 2(N-1)/N for all-reduce,
 *	(N-1)/N for all-gather, reduce-scatter and all-to-all, 1 for
 *	collective-broadcast, collective-permute, device-to-host and
 *	host-to-device.
 * Returns 0, or -1 with an err message for an unknown KIND or N < 1.
 */
int coll_factors(const char *kind, int64_t n, double *alg, double *bus);

/*
 * Algorithm and bus bandwidth in GB/s (1e9 B/s, i.e. bytes per ns) of a
 * collective moving BYTES in DUR_NS exposed plus HIDDEN_NS hidden time
 * (analysis.py calculate_collective_metrics: the whole duration counts).
 * Returns 0, 1 when the duration is not positive (no bandwidth), or -1 as
 * coll_factors.
 */
int coll_bandwidth(const char *kind, int64_t n, int64_t bytes, int64_t dur_ns,
    int64_t hidden_ns, double *algbw, double *busbw);

/* ---- summaries (analyses/communication.py) ---- */

struct coll_summary;

struct coll_summary *coll_summary_new(void);
void coll_summary_free(struct coll_summary *s);

/*
 * Add one communication row: the instance it belongs to (ProgramId,
 * ProgramExecution, Name, ThunkExecution, as one key string), its
 * collective and message size (bytes), its bus bandwidth (GB/s, or NaN
 * when it has none), and its exposed and hidden times (ns).
 */
void coll_summary_add(struct coll_summary *s, const char *instance,
    const char *collective, int64_t bytes, double busbw, int64_t dur_ns,
    int64_t hidden_ns);

/* coll_summary_add with the row's CollectiveSize CSIZE (devices the
 * instance should have; 0: unknown): coll_summary_incomplete counts the
 * instances with fewer rows. */
void coll_summary_add_n(struct coll_summary *s, const char *instance,
    const char *collective, int64_t bytes, int64_t csize, double busbw,
    int64_t dur_ns, int64_t hidden_ns);

struct spmd_scan;

/*
 * Merge the instances of ProgramIds joined into one SPMD step (SCAN
 * after spmd_scan_end; spmd.h): an instance key "ProgramId\t..." becomes
 * the same key under the ProgramId of the step's representative, so
 * that the n-th collective of execution k of each joined ProgramId is
 * one instance over all their devices: its bandwidth the fastest of
 * them, its wait their spread.  Instance keys must begin with the
 * ProgramId and a TAB (coll_summarize's do).
 */
void coll_summary_join(struct coll_summary *s, const struct spmd_scan *scan);

/* The number of instances with fewer rows (devices) than the
 * CollectiveSize of their first row. */
size_t coll_summary_incomplete(const struct coll_summary *s);

/*
 * The bandwidth table: per (Collective, MessageSize), over instances, the
 * mean and standard error (sample standard deviation / sqrt(n); empty for
 * one instance) of the bus bandwidth of each instance's fastest device:
 * the last to arrive, whose time holds no wait (communication.py
 * process_communication_data).  Columns Collective, MessageSize,
 * Instances, BusBandwidthGBPerSec, BusBandwidthStdErrGBPerSec; rows by
 * MessageSize, then Collective.  Returns 0 or -1 (write error).
 */
int coll_summary_bandwidth(const struct coll_summary *s, struct tsv_writer *w);

/*
 * The hidden-time table: per Collective, then a row "(all)": Rows,
 * HiddenMs, TotalMs (exposed + hidden) and HiddenToTotal = HiddenMs /
 * TotalMs, empty when TotalMs is 0.  These are the reference's "Mean
 * HiddenToTotalMs" per collective and "Overall HiddenMs to TotalMs"
 * (communication.py; its golden output is a ratio of sums, not a mean of
 * per-row ratios).  Returns 0 or -1 (write error).
 */
int coll_summary_hidden(const struct coll_summary *s, struct tsv_writer *w);

/*
 * The wait table, for a plot: per instance seen on two devices or more,
 * its Collective, WaitMs, the largest minus the smallest exposed time
 * (ProjDurMs) over its rows, exact (the wait of summary.py), the
 * MessageSize (bytes) of its first row and Devices, its rows (one per
 * device); rows by Collective, then WaitMs (ties: the order instances
 * were first seen).  Returns 0 or -1 (write error).
 */
int coll_summary_waits(const struct coll_summary *s, struct tsv_writer *w);



/* ---- the filter ---- */

struct filter;

enum coll_mode {
	COLL_ROWS,		/* every row, bandwidth on communication rows */
	COLL_COMM_ROWS,		/* communication rows only */
	COLL_BANDWIDTH,		/* the bandwidth table only */
	COLL_HIDDEN,		/* the hidden-time table only */
	COLL_WAITS		/* the wait table only */
};

/*
 * Read the rows of IN (a thunk or communication frame: columns MessageSize,
 * Collective, CollectiveSize, ProjDurMs, ProjDurHiddenMs, and Communication
 * when present — without it every row is communication; the summaries also
 * need ProgramId, ProgramExecution, Name, ThunkExecution) and write to W,
 * per MODE, the rows with AlgorithmBandwidthGBPerSec and
 * BusBandwidthGBPerSec (GB/s) appended (or rewritten in place when the
 * input already has them; empty where there is no bandwidth), or a
 * summary table.  Returns 0, or -1 with an err message naming the input,
 * line and column (rows before a bad one are already written); for the
 * summaries, also when the |times| summarised add up to more than 2^61
 * ns, so that no sum overflows.
 */
int coll_run(struct filter *in, struct tsv_writer *w, enum coll_mode mode);

/*
 * Read the communication rows of IN (columns as coll_run's summaries)
 * into *S, a new summary for coll_summary_bandwidth, _hidden and _waits
 * (every table from one pass; coll_summary_free it, also after an error).
 * SCAN NULL: instances per ProgramId, as the reference's
 * communication.py (its golden tables).  Else SCAN, its module names
 * given (coll_load_modules), is fed every row (columns Device and
 * ProjStartMs are then needed too) and the instances of ProgramIds it
 * joins are merged (coll_summary_join); its note goes into NOTES.
 * Returns 0, or -1 as coll_run.
 */
int coll_summarize(struct filter *in, struct spmd_scan *scan,
    struct coll_summary **s, struct err_notes *notes);

/* Read a module frame's ProgramId and Name columns (R, from its header)
 * into SCAN (a struct spmd_scan *; spmd_scan_module): the ProgramIds
 * coll_summarize may join.  Returns 0, or -1 with an err message. */
int coll_load_modules(struct tsv_reader *r, void *scan);

#endif
