#!/bin/sh
# nsysjax-diff, nsysjax-fold --diff and pipelines/diff.sh: a run against
# itself (nothing changes), the shared run's steady executions split at
# random into two runs (nothing significant), planted changes on a copy
# of its steady thunk frame (a fusion +20% and a collective +50% on every
# device, a module with a new fingerprint; every thunk +1%), keys by
# op_name and source line, module frames, differential folded stacks,
# the pipeline's tables and HTML, and bad usage and input.  Expected
# values are computed here from the inputs, never taken from our output.
set -u
. tests/lib.sh
D=$BIN/nsysjax-diff
F=$BIN/nsysjax-fold
X=$BIN/nsysjax-extract
WU=$BIN/nsysjax-warmup

# col FILE NAME: the values of column NAME of a TSV file, one a line.
col() { awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }
# row FILE KEY VALUE NAME: column NAME of the first row whose KEY is VALUE.
row() {
	awk -F'\t' -v k="$2" -v v="$3" -v n="$4" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h[k] == v { print $h[n]; exit }' "$1"
}
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }

# ---- usage and bad input (no data needed) ----
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjDurMs\nA\t0\tf\t0\t0\t1\n' > "$T/t1.tsv"
printf 'ProgramId\tProgramExecution\tName\tDevice\tProjDurMs\nA\t0\tm\t0\t1\n' > "$T/m1.tsv"
printf 'ProgramId\tName\tThunkExecution\tDevice\tProjDurMs\nA\tf\t0\t0\t1\n' > "$T/bad.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjDurMs\nA\t0\tf\t0\t0\tx\n' > "$T/badnum.tsv"
usage2() { "$@" > "$T/o" 2> "$T/e"; [ $? -eq 2 ] && grep -q '^usage:' "$T/e"; }
check "one frame: usage" usage2 "$D" "$T/t1.tsv"
check "bad -k: usage" usage2 "$D" -k nope "$T/t1.tsv" "$T/t1.tsv"
check "bad -p: usage" usage2 "$D" -p 1 "$T/t1.tsv" "$T/t1.tsv"
check "both stdin: usage" usage2 "$D" - -
check "fold -d one file: usage" usage2 "$F" -d "$T/t1.tsv"
check "fold -n without -d: usage" usage2 "$F" -n -H x
fails() {	# fails PATTERN CMD...: exit 1, one line naming PATTERN, no usage
	pat=$1; shift
	"$@" > "$T/o" 2> "$T/e"
	[ $? -eq 1 ] && [ "$(wc -l < "$T/e")" -eq 1 ] && grep -q -- "$pat" "$T/e" && ! grep -q usage "$T/e"
}
check "missing column named" fails "bad.tsv: missing column 'ProgramExecution'" "$D" "$T/t1.tsv" "$T/bad.tsv"
check "bad number: file and line" fails "badnum.tsv:2: column ProjDurMs" "$D" "$T/badnum.tsv" "$T/t1.tsv"
check "thunk against module frame" fails "m1.tsv: a module frame" "$D" "$T/t1.tsv" "$T/m1.tsv"
check "no such file" fails "nope.tsv" "$D" "$T/t1.tsv" "$T/nope.tsv"
check "unknown side table" fails "not a module, compile, hlo or stackframes" "$D" -b "$T/bad.tsv" "$T/t1.tsv" "$T/t1.tsv"
check "-c names a missing column" fails "missing column 'Foo'" "$D" -c Foo "$T/t1.tsv" "$T/t1.tsv"
printf 'a;b 1\nno count here\n' > "$T/bad.folded"
check "fold -d: bad line" fails "bad.folded:2: not a count" "$F" -d "$T/bad.folded" "$T/bad.folded"
printf 'a;b 1 \n' > "$T/sp.folded"
check "fold -d: trailing space" fails "sp.folded:1:" "$F" -d "$T/sp.folded" "$T/sp.folded"
check "diff.sh: no '--'" usage2 sh pipelines/diff.sh -o "$T/u" a b
check "diff.sh: nothing before '--'" usage2 sh pipelines/diff.sh -o "$T/u" -- b
check "diff.sh: nothing after '--'" usage2 sh pipelines/diff.sh -o "$T/u" a --
check "diff.sh: no -o" usage2 sh pipelines/diff.sh a -- b
check "diff.sh: bad -t" usage2 sh pipelines/diff.sh -o "$T/u" -t x a -- b
# stdin as one of the frames, and the exit status without a gate
check "stdin as BEFORE" sh -c '"$1" -q - "$2" < "$2" > /dev/null' sh "$D" "$T/t1.tsv"

# differential lines by hand: merged, missing stacks 0, repeated added up
printf 'a;b 10\na;c 5\nx 1\n' > "$T/f1"
printf 'a;b 20\na;d 3\na;c 5\na;b 1\n' > "$T/f2"
"$F" -d "$T/f1" "$T/f2" > "$T/fd" 2>&1
check "fold -d by hand" test "$(cat "$T/fd")" = "$(printf 'a;b 10 21\na;c 5 5\na;d 0 3\nx 1 0')"
# -n: 10 5 1 scaled by 29/16: 18.125 9.0625 1.8125, largest remainder
"$F" -d -n "$T/f1" "$T/f2" > "$T/fn" 2>&1
check "fold -d -n by hand" test "$(cut -d' ' -f2 "$T/fn" | tr '\n' ' ')" = "18 9 0 2 "

# ---- command buffers against the thunks they hold (no data needed) ----
# Two exports of tests/sqlite/mkexport.c, one module jit_f (program 5),
# 6 executions: "plain" runs every operation as a thunk of its own;
# "cb" runs fusion.0, command_buffer_1 (one CUDA graph, graph-level
# trace) and fusion.6, with XLA's thunk metadata (META).  By the
# metadata's rule (cmdbuf.h) the buffer holds the named entries after
# it up to the next thunk that has a range of its own in "cb": derived
# here from META and the thunks of cb's spec, not from our output.
: "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
CBH='thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 5 jit_f p.0:parameter fusion.0:fusion loop_add_fusion.1:fusion gemm.2:custom-call input_reduce_fusion.3:fusion fusion.7:fusion copy.4:copy fusion.6:fusion'
META='thunkmeta 5 jit_f -:kSequential fusion.0:kKernel command_buffer_1:kCommandBuffer -:kSequential loop_add_fusion.1:kKernel gemm.2:kGemm input_reduce_fusion.3:kKernel fusion.7:kKernel copy.4:kMemset32BitValue fusion.6:kKernel'
CBOPS='fusion.0 loop_add_fusion.1 gemm.2 input_reduce_fusion.3 fusion.7 copy.4 fusion.6'
CBOWN='fusion.0 command_buffer_1 fusion.6'	# cb's thunks
# plain E: execution E, operation I's kernel (10 I + E) us long
cb_plain() {
	e=$1 b=$(($1 * 100000)) g=$((10000000 * ($1 + 1))) id=$((1000 * ($1 + 1))) i=0
	echo "nvtx $id 59 0x1000064000064 $((b + 1000)) $((b + 9000)) - 1 XlaModule:#hlo_module=jit_f,program_id=5#"
	for op in $CBOPS; do
		i=$((i + 1)); c=$((id + i)); s=$((b + 1000 + i * 100))
		echo "nvtx $c 59 0x1000064000064 $s $((s + 50)) - 1 Thunk:#hlo_op=$op#
call 0x1000064000064 $((s + 10)) $((s + 20)) $c 0
kernel $((g + i * 200000)) $((g + i * 200000 + (i * 10 + e) * 1000)) $c 0x1000064000000 0 7 - k_$i"
	done
}
# cb E: fusion.0 (10 + E us), the graph (100 + E us), fusion.6 (70 + E)
cb_cb() {
	e=$1 b=$(($1 * 100000)) g=$((10000000 * ($1 + 1))) id=$((1000 * ($1 + 1))) i=0
	echo "nvtx $id 59 0x1000064000064 $((b + 1000)) $((b + 9000)) - 1 XlaModule:#hlo_module=jit_f,program_id=5#"
	for op in $CBOWN; do
		i=$((i + 1)); c=$((id + i)); s=$((b + 1000 + i * 100))
		echo "nvtx $c 59 0x1000064000064 $s $((s + 50)) - 1 Thunk:#hlo_op=$op#
call 0x1000064000064 $((s + 10)) $((s + 20)) $c 0"
		case $op in
		command_buffer_1) echo "graph $((g + 200000)) $((g + 300000 + e * 1000)) $c 0x1000064000000 0 7 1" ;;
		fusion.0) echo "kernel $g $((g + 10000 + e * 1000)) $c 0x1000064000000 0 7 - k_1" ;;
		*) echo "kernel $((g + 400000)) $((g + 470000 + e * 1000)) $c 0x1000064000000 0 7 - k_7" ;;
		esac
	done
}
if [ -x "$MKEXPORT" ]; then
	mkdir -p "$T/cbplain" "$T/cbcb" "$T/cbfp" "$T/cbfc"
	{ echo "$CBH"; for e in 0 1 2 3 4 5; do cb_plain $e; done; } | "$MKEXPORT" spec - "$T/cbplain/cbplain.sqlite"
	{ echo "$CBH"; echo "$META"; for e in 0 1 2 3 4 5; do cb_cb $e; done; } | "$MKEXPORT" spec - "$T/cbcb/cbcb.sqlite"
	check "cmdbuf: extract -o plain" "$X" -o "$T/cbfp" "$T/cbplain/cbplain.sqlite"
	check "cmdbuf: extract -o cb" sh -c '"$1" -o "$2" "$3" 2> /dev/null' sh "$X" "$T/cbfc" "$T/cbcb/cbcb.sqlite"
	# the buffer's operations by the rule, from META and CBOWN
	echo "$META" | tr ' ' '\n' | awk -v own=" $CBOWN " -F: '
	    $1 == "command_buffer_1" { on = 1; next }
	    on && index(own, " " $1 " ") { exit }
	    on && $1 != "-" { print $1 }' > "$T/cb.want"
	check "cmdbuf: the planted buffer holds 5 operations" test "$(wc -l < "$T/cb.want")" -eq 5
	awk -F'\t' 'NR > 1 && $2 == "command_buffer_1" { print $3 }' "$T/cbfc/cmdbufs.tsv" > "$T/cb.got"
	check "cmdbuf: cmdbufs.tsv lists them in the metadata's order" cmp "$T/cb.want" "$T/cb.got"
	check "cmdbuf: the plain run's cmdbufs.tsv is its header" test "$(cat "$T/cbfp/cmdbufs.tsv")" = "$(printf 'ProgramId\tCommandBuffer\tOperation\tKind')"
	# thunk.tsv itself is what -f thunk writes (the side table is apart)
	"$X" -f thunk "$T/cbcb/cbcb.sqlite" > "$T/cb.thunk" 2> /dev/null
	check "cmdbuf: thunk.tsv unchanged by the side table" cmp "$T/cb.thunk" "$T/cbfc/thunk.tsv"
	"$D" -t 5 -P "$T/cb.pairs" -b "$T/cbfp/cmdbufs.tsv" -a "$T/cbfc/cmdbufs.tsv" \
	    "$T/cbfp/thunk.tsv" "$T/cbfc/thunk.tsv" > "$T/cb.items" 2> "$T/cb.err"
	cbst=$?
	# sums by hand from the frames: the operations in plain, the buffer in cb
	sa=$(awk -F'\t' 'NR == FNR { w[$1] = 1; next } FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    ($c["Name"] in w) { s += $c["ProjDurMs"] } END { printf "%.3f", s }' "$T/cb.want" "$T/cbfp/thunk.tsv")
	sb=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == "command_buffer_1" { s += $c["ProjDurMs"] } END { printf "%.3f", s }' "$T/cbfc/thunk.tsv")
	dz=$(awk -v a="$sa" -v b="$sb" 'BEGIN { printf "%+.3f", b - a }')
	check "cmdbuf: one line pairs the buffer with its 5 operations, sums by hand" \
	    grep -qx "command_buffer_1 (after) holds 5 operations that run as thunks before, in fp-jit_f: $sa ms -> $sb ms ($dz ms at BEFORE's executions), one item" "$T/cb.err"
	check "cmdbuf: one item row, Match cmdbuf" test "$(awk -F'\t' '$5 == "cmdbuf" { n++; print $4 } END { print n }' "$T/cb.items" | tr '\n' ' ')" = "command_buffer_1 1 "
	check "cmdbuf: no operation added or removed" test "$(awk -F'\t' '$5 == "added" || $5 == "removed"' "$T/cb.items" | wc -l)" -eq 0
	check "cmdbuf: its contribution" near "$(row "$T/cb.items" Name command_buffer_1 ContributionMs)" "$dz" 0.0005
	check "cmdbuf: executions are module executions (6 a side)" test "$(row "$T/cb.items" Name command_buffer_1 ExecutionsBefore)/$(row "$T/cb.items" Name command_buffer_1 ExecutionsAfter)" = 6/6
	awk -F'\t' 'NR > 1 && $6 != "command_buffer_1" { print $6 }' "$T/cb.pairs" > "$T/cb.paired"
	check "cmdbuf: -P lists the operations paired" cmp "$T/cb.want" "$T/cb.paired"
	# the gate takes the pair as one item: faster, so it passes; the run
	# the other way round is a regression of that one item
	check "cmdbuf: gate on the pair: pass" test "$cbst" -eq 0
	"$D" -t 5 -b "$T/cbfc/cmdbufs.tsv" -a "$T/cbfp/cmdbufs.tsv" "$T/cbfc/thunk.tsv" "$T/cbfp/thunk.tsv" > "$T/cb.rev" 2> "$T/cb.reverr"
	check "cmdbuf: the other way round: exit 3" test $? -eq 3
	check "cmdbuf: the other way round: the buffer is in BEFORE" grep -q "^command_buffer_1 (before) holds 5 operations that run as thunks after" "$T/cb.reverr"
	# frames without the side table: today's rows, and one line that says so
	"$D" "$T/cbfp/thunk.tsv" "$T/cbfc/thunk.tsv" > "$T/cb.old" 2> "$T/cb.olderr"
	check "cmdbuf: without cmdbufs.tsv, 1 added and 5 removed" test "$(awk -F'\t' '$5 == "added" { a++ } $5 == "removed" { r++ } END { print a + 0, r + 0 }' "$T/cb.old")" = "1 5"
	check "cmdbuf: without cmdbufs.tsv, said once" test "$(grep -c '^command buffers: 1 in one run only (command_buffer_1) whose operations are not known, not paired: no cmdbufs.tsv' "$T/cb.olderr")" -eq 1
	# a table that also lists fusion.0, a thunk in both runs: it keeps
	# its own row, the line counts it apart
	{ cat "$T/cbfc/cmdbufs.tsv"; printf 'fp-jit_f\tcommand_buffer_1\tfusion.0\tkKernel\n'; } > "$T/cb.more"
	"$D" -a "$T/cb.more" "$T/cbfp/thunk.tsv" "$T/cbfc/thunk.tsv" > "$T/cb.mi" 2> "$T/cb.me"
	check "cmdbuf: an operation with thunks in both runs is not paired" grep -q "^command_buffer_1 (after) holds 5 operations (of 6) that run as thunks before" "$T/cb.me"
	check "cmdbuf: it keeps its row" test "$(row "$T/cb.mi" Name fusion.0 Match)" = id
	# diff.sh passes each run's cmdbufs.tsv and keeps the pairing
	sh pipelines/diff.sh -o "$T/cbsh" "$T/cbplain/cbplain.sqlite" -- "$T/cbcb/cbcb.sqlite" > "$T/cbsh.out" 2>&1
	check "cmdbuf: diff.sh" test $? -eq 0
	awk -F'\t' 'NR > 1 && $6 != "command_buffer_1" { print $6 }' "$T/cbsh/cmdbuf-pairs.tsv" > "$T/cbsh.paired"
	check "cmdbuf: diff.sh: cmdbuf-pairs.tsv lists the operations" cmp "$T/cb.want" "$T/cbsh.paired"
	check "cmdbuf: diff.sh: the report's line" grep -q "^command_buffer_1 (after) holds 5 operations that run as thunks before" "$T/cbsh/report.txt"
	# --merge carries the side table
	mkdir -p "$T/cbm"
	check "cmdbuf: --merge" sh -c '"$1" --merge -o "$2" "$3" 2> /dev/null' sh "$X" "$T/cbm" "$T/cbfc"
	check "cmdbuf: --merge keeps cmdbufs.tsv" cmp "$T/cbfc/cmdbufs.tsv" "$T/cbm/cmdbufs.tsv"
	# -j workers give one extraction's table, with a buffer in two
	# profiles (a twin of cb: one thread more) listed once
	mkdir -p "$T/cbtw" "$T/cbj0" "$T/cbj2"
	{ echo "$CBH"; echo "$META"; for e in 0 1 2 3 4 5; do cb_cb $e; done; echo "thread 0x1000064000065 python"; } |
	    "$MKEXPORT" spec - "$T/cbtw/cbtw.sqlite"
	"$X" -j 0 -o "$T/cbj0" "$T/cbcb/cbcb.sqlite" "$T/cbplain/cbplain.sqlite" "$T/cbtw/cbtw.sqlite" 2> /dev/null
	"$X" -j 2 -o "$T/cbj2" "$T/cbcb/cbcb.sqlite" "$T/cbplain/cbplain.sqlite" "$T/cbtw/cbtw.sqlite" 2> /dev/null
	check "cmdbuf: -j 2 gives -j 0's cmdbufs.tsv" cmp "$T/cbj0/cmdbufs.tsv" "$T/cbj2/cmdbufs.tsv"
	check "cmdbuf: a buffer of two profiles listed once" cmp "$T/cbfc/cmdbufs.tsv" "$T/cbj2/cmdbufs.tsv"
else
	notok "$MKEXPORT not built (make $MKEXPORT)"
fi
# The example run (tests/example/mkexample.c) in its default layout
# against -L 2026, whose command buffers (truth.tsv cmdbuf.MODULE, each
# holding the two thunks of cmdbuf_holds.NAME) come without a thunk
# metadata dump: nothing can be paired, the rows are as without tables
# (each buffer added, each operation it holds removed) and one line says
# that their contents are not known.
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
if [ -x "$MKEXAMPLE" ]; then
	"$MKEXAMPLE" "$T/ex24" > /dev/null && "$MKEXAMPLE" -L 2026 "$T/ex26" > /dev/null
	mkdir -p "$T/exf24" "$T/exf26"
	"$X" -o "$T/exf24" "$T/ex24/rank0" "$T/ex24/rank1" 2> /dev/null
	"$X" -o "$T/exf26" "$T/ex26/rank0" "$T/ex26/rank1" 2> /dev/null
	"$D" -b "$T/exf24/module.tsv" -a "$T/exf26/module.tsv" -b "$T/exf24/cmdbufs.tsv" -a "$T/exf26/cmdbufs.tsv" \
	    "$T/exf24/thunk.tsv" "$T/exf26/thunk.tsv" > "$T/ex.items" 2> "$T/ex.err"
	awk -F'\t' '$1 ~ /^cmdbuf\./ { m = substr($1, 8); print m " " $2 " added" }
	    $1 ~ /^cmdbuf_holds\./ { b[substr($1, 14)] = $2 }
	    END { for (k in b) print k, b[k] }' "$T/ex26/truth.tsv" > "$T/ex.truth"
	awk '$3 == "added" { mod[$2] = $1; print } $3 != "added" { h[$1] = $2 " " $3 }
	    END { for (k in mod) { split(h[k], o, " "); print mod[k], o[1], "removed"; print mod[k], o[2], "removed" } }' "$T/ex.truth" | sort > "$T/ex.want"
	awk -F'\t' '$5 == "added" || $5 == "removed" { print $1, $4, $5 }' "$T/ex.items" | sort > "$T/ex.got"
	check "cmdbuf, no metadata: each buffer added, its operations removed" cmp "$T/ex.want" "$T/ex.got"
	nb=$(grep -c '^cmdbuf\.' "$T/ex26/truth.tsv")
	check "cmdbuf, no metadata: said once, the buffers counted" \
	    test "$(grep -c "^command buffers: $nb in one run only (command_buffer_[0-9]*, ...) whose operations are not known, not paired: its cmdbufs.tsv does not list them" "$T/ex.err")" -eq 1
	check "cmdbuf, no metadata: no pair" test "$(grep -c 'holds .* operation' "$T/ex.err")" -eq 0
else
	notok "$MKEXAMPLE not built (make $MKEXAMPLE)"
fi

if ! have_data; then
	skip "../shared not found: the data cases"
	done_testing t85-diff
	exit
fi
G=$GOLD/combined4
ST=$G/steady_thunk.tsv SM=$G/steady_module.tsv
# The cases below plant their changes in the shared run, whose jit__psum
# is a barrier: left out (the default) the 0.1% of -f is taken of the
# step's time alone, 232 items are tested and Holm over them needs 10
# executions, more than the run's 9.  They test the statistics with
# barriers counted (-B), as they were planned; t81 tests the default.
KB=-B

# ---- A/A: the run against itself ----
"$D" $KB -t 10 -b "$SM" -a "$SM" "$ST" "$ST" > "$T/aa.tsv" 2> "$T/aa.err"
check "A/A exit 0 with -t 10" test $? -eq 0
items=$(awk -F'\t' 'NR > 1 { k[$1 "\t" $3] } END { print length(k) }' "$ST")
check "A/A: one row per (ProgramId, Name)" test "$(($(wc -l < "$T/aa.tsv") - 1))" -eq "$items"
check "A/A: nothing changed" awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["Match"] != "id" || $h["ContributionMs"] != 0 || $h["DeltaMs"] != 0 ||
	($h["PAdjusted"] != "" && $h["PAdjusted"] < 0.05) { bad++ } END { exit bad > 0 || NR < 2 }' "$T/aa.tsv"
check "A/A: the summary says so" grep -q 'change 0.000 ms' "$T/aa.err"

# ---- the steady executions split at random (fixed seed) ----
# Each module execution on a device (ProgramId, ProgramExecution, Device)
# goes to one half, by the Park-Miller generator (exact in any awk's
# doubles, so every awk splits alike), seed 42.
awk -F'\t' -v A="$T/sa.tsv" -v B="$T/sb.tsv" 'BEGIN { x = 42 }
	NR == 1 { print > A; print > B; next }
	{ k = $1 SUBSEP $2 SUBSEP $5
	  if (!(k in s)) { x = (x * 16807) % 2147483647; s[k] = x < 1073741824 }
	  print > (s[k] ? A : B) }' "$ST"
check "split: both halves have rows" test "$(wc -l < "$T/sa.tsv")" -gt 1000 -a "$(wc -l < "$T/sb.tsv")" -gt 1000
for adj in holm bh; do
	"$D" $KB -q -A "$adj" -t 10 -b "$SM" -a "$SM" "$T/sa.tsv" "$T/sb.tsv" > "$T/split.tsv"
	check "split ($adj): exit 0 with -t 10" test $? -eq 0
	check "split ($adj): no significant item" awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["PAdjusted"] != "" && $h["PAdjusted"] < 0.05 { bad++ } END { exit bad > 0 }' "$T/split.tsv"
	"$D" $KB -q -s -A "$adj" -b "$SM" -a "$SM" "$T/sa.tsv" "$T/sb.tsv" > "$T/splits.tsv"
	check "split ($adj): no significant module" awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["PAdjusted"] != "" && $h["PAdjusted"] < 0.05 { bad++ } END { exit bad > 0 }' "$T/splits.tsv"
done

# ---- planted changes ----
# The module with the most compute time; its largest fusion and its
# largest collective; another module gets a new fingerprint.
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ c = $h["Communication"] ~ /^(1|True)$/; if (!c) t[$h["ProgramId"]] += $h["ProjDurMs"]
	  u[$h["ProgramId"] "\t" $h["Name"] "\t" c] += $h["ProjDurMs"] }
	END {
		for (p in t) if (t[p] > best) { best = t[p]; bp = p }
		for (k in u) { split(k, f, "\t"); if (f[1] != bp) continue
			if (f[3] == 0 && f[2] ~ /fusion/ && u[k] > fu) { fu = u[k]; fn = f[2] }
			if (f[3] == 1 && u[k] > cu) { cu = u[k]; cn = f[2] } }
		print bp "\t" fn "\t" cn
	}' "$ST" > "$T/pick"
IFS='	' read -r BP FUS COL < "$T/pick"
NEWID=$(awk -F'\t' -v bp="$BP" 'NR > 1 && $4 !~ /step/ && $1 != bp { print $1; exit }' "$SM")
NEWNAME=$(row "$SM" ProgramId "$NEWID" Name)
check "planted: picked a fusion, a collective and a module" test -n "$FUS" -a -n "$COL" -a -n "$NEWID" -a "$FUS" != "$COL"
plant() {	# plant IN OUT: the changes, durations in exact decimals of ns
	awk -F'\t' -v OFS='\t' -v bp="$BP" -v fus="$FUS" -v col="$COL" -v nid="$NEWID" -v all="${ALL:-}" '
	function scale(x, f) { return sprintf("%.6f", int(x * 1e6 + 0.5) * f / 1e6) }
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next }
	{	d = h["ProjDurMs"]
		if (all != "") $d = scale($d, all)
		else if ($h["ProgramId"] == bp && $h["Name"] == fus) $d = scale($d, 1.2)
		else if ($h["ProgramId"] == bp && $h["Name"] == col) $d = scale($d, 1.5)
		if (all == "" && $h["ProgramId"] == nid) $h["ProgramId"] = "new-" nid
		print }' "$1" > "$2"
}
plant "$ST" "$T/pt.tsv"
awk -F'\t' -v OFS='\t' -v nid="$NEWID" 'NR > 1 && $1 == nid { $1 = "new-" nid } { print }' "$SM" > "$T/pm.tsv"
"$D" $KB -t 10 -b "$SM" -a "$T/pm.tsv" "$ST" "$T/pt.tsv" > "$T/p.tsv" 2> "$T/p.err"
check "planted: exit 3 with -t 10" test $? -eq 3
check "planted: the two slowdowns ranked first" test "$(sed -n '2,3p' "$T/p.tsv" | cut -f 4 | sort | tr '\n' ' ')" = "$(printf '%s\n%s\n' "$FUS" "$COL" | sort | tr '\n' ' ')"
check "planted: fusion +20%" near "$(row "$T/p.tsv" Name "$FUS" ChangePercent)" 20 0.001
check "planted: collective +50%" near "$(row "$T/p.tsv" Name "$COL" ChangePercent)" 50 0.001
check "planted: both significant" awk -v a="$(row "$T/p.tsv" Name "$FUS" PAdjusted)" -v b="$(row "$T/p.tsv" Name "$COL" PAdjusted)" 'BEGIN { exit !(a != "" && b != "" && a < 0.05 && b < 0.05) }'
check "planted: the new fingerprint matched by name" test "$(row "$T/p.tsv" Module "$NEWNAME" Match)/$(row "$T/p.tsv" Module "$NEWNAME" ProgramIdAfter)" = "name/new-$NEWID"
check "planted: nothing added or removed" awk -F'\t' 'NR > 1 && ($5 == "added" || $5 == "removed") { bad++ } END { exit bad > 0 }' "$T/p.tsv"
check "planted: no other change" awk -F'\t' 'NR > 3 && $17 != 0 { bad++ } END { exit bad > 0 }' "$T/p.tsv"
# the total change: after minus before of the planted rows, from the inputs
want=$(awk -F'\t' 'NR == FNR { if (FNR > 1) b += $8; next } FNR > 1 { a += $8 } END { printf "%.6f", a - b }' "$ST" "$T/pt.tsv")
"$D" $KB -q -s -b "$SM" -a "$T/pm.tsv" "$ST" "$T/pt.tsv" > "$T/ps.tsv"
check "planted: total change" near "$(row "$T/ps.tsv" Module '(all)' ContributionMs)" "$want" 0.000002
check "planted: module table, matched by name" test "$(row "$T/ps.tsv" Module "$NEWNAME" Match)" = name
check "planted: the gate quiet at -t 60" sh -c '"$1" -B -q -t 60 -b "$2" -a "$3" "$4" "$5" > /dev/null' sh "$D" "$SM" "$T/pm.tsv" "$ST" "$T/pt.tsv"

# every thunk +1%: about +1% in total, no gate at 10%
ALL=1.01 plant "$ST" "$T/p1.tsv"
"$D" $KB -q -s -t 10 -b "$SM" -a "$SM" "$ST" "$T/p1.tsv" > "$T/p1s.tsv"
check "all +1%: exit 0 with -t 10" test $? -eq 0
check "all +1%: total +1%" near "$(row "$T/p1s.tsv" Module '(all)' ChangePercent)" 1 0.0001

# module frames: the step function +5%
awk -F'\t' -v OFS='\t' -v bp="$BP" 'NR > 1 && $1 == bp { $7 = sprintf("%.6f", $7 * 1.05) } { print }' "$SM" > "$T/m5.tsv"
"$D" $KB -q "$SM" "$T/m5.tsv" > "$T/m5d.tsv"
check "module frames: exit 0 without a gate" test $? -eq 0
check "module frames: +5%" near "$(row "$T/m5d.tsv" ProgramIdBefore "$BP" ChangePercent)" 5 0.001
check "module frames: no key column" test "$(head -n 1 "$T/m5d.tsv" | cut -f 4)" = Match

# ---- keys by op_name and source line, from our own frames ----
mkdir -p "$T/fr"
if "$X" -o "$T/fr" "$DATA"/pax_fsdp4_4proc_proc0.zip "$DATA"/pax_fsdp4_4proc_proc1.zip \
	"$DATA"/pax_fsdp4_4proc_proc2.zip "$DATA"/pax_fsdp4_4proc_proc3.zip 2> "$T/e"; then
	ok
	"$WU" -c "$T/fr/compile.tsv" --communication-from "$T/fr/communication.tsv" "$T/fr/thunk.tsv" > "$T/ost.tsv"
	"$WU" -c "$T/fr/compile.tsv" --communication-from "$T/fr/communication.tsv" "$T/fr/module.tsv" > "$T/osm.tsv"
	S="-b $T/fr/hlo.tsv -a $T/fr/hlo.tsv -b $T/fr/stackframes.tsv -a $T/fr/stackframes.tsv -b $T/osm.tsv -a $T/osm.tsv"
	for k in op_name source; do
		"$D" $KB -q -t 10 -k "$k" $S "$T/ost.tsv" "$T/ost.tsv" > "$T/k.tsv"
		check "-k $k: A/A exit 0" test $? -eq 0
		check "-k $k: A/A no change, keys found" awk -F'\t' 'NR > 1 && $17 != 0 { bad++ } NR > 1 && $4 !~ /^\[/ { named++ }
			END { exit bad > 0 || named < 100 }' "$T/k.tsv"
	done
	check "-k source: the column" test "$(head -n 1 "$T/k.tsv" | cut -f 4)" = Source
	# the fusion renamed and 20% slower in AFTER (thunk and hlo frames):
	# by thunk it is removed and added; by op_name one row, +delta
	awk -F'\t' -v OFS='\t' -v bp="$BP" -v fus="$FUS" 'NR > 1 && $1 == bp && $3 == fus { $3 = fus ".renamed"; $8 = sprintf("%.6f", int($8 * 1e6 + 0.5) * 1.2 / 1e6) } { print }' "$T/ost.tsv" > "$T/rt.tsv"
	awk -F'\t' -v OFS='\t' -v bp="$BP" -v fus="$FUS" 'NR > 1 && $1 == bp && $2 == fus { $2 = fus ".renamed" } { print }' "$T/fr/hlo.tsv" > "$T/rh.tsv"
	OP=$(awk -F'\t' -v bp="$BP" -v fus="$FUS" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $1 == bp && $2 == fus { print $h["OpName"]; exit }' "$T/fr/hlo.tsv")
	want=$(awk -F'\t' -v bp="$BP" -v fus="$FUS" 'NR == FNR { if ($1 == bp && $3 == fus) b += $8; next } $1 == bp && $3 == fus ".renamed" { a += $8 } END { printf "%.6f", a - b }' "$T/ost.tsv" "$T/rt.tsv")
	"$D" $KB -q -b "$T/osm.tsv" -a "$T/osm.tsv" "$T/ost.tsv" "$T/rt.tsv" > "$T/rn.tsv"
	check "renamed fusion by thunk: removed and added" test "$(row "$T/rn.tsv" Name "$FUS" Match)/$(row "$T/rn.tsv" Name "$FUS.renamed" Match)" = removed/added
	"$D" $KB -q -k op_name -b "$T/fr/hlo.tsv" -a "$T/rh.tsv" -b "$T/osm.tsv" -a "$T/osm.tsv" "$T/ost.tsv" "$T/rt.tsv" > "$T/ro.tsv"
	check "renamed fusion by op_name: first, matched, its delta" test "$(sed -n 2p "$T/ro.tsv" | cut -f 4,5)" = "$OP	id"
	check "renamed fusion by op_name: contribution" near "$(sed -n 2p "$T/ro.tsv" | cut -f 17)" "$want" 0.000002
else
	notok "extract: $(head -n 1 "$T/e")"
fi

# ---- differential folded stacks ----
"$F" -b op_name -H "$T/fr/hlo.tsv" "$T/ost.tsv" > "$T/b.folded"
"$F" -b op_name -H "$T/fr/hlo.tsv" "$T/rt.tsv" > "$T/a.folded" 2> /dev/null
"$F" -d "$T/b.folded" "$T/a.folded" > "$T/d.folded"
check "fold -d: exit 0" test $? -eq 0
sumcol() { awk -v c="$2" '{ s += $(NF - 2 + c) } END { printf "%.0f\n", s }' "$1"; }
sum1() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
check "fold -d: BEFORE's counts add up" test "$(sumcol "$T/d.folded" 1)" = "$(sum1 "$T/b.folded")"
check "fold -d: AFTER's counts add up" test "$(sumcol "$T/d.folded" 2)" = "$(sum1 "$T/a.folded")"
check "fold -d: one line per stack of either" test "$(wc -l < "$T/d.folded")" -eq "$(cat "$T/b.folded" "$T/a.folded" | sed 's/ [0-9]*$//' | sort -u | wc -l)"
check "fold -d: flamegraph.pl reads two counts on every line" perl -e '
	my $bad = 0; my $n = 0;
	while (<>) { chomp; $n++;
		my ($s, $c2) = /^(.*)\s+?(\d+(?:\.\d*)?)$/ or do { $bad++; next };
		$s =~ /^(.*)\s+?(\d+(?:\.\d*)?)$/ or $bad++ }
	exit($bad || !$n)' "$T/d.folded"
"$F" -d -n "$T/b.folded" "$T/a.folded" > "$T/dn.folded"
check "fold -d -n: both columns add up to AFTER's total" test "$(sumcol "$T/dn.folded" 1)" = "$(sum1 "$T/a.folded")"
check "fold -d: same input, same bytes" sh -c '"$1" -d "$2" "$3" | cmp -s - "$4"' sh "$F" "$T/b.folded" "$T/a.folded" "$T/d.folded"
if command -v flamegraph.pl > /dev/null; then
	PERL_HASH_SEED=0 flamegraph.pl --hash "$T/d.folded" > "$T/d1.svg" 2> "$T/fg.err"
	PERL_HASH_SEED=0 flamegraph.pl --hash "$T/d.folded" > "$T/d2.svg"
	check "flamegraph.pl draws the differential" sh -c 'grep -q "<svg" "$1" && ! grep -q Ignored "$2"' sh "$T/d1.svg" "$T/fg.err"
	check "flamegraph.pl --hash, PERL_HASH_SEED=0: same bytes" cmp -s "$T/d1.svg" "$T/d2.svg"
else
	skip "flamegraph.pl not on PATH: the SVG"
fi

# ---- pipelines/diff.sh: A/A on the archives, then a planted frames dir ----
P4="$DATA/pax_fsdp4_4proc_proc0.zip $DATA/pax_fsdp4_4proc_proc1.zip $DATA/pax_fsdp4_4proc_proc2.zip $DATA/pax_fsdp4_4proc_proc3.zip"
NSYSJAX_BIN=$BIN sh pipelines/diff.sh $KB -o "$T/pa" -t 10 $P4 -- $P4 > "$T/pa.out" 2> "$T/pa.err"
check "diff.sh A/A: exit 0" test $? -eq 0
for f in thunks.tsv modules.tsv op_names.tsv report.txt before.folded after.folded diff.folded diff-section.html diff.html; do
	check "diff.sh writes $f" test -s "$T/pa/$f"
done
check "diff.sh A/A: no change" awk -F'\t' 'NR > 1 && $17 != 0 { bad++ } END { exit bad > 0 || NR < 2 }' "$T/pa/thunks.tsv"
check "diff.sh: the HTML fragment is one section, no external request" sh -c '
	test "$(grep -c "<section id=\"nsysjax-diff\">" "$1")" -eq 1 &&
	! grep -Eiq "(src|href)=\"(https?:)?//|@import|<script|<link" "$1"' sh "$T/pa/diff-section.html"
check "diff.sh: the page is the fragment in a document" sh -c 'head -n 1 "$1" | grep -q "<!DOCTYPE html>" && grep -q "<section id=\"nsysjax-diff\">" "$1"' sh "$T/pa/diff.html"
check "diff.sh: the page allows nothing but inline styles and data: images" grep -q "default-src .none.; style-src .unsafe-inline.; img-src data:" "$T/pa/diff.html"
mkdir -p "$T/fp"
cp "$T/fr"/*.tsv "$T/fp/"
BP=$BP FUS=$FUS COL=$COL NEWID=none plant "$T/fr/thunk.tsv" "$T/fp/thunk.tsv"
NSYSJAX_BIN=$BIN sh pipelines/diff.sh $KB -o "$T/pb" -t 10 "$T/fr" -- "$T/fp" > "$T/pb.out" 2> "$T/pb.err"
check "diff.sh planted: exit 3" test $? -eq 3
check "diff.sh planted: the two slowdowns first" test "$(sed -n '2,3p' "$T/pb/thunks.tsv" | cut -f 4 | sort | tr '\n' ' ')" = "$(printf '%s\n%s\n' "$FUS" "$COL" | sort | tr '\n' ' ')"
check "diff.sh planted: the verdict in the HTML" grep -q 'regression' "$T/pb/diff-section.html"

# ---- the examples of the man page, run as written ----
# on the four sample archives as both runs ("before/" and "after/").
# Commands are "$ " lines of the man page's EXAMPLES (\e is a backslash);
# a line ending in a backslash goes on.
abs=$(cd "$BIN" && pwd)
awk '/^\.Sh EXAMPLES/ { on = 1; next } /^\.Sh/ { on = 0 }
    !on { next }
    { gsub(/\\e/, "\\") }
    cont { sub(/^ +/, ""); cmd = cmd " " $0 }
    !cont && /^\$ / { cmd = substr($0, 3) }
    { cont = cmd ~ /\\$/; if (cont) sub(/\\$/, "", cmd) }
    cmd != "" && !cont { print cmd; cmd = "" }' man/nsysjax-diff.1 > "$T/man.sh"
for s in man; do
	mkdir -p "$T/ex/$s/before" "$T/ex/$s/after"
	for i in 0 1 2 3; do
		ln -s "$(cd "$DATA" && pwd)/pax_fsdp4_4proc_proc$i.zip" "$T/ex/$s/before/rank$i.zip"
		ln -s "$(cd "$DATA" && pwd)/pax_fsdp4_4proc_proc$i.zip" "$T/ex/$s/after/rank$i.zip"
	done
	n=$(wc -l < "$T/$s.sh")
	if [ "$n" -ge 5 ] && (cd "$T/ex/$s" && PATH="$abs:$PATH" sh -e "$T/$s.sh" > out 2> err) &&
	    grep -q "^Module	" "$T/ex/$s/out"; then
		ok
	else
		notok "$s examples ($n commands): $(head -5 "$T/ex/$s/err" 2>/dev/null)"
	fi
done

# ---- a gate that cannot fail says so (exit 4) ----
# Process 0 against process 3 of the shared run, as the README runs the
# pipeline (pipelines/diff.sh, executed): three steady executions a side.
# The smallest p-value of the rank test at n a side is that of every
# value after above every value before (U = n^2, no ties):
# z = (n^2 / 2 - 1/2) / sqrt(n^2 (2n + 1) / 12), p = erfc(z / sqrt 2)
# (erfc here by Abramowitz and Stegun 7.1.26, error < 1.5e-7); with Holm
# over M tests, significance needs M p < 0.05: the least such n is N.
if have_data; then
	pipelines/diff.sh -o "$T/np" -t 5 "$DATA/pax_fsdp4_4proc_proc0.zip" -- "$DATA/pax_fsdp4_4proc_proc3.zip" > "$T/np.out" 2> "$T/np.err"
	st=$?
	check "no power: exit 4" test "$st" -eq 4
	m=$(sed -n 's/^no power: 3 executions per item, at least [0-9]* needed for p < 0\.05 (Mann-Whitney U, Holm over \([0-9]*\) item tests).*/\1/p' "$T/np.out")
	tested=$(sed -n 's/^items: .*; \([0-9]*\) tested .*/\1/p' "$T/np.out")
	want=$(awk -v m="$tested" 'function erfc(x,  t) { t = 1 / (1 + 0.3275911 * x)
	    return t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * exp(-x * x) }
	    BEGIN { for (n = 1; n < 1000; n++) { z = (n * n / 2 - 0.5) / sqrt(n * n * (2 * n + 1) / 12)
	      if (z > 0 && m * erfc(z / sqrt(2)) < 0.05) { print n; exit } } }')
	check "no power: N for Holm over the tested items" grep -q "^no power: 3 executions per item, at least $want needed for p < 0.05 (Mann-Whitney U, Holm over $tested item tests)" "$T/np.out"
	check "no power: the tests counted are the tested items" test "$m" = "$tested"
	check "no power: the gate's verdict" grep -q '^gate (-t 5, -p 0.05): NO POWER (exit 4)' "$T/np.out"
	check "no power: the HTML verdict" grep -q 'Gate (slower by more than 5% and significant): no power' "$T/np/diff-section.html"
	check "no power: the output is kept" test -s "$T/np/thunks.tsv"
	# Without a gate the same comparison exits 0: no power is a verdict
	# of the gate alone.
	pipelines/diff.sh -o "$T/np0" "$DATA/pax_fsdp4_4proc_proc0.zip" -- "$DATA/pax_fsdp4_4proc_proc3.zip" > /dev/null 2>&1
	check "no power: exit 0 without -t" test $? -eq 0
fi

done_testing t85-diff
