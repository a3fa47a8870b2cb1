/*
 * thunkmeta: XLA's thunk metadata dump, `module_NNNN.<name>.thunk_metadata
 * .pb` (xz-compressed as .pb.xz by nsys-jax), an xla.gpu.
 * ThunkMetadataListProto (xla/backends/gpu/runtime/thunk.proto, openxla/xla
 * 2025-2026):
 *
 *	ThunkMetadataListProto { repeated ThunkMetadataProto thunk_metadata = 1; }
 *	ThunkMetadataProto     { ThunkInfoProto thunk_info = 1;
 *	                         string thunk_kind = 2; }   // "kCommandBuffer"
 *	ThunkInfoProto         { string profile_annotation = 1;
 *	                         int64 execution_stream_id = 2;
 *	                         int64 thunk_id = 3; }
 *
 * XLA writes it (gpu_executable.cc, GetMetadataListProtoFromThunkGraph) by
 * a pre-order walk of the thunk tree: a thunk, then the thunks it holds
 * (a command buffer: its SequentialThunk, then that sequence's thunks,
 * each followed by what it holds).  The list carries no depth: where a
 * command buffer's contents end is not in the file (cmdbuf.h says how
 * nsysjax decides).  Unknown fields are skipped, so newer XLA with more
 * fields still reads.
 */
#ifndef NSYSJAX_THUNKMETA_H
#define NSYSJAX_THUNKMETA_H

#include <stddef.h>
#include <stdint.h>

/* One thunk of the dump, in the dump's (pre-order) order. */
struct thunkmeta_entry {
	char *name;		/* profile_annotation (the HLO op), "" if none */
	char *kind;		/* thunk_kind, e.g. "kGemm"; "" if none */
	int64_t id;		/* thunk_id, 0 if absent */
};

struct thunkmeta {
	struct thunkmeta_entry *v;
	size_t n;
};

/*
 * Decode DATA[0..LEN) (already decompressed) into a zeroed T.  Returns 0,
 * or -1 with an err message ("thunk metadata: entry N: ...": a malformed
 * field, a field of the wrong wire type) and T freed.
 */
int thunkmeta_read(const uint8_t *data, size_t len, struct thunkmeta *t);

/* Whether KIND is XLA's command-buffer thunk kind ("kCommandBuffer"). */
int thunkmeta_is_cmdbuf_kind(const char *kind);

/* Index of the first entry named NAME, or -1. */
long thunkmeta_find(const struct thunkmeta *t, const char *name);

void thunkmeta_free(struct thunkmeta *t);

#endif
