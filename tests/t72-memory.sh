#!/bin/sh
# The heap frame of nsysjax-extract and pipelines/memory.sh.  The golden
# outputs have no memory numbers: the series is recomputed here from the
# frame's own Kind, BufferId, CanonicalId and SizeBytes columns by an awk
# transcription of the notebook's heap_usage_trace, the peaks from the
# series; the top modules come from the golden module tables.  Bad dumps,
# usage errors.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
NSYSJAX_BIN=$(cd "$BIN" && pwd)
TMPDIR=$T/tmp
export NSYSJAX_BIN TMPDIR
mkdir "$TMPDIR"
M=pipelines/memory.sh
COLS='ProgramId	Trace	Event	Kind	BufferId	CanonicalId	SizeBytes	DeltaBytes	HeapBytes	Point	Instruction	Computation'

# notebook HEAP: recompute DeltaBytes, HeapBytes and Point of every row
# as heap_usage_trace does (users per allocation, aliases made by
# SHARE_WITH and dropped by FREE, +size on the first user, -size on the
# last), check the frame's invariants, and compare.
notebook() {
	awk -F'\t' '
	function fail(m) { print "line " NR ": " m; bad++ }
	function fmt(x) { return x == 0 ? "0" : sprintf("%.0f", x) }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		k = $c["ProgramId"] SUBSEP $c["Trace"]
		if (k != cur) {
			if (cur != "" && heap != 0) fail("trace ends at " heap)
			if (k in seen) fail("trace rows not together")
			seen[k] = 1; cur = k; heap = 0; point = 0; ev = 0
			split("", users); split("", alias); split("", size)
		}
		if ($c["Event"] != ev++) fail("Event " $c["Event"])
		b = $c["BufferId"]; s = $c["SizeBytes"]
		if (s !~ /^[0-9]+$/) fail("SizeBytes " s)
		if ((b in size) && size[b] != s) fail("buffer " b " has two sizes")
		size[b] = s
		kind = $c["Kind"]; delta = 0; ch = 0
		if (kind == "FREE") {
			a = (b in alias) ? alias[b] : b; delete alias[b]
			if (--users[a] == 0) { delta = -size[a]; ch = 1 }
			if (users[a] < 0) fail("FREE of a free buffer")
		} else {
			if (kind == "SHARE_WITH") {
				if (b in alias) fail("shared twice")
				a = $c["CanonicalId"]; alias[b] = a
				if (!(a in size)) fail("canonical " a " never seen")
			} else if (kind == "ALLOC") {
				a = b
				if ($c["CanonicalId"] != "") fail("CanonicalId on ALLOC")
			} else
				fail("Kind " kind)
			if (++users[a] == 1) { delta = size[a]; ch = 1 }
		}
		heap += delta; point += ch
		if ($c["DeltaBytes"] != fmt(delta)) fail("DeltaBytes " $c["DeltaBytes"] ", want " delta)
		if ($c["HeapBytes"] != fmt(heap)) fail("HeapBytes " $c["HeapBytes"])
		if ($c["HeapBytes"] < 0) fail("negative HeapBytes")
		if ($c["Point"] != point) fail("Point " $c["Point"] ", want " point)
		if (kind == "ALLOC" && ch && delta != s) fail("ALLOC adds " delta ", not its size")
		if (kind == "FREE" && ch && a == b && delta != -s) fail("FREE takes " delta)
		rows++
	}
	END {
		if (cur != "" && heap != 0) fail("last trace ends at " heap)
		if (!rows) print "no rows"
		exit bad > 0 || !rows
	}' "$1"
}

# sorted HEAP: rows in ProgramId, Trace, Event order.
sorted_rows() {
	tail -n +2 "$1" | LC_ALL=C sort -c -t "$(printf '\t')" -k1,1 -k2,2n -k3,3n
}

# peaks HEAP PEAKS: every (ProgramId, Trace) of the frame has one row with
# its event count, the largest HeapBytes and the first event reaching it.
peaks() {
	awk -F'\t' '
	FNR == 1 { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; file++; next }
	file == 1 {
		k = $c["ProgramId"] SUBSEP $c["Trace"]; if (!(k in n)) ntr++; n[k]++
		if (!(k in max) || $c["HeapBytes"] + 0 > max[k] + 0) { max[k] = $c["HeapBytes"]; at[k] = $c["Event"] }
		next
	}
	{
		k = $c["ProgramId"] SUBSEP $c["Trace"]
		if (!(k in n)) { print "peak of no trace: " $1; bad++; next }
		if ($c["Events"] != n[k] || $c["PeakHeapBytes"] != max[k] || $c["PeakEvent"] != at[k]) {
			print "peak differs: " $0; bad++ }
		done[k]++
	}
	END { for (k in n) if (done[k] != 1) { print "no single peak row"; bad++ }
		exit bad > 0 || !ntr }' "$1" "$2"
}

# series HEAP SERIES TOP: the notebook series of the top modules: points
# 0.. in order, each the HeapBytes of the first event of that Point.
series() {
	awk -F'\t' -v TOPLIST="$3" '
	BEGIN { n = split(TOPLIST, t, " "); for (i = 1; i <= n; i++) top[t[i]] = 1 }
	FNR == 1 { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; file++; next }
	file == 1 {
		k = $c["ProgramId"] SUBSEP $c["Trace"] SUBSEP $c["Point"]
		if (!(k in want)) { want[k] = $c["HeapBytes"]; ev[k] = $c["Event"] }
		if ($c["ProgramId"] in top) { tr[$c["ProgramId"] SUBSEP $c["Trace"]] = 1; np++ }
		next
	}
	{
		tk = $c["ProgramId"] SUBSEP $c["Trace"]; k = tk SUBSEP $c["Point"]
		if (!($c["ProgramId"] in top)) { print "not a top module: " $1; bad++ }
		if ($c["Point"] != (tk in last ? last[tk] + 1 : 0)) { print "Point " $c["Point"]; bad++ }
		last[tk] = $c["Point"]
		if ($c["Point"] == 0) { if ($c["HeapBytes"] != 0 || $c["Event"] != "") { print "point 0"; bad++ } }
		else if ($c["HeapBytes"] != want[k] || $c["Event"] != ev[k]) { print "point differs: " $0; bad++ }
		rows++
	}
	END { for (tk in tr) if (!(tk in last)) { print "no series"; bad++ }
		exit bad > 0 || (np && !rows) }' "$1" "$2"
}

# topmods GOLDDIR: the top module ids of the golden module table.
topmods() {
	sed -n 's/.*accounted for by module ID(s): //p' "$1/module_table.txt"
}

# toprule PEAKS TOPLIST: TopModule is 1 exactly for the listed ids.
toprule() {
	awk -F'\t' -v TOPLIST="$2" '
	BEGIN { n = split(TOPLIST, t, " "); for (i = 1; i <= n; i++) top[t[i]] = 1 }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ if ($c["TopModule"] != (($c["ProgramId"] in top) ? 1 : 0)) { print "TopModule " $0; bad++ }; rows++ }
	END { exit bad > 0 || !rows }' "$1"
}

# a dump of the step function: append BYTES (printf escapes) to every
# after-optimizations dump of module NAME in the extracted archive DIR.
append_dump() {
	for f in "$1"/dump/module_*."$2".*after_optimizations.hlo.pb.xz; do
		{ xz -dc "$f" && printf "$3"; } | xz -0 -c > "$f.new" && mv "$f.new" "$f"
	done
}

if have_data; then
	ALL="$DATA/pax_fsdp4_4proc_proc0.zip $DATA/pax_fsdp4_4proc_proc1.zip $DATA/pax_fsdp4_4proc_proc2.zip $DATA/pax_fsdp4_4proc_proc3.zip"
	# shellcheck disable=SC2086
	$X -f heap $ALL > "$T/heap.tsv" 2> "$T/err" && ok || notok "extract -f heap: $(cat "$T/err")"
	[ "$(head -n 1 "$T/heap.tsv")" = "$COLS" ] && ok || notok "heap columns: $(head -n 1 "$T/heap.tsv")"
	check "heap = notebook's heap_usage_trace" notebook "$T/heap.tsv"
	check "heap rows sorted" sorted_rows "$T/heap.tsv"
	mkdir "$T/fr"
	# shellcheck disable=SC2086
	$X -o "$T/fr" $ALL 2> "$T/err" && ok || notok "extract -o: $(cat "$T/err")"
	check "-o heap.tsv = -f heap" cmp "$T/fr/heap.tsv" "$T/heap.tsv"
	# Every ProgramId is one of the thunk frame's.
	check "heap ProgramIds in the thunk frame" awk -F'\t' '
	    FNR == 1 { next } FILENAME == ARGV[1] { p[$1] = 1; next }
	    { if (!($1 in p)) bad++; n++ } END { exit bad > 0 || !n }' "$T/fr/thunk.tsv" "$T/heap.tsv"
	# One process: the rows of its ProgramIds, the same dumps.
	$X -f heap "$DATA/pax_fsdp4_4proc_proc0.zip" > "$T/heap0.tsv" 2> "$T/err" && ok || notok "extract proc0"
	awk -F'\t' 'NR == FNR { p[$1] = 1; next } $1 in p' "$T/heap0.tsv" "$T/heap.tsv" > "$T/heap0.want"
	check "proc0 heap = its rows of the 4-process heap" cmp "$T/heap0.tsv" "$T/heap0.want"

	# memory.sh on the archives and on the frames directory.
	# shellcheck disable=SC2086
	$M -o "$T/m" $ALL 2> "$T/err" && ok || notok "memory.sh archives: $(cat "$T/err")"
	$M -o "$T/md" "$T/fr" 2> "$T/err" && ok || notok "memory.sh frames dir: $(cat "$T/err")"
	check "memory.sh: frames dir = archives" cmp "$T/m/peaks.tsv" "$T/md/peaks.tsv"
	check "memory.sh peaks = max HeapBytes" peaks "$T/heap.tsv" "$T/m/peaks.tsv"
	check "memory.sh peaks sorted" sh -c 'tail -n +2 "$1" | LC_ALL=C sort -c -t "$(printf "\t")" -k5,5nr -k1,1 -k3,3n' sh "$T/m/peaks.tsv"
	check "memory.sh names from the module frame" awk -F'\t' '
	    FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
	    FILENAME == ARGV[1] { n[$1] = $(c[FILENAME, "Name"]); next }
	    { if ($(c[FILENAME, "Name"]) != n[$1] || n[$1] == "") bad++; rows++ }
	    END { exit bad > 0 || !rows }' "$T/fr/module.tsv" "$T/m/peaks.tsv"
	top4=$(topmods "$GOLD/combined4")
	check "memory.sh TopModule = combined4 module_table.txt" toprule "$T/m/peaks.tsv" "$top4"
	check "memory.sh series of the top modules" series "$T/heap.tsv" "$T/m/series.tsv" "$top4"
	$M -t peaks "$DATA/pax_fsdp4_4proc_proc0.zip" > "$T/p0" 2> "$T/err" && ok || notok "memory.sh proc0"
	check "memory.sh proc0 TopModule = proc0 module_table.txt" toprule "$T/p0" "$(topmods "$GOLD/proc0")"
	# Without -o: both tables, each after "# NAME", then an empty line.
	$M "$T/fr" > "$T/both" 2> "$T/err" && ok || notok "memory.sh to stdout"
	{ echo '# peaks'; cat "$T/m/peaks.tsv"; echo; echo '# series'; cat "$T/m/series.tsv"; echo; } > "$T/both.want"
	check "memory.sh stdout = both tables" cmp "$T/both" "$T/both.want"

	# Bad buffer assignments: other frames do not read them; the heap
	# frame names the input and member.
	mkdir "$T/d0" "$T/d1"
	abs=$(cd "$DATA" && pwd)
	(cd "$T/d0" && unzip -qo "$abs/pax_fsdp4_4proc_proc0.zip")
	(cd "$T/d1" && unzip -qo "$abs/pax_fsdp4_4proc_proc1.zip")
	# HloProto{3: {4: {1: {kind 0, buffer_id 999999}}}}: a trace naming
	# no logical buffer.
	append_dump "$T/d0" jit__psum '\032\012\042\010\012\006\010\000\020\277\204\075'
	$X -f thunk "$T/d0" > /dev/null 2> "$T/err" && ok || notok "thunk frame reads no buffer assignment: $(cat "$T/err")"
	$X -f heap "$T/d0" > /dev/null 2> "$T/err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'd0: *dump/module_00[0-9]*\.jit__psum\..*hlo\.pb\.xz: heap simulator trace 0, event 0: no logical buffer with id 999999$' "$T/err" &&
		ok || notok "unknown buffer id: exit $rc, $(cat "$T/err")"
	$M "$T/d0" > /dev/null 2> "$T/err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no logical buffer with id 999999' "$T/err" && ok || notok "memory.sh on a bad dump: exit $rc"
	# HloProto{3: {4: 5}}: a trace as a varint.
	(cd "$T/d0" && rm -rf dump && unzip -qo "$abs/pax_fsdp4_4proc_proc0.zip" 'dump/*')
	append_dump "$T/d0" jit__psum '\032\002\040\005'
	$X -f heap "$T/d0" > /dev/null 2> "$T/err"; rc=$?
	[ $rc -eq 1 ] && grep -q 'jit__psum.*: corrupt buffer assignment$' "$T/err" && ok || notok "corrupt: exit $rc, $(cat "$T/err")"
	# HloProto{3: {4: {}}}: one more (empty) trace in process 1's dumps of
	# jit__psum: a warning, the first dump's traces (none) kept.
	(cd "$T/d0" && rm -rf dump && unzip -qo "$abs/pax_fsdp4_4proc_proc0.zip" 'dump/*')
	append_dump "$T/d1" jit__psum '\032\002\042\000'
	$X -f heap "$T/d0" "$T/d1" > "$T/h01" 2> "$T/err"; rc=$?
	[ $rc -eq 0 ] && grep -q 'd1: *dump/module_00[0-9]*\.jit__psum\..*: heap simulator traces differ from those of an earlier dump of ProgramId [0-9a-f]*; the heap frame has the first$' "$T/err" &&
		ok || notok "differing dumps: exit $rc, $(cat "$T/err")"
	$X -f heap "$DATA/pax_fsdp4_4proc_proc0.zip" "$DATA/pax_fsdp4_4proc_proc1.zip" > "$T/h01.want" 2> /dev/null
	check "differing dumps: the first kept" cmp "$T/h01" "$T/h01.want"

	# The examples of doc/pipelines.md, run as written from a directory with
	# rank0.zip ... rank3.zip and pipelines/.
	mkdir "$T/ex"
	for i in 0 1 2 3; do ln -s "$abs/pax_fsdp4_4proc_proc$i.zip" "$T/ex/rank$i.zip"; done
	ln -s "$(pwd)/pipelines" "$T/ex/pipelines"
	awk '/^## memory.sh/ { on = 1; next } /^##/ { on = 0 }
	    on && /^    [a-z]/ && !/\[-/ { sub(/^    /, ""); print }' doc/pipelines.md > "$T/ex.sh"
	if [ "$(grep -c pipelines/memory.sh "$T/ex.sh")" -ge 2 ] &&
	    (cd "$T/ex" && sh -e ../ex.sh > out 2> err) &&
	    [ -s "$T/ex/memory/peaks.tsv" ] && [ -s "$T/ex/memory/series.tsv" ] &&
	    cmp -s "$T/ex/memory/peaks.tsv" "$T/m/peaks.tsv"; then
		ok
	else
		notok "doc/pipelines.md examples: $(head -5 "$T/ex/err" 2> /dev/null)"
	fi
else
	skip "heap frame and memory.sh on the sample: $DATA not found"
fi

# Usage: -h on stdout; bad options, tables and no input exit 2 with the
# usage line on stderr; a missing input exits 1; a frames directory
# without heap.tsv exits 1.
$M -h > "$T/o" 2> "$T/e" && grep -q "^usage: $M " "$T/o" && [ ! -s "$T/e" ] && ok || notok "memory -h"
grep -q '^set -eu$' "$M" && ok || notok "memory.sh: no set -eu"
for args in "-x $T" "" "-o $T/u" "-t nope $T"; do
	# shellcheck disable=SC2086
	$M $args > "$T/o" 2> "$T/e"; rc=$?
	[ $rc -eq 2 ] && grep -q "^usage: $M " "$T/e" && [ ! -s "$T/o" ] && ok || notok "memory $args: exit $rc"
done
$M "$T/nosuch.zip" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'nosuch.zip' "$T/e" && ok || notok "memory missing input: exit $rc, $(cat "$T/e")"
mkdir "$T/noheap" && printf 'ProgramId\n' > "$T/noheap/thunk.tsv"
$M "$T/noheap" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'no heap.tsv' "$T/e" && ok || notok "memory without heap.tsv: exit $rc, $(cat "$T/e")"
$X -h | grep -q 'stackframes, heap' && ok || notok "extract -h names the heap frame"
[ -z "$(ls -A "$TMPDIR")" ] && ok || notok "left in TMPDIR: $(ls -A "$TMPDIR")"
done_testing t72-memory
