/*
 * tevent: a streaming writer of trace events for timeline viewers, in two
 * formats that know nothing of frames:
 *
 *  - Perfetto's protobuf trace (ui.perfetto.dev, trace_processor): a
 *    stream of Trace.packet fields (field 1, "0x0A <varint len>
 *    <TracePacket>"), one packet sequence (trusted_packet_sequence_id 1),
 *    TrackDescriptor packets for the tracks and TrackEvent SLICE_BEGIN /
 *    SLICE_END packets for the slices, with event names, categories,
 *    annotation names and string values interned (InternedData, in the
 *    packet that first uses them).  Timestamps are integer ns
 *    (TracePacket.timestamp, default clock).  Field numbers from Perfetto's
 *    protos (protos/perfetto/trace/trace_packet.proto, track_event/
 *    track_event.proto, track_descriptor.proto, debug_annotation.proto,
 *    interned_data/interned_data.proto).
 *  - Chrome's Trace Event JSON (catapult docs/trace-event-format.md):
 *    {"displayTimeUnit":"ns","traceEvents":[...]}, one complete event
 *    ("ph":"X") per slice with ts and dur in microseconds printed from
 *    integer ns with three decimals (never through a double), "M"
 *    metadata events naming processes and threads, and flow events
 *    ("s", "t", "f", "bp":"e") binding to the slices.
 *
 * Memory is bounded by the distinct strings interned (Perfetto), not by
 * the events: every event is written when given.
 */
#ifndef NSYSJAX_TEVENT_H
#define NSYSJAX_TEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tev_format { TEV_PERFETTO, TEV_JSON };

/* An argument (debug annotation) of a slice. */
enum tev_argtype { TEV_STR, TEV_UINT, TEV_DOUBLE };
struct tev_arg {
	const char *name;	/* key, e.g. "op_name" */
	enum tev_argtype type;
	const char *s;		/* TEV_STR: NUL-terminated (ill-formed UTF-8 is
				 * written as U+FFFD, in both formats) */
	uint64_t u;		/* TEV_UINT */
	double d;		/* TEV_DOUBLE: finite (NaN/inf are skipped) */
};

/*
 * A track.  A process track (TID 0) holds thread tracks (TID > 0) with
 * the same PID; UUID is unique in the trace (Perfetto's
 * TrackDescriptor.uuid), PID and TID are positive and fit in int32.
 * SORT orders processes or threads in the JSON viewer (sort_index).
 */
struct tev_track {
	uint64_t uuid;
	int64_t pid, tid;
	const char *name;
	int64_t sort;
};

/*
 * A slice on a thread track: TS start and DUR duration, integer ns.
 * FLOW, when not 0, links the slice into the flow of that id (ids below
 * 2^53, so that JSON readers keep them exact); FLOWPH says its place:
 * 's' first, 't' in between, 'f' last (Perfetto infers the direction
 * from the timestamps and needs only the id).
 */
struct tev_slice {
	const struct tev_track *track;
	int64_t ts, dur;
	const char *name, *cat;
	const struct tev_arg *args;
	size_t nargs;
	uint64_t flow;
	int flowph;
	const char *flowcat;	/* the flow's category (JSON) */
};

struct tev_writer;

/*
 * Start writing format FMT to FP, named NAME in messages.  The JSON
 * writer writes its opening bracket at once.  OFFSET_NS is added to every
 * timestamp (Perfetto's are unsigned: the caller shifts a trace that
 * starts before 0).  Never fails (memory aside).
 */
struct tev_writer *tev_open(FILE *fp, const char *name, enum tev_format fmt,
    int64_t offset_ns);

/*
 * Declare track T (a process when T->tid is 0, else a thread of process
 * T->pid), before the first slice on it.  Returns 0, or -1 with an err
 * message "NAME: write error: ..." (as every function below).
 */
int tev_track(struct tev_writer *w, const struct tev_track *t);

/* The beginning of slice S (JSON: the whole "X" event and its flow). */
int tev_begin(struct tev_writer *w, const struct tev_slice *s);

/* The end of slice S, at S->ts + S->dur (Perfetto only; JSON: nothing). */
int tev_end(struct tev_writer *w, const struct tev_slice *s);

/*
 * Finish the output (JSON: the closing brackets), flush FP (not closed)
 * and release W.  Returns 0, or -1 with an err message when any write
 * failed.  W is released either way.
 */
int tev_close(struct tev_writer *w);

/* Release W without finishing the output (after an error); NULL is
 * allowed. */
void tev_free(struct tev_writer *w);

/* Bytes written so far. */
uint64_t tev_bytes(const struct tev_writer *w);

#endif
