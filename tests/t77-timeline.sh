#!/bin/sh
# nsysjax-timeline: the Perfetto protobuf decoded by protoc (against
# tests/timeline/perfetto_trace.proto, written from Perfetto's documented
# field numbers, and raw), the JSON parsed by node; both read by
# tests/timeline/check.js, which checks the nesting of every track; every
# slice's device, name, start and duration (ns) compared with the frames
# read by awk, with the clock corrections applied; the flows against the
# collective instances; a hand-made run with overlapping thunks, a command
# buffer, streams, roofline columns and a critical path; the filters; the
# errors; and speedscope opening the JSON in headless Chromium.
set -u
. tests/lib.sh
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
TL=$BIN/nsysjax-timeline
PROTO=tests/timeline/perfetto_trace.proto
CHECK=tests/timeline/check.js

# The slices the frames of DIR hold, with corrections CORR (or none): one
# line "pid name ts dur" per thunk, then (file .mod) per module; ns exact.
expect() {
	awk -F'\t' -v OFS='\t' -v mod="$3.mod" '
	function ns(s,   neg, i, f) {
		neg = s ~ /^-/; sub(/^-/, "", s); i = s; f = ""
		if (index(s, ".")) { i = substr(s, 1, index(s, ".") - 1); f = substr(s, index(s, ".") + 1) }
		return (neg ? -1 : 1) * (i * 1000000 + substr(f "000000", 1, 6))
	}
	FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; file++; next }
	file == 1 { corr[$c["Device"]] = ns($c["CorrectionMs"]); next }
	{
		ts = ns($c["ProjStartMs"]) - corr[$c["Device"]]
		d = ns($c["ProjDurMs"]) + ("ProjDurHiddenMs" in c ? ns($c["ProjDurHiddenMs"]) : 0)
		line = sprintf("%d\t%s\t%.0f\t%.0f", $c["Device"] + 1, $c["Name"], ts, d)
		if (file == 2) print line > mod; else print line
	}' "$2" "$1/module.tsv" "$1/thunk.tsv" | sort > "$3"
	sort -o "$3.mod" "$3.mod"
}

# got CHECKOUT OUT: the slices check.js read, as expect writes them.
got() {
	awk -F'\t' -v OFS='\t' -v mod="$2.mod" '$1 == "S" && $4 == "module" { print $2, $5, $6, $7 > mod; next }
	    $1 == "S" && $4 != "critical-path" { print $2, $5, $6, $7 }' "$1" | sort > "$2"
	sort -u -o "$2.mod" "$2.mod"
}

# decode PB TXT: protoc against our .proto; an unknown field is an error
# in check.js.
decode() { protoc --proto_path=tests/timeline --decode=perfetto.protos.Trace "$PROTO" < "$1" > "$2"; }

# same TITLE A B
same() { if cmp -s "$2" "$3"; then ok; else notok "$1"; diff "$2" "$3" | head -10 | sed 's/^/  /'; fi; }
is() { if [ "$2" = "$3" ]; then ok; else notok "$1: got '$2', want '$3'"; fi; }

if ! [ -x "$MKEXAMPLE" ] || ! [ -x "$TL" ]; then
	notok "$MKEXAMPLE or $TL not built"
	done_testing t77-timeline
	exit
fi

# ---- the example run ----
"$MKEXAMPLE" "$T/p" > /dev/null && "$BIN/nsysjax-extract" -o "$T/f" "$T/p/rank0" "$T/p/rank1" &&
    "$BIN/nsysjax-align" -o "$T/corr.tsv" "$T/f/communication.tsv" > /dev/null ||
	{ notok "example frames"; done_testing t77-timeline; exit; }
check "perfetto output" sh -c '"$1" -c "$2" "$3" > "$4"' sh "$TL" "$T/corr.tsv" "$T/f" "$T/ex.pb"
check "json output" sh -c '"$1" -c "$2" -f json "$3" > "$4"' sh "$TL" "$T/corr.tsv" "$T/f" "$T/ex.json"
"$TL" -c "$T/corr.tsv" "$T/f" > "$T/ex2.pb"
same "the same bytes twice" "$T/ex.pb" "$T/ex2.pb"
expect "$T/f" "$T/corr.tsv" "$T/want"
nthunk=$(($(wc -l < "$T/f/thunk.tsv") - 1))
# Collective instances on two or more devices: one flow each.
nflow=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["Communication"] == 1 { n[$c["ProgramId"] SUBSEP $c["ProgramExecution"] SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]]++ }
	END { for (k in n) if (n[k] > 1) f++; print f + 0 }' "$T/f/thunk.tsv")

if need protoc; then
	check "protoc --decode_raw reads the trace" sh -c 'protoc --decode_raw < "$1" > "$2" && [ -s "$2" ]' sh "$T/ex.pb" "$T/raw.txt"
	# Every packet is field 1 of Trace: no top-level line but "1 {", "}" or indented.
	is "decode_raw: only Trace.packet at the top" "$(grep -c '^[^ }]' "$T/raw.txt")" "$(grep -c '^1 {' "$T/raw.txt")"
	if decode "$T/ex.pb" "$T/ex.txt" && need node; then
		check "check.js: Perfetto tracks nest" sh -c 'node "$1" proto "$2" > "$3"' sh "$CHECK" "$T/ex.txt" "$T/cp"
		got "$T/cp" "$T/gotp"
		same "Perfetto: every thunk slice at its aligned ns" "$T/want" "$T/gotp"
		same "Perfetto: every module slice" "$T/want.mod" "$T/gotp.mod"
		is "Perfetto: one flow per collective instance" "$(grep -c '^F' "$T/cp")" "$nflow"
		is "Perfetto: thunk slices" "$(wc -l < "$T/gotp")" "$nthunk"
	else
		notok "protoc --decode of the example trace"
	fi
fi
if need node; then
	check "check.js: JSON parses, tracks nest" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$T/ex.json" "$T/cj"
	got "$T/cj" "$T/gotj"
	same "JSON: every thunk slice at its aligned ns (0.001 us)" "$T/want" "$T/gotj"
	same "JSON: every module slice" "$T/want.mod" "$T/gotj.mod"
	is "JSON: one flow per collective instance, s t* f" "$(grep -c '^F.*	s	f$' "$T/cj")" "$nflow"
	if [ -s "$T/cp" ]; then
		grep -v '^F' "$T/cp" | sort > "$T/a"; grep -v '^F' "$T/cj" | sort > "$T/b"
		same "JSON and Perfetto: the same tracks and slices" "$T/a" "$T/b"
	fi
	# Sum of durations per device, against the frames.
	awk -F'\t' '{ s[$1] += $4 } END { for (d in s) printf "%s %.0f\n", d, s[d] }' "$T/want" | sort > "$T/a"
	awk -F'\t' '{ s[$1] += $4 } END { for (d in s) printf "%s %.0f\n", d, s[d] }' "$T/gotj" | sort > "$T/b"
	same "JSON: sum of thunk durations per device" "$T/a" "$T/b"
fi

# ---- the example's critical path, as nsysjax-critpath writes it ----
if [ -x "$BIN/nsysjax-critpath" ] && [ -s "$T/ex.json" ] && need node; then
	"$BIN/nsysjax-critpath" -c "$T/corr.tsv" -m "$T/f/module.tsv" -H "$T/f/hlo.tsv" "$T/f/thunk.tsv" > "$T/crit.tsv" 2> /dev/null
	"$TL" -c "$T/corr.tsv" -p "$T/crit.tsv" -f json "$T/f" > "$T/crit.json"
	check "critical path: tracks nest" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$T/crit.json" "$T/critc"
	is "critical path: a slice per row" "$(awk -F'\t' '$1 == "S" && $4 == "critical-path"' "$T/critc" | wc -l)" "$(($(wc -l < "$T/crit.tsv") - 1))"
	# One flow chain per module execution on the path (besides the collectives').
	is "critical path: a flow chain per execution" "$(($(grep -c '^F' "$T/critc") - nflow))" \
	    "$(awk -F'\t' 'NR > 1 { n[$1 SUBSEP $2]++ } END { for (k in n) if (n[k] > 1) c++; print c + 0 }' "$T/crit.tsv")"
fi

# ---- the example as nsys 2026.3 and today's XLA write it (-L 2026):
# command buffers, the CommandBuffer column ----
if ! "$MKEXAMPLE" -L 2026 "$T/p26" > /dev/null ||
    ! "$BIN/nsysjax-extract" -o "$T/f26" "$T/p26/rank0" "$T/p26/rank1" 2> /dev/null; then
	notok "the -L 2026 example's frames"
elif need node; then
	"$TL" -f json "$T/f26" > "$T/26.json"
	check "-L 2026: JSON parses, tracks nest" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$T/26.json" "$T/c26"
	printf 'Device\tCorrectionMs\n' > "$T/none.tsv"
	expect "$T/f26" "$T/none.tsv" "$T/w26"
	got "$T/c26" "$T/g26"
	same "-L 2026: every slice, command buffers included" "$T/w26" "$T/g26"
	is "-L 2026: command buffer slices" "$(grep -c '	command_buffer_[0-9]*	' "$T/g26")" \
	    "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["CommandBuffer"] != "" { n++ } END { print n + 0 }' "$T/f26/thunk.tsv")"
fi

# ---- the shared four-process run (pax_fsdp4_4proc) ----
if ! have_data; then
	skip "no $DATA"
elif need node; then
	"$BIN/nsysjax-extract" -o "$T/r" "$DATA"/*.zip 2> /dev/null &&
	    "$BIN/nsysjax-align" -o "$T/rc.tsv" "$T/r/communication.tsv" > /dev/null &&
	    "$TL" -c "$T/rc.tsv" -f json "$T/r" > "$T/r.json"
	check "shared run: JSON parses, tracks nest" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$T/r.json" "$T/rcj"
	expect "$T/r" "$T/rc.tsv" "$T/rwant"
	got "$T/rcj" "$T/rgot"
	same "shared run: every thunk slice at its aligned ns" "$T/rwant" "$T/rgot"
	same "shared run: every module slice" "$T/rwant.mod" "$T/rgot.mod"
	# Process 3 runs the step under another ProgramId (its own
	# autotuning): one step, its instances linked over the 4 devices.
	# From the frames by awk: an instance is (module name, execution,
	# Name, ThunkExecution) over every ProgramId of the module; its flow
	# has a slice per row.
	awk -F'\t' 'FILENAME == ARGV[1] { if (FNR > 1) mod[$1] = $4; next }
	    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Communication"] == 1 { n[mod[$1] SUBSEP $2 SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]]++ }
	    END { for (k in n) if (n[k] > 1) print n[k] }' "$T/r/module.tsv" "$T/r/thunk.tsv" | sort | uniq -c > "$T/rfwant"
	grep '^F' "$T/rcj" | cut -f3 | sort | uniq -c > "$T/rfgot"
	same "shared run: one flow per instance of the joined step, over its 4 devices" "$T/rfwant" "$T/rfgot"
	n=$(awk '$2 == 4 { print $1 }' "$T/rfwant")
	[ "${n:-0}" -ge 115 ] && ok || notok "shared run: $n flows over 4 devices (want 23 per execution of the step: 115, and jit__psum's)"
	"$TL" -c "$T/rc.tsv" -f json "$T/r" 2>&1 > /dev/null | grep -c 'ProgramId 04555b1419fd[0-9a-f]* joined to 25fa0b3e673a' > "$T/rn"
	is "shared run: one note of the join" "$(cat "$T/rn")" 1
fi

# ---- a hand-made run: overlaps, a command buffer, roofline, a path ----
S=$T/syn
mkdir -p "$S"
tab() { tr '|' '\t'; }
tab > "$S/module.tsv" <<'EOF'
ProgramId|ProgramExecution|Device|Name|ProjStartMs|ProjDurMs|Process|LocalDevice
p1|0|0|step|1|10|0|0
p1|0|1|step|1|10|1|0
p1|1|0|step|12|10|0|0
EOF
# a and b overlap on one stream; late crosses the module's end; the
# command buffer holds two operations (rows: the buffer's own
# row keeps the 0.2 ms no operation took, from the graph's start, 6 ms;
# the graph ends with fusion.2 at 7.6 ms); the all-reduce runs on both
# devices (a flow); tiny is under --min-dur 0.001.
tab > "$S/thunk.tsv" <<'EOF'
ProgramId|ProgramExecution|Name|ThunkExecution|Device|ProjDurMs|ProjStartMs|Process|LocalDevice|Communication|ProjDurHiddenMs|MessageSize|Collective|CollectiveSize|CommandBuffer
p1|0|a|0|0|3|2|0|0|0|0||||
p1|0|all-reduce-start|0|0|1|3|0|0|1|2|3000000|all-reduce|2|
p1|0|all-reduce-start|0|1|2|3.5|1|0|1|0|3000000|all-reduce|2|
p1|0|b|0|0|2|4|0|0|0|0||||
p1|0|command_buffer_1|0|0|0.2|6|0|0|0|0||||command_buffer_1
p1|0|fusion.1|0|0|0.5|6|0|0|0|0||||command_buffer_1
p1|0|fusion.2|0|0|1|6.6|0|0|0|0||||command_buffer_1
p1|0|late|0|0|1|10.5|0|0|0|0||||
p1|1|tiny|0|0|0.0005|13|0|0|0|0||||
EOF
tab > "$S/hlo.tsv" <<'EOF'
ProgramId|Name|Opcode|Communication|OpName|StackFrameIds|Flops|Transcendentals|BytesAccessed|MatmulFlops|Dtype
p1|a|fusion|0|jit(f)/dot|1|6000000000|0|1000|3000000000|bf16
EOF
tab > "$S/stackframes.tsv" <<'EOF'
FrameId|ParentFrameId|Frame
0||train.py:7[step]
1|0|jit(f)/dot
EOF
tab > "$S/corr.tsv" <<'EOF'
Device|CorrectionMs
0|0
1|0.000001
EOF
tab > "$S/crit.tsv" <<'EOF'
ProgramId|ProgramExecution|Device|Name|Label|StartMs|DurMs
p1|0|0|a|compute|2|3
p1|0|1|all-reduce-start|peer-wait|5|0.5
p1|0|0|command_buffer_1|compute|6|2
EOF
if need node jq; then
	"$TL" -c "$S/corr.tsv" -p "$S/crit.tsv" -P 4 -f json "$S" > "$S/t.json" 2> "$T/err"
	check "hand-made run: nesting" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$S/t.json" "$S/c"
	expect "$S" "$S/corr.tsv" "$S/want"
	# The command buffer spans its graph, [6, 7.6] ms.
	sed -i 's/^1	command_buffer_1	6000000	200000$/1	command_buffer_1	6000000	1600000/' "$S/want"
	got "$S/c" "$S/got"
	same "hand-made run: no slice dropped or cut, ns exact" "$S/want" "$S/got"
	# Where each went: b and late on the overlap track, the operations on
	# their command buffer's track, the path on its own track.
	tid() { awk -F'\t' -v n="$1" -v p="${2:-1}" '$1 == "S" && $4 != "critical-path" && $5 == n && $2 == p { print $3; exit }' "$S/c"; }
	tname() { awk -F'\t' -v t="$1" '$1 == "T" && $3 == t { print $4 }' "$S/c"; }
	is "overlapping b: a sibling track" "$(tname "$(tid b)")" "compute (overlap 1)"
	is "late, across the module's end: a sibling track" "$(tname "$(tid late)")" "compute (overlap 1)"
	is "a: the compute track" "$(tname "$(tid a)")" "compute"
	is "inner operation: its command buffer's track" "$(tid fusion.1)" "$(tid command_buffer_1)"
	is "command buffer: its own time" "$(jq '.traceEvents[] | select(.name == "command_buffer_1" and .ph == "X" and .cat == "thunk") | .args.unattributed_ns' "$S/t.json")" 200000
	is "inner operation: category" "$(jq -r '.traceEvents[] | select(.name == "fusion.2") | .cat + " " + .args.command_buffer' "$S/t.json")" "command-buffer command_buffer_1"
	is "all-reduce: the communication track" "$(tname "$(tid all-reduce-start)")" "communication"
	is "device 1 starts 1 ns early (corrections)" "$(jq -r '.traceEvents[] | select(.name == "all-reduce-start" and .pid == 2 and .cat == "communication") | .ts' "$S/t.json")" "3499.999"
	# 6e9 flop in 3 ms: 2 TFLOP/s; 3e9 matmul flop over 3 ms at a 4 TFLOP/s peak: MFU 0.25.
	is "roofline args" "$(jq -c '.traceEvents[] | select(.name == "a" and .cat == "thunk") | [.args.TFLOPs, .args.mfu, .args.flops, .args.dtype, .args.source_line, .args.op_name]' "$S/t.json")" \
	    '[2,0.25,6000000000,"bf16","train.py:7[step]","jit(f)/dot"]'
	# 3e6 B in 3 ms (1 exposed + 2 hidden): algbw 1 GB/s, all-reduce over 2: busbw 1.
	is "communication args" "$(jq -c '.traceEvents[] | select(.name == "all-reduce-start" and .pid == 1 and .ph == "X") | [.args.busbw_GBps, .args.hidden_ns, .args.message_size_bytes, .args.collective_size]' "$S/t.json")" \
	    '[1,2000000,3000000,2]'
	is "critical path: a track per device" "$(awk -F'\t' '$1 == "T" && $4 == "critical path"' "$S/c" | wc -l)" 2
	is "critical path: one flow of 3 slices, s t f" "$(grep '^F' "$S/c" | cut -f3- | sort | tr '\t\n' ' ')" "2 s f 3 s f "
	# Filters.
	"$TL" -f json -d 1 "$S" > "$S/d.json" && node "$CHECK" json "$S/d.json" > "$S/dc"
	is "--devices 1: device 1 only" "$(awk -F'\t' '$1 == "S" { print $2 }' "$S/dc" | sort -u)" 2
	"$TL" -f json -s 1 "$S" > "$S/s.json" && node "$CHECK" json "$S/s.json" > "$S/sc"
	is "--steps 1: execution 1 only" "$(jq -c '[.traceEvents[] | select(.ph == "X") | .name] | unique' "$S/s.json")" '["step","tiny"]'
	"$TL" -f json -m 0.001 "$S" > "$S/m.json" && node "$CHECK" json "$S/m.json" > "$S/mc"
	is "--min-dur 0.001: tiny left out, the rest kept" "$(grep -c '^S' "$S/mc")" "$(($(grep -c '^S' "$S/c") - 1 - 3))"
	# Streams: one track per stream.
	awk -F'\t' -v OFS='\t' 'NR == 1 { print $0, "Stream"; next } { print $0, ($3 == "b" ? 7 : 3) }' "$S/thunk.tsv" > "$T/st"
	mkdir -p "$T/sd" && cp "$S/module.tsv" "$T/sd/" && mv "$T/st" "$T/sd/thunk.tsv"
	"$TL" -f json "$T/sd" > "$T/sd.json" && node "$CHECK" json "$T/sd.json" > "$T/sdc"
	is "Stream column: tracks per stream" "$(awk -F'\t' '$1 == "T" && $2 == 1 { print $4 }' "$T/sdc" | sort | tr '\n' ,)" "stream 3,stream 3 (overlap 1),stream 7,"
fi
if need protoc node; then
	"$TL" -c "$S/corr.tsv" -p "$S/crit.tsv" -P 4 "$S" > "$S/t.pb" && decode "$S/t.pb" "$S/t.txt" &&
	    node "$CHECK" proto "$S/t.txt" > "$S/cp"
	grep -v '^F' "$S/cp" | sort > "$T/a"; grep -v '^F' "$S/c" | sort > "$T/b"
	same "hand-made run: Perfetto and JSON agree" "$T/a" "$T/b"
fi

# ---- names that are not UTF-8: each ill-formed sequence one U+FFFD ----
# The name below, byte by byte, and what the Unicode Standard's practice
# (3.9, maximal subparts) makes of it, derived by hand: x; ff, fe: one
# each (never a lead byte); e-acute kept; e2 82: the start of a 3-byte
# sequence cut short, one; the euro sign kept; c0 af (an overlong '/'):
# c0 is never a lead byte, af never a first byte, two; ed a0 80 (a
# surrogate): ed allows 80-9f after it, three; U+1F600 kept; f4 90 80 80
# (above U+10FFFF): f4 allows 80-8f after it, four; y.
U=$T/utf8
mkdir -p "$U"
printf 'ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\np\t0\t0\tmod\t0\t10\n' > "$U/module.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\n' > "$U/thunk.tsv"
printf 'p\t0\tx\377\376\303\251\342\202\342\202\254\300\257\355\240\200\360\237\230\200\364\220\200\200y\t0\t0\t1\t2\n' >> "$U/thunk.tsv"
uwant='x,fffd,fffd,e9,fffd,20ac,fffd,fffd,fffd,fffd,fffd,1f600,fffd,fffd,fffd,fffd,y'
if need node; then
	"$TL" -f json "$U" > "$U/t.json"
	# TextDecoder with fatal: any byte that is not UTF-8 is an error.
	is "invalid UTF-8 in a name: JSON is UTF-8, each bad sequence U+FFFD" "$(node -e '
	    const b = require("fs").readFileSync(process.argv[1]);
	    const t = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b));
	    const e = t.traceEvents.find(e => e.ph === "X" && e.cat === "thunk");
	    console.log([...e.name].map(c => /[a-z]/.test(c) ? c : c.codePointAt(0).toString(16)).join(","));' "$U/t.json" 2>&1)" "$uwant"
	"$TL" "$U" > "$U/t.pb"
	# The protobuf's strings: the cleaned name is there, the bad bytes not.
	is "invalid UTF-8 in a name: Perfetto strings are UTF-8" "$(node -e '
	    const b = require("fs").readFileSync(process.argv[1]);
	    const good = Buffer.from("x\ufffd\ufffd\u00e9\ufffd\u20ac\ufffd\ufffd\ufffd\ufffd\ufffd\u{1f600}\ufffd\ufffd\ufffd\ufffdy");
	    console.log(b.includes(good), b.includes(Buffer.from([0xff, 0xfe])));' "$U/t.pb" 2>&1)" "true false"
fi

# ---- more overlapping slices than a device has tracks (4095) ----
# Thunk i starts at 1 ms + i ns and lasts 1 ms: each overlaps every
# earlier one without nesting in it, a staircase, so thunk i needs track
# i: t0..t4094 fill the device's 4095 tracks, and t4095..t4099 go on the
# last one, each cut to end with the slice open there, which ends 1 ns
# before it (t4094), then with that one cut (t4095 ends 2 ns before
# t4096's end), ...: cut 1, 2, 3, 4, 5 ns.  The trace is kept, nested.
V=$T/overflow
mkdir -p "$V"
printf 'ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\np\t0\t0\tmod\t0\t10\n' > "$V/module.tsv"
awk 'BEGIN { print "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs"
	for (i = 0; i < 4100; i++) printf "p\t0\tt%d\t0\t0\t1.%06d\t1\n", i, i }' > "$V/thunk.tsv"
if need node jq; then
	"$TL" -f json "$V" > "$V/t.json" 2> "$V/err"
	is "4100 staircase slices on one device: exit 0" "$?" 0
	check "4100 staircase slices: tracks nest" sh -c 'node "$1" json "$2" > "$3"' sh "$CHECK" "$V/t.json" "$V/c"
	is "4100 staircase slices: 4095 tracks" "$(jq '[.traceEvents[] | select(.ph == "X" and .pid == 1) | .tid] | unique | length' "$V/t.json")" 4095
	is "4100 staircase slices: every thunk kept" "$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "thunk")] | length' "$V/t.json")" 4100
	is "the excess on the last track, marked with the ns cut" \
	    "$(jq -r '[.traceEvents[] | select(.args.overflow_cut_ns != null) | "\(.name):\(.args.overflow_cut_ns):\(.dur)"] | join(",")' "$V/t.json")" \
	    "t4095:1:999.999,t4096:2:999.998,t4097:3:999.997,t4098:4:999.996,t4099:5:999.995"
	if need protoc; then
		"$TL" "$V" > "$V/t.pb" && decode "$V/t.pb" "$V/t.txt"
		check "4100 staircase slices: Perfetto tracks nest" sh -c 'node "$1" proto "$2" > "$3"' sh "$CHECK" "$V/t.txt" "$V/cp"
	fi
fi

# ---- ProgramIds of one SPMD step: their collectives linked ----
# A (devices 0, 1) and B (device 2) run module "step" with the same
# collectives in the same order: each instance is one flow over the 3
# devices.  C (device 3) and D (device 4), module "step2", run them in
# another order; E (devices 5, 6) and F (device 6), module "step3", share
# a device: no flow joins them.
J=$T/join
mkdir -p "$J"
printf 'ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\n' > "$J/module.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tCommunication\tCollectiveSize\n' > "$J/thunk.tsv"
while read -r p d m first second; do
	printf '%s\t0\t%s\t%s\t0\t20\n' "$p" "$d" "$m" >> "$J/module.tsv"
	printf '%s\t0\t%s\t0\t%s\t1\t1\t1\t3\n' "$p" "$first" "$d" >> "$J/thunk.tsv"
	printf '%s\t0\t%s\t0\t%s\t10\t1\t1\t3\n' "$p" "$second" "$d" >> "$J/thunk.tsv"
	printf '%s\t0\tfusion\t0\t%s\t5\t1\t0\t\n' "$p" "$d" >> "$J/thunk.tsv"
done <<EOF
A 0 step ag rs
A 1 step ag rs
B 2 step ag rs
C 3 step2 ag rs
D 4 step2 rs ag
E 5 step3 ag rs
E 6 step3 ag rs
F 6 step3 ag rs
EOF
# The frames' order: ProgramId, ProgramExecution, Name, ThunkExecution, Device.
{ head -1 "$J/thunk.tsv"; tail -n +2 "$J/thunk.tsv" | sort -t "$(printf '\t')" -k1,1 -k2,2n -k3,3 -k4,4n -k5,5n; } > "$J/t" && mv "$J/t" "$J/thunk.tsv"
if need node; then
	"$TL" -f json "$J" > "$J/t.json" 2> "$J/err" &&
	    node "$CHECK" json "$J/t.json" > "$J/c" || notok "joined step: $(cat "$J/err")"
	# A+B: 2 flows of 3; E: 2 flows of 2 (F apart); C, D: none.
	is "joined step: the flows" "$(grep '^F' "$J/c" | cut -f3 | sort | tr '\n' ' ')" "2 2 3 3 "
	is "joined step: the note" "$(grep -c 'module step: ProgramId B joined to A' "$J/err") $(grep -c joined "$J/err")" "1 1"
	# Each flow of 3 runs through devices 1, 2, 3 (pid = Device + 1).
	is "joined step: the flows' devices" "$(jq -r '[.traceEvents[] | select(.ph == "s" or .ph == "t" or .ph == "f") | select(.pid <= 3) | .pid] | sort | map(tostring) | join(",")' "$J/t.json")" "1,1,2,2,3,3"
fi

# ---- errors ----
expect_error 2 "--format 'xml'" "$TL" -f xml "$S"
expect_error 2 "--steps" "$TL" -s 3-1 "$S"
expect_error 2 "no frames directory" "$TL"
expect_error 1 "$T/none/module.tsv" "$TL" "$T/none"
expect_error 1 "nope.tsv" "$TL" -c "$T/nope.tsv" "$S"
mkdir -p "$T/bad" && cp "$S"/*.tsv "$T/bad/"
awk -F'\t' -v OFS='\t' '$3 == "late" { $6 = "-1" } 1' "$S/thunk.tsv" > "$T/bad/thunk.tsv"
expect_error 1 "thunk.tsv:9: column ProjDurMs: negative duration" "$TL" -f json "$T/bad"
if command -v script > /dev/null 2>&1; then
	script -qec "$TL $S" /dev/null > "$T/tty" 2>&1
	if grep -q "refusing to write a binary trace to a terminal" "$T/tty"; then ok
	elif [ ! -c /dev/ptmx ] || [ ! -d /dev/pts ] || grep -qi "pseudo-terminal\|openpty\|/dev/pts" "$T/tty"; then
		skip "binary output to a terminal: no pseudo-terminal here ($(head -c 120 "$T/tty"))"
	else notok "binary output to a terminal"; fi
fi

# ---- the man page ----
if command -v mandoc > /dev/null; then
	mandoc -Tlint man/nsysjax-timeline.1 2>&1 | grep -v -e "referenced manual not found" -e "outdated mandoc.db" > "$T/lint"
	[ ! -s "$T/lint" ] && ok || notok "mandoc -Tlint: $(cat "$T/lint")"
fi

# ---- a real viewer: speedscope in headless Chromium ----
# speedscope's static app, fetched by setup.sh --test into the cache
# (npm package speedscope); the profile given as its CLI gives it.
SSCACHE=${NSYSJAX_SPEEDSCOPE:-$HOME/.cache/nsysjax/speedscope}
SSDIR=$SSCACHE/node_modules/speedscope/dist/release
if [ ! -f "$SSDIR/index.html" ]; then
	# setup.sh --test records a registry it could not reach: outside our
	# control, so a skip that says why, even under NSYSJAX_STRICT.
	if [ -s "$SSCACHE.unreachable" ]; then
		skip "speedscope: npm's registry was unreachable at set-up: $(head -c 200 "$SSCACHE.unreachable")"
	elif [ "${NSYSJAX_STRICT:-0}" = 1 ]; then notok "speedscope not in $SSDIR (./setup.sh --test)"
	else skip "speedscope not in $SSDIR (./setup.sh --test)"; fi
elif need chromium && [ -s "$T/ex.json" ]; then
	printf 'speedscope.loadFileFromBase64("timeline.json", "%s")' "$(base64 -w0 "$T/ex.json")" > "$T/prof.js"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	    --disable-background-networking --disable-component-update --disable-sync \
	    --user-data-dir="$T/chromium" --enable-logging=stderr --virtual-time-budget=15000 \
	    --dump-dom "file://$(cd "$SSDIR" && pwd)/index.html#localProfilePath=$T/prof.js" > "$T/dom.html" 2> "$T/chromium.err"
	nthr=$(grep -c '"thread_name"' "$T/ex.json")
	if grep -q "Device 0 (process 0, local device 0) (pid 1), compute (tid 4097) <span[^>]*>(1/$nthr)" "$T/dom.html"; then ok
	else notok "speedscope did not show the $nthr tracks"; sed 's/></>\n</g' "$T/dom.html" | grep -v '^<path' | head -20 | sed 's/^/  /'; fi
	if grep -qi 'something went wrong\|unrecognized format\|Uncaught' "$T/dom.html" "$T/chromium.err"; then
		notok "speedscope shows an error"; grep -i 'something went wrong\|unrecognized format\|Uncaught' "$T/dom.html" "$T/chromium.err" | head -5
	else ok; fi
fi
done_testing t77-timeline
