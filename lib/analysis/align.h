/*
 * align: clock alignment of the device timestamps of several processes,
 * after the reference's align_profiler_data_timestamps (nsys_jax
 * analysis.py).
 *
 * Each process stamps its GPU activity with its own clock.  Collectives
 * end at (nearly) the same instant on every participating device, so the
 * end time of a collective (ProjStartMs + ProjDurMs + ProjDurHiddenMs) on
 * a device, minus the mean end over the devices, estimates that device's
 * clock offset.  The rules, and where each one comes from:
 *
 *  - Only collectives of the largest CollectiveSize are used, and the
 *    number of devices in the collectives must equal that size
 *    (reference: it asserts so; we decline instead).
 *  - A collective known by its name only (a module without an HLO dump:
 *    Communication 1, a Collective, CollectiveSize empty) is taken to
 *    span every device of the collectives (ours: its replica groups are
 *    in the dump alone); the completeness rule below then keeps only its
 *    instances seen once on each device.  A collective over subgroups of
 *    the devices is seen on all of them too and would be taken as one
 *    over all: without dumps, alignment assumes the run's named
 *    collectives span every device.
 *  - An instance is (ProgramId, ProgramExecution, Name, ThunkExecution)
 *    (reference: its groupby).  Only complete instances are used: exactly
 *    CollectiveSize rows on distinct devices (ours: the
 *    reference also averages over incomplete instances, which leaves a
 *    device whose program has another fingerprint uncorrected).
 *  - skew = end - mean(end over the instance); a device's correction is
 *    the median of its skews, the mean of the two middle ones for an even
 *    count (reference: pandas median).  It is subtracted from ProjStartMs
 *    (reference), of every row of that device (module, thunk and
 *    communication frames alike).
 *
 * Arithmetic is exact: times are integer ns, a skew is kept as a multiple
 * of 1/N ns (N devices) and the median as a multiple of 1/(2N) ns; only
 * the final correction and spread are rounded to the nearest ns, a tie
 * upwards (towards +infinity), which commutes with adding whole ns, so
 * that shifting one device's clock by a multiple of N ns shifts every
 * aligned time by the same whole number of ns.
 *
 * The filter driver (align_read, align_write, align_apply) reads TSV rows
 * through lib/filter.h, spools them raw to an anonymous temporary file
 * and keeps in memory only, per collective row, its instance, device and
 * end time: memory grows with the collectives, not with the other rows.
 */
#ifndef NSYSJAX_ALIGN_H
#define NSYSJAX_ALIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct filter;
struct tsv_reader;
struct tsv_writer;

/*
 * Times read are limited to +-ALIGN_MAX_NS (2^59 ns, about 18 years):
 * ends, skews, their sums and the corrected times then fit in int64.
 * A correction read from a table is limited to +-2^61 ns.
 */
#define ALIGN_MAX_NS ((int64_t)1 << 59)
#define ALIGN_MAX_CORR_NS ((int64_t)1 << 61)

/* The correction of one device. */
struct align_corr {
	int64_t device;		/* Device */
	int64_t corr_ns;	/* subtracted from ProjStartMs, ns */
	int64_t instances;	/* complete instances used */
	int64_t spread_ns;	/* max - min of the device's skews, ns */
};

/* A corrections table, sorted by device, one entry per device. */
struct align_table {
	struct align_corr *v;
	size_t n;
};

/* ---- the estimate, over rows ---- */

struct align_est;

/* A new, empty estimator. */
struct align_est *align_est_new(void);

/* Release E; NULL is allowed. */
void align_est_free(struct align_est *e);

/*
 * Add one collective row: KEY[0..KEYLEN) identifies its instance (any
 * bytes; the driver joins the four instance columns with TABs), DEVICE
 * the device, SIZE its CollectiveSize (>= 1; 0 when unknown: counted as
 * the number of devices among all rows added), END_NS its end time in ns
 * (start + exposed + hidden duration).  Returns 0, or -1 with an err
 * message for SIZE < 0 or |END_NS| > 3 * ALIGN_MAX_NS.
 */
int align_est_add(struct align_est *e, const char *key, size_t keylen,
    int64_t device, int64_t size, int64_t end_ns);

/*
 * Estimate the corrections from the rows added, into *T (sorted by
 * device; free with align_table_free).  Returns 0 when aligned; 1 when
 * alignment is impossible, with *T empty and WHY[0..WHYLEN) saying why:
 * no collective rows, one device, largest CollectiveSize 1, a number of
 * devices other than that size, or no complete instance; -1 with an err
 * message when one instance's end times lie too far apart for exact
 * arithmetic (more than 2^60/N ns).  Spread is the range (max - min) of a
 * device's skews over the instances used, rounded as the correction.
 * O(n log n) in the rows added.
 */
int align_est_solve(struct align_est *e, struct align_table *t,
    char *why, size_t whylen);

/*
 * Write the skews behind the corrections to W, for a plot: a header
 * "Device Instance EndTimeSkewMs", then per device (in increasing order)
 * and complete instance of the largest collectives (numbered 1, 2, ... in
 * the byte order of their keys) the device's end time minus the
 * instance's mean end, in ms (the exact skew of align_est_solve as the
 * nearest double).  When alignment is impossible (align_est_solve's
 * refusals), the header alone.  O(n log n).  Returns 0, or -1 with an err
 * message (a write error, or instances too spread as align_est_solve).
 */
int align_est_skews(struct align_est *e, struct tsv_writer *w);

/* ---- corrections tables ---- */

/* The entry of DEVICE in T (binary search), or NULL. */
const struct align_corr *align_table_find(const struct align_table *t,
    int64_t device);

/* Release T's entries and empty it. */
void align_table_free(struct align_table *t);

/*
 * Write T as TSV: a header "Device CorrectionMs Instances SpreadMs", then
 * one row per device in device order, times as exact ms (tsv_ms).
 * Returns 0, or -1 with an err message for a write error.
 */
int align_table_write(struct tsv_writer *w, const struct align_table *t);

/*
 * Read a corrections table from FP, named NAME in messages, into *T.
 * Columns found by name: Device (integer) and CorrectionMs (ms) are
 * required, others are ignored.  Returns 0, or -1 with an err message:
 * a missing column, "NAME:LINE: column X: ..." for a bad value, a device
 * listed twice, or |CorrectionMs| > ALIGN_MAX_CORR_NS.
 */
int align_table_read(FILE *fp, const char *name, struct align_table *t);

/* ---- the filter ---- */

struct align_run;

/* A new run of the filter. */
struct align_run *align_run_new(void);

/* Release R (and its temporary file); NULL is allowed. */
void align_run_free(struct align_run *r);

/*
 * The first pass of estimating: read every row of F, spooling it raw to
 * an anonymous temporary file, and estimate the corrections.  Columns
 * read: ProjStartMs and Device; for the estimate CollectiveSize,
 * ProgramId, ProgramExecution, Name, ThunkExecution, ProjDurMs,
 * ProjDurHiddenMs, and Communication when present (thunk frame: only
 * rows with Communication 1 are collectives; without the column every row
 * is), and Collective when present: a collective with an empty
 * CollectiveSize is used, of unknown size, only when its Collective is
 * not empty (named, not measured), else skipped.  Without ProjStartMs, or without CollectiveSize (module frame),
 * nothing is read yet: align_declined says why and align_write passes the
 * rows through.  Returns 0 (aligned or declined), or -1 with an err
 * message naming input, line and column.
 */
int align_read(struct align_run *r, struct filter *f);

/* Why the run does not align (a sentence without the program name), or
 * NULL when it does. */
const char *align_declined(const struct align_run *r);

/* The corrections estimated by align_read (empty when declined). */
const struct align_table *align_result(const struct align_run *r);

/* Have align_read keep its estimate for align_write_skews (call before
 * align_read; the estimate is held until then). */
void align_keep_skews(struct align_run *r);

/*
 * Write the skews of align_read's estimate to W (align_est_skews) and
 * release it; the header alone when nothing was estimated (the input had
 * no ProjStartMs or CollectiveSize).  Returns as align_est_skews.
 */
int align_write_skews(struct align_run *r, struct tsv_writer *w);

/*
 * The second pass: write the header and every row to W in input order,
 * ProjStartMs of each row minus its device's correction, every other
 * field as read.  Returns 0, or -1 with an err message (a read or write
 * error, a bad row when passing through).
 */
int align_write(struct align_run *r, struct tsv_writer *w);

/*
 * Stream F to W applying the corrections of T, without spooling: the
 * header, then each row with ProjStartMs minus its device's correction.
 * A device not in T keeps its rows unchanged and is listed by
 * align_missing.  Returns 0, or -1 with an err message naming input, line
 * and column, after the rows before the bad one were written.
 */
int align_apply(struct align_run *r, struct filter *f, struct tsv_writer *w,
    const struct align_table *t);

/*
 * align_apply a row at a time, for a filter that corrects its rows as it
 * reads them (nsysjax-warmup --apply; one pass where align_apply piped
 * into it parsed and wrote every row twice, 0.5 s of CPU at 256
 * processes).  align_apply_begin after RD's header: 0, 1 when RD has no
 * ProjStartMs column (R declines, align_declined says why, and rows pass
 * unchanged), -1 with an err message when it has no Device column.
 * align_apply_line for each row of RD: *LINE and *LEN the row with
 * ProjStartMs minus its device's correction in T (ms, exact, as
 * tsv_ms writes it), or the row as read for a device not in T or an
 * empty ProjStartMs; valid until the next call.  -1 with an err message
 * naming input, line and column for a bad Device or ProjStartMs.
 * align_apply_end after the last row, for align_missing.
 */
int align_apply_begin(struct align_run *r, const struct tsv_reader *rd);
int align_apply_line(struct align_run *r, struct tsv_reader *rd,
    const struct align_table *t, const char **line, size_t *len);
void align_apply_end(struct align_run *r, const struct align_table *t);

/*
 * The same as callbacks of a filter's row rewrite (warmup.h struct
 * warmup_rewrite), ARG an align_applier: its run's align_apply_begin
 * (1, a frame without ProjStartMs, is success) and align_apply_line with
 * its table.
 */
struct align_applier {
	struct align_run *run;
	const struct align_table *table;
};
int align_applier_start(void *arg, struct tsv_reader *rd);
int align_applier_line(void *arg, struct tsv_reader *rd, const char **line,
    size_t *len);

/*
 * The warning after applying a table (TABLE: its name, or NULL after an
 * estimate), on stderr (err_warn): that R declined and why, or the
 * devices the table had no correction for (the first few).
 */
void align_report(const struct align_run *r, const char *table);

/*
 * The devices of the input whose rows were left unchanged for want of a
 * correction (in increasing order): *DEVS is set to an array of the
 * returned count.  Empty when the whole run declined.
 */
size_t align_missing(const struct align_run *r, const int64_t **devs);

#endif
