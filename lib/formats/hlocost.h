/*
 * hlocost: the FLOPs, transcendentals and bytes of each instruction of an
 * HLO module (hlo.h), by the rules of XLA's HloCostAnalysis
 * (openxla/xla xla/service/hlo_cost_analysis.cc, read at 001918b) and,
 * for cuBLAS and cuDNN custom calls, of its GPU subclass
 * (xla/service/gpu/model/gpu_hlo_cost_analysis.cc HandleCustomCall).
 *
 * Counts are exact unsigned 64-bit integers, where XLA keeps 32-bit
 * floats that round above 2^24 (they saturate at UINT64_MAX instead of
 * wrapping).  Differences from XLA, on purpose:
 *  - the GPU subclass's elementwise "flops" (clock cycles per element
 *    from hlo_op_profiles) are not used: every rule is the base class's,
 *    whose flops are flops;
 *  - a shape without a layout is sized like one with (XLA sizes it 0):
 *    optimized dumps give every array a layout, and a missing one would
 *    only hide bytes;
 *  - the output of a cuBLAS gemm custom call that is a tuple (workspace,
 *    auxiliary outputs) counts as its element 0, as XLA counts cuDNN
 *    convolutions;
 *  - a convolution whose window values pass +-2^31, or whose valid
 *    positions take more than 2^20 steps to count (the count walks the
 *    shorter of kernel and output, the other in closed form), is unknown:
 *    a dump is a file, its shapes bounded only by int64;
 *  - an instruction of a fused computation (one a fusion calls) that a
 *    thunk names on its own is the initialiser of a reduction (XLA names
 *    that kernel after the reduce inside the fusion): its cost is its
 *    output written, no FLOPs; the fusion's thunk carries the work;
 *  - cuDNN fused attention (custom_call_target containing "fmha", which
 *    XLA leaves unknown) counts its two GEMMs from
 *    cudnn_fmha_backend_config's bmm1/bmm2 dimension numbers: QK^T over
 *    operands 0 and 1, PV with the contraction length of operand 2 and
 *    the elements of output element 0; a backward call ("Backward" in
 *    the target) counts 3 QK^T-sized and 2 PV-sized GEMMs (the
 *    recomputed scores and four gradients, as TraceLens does); a causal
 *    mask (mask_type CAUSAL or PADDING_CAUSAL, or is_causal_mask: XLA's
 *    backend_configs.proto) halves every GEMM, the kernel skipping the
 *    masked half of the scores; padding is not subtracted;
 *  - TransformerEngine's fused attention FFI calls
 *    (te_fused_attn_forward_ffi, te_fused_attn_backward_ffi) count the
 *    same GEMMs from their attributes (input_batch, attn_heads,
 *    q_max_seqlen, kv_max_seqlen, qk_head_dim, v_head_dim, read from the
 *    MLIR dictionary text of backend_config), halved for a causal
 *    mask_type (TE's NVTE_Mask_Type 2 to 5: causal, padding causal, and
 *    both aligned to the bottom right); their workspace (the last
 *    output) is not bytes; without the attributes they are unknown;
 *  - any other custom call, fft and an instruction whose called
 *    computations cannot be costed are unknown (XLA's -1): known = 0.
 * Bytes follow today's HloCostAnalysis on every instruction: operands
 * plus output, a tuple (output or operand) sized as the sum of its array
 * leaves (XLA until 2024 counted a tuple's index table, 8 bytes per
 * element: collectives' tuple outputs then differed), a tuple
 * instruction its index table (HandleTuple).
 * A while loop's cost is its body plus condition once, as XLA's: the
 * trip count belongs to the profile, which sees each executed thunk.
 *
 * MatmulFlops are the flops of dot, convolution, gemm and attention
 * (also inside fusions); dtype is the element type of the first such
 * operation's inputs (its operand 0), which decides the tensor-core rate:
 * an f8 x f8 -> bf16 gemm runs at the f8 rate.
 */
#ifndef NSYSJAX_HLOCOST_H
#define NSYSJAX_HLOCOST_H

#include <stddef.h>
#include <stdint.h>

struct hlo_module;

struct hlocost {
	int known;		/* 0: cannot be costed; the rest is 0 */
	uint64_t flops;		/* FMA = 2 flops; matmul included */
	uint64_t transcendentals;
	uint64_t bytes;		/* operands read + outputs written */
	uint64_t matmul_flops;
	int dtype;		/* PrimitiveType of the matmul inputs, or 0 */
};

struct hlocost_ctx;

/* A costing of M (which must outlive it); O(instructions) to build. */
struct hlocost_ctx *hlocost_new(const struct hlo_module *m);
void hlocost_free(struct hlocost_ctx *c);

/*
 * The cost of instruction I of the module (I < hlo_count) into *OUT.
 * Computations called by several instructions are costed once.  Never
 * fails: what cannot be costed is known = 0.  A cuBLAS or cuDNN call
 * whose backend_config is not JSON (parsed by jansson) is unknown, and
 * err_msg() then says so: "instruction NAME: backend_config: malformed
 * JSON at byte K: <jansson's reason>".
 */
void hlocost_inst(struct hlocost_ctx *c, size_t i, struct hlocost *out);

/*
 * The cuBLAS gemm and cuDNN attention custom calls of C's module whose
 * backend_config is not JSON (their cost is unknown: hlocost_inst):
 * their count, and in *FIRST the name of the first in instruction order
 * (NULL when none; it lives as long as the module).  O(instructions),
 * one JSON parse per such call: for one note per module.
 */
size_t hlocost_malformed(const struct hlocost_ctx *c, const char **first);

/* TYPE's lower-case name ("bf16", "f32", "f8e4m3fn"), or NULL for 0 or a
 * number without a name. */
const char *hlocost_dtype(int type);

#endif
