/*
 * nsysdb: an nsys SQLite export (`nsys export --type sqlite`) read into
 * the arrays of the NVTX -> GPU projection (nvtxproj.h), its thread names
 * and its push/pop ranges (nsysjax-extract(1), SQLITE EXPORTS):
 *
 *  - tables and columns are probed, never assumed from the exporter
 *    version (any table may be missing; 2022.2 has no
 *    ENUM_NSYS_EVENT_TYPE, older NVTX_EVENTS lack columns);
 *  - NVTX event types are resolved by name through ENUM_NSYS_EVENT_TYPE
 *    when it exists (NvtxPushPopRange 59, NvtxStartEndRange 60,
 *    NvtxtPushPopRange 70, NvtxtStartEndRange 71, NvtxDomainCreate 75
 *    otherwise);
 *  - candidate ranges end on their start thread (endGlobalTid NULL or
 *    equal to globalTid); an unterminated range (end NULL) ends at the
 *    largest start or end of any range event, as the stats report does;
 *  - a range's name is "<domain>:<text>": text = StringIds[textId] when
 *    that id exists, else text, else empty; domain = the name of the
 *    earliest NvtxDomainCreate row of the same domainId in the same
 *    process (PID bits of globalTid), empty for domain 0 and for a domain
 *    whose create row is absent;
 *  - GPU operations (CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET and,
 *    for graph-level traces, _GRAPH_TRACE: one row per graph launch,
 *    counted like a kernel, as the 2024.5+ recipe counts them; those
 *    present) are joined to every CUPTI_ACTIVITY_KIND_RUNTIME row (runtime
 *    and driver calls, any eventClass) with the same correlationId in the
 *    same process: op.globalPid == call.globalTid with the 24 TID bits
 *    cleared; operations without such a row are counted, not projected;
 *  - graph node mode: an operation whose graphNodeId names a node of
 *    CUDA_GRAPH_NODE_EVENTS (same process) is also attributed at capture
 *    time: originalGraphNodeId is followed to the original node, whose
 *    creation interval on its thread is a capture call (nvtxproj.h).
 *
 * globalTid: PID = (globalTid >> 24) & 0xFFFFFF, TID = globalTid &
 * 0xFFFFFF (Analysis Guide, "Serialized Process and Thread Identifiers").
 * Times are the export's integer ns, limited to +-2^60.
 */
#ifndef NSYSJAX_NSYSDB_H
#define NSYSJAX_NSYSDB_H

#include <stddef.h>
#include <stdint.h>

#include "profile/compile.h"
#include "profile/proj.h"
#include "profile/nvtxproj.h"

/* Ranges between two indexed text entries (a power of 2). */
#define NSYSDB_TEXT_STEP	8

struct sqldb;
struct tsv_writer;

struct nsysdb_domain {
	int64_t pid, id;	/* process (PID bits), domainId */
	int64_t start, rowid;	/* its creation (the earliest kept) */
	char *name;
};

/* Kinds of GPU operation (the activity tables, in this order). */
enum { NSYSDB_KERNEL, NSYSDB_MEMCPY, NSYSDB_MEMSET, NSYSDB_GRAPH };

/* A GPU operation replayed from a CUDA graph node (node-level traces:
 * graphNodeId set), kept for cmdbuf.h. */
struct nsysdb_gop {
	int64_t start, end;	/* GPU interval, ns */
	int64_t nameid;		/* kernel shortName (StringIds id), -1 none */
	uint32_t key;		/* its launch (nvtxproj_call.key) */
	uint8_t kind;		/* NSYSDB_KERNEL, _MEMCPY, _MEMSET */
};

struct nsysdb {
	struct sqldb *db;
	/* StringIds, sorted by id */
	int64_t *sid;
	char **sval;
	size_t nstr;
	/* Candidate ranges (nvtxproj input) and their names and styles. */
	struct nvtxproj_range *r;
	size_t nr, capr;
	/* The ranges' texts: an entry a range in the arena, in range order,
	 * each NUL-terminated (nsysdb.c: a text, or a StringIds reference);
	 * rtext[k] is the offset of range k * NSYSDB_TEXT_STEP's entry. */
	size_t *rtext;
	int defer_names;	/* set before nsysdb_load: the texts wait for
				   nsysdb_names_start */
	size_t textroom;	/* the arena's size the texts will need */
	struct nsysdb_namer *namer;	/* the names' scan under way, or NULL */
	void *spare;		/* the calls' block, for the arena */
	struct nvtxproj *prep;	/* set before nsysdb_load: prepared
				   (nvtxproj_prepare) once the ranges are
				   read, while the operations still are */
	int64_t types[5];	/* the NVTX event types (nsysdb.c) */
	struct nsysdb_cursor {
		size_t i, pos;	/* range i's entry is at arena + pos */
	} cur;			/* nsysdb_name's */
	int32_t *rdomain;	/* index into ddom (the domain as the row names
				   it: process, domainId), -1: none */
	int32_t *ddom;		/* by rdomain: index into dom, -1: none */
	uint8_t *rpushpop;	/* 1 PushPop (59, 70), 0 StartEnd */
	char *arena;
	size_t narena, caparena;
	struct nsysdb_domain *dom;
	size_t ndom;
	/* Launch calls and operation envelopes (nvtxproj input). */
	struct nvtxproj_call *c;
	size_t nc, capc;
	uint32_t *corder;	/* nvtxproj_order_calls(c, nc) */
	struct nvtxproj_group *g;
	size_t ng, capg;
	size_t nops;		/* GPU operations read */
	size_t nops_unlaunched;	/* of which without a runtime row */
	size_t nunterminated;	/* ranges with end NULL */
	/* Graph-node operations and the indexes of nsysdb_graph_ops. */
	struct nsysdb_gop *gop;
	size_t ngop;
	size_t *gcall, ngcall;	/* launch calls by (thread, start) */
	size_t *rbyid;		/* ranges by RangeId */
	int gindexed;
	/* ThreadNames joined with StringIds, sorted by (PID, TID). */
	struct proj_thread *threads;
	size_t nthreads;
	char *scratch;		/* a name being built */
	size_t capscratch;
	char *stackbuf;		/* a RangeStack being built */
	size_t capstackbuf;
	char *path;		/* the file, when opened from one */
};

/*
 * Open the export at PATH (nsysdb_open) or held in memory DATA[0..LEN)
 * (nsysdb_open_mem, for a member of a zip) into a zeroed D.  Returns 0, or
 * -1 with an err message (sqldb.h: not a SQLite database, zeroed or
 * truncated header, corrupt) without the path; nsysdb_free releases D
 * either way.
 */
int nsysdb_open(struct nsysdb *d, const char *path);
int nsysdb_open_mem(struct nsysdb *d, const uint8_t *data, size_t len);

/*
 * Read what the projection needs (see above) into D.  Returns 0, or -1
 * with an err message: NSYSDB_NO_NVTX for GPU work without NVTX, "no
 * NVTX_EVENTS table: profile without NVTX (record with
 * --trace=cuda,nvtx)" when there is no GPU work either, "no
 * CUPTI_ACTIVITY_KIND_RUNTIME or GPU activity table: profile without
 * CUDA trace (record with
 * --trace=cuda,nvtx)", "NVTX_EVENTS: no column X" (unknown schema),
 * "NVTX_EVENTS row R: time beyond 2^60 ns", a SQLite error.
 */
int nsysdb_load(struct nsysdb *d);

/*
 * Whether D's export holds GPU operations (a row of a kernel, memcpy,
 * memset or graph activity table) but no NVTX event (no NVTX_EVENTS
 * table, or an empty one): nsys ran without -t nvtx, so XLA's ranges,
 * hence its thunks and modules, are not there.  1, 0, or -1 with an err
 * message.  nsysdb_load refuses such an export with NSYSDB_NO_NVTX.
 */
int nsysdb_without_nvtx(struct nsysdb *d);
#define NSYSDB_NO_NVTX "GPU work but no NVTX ranges (no NVTX_EVENTS " \
	"rows): nsys ran without -t nvtx, so there are no XLA thunks or " \
	"modules, no per-operation or per-module times; record with nsys " \
	"profile -t cuda,nvtx ... (nsys-jax and nsysjax-profile set it)"

/*
 * The ranges' texts when D->defer_names was set before nsysdb_load: a
 * second scan of NVTX_EVENTS, to be started once the projection's own
 * memory is freed (nsysdb_swept), so that the names (the largest of the
 * ranges' data) never take memory while the calls do.  From a file, the
 * scan runs on a thread of its own, which nsysdb_write_nvtx follows row
 * by row (names come in range order, rows nearly so), overlapping the
 * scan with the formatting; nsysdb_names_finish waits for it, and must
 * be called (and checked) before nsysdb_name, nsysdb_proj_ranges or
 * nsysdb_pushpop.  Both return 0, or -1 with an err message (a SQLite
 * error; "NVTX_EVENTS: row R: not found again (the file changed?)").
 */
int nsysdb_names_start(struct nsysdb *d);
int nsysdb_names_finish(struct nsysdb *d);

/*
 * Read only the strings and the candidate NVTX ranges (what
 * nsysdb_pushpop needs; no CUDA tables required).  Returns 0, or -1 with
 * nsysdb_load's messages about NVTX_EVENTS.
 */
int nsysdb_load_nvtx(struct nsysdb *d);

/* Whether DATA[0..LEN) starts with the SQLite 3 magic string. */
int nsysdb_is_sqlite(const uint8_t *data, size_t len);

/*
 * Read ThreadNames joined with StringIds into D->threads (PID, TID, Name
 * as nsys-jax's thread-metadata.parquet: an unknown name id gives an
 * empty name).  A missing table gives no threads.  Returns 0 or -1.
 */
int nsysdb_load_threads(struct nsysdb *d);

/*
 * After nvtxproj_sweep of D's arrays: free what only the sweep reads
 * (the groups, the calls' order, and the calls unless nsysdb_graph_ops
 * needs them: an export with node-level traces), before the output
 * order and the writing take their memory.
 */
void nsysdb_swept(struct nsysdb *d);

/*
 * The name of range I ("domain:text"), valid until the next call; names
 * deferred (nsysdb_names_start) are waited for ("" if their scan
 * failed: check nsysdb_names_finish first).
 */
const char *nsysdb_name(struct nsysdb *d, size_t i);

/*
 * Write the nvtx frame of P (projected from D) as TSV to W: the header
 * nsysdb_nvtx_columns, then one row per projected range in P's order:
 * Name ProjStartNs ProjDurNs OrigStartNs OrigDurNs Style PID TID
 * NumGPUOps Lvl NumChild RangeId ParentId RangeStack (integer ns;
 * ParentId empty for a root; RangeStack ":id:...:id" from the root).
 * While D's names are being read (nsysdb_names_start), a row waits for
 * its range's name; the scan is over on return.  Returns 0, or -1 with
 * the writer's or the names' scan's err message.
 */
int nsysdb_write_nvtx(struct nsysdb *d, const struct nvtxproj *p,
    struct tsv_writer *w, int header);

extern const char *const nsysdb_nvtx_columns[];

/*
 * The projected ranges of P as the rows of an nvtx_gpu_proj_trace table
 * (proj.h proj_range, the <= 2024.4 layout: name "domain:text", times
 * ns, NumGPUOps, RangeId, ParentId), in P's order, into a new array *OUT
 * of *N rows; names point into *NAMES (an array of *NNAMES strings the
 * caller frees with each string).
 */
void nsysdb_proj_ranges(struct nsysdb *d, const struct nvtxproj *p,
    struct proj_range **out, size_t *n, char ***names, size_t *nnames);

/*
 * The push/pop ranges (NvtxPushPopRange, NvtxtPushPopRange) of D as the
 * rows of `nsys stats --report nvtx_pushpop_trace` (compile.h
 * compile_range): RangeId the rowid, the CPU tree of nvtxproj.h over the
 * push/pop ranges alone, NumChild and DurChild (the sum of the children's
 * durations) from it, RangeStack ":id:...:id", sorted by start, in a new
 * array *R of *N (free with compile_ranges_free).  Call after
 * nsysdb_load or nsysdb_load_nvtx.  Returns 0.
 */
int nsysdb_pushpop(struct nsysdb *d, struct compile_range **r, size_t *n);

/*
 * The GPU operations replayed from graph nodes (node-level traces) whose
 * launching call lies inside the CPU interval of the range with RangeId
 * RANGE_ID on its thread (the launch-time rule of the projection; not
 * the capture-time attribution), into a new array *OUT (free it), sorted
 * by launch, then GPU start.  Returns their number: 0 for an export
 * without node-level traces or an unknown RangeId.
 */
size_t nsysdb_graph_ops(struct nsysdb *d, int64_t range_id,
    struct nsysdb_gop **out);

/* StringIds[ID] ("" when absent), valid until nsysdb_free. */
const char *nsysdb_string(const struct nsysdb *d, int64_t id);

void nsysdb_free(struct nsysdb *d);

#endif
