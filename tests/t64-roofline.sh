#!/bin/sh
# nsysjax-roofline and the cost columns of the hlo frame: every figure of
# the three tables on hand-made frames (values worked out by hand below),
# peaks from each device source and the overrides, a while body executed
# several times, a command buffer and its inner rows; on the shared
# 4-process run (A100, sm_8.0): three heavy cuBLAS gemms against 2*M*N*K
# from their shapes, and the invariants (no thunk above the peak, MFU in
# [0, 1], the thunks' sums are the module totals); usage and input errors.
set -u
. tests/lib.sh
R=$BIN/nsysjax-roofline
X=$BIN/nsysjax-extract
W=$BIN/nsysjax-warmup
tab=$(printf '\t')

# col FILE NAME KEY...: the value of column NAME in the row of FILE whose
# first fields are KEY... (joined by tabs).
col() {
	_f=$1 _c=$2; shift 2
	awk -F'\t' -v c="$_c" -v k="$*" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i; next }
	{ key = $1; for (i = 2; i <= split(k, _, " "); i++) key = key " " $i }
	key == k { print $n; exit }' "$_f"
}
# near GOT WANT: equal within 1e-9 relative (an empty WANT: GOT empty).
near() {
	awk -v g="$1" -v w="$2" 'BEGIN {
		if (w == "") exit g != ""
		if (g == "") exit 1
		d = g - w; if (d < 0) d = -d; m = w < 0 ? -w : w
		exit !(d <= 1e-9 * m || d == 0) }'
}
is() {
	# is TITLE GOT WANT
	if near "$2" "$3"; then ok; else notok "$1: got '$2', want '$3'"; fi
}

# ---- hand-made frames ----
# A gemm (312 GFLOP, 0.5 GB per execution) run twice for 2 ms, a fusion
# (1000 FLOP, 3 GB) for 4 ms, a custom call XLA cannot cost for 1 ms, a
# thunk with no hlo row (a command buffer) holding an inner row of the
# gemm; peaks: A100 by name (312 TFLOP/s bf16, 19.5 fp32), 1000 GB/s.
{
	printf 'ProgramId\tName\tOpcode\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n'
	printf 'P\tgemm\tcustom-call\t312000000000\t0\t500000000\t312000000000\tbf16\n'
	printf 'P\tadd\tfusion\t1000\t10\t3000000000\t0\t\n'
	printf 'P\ttopk\tcustom-call\t\t\t\t\t\n'
} > "$T/hlo.tsv"
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\tCommandBuffer\n'
	printf 'P\t1\tgemm\t2\t\n'
	printf 'P\t2\tgemm\t2\t\n'
	printf 'P\t1\tadd\t4\t\n'
	printf 'P\t1\ttopk\t1\t\n'
} > "$T/thunk.tsv"
{
	printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\tProjDurMs\n'
	printf 'P\t1\t0\t0\t10\n'
	printf 'P\t1\t1\t1\t10\n'
	printf 'P\t2\t0\t20\t3\n'
} > "$T/module.tsv"
check "three tables" $R -H "$T/hlo.tsv" -M "$T/module.tsv" -g A100-SXM4-40GB \
    --peak-gbps 1000 -t ops,modules,steps -o "$T" "$T/thunk.tsv"
O=$T/roofline-ops.tsv
is "gemm executions" "$(col "$O" Executions P gemm)" 2
is "gemm time" "$(col "$O" TimeMs P gemm)" 4
is "gemm TFLOP/s: 2 x 312e9 / 4 ms" "$(col "$O" TFLOPs P gemm)" 156
is "gemm GB/s: 2 x 0.5e9 / 4 ms" "$(col "$O" GBps P gemm)" 250
is "gemm intensity" "$(col "$O" Intensity P gemm)" 624
is "gemm peak" "$(col "$O" PeakTFLOPs P gemm)" 312
is "gemm MFU: 156 / 312" "$(col "$O" MFU P gemm)" 0.5
is "gemm compute util" "$(col "$O" ComputeUtil P gemm)" 0.5
is "gemm memory util: 250 / 1000" "$(col "$O" MemoryUtil P gemm)" 0.25
[ "$(col "$O" Bound P gemm)" = compute ] && ok || notok "gemm bound"
is "gemm roofline: 2 x max(1 ms, 0.5 ms)" "$(col "$O" RooflineMs P gemm)" 2
[ "$(col "$O" Dtype P gemm)" = bf16 ] && ok || notok "gemm dtype"
is "add TFLOP/s: 1000 / 4 ms" "$(col "$O" TFLOPs P add)" 0.00000025
is "add GB/s: 3e9 / 4 ms" "$(col "$O" GBps P add)" 750
is "add peak: fp32" "$(col "$O" PeakTFLOPs P add)" 19.5
is "add: no matmul, no MFU" "$(col "$O" MFU P add)" ""
[ "$(col "$O" Bound P add)" = memory ] && ok || notok "add bound"
is "add roofline: 3e9 B / 1000 GB/s" "$(col "$O" RooflineMs P add)" 3
is "topk: no cost" "$(col "$O" Flops P topk)" ""
is "topk: no rate" "$(col "$O" TFLOPs P topk)" ""
is "topk: its time" "$(col "$O" TimeMs P topk)" 1
[ "$(sed -n 2p "$O" | cut -f2)" = add ] && ok || notok "ops not by time: $(cut -f2 "$O" | tr '\n' ' ')"
M=$T/roofline-modules.tsv
is "module executions" "$(col "$M" Executions P)" 2
is "module thunks" "$(col "$M" Thunks P)" 4
is "module time" "$(col "$M" TimeMs P)" 9
is "module costed time" "$(col "$M" CostedMs P)" 8
is "module flops" "$(col "$M" Flops P)" 624000001000
is "module matmul flops" "$(col "$M" MatmulFlops P)" 624000000000
is "module TFLOP/s over the costed 8 ms" "$(col "$M" TFLOPs P)" 78.000000125
is "module GB/s: 4e9 / 8 ms" "$(col "$M" GBps P)" 500
is "module MFU: (624e9 / 312e12) / 9 ms" "$(col "$M" MFU P)" 0.2222222222222222
S=$T/roofline-steps.tsv
is "step 1 devices" "$(col "$S" Devices P 1)" 2
is "step 1 wall: 0 .. 11 ms" "$(col "$S" WallMs P 1)" 11
is "step 1 MFU: 1 ms of peak / (11 ms x 2)" "$(col "$S" MFU P 1)" 0.045454545454545456
is "step 2 MFU: 1 ms / 3 ms" "$(col "$S" MFU P 2)" 0.3333333333333333

# Peaks: no device (rates only), --peak-tflops, each device source.
$R -H "$T/hlo.tsv" "$T/thunk.tsv" > "$T/none.tsv" 2> "$T/err"
is "no peak: rates" "$(col "$T/none.tsv" TFLOPs P gemm)" 156
is "no peak: no MFU" "$(col "$T/none.tsv" MFU P gemm)" ""
is "no peak: no roofline" "$(col "$T/none.tsv" RooflineMs P gemm)" ""
$R -H "$T/hlo.tsv" --peak-tflops 624 --peak-gbps 500 "$T/thunk.tsv" > "$T/ov.tsv"
is "--peak-tflops" "$(col "$T/ov.tsv" MFU P gemm)" 0.25
is "--peak-gbps" "$(col "$T/ov.tsv" MemoryUtil P gemm)" 0.5
$R -H "$T/hlo.tsv" -g "NVIDIA H100 80GB HBM3" "$T/thunk.tsv" > "$T/h100.tsv"
is "H100 SXM peak (datasheet 989.4)" "$(col "$T/h100.tsv" PeakTFLOPs P gemm)" 989.4
$R -H "$T/hlo.tsv" -g "NVIDIA H100 PCIe" "$T/thunk.tsv" > "$T/h100p.tsv"
is "H100 PCIe peak (756)" "$(col "$T/h100p.tsv" PeakTFLOPs P gemm)" 756
printf 'gpu_device_info {\n  core_count: 132\n  clock_rate_ghz: 1.83\n  memory_bandwidth: 3352000000000\n  cuda_compute_capability {\n    major: 9\n  }\n}\ndevice_description_str: "NVIDIA Hopper X"\n' > "$T/x.gpu_target_config.pbtxt"
$R -H "$T/hlo.tsv" -d "$T/x.gpu_target_config.pbtxt" "$T/thunk.tsv" > "$T/px.tsv"
is "unknown sm_90 name: 132 SMs x 4096 x 1.83 GHz" "$(col "$T/px.tsv" PeakTFLOPs P gemm)" 989.42976
is "its bandwidth: 3352 GB/s" "$(col "$T/px.tsv" MemoryUtil P gemm)" "$(awk 'BEGIN { printf "%.17g", 250 / 3352 }')"
SQL=$SHARED/data/nsys-sqlite/perlmutter-cloverleaf-cuda.sqlite
if [ -f "$SQL" ]; then
	$R -H "$T/hlo.tsv" -d "$SQL" "$T/thunk.tsv" > "$T/sq.tsv"
	is "TARGET_INFO_GPU: A100-SXM4-80GB, 2039.04 GB/s" "$(col "$T/sq.tsv" MemoryUtil P gemm)" "$(awk 'BEGIN { printf "%.17g", 250 / 2039.04 }')"
	is "TARGET_INFO_GPU: A100 peak" "$(col "$T/sq.tsv" PeakTFLOPs P gemm)" 312
else
	skip "no $SQL"
fi

# A while body: one row per executed thunk; the trip count is the rows'.
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\n'
	for i in 1 2 3 4 5; do printf 'P\t1\tgemm\t1\n'; done
} > "$T/while.tsv"
$R -H "$T/hlo.tsv" -g A100 "$T/while.tsv" > "$T/w.tsv"
is "while body: 5 executions" "$(col "$T/w.tsv" Executions P gemm)" 5
is "while body: 5 x 312e9 / 5 ms" "$(col "$T/w.tsv" TFLOPs P gemm)" 312
is "while body: MFU 1" "$(col "$T/w.tsv" MFU P gemm)" 1

# Command buffers: the buffer's own row has no instruction, its inner
# rows are costed like any thunk.
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\tCommandBuffer\n'
	printf 'P\t1\tcommand_buffer_3\t0.5\tcommand_buffer_3\n'
	printf 'P\t1\tgemm\t4\tcommand_buffer_3\n'
} > "$T/cb.tsv"
$R -H "$T/hlo.tsv" -g A100 -t modules "$T/cb.tsv" > "$T/cbm.tsv"
$R -H "$T/hlo.tsv" -g A100 "$T/cb.tsv" > "$T/cbo.tsv"
is "inner row costed" "$(col "$T/cbo.tsv" TFLOPs P gemm)" 78
is "buffer row: no cost" "$(col "$T/cbo.tsv" Flops P command_buffer_3)" ""
is "module: costed time excludes the buffer's own" "$(col "$T/cbm.tsv" CostedMs P)" 4
is "module time includes it" "$(col "$T/cbm.tsv" TimeMs P)" 4.5

# A collective is no roofline point: an all-gather over 4 devices of
# 1 MB per device, 2 executions of 1 ms exposed + 1 ms hidden each:
# nccl-tests algbw = 4 x 1e6 x 2 B / 4 ms = 2 GB/s, busbw x 3/4 = 1.5
# GB/s, 0.15 of a 10 GB/s link.
{
	printf 'ProgramId\tName\tOpcode\tCommunication\tCollective\tMessageSize\tCollectiveSize\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n'
	printf 'P\tag\tall-gather-start\t1\tall-gather\t1000000\t4\t0\t0\t6000000\t0\t\n'
	printf 'P\tgemm\tcustom-call\t0\t\t\t\t312000000000\t0\t500000000\t312000000000\tbf16\n'
} > "$T/hc.tsv"
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\tProjDurHiddenMs\n'
	printf 'P\t1\tag\t1\t1\n'
	printf 'P\t2\tag\t1\t1\n'
	printf 'P\t1\tgemm\t2\t0\n'
} > "$T/hct.tsv"
$R -H "$T/hc.tsv" -g A100 --peak-link-gbps 10 "$T/hct.tsv" > "$T/hco.tsv"
[ "$(col "$T/hco.tsv" Bound P ag)" = communication ] && ok || notok "collective bound: $(col "$T/hco.tsv" Bound P ag)"
is "collective bus bandwidth (nccl-tests)" "$(col "$T/hco.tsv" BusGBps P ag)" 1.5
is "collective link utilisation" "$(col "$T/hco.tsv" LinkUtil P ag)" 0.15
is "collective: no memory rate" "$(col "$T/hco.tsv" MemoryUtil P ag)" ""
is "collective: no roofline time" "$(col "$T/hco.tsv" RooflineMs P ag)" ""
[ "$(col "$T/hco.tsv" Bound P gemm)" = compute ] && ok || notok "gemm beside a collective"
# Above the HBM bandwidth (3e9 B in 4 ms against 500 GB/s: 1.5): the
# Note says why; below it, none.
# Without a named GPU its L2 is unknown: the Note gives both reasons.
case $(col "$T/ov.tsv" Note P add) in *"XLA's byte count may pass"*L2*) ok ;; *) notok "add above HBM: no note: $(col "$T/ov.tsv" Note P add)" ;; esac
is "gemm below the peaks: no note" "$(col "$T/ov.tsv" Note P gemm)" ""
case $(col "$T/ov.tsv" Note P topk) in "no cost rule") ok ;; *) notok "topk note: $(col "$T/ov.tsv" Note P topk)" ;; esac
is "step UncostedMs: topk's 1 ms" "$(col "$S" UncostedMs P 1)" 1

# Two processes' devices whose step spans 300 ms with executions of at
# most 127 ms, in a module with a collective: clocks not aligned, a
# warning; aligned (starts 1 ms apart), none.
{
	printf 'ProgramId\tProgramExecution\tDevice\tProcess\tProjStartMs\tProjDurMs\n'
	printf 'P\t1\t0\t0\t0\t127\n'
	printf 'P\t1\t1\t1\t173\t127\n'
} > "$T/unal.tsv"
sed 's/\t173\t/\t1\t/' "$T/unal.tsv" > "$T/al.tsv"
$R -H "$T/hc.tsv" -g A100 -M "$T/unal.tsv" -t steps "$T/hct.tsv" > /dev/null 2> "$T/unal.err"
grep -q 'step P/1 spans 300.000 ms over 2 devices whose longest execution is 127.000 ms.*nsysjax-align' "$T/unal.err" &&
    ok || notok "unaligned steps: no warning: $(cat "$T/unal.err")"
$R -H "$T/hc.tsv" -g A100 -M "$T/al.tsv" -t steps "$T/hct.tsv" > /dev/null 2> "$T/al.err"
[ ! -s "$T/al.err" ] && ok || notok "aligned steps warned: $(cat "$T/al.err")"

# The summary's headline says how much of the GPU-busy time has no cost
# rule: topk's 1 ms of the 9 ms of P's steps (11.1%).
mkdir "$T/hd"
cp "$T/hlo.tsv" "$T/thunk.tsv" "$T/hd/"
awk -F'\t' -v OFS='\t' '{ print $0, NR == 1 ? "Name" : "step" }' "$T/module.tsv" > "$T/hd/module.tsv"
printf 'gpu_device_info {\n  core_count: 108\n  clock_rate_ghz: 1.41\n  memory_bandwidth: 1555200000000\n  cuda_compute_capability {\n    major: 8\n    minor: 0\n  }\n}\ndevice_description_str: "NVIDIA A100-SXM4-40GB"\n' > "$T/a100.gpu_target_config.pbtxt"
if NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -s "$T/hd" -d "$T/a100.gpu_target_config.pbtxt" -o "$T/hdo" "$T/hd" 2> "$T/hd.err"; then
	grep -q 'Costed thunks hold 88.9% of its GPU-busy time; 11.1% is in thunks without a cost rule: topk (custom-call, 1.000 ms)' "$T/hdo/summary.txt" &&
	    ok || notok "headline: no uncosted share: $(sed -n 4p "$T/hdo/summary.txt")"
else
	notok "roofline.sh on hand-made frames: $(cat "$T/hd.err")"
fi

# ---- errors ----
expect_error 2 "hlo frame" $R "$T/thunk.tsv"
expect_error 2 "unknown table" $R -H "$T/hlo.tsv" -t nope "$T/thunk.tsv"
expect_error 2 "module frame" $R -H "$T/hlo.tsv" -t steps "$T/thunk.tsv"
expect_error 2 "more than one table" $R -H "$T/hlo.tsv" -M "$T/module.tsv" -t ops,steps "$T/thunk.tsv"
cut -f1-3 "$T/hlo.tsv" > "$T/nocost.tsv"
expect_error 1 "Flops" $R -H "$T/nocost.tsv" "$T/thunk.tsv"
sed 's/^P\tadd\tfusion\t1000/P\tadd\tfusion\t-1000/' "$T/hlo.tsv" > "$T/neg.tsv"
expect_error 1 "negative count" $R -H "$T/neg.tsv" "$T/thunk.tsv"
expect_error 1 "no-such" $R -H "$T/hlo.tsv" -d "$T/no-such" "$T/thunk.tsv"
# Sums of durations past 2^60 ns (twelve rows of 1e12 ms, each one
# within the reader's bound) are refused, never wrapped negative.
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\n'
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf 'P\t1\tadd\t1000000000000\n'; done
} > "$T/ovf.tsv"
expect_error 1 "passes" $R -H "$T/hlo.tsv" -g A100 "$T/ovf.tsv"
printf 'ProgramId\tProgramExecution\tName\tProjDurMs\nP\t1\tadd\t-1\n' > "$T/negd.tsv"
expect_error 1 "negative duration" $R -H "$T/hlo.tsv" "$T/negd.tsv"
printf 'ProgramId\tName\n' > "$T/bad.tsv"
expect_error 1 "missing column" $R -H "$T/hlo.tsv" "$T/bad.tsv"

# ---- what the MFU counts; bounds and notes (A100: 312 TFLOP/s bf16,
# 19.5 fp32, 1555 GB/s, L2 40 MiB) ----
# Module Q, one step on one device over 10 ms: g1 (312 GFLOP of matmul,
# 2 ms: 0.5 of the peak), g2 (624 GFLOP in 1 ms: 2.0, above the peak:
# left out), small (1 MFLOP and 1 MB in 1 ms: 0.00005 of the FP32 peak,
# 0.0006 of the bandwidth: latency), mem (300 MB in 1 ms: 0.19 of the
# bandwidth: memory), l2fit (30 MB in 10 us: 1.9 x HBM, fits the L2),
# l2big (178 MB in 50 us: 2.3 x HBM, more than the L2).
{
	printf 'ProgramId\tName\tOpcode\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n'
	printf 'Q\tg1\tcustom-call\t312000000000\t0\t1000000\t312000000000\tbf16\n'
	printf 'Q\tg2\tcustom-call\t624000000000\t0\t1000000\t624000000000\tbf16\n'
	printf 'Q\tsmall\tfusion\t1000000\t0\t1000000\t0\t\n'
	printf 'Q\tmem\tfusion\t1000\t0\t300000000\t0\t\n'
	printf 'Q\tl2fit\tfusion\t1000\t0\t30000000\t0\t\n'
	printf 'Q\tl2big\tfusion\t1000\t0\t178000000\t0\t\n'
} > "$T/q.hlo"
{
	printf 'ProgramId\tProgramExecution\tName\tProjDurMs\n'
	printf 'Q\t1\tg1\t2\nQ\t1\tg2\t1\nQ\t1\tsmall\t1\nQ\t1\tmem\t1\nQ\t1\tl2fit\t0.01\nQ\t1\tl2big\t0.05\n'
} > "$T/q.thunk"
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\tProjDurMs\nQ\t1\t0\t0\t10\n' > "$T/q.mod"
$R -H "$T/q.hlo" -M "$T/q.mod" -g A100-SXM4-40GB -t ops,modules,steps -o "$T/q" "$T/q.thunk"
is "above the peak: left out of the step MFU (312e9 / 312e12 / 10 ms)" "$(col "$T/q/roofline-steps.tsv" MFU Q 1)" 0.1
is "above the peak: left out of the step's MatmulFlops" "$(col "$T/q/roofline-steps.tsv" MatmulFlops Q 1)" 312000000000
is "above the peak: left out of the GPU-busy MFU (312e9 / 312e12 / 5.06 ms)" "$(col "$T/q/roofline-modules.tsv" MFU Q)" "$(awk 'BEGIN { printf "%.17g", 312e9 / 312e12 / 5.06e-3 }')"
case $(col "$T/q/roofline-ops.tsv" Note Q g2) in *"dense compute peak"*"left out of the MFU"*) ok ;; *) notok "g2: note: $(col "$T/q/roofline-ops.tsv" Note Q g2)" ;; esac
is "g1 below the peak: no note" "$(col "$T/q/roofline-ops.tsv" Note Q g1)" ""
[ "$(col "$T/q/roofline-ops.tsv" Bound Q small)" = latency ] && ok || notok "small: Bound $(col "$T/q/roofline-ops.tsv" Bound Q small), want latency"
[ "$(col "$T/q/roofline-ops.tsv" Bound Q mem)" = memory ] && ok || notok "mem: Bound $(col "$T/q/roofline-ops.tsv" Bound Q mem), want memory"
[ "$(col "$T/q/roofline-ops.tsv" Bound Q g1)" = compute ] && ok || notok "g1: Bound $(col "$T/q/roofline-ops.tsv" Bound Q g1)"
case $(col "$T/q/roofline-ops.tsv" Note Q l2fit) in *"cache-less"*"from L2") ok ;; *) notok "l2fit: note: $(col "$T/q/roofline-ops.tsv" Note Q l2fit)" ;; esac
case $(col "$T/q/roofline-ops.tsv" Note Q l2big) in *"byte count (178.0 MB) exceeds what the kernel can read"*"40 MB L2"*"broadcast"*) ok ;;
	*) notok "l2big: note: $(col "$T/q/roofline-ops.tsv" Note Q l2big)" ;; esac

# ---- command buffers: their operations' FLOPs (cmdbufs.tsv) ----
# Module C, one step of 5 ms: gemm.1 (312 GFLOP of matmul, 2 ms) and
# fusion.2 (1 kFLOP, 1 ms) in command_buffer_1, which also lists its
# loop while.3 (kWhile: its body is listed, its own cost would count it
# twice).  Step MFU 312e9 / 312e12 / 5 ms = 0.2 in each form: plain
# thunks, the buffer traced whole (one row of 3 ms), node by node (the
# buffer's row, 0 ms, and its operations' rows).
{
	printf 'ProgramId\tName\tOpcode\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n'
	printf 'C\tgemm.1\tcustom-call\t312000000000\t0\t1000000\t312000000000\tbf16\n'
	printf 'C\tfusion.2\tfusion\t1000\t0\t1000\t0\t\n'
	printf 'C\twhile.3\twhile\t312000000000\t0\t1000000\t312000000000\tbf16\n'
} > "$T/c.hlo"
printf 'ProgramId\tCommandBuffer\tOperation\tKind\nC\tcommand_buffer_1\twhile.3\tkWhile\nC\tcommand_buffer_1\tgemm.1\tkGemm\nC\tcommand_buffer_1\tfusion.2\tkKernel\n' > "$T/c.cb"
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\tProjDurMs\nC\t1\t0\t0\t5\n' > "$T/c.mod"
H='ProgramId\tProgramExecution\tName\tProjDurMs\tCommandBuffer\n'
printf "${H}C\t1\tgemm.1\t2\t\nC\t1\tfusion.2\t1\t\n" > "$T/c.plain"
printf "${H}C\t1\tcommand_buffer_1\t3\tcommand_buffer_1\n" > "$T/c.graph"
printf "${H}C\t1\tcommand_buffer_1\t0\tcommand_buffer_1\nC\t1\tgemm.1\t2\tcommand_buffer_1\nC\t1\tfusion.2\t1\tcommand_buffer_1\n" > "$T/c.node"
for v in plain graph node; do
	$R -H "$T/c.hlo" -M "$T/c.mod" -C "$T/c.cb" -g A100 -t ops,steps -o "$T/c.$v.o" "$T/c.$v" 2> "$T/c.$v.err" || notok "cmdbufs $v: $(cat "$T/c.$v.err")"
	is "command buffers, $v: step MFU" "$(col "$T/c.$v.o/roofline-steps.tsv" MFU C 1)" 0.2
done
is "command buffer traced whole: its step's UncostedMs" "$(col "$T/c.graph.o/roofline-steps.tsv" UncostedMs C 1)" 0
case $(col "$T/c.graph.o/roofline-ops.tsv" Note C command_buffer_1) in "command buffer: the FLOPs of its operations"*) ok ;;
	*) notok "graph: the buffer's note: $(col "$T/c.graph.o/roofline-ops.tsv" Note C command_buffer_1)" ;; esac
case $(col "$T/c.node.o/roofline-ops.tsv" Note C command_buffer_1) in "command buffer: its operations are rows of their own"*) ok ;;
	*) notok "node: the buffer's note: $(col "$T/c.node.o/roofline-ops.tsv" Note C command_buffer_1)" ;; esac

# ---- mixed GPUs: each process's own (the meta frame) ----
# Module A on process 0 (an A100), module B on process 1 (an H100 SXM):
# a bf16 gemm each, 312 and 989.4 GFLOP, one 10 ms step: 0.1 each at its
# own GPU's peak (B at the A100's would be 0.317).
{
	printf 'ProgramId\tName\tOpcode\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n'
	printf 'A\tgemm\tcustom-call\t312000000000\t0\t1000000\t312000000000\tbf16\n'
	printf 'B\tgemm\tcustom-call\t989400000000\t0\t1000000\t989400000000\tbf16\n'
} > "$T/x.hlo"
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\tProjDurMs\tProcess\nA\t1\t0\t0\t10\t0\nB\t1\t8\t0\t10\t1\n' > "$T/x.mod"
printf 'ProgramId\tProgramExecution\tName\tProjDurMs\tProcess\nA\t1\tgemm\t2\t0\nB\t1\tgemm\t2\t1\n' > "$T/x.thunk"
printf 'ProfileName\tKey\tValue\tSource\na\tGpuName\tNVIDIA A100-SXM4-40GB\tx\na\tComputeCapability\t8.0\tx\nb\tGpuName\tNVIDIA H100 80GB HBM3\tx\nb\tComputeCapability\t9.0\tx\n' > "$T/x.meta"
$R -H "$T/x.hlo" -M "$T/x.mod" --meta "$T/x.meta" -g A100 -t ops,steps -o "$T/x" "$T/x.thunk" 2> "$T/x.err"
is "mixed GPUs: the A100 module's step MFU" "$(col "$T/x/roofline-steps.tsv" MFU A 1)" 0.1
is "mixed GPUs: the H100 module's step MFU" "$(col "$T/x/roofline-steps.tsv" MFU B 1)" 0.1
is "mixed GPUs: the H100 module's peak" "$(col "$T/x/roofline-ops.tsv" PeakTFLOPs B gemm)" 989.4
is "mixed GPUs: the A100 module's peak" "$(col "$T/x/roofline-ops.tsv" PeakTFLOPs A gemm)" 312
# Three profiles of two GPUs for two processes: which is which is not
# known; one warning, the peaks of -g for all.
printf 'c\tGpuName\tNVIDIA H100 80GB HBM3\tx\n' >> "$T/x.meta"
$R -H "$T/x.hlo" -M "$T/x.mod" --meta "$T/x.meta" -g A100 -t steps "$T/x.thunk" > "$T/x3.tsv" 2> "$T/x3.err"
grep -q '3 profiles of several GPUs for 2 processes' "$T/x3.err" && [ "$(wc -l < "$T/x3.err")" -eq 1 ] && ok || notok "3 profiles, 2 processes: $(cat "$T/x3.err")"
is "3 profiles, 2 processes: -g's peaks" "$(col "$T/x3.tsv" MFU A 1)" 0.1
expect_error 2 "--meta needs the module frame" $R -H "$T/x.hlo" --meta "$T/x.meta" "$T/x.thunk"

# ---- the shared 4-process run ----
Z=$DATA/pax_fsdp4_4proc_proc0.zip
if ! [ -f "$Z" ]; then
	skip "no shared data"
	done_testing t64-roofline
	exit
fi
mkdir "$T/fr"
check "extract -o" $X -o "$T/fr" "$Z"
H=$T/fr/hlo.tsv
[ "$(head -1 "$H" | awk -F'\t' '{ print $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF }')" = "Flops Transcendentals BytesAccessed MatmulFlops Dtype" ] &&
    ok || notok "hlo frame: the cost columns are not its last five"
# Three heavy gemms of the step function (module_0040), M, N, K read off
# their operand shapes in the dump (bf16[8192,50304] x bf16[50304,768];
# bf16[48,64,2048] x bf16[48,2048,2048], batch 48; bf16[8192,768] x
# bf16[768,3072]): 2*M*N*K.
P=$(awk -F'\t' '$2 == "custom-call.345.0" { print $1; exit }' "$H")
is "gemm 8192x768, K 50304" "$(col "$H" Flops "$P" custom-call.345.0)" "$(awk 'BEGIN { printf "%.0f", 2 * 8192 * 768 * 50304 }')"
is "batched gemm 48 x 64x2048, K 2048" "$(col "$H" MatmulFlops "$P" custom-call.172.0)" "$(awk 'BEGIN { printf "%.0f", 2 * 48 * 64 * 2048 * 2048 }')"
is "gemm 8192x3072, K 768" "$(col "$H" Flops "$P" custom-call.173.0)" "$(awk 'BEGIN { printf "%.0f", 2 * 8192 * 3072 * 768 }')"
is "gemm bytes: bf16 operands and output" "$(col "$H" BytesAccessed "$P" custom-call.173.0)" "$(awk 'BEGIN { printf "%.0f", 2 * (8192 * 768 + 768 * 3072 + 8192 * 3072) }')"
[ "$(col "$H" Dtype "$P" custom-call.173.0)" = bf16 ] && ok || notok "gemm dtype"
# Steady state, then the tables with the device from the archive.
$W -c "$T/fr/compile.tsv" "$T/fr/thunk.tsv" > "$T/st.tsv" 2> /dev/null
$W -c "$T/fr/compile.tsv" --communication-from "$T/fr/thunk.tsv" "$T/fr/module.tsv" > "$T/sm.tsv" 2> /dev/null
check "tables of the run" $R -H "$H" -M "$T/sm.tsv" -d "$Z" -t ops,modules,steps -o "$T" "$T/st.tsv"
is "A100 from device-metadata.parquet" "$(col "$T/roofline-ops.tsv" PeakTFLOPs "$P" custom-call.345.0)" 312
# No thunk above the A100's peaks (312 TFLOP/s bf16; nothing but bf16
# matmuls here), every row on its own.
awk -F'\t' -v OFS='\t' '
FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
FILENAME == ARGV[1] { f[$c[FILENAME, "ProgramId"], $c[FILENAME, "Name"]] = $c[FILENAME, "Flops"]; next }
{
	k = f[$c[FILENAME, "ProgramId"], $c[FILENAME, "Name"]]; d = $c[FILENAME, "ProjDurMs"]
	if (k != "" && d > 0 && k / (d * 1e-3) > 312e12) { print "above peak:", $0; bad++ }
	n++
}
END { exit bad || n < 1000 }' "$H" "$T/st.tsv" && ok || notok "a thunk above the peak"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["MFU"] != "" && ($c["MFU"] < 0 || $c["MFU"] > 1) { bad++ }
END { exit bad }' "$T/roofline-ops.tsv" "$T/roofline-modules.tsv" "$T/roofline-steps.tsv" &&
    ok || notok "MFU outside [0, 1]"
# Σ over the thunks = the module totals (time, FLOPs, matmul FLOPs).
awk -F'\t' '
FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
FILENAME == ARGV[1] {
	p = $c[FILENAME, "ProgramId"]; e = $c[FILENAME, "Executions"]
	t[p] += $c[FILENAME, "TimeMs"]; fl[p] += e * $c[FILENAME, "Flops"]; mm[p] += e * $c[FILENAME, "MatmulFlops"]; next
}
{
	p = $c[FILENAME, "ProgramId"]; n++
	dt = t[p] - $c[FILENAME, "TimeMs"]; if (dt < 0) dt = -dt
	if (dt > 1e-6 || fl[p] != $c[FILENAME, "Flops"] || mm[p] != $c[FILENAME, "MatmulFlops"]) { print "differs", p; bad++ }
}
END { exit bad || n < 1 }' "$T/roofline-ops.tsv" "$T/roofline-modules.tsv" && ok || notok "thunk sums are not the module totals"
# The GPU kept with the frames (--save-device) reads back the same.
$R -H "$H" -d "$Z" --save-device "$T/fr/device.gpu_target_config.pbtxt" "$T/st.tsv" > "$T/a.tsv"
$R -H "$H" -d "$T/fr/device.gpu_target_config.pbtxt" "$T/st.tsv" > "$T/b.tsv"
grep -q 'device_description_str: "NVIDIA A100-SXM4-40GB"' "$T/fr/device.gpu_target_config.pbtxt" &&
    cmp -s "$T/a.tsv" "$T/b.tsv" && ok || notok "--save-device does not read back the same"
# The pipeline: tables, the summary with the step MFU, the HTML section
# and (with gnuplot) the plot; the GPU from the frames directory.
if NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -o "$T/pl" "$T/fr" 2> "$T/pl.err"; then
	grep -q '^Step MFU of the module with the most matmul FLOPs, [^ ]* ([0-9a-f]*): 0\.2[0-9]*, mean of 3 steps' "$T/pl/summary.txt" &&
	    ok || notok "pipeline: no step MFU line: $(head -4 "$T/pl/summary.txt")"
	[ "$(grep -c '^custom-call\.' "$T/pl/summary.txt")" -ge 4 ] && ok || notok "pipeline: top operations"
	grep -q '<section id="roofline">' "$T/pl/section.html" && ok || notok "pipeline: section.html"
	cmp -s "$T/pl/ops.tsv" "$T/roofline-ops.tsv" && ok || notok "pipeline: ops table differs from the tool's"
	if need gnuplot; then grep -q 'matmul roof (312 TFLOP/s, 1555.2 GB/s)' "$T/pl/roofline.svg" && ok || notok "pipeline: roofline.svg"; fi
else
	notok "pipelines/roofline.sh: $(cat "$T/pl.err")"
fi
# Step MFU of the step function: between 0.1 and 0.5 on this run (about
# 9.2 TFLOP of bf16 matmuls per 127 ms step on one A100).
awk -F'\t' -v p="$P" '$1 == p && $8 > 0.1 && $8 < 0.5 { n++ } END { exit n < 3 }' "$T/roofline-steps.tsv" &&
    ok || notok "step MFU of the step function"

# ---- all four processes of the shared run ----
mkdir "$T/f4"
check "extract -o, 4 processes" $X -o "$T/f4" "$DATA"/pax_fsdp4_4proc_proc0.zip \
    "$DATA"/pax_fsdp4_4proc_proc1.zip "$DATA"/pax_fsdp4_4proc_proc2.zip "$DATA"/pax_fsdp4_4proc_proc3.zip
H4=$T/f4/hlo.tsv
# Bytes by today's XLA rules: an all-gather-start reads its shard (the
# MessageSize) and writes the tuple (shard, gathered) by its leaves,
# 1 + 1 + CollectiveSize shards; an all-reduce-start reads and writes
# its buffer (XLA 2024: 8 bytes per tuple element instead).
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["Opcode"] == "all-gather-start" { n++; if ($c["BytesAccessed"] != (2 + $c["CollectiveSize"]) * $c["MessageSize"]) { print "bytes", $c["Name"], $c["BytesAccessed"]; bad++ } }
$c["Opcode"] == "all-reduce-start" { n++; if ($c["BytesAccessed"] != 2 * $c["MessageSize"]) { print "bytes", $c["Name"], $c["BytesAccessed"]; bad++ } }
END { exit bad || n < 20 }' "$H4" && ok || notok "collective bytes are not XLA's (tuples by their leaves)"
# Reduction initialisers: thunks named after the reduce inside a fusion
# (reduce.N.1, about 2 us before their fusion) do no arithmetic.
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["Opcode"] == "reduce" { n++; if ($c["Flops"] != 0 || $c["MatmulFlops"] != 0) bad++ }
END { exit bad || n < 62 }' "$H4" && ok || notok "reduction initialisers carry FLOPs"
if NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -d "$DATA"/pax_fsdp4_4proc_proc0.zip -o "$T/p4" "$T/f4" 2> "$T/p4.err"; then
	O4=$T/p4/ops.tsv
	# No compute row above its dense peak; above the HBM bandwidth only
	# with the Note that says why (XLA's bytes, L2).
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["Bound"] != "communication" && $c["ComputeUtil"] > 1 { print "above compute peak:", $c["Name"]; bad++ }
	$c["Bound"] != "communication" && $c["MemoryUtil"] > 1 && $c["Note"] !~ /cache-less|exceeds what the kernel can read/ { print "above HBM, no note:", $c["Name"]; bad++ }
	END { exit bad }' "$O4" && ok || notok "4 processes: a row above a peak without a reason"
	# Every collective of the hlo frame is a communication row.
	awk -F'\t' 'FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
	FILENAME == ARGV[1] { if ($c[FILENAME, "Communication"] == 1) comm[$1, $2] = 1; next }
	($1, $2) in comm { n++; if ($c[FILENAME, "Bound"] != "communication" || $c[FILENAME, "BusGBps"] == "") bad++ }
	END { exit bad || n < 20 }' "$H4" "$O4" && ok || notok "4 processes: a collective on the roofline"
	# The top operation of the summary is no collective.
	sed -n '/^Operation /{n;p;q;}' "$T/p4/summary.txt" | grep -qv '^\(all-\|reduce-scatter\|collective-\)' &&
	    ok || notok "summary leads with a collective: $(sed -n '/^Operation /{n;p;q;}' "$T/p4/summary.txt")"
	! grep -q 'not aligned' "$T/p4.err" && ok || notok "pipeline (aligned) warned: $(cat "$T/p4.err")"
	grep -q 'Step MFU of the module with the most matmul FLOPs, pjit__wrapped_step_fn ([0-9a-f]*): 0\.2[0-9]*,' "$T/p4/summary.txt" &&
	    ok || notok "4 processes: step MFU: $(sed -n 4p "$T/p4/summary.txt")"
else
	notok "pipelines/roofline.sh, 4 processes: $(cat "$T/p4.err")"
fi
# Bus bandwidth of one all-gather by the nccl-tests rule, from the raw
# thunk rows: executions x MessageSize x N x (N-1)/N over the exposed and
# hidden time.
$R -H "$H4" -g A100 "$T/f4/thunk.tsv" > "$T/raw4.tsv"
want=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["Collective"] == "all-gather" && k == "" { k = $c["ProgramId"] "\t" $c["Name"] }
$c["ProgramId"] "\t" $c["Name"] == k { n++; b = $c["MessageSize"]; d = $c["CollectiveSize"]; t += $c["ProjDurMs"] + $c["ProjDurHiddenMs"] }
END { printf "%s\t%.17g\n", k, n * b * d * (d - 1) / d / (t * 1e6) }' "$T/f4/thunk.tsv")
got=$(col "$T/raw4.tsv" BusGBps $(printf '%s' "$want" | cut -f1,2 | tr '\t' ' '))
awk -v g="$got" -v w="$(printf '%s' "$want" | cut -f3)" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= 1e-6 * w) }' &&
    ok || notok "all-gather bus bandwidth: got '$got', want '$want'"
# Steps of the 4 processes on their own clocks: the roofline warns.
$W -c "$T/f4/compile.tsv" "$T/f4/thunk.tsv" > "$T/st4.tsv" 2> /dev/null
$W -c "$T/f4/compile.tsv" --communication-from "$T/f4/thunk.tsv" "$T/f4/module.tsv" > "$T/sm4.tsv" 2> /dev/null
$R -H "$H4" -g A100 -M "$T/sm4.tsv" -t steps "$T/st4.tsv" > /dev/null 2> "$T/un4.err"
grep -q 'clocks not aligned.*nsysjax-align' "$T/un4.err" && ok || notok "unaligned 4 processes: no warning: $(cat "$T/un4.err")"
done_testing t64-roofline
