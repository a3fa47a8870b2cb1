/*
 * hlo: per-instruction facts from one XLA HLO dump, as the reference
 * nsys-jax derives them (NVIDIA/JAX-Toolbox .github/container/nsys_jax/
 * nsys_jax/protobuf.py, analysis.py and analyses/Analysis.ipynb).
 *
 * Input is the decompressed bytes of one dump file, normally
 * dump/module_NNNN.<name>.<target>_gpu_after_optimizations.hlo.pb, the
 * file the reference reads (protobuf.py _remap_program_id globs
 * "*after_optimizations.hlo.pb.xz").  XLA writes an HloProto there (the
 * module plus its buffer assignment); a bare HloModuleProto is accepted
 * too.  The schema subset is protos/hlo.proto.
 *
 * Everything is computed by hlo_load() except source stacks, which are
 * built on demand by hlo_src().  All strings returned point into the
 * module and stay valid until hlo_free().  The module keeps these facts,
 * not the decoded protobuf: about 140 bytes per instruction (40 of them
 * the name and id tables, at most half full) plus its strings (5 MB for
 * the 37k instructions of a 6 MB dump before the id table, which adds
 * 1.5 MB), and hlo_load() decodes one instruction at a time.
 *
 * Where the reference fails, this module differs on purpose:
 *  - a failure that concerns one instruction (two collectives under one
 *    wrapper, a missing operand) fails that instruction only (comm -1 or
 *    collective NULL, with err), not the whole module;
 *  - analysis.py's chain of replica-group encodings is followed as
 *    intended: its current code tests len(replica_groups) == 0 a second
 *    time where it means the iota size it just read, so an iota encoding
 *    always falls through to the mesh-axes assertion;
 *  - F4E2M1FN is 4 bits wide (element_type_width fails on its name);
 *  - a stack-frame id of 0 or below ends a stack, where Python's negative
 *    indexing would pick the last entry;
 *  - a stack-frame id beyond the module's stack_frame_index (XLA of 2026
 *    writes them, after SPMD partitioning, for instructions inlined from
 *    conditionals) ends the stack as in XLA itself, whose
 *    StackFrames::GetStackFrame (xla/hlo/ir/stack_frames.cc) gives an
 *    empty frame for an invalid id: the instruction keeps the frames
 *    below that id, or none; the reference raises IndexError.
 * Results agree with the reference wherever it succeeds: every
 * (ProgramId, Name) of the reference's frames of real profiles is checked by
 * tests/unit/hlo_test.c.
 */
#ifndef NSYSJAX_HLO_H
#define NSYSJAX_HLO_H

#include <stddef.h>
#include <stdint.h>

struct hlo_module;

/*
 * The facts about one HLO instruction.
 *
 * comm is the reference's Communication flag (protobuf.py
 * HloInstruction.is_communication):
 *   1 if the opcode is a collective (all-gather, all-reduce, all-to-all,
 *     collective-broadcast, collective-permute, reduce-scatter) or an
 *     async collective start (all-gather-start, all-reduce-start,
 *     collective-permute-start); or if the instruction is an async-start
 *     or fusion whose called computations, searched recursively, contain
 *     exactly one such collective or one host-offloading instruction: a
 *     dynamic-slice whose result and operand 0 lie in different memory
 *     spaces, or a dynamic-update-slice whose result and operand 0 lie in
 *     the same one and operand 1 in the other, where memory space 5
 *     (layout.memory_space, the :S(5) annotation) is host memory;
 *   0 otherwise;
 *  -1 if the reference fails on this instruction (two communication
 *     instructions under one wrapper, a missing computation or operand, a
 *     cycle of called computations); err says why.
 *
 * When comm == 1, comm_name names the instruction that carries the
 * transfer (the instruction itself or the one found inside), and
 * collective, message_size and collective_size are the columns of the
 * reference's communication frame (analysis.py _get_message_size), unless
 * the reference fails to compute them, in which case collective is NULL
 * and err says why:
 *   collective: the comm_name opcode without "-start" (all-gather,
 *     all-reduce, all-to-all, collective-broadcast, collective-permute,
 *     reduce-scatter), or "device-to-host" / "host-to-device" for host
 *     offloading (destination in memory space 5 or not);
 *   message_size, in bytes: the sum over the operands of comm_name of
 *     product(dimensions) * element width / 8, where the width in bits
 *     follows the PrimitiveType name (analysis.py element_type_width:
 *     PRED and every F8E* type are 8 bits, S4 is 4, BF16 is 16, C64 is
 *     64, ...) and every operand must be a whole number of bytes; for
 *     reduce-scatter each operand's size is divided by collective_size
 *     (NCCL's convention that a reduce-scatter's size is its output
 *     buffer, nccl src/collectives.cc); for host offloading it is the
 *     size of operand 1 (dynamic-update-slice) or of the result
 *     (dynamic-slice) alone;
 *   collective_size, in devices: 2 for collective-permute (pairwise
 *     send/recv, openxla.org operation_semantics), 1 for host offloading,
 *     otherwise the size of the replica groups, taken from the first
 *     encoding present: collective_device_list.replica_groups, the older
 *     replica_groups field, collective_device_list.iota_replica_group_list,
 *     iota_collective_device_list (num_devices_per_group), then
 *     mesh_axes_replica_group_list (product of the sizes of the listed
 *     mesh axes).  Groups of different sizes, sub-axes of a mesh and a
 *     size that is not positive are errors, as in the reference.
 *
 * op_name and scheduling_name come from the instruction's OpMetadata
 * ("" when absent).  Bus-bandwidth factors (nccl-tests PERFORMANCE.md) are
 * not here: they depend only on collective and collective_size.
 */
struct hlo_inst {
	const char *name;
	int64_t id;		/* HloInstructionProto.id: unique_id() */
	const char *opcode;
	const char *op_name;
	const char *scheduling_name;
	int comm;
	const char *comm_name;
	const char *collective;
	int64_t message_size;
	int64_t collective_size;
	const char *err;
};

/*
 * Decode the dump in DATA[0..LEN) and build the instruction table.
 * Returns NULL with an err message ("corrupt HLO protobuf", "HLO protobuf
 * nested too deeply", "no HLO module in protobuf", "duplicate HLO
 * instruction name X", "duplicate HLO instruction id N", "duplicate HLO
 * computation id N") when the dump cannot be read at all; problems that
 * concern one instruction only are recorded in that instruction's err.
 * The caller prefixes the input and member names.
 */
struct hlo_module *hlo_load(const uint8_t *data, size_t len);

/* Release everything; a NULL argument is allowed. */
void hlo_free(struct hlo_module *m);

/*
 * HloModuleProto name (e.g. "pjit__wrapped_step_fn") and id, the
 * program_id of the XlaModule NVTX ranges (module_NNNN in the file name).
 */
const char *hlo_name(const struct hlo_module *m);
int64_t hlo_id(const struct hlo_module *m);

/*
 * The module's ProgramId as the reference remaps it: the
 * "fingerprint_before_lhs" frontend attribute of the module (protobuf.py
 * _remap_program_id, PR #1536), which stays the same across processes.
 * NULL when the attribute is missing or empty (the reference asserts).
 * Modules without a program_id in their XlaModule range (autotuning) are
 * "unknown" in the reference; that rule belongs to the caller.
 */
const char *hlo_program_id(const struct hlo_module *m);

/* Number of instructions, and the I-th in module order (I < hlo_count). */
size_t hlo_count(const struct hlo_module *m);
const struct hlo_inst *hlo_inst(const struct hlo_module *m, size_t i);

/*
 * The instruction named NAME (the hlo_op of a thunk), or NULL with an err
 * message "no HLO instruction NAME" (the reference fails then too; the
 * caller keeps the thunk without metadata, see extract.c).  A hash lookup.
 */
const struct hlo_inst *hlo_find(const struct hlo_module *m, const char *name);

/*
 * The instruction whose HloInstructionProto.id is ID (XLA's unique_id(),
 * the unique_hlo_op_id of thunk ranges since mid-2026), or NULL with an
 * err message "no HLO instruction with id ID".  Ids are unique in a
 * module (hlo_load refuses duplicates), so this is exact where a name
 * might not be.  A hash lookup.
 */
const struct hlo_inst *hlo_find_id(const struct hlo_module *m, int64_t id);

/*
 * A source stack: frame[0..nframe) runs from the outermost Python frame
 * to the innermost, each formatted "file:line[:column][function]" (the
 * column only when non-zero; protobuf.py StackFrame.__str__), followed by
 * the instruction's op_name when that is not empty.
 */
struct hlo_stack {
	size_t nframe;
	const char **frame;
};

/*
 * What the reference's source and op_name flame graphs see of one
 * instruction (Analysis.ipynb instructions_and_frames): the instruction
 * itself and the instructions of the computations it calls directly.
 * Only one level: instructions of computations called from those are not
 * included (the golden proc0 source.folded and op_name.folded match this
 * and not a recursive walk).
 *   stack[0..nstack): the distinct stacks of those instructions that have
 *     a stack frame (the "1st choice" of the source flame graph);
 *   op_name[0..nop_name): their distinct non-empty op_names (the "2nd
 *     choice" of the source flame graph, and the op_name flame graph,
 *     which splits each at '/').
 * Both are in order of first appearance.  Splitting a thunk's time
 * equally over stack[] (or, when empty, over op_name[], or else giving it
 * to "[GPU active];[Unknown]") reproduces the reference's weights.
 * Frames are strings as XLA recorded them; the reference asserts that
 * none contains ';', which is left to the folding code.
 */
struct hlo_src {
	size_t nstack;
	struct hlo_stack *stack;
	size_t nop_name;
	const char **op_name;
};

/*
 * The number of instructions of M whose stack names a frame id beyond
 * the module's stack_frame_index: their own stack_frame_id, or a parent
 * frame's parent_frame_id on the way up.  *MAX_ID is the largest such id
 * (0 when there is none) and *NFRAME the number of frames the index has.
 * hlo_src gives these instructions the frames that exist below the
 * missing one, or none.  Counted by hlo_load, linear in the frames.
 */
size_t hlo_frames_beyond(const struct hlo_module *m, int64_t *max_id,
    size_t *nframe);

/*
 * Fill *OUT for instruction IN of M.  Frames are formatted on first use
 * and kept in M, hence the non-const M; calls on one module must not run
 * concurrently.  A frame id or parent frame id beyond the index ends
 * the stack there (hlo_frames_beyond), never an error.  Returns 0, or -1
 * with an err message when a frame's file location, file name or
 * function name id is out of range ("stack frame id N: file location
 * out of range"; the reference would fail too, or wrap a 0 id around to
 * the last entry), when parent frames form a cycle ("cycle in
 * stack frames at id N"), when a called computation is missing, or when
 * the formatted frames of M would exceed 256 MiB.  Release *OUT with
 * hlo_src_free, also after an error.
 */
int hlo_src(struct hlo_module *m, const struct hlo_inst *in,
    struct hlo_src *out);

/* Release what hlo_src allocated in *S and zero it; NULL is allowed. */
void hlo_src_free(struct hlo_src *s);

/* ---- what the cost rules read (formats/hlocost.h) ---- */

/* An index that names nothing (a missing operand or computation). */
#define HLO_NONE ((size_t)-1)

/*
 * A shape: TYPE is the xla PrimitiveType number (BF16 16, F32 11, TUPLE
 * 13, ...), BITS its element width (hlo.h width rules; -1 for types
 * without one), DIMS[0..NDIMS) its dimensions, TUPLE[0..NTUPLE) its
 * elements when it is a tuple.
 */
struct hlo_shape {
	int type;
	int bits;
	size_t ndims;
	const int64_t *dims;
	size_t ntuple;
	const struct hlo_shape *tuple;
};

/* xla_data.proto DotDimensionNumbers: lhs/rhs contracting, lhs/rhs batch
 * (v[HLO_LHS_CONTRACTING][0..n[HLO_LHS_CONTRACTING]) and so on). */
enum { HLO_LHS_CONTRACTING, HLO_RHS_CONTRACTING, HLO_LHS_BATCH,
	HLO_RHS_BATCH };
struct hlo_dot_dnums {
	size_t n[4];
	const int64_t *v[4];
};

/* xla_data.proto ConvolutionDimensionNumbers (the fields the flop count
 * reads); NSPATIAL entries in each spatial array. */
struct hlo_conv_dnums {
	int64_t input_batch, input_feature, output_feature;
	size_t nspatial;
	const int64_t *input_spatial, *kernel_spatial, *output_spatial;
};

/* xla_data.proto WindowDimension. */
struct hlo_window_dim {
	int64_t size, stride, pad_low, pad_high, window_dilation,
	    base_dilation;
};

/*
 * The fields of one instruction that XLA's HloCostAnalysis reads, as the
 * dump has them (no defaults applied: a group count of 0 means unset).
 * OPERAND[k] and CALLED[k] are resolved to instruction and computation
 * indices of the module (HLO_NONE when the id names nothing; operands
 * are looked up in the whole module, ids being unique in it).  The
 * fields most instructions lack are in X, which points to an all-zero
 * struct (strings "") when the instruction has none of them: a module
 * keeps about 100 bytes of cost facts per instruction.
 * BACKEND_CONFIG[0..BACKEND_CONFIG_LEN) is kept for custom calls only
 * (NULL otherwise): the GPU backend's JSON GpuBackendConfig.
 */
struct hlo_cost_extra {
	int64_t parameter_number, tuple_index;
	const struct hlo_dot_dnums *dot;	/* NULL when absent */
	const struct hlo_conv_dnums *conv;	/* NULL when absent */
	size_t nwindow;
	const struct hlo_window_dim *window;
	int64_t feature_group_count, batch_group_count;
	const char *fusion_kind;	/* "" when absent */
	const char *custom_call_target;	/* "" when absent */
	const char *backend_config;
	size_t backend_config_len;
};

struct hlo_cost_facts {
	struct hlo_shape shape;
	size_t comp;			/* its computation's index */
	size_t noperand, ncalled;
	const size_t *operand, *called;
	const struct hlo_cost_extra *x;
};

/* The cost facts of instruction I (I < hlo_count), and the index of IN,
 * an instruction of M (hlo_inst, hlo_find). */
const struct hlo_cost_facts *hlo_cost_facts(const struct hlo_module *m,
    size_t i);
size_t hlo_index(const struct hlo_module *m, const struct hlo_inst *in);

/*
 * The computations: hlo_ncomps of them, the C-th holding instructions
 * FIRST..FIRST+N in module order, its root instruction ROOT (HLO_NONE
 * when root_id names none of them).
 */
struct hlo_comp_info {
	const char *name;
	size_t first, n, root;
};
size_t hlo_ncomps(const struct hlo_module *m);
void hlo_comp(const struct hlo_module *m, size_t c,
    struct hlo_comp_info *out);

#endif
