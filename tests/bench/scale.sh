#!/bin/sh
# make bench, part 2: nsysjax-extract and report.sh against the number of
# processes N of a run and its steps M, on synthetic runs from mkexample's
# large mode (every collective spans all N devices), packed as nsys-jax
# packs a process (xz members in a stored zip).  For each N: wall time and
# peak RSS (of the largest process: workers run -j at once) of extract -o
# and of report.sh, next to the decompression floor (tests/bench/floor.c,
# one process) divided by the cores used; then the extrapolation to N =
# 1000 and the targets.  Everything is generated here under
# $TMPDIR (about 6 MB per process) and removed.
#
#	SCALE_N="4 16 64 128 256" SCALE_STEPS=1000 sh tests/bench/scale.sh
set -eu
: "${BIN:=build/bin}" "${FLOOR:=build/bench/floor}"
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
: "${SCALE_N:=4 16 64 128 256}" "${SCALE_STEPS:=1000}"
CORES=$(getconf _NPROCESSORS_ONLN)
T=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-scale.XXXXXX"); trap 'rm -rf "$T"' EXIT

# A run of N processes x M steps as N archives; prints their paths.
mkrun() {
	d=$T/run-$1-$2
	if [ ! -d "$d" ]; then
		"$MKEXAMPLE" -n "$1" -s "$2" "$d"
		# Packed on every core: xz is most of the generation's time.
		ls -d "$d"/rank* | xargs -P "$CORES" -I{} sh -c 'cd "$1" &&
		    xz -T1 -q report_nvtx_pushpop_trace.csv dump/*.hlo.pb &&
		    zip -q -0 -r "../${1##*/}.zip" . && cd .. && rm -rf "$1"' sh {}
	fi
	ls "$d"/rank*.zip | sort -t k -k 2n
}

# seconds and MB of "$@" as "S MB": the best time and the largest RSS of
# 3 runs when one takes under 5 s (short runs are the noisiest on a
# shared machine), else of one.
measure() {
	: > "$T/times"
	for _i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$T/time" "$@" > /dev/null 2>&1 ||
			{ echo "bench: failed: $*" >&2; exit 1; }
		cat "$T/time" >> "$T/times"
		tail -n 1 "$T/te" | awk '{ exit !($1 >= 5) }' && break
	done
	awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { printf "%s %d\n", t, m / 1024 }' "$T/times"
}

# once FILE CMD...: one timed run of CMD, "S KB CPU" appended to FILE
# (CPU: user + system seconds of CMD and its workers).
once() {
	_f=$1; shift
	/usr/bin/time -f '%e %M %U %S' -o "$T/time" "$@" > /dev/null 2>&1 ||
		{ echo "bench: failed: $*" >&2; exit 1; }
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$T/time" >> "$_f"
}
# cpu FILE: the least CPU seconds of FILE's runs.
cpu() { awk 'NR == 1 || $3 < c { c = $3 } END { printf "%.2f", c }' "$1"; }
# best FILE: the best time and the largest RSS (MB) of FILE's runs.
best() { awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { printf "%s %d\n", t, m / 1024 }' "$1"; }

printf 'load at start: %s (1, 5, 15 min) on %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null)" "$CORES"
printf '%6s %6s | %20s %10s | %20s | %12s | %s | %s\n' N M "extract -o" "CPU" "report.sh" "floor/cores" "thunk rows" "critpath -s"
line() {
	n=$1 m=$2
	set -- $(mkrun "$n" "$m")
	j=$((CORES < n ? CORES : n))
	# extract -o and the floor in turns, so that their ratio (the last
	# target) compares runs under the same load.
	: > "$T/te"; : > "$T/tf"
	for _i in 1 2 3; do
		once "$T/te" "$BIN/nsysjax-extract" -o "$T/out" "$@"
		once "$T/tf" "$FLOOR" "$@"
		tail -n 1 "$T/te" | awk '{ exit !($1 >= 5) }' && break
	done
	ext=$(best "$T/te") flr=$(best "$T/tf") ecpu=$(cpu "$T/te")
	rows=$(($(wc -l < "$T/out/thunk.tsv") - 1))
	# The critical-path analysis with its scenarios, on the
	# frames just extracted (clocks aligned first, not timed).
	"$BIN/nsysjax-align" -o "$T/corr.tsv" "$T/out/communication.tsv" > /dev/null 2>&1
	cpt=$(measure "$BIN/nsysjax-critpath" -s -c "$T/corr.tsv" -m "$T/out/module.tsv" \
	    -H "$T/out/hlo.tsv" "$T/out/thunk.tsv")
	rep=$(measure sh -c 'o=$1; shift; rm -rf "$o"; NSYSJAX_BIN=$0 sh pipelines/report.sh -q -o "$o" "$@"' \
	    "$BIN" "$T/report" "$@")
	set -- $ext $rep $flr
	fc=$(awk -v f="$5" -v j="$j" 'BEGIN { printf "%.2f", f / j }')
	printf '%6d %6d | %7.2f s %7d MB %8s s | %7.2f s %7d MB | %10s s | %d | %s s %s MB\n' \
	    "$n" "$m" "$1" "$2" "$ecpu" "$3" "$4" "$fc" "$rows" ${cpt% *} ${cpt#* }
	echo "$n $m $1 $2 $3 $4 $fc ${cpt% *} ${cpt#* }" >> "$T/table"
	timeline_line "$n" "$m"
	rm -rf "$T/out" "$T/report"
}
# ---- nsysjax-timeline ----
# Per N: one step of every device (--steps 1, what makes a large run
# viewable) and the whole run, as a Perfetto trace: time, peak RSS and
# size; printed after the scale table.
timeline_line() {
	for sel in "--steps 1" ""; do
		# shellcheck disable=SC2086 # the option and its argument
		r=$(measure sh -c '"$0" -v $1 "$2" > "$3" 2> "$3.err"' "$BIN/nsysjax-timeline" "$sel" "$T/out" "$T/tl.pb")
		v=$(sed -n 's/.*: \([0-9]*\) slices.* \([0-9]*\) bytes.*/\1 \2/p' "$T/tl.pb.err")
		echo "$1 $2 ${sel:-all} $r $v" >> "$T/timeline"
	done
	rm -f "$T/tl.pb" "$T/tl.pb.err"
}
for n in $SCALE_N; do line "$n" "$SCALE_STEPS"; done
# Steps: the second N (the first when alone) at M and 2M.
set -- $SCALE_N
n0=${2:-$1}
line "$n0" $((2 * SCALE_STEPS))
rm -rf "$T"/run-*
echo "nsysjax-timeline (Perfetto protobuf):"
awk '{ printf "%6d %6d %-9s | %7.2f s %7d MB | %9d slices %8.1f MB, %5.1f MB per million slices\n",
    $1, $2, $3 == "--steps" ? "--steps 1" : "all", $(NF - 3), $(NF - 2), $(NF - 1), $NF / 1e6, $(NF - 1) ? $NF / $(NF - 1) : 0 }' "$T/timeline"

# Memory flat in processes: the critical path (-s) and the whole
# timeline at N = 16 and N = 128 (when both are in SCALE_N), wall and
# peak RSS, and the ratio of peak RSS 128 / 16 (goal <= 1.5).
awk -v M="$SCALE_STEPS" 'FILENAME == ARGV[1] && $2 == M { ct[$1] = $8; cr[$1] = $9; next }
$2 == M && $3 == "all" { tt[$1] = $(NF - 3); tr[$1] = $(NF - 2) }
function row(what, t16, r16, t128, r128) {
	printf "%-22s N = 16: %7.2f s %5d MB | N = 128: %7.2f s %5d MB | peak RSS 128 / 16: %.2f (goal <= 1.5: %s)\n",
	    what, t16, r16, t128, r128, (r16 > 0 ? r128 / r16 : 0), ((r16 > 0 && r128 <= 1.5 * r16) ? "met" : "MISSED")
}
END {
	if (!((16 in ct) && (128 in ct))) { print "critpath and timeline at N = 16 and 128: not both in SCALE_N"; exit }
	row("critpath -s", ct[16], cr[16], ct[128], cr[128])
	row("timeline (all steps)", tt[16], tr[16], tt[128], tr[128])
}' "$T/table" "$T/timeline"

awk -v M="$SCALE_STEPS" -v n0="$n0" '
{ N[NR] = $1; S[NR] = $2; et[NR] = $3; er[NR] = $4; rt[NR] = $5; rr[NR] = $6; fc[NR] = $7; ct[NR] = $8; cr[NR] = $9 }
function find(n, m,   i) { for (i = 1; i <= NR; i++) if (N[i] == n && S[i] == m) return i; return 0 }
function verdict(c) { return c ? "met" : "MISSED" }
END {
	last = 0; for (i = 1; i <= NR; i++) if (S[i] == M && (last == 0 || N[i] > N[last])) last = i
	k16 = find(16, M)
	printf "extrapolated to N = 1000 (time linear from N = %d, RSS flat): extract -o %.0f s, %d MB; report.sh %.0f s, %d MB\n",
	    N[last], et[last] * 1000 / N[last], er[last], rt[last] * 1000 / N[last], rr[last]
	if (k16 && N[last] > 16)
		printf "target: extract -o RSS at N=%d <= 1.5 x N=16 (%d <= %.0f MB) and <= 400 MB: %s\n",
		    N[last], er[last], 1.5 * er[k16], verdict(er[last] <= 1.5 * er[k16] && er[last] <= 400)
	printf "target: report.sh at N=%d within 1.5 x extract -o (%.2f <= %.2f s), RSS <= 500 MB (%d): %s\n",
	    N[last], rt[last], 1.5 * et[last], rr[last], verdict(rt[last] <= 1.5 * et[last] && rr[last] <= 500)
	printf "target: extract -o wall at N=%d within 1.3 x floor/cores (%.2f <= %.2f s): %s\n",
	    N[last], et[last], 1.3 * fc[last], verdict(et[last] <= 1.3 * fc[last])
	# The critical path costs no more than the extraction.
	printf "target: critpath -s at N=%d within extract -o (%.2f <= %.2f s): %s; extrapolated to N = 1000: %.0f s, %d MB\n",
	    N[last], ct[last], et[last], verdict(ct[last] <= et[last]), ct[last] * 1000 / N[last], cr[last]
	# Per doubling between consecutive N: (t2 / t1) ^ (1 / log2(N2 / N1)).
	worst = 0
	for (i = 1; i < NR; i++) {
		k = i + 1
		if (S[i] != M || S[k] != M || N[k] <= N[i])
			continue
		d = log(N[k] / N[i]) / log(2)
		r = (et[k] / et[i]) ^ (1 / d); if (r > worst) worst = r
		r = (rt[k] / rt[i]) ^ (1 / d); if (r > worst) worst = r
	}
	a = find(n0, M); b = find(n0, 2 * M)
	if (a && b) { r = et[b] / et[a]; if (r > worst) worst = r; r = rt[b] / rt[a]; if (r > worst) worst = r }
	printf "target: no step superlinear (doubling N or M at most ~2.1 x the time; worst %.2f x): %s\n",
	    worst, verdict(worst <= 2.1)
}' "$T/table"
