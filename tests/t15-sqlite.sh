#!/bin/sh
# nsys SQLite exports: the nvtx frame (the NVTX -> GPU projection) of the
# real exports in ../shared/data/nsys-sqlite against the independent
# golden files; the XLA frames of the 4-process run converted to exports
# (tests/sqlite/mkexport.c) against the archive path and the reference;
# hand-made exports for each rule (expected rows worked out by hand in
# the comments); the errors; and archives older than
# thread-metadata.parquet.
set -u
. tests/lib.sh
: "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
X=$BIN/nsysjax-extract
SQ=$SHARED/data/nsys-sqlite
SG=$GOLD/nsys-sqlite
TAB=$(printf '\t')

if [ ! -x "$MKEXPORT" ]; then
	notok "$MKEXPORT not built (make $MKEXPORT)"
	done_testing t15-sqlite
	exit 1
fi

# expect_error STATUS PATTERN CMD...: one stderr line matching PATTERN,
# nothing on stdout.
expect_error() {
	want=$1 pat=$2; shift 2
	"$@" > "$T/o" 2> "$T/e"; rc=$?
	if [ $rc -ne "$want" ]; then notok "exit $rc, want $want: $*"; cat "$T/e"; return; fi
	if [ "$(wc -l < "$T/e")" -ne 1 ]; then notok "not one line: $*"; cat "$T/e"; return; fi
	if ! grep -q "$pat" "$T/e"; then notok "message '$(cat "$T/e")' lacks '$pat'"; return; fi
	if [ -s "$T/o" ]; then notok "output written on error: $*"; return; fi
	ok
}

# frame_invariants FILE: ParentId and every RangeStack id are rows of the
# frame, a parent's projection contains its child's and its NumGPUOps is
# at least the child's, Lvl is the RangeStack depth - 1.
frame_invariants() {
	awk -F'\t' 'NR == 1 { next }
	{ k = $7 SUBSEP $12; id[k] = 1; ps[k] = $2; pe[k] = $2 + $3; n[k] = $9
	  pid[NR] = $7; par[NR] = $13
	  cs[NR] = $2; ce[NR] = $2 + $3; cn[NR] = $9; st[NR] = $14; lvl[NR] = $10 }
	END {
		for (r in par) {
			if (par[r] != "") {
				p = pid[r] SUBSEP par[r]
				if (!(p in id)) { print "parent " par[r] " not a row"; bad++; continue }
				if (ps[p] > cs[r] || pe[p] < ce[r]) { print "parent " par[r] " does not contain"; bad++ }
				if (n[p] < cn[r]) { print "parent " par[r] " has fewer ops"; bad++ }
			}
			k = split(st[r], s, ":")
			for (i = 2; i <= k; i++) if (!((pid[r] SUBSEP s[i]) in id)) { print "stack id " s[i]; bad++ }
			if (k - 2 != lvl[r]) { print "Lvl " lvl[r] " vs stack " st[r]; bad++ }
		}
		exit bad > 0
	}' "$1"
}

# ---- the real exports ----
if [ -d "$SQ" ] && [ -d "$SG" ]; then
	for e in saxpy-mpi-cuda_nsys_perlmutter0:5:0 mfu_2gpu_before:9621:31 h100_2gpu_1s:3242:2276; do
		f=${e%%:*}; rest=${e#*:}; rows=${rest%%:*}; unl=${rest#*:}
		if $X -f nvtx "$SQ/$f.sqlite" > "$T/$f.tsv" 2> "$T/$f.err"; then ok; else notok "extract -f nvtx $f"; cat "$T/$f.err"; fi
		check "$f: nvtx frame equals the golden one" cmp "$SG/$f.nvtx.tsv" "$T/$f.tsv"
		n=$(($(wc -l < "$T/$f.tsv") - 1))
		[ "$n" -eq "$rows" ] && ok || notok "$f: $n rows, want $rows"
		check "$f: invariants" frame_invariants "$T/$f.tsv"
		if [ "$unl" -eq 0 ]; then
			[ ! -s "$T/$f.err" ] && ok || notok "$f: stderr: $(cat "$T/$f.err")"
		else
			grep -q ": $unl of [0-9]* GPU operations have no launching CUDA call" "$T/$f.err" &&
			    [ "$(wc -l < "$T/$f.err")" -eq 1 ] && ok || notok "$f: note of $unl ops: $(cat "$T/$f.err")"
		fi
	done
	# Same input, same bytes.
	$X -f nvtx "$SQ/mfu_2gpu_before.sqlite" 2>/dev/null | cmp -s - "$T/mfu_2gpu_before.tsv" && ok || notok "not deterministic"
	# An MPI+CUDA capture without -t nvtx (no NVTX_EVENTS table, its
	# kernels there): named as such, with the fix.
	expect_error 1 "perlmutter-cloverleaf-cuda.sqlite: GPU work but no NVTX ranges (no NVTX_EVENTS rows): nsys ran without -t nvtx, so there are no XLA thunks or modules, no per-operation or per-module times; record with nsys profile -t cuda,nvtx" \
	    $X -f nvtx "$SQ/perlmutter-cloverleaf-cuda.sqlite"
	# Damaged copies of an export.
	S=$SQ/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
	head -c 500000 "$S" > "$T/trunc.sqlite"
	expect_error 1 "trunc.sqlite: truncated SQLite file (500000 of 1613824 bytes)" $X -f nvtx "$T/trunc.sqlite"
	head -c 60 "$S" > "$T/short.sqlite"
	expect_error 1 "short.sqlite: truncated SQLite file (60 bytes)" $X -f nvtx "$T/short.sqlite"
	{ head -c 4096 /dev/zero; tail -c +4097 "$S"; } > "$T/zeroed.sqlite"
	expect_error 1 "zeroed.sqlite: zeroed SQLite header (an interrupted export?" $X -f nvtx "$T/zeroed.sqlite"
	# Pages of garbage past the header: SQLite's own message, one line.
	cp "$S" "$T/garbled.sqlite"; chmod u+w "$T/garbled.sqlite"
	head -c 200000 /dev/zero | tr '\0' '\377' | dd of="$T/garbled.sqlite" bs=1 seek=100 conv=notrunc 2>/dev/null
	expect_error 1 "garbled.sqlite: .*" $X -f nvtx "$T/garbled.sqlite"
else
	skip "real exports: $SQ not found"
fi
printf 'hello' > "$T/text.sqlite"
expect_error 1 "text.sqlite: not a SQLite database" $X -f nvtx "$T/text.sqlite"
: > "$T/empty.sqlite"
expect_error 1 "empty.sqlite: empty file" $X -f nvtx "$T/empty.sqlite"
expect_error 1 "nosuch.sqlite: cannot open" $X -f nvtx "$T/nosuch.sqlite"
mkdir -p "$T/two"; cp "$T/text.sqlite" "$T/two/a.sqlite"; cp "$T/text.sqlite" "$T/two/b.sqlite"
expect_error 1 "two: holds a.sqlite and b.sqlite: one nsys export per input" $X -f nvtx "$T/two"

# ---- hand-made exports ----
# spec NAME: the export $T/NAME.sqlite from the spec on stdin.
spec() { "$MKEXPORT" spec - "$T/$1.sqlite" || notok "mkexport $1"; }
# expect NAME: the nvtx frame of $T/NAME.sqlite equals stdin (header
# added; "|" stands for a TAB), and its stderr equals $T/NAME.want-err
# when that exists, else is empty.
expect() {
	{ printf 'Name|ProjStartNs|ProjDurNs|OrigStartNs|OrigDurNs|Style|PID|TID|NumGPUOps|Lvl|NumChild|RangeId|ParentId|RangeStack\n'; cat; } |
	    tr '|' "$TAB" > "$T/$1.want"
	$X -f nvtx "$T/$1.sqlite" > "$T/$1.got" 2> "$T/$1.err"
	if cmp -s "$T/$1.want" "$T/$1.got"; then ok; else notok "$1: nvtx frame"; diff "$T/$1.want" "$T/$1.got" | head -20; fi
	if [ -f "$T/$1.want-err" ]; then
		grep -q "$(cat "$T/$1.want-err")" "$T/$1.err" && [ "$(wc -l < "$T/$1.err")" -eq 1 ] && ok ||
		    notok "$1: stderr '$(cat "$T/$1.err")'"
	else
		[ ! -s "$T/$1.err" ] && ok || notok "$1: stderr '$(cat "$T/$1.err")'"
	fi
}

# Process 100, thread 100: globalTid 0x1000064000064 (VM byte 1).
# Nesting, textId and text names, a named domain, kernel, memcpy, memset,
# a range without GPU work (idle: not output, not counted as a child).
#   outer [100,1000] contains the calls at 300, 650, 700: ops 2000..2450
#   inner [200,500]: the call at 300: kernel 2000..2100
#   MyDom:dom [600,900]: 650 (memcpy 2200..2300) and 700 (memset ..2450)
NEST='thread 0x1000064000064 main
domain 1 0x1000064000064 1 0 MyDom
nvtx 2 59 0x1000064000064 100 1000 - 0 outer
nvtx 3 59 0x1000064000064 200 500 - 0 @inner
nvtx 4 59 0x1000064000064 600 900 - 1 @dom
nvtx 5 59 0x1000064000064 850 880 - 0 idle
call 0x1000064000064 300 310 1 0
kernel 2000 2100 1 0x1000064000000 0 7 -
call 0x1000064000064 650 660 2 0
memcpy 2200 2300 2 0x1000064000000 0 7 -
call 0x1000064000064 700 710 3 0
memset 2400 2450 3 0x1000064000000 0 7 -'
NEST_WANT=':outer|2000|450|100|900|PushPop|100|100|3|0|2|2||:2
:inner|2000|100|200|300|PushPop|100|100|1|1|0|3|2|:2:3
MyDom:dom|2200|250|600|300|PushPop|100|100|2|1|0|4|2|:2:4'
echo "$NEST" | spec nest
echo "$NEST_WANT" | expect nest
# Without ENUM_NSYS_EVENT_TYPE (nsys 2022.2) the default type ids hold.
{ echo "omit ENUM"; echo "$NEST"; } | spec noenum
echo "$NEST_WANT" | expect noenum
# Launch lookup (keys found by galloping through sorted
# correlation ids): 40 calls in time order whose ids come scrambled (each
# jump forward and back, far and near), calls of ids that launched
# nothing, kernels listed out of order, and a second process reusing ids
# 1-3 on its own thread.  Every call of process 100 lies in
# "scrambled": 40 launches, kernels 2010..2405; process 200's three:
# 5010..5035.
awk 'BEGIN {
	print "thread 0x1000064000064 main"; print "thread 0x10000C80000C8 other"
	print "nvtx 2 59 0x1000064000064 0 10000 - 0 scrambled"
	print "nvtx 3 59 0x10000C80000C8 0 10000 - 0 otherproc"
	n = split("40 1 39 2 38 20 21 3 37 19 22 4 36 18 23 5 35 17 24 6 34 16 25 7 33 15 26 8 32 14 27 9 31 13 28 10 30 12 29 11", c, " ")
	for (k = 1; k <= n; k++) {
		printf "call 0x1000064000064 %d %d %d 0\n", 100 + 20 * k, 105 + 20 * k, c[k]
		if (k % 9 == 0)	# an id that launched nothing
			printf "call 0x1000064000064 %d %d %d 0\n", 110 + 20 * k, 112 + 20 * k, 100 + k
	}
	for (k = n; k >= 1; k--)
		printf "kernel %d %d %d 0x1000064000000 0 7 -\n", 2000 + 10 * c[k], 2005 + 10 * c[k], c[k]
	split("3 1 2", o, " ")
	for (k = 1; k <= 3; k++) {
		printf "call 0x10000C80000C8 %d %d %d 0\n", 100 + 10 * k, 105 + 10 * k, o[k]
		printf "kernel %d %d %d 0x10000C8000000 0 7 -\n", 5000 + 10 * o[k], 5005 + 10 * o[k], o[k]
	}
}' | spec lookup
printf '%s\n' ':scrambled|2010|395|0|10000|PushPop|100|100|40|0|0|2||:2' \
    ':otherproc|5010|25|0|10000|PushPop|200|200|3|0|0|3||:3' | expect lookup

# The same domain id in another process without a create row: no name;
# a later creation of a domain id in the same process does not rename it.
{ echo "$NEST"; echo 'domain 8 0x1000064000064 1 50 Renamed
nvtx 9 59 0x10000C80000C8 100 200 - 1 @other
call 0x10000C80000C8 150 160 1 0
kernel 2500 2600 1 0x10000C8000000 0 3 -'; } | spec domains
{ echo "$NEST_WANT"; echo ':other|2500|100|100|100|PushPop|200|200|1|0|0|9||:9'; } | expect domains

# Start/end ranges overlap push/pop ones; an unterminated range ends at
# the last range event (5000); a range ending on another thread is no
# candidate; containment is inclusive at both ends.
#   se1 [100,400] and pp [300,600]: calls 320 and 390 (ops 1000..1300)
#   open [350,5000]: calls 390 and 5000 (1200..1500); last [5000,5000]
#   is inside it: its child
{ cat <<'S'
thread 0x1000064000064 main
nvtx 1 60 0x1000064000064 100 400 - 0 se1
nvtx 2 59 0x1000064000064 300 600 - 0 pp
nvtx 3 60 0x1000064000064 350 - - 0 open
nvtx 4 60 0x1000064000064 120 380 0x1000064000065 0 moved
nvtx 5 59 0x1000064000064 5000 5000 - 0 last
call 0x1000064000064 320 330 1 0
kernel 1000 1100 1 0x1000064000000 0 7 -
call 0x1000064000064 390 395 2 0
kernel 1200 1300 2 0x1000064000000 0 7 -
call 0x1000064000064 5000 5000 3 0
kernel 1400 1500 3 0x1000064000000 0 7 -
S
} | spec startend
echo "1 NVTX ranges never end" > "$T/startend.want-err"
expect startend <<'W'
:se1|1000|300|100|300|StartEnd|100|100|2|0|0|1||:1
:pp|1000|300|300|300|PushPop|100|100|2|0|0|2||:2
:open|1200|300|350|4650|StartEnd|100|100|2|0|1|3||:3
:last|1400|100|5000|0|PushPop|100|100|1|1|0|5|3|:3:5
W

# Two processes use correlation id 7; process 100's call is recorded
# twice (eventClass 0 and a wider backtrace copy, 67) and launched two
# kernels (one launch: NumGPUOps 1, envelope 3000..3300); thread 101's
# range covers the time of thread 100's call but not its thread; two ops
# have no launch row (correlation id 8 unknown, and NULL).
{ cat <<'S'
nvtx 1 59 0x1000064000064 100 1000 - 0 p100
nvtx 2 59 0x10000C80000C8 100 1000 - 0 p200
nvtx 3 59 0x1000064000065 100 1000 - 0 other
call 0x1000064000064 200 210 7 0
call 0x1000064000064 195 215 7 67
kernel 3000 3100 7 0x1000064000000 0 7 -
kernel 3050 3300 7 0x1000064000000 0 7 -
call 0x10000C80000C8 300 310 7 0
kernel 4000 4100 7 0x10000C8000000 1 9 -
kernel 5000 5100 8 0x1000064000000 0 7 -
memcpy 5200 5300 - 0x1000064000000 0 7 -
S
} | spec procs
echo ": 2 of 5 GPU operations have no launching CUDA call" > "$T/procs.want-err"
expect procs <<'W'
:p100|3000|300|100|900|PushPop|100|100|1|0|0|1||:1
:p200|4000|100|100|900|PushPop|200|200|1|0|0|2||:2
W

# CUDA graphs in node mode: nodes 11 and 12 are captured inside Thunk:a
# and Thunk:b (Module is open too, but only the innermost range gets
# capture-time work), instantiated as clones 21 and 22, and the graph is
# launched twice (correlation ids 5 and 6) inside Exec and Exec2.  Each
# Thunk gets its node's kernels of both launches (NumGPUOps 2); each Exec
# the whole graph of its launch.
{ cat <<'S'
nvtx 1 59 0x1000064000064 50 500 - 0 Module
nvtx 2 59 0x1000064000064 100 200 - 0 Thunk:a
nvtx 3 59 0x1000064000064 300 400 - 0 Thunk:b
nvtx 4 59 0x1000064000064 1000 2000 - 0 Exec
nvtx 5 59 0x1000064000064 4000 5000 - 0 Exec2
node 0x1000064000064 150 160 11 -
node 0x1000064000064 350 360 12 -
node 0x1000064000064 600 610 21 11
node 0x1000064000064 600 610 22 12
call 0x1000064000064 1100 1110 5 0
kernel 3000 3100 5 0x1000064000000 0 7 21
kernel 3100 3300 5 0x1000064000000 0 7 22
call 0x1000064000064 4100 4110 6 0
kernel 6000 6050 6 0x1000064000000 0 7 21
kernel 6050 6200 6 0x1000064000000 0 7 22
S
} | spec graph
expect graph <<'W'
:Thunk:a|3000|3050|100|100|PushPop|100|100|2|1|0|2|1|:1:2
:Exec|3000|300|1000|1000|PushPop|100|100|1|0|0|4||:4
:Thunk:b|3100|3100|300|100|PushPop|100|100|2|1|0|3|1|:1:3
:Exec2|6000|200|4000|1000|PushPop|100|100|1|0|0|5||:5
W

# Tables a profile without CUDA or NVTX trace lacks.
# Kernels without NVTX (nsys -t cuda): no table, or an empty one.
{ echo "omit NVTX"; echo "$NEST"; } | spec nonvtx
expect_error 1 "nonvtx.sqlite: GPU work but no NVTX ranges (no NVTX_EVENTS rows): nsys ran without -t nvtx" $X -f nvtx "$T/nonvtx.sqlite"
expect_error 1 "nonvtx.sqlite: GPU work but no NVTX ranges" $X -o "$T/nonvtx.d" "$T/nonvtx.sqlite"
echo "$NEST" | grep -v '^nvtx\|^domain' | spec emptynvtx
expect_error 1 "emptynvtx.sqlite: GPU work but no NVTX ranges (no NVTX_EVENTS rows)" $X "$T/emptynvtx.sqlite"
# Neither NVTX nor GPU work: the table's absence is the message.
{ echo "omit NVTX"; echo "$NEST" | grep -v '^kernel\|^memcpy\|^memset'; } | spec nothing
expect_error 1 "nothing.sqlite: no NVTX_EVENTS table: profile without NVTX" $X -f nvtx "$T/nothing.sqlite"
{ echo "omit RUNTIME"; echo "$NEST"; } | spec nocuda
expect_error 1 "nocuda.sqlite: no CUPTI_ACTIVITY_KIND_RUNTIME or GPU activity table: profile without CUDA trace (record with --trace=cuda,nvtx)" \
    $X -f nvtx "$T/nocuda.sqlite"
# The XLA frames of an export without XLA ranges: no JAX program, said
# at extraction, with what reads it; its nvtx frame is fine.
expect_error 1 "nest.sqlite: no XLA module ranges (XlaModule:) over GPU work in this profile: not a JAX program (nsysjax-extract -f nvtx" \
    $X -f thunk "$T/nest.sqlite"
expect_error 1 "not a JAX program" $X -o "$T/nestframes" "$T/nest.sqlite"
[ ! -e "$T/nestframes/thunk.tsv" ] && ok || notok "frames written for a non-JAX export"
$X -f nvtx "$T/nest.sqlite" > "$T/o" 2> "$T/e" && [ "$(wc -l < "$T/o")" -gt 1 ] && ok || notok "nvtx frame of a non-XLA export: $(cat "$T/e")"
# The report stops there, with that message, and writes nothing.
NSYSJAX_BIN=$BIN sh pipelines/report.sh -q -o "$T/nestrep" "$T/nest.sqlite" > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'not a JAX program' "$T/e" && [ ! -e "$T/nestrep" ] && ok || notok "report of a non-JAX export: exit $rc, $(cat "$T/e")"

# ---- XLA's thunk names since mid-2026 ----
# annotation.cc MakeInstructionTitle writes "hlo_op=OP,unique_hlo_op_id=ID#",
# ID the instruction's HloInstructionProto.id; mkexport's "hlo" line numbers
# the instructions 1, 2, 3 in order.  xla SPEC: the export $T/SPEC.sqlite
# with its dump, from stdin; its thunk frame in $T/SPEC.thunk (stderr in
# $T/SPEC.xerr).
xla() {
	mkdir -p "$T/$1"
	"$MKEXPORT" spec - "$T/$1/$1.sqlite" || notok "mkexport $1"
	$X -f thunk "$T/$1/$1.sqlite" > "$T/$1.thunk" 2> "$T/$1.xerr" || notok "extract $1: $(cat "$T/$1.xerr")"
}
# thunk_rows SPEC: Name, ThunkExecution, ProjDurMs, Communication per row.
thunk_rows() { awk -F'\t' 'NR > 1 { print $3, $4, $8, $13 }' "$T/$1.thunk"; }
# ids_spec F1 F2 F3: all-reduce.2, fusion.1 and fusion.3 (ids 2, 1, 3) in
# one execution of jit_g, named by the three range texts given.
ids_spec() {
	echo "thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 6 jit_g fusion.1:fusion all-reduce.2:all-reduce fusion.3:fusion
nvtx 2 59 0x1000064000064 1000 9000 - 1 XlaModule:#hlo_module=jit_g,program_id=6#
nvtx 3 59 0x1000064000064 1100 1200 - 1 $1
call 0x1000064000064 1110 1120 2 0
nvtx 4 59 0x1000064000064 1300 1400 - 1 $2
call 0x1000064000064 1310 1320 3 0
nvtx 5 59 0x1000064000064 1500 1600 - 1 $3
call 0x1000064000064 1510 1520 4 0
kernel 10000000 10400000 2 0x1000064000000 0 7 -
kernel 10500000 10600000 3 0x1000064000000 0 8 -
kernel 10700000 10900000 4 0x1000064000000 0 9 -"
}
ids_spec 'Thunk:#hlo_op=all-reduce.2#' 'Thunk:#name=jit(g)/a,b=c,hlo_op=fusion.1#' 'Thunk:#hlo_op=fusion.3#' | xla old24
ids_spec 'Thunk:#hlo_op=all-reduce.2,unique_hlo_op_id=2#' 'Thunk:#name=jit(g)/a,b=c,hlo_op=fusion.1,unique_hlo_op_id=1#' \
    'Thunk:#hlo_op=fusion.3,unique_hlo_op_id=3,stream=2#' | xla new26
# By hand: all-reduce.2 0.4 ms, communication; fusion.1 0.1, fusion.3 0.2.
printf '%s\n' 'all-reduce.2 0 0.4 1' 'fusion.1 0 0.1 0' 'fusion.3 0 0.2 0' > "$T/ids.want"
thunk_rows old24 | cmp -s - "$T/ids.want" && ok || notok "old names: $(thunk_rows old24)"
check "today's names (and a field unknown today) give the thunk frame of the old ones" cmp "$T/old24.thunk" "$T/new26.thunk"
[ ! -s "$T/new26.xerr" ] && ok || notok "today's names: stderr $(cat "$T/new26.xerr")"
# Planted: fusion.1 says id 3 (fusion.3's), fusion.3 says 99 (no
# instruction): both keep their rows and times without HLO metadata
# (Communication empty), with one note for the dump; all-reduce.2 agrees.
ids_spec 'Thunk:#hlo_op=all-reduce.2,unique_hlo_op_id=2#' 'Thunk:#hlo_op=fusion.1,unique_hlo_op_id=3#' \
    'Thunk:#hlo_op=fusion.3,unique_hlo_op_id=99#' | xla badid
printf '%s\n' 'all-reduce.2 0 0.4 1' 'fusion.1 0 0.1 ' 'fusion.3 0 0.2 ' > "$T/badid.want"
thunk_rows badid | cmp -s - "$T/badid.want" && ok || notok "ids that disagree: $(thunk_rows badid)"
[ "$(grep -c 'module jit_g: 2 executions of 2 thunks whose unique_hlo_op_id names no instruction of its dump or another one than its hlo_op (fusion.1, fusion.3): kept without HLO metadata' "$T/badid.xerr")" -eq 1 ] &&
    [ "$(wc -l < "$T/badid.xerr")" -eq 1 ] && ok || notok "one note for the ids that disagree: $(cat "$T/badid.xerr")"
$X -f hlo "$T/badid/badid.sqlite" 2>/dev/null | awk -F'\t' 'NR > 1 { print $2 }' | sort | tr '\n' ' ' | grep -qx 'all-reduce.2 ' &&
    ok || notok "hlo frame: only the instruction whose id agrees"

# Sequential thunks (loop bodies, conditional branches: openxla/xla#21134)
# wrap their thunks in one more range, the annotation of the while or
# conditional instruction again (SequentialThunk::ExecuteOnStream).  The
# rows are still the thunks that reach the GPU: fusion.1 and fusion.3 in
# both iterations of while.1 (ThunkExecution 0, 1), fusion.5 in the taken
# branch of conditional.4; not the while (whose own memcpy of the loop
# predicate, 0.05 ms, is in no row, as before), nor the sequences.
#   hlo ids: fusion.1 1, fusion.3 2, while.1 3, conditional.4 4, fusion.5 5
seq_spec() {	# SUFFIX_OF_ID_1 ... SUFFIX_OF_ID_5: ",unique_hlo_op_id=N" or ""
	echo "thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#
domain 1 0x1000064000064 1 0 TSL
hlo 7 jit_w fusion.1:fusion fusion.3:fusion while.1:while conditional.4:conditional fusion.5:fusion
nvtx 2 59 0x1000064000064 1000 20000 - 1 XlaModule:#hlo_module=jit_w,program_id=7#
nvtx 3 59 0x1000064000064 1100 9000 - 1 Thunk:#name=jit(w)/while,hlo_op=while.1$3#
nvtx 4 59 0x1000064000064 1200 4000 - 1 Thunk:#name=jit(w)/while,hlo_op=while.1$3#
nvtx 5 59 0x1000064000064 1300 1400 - 1 Thunk:#name=jit(w)/while/body/mul,hlo_op=fusion.1$1#
call 0x1000064000064 1310 1320 2 0
nvtx 6 59 0x1000064000064 1500 1600 - 1 Thunk:#hlo_op=fusion.3$2#
call 0x1000064000064 1510 1520 3 0
call 0x1000064000064 4100 4110 4 0
nvtx 7 59 0x1000064000064 4200 8000 - 1 Thunk:#name=jit(w)/while,hlo_op=while.1$3#
nvtx 8 59 0x1000064000064 4300 4400 - 1 Thunk:#name=jit(w)/while/body/mul,hlo_op=fusion.1$1#
call 0x1000064000064 4310 4320 5 0
nvtx 9 59 0x1000064000064 4500 4600 - 1 Thunk:#hlo_op=fusion.3$2#
call 0x1000064000064 4510 4520 6 0
nvtx 10 59 0x1000064000064 10000 15000 - 1 Thunk:#hlo_op=conditional.4$4#
nvtx 11 59 0x1000064000064 10100 14000 - 1 Thunk:#hlo_op=conditional.4$4#
nvtx 12 59 0x1000064000064 10200 10300 - 1 Thunk:#hlo_op=fusion.5$5#
call 0x1000064000064 10210 10220 7 0
kernel 10000000 10100000 2 0x1000064000000 0 7 -
kernel 10100000 10300000 3 0x1000064000000 0 7 -
memcpy 10300000 10350000 4 0x1000064000000 0 7 -
kernel 10400000 10500000 5 0x1000064000000 0 7 -
kernel 10500000 10700000 6 0x1000064000000 0 7 -
kernel 10800000 11100000 7 0x1000064000000 0 7 -"
}
seq_spec '' '' '' '' '' | xla seq24
seq_spec ,unique_hlo_op_id=1 ,unique_hlo_op_id=2 ,unique_hlo_op_id=3 ,unique_hlo_op_id=4 ,unique_hlo_op_id=5 | xla seq26
printf '%s\n' 'fusion.1 0 0.1 0' 'fusion.1 1 0.1 0' 'fusion.3 0 0.2 0' 'fusion.3 1 0.2 0' 'fusion.5 0 0.3 0' > "$T/seq.want"
thunk_rows seq24 | cmp -s - "$T/seq.want" && ok || notok "sequential thunks (old names): $(thunk_rows seq24)"
check "sequential thunks: today's names give the old frame" cmp "$T/seq24.thunk" "$T/seq26.thunk"
[ ! -s "$T/seq26.xerr" ] && ok || notok "sequential thunks: stderr $(cat "$T/seq26.xerr")"
$X -f module "$T/seq26/seq26.sqlite" 2>/dev/null | awk -F'\t' 'NR == 2 { print $12 }' | grep -qx 5 && ok ||
    notok "sequential thunks: NumThunks 5"

# ---- the example run (make example) as exports ----
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
if [ -x "$MKEXAMPLE" ]; then
	"$MKEXAMPLE" "$T/ex" || notok "mkexample"
	for r in rank0 rank1; do
		mkdir -p "$T/exs/$r"
		"$MKEXPORT" archive "$T/ex/$r" "$T/exs/$r/$r.sqlite" || notok "mkexport $r"
		cp -R "$T/ex/$r/dump" "$T/exs/$r/"
	done
	mkdir -p "$T/exa" "$T/exb"
	$X -o "$T/exa" "$T/ex/rank0" "$T/ex/rank1" && $X -o "$T/exb" "$T/exs/rank0" "$T/exs/rank1" ||
	    notok "extract the example"
	for f in thunk module communication compile hlo heap; do
		check "example $f: exports = archives" cmp "$T/exa/$f.tsv" "$T/exb/$f.tsv"
	done
	# The same exports with today's thunk names (ids from the dumps) and
	# autotuner pass.
	for r in rank0 rank1; do
		mkdir -p "$T/ex26/$r"
		"$MKEXPORT" archive-2026 "$T/ex/$r" "$T/ex26/$r/$r.sqlite" || notok "mkexport archive-2026 $r"
		cp -R "$T/ex/$r/dump" "$T/ex26/$r/"
	done
	n=$($X -f nvtx "$T/ex26/rank0/rank0.sqlite" 2>/dev/null | grep -c '^TSL:Thunk:#[^	]*,unique_hlo_op_id=[0-9]*#	')
	[ "${n:-0}" -gt 10 ] && ok || notok "example as today's names: $n thunk names with ids"
	mkdir -p "$T/exc"
	$X -o "$T/exc" "$T/ex26/rank0" "$T/ex26/rank1" 2> "$T/exc.err" || notok "extract the example with today's names"
	for f in thunk module communication hlo stackframes heap; do
		check "example $f: today's names = archives" cmp "$T/exa/$f.tsv" "$T/exc/$f.tsv"
	done
	awk -v old=gemm-fusion-autotuner -f tests/autotune.awk "$T/exa/compile.tsv" "$T/exa/compile.tsv" > "$T/exa.fold"
	check "example compile: today's names = archives, the autotuner pass folded" cmp "$T/exa.fold" "$T/exc/compile.tsv"
	! grep -q unique_hlo_op_id "$T/exc.err" && ok || notok "example with today's names: $(cat "$T/exc.err")"
else
	notok "$MKEXAMPLE not built"
fi

# ---- the 4-process run as exports ----
if have_data; then
	for i in 0 1 2 3; do
		a=$T/a$i; d=$T/run/proc$i
		mkdir -p "$a" "$d"
		(cd "$a" && unzip -q "$DATA/pax_fsdp4_4proc_proc$i.zip")
		"$MKEXPORT" archive "$a" "$d/proc$i.sqlite" && ok || notok "mkexport archive proc$i"
		cp -R "$a/dump" "$d/dump"
	done
	NAMES=proc0,proc1,proc2,proc3
	mkdir -p "$T/za" "$T/sa"
	check "extract -o archives" $X -n $NAMES -o "$T/za" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip
	check "extract -o exports" $X -n $NAMES -o "$T/sa" "$T"/run/proc[0-3]
	for f in thunk module communication compile hlo stackframes heap; do
		check "$f frame: exports = archives" cmp "$T/za/$f.tsv" "$T/sa/$f.tsv"
	done
	# The shared run as XLA names its thunks since mid-2026, the ids read
	# from each process's dumps: the frames of the old names.
	for i in 0 1 2 3; do
		d=$T/run26/proc$i
		mkdir -p "$d"
		"$MKEXPORT" archive-2026 "$T/a$i" "$d/proc$i.sqlite" && ok || notok "mkexport archive-2026 proc$i"
		cp -R "$T/a$i/dump" "$d/dump"
	done
	n=$($X -f nvtx "$T/run26/proc0/proc0.sqlite" 2>/dev/null | grep -c '^TSL:Thunk:#[^	]*,unique_hlo_op_id=[0-9]*#	')
	[ "${n:-0}" -gt 1000 ] && ok || notok "the run as today's names: $n thunk names with ids"
	mkdir -p "$T/s26"
	$X -n $NAMES -o "$T/s26" "$T"/run26/proc[0-3] 2> "$T/s26.err" && ok || notok "extract -o today's names"
	for f in thunk module communication hlo stackframes heap; do
		check "$f frame: today's names = old names" cmp "$T/sa/$f.tsv" "$T/s26/$f.tsv"
	done
	# The autotuner pass of today (XlaPass:#name=autotuner) folds as the
	# reference folds it (JAX-Toolbox e00e463b): the compile frame is that
	# of the old names with triton-autotuner so folded (tests/autotune.awk).
	awk -v old=triton-autotuner -f tests/autotune.awk "$T/sa/compile.tsv" "$T/sa/compile.tsv" > "$T/sa.fold"
	n=$(grep -c 'XlaPass:#name=triton-autotuner,' "$T/sa/compile.tsv")
	[ "$n" -ge 60 ] && [ "$(wc -l < "$T/sa.fold")" -lt "$(wc -l < "$T/sa/compile.tsv")" ] && ok ||
	    notok "the old names: $n triton-autotuner passes"
	check "compile frame: today's names (autotuner pass folded) = old names folded" cmp "$T/sa.fold" "$T/s26/compile.tsv"
	! grep -q 'XlaPass:#name=autotuner' "$T/s26/compile.tsv" && ok || notok "today's names: an autotuner pass left"
	[ "$(awk 'END { print NR }' "$T/s26/communication.tsv")" -gt 100 ] && ok || notok "today's names: communication rows"
	! grep -q unique_hlo_op_id "$T/s26.err" && ok || notok "today's names: $(cat "$T/s26.err")"
	# XLA of 2026 runs an async collective's nested thunks on a thread of
	# their own (AsyncStartThunk): the ranges have no XlaModule parent.
	# The run's exports so rewritten, every communication thunk's range
	# with the NVTX ranges and CUDA calls inside it moved to another
	# thread of its process (thread id 0xffffff), give the original frames.
	if need sqlite3; then
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    $c["Communication"] == 1 { print $c["Name"] }' "$T/sa/thunk.tsv" | sort -u > "$T/comm.names"
		[ "$(wc -l < "$T/comm.names")" -ge 3 ] && ok || notok "communication thunk names: $(cat "$T/comm.names")"
		for i in 0 1 2 3; do
			d=$T/async/proc$i
			mkdir -p "$d"
			cp "$T/run/proc$i/proc$i.sqlite" "$d/" && cp -R "$T/run/proc$i/dump" "$d/"
			{ echo "CREATE TEMP TABLE names (n TEXT);"
			  sed "s/'/''/g; s/.*/INSERT INTO names VALUES ('&');/" "$T/comm.names"
			  cat <<-'SQL'
			CREATE TEMP TABLE mv AS SELECT e.start AS s, e.end AS t, e.globalTid AS g
			    FROM NVTX_EVENTS e JOIN StringIds v ON v.id = e.textId
			    WHERE v.value LIKE 'Thunk:#%' AND EXISTS (SELECT 1 FROM names
			    WHERE instr(v.value, 'hlo_op=' || names.n || '#') > 0 OR
			    instr(v.value, 'hlo_op=' || names.n || ',') > 0);
			SELECT count(*) FROM mv;
			UPDATE NVTX_EVENTS SET globalTid = globalTid - (globalTid & 16777215) + 16777215,
			    endGlobalTid = endGlobalTid - (endGlobalTid & 16777215) + 16777215
			    WHERE EXISTS (SELECT 1 FROM mv WHERE mv.g = NVTX_EVENTS.globalTid AND
			    NVTX_EVENTS.start >= mv.s AND NVTX_EVENTS.end <= mv.t);
			UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = globalTid - (globalTid & 16777215) + 16777215
			    WHERE EXISTS (SELECT 1 FROM mv WHERE mv.g = CUPTI_ACTIVITY_KIND_RUNTIME.globalTid AND
			    CUPTI_ACTIVITY_KIND_RUNTIME.start >= mv.s AND CUPTI_ACTIVITY_KIND_RUNTIME.end <= mv.t);
			SELECT count(*) FROM NVTX_EVENTS WHERE globalTid & 16777215 = 16777215;
			SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid & 16777215 = 16777215;
			SQL
			} | sqlite3 "$d/proc$i.sqlite" > "$T/async$i.n" || notok "rewrite proc$i"
			# Thunks moved, ranges moved (the thunks and what they hold), calls moved.
			set -- $(cat "$T/async$i.n")
			[ "${1:-0}" -gt 50 ] && [ "${2:-0}" -ge "$1" ] && [ "${3:-0}" -ge "$1" ] && ok ||
			    notok "proc$i: moved $(cat "$T/async$i.n" | tr '\n' ' ')"
		done
		mkdir -p "$T/sasync"
		$X -n $NAMES -o "$T/sasync" "$T"/async/proc[0-3] 2> "$T/sasync.err" && ok || notok "extract the async rewrite"
		for f in thunk module communication compile hlo stackframes heap; do
			check "$f frame: thunks on threads of their own = nested" cmp "$T/sa/$f.tsv" "$T/sasync/$f.tsv"
		done
		[ "$(grep -c 'thunks without an XlaModule parent' "$T/sasync.err")" -eq 4 ] && ok ||
		    notok "one attribution note per profile: $(cat "$T/sasync.err")"
		! grep -q 'no XlaModule ancestor\|no known device' "$T/sasync.err" && ok || notok "async rewrite: $(cat "$T/sasync.err")"
	else
		skip "async thunks: sqlite3 not found"
	fi
	[ ! -f "$T/za/nvtx.tsv" ] && [ -f "$T/sa/nvtx.tsv" ] && ok || notok "-o writes nvtx.tsv for exports only"
	check "nvtx frame invariants (4 processes)" frame_invariants "$T/sa/nvtx.tsv"
	K5=ProgramId,ProgramExecution,Name,ThunkExecution,Device
	check "exports: golden thunk" cmpframe "$GOLD/combined4/thunk_clean.tsv" "$T/sa/thunk.tsv" $K5
	check "exports: golden module" cmpframe "$GOLD/combined4/module_clean.tsv" "$T/sa/module.tsv" ProgramId,ProgramExecution,Device
	check "exports: golden communication" cmpframe "$GOLD/combined4/communication_clean.tsv" "$T/sa/communication.tsv" $K5 AlgorithmBandwidthGBPerSec,BusBandwidthGBPerSec
	check "exports: golden compile" cmpframe "$GOLD/combined4/compile_clean.tsv" "$T/sa/compile.tsv" ProfileName,RangeId
	for f in thunk compile; do
		$X -k -f $f "$DATA/pax_fsdp4_4proc_proc1.zip" > "$T/k.z" 2>/dev/null
		$X -k -n pax_fsdp4_4proc_proc1 -f $f "$T/run/proc1" > "$T/k.s" 2>/dev/null
		check "-k $f: export = archive" cmp "$T/k.z" "$T/k.s"
	done
	# A bare .sqlite finds dump/ beside it; -d names another directory; a
	# zip holding the export and dump/ works as the directory does.
	$X -f thunk "$T/a2" > "$T/t.z"
	$X -f thunk -n a2 "$T/run/proc2/proc2.sqlite" | cmp -s - "$T/t.z" && ok || notok "bare .sqlite with dump/ beside it"
	mkdir -p "$T/elsewhere"; cp "$T/run/proc2/proc2.sqlite" "$T/elsewhere/"
	expect_error 1 "no HLO dump for module" $X -f thunk "$T/elsewhere/proc2.sqlite"
	$X -f thunk -n a2 -d "$T/run/proc2/dump" "$T/elsewhere/proc2.sqlite" | cmp -s - "$T/t.z" && ok || notok "--hlo-dump"
	$X -f thunk -n a2 --hlo-dump "$T/run/proc2/dump" "$T/elsewhere/proc2.sqlite" | cmp -s - "$T/t.z" && ok || notok "--hlo-dump (long)"
	expect_error 1 "nosuchdir: not a directory (--hlo-dump)" $X -f thunk -d "$T/nosuchdir" "$T/elsewhere/proc2.sqlite"
	(cd "$T/run/proc2" && zip -qr "$T/proc2.zip" proc2.sqlite dump) &&
	    $X -f thunk -n a2 "$T/proc2.zip" | cmp -s - "$T/t.z" && ok || notok "zip holding an export and dump/"
	# nsysjax-compilestats -p: an export's push/pop ranges are the report.
	C=$BIN/nsysjax-compilestats
	for t in stats summary ranges passes compilations; do
		$C -p -t $t "$a"/report_nvtx_pushpop_trace.csv.xz > "$T/cs.z" 2>&1
		$C -p -t $t -n report_nvtx_pushpop_trace "$T/run/proc3/proc3.sqlite" > "$T/cs.s" 2>&1
		check "compilestats -t $t: export = report" cmp "$T/cs.z" "$T/cs.s"
	done
	$C -p -n report_nvtx_pushpop_trace "$T/run/proc3/proc3.sqlite" > "$T/cs.s"
	$C -p -n report_nvtx_pushpop_trace - < "$T/run/proc3/proc3.sqlite" | cmp -s - "$T/cs.s" && ok ||
	    notok "compilestats -p: an export on standard input"
	# The autotuner pass renamed as XLA of 2026 names it (AutotunerPass:
	# XlaPass:#name=autotuner,module=M,program_id=N#): the real run's
	# push/pop report so rewritten gives the compile frame and the compile
	# statistics of triton-autotuner folded as the reference folds the
	# pass of 2026 (tests/autotune.awk).
	mkdir -p "$T/ren"
	cp -R "$T/a0/dump" "$T/a0/nvtx_gpu_proj_trace" "$T/a0/thread-metadata.parquet" "$T/ren/"
	xz -dc "$T/a0/report_nvtx_pushpop_trace.csv.xz" |
	    sed 's/XlaPass:#name=triton-autotuner,/XlaPass:#name=autotuner,/g' > "$T/ren/report_nvtx_pushpop_trace.csv"
	n=$(grep -c 'XlaPass:#name=autotuner,' "$T/ren/report_nvtx_pushpop_trace.csv")
	[ "$n" -gt 10 ] && ok || notok "renamed autotuner passes: $n"
	$X -n p -f compile "$T/a0" > "$T/at.old" && $X -n p -f compile "$T/ren" > "$T/at.new" &&
	    awk -v old=triton-autotuner -f tests/autotune.awk "$T/at.old" "$T/at.old" > "$T/at.fold" &&
	    cmp -s "$T/at.fold" "$T/at.new" && ok || notok "compile frame: XlaPass:#name=autotuner folds as the reference folds it"
	for t in stats passes; do
		$C -t $t "$T/at.fold" > "$T/at.old"
		$C -p -t $t "$T/ren/report_nvtx_pushpop_trace.csv" > "$T/at.new"
		check "compilestats -p -t $t: autotuner folded" cmp "$T/at.old" "$T/at.new"
	done
	head -c 3000 "$T/run/proc3/proc3.sqlite" > "$T/cut.sqlite"
	expect_error 1 "cut.sqlite: truncated SQLite file (3000 of" $C -p "$T/cut.sqlite"
	expect_error 1 "the nvtx frame needs an nsys SQLite export" $X -f nvtx "$DATA/pax_fsdp4_4proc_proc0.zip"
	# Archives older than thread-metadata.parquet (nsys-jax before July
	# 2024): the devices derived from the thread ids as that nsys-jax did
	# give the frames the metadata gives, but for LocalDevice (which that
	# nsys-jax did not have: here each process drove one of 4 visible GPUs).
	for i in 0 1 2 3; do rm "$T/a$i/thread-metadata.parquet"; done
	mkdir -p "$T/old"
	$X -n $NAMES -o "$T/old" "$T"/a[0-3] 2> "$T/old.err" && ok || notok "extract archives without thread metadata"
	[ "$(grep -c "no thread-metadata.parquet (nsys-jax before July 2024): devices numbered as that nsys-jax did" "$T/old.err")" -eq 4 ] &&
	    ok || notok "one note per old archive: $(cat "$T/old.err")"
	nold() { awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "LocalDevice") c = i } { $c = ""; print }' "$1"; }
	for f in thunk module communication; do
		nold "$T/za/$f.tsv" > "$T/old.want"; nold "$T/old/$f.tsv" > "$T/old.got"
		check "$f frame without thread metadata" cmp "$T/old.want" "$T/old.got"
	done
	cmp -s "$T/za/compile.tsv" "$T/old/compile.tsv" && ok || notok "compile frame without thread metadata"
else
	skip "the 4-process run as exports: $DATA not found"
fi
done_testing t15-sqlite
