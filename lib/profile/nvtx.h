/*
 * nvtx: the NVTX range names XLA writes, and how nsys spells them in the
 * nvtx_gpu_proj_trace layouts (doc/formats.md).
 *
 * A name is "domain:text" in the <= 2024.4 and >= 2026.1 layouts
 * ("TSL:XlaModule:#hlo_module=jit_f,program_id=3#") and bare text in
 * 2024.5-2025.x ("XlaModule:#..."); these functions accept both.
 */
#ifndef NSYSJAX_NVTX_H
#define NSYSJAX_NVTX_H

#include <stddef.h>
#include <stdint.h>

enum nvtx_kind {
	NVTX_OTHER,
	NVTX_MODULE,	/* XlaModule:#... */
	NVTX_THUNK,	/* Thunk:#... */
	NVTX_COMPILE,	/* XlaCompile:#module=... */
	NVTX_NCCL	/* NCCL:... (or "nccl..." where there is no domain) */
};

/* Classify the range name NAME. */
enum nvtx_kind nvtx_classify(const char *name);

/* NAME without a leading "TSL:" domain, if it has one. */
const char *nvtx_strip_tsl(const char *name);

/*
 * Parse an XlaModule range name,
 *	[TSL:]XlaModule:#[prefix=P,]hlo_module=M[,program_id=N]#
 * (openxla/xla annotation.cc; data_loaders.py module_re).  On success
 * stores the module name M (a pointer into NAME, length *MLEN) and the
 * program id N (-1 when absent: autotuner modules) and returns 0; returns
 * -1 with an err message when NAME does not have that form.
 */
int nvtx_parse_module(const char *name, const char **m, size_t *mlen,
    int64_t *program_id);

/*
 * Parse a Thunk range name, [TSL:]Thunk:#[name=OPNAME,]hlo_op=OP[,K=V...]#,
 * giving the HLO instruction name OP (pointer into NAME, length *OPLEN).
 * XLA's MakeInstructionTitle (xla/service/gpu/runtime/annotation.cc)
 * writes "hlo_op=OP#" up to mid-2026, then
 * "hlo_op=OP,unique_hlo_op_id=ID#", ID being the instruction's unique_id()
 * (HloInstructionProto.id in the dump).  The fields after hlo_op are read
 * as comma-separated key=value pairs (KEY of [a-z0-9_], VALUE without ','
 * or '#'), unknown keys accepted, so that fields XLA adds later do not
 * break the name.  OPNAME can hold commas, '=' and even ",hlo_op=", so
 * the last hlo_op= followed by such fields only is the one.
 * nvtx_parse_thunk_id also stores ID in *ID (-1 when absent; ID NULL:
 * not wanted); a unique_hlo_op_id that is not decimal digits, or given
 * twice, makes the name malformed.  Returns 0, or -1 with an err message.
 */
int nvtx_parse_thunk(const char *name, const char **op, size_t *oplen);
int nvtx_parse_thunk_id(const char *name, const char **op, size_t *oplen,
    int64_t *id);

/*
 * Whether the hlo_op OP[0..LEN) names an XLA command buffer thunk:
 * "command_buffer_" and decimal digits.  XLA's command buffer thunk
 * (xla/backends/gpu/runtime/command_buffer_thunk) runs a sequence of
 * thunks as one CUDA graph, and its range (Thunk:#hlo_op=command_buffer_9#
 * in profiles of 2026's XLA) names no HLO instruction.  The rule for
 * inputs without XLA's thunk metadata (thunk_metadata.pb).
 */
int nvtx_command_buffer(const char *op, size_t len);

/*
 * The collective a thunk's hlo_op OP names by XLA's naming alone, for
 * modules without an HLO dump: OP is an opcode of XLA's collectives
 * (xla/hlo/ir/hlo_opcode.h: all-gather, all-reduce, all-to-all,
 * collective-broadcast, collective-permute, ragged-all-to-all,
 * reduce-scatter, send, recv), optionally followed by "-start" or "-done"
 * (an async pair's halves, opcodes of their own or async-start/done
 * wrappers named after what they wrap), then by ".N" (NameUniquer's
 * suffix), e.g. "all-reduce-start.3", "reduce-scatter.12", "send".
 * Returns the opcode (a static string, the Collective column: the form
 * without -start/-done), or NULL.  *SIZE is the devices it joins when
 * the name alone tells: 2 for the pairwise collective-permute, send and
 * recv, else -1 (the replica groups are in the HLO only).  A fusion
 * named otherwise that wraps a collective is not recognised.
 */
const char *nvtx_collective(const char *op, int64_t *size);

/*
 * Parse an XlaLauncher thread name,
 *	XlaLauncher:#global=G,local=L,process=P,slice=S#
 * ("partition=" instead of "slice=" since openxla/xla PR #29725), storing
 * G, L, P, S into OUT[0..3].  Returns 0, or -1 (no err message: most
 * threads are not launchers).
 */
int nvtx_parse_launcher(const char *name, int32_t out[4]);

#endif
