#!/bin/sh
# XLA command buffers (CUDA graphs) in exports made by
# tests/sqlite/mkexport.c: the CommandBuffer column, graph-level traces
# (CUPTI_ACTIVITY_KIND_GRAPH_TRACE rows are GPU operations), node-level
# traces attributed to the HLO operations of the buffer (by kernel name,
# by the thunk metadata's order, unmatched time, concurrent operations).
# Expected rows are worked out by hand from the planted times in the
# comments; every module's thunk time is checked against what was planted.
set -u
. tests/lib.sh
: "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
X=$BIN/nsysjax-extract
TAB=$(printf '\t')

need_built "$MKEXPORT" t16-cmdbuf

# mk NAME: the export $T/NAME/NAME.sqlite (dump/ beside it) from stdin.
mk() { mkdir -p "$T/$1"; "$MKEXPORT" spec - "$T/$1/$1.sqlite" || notok "mkexport $1"; }

# rows NAME: "Name|ProjStartMs|ProjDurMs|CommandBuffer" of the thunk frame
# of execution 0, sorted by name; the frame in $T/NAME.thunk, notes in
# $T/NAME.err.
rows() {
	$X -f thunk "$T/$1/$1.sqlite" > "$T/$1.thunk" 2> "$T/$1.err" || notok "extract $1: $(cat "$T/$1.err")"
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["ProgramExecution"] == 0 { print $c["Name"] "|" $c["ProjStartMs"] "|" $c["ProjDurMs"] "|" $c["CommandBuffer"] }' \
	    "$T/$1.thunk" | sort
}

# same NAME: stdin (the expected rows) equals rows NAME.
same() {
	cat > "$T/$1.want"
	rows "$1" > "$T/$1.got"
	if cmp -s "$T/$1.want" "$T/$1.got"; then ok; else notok "$1: thunk rows"; diff "$T/$1.want" "$T/$1.got" | head -20; fi
}

# totals NAME MS: every module execution's thunks sum (ProjDurMs +
# ProjDurHiddenMs) to MS, and the module frame's ProjDurMs is unchanged
# by the split (MODMS).
totals() {
	awk -F'\t' -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { s[$c["ProgramExecution"]] += $c["ProjDurMs"] + $c["ProjDurHiddenMs"] }
	    END { n = 0; for (e in s) { n++; if (s[e] < want - 1e-9 || s[e] > want + 1e-9) { print "execution " e ": " s[e] ", want " want; bad = 1 } }
	          if (n == 0) { print "no rows"; bad = 1 }; exit bad }' "$T/$1.thunk"
}
modtotal() {
	$X -f module "$T/$1/$1.sqlite" 2>/dev/null | awk -F'\t' -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["ProjDurMs"] != want { print "module " NR ": " $c["ProjDurMs"] ", want " want; bad = 1 } END { exit bad }'
}

# One module jit_f (program 5) on process 100, thread 100 (the launcher
# of device 0): fusion.0, the command buffer command_buffer_1 (its
# launch: correlation id 2), fusion.6.  Times in ns; the thunk frame is
# in ms.  HLO: every instruction named below.  Thunk metadata (XLA's
# pre-order walk): the buffer, its SequentialThunk, its five thunks, then
# fusion.6, which has a range of its own (so lies outside the buffer).
HEAD='thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 5 jit_f p.0:parameter fusion.0:fusion loop_add_fusion.1:fusion gemm.2:custom-call input_reduce_fusion.3:fusion fusion.7:fusion copy.4:copy fusion.6:fusion'
META='thunkmeta 5 jit_f -:kSequential fusion.0:kKernel command_buffer_1:kCommandBuffer -:kSequential loop_add_fusion.1:kKernel gemm.2:kGemm input_reduce_fusion.3:kKernel fusion.7:kKernel copy.4:kMemset32BitValue fusion.6:kKernel'
# exec B0: module [B0+1000, B0+9000], its ranges and calls; GPU times
# from G0: fusion.0 [G0, G0+100us], the buffer's work from G0+200us,
# fusion.6 [G0+900us, G0+1000us].
exec_ranges() {
	b=$1 g=$2 id=$3
	echo "nvtx $id 59 0x1000064000064 $((b + 1000)) $((b + 9000)) - 1 XlaModule:#hlo_module=jit_f,program_id=5#
nvtx $((id + 1)) 59 0x1000064000064 $((b + 1100)) $((b + 1200)) - 1 Thunk:#hlo_op=fusion.0#
nvtx $((id + 2)) 59 0x1000064000064 $((b + 1300)) $((b + 1500)) - 1 Thunk:#hlo_op=command_buffer_1#
nvtx $((id + 3)) 59 0x1000064000064 $((b + 1600)) $((b + 1700)) - 1 Thunk:#hlo_op=fusion.6#
call 0x1000064000064 $((b + 1150)) $((b + 1160)) $((id + 1)) 0
kernel $g $((g + 100000)) $((id + 1)) 0x1000064000000 0 7 - fusion_0
call 0x1000064000064 $((b + 1400)) $((b + 1410)) $((id + 2)) 0
call 0x1000064000064 $((b + 1650)) $((b + 1660)) $((id + 3)) 0
kernel $((g + 900000)) $((g + 1000000)) $((id + 3)) 0x1000064000000 0 7 - fusion_6"
}
# The buffer's graph, node-level (graphNodeId set, the launch's
# correlation id), from G = G0 + 200us:
#   [G, +100]      loop_add_fusion_1            name  -> loop_add_fusion.1
#   [+100, +300]   sm90_xmma_gemm_f32f32        order -> gemm.2
#   [+300, +320]   splitKreduce_kernel          order -> gemm.2 (one thunk
#                                               between: all of the run)
#   (a 30us gap)
#   [+350, +450]   input_reduce_fusion_3_kernel name+suffix -> input_reduce_fusion.3
#   [+450, +500]   unknown_kernel               between two named
#                                               neighbours: unmatched
#   [+500, +600]   fusion_7                     name  -> fusion.7
#   [+600, +610]   memset                       order -> copy.4
# Buffer: [G, G+610] = 610us; inner spans 100 + 220 + 100 + 100 + 10 =
# 530us; the buffer's row keeps the unknown kernel's 50us: the 30us gap
# is idle (no thunk held the GPU), as between thunks.
node_ops() {
	g=$(($1 + 200000)) c=$2
	echo "kernel $g $((g + 100000)) $c 0x1000064000000 0 7 31 loop_add_fusion_1
kernel $((g + 100000)) $((g + 300000)) $c 0x1000064000000 0 7 32 sm90_xmma_gemm_f32f32
kernel $((g + 300000)) $((g + 320000)) $c 0x1000064000000 0 7 33 splitKreduce_kernel
kernel $((g + 350000)) $((g + 450000)) $c 0x1000064000000 0 7 34 input_reduce_fusion_3_kernel
kernel $((g + 450000)) $((g + 500000)) $c 0x1000064000000 0 7 35 unknown_kernel
kernel $((g + 500000)) $((g + 600000)) $c 0x1000064000000 0 7 36 fusion_7
memset $((g + 600000)) $((g + 610000)) $c 0x1000064000000 0 7 37"
}
# Two executions: at CPU 0 / GPU 10 ms and CPU 100000 / GPU 20 ms.
{ echo "$HEAD"; echo "$META"; exec_ranges 0 10000000 10; node_ops 10000000 12
  exec_ranges 100000 20000000 20; node_ops 20000000 22; } | mk node
same node <<'W'
command_buffer_1|10.2|0.05|command_buffer_1
copy.4|10.8|0.01|command_buffer_1
fusion.0|10|0.1|
fusion.6|10.9|0.1|
fusion.7|10.7|0.1|command_buffer_1
gemm.2|10.3|0.22|command_buffer_1
input_reduce_fusion.3|10.55|0.1|command_buffer_1
loop_add_fusion.1|10.2|0.1|command_buffer_1
W
# Each execution: 100 + (530 + 50) + 100 us of thunk time (the GPU's
# busy time: 810 us of spans less the 30 us gap); the module 1 ms.
check "node: thunk time per execution as planted" totals node 0.78
check "node: module time unchanged" modtotal node 1
# 14 graph operations, 2 unmatched (unknown_kernel): 100 of 1160 us.
grep -q "node.sqlite: command buffers: 2 of 14 graph operations (8.6% of their GPU time) match no HLO operation" "$T/node.err" &&
    [ "$(wc -l < "$T/node.err")" -eq 1 ] && ok || notok "node: the note: $(cat "$T/node.err")"
# Inner rows are HLO instructions: the hlo frame has them (not the buffer).
$X -f hlo "$T/node/node.sqlite" 2>/dev/null | cut -f2,3 | sort > "$T/node.hlo"
printf 'Name\tOpcode\ncopy.4\tcopy\nfusion.0\tfusion\nfusion.6\tfusion\nfusion.7\tfusion\ngemm.2\tcustom-call\ninput_reduce_fusion.3\tfusion\nloop_add_fusion.1\tfusion\n' | sort > "$T/node.hlo.want"
check "node: hlo frame" cmp "$T/node.hlo.want" "$T/node.hlo"
# -f nvtx is the projection, not split: the buffer's range keeps its
# whole graph (610us) and one GPU operation (one launch).
$X -f nvtx "$T/node/node.sqlite" 2>/dev/null | awk -F'\t' '$1 ~ /command_buffer_1/ && $2 == 10200000 { print $3, $9 }' > "$T/node.nvtx"
[ "$(cat "$T/node.nvtx")" = "610000 1" ] && ok || notok "node: nvtx row of the buffer: $(cat "$T/node.nvtx")"

# XLA creates the graph's nodes during the buffer's first execution, so
# node-level capture-time attribution gives that range every later
# launch's kernels too (the nvtx frame shows it: the range spans both
# executions, 10.2 to 20.81 ms, 2 launches).  The thunk frame keeps each
# execution's own launch: the same rows as above, and a note.
{ echo "$HEAD"; echo "$META"; exec_ranges 0 10000000 10; node_ops 10000000 12
  # originals 11..17 created inside the first buffer range, instantiated
  # as the clones 31..37 the kernels carry
  for k in 31 32 33 34 35 36 37; do echo "node 0x1000064000064 $((1420 + k)) $((1421 + k)) $((k - 20)) -
node 0x1000064000064 1480 1481 $k $((k - 20))"; done
  exec_ranges 100000 20000000 20; node_ops 20000000 22; } | mk capture
same capture < "$T/node.want"
check "capture: thunk time per execution as planted" totals capture 0.78
$X -f nvtx "$T/capture/capture.sqlite" 2>/dev/null | awk -F'\t' '$1 ~ /command_buffer_1/ && $2 == 10200000 { print $3, $9 }' > "$T/capture.nvtx"
[ "$(cat "$T/capture.nvtx")" = "10610000 2" ] && ok || notok "capture: nvtx row of the first buffer: $(cat "$T/capture.nvtx")"
grep -q "capture.sqlite: 1 command-buffer rows also had the operations of other launches" "$T/capture.err" && ok ||
    notok "capture: note: $(cat "$T/capture.err")"

# Without the thunk metadata: the buffer is known by its name, and only
# kernel names match (every HLO instruction a candidate): loop_add_fusion.1,
# input_reduce_fusion.3, fusion.7; the buffer keeps the busy time of the
# others: gemm and splitK [+100, +320], unknown_kernel 50, the memset 10:
# 280us (the 30us gap is idle).
{ echo "$HEAD"; exec_ranges 0 10000000 10; node_ops 10000000 12; } | mk nometa
same nometa <<'W'
command_buffer_1|10.2|0.28|command_buffer_1
fusion.0|10|0.1|
fusion.6|10.9|0.1|
fusion.7|10.7|0.1|command_buffer_1
input_reduce_fusion.3|10.55|0.1|command_buffer_1
loop_add_fusion.1|10.2|0.1|command_buffer_1
W
check "nometa: thunk time as planted" totals nometa 0.78
# unmatched: 200 + 20 + 50 + 10 = 280 of 580 us.
grep -q "4 of 7 graph operations (48.3% of their GPU time)" "$T/nometa.err" && ok || notok "nometa: the note: $(cat "$T/nometa.err")"

# Graph-level trace (nsys's default): the launch is one
# CUPTI_ACTIVITY_KIND_GRAPH_TRACE row [G, G+610us] with the launch's
# correlation id; the buffer's row carries all of it, no inner rows, and
# one note says how to see inside.
{ echo "$HEAD"; echo "$META"; exec_ranges 0 10000000 10
  echo "graph 10200000 10810000 12 0x1000064000000 0 7 1"; } | mk graph
same graph <<'W'
command_buffer_1|10.2|0.61|command_buffer_1
fusion.0|10|0.1|
fusion.6|10.9|0.1|
W
check "graph: thunk time as planted" totals graph 0.81
[ "$(grep -c 'command_buffer_1.*whole graph.*nsysjax-profile' "$T/graph.err")" = 1 ] &&
    [ "$(wc -l < "$T/graph.err")" -eq 1 ] && ok || notok "graph: stderr $(cat "$T/graph.err")"
$X -f nvtx "$T/graph/graph.sqlite" > "$T/graph.nvtx" 2>&1
printf 'TSL:XlaModule:#hlo_module=jit_f,program_id=5#|10000000|1000000|3\nTSL:Thunk:#hlo_op=fusion.0#|10000000|100000|1\nTSL:Thunk:#hlo_op=command_buffer_1#|10200000|610000|1\nTSL:Thunk:#hlo_op=fusion.6#|10900000|100000|1\n' > "$T/graph.nvtx.want"
awk -F'\t' 'NR > 1 { print $1 "|" $2 "|" $3 "|" $9 }' "$T/graph.nvtx" | cmp -s - "$T/graph.nvtx.want" && ok ||
    notok "graph: nvtx frame $(cat "$T/graph.nvtx")"
# The same export without the graph-trace table: the buffer projects to
# nothing (what nsysjax did before), its row is absent.
{ echo "$HEAD"; echo "$META"; exec_ranges 0 10000000 10; } | mk nograph
rows nograph | grep -q command_buffer && notok "nograph: a buffer row without GPU work" || ok

# Concurrent operations (two streams; XLA's kConcurrentRegions): order
# says nothing, names still match.  Execution 0 from G = 10.2 ms:
#   loop_add_fusion_1 [G, +100] stream 7, fusion_7 [+50, +150] stream 8,
#   sm90_xmma_gemm [+100, +200] stream 7 (unmatched: no order rule)
#   buffer [G, G+200]: inner rows 100 + 100, the buffer keeps the gemm's
#   100.
# Execution 1 from G = 20.2 ms: loop_add_fusion_1 [G, +150], fusion_7
#   [+50, +200]: inner rows 150 + 150 (overlapping, as the two thunks'
#   ranges would without command buffers), the buffer keeps 0.
conc_ops() {
	g=$(($1 + 200000)) c=$2
	echo "kernel $g $((g + $3)) $c 0x1000064000000 0 7 31 loop_add_fusion_1
kernel $((g + 50000)) $((g + $4)) $c 0x1000064000000 0 8 36 fusion_7"
	[ "$5" = gemm ] && echo "kernel $((g + 100000)) $((g + 200000)) $c 0x1000064000000 0 7 32 sm90_xmma_gemm_f32f32"
	:
}
{ echo "$HEAD"; echo "$META"; exec_ranges 0 10000000 10; conc_ops 10000000 12 100000 150000 gemm
  exec_ranges 100000 20000000 20; conc_ops 20000000 22 150000 200000 -; } | mk conc
same conc <<'W'
command_buffer_1|10.2|0.1|command_buffer_1
fusion.0|10|0.1|
fusion.6|10.9|0.1|
fusion.7|10.25|0.1|command_buffer_1
loop_add_fusion.1|10.2|0.1|command_buffer_1
W
check "conc: thunk time as planted" totals conc 0.5
$X -f thunk "$T/conc/conc.sqlite" 2>/dev/null | awk -F'\t' '$2 == 1 && $18 != "" { print $3 "|" $8 }' | sort > "$T/conc.1"
printf 'command_buffer_1|0\nfusion.7|0.15\nloop_add_fusion.1|0.15\n' | cmp -s - "$T/conc.1" && ok ||
    notok "conc: execution 1 split: $(cat "$T/conc.1")"
# 5 operations: 1 unmatched (100us) of 600us.
grep -q "1 of 5 graph operations (16.7% of their GPU time)" "$T/conc.err" &&
    [ "$(wc -l < "$T/conc.err")" -eq 1 ] && ok || notok "conc: notes: $(cat "$T/conc.err")"

# A collective inside a buffer (placed by order: the NCCL kernel has its
# library's name): all-reduce [10.0, 10.3] ms, fusion_1 [10.3, 10.4], a
# 200us gap, fusion_3 [10.6, 10.7].  Every operation is matched: the
# buffer keeps 0 (the gap is idle), which is no interval: it hides
# nothing of the all-reduce (ProjDurHiddenMs 0, the whole 0.3 ms
# exposed).
{ echo "thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 5 jit_f fusion.1:fusion all-reduce.2:all-reduce fusion.3:fusion
thunkmeta 5 jit_f command_buffer_1:kCommandBuffer -:kSequential all-reduce.2:kNcclAllReduce fusion.1:kKernel fusion.3:kKernel
nvtx 2 59 0x1000064000064 1000 9000 - 1 XlaModule:#hlo_module=jit_f,program_id=5#
nvtx 4 59 0x1000064000064 1300 1500 - 1 Thunk:#hlo_op=command_buffer_1#
call 0x1000064000064 1400 1410 2 0
kernel 10000000 10300000 2 0x1000064000000 0 7 32 ncclDevKernel_AllReduce_Sum_f32_RING_LL
kernel 10300000 10400000 2 0x1000064000000 0 7 31 fusion_1
kernel 10600000 10700000 2 0x1000064000000 0 7 33 fusion_3"; } | tee "$T/comm.spec" | mk comm
same comm <<'W'
all-reduce.2|10|0.3|command_buffer_1
command_buffer_1|10|0|command_buffer_1
fusion.1|10.3|0.1|command_buffer_1
fusion.3|10.6|0.1|command_buffer_1
W
awk -F'\t' '$3 == "all-reduce.2" { print $13, $14 }' "$T/comm.thunk" | grep -qx "1 0" && ok || notok "comm: hidden time of the all-reduce: $(cat "$T/comm.thunk")"
check "comm: thunk time as planted" totals comm 0.5
# Compute that overlaps itself (two streams): all-reduce.2 [10.0, 10.4]
# ms, fusion.1 [10.05, 10.3] and fusion.3 [10.1, 10.45], each a thunk of
# its own.  The all-reduce is hidden by their union, [10.05, 10.4]: 0.35
# ms hidden, 0.05 exposed.  The reference's sum of overlaps (0.25 + 0.3)
# would hide 0.55 ms of a 0.4 ms collective: ProjDurMs -0.15.
{ echo "thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 6 jit_g fusion.1:fusion all-reduce.2:all-reduce fusion.3:fusion
nvtx 2 59 0x1000064000064 1000 9000 - 1 XlaModule:#hlo_module=jit_g,program_id=6#
nvtx 3 59 0x1000064000064 1100 1200 - 1 Thunk:#hlo_op=all-reduce.2#
call 0x1000064000064 1110 1120 2 0
nvtx 4 59 0x1000064000064 1300 1400 - 1 Thunk:#hlo_op=fusion.1#
call 0x1000064000064 1310 1320 3 0
nvtx 5 59 0x1000064000064 1500 1600 - 1 Thunk:#hlo_op=fusion.3#
call 0x1000064000064 1510 1520 4 0
kernel 10000000 10400000 2 0x1000064000000 0 7 - ncclDevKernel_AllReduce_Sum_f32_RING_LL
kernel 10050000 10300000 3 0x1000064000000 0 8 - fusion_1
kernel 10100000 10450000 4 0x1000064000000 0 9 - fusion_3"; } | mk streams
rows streams > /dev/null
awk -F'\t' '$3 == "all-reduce.2" { print $8, $13, $14 }' "$T/streams.thunk" | grep -qx "0.05 1 0.35" && ok ||
    notok "streams: the all-reduce's exposed and hidden time: $(cat "$T/streams.thunk")"
# The same profile twice (the twin has one thread more, so its bytes
# differ): device 0 is in both.  The workers' parts merge into -j 0's
# bytes (merge.h merge_shared_begin): the split buffer hides nothing of
# either all-reduce, though both profiles' buffers overlap both, and
# each thunk runs twice in execution 0 (ThunkExecution 0 and 1).
{ cat "$T/comm.spec"; echo "thread 0x1000064000065 python"; } | mk twin
# (The communication frame needs the collective's size, which this HLO
# does not give.)
for f in thunk module; do
	for j in 0 2; do
		$X -j $j -f $f "$T/comm/comm.sqlite" "$T/twin/twin.sqlite" > "$T/twin$j.$f" 2> /dev/null ||
			notok "twins -j $j -f $f"
	done
	check "twins: -j 2 gives -j 0's $f frame" cmp "$T/twin0.$f" "$T/twin2.$f"
done
awk -F'\t' '$3 == "all-reduce.2" { print $4, $13, $14 }' "$T/twin2.thunk" | sort > "$T/twin.ar"
printf '0 1 0\n1 1 0\n' | cmp -s - "$T/twin.ar" && ok || notok "twins: the all-reduces: $(cat "$T/twin.ar")"

# The name rule alone: command_buffer.3 (no metadata) is a buffer,
# command_buffer_x is not; a metadata kind other than kCommandBuffer
# wins over the name.
{ echo "thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 5 jit_f command_buffer_x:fusion command_buffer_7:fusion
thunkmeta 5 jit_f command_buffer_7:kKernel
nvtx 2 59 0x1000064000064 1000 9000 - 1 XlaModule:#hlo_module=jit_f,program_id=5#
nvtx 3 59 0x1000064000064 1100 1200 - 1 Thunk:#hlo_op=command_buffer.3#
nvtx 4 59 0x1000064000064 1300 1400 - 1 Thunk:#hlo_op=command_buffer_x#
nvtx 5 59 0x1000064000064 1500 1600 - 1 Thunk:#hlo_op=command_buffer_7#
call 0x1000064000064 1150 1160 1 0
graph 10000000 10100000 1 0x1000064000000 0 7 1
call 0x1000064000064 1350 1360 2 0
kernel 10200000 10300000 2 0x1000064000000 0 7 - command_buffer_x
call 0x1000064000064 1550 1560 3 0
kernel 10400000 10500000 3 0x1000064000000 0 7 - command_buffer_7"; } | mk names
same names <<'W'
command_buffer.3|10|0.1|command_buffer.3
command_buffer_7|10.4|0.1|
command_buffer_x|10.2|0.1|
W

# The thunk metadata xz-compressed (as nsys-jax stores dumps) gives the
# same rows; a metadata dump that does not decode costs the order rule
# (one note), never the run.
if need xz; then
	mkdir -p "$T/nodexz"; cp "$T/node/node.sqlite" "$T/nodexz/nodexz.sqlite"; cp -R "$T/node/dump" "$T/nodexz/"
	xz "$T/nodexz/dump/module_0005.jit_f.thunk_metadata.pb"
	rows node > "$T/a"; rows nodexz > "$T/b"
	check "thunk metadata .pb.xz" cmp "$T/a" "$T/b"
fi
mkdir -p "$T/badmeta"; cp "$T/node/node.sqlite" "$T/badmeta/badmeta.sqlite"; cp -R "$T/node/dump" "$T/badmeta/"
printf '\010\005' > "$T/badmeta/dump/module_0005.jit_f.thunk_metadata.pb"
rows badmeta > "$T/badmeta.got"
rows nometa | grep -v '^fusion\.[06]' > "$T/a"; grep -v '^fusion\.[06]' "$T/badmeta.got" > "$T/b"
check "bad thunk metadata: names only" cmp "$T/a" "$T/b"
grep -q "thunk_metadata.pb: thunk metadata: field 1 is no message (not a ThunkMetadataListProto): command buffers of module jit_f recognised by name, matched without order" "$T/badmeta.err" &&
    ok || notok "bad thunk metadata: note: $(cat "$T/badmeta.err")"

# An nsys-jax archive without command buffers: the column is there, empty.
if have_data; then
	$X -f thunk "$DATA/pax_fsdp4_4proc_proc0.zip" 2>/dev/null | awk -F'\t' 'NR == 1 { ok = $NF == "CommandBuffer"; next } $NF != "" { ok = 0 } END { exit !ok }' &&
	    ok || notok "archive: CommandBuffer last and empty"
else
	skip "archive without command buffers: $DATA not found"
fi

# An nsys-jax archive (the example run, rank0) with XLA's thunk metadata
# of jit_init (xz-compressed, as nsys-jax stores dumps) that calls
# loop_convert_fusion a command buffer: its rows are marked, get no
# Communication value and no hlo row; every other field is unchanged.
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
if [ -x "$MKEXAMPLE" ] && need xz; then
	"$MKEXAMPLE" "$T/ex" > /dev/null 2>&1 || notok "mkexample"
	$X -f thunk "$T/ex/rank0" > "$T/ex.before" 2>/dev/null
	echo "thunkmeta 3 jit_init loop_broadcast_fusion:kKernel loop_convert_fusion:kCommandBuffer -:kSequential" | mk exmeta
	xz -c "$T/exmeta/dump/module_0003.jit_init.thunk_metadata.pb" > "$T/ex/rank0/dump/module_0003.jit_init.thunk_metadata.pb.xz"
	$X -f thunk "$T/ex/rank0" > "$T/ex.after" 2> "$T/ex.err" || notok "archive with thunk metadata: $(cat "$T/ex.err")"
	P=$($X -f module "$T/ex/rank0" 2>/dev/null | awk -F'\t' '$4 == "jit_init" { print $1; exit }')
	awk -F'\t' -v OFS='\t' -v P="$P" 'FNR > 1 && $1 == P && $3 == "loop_convert_fusion" { $NF = $3; $13 = "" } { print }' \
	    "$T/ex.before" > "$T/ex.want"
	cmp -s "$T/ex.want" "$T/ex.after" && ok || { notok "archive: thunk metadata marks"; diff "$T/ex.want" "$T/ex.after" | head -5; }
	[ -n "$P" ] && grep -q "^$P${TAB}.*${TAB}loop_convert_fusion\$" "$T/ex.after" && ok || notok "archive: no marked row"
	$X -f hlo "$T/ex/rank0" 2>/dev/null | grep -q "^$P${TAB}loop_convert_fusion${TAB}" && notok "archive: a command buffer in the hlo frame" || ok
else
	skip "archive with thunk metadata: no $MKEXAMPLE or xz"
fi

# Workers and merge pass the column through: -j 2 over two exports equals
# one extraction.
mkdir -p "$T/j0" "$T/j2"
$X -j 0 -o "$T/j0" "$T/node/node.sqlite" "$T/conc/conc.sqlite" 2>/dev/null &&
    $X -j 2 -o "$T/j2" "$T/node/node.sqlite" "$T/conc/conc.sqlite" 2>/dev/null &&
    cmp -s "$T/j0/thunk.tsv" "$T/j2/thunk.tsv" && ok || notok "-j 2 thunk frame differs from -j 0"

# ---- repeats and idle time inside a buffer, against the same run
# traced without command buffers ----
# Module jit_r (program 8): the buffer command_buffer_2 holds a loop
# (while.3, kWhile) whose body copy_fusion XLA runs 8 times, gemm.1 (a
# cuBLAS call: two kernels) and
# add.2; fusion.9 runs after it with a range of its own.  Execution E
# (0, 1, 2): CPU from B = E * 100 us, GPU from G = 10 ms + E * 10 ms (ns):
#   copy_fusion i = 0..7   [G + 3000i, +2400]   (600 idle after each)
#   cublas_gemm, splitK    [G+25000, +5000], [G+30000, +500]
#   add_2                  [G+31000, +2000]
#   fusion_9               [G+40000, +2000]
# Without command buffers each execution of an operation is a thunk
# range of its own (copy_fusion ThunkExecution 0-7), so per execution
# 8 x 2400 + 5500 + 2000 + 2000 = 28700 ns of thunk time.  With them,
# XLA's warm-up runs execution 0 as plain thunks whose ranges nest in
# the buffer's; executions 1 and 2 launch the graph (one call, every
# operation with a graph node and the launch's correlation id).  The
# buffer spans [G, G+33000]: 33000 ns, of which 2100 idle.
RHEAD='thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 8 jit_r copy_fusion:fusion gemm.1:custom-call add.2:fusion fusion.9:fusion
thunkmeta 8 jit_r command_buffer_2:kCommandBuffer -:kSequential while.3:kWhile copy_fusion:kKernel gemm.1:kGemm add.2:kKernel fusion.9:kKernel'
GT=0x1000064000064 GP=0x1000064000000
# rep_exec E FORM: plain (no buffer), warm (plain thunks in the buffer's
# range) or graph.
rep_exec() {
	b=$(($1 * 100000)) g=$((10000000 + $1 * 10000000)) id=$((100 * $1 + 10))
	echo "nvtx $id 59 $GT $((b + 1000)) $((b + 90000)) - 1 XlaModule:#hlo_module=jit_r,program_id=8#"
	[ "$2" = plain ] || echo "nvtx $((id + 1)) 59 $GT $((b + 1300)) $((b + 1500)) - 1 Thunk:#hlo_op=command_buffer_2#"
	if [ "$2" = graph ]; then
		c=$((id + 1)) node=41
		echo "call $GT $((b + 1400)) $((b + 1410)) $c 0"
	fi
	# the operations: k 0..9 (8 copies, the gemm, add.2)
	for k in 0 1 2 3 4 5 6 7 8 9; do
		if [ "$2" != graph ]; then
			c=$((id + 2 + k)) node=-
			case $k in 8) op=gemm.1 ;; 9) op=add.2 ;; *) op=copy_fusion ;; esac
			echo "nvtx $c 59 $GT $((b + 1310 + 15 * k)) $((b + 1320 + 15 * k)) - 1 Thunk:#hlo_op=$op#"
			echo "call $GT $((b + 1312 + 15 * k)) $((b + 1314 + 15 * k)) $c 0"
		fi
		case $k in
		8) echo "kernel $((g + 25000)) $((g + 30000)) $c $GP 0 7 $node cublas_gemm"
		   [ "$node" = - ] || node=$((node + 1))
		   echo "kernel $((g + 30000)) $((g + 30500)) $c $GP 0 7 $node splitKreduce_kernel" ;;
		9) echo "kernel $((g + 31000)) $((g + 33000)) $c $GP 0 7 $node add_2" ;;
		*) echo "kernel $((g + 3000 * k)) $((g + 3000 * k + 2400)) $c $GP 0 7 $node copy_fusion" ;;
		esac
		[ "$node" = - ] || node=$((node + 1))
	done
	echo "nvtx $((id + 20)) 59 $GT $((b + 1600)) $((b + 1700)) - 1 Thunk:#hlo_op=fusion.9#
call $GT $((b + 1650)) $((b + 1660)) $((id + 20)) 0
kernel $((g + 40000)) $((g + 42000)) $((id + 20)) $GP 0 7 - fusion_9"
}
{ echo "$RHEAD"; rep_exec 0 warm; rep_exec 1 graph; rep_exec 2 graph; } | mk rep
{ echo "$RHEAD"; rep_exec 0 plain; rep_exec 1 plain; rep_exec 2 plain; } | mk plain
# Execution 1 with command buffers: a row per execution of copy_fusion
# (ThunkExecution 0-7, 2.4 us each, 3 us apart), gemm.1 over its two
# kernels, add.2; the buffer keeps 0 (every operation matched: its 2100
# idle ns are idle).  "Name|ThunkExecution|ProjStartMs|ProjDurMs".
r1() {
	$X -f thunk "$T/$1/$1.sqlite" 2> "$T/$1.err" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["ProgramExecution"] == '"$2"' { print $c["Name"] "|" $c["ThunkExecution"] "|" $c["ProjStartMs"] "|" $c["ProjDurMs"] }'
}
r1 rep 1 > "$T/rep.1"
cat > "$T/rep.1.want" <<'W'
add.2|0|20.031|0.002
command_buffer_2|0|20|0
copy_fusion|0|20|0.0024
copy_fusion|1|20.003|0.0024
copy_fusion|2|20.006|0.0024
copy_fusion|3|20.009|0.0024
copy_fusion|4|20.012|0.0024
copy_fusion|5|20.015|0.0024
copy_fusion|6|20.018|0.0024
copy_fusion|7|20.021|0.0024
fusion.9|0|20.04|0.002
gemm.1|0|20.025|0.0055
W
if cmp -s "$T/rep.1.want" "$T/rep.1"; then ok; else notok "rep: execution 1's rows"; diff "$T/rep.1.want" "$T/rep.1" | head; fi
# The plain run gives the same rows but the buffer's, at the same times.
r1 plain 1 > "$T/plain.1"
grep -v command_buffer "$T/rep.1.want" | cmp -s - "$T/plain.1" && ok || notok "plain: execution 1's rows: $(cat "$T/plain.1")"
# Execution 0 (warm-up) is plain thunks, as in the plain run: the
# buffer's range has deeper ranges, so it is no row.
r1 rep 0 > "$T/rep.0"; r1 plain 0 > "$T/plain.0"
check "rep: the warm-up execution is the plain run's" cmp "$T/plain.0" "$T/rep.0"
# Thunk time per module execution: 28700 ns in both, every execution.
sums() { $X -f thunk "$T/$1/$1.sqlite" 2>/dev/null | col - ProgramExecution ProjDurMs | awk -F'\t' "$AWK_NS"'
    NR > 1 { s[$1] += ns($2) } END { for (e in s) print e, s[e] }' | sort; }
printf '0 28700\n1 28700\n2 28700\n' > "$T/sums.want"
sums rep > "$T/sums.rep"; sums plain > "$T/sums.plain"
check "rep: thunk time per execution as planted" cmp "$T/sums.want" "$T/sums.rep"
check "plain: thunk time per execution as planted" cmp "$T/sums.want" "$T/sums.plain"
# The same without the warm-up (every execution a graph): the same rows
# (the 8 copies are 8 rows, not one over 23.4 us with the idle between).
{ echo "$RHEAD"; rep_exec 0 graph; rep_exec 1 graph; rep_exec 2 graph; } | mk repg
r1 repg 1 > "$T/repg.1"
check "repg: execution 1's rows" cmp "$T/rep.1.want" "$T/repg.1"
sums repg > "$T/sums.repg"
check "repg: thunk time per execution as planted" cmp "$T/sums.want" "$T/sums.repg"
# 22 graph operations, all matched.
grep -q "rep.sqlite: command buffers: 0 of 22 graph operations (0.0% of their GPU time) match no HLO operation" "$T/rep.err" &&
    ok || notok "rep: the note: $(cat "$T/rep.err")"

# ---- one metadata entry, one execution ----
# Module jit_g (program 9), no loop in its buffer command_buffer_3:
# gemm.1 (kGemm) launches a GEMM and a workspace kernel (matched by
# order) and fusion.2 (kKernel) two kernels named after it (fusion_2,
# fusion_2_1: by name), interleaved: per execution (G = 10 ms + E x 10
# ms, ns) cublas_gemm [G, +4000], fusion_2 [G+4000, +1000],
# splitKreduce_kernel [G+5000, +500], fusion_2_1 [G+6000, +1000].
# Without command buffers each thunk is one range: one execution each
# of gemm.1 (4500 ns of kernels) and fusion.2 (2000 ns).
GHEAD='thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 9 jit_g gemm.1:custom-call fusion.2:fusion
thunkmeta 9 jit_g command_buffer_3:kCommandBuffer -:kSequential gemm.1:kGemm fusion.2:kKernel'
g_exec() {
	b=$(($1 * 100000)) g=$((10000000 + $1 * 10000000)) id=$((100 * $1 + 10))
	echo "nvtx $id 59 $GT $((b + 1000)) $((b + 90000)) - 1 XlaModule:#hlo_module=jit_g,program_id=9#"
	if [ "$2" = graph ]; then
		c=$((id + 1))
		echo "nvtx $c 59 $GT $((b + 1300)) $((b + 1500)) - 1 Thunk:#hlo_op=command_buffer_3#
call $GT $((b + 1400)) $((b + 1410)) $c 0
kernel $g $((g + 4000)) $c $GP 0 7 41 cublas_gemm
kernel $((g + 4000)) $((g + 5000)) $c $GP 0 7 42 fusion_2
kernel $((g + 5000)) $((g + 5500)) $c $GP 0 7 43 splitKreduce_kernel
kernel $((g + 6000)) $((g + 7000)) $c $GP 0 7 44 fusion_2_1"
	else
		echo "nvtx $((id + 1)) 59 $GT $((b + 1300)) $((b + 1320)) - 1 Thunk:#hlo_op=gemm.1#
call $GT $((b + 1310)) $((b + 1312)) $((id + 1)) 0
kernel $g $((g + 4000)) $((id + 1)) $GP 0 7 - cublas_gemm
kernel $((g + 5000)) $((g + 5500)) $((id + 1)) $GP 0 7 - splitKreduce_kernel
nvtx $((id + 2)) 59 $GT $((b + 1330)) $((b + 1350)) - 1 Thunk:#hlo_op=fusion.2#
call $GT $((b + 1340)) $((b + 1342)) $((id + 2)) 0
kernel $((g + 4000)) $((g + 5000)) $((id + 2)) $GP 0 7 - fusion_2
kernel $((g + 6000)) $((g + 7000)) $((id + 2)) $GP 0 7 - fusion_2_1"
	fi
}
{ echo "$GHEAD"; g_exec 0 graph; g_exec 1 graph; g_exec 2 graph; } | mk once
{ echo "$GHEAD"; g_exec 0 plain; g_exec 1 plain; g_exec 2 plain; } | mk onceplain
# Executions per (module execution, operation): one of each, as planted.
for v in once onceplain; do
	mkdir -p "$T/$v.f"
	$X -o "$T/$v.f" "$T/$v/$v.sqlite" 2> /dev/null || notok "extract $v"
	col "$T/$v.f/thunk.tsv" ProgramExecution Name | awk -F'\t' 'NR > 1 && $2 !~ /^command_buffer/ { n[$1 " " $2]++ }
	    END { for (k in n) print k, n[k] }' | sort > "$T/$v.n"
done
printf '0 fusion.2 1\n0 gemm.1 1\n1 fusion.2 1\n1 gemm.1 1\n2 fusion.2 1\n2 gemm.1 1\n' > "$T/once.want"
check "once: one execution per metadata entry (a two-kernel thunk)" cmp "$T/once.want" "$T/once.n"
check "onceplain: one execution per thunk" cmp "$T/once.want" "$T/onceplain.n"
# Their time: each execution's thunks 4500 + 2000 ns, the buffer 0.
sums once > "$T/once.sums"
printf '0 6500\n1 6500\n2 6500\n' | check "once: thunk time per execution as planted" cmp - "$T/once.sums"
# The step MFU (nsysjax-roofline, a hand-made hlo frame: gemm.1 1e9
# matmul FLOPs, fusion.2 5e8, bf16; A100 312 TFLOP/s) is the plain
# run's: (1e9 + 5e8) / 312e12 / the module's wall time.
for v in once onceplain; do
	P=$(col "$T/$v.f/thunk.tsv" ProgramId | sed -n 2p)
	printf 'ProgramId\tName\tOpcode\tFlops\tTranscendentals\tBytesAccessed\tMatmulFlops\tDtype\n%s\tgemm.1\tcustom-call\t1000000000\t0\t1000\t1000000000\tbf16\n%s\tfusion.2\tfusion\t500000000\t0\t1000\t500000000\tbf16\n' "$P" "$P" > "$T/$v.hlo"
	$BIN/nsysjax-roofline -H "$T/$v.hlo" -M "$T/$v.f/module.tsv" -g A100 -t steps "$T/$v.f/thunk.tsv" 2> /dev/null |
	    col - ProgramExecution MatmulFlops MFU > "$T/$v.mfu"
done
check "once: step MFU = the plain run's" cmp "$T/onceplain.mfu" "$T/once.mfu"
[ "$(col "$T/once.mfu" MatmulFlops | sed -n 2p)" = 1500000000 ] && ok || notok "once: step MatmulFlops: $(cat "$T/once.mfu")"

# ---- warm-up: the steady state does not mix the two forms ----
# Nothing compiled in the profile, no communication, --skip 0: every
# execution of rep is steady by count.  Execution 0 ran the buffer as
# plain thunks, 1 and 2 (the last) as a graph: 0 is init by its form, in
# the thunk and the module frame alike, and one note counts it.
is() { if [ "$2" = "$3" ]; then ok; else notok "$1: got '$2', want '$3'"; fi; }
WU=$BIN/nsysjax-warmup
NOTE1="nsysjax-warmup: 1 execution left out of the steady state: its command buffers ran in another form than in the program's last execution (XLA runs a command buffer's first execution as plain thunks, later ones as a CUDA graph)"
for r in rep plain; do
	mkdir -p "$T/${r}f"
	$X -o "$T/${r}f" "$T/$r/$r.sqlite" 2> /dev/null || notok "extract -o $r"
done
printf 'ProgramId\n' > "$T/nocompile"
for f in thunk module; do
	$WU -s 0 --forms-from "$T/repf/thunk.tsv" "$T/repf/$f.tsv" > "$T/rep.st.$f" 2> "$T/rep.w.$f"
	is "rep -s 0: steady executions of the $f frame" \
	    "$(col "$T/rep.st.$f" ProgramExecution | sed 1d | sort -u | tr '\n' ' ')" "1 2 "
	is "rep -s 0: the note ($f)" "$(cat "$T/rep.w.$f")" "$NOTE1"
	$WU -c "$T/nocompile" --communication no --forms-from "$T/repf/thunk.tsv" "$T/repf/$f.tsv" > "$T/rep.sc.$f" 2> "$T/rep.wc.$f"
	check "rep -c: the same steady $f rows" cmp "$T/rep.st.$f" "$T/rep.sc.$f"
	is "rep -c: the note ($f)" "$(cat "$T/rep.wc.$f")" "$NOTE1"
	# The plain run has one form: every execution steady, no note.
	$WU -s 0 --forms-from "$T/plainf/thunk.tsv" "$T/plainf/$f.tsv" > "$T/plain.st.$f" 2> "$T/plain.w.$f"
	is "plain: steady executions of the $f frame" \
	    "$(col "$T/plain.st.$f" ProgramExecution | sed 1d | sort -u | tr '\n' ' ')" "0 1 2 "
	is "plain: no note ($f)" "$(cat "$T/plain.w.$f")" ""
done
# The steady state's thunk time per execution is the plain run's.
is "rep: steady thunk time" "$(col "$T/rep.st.thunk" ProgramExecution ProjDurMs | awk -F'\t' "$AWK_NS"' NR > 1 { s += ns($2) } END { print s }')" 57400
# Without forms the warm-up execution stays (as before).
is "rep without --forms-from" "$($WU -s 0 "$T/repf/module.tsv" 2>&1 | col - ProgramExecution | sed 1d | tr '\n' ' ')" "0 1 2 "

# ---- the example run with and without command buffers, per node ----
# mkexample's run converted to exports twice: as it is, and with
# jit_train_step's consecutive thunks loop_add_fusion,
# input_reduce_fusion.1, gemm_fusion_dot.1 (1.5 us idle between each
# two) as command_buffer_9 traced per graph node, its first execution
# the warm-up (mkexport archive -g).  Every node is matched by name, so
# each execution's thunk time is the plain run's (to the ns), every row
# is the plain run's but the buffer's, and the buffer's row is 0.
if [ -x "$MKEXAMPLE" ]; then
	"$MKEXAMPLE" "$T/exn" > /dev/null 2>&1 || notok "mkexample"
	for r in rank0 rank1; do
		for v in p g; do
			mkdir -p "$T/exn$v/$r"
			cp -R "$T/exn/$r/dump" "$T/exn$v/$r/"
		done
		"$MKEXPORT" archive "$T/exn/$r" "$T/exnp/$r/$r.sqlite" || notok "mkexport $r"
		"$MKEXPORT" archive -g jit_train_step:command_buffer_9:loop_add_fusion:gemm_fusion_dot.1 \
		    "$T/exn/$r" "$T/exng/$r/$r.sqlite" || notok "mkexport -g $r"
	done
	for v in p g; do
		mkdir -p "$T/exn$v.f"
		$X -o "$T/exn$v.f" "$T/exn$v/rank0" "$T/exn$v/rank1" 2> "$T/exn$v.err" || notok "extract exn$v: $(cat "$T/exn$v.err")"
	done
	xsum() { col "$1" ProgramId ProgramExecution Device ProjDurMs ProjDurHiddenMs | awk -F'\t' "$AWK_NS"'
	    NR > 1 { s[$1 " " $2 " " $3] += ns($4) + ns($5) } END { for (k in s) print k, s[k] }' | sort; }
	xsum "$T/exnp.f/thunk.tsv" > "$T/exn.sum.p"
	xsum "$T/exng.f/thunk.tsv" > "$T/exn.sum.g"
	is "example: module executions" "$(wc -l < "$T/exn.sum.g")" 14
	check "example: thunk time per module execution = the plain run's" cmp "$T/exn.sum.p" "$T/exn.sum.g"
	COLS="ProgramId ProgramExecution Name ThunkExecution Device ProjDurMs ProjStartMs Communication ProjDurHiddenMs"
	col "$T/exnp.f/thunk.tsv" $COLS > "$T/exn.rows.p"
	col "$T/exng.f/thunk.tsv" $COLS | awk -F'\t' '$3 != "command_buffer_9"' > "$T/exn.rows.g"
	check "example: every row but the buffer's is the plain run's" cmp "$T/exn.rows.p" "$T/exn.rows.g"
	is "example: the buffer's rows (executions 1-5 of both ranks), 0 each" \
	    "$(col "$T/exng.f/thunk.tsv" Name ProgramExecution ProjDurMs | awk -F'\t' '$1 == "command_buffer_9" { n++; if ($3 != "0") bad++; e[$2] = 1 }
	    END { for (k in e) m++; print n + 0, m + 0, bad + 0 }')" "10 5 0"
	# The critical path sees the operations inside the buffer: per
	# execution the step and its breakdown are the plain run's (only the
	# thunk count holds the buffer's rows too).
	for v in p g; do
		$BIN/nsysjax-align -o "$T/exn$v.corr" "$T/exn$v.f/communication.tsv" > /dev/null 2>&1
		$BIN/nsysjax-critpath -b -c "$T/exn$v.corr" -m "$T/exn$v.f/module.tsv" "$T/exn$v.f/thunk.tsv" 2> /dev/null |
		    col - ProgramId ProgramExecution StepMs ComputeMs CommunicationMs PeerWaitMs GapMs > "$T/exn.cp.$v"
	done
	# The roofline (pipelines/roofline.sh, an A100 by its target
	# config): the step MFU with the buffer is the plain run's.
	for v in p g; do
		printf 'gpu_device_info {\n  core_count: 108\n  clock_rate_ghz: 1.41\n  memory_bandwidth: 1555200000000\n  cuda_compute_capability {\n    major: 8\n    minor: 0\n  }\n}\ndevice_description_str: "NVIDIA A100-SXM4-40GB"\n' > "$T/exn$v.f/device.gpu_target_config.pbtxt"
		NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -o "$T/exn$v.rl" "$T/exn$v.f" > /dev/null 2>&1 || notok "roofline.sh exn$v"
		col "$T/exn$v.rl/steps.tsv" ProgramId ProgramExecution MatmulFlops MFU > "$T/exn.mfu.$v" 2> /dev/null
	done
	[ "$(wc -l < "$T/exn.mfu.p")" -gt 1 ] && cmp -s "$T/exn.mfu.p" "$T/exn.mfu.g" && ok || notok "example: step MFU with the buffer is not the plain run's: $(diff "$T/exn.mfu.p" "$T/exn.mfu.g" | head -4)"
	# The same buffer traced whole: its operations' rows folded into
	# the buffer's (their time its time).  cmdbufs.tsv gives its FLOPs:
	# the plain run's step MFU within 2%; without it the summary names
	# the buffer as one (no opcode: no HLO instruction is one).
	cp -R "$T/exng.f" "$T/exnw.f"
	awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	    { k = $c["ProgramId"] SUBSEP $c["ProgramExecution"] SUBSEP $c["Device"] }
	    $c["CommandBuffer"] == "command_buffer_9" && $c["Name"] != "command_buffer_9" { t[k] += $c["ProjDurMs"]; next }
	    { row[++n] = $0; key[n] = k; buf[n] = $c["Name"] == "command_buffer_9" }
	    END { for (i = 1; i <= n; i++) { $0 = row[i]; if (buf[i]) $c["ProjDurMs"] = sprintf("%.6f", $c["ProjDurMs"] + t[key[i]]); print } }' \
	    "$T/exng.f/thunk.tsv" > "$T/exnw.f/thunk.tsv"
	# The example has no thunk metadata: the buffer's operations, as
	# the export planted them, are the inner rows of one execution.
	awk -F'\t' 'BEGIN { OFS = "\t"; print "ProgramId", "CommandBuffer", "Operation", "Kind" }
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["CommandBuffer"] == "command_buffer_9" && $c["Name"] != "command_buffer_9" {
		k = $c["ProgramExecution"] SUBSEP $c["Device"]; if (one == "") one = k
		if (k == one) print $c["ProgramId"], "command_buffer_9", $c["Name"], "kKernel" }' \
	    "$T/exng.f/thunk.tsv" > "$T/exnw.f/cmdbufs.tsv"
	NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -o "$T/exnw.rl" "$T/exnw.f" > /dev/null 2>&1 || notok "roofline.sh exnw"
	col "$T/exnw.rl/steps.tsv" ProgramId ProgramExecution MFU > "$T/exn.mfu.w" 2> /dev/null
	col "$T/exnp.rl/steps.tsv" ProgramId ProgramExecution MFU | awk -F'\t' 'NR == FNR { w[$1, $2] = $3; next }
	    FNR > 1 { n++; d = $3 - w[$1, $2]; if (d < 0) d = -d; if (!(($1, $2) in w) || d > 0.02 * $3) bad++ }
	    END { exit bad || n == 0 }' "$T/exn.mfu.w" - && ok || notok "example, buffer traced whole: step MFU not the plain run's: $(cat "$T/exn.mfu.w")"
	rm "$T/exnw.f/cmdbufs.tsv"
	NSYSJAX_BIN=$BIN sh pipelines/roofline.sh -o "$T/exnw2.rl" "$T/exnw.f" > /dev/null 2>&1 || notok "roofline.sh exnw2"
	grep -q 'without a cost rule: command_buffer_9 (command buffer, ' "$T/exnw2.rl/summary.txt" && ok ||
	    notok "example, no cmdbufs.tsv: the summary: $(sed -n 3p "$T/exnw2.rl/summary.txt")"
	is "example: critical path, module executions (across devices)" "$(($(wc -l < "$T/exn.cp.g") - 1))" 7
	check "example: critical path of every execution = the plain run's" cmp "$T/exn.cp.p" "$T/exn.cp.g"
	# Its first execution ran plain: with --skip 0 it is left out.
	$WU -s 0 --forms-from "$T/exng.f/thunk.tsv" "$T/exng.f/module.tsv" > "$T/exn.st" 2> "$T/exn.w"
	is "example -s 0: steady executions of jit_train_step" \
	    "$(col "$T/exn.st" Name ProgramExecution | awk -F'\t' '$1 == "jit_train_step" { print $2 }' | sort -u | tr '\n' ' ')" "1 2 3 4 5 "
	is "example -s 0: the note" "$(cat "$T/exn.w")" "$NOTE1"
	# The warm-up rule (compiled, communication) already leaves out
	# executions 0 and 1: no note.
	$WU -c "$T/exng.f/compile.tsv" --communication-from "$T/exng.f/communication.tsv" \
	    --forms-from "$T/exng.f/thunk.tsv" "$T/exng.f/module.tsv" > /dev/null 2> "$T/exn.w2"
	is "example: no note under the warm-up rule" "$(cat "$T/exn.w2")" ""
else
	notok "$MKEXAMPLE not built"
fi

done_testing t16-cmdbuf
