/*
 * roofline: how far each XLA operation runs from what the GPU can do.
 * Rows in (the thunk frame, streamed; the hlo frame's cost columns and
 * the module frame as side tables), three tables out:
 *
 *   ops:     per (ProgramId, Name): executions, time, the cost of one
 *            execution (hlo frame: Flops ... Dtype), achieved TFLOP/s and
 *            GB/s, arithmetic intensity, MFU, the utilisation of compute
 *            and memory, the bound and the time the roofline allows;
 *   modules: per ProgramId: the same sums over its thunks;
 *   steps:   per (ProgramId, ProgramExecution): its wall time over the
 *            devices (module frame) and its MFU.
 *
 * Definitions (units: TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s):
 *   TFLOPs     = executions * Flops / time
 *   GBps       = executions * BytesAccessed / time
 *   Intensity  = Flops / BytesAccessed (FLOP/B)
 *   MFU        = executions * MatmulFlops / time / peak(Dtype), the
 *                "model FLOPs utilisation" of the matrix units
 *   ComputeUtil = TFLOPs / peak of the op: peak(Dtype) for an op with
 *                matmul FLOPs, else the FP32 (CUDA core) peak
 *   MemoryUtil = GBps / peak bandwidth
 *   Bound      = "latency" when ComputeUtil and MemoryUtil are both
 *                below 0.1 (bound by neither roof: launch latency,
 *                synchronisation, a kernel too small for the GPU), else
 *                "compute" if ComputeUtil >= MemoryUtil else "memory"
 *                (XProf's bound_by, the higher utilisation; the same as
 *                comparing Intensity with the ridge point)
 *   RooflineMs = executions * max(Flops / peak, Bytes / bandwidth)
 *   BusGBps, LinkUtil, Note: below
 * A module's or step's MFU sums each dtype's matmul FLOPs at its own
 * peak, each row at its own process's GPU (roofline_map_profiles):
 * sum_d(M_d / peak_d) / time, time being the GPU time of its
 * thunks (modules) or wall time x devices (steps, as PaLM defines MFU:
 * Chowdhery et al. 2022); matmul
 * FLOPs of a dtype with no peak (f64, integers) are left out.  The peak
 * of f32 matmuls is TF32's: XLA's default precision on Ampere and later.
 * An operation above its dense compute peak (ComputeUtil > 1: FLOPs
 * counted for work the kernel does not do) is left out of the MFU of its
 * module and steps, and of their MatmulFlops; its Note says so.
 * Rows whose instruction has no cost (no hlo row, a custom call XLA
 * cannot cost, a command-buffer thunk without roofline_load_cmdbufs)
 * count in TimeMs but not in CostedMs nor in any rate; a step's
 * UncostedMs is their time.  Without
 * a peak, rates are written and MFU, utilisations, Bound and RooflineMs
 * are empty.
 *
 * Collectives (hlo frame: Communication 1) are no roofline points: their
 * time is the link's, not the SMs' nor HBM's.  Their Bound is
 * "communication", their rates and utilisations are empty, and BusGBps
 * is the nccl-tests bus bandwidth of all executions (collectives.h
 * coll_bandwidth: MessageSize x executions over exposed plus hidden
 * time, ProjDurHiddenMs), LinkUtil its fraction of the link's peak when
 * one is given.
 *
 * Bytes are XLA's cache-less model (every operand read from and every
 * output written to HBM once): a kernel whose input the previous kernel
 * just wrote reads it from L2, and its GBps can pass the HBM bandwidth
 * (MemoryUtil > 1).  The Note column says so on such rows whose
 * BytesAccessed fit in the GPU's L2; where they do not, XLA's count is
 * more than the kernel can read (a broadcast operand counts once per
 * use), and the Note says that.  It also says why a row has no cost.
 */
#ifndef NSYSJAX_ROOFLINE_H
#define NSYSJAX_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

struct filter;
struct tsv_reader;
struct tsv_writer;

/* The dtype classes that have a peak of their own. */
enum roofline_class {
	ROOFLINE_BF16,		/* bf16 and f16 tensor cores */
	ROOFLINE_FP8,		/* f8* tensor cores */
	ROOFLINE_TF32,		/* f32 matmuls (tf32 tensor cores) */
	ROOFLINE_FP32,		/* CUDA cores: everything not a matmul */
	ROOFLINE_NCLASS
};

/* The peaks of a device: FLOP/s per class and bytes/s; 0 is unknown. */
struct roofline_peaks {
	double flops[ROOFLINE_NCLASS];
	double bw;
	double link;		/* a link's peak, B/s per direction; 0 unknown */
	double l2;		/* L2 cache, bytes; 0 unknown */
	char gpu[128];		/* the device's name, "" unknown */
	const char *source;	/* where the FLOP/s come from, for notes */
};

/*
 * The peaks of a GPU from what its profile says of it: NAME (e.g.
 * "NVIDIA A100-SXM4-40GB"), SMS streaming multiprocessors, CLOCK_HZ its
 * maximum SM clock, compute capability MAJOR.MINOR, BW its memory
 * bandwidth in B/s (any unknown: 0, or -1 for MAJOR).  A name in the
 * built-in table of dense datasheet values (A100, H100 SXM and PCIe,
 * H200, B200, GB200; sources in roofline.c) gives its FLOP/s; otherwise
 * SMS x FLOP/cycle/SM of its architecture x CLOCK_HZ (XProf's rule, for
 * sm_80, sm_90 and sm_100).  BW, when given, is the board's own and wins
 * over the table's.  Returns 1 when the FLOP/s are known, else 0.
 */
int roofline_peaks_of(const char *name, int64_t sms, double clock_hz,
    int major, int minor, double bw, struct roofline_peaks *out);

/* The class of a Dtype ("bf16" ...), or -1 for one with no peak. */
int roofline_class_of(const char *dtype);

enum roofline_table { ROOFLINE_OPS, ROOFLINE_MODULES, ROOFLINE_STEPS,
	ROOFLINE_NTABLES };

/* The name of table T (an enum roofline_table: "ops", ...; the shape
 * outfile_tables takes), and the table called NAME or -1. */
const char *roofline_table_name(int t);
int roofline_table_parse(const char *name);

struct roofline;

/* A new, empty analysis with peaks P (copied; all 0 for none). */
struct roofline *roofline_new(const struct roofline_peaks *p);
void roofline_free(struct roofline *r);

/*
 * The hlo frame of nsysjax-extract: ProgramId, Name, Opcode and the cost
 * columns Flops, Transcendentals, BytesAccessed, MatmulFlops, Dtype.
 * R is a struct roofline (the shape filter_load takes, as
 * roofline_load_modules).  Returns 0, or -1 with an err message naming
 * the input and line (a missing column, a count that is not a
 * non-negative integer).
 */
int roofline_load_hlo(struct tsv_reader *in, void *r);

/*
 * The module frame (ProgramId, ProgramExecution, Device, ProjStartMs,
 * ProjDurMs), for the steps table.  Returns as roofline_load_hlo.
 */
int roofline_load_modules(struct tsv_reader *in, void *r);

/*
 * The cmdbufs side table of nsysjax-extract (ProgramId, CommandBuffer,
 * Operation, Kind optional): each command buffer's operations, whose
 * costs (from the hlo frame: load it first) sum to the buffer's.
 * Operations of a container kind (kSequential, kWhile, kConditional,
 * kCommandBuffer, kDynamicSlice) are left out: their own operations are
 * rows of the table.  A thunk row of such a buffer with no cost of its
 * own counts its operations' FLOPs and bytes in its module's and step's
 * sums and MFU (not in the ops table: a buffer has no roofline of its
 * own), unless that execution has rows inside the buffer (CommandBuffer
 * the buffer, Name another: a node-level trace, whose rows carry the
 * costs).  Returns as roofline_load_hlo.
 */
int roofline_load_cmdbufs(struct roofline *r, struct tsv_reader *in);

/*
 * The GPUs of a run's processes: roofline_add_profile appends the peaks
 * of the next profile (the meta frame's order, which is the inputs');
 * roofline_map_profiles, after roofline_load_modules and before
 * roofline_read, gives the module frame's processes, in ascending
 * order, the profiles in order (nsys-jax writes one profile per
 * process), so that each thunk row is scored against its own process's
 * GPU; rows of other processes, and every row when no profile is added,
 * against the peaks of roofline_new.  When the profiles are not as many
 * as the processes: all of one GPU, that GPU for every row (returns 0);
 * of several, none mapped, and returns 1 with why in BUF[0..N).
 */
void roofline_add_profile(struct roofline *r, const struct roofline_peaks *p);

/*
 * The meta frame of nsysjax-extract (ProfileName, Key, Value): each
 * profile, in order, added by roofline_add_profile with the peaks of its
 * GpuName (SmCount and ComputeCapability "8.0" where the name is not in
 * the table; roofline_peaks_of), OV's nonzero FLOP/s, bandwidth and link
 * overriding them; a profile without a GPU, or with one of no known
 * peak, or with the GPU of roofline_new's peaks (which may hold the
 * board's measured bandwidth), takes those.  Returns as
 * roofline_load_hlo.
 */
int roofline_load_meta(struct roofline *r, struct tsv_reader *in,
    const struct roofline_peaks *ov);
int roofline_map_profiles(struct roofline *r, char *buf, size_t n);

/*
 * The thunk rows (ProgramId, ProgramExecution, Name, ProjDurMs; Process
 * and CommandBuffer when present), one pass.  Returns 0, or -1 with an
 * err message naming the input and line.
 */
int roofline_read(struct roofline *r, struct filter *in);

/*
 * The steps of the module frame that span clocks not aligned: steps of a
 * module that ran a collective (after roofline_read), on several
 * processes' devices, whose span passes 1.5 x (and 1 ms more than) the
 * longest device's own duration, which one execution cannot.  Returns
 * their number and describes the first in BUF[0..N) ("step P/E spans
 * X ms over D devices whose longest execution is Y ms").
 */
size_t roofline_unaligned(const struct roofline *r, char *buf, size_t n);

/* Write table T (an enum roofline_table) of R (a struct roofline; the
 * shape outfile_tables takes), header first.  Returns 0, or -1 with
 * tsv's message. */
int roofline_write(void *r, int t, struct tsv_writer *w);

#endif
