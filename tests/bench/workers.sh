#!/bin/sh
# make bench, part 3: each figure of the workers' table as a
# ratio against its floor or peer, both measured in this run, in turns
# (A B A B: best of 2 each), so that a ratio compares runs under the same
# load; the machine's load is printed at the start and with each figure.
#
#   extract -o, default workers   vs -j 0: wall, CPU (user + sys), RSS
#   extract -o -j 1               vs -j 0: wall
#   report.sh, the shared run     vs the decompression floor (floor.c)
#   -f nvtx, a large export       vs sqlite3 scanning the same columns
#
# The workers rows run on the shared 4-process run, on BENCH_COPIES copies
# of it (default 32: 128 processes; their devices are shared,
# merged by merge_shared_begin),
# and on a synthetic run of BENCH_WORKERS_N processes (mkexample's large
# mode, default 32, packed as nsys-jax packs, every device its own).  The export has BENCH_NVTX_RANGES
# ranges (default 2,790,000; 0 skips it), made by mkexport
# synth with the proportions of calls and kernels of a large PyTorch
# trace.
# Goals: workers' CPU <= 1.15 x -j 0's, wall <= -j 0's;
# -j 1 wall <= -j 0's; report.sh <= 1.5 x the floor, <= 100 MB; nvtx
# <= 2 x the sqlite3 scan, <= 300 MB.
set -eu
: "${BIN:=build/bin}" "${SHARED:=../shared}" "${FLOOR:=build/bench/floor}"
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}" "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
: "${BENCH_WORKERS_N:=32}" "${BENCH_NVTX_RANGES:=2790000}" "${BENCH_COPIES:=32}"
case $SHARED in /*) ;; *) [ ! -d "$SHARED" ] || SHARED=$(cd -- "$SHARED" && pwd) ;; esac
DATA=$SHARED/data/pax_fsdp4_4proc
[ -d "$DATA" ] || { echo "bench: $DATA not found" >&2; exit 1; }
CORES=$(getconf _NPROCESSORS_ONLN)
T=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-bench23.XXXXXX"); trap 'rm -rf "$T"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg 2> /dev/null; }
printf 'workers: load at start: %s (1, 5, 15 min) on %s cores\n' "$(load)" "$CORES"

# run FILE CMD...: one run of CMD, "wall cpu MB" appended to FILE (cpu =
# user + sys seconds, MB the peak RSS of its largest process).
run() {
	_f=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@" > /dev/null 2>&1 ||
		{ echo "bench: failed: $*" >&2; exit 1; }
	awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$T/time" >> "$_f"
}
# best FILE: the best wall, the best CPU and the largest RSS of FILE's runs.
best() {
	awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } $3 > m { m = $3 }
	    END { printf "%s %s %d\n", w, c, m }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# le A B [F]: "met" when A <= F x B (F defaults to 1), else "MISSED".
le() { awk -v a="$1" -v b="$2" -v f="${3:-1}" 'BEGIN { print (a <= f * b ? "met" : "MISSED") }'; }

# workers LABEL ARCHIVES...: default, -j 1 and -j 0 in turns, twice.
workers() {
	label=$1; shift
	: > "$T/wd"; : > "$T/w1"; : > "$T/w0"
	l=$(load)
	for _i in 1 2; do
		run "$T/wd" "$BIN/nsysjax-extract" -o "$T/o" "$@"
		run "$T/w1" "$BIN/nsysjax-extract" -j 1 -o "$T/o" "$@"
		run "$T/w0" "$BIN/nsysjax-extract" -j 0 -o "$T/o" "$@"
	done
	set -- $(best "$T/wd") $(best "$T/w1") $(best "$T/w0")
	printf '%-22s default (-j %s): %6ss wall %6ss CPU %4s MB | -j 1: %6ss | -j 0: %6ss wall %6ss CPU %4s MB | load %s\n' \
	    "$label" "$CORES" "$1" "$2" "$3" "$4" "$7" "$8" "$9" "$l"
	printf '%-22s default / -j 0: CPU %s x (goal <= 1.15: %s), wall %s x (goal <= 1: %s); -j 1 / -j 0 wall %s x (goal <= 1: %s)\n' \
	    "" "$(ratio "$2" "$8")" "$(le "$2" "$8" 1.15)" "$(ratio "$1" "$7")" \
	    "$(le "$1" "$7")" "$(ratio "$4" "$7")" "$(le "$4" "$7")"
}

ALL="$DATA/pax_fsdp4_4proc_proc0.zip $DATA/pax_fsdp4_4proc_proc1.zip $DATA/pax_fsdp4_4proc_proc2.zip $DATA/pax_fsdp4_4proc_proc3.zip"
# shellcheck disable=SC2086 # the four paths
workers "shared run (4 proc)" $ALL

# Copies of the shared run, as 128 processes of one run are: each copy a
# zip comment apart (the same bytes are refused as one profile given
# twice); their devices are shared, so the workers' parts are merged
# with ThunkExecution numbered over the copies (merge.h
# merge_shared_begin).
mkdir "$T/copies"
_c=0
while [ "$_c" -lt "$BENCH_COPIES" ]; do
	for _k in 0 1 2 3; do
		cp "$DATA/pax_fsdp4_4proc_proc$_k.zip" "$T/copies/c${_c}p$_k.zip"
		chmod u+w "$T/copies/c${_c}p$_k.zip"
		echo "copy $_c" | zip -q -z "$T/copies/c${_c}p$_k.zip"
	done
	_c=$((_c + 1))
done
# shellcheck disable=SC2046 # the archives
workers "$BENCH_COPIES copies ($((4 * BENCH_COPIES)) proc)" $(ls "$T"/copies/*.zip | sort -V)
rm -rf "$T/copies"

# A synthetic run of N processes, packed as scale.sh packs it.
N=$BENCH_WORKERS_N
"$MKEXAMPLE" -n "$N" -s 1000 "$T/run" > /dev/null
ls -d "$T"/run/rank* | xargs -P "$CORES" -I{} sh -c 'cd "$1" &&
    xz -T1 -q report_nvtx_pushpop_trace.csv dump/*.hlo.pb &&
    zip -q -0 -r "../${1##*/}.zip" . && cd .. && rm -rf "$1"' sh {}
# shellcheck disable=SC2046 # the archives, in rank order
workers "synthetic ($N proc)" $(ls "$T"/run/rank*.zip | sort -t k -k 2n)
rm -rf "$T/run" "$T/o"

# report.sh on the shared run against the floor, in turns.
: > "$T/ra"; : > "$T/rf"
l=$(load)
for _i in 1 2; do
	run "$T/ra" sh -c 'rm -rf "$1"; NSYSJAX_BIN=$2 sh pipelines/report.sh -q -o "$1" $3' sh "$T/report" "$BIN" "$ALL"
	# shellcheck disable=SC2086
	run "$T/rf" "$FLOOR" $ALL
done
set -- $(best "$T/ra") $(best "$T/rf")
printf '%-22s %6ss %6ss CPU %4s MB | floor %6ss | %s x the floor (goal <= 1.5: %s), RSS goal <= 100 MB: %s | load %s\n' \
    "report.sh (4 proc)" "$1" "$2" "$3" "$4" "$(ratio "$1" "$4")" "$(le "$1" "$4" 1.5)" \
    "$(le "$3" 100)" "$l"
rm -rf "$T/report"

# -f nvtx on a large export against sqlite3 scanning the columns that
# nsysdb.c reads of the same tables (NVTX_EVENTS, the GPU operations,
# the runtime calls, the strings).
R=$BENCH_NVTX_RANGES
if [ "$R" -gt 0 ]; then
	"$MKEXPORT" synth "$R" $((R * 175 / 279)) $((R * 165 / 279)) 5 "$T/big.sqlite"
	cat > "$T/scan.sql" <<-'EOF'
	SELECT count(*), total(length(value)) FROM StringIds;
	SELECT count(*), total(start), total(end), total(eventType), total(globalTid), total(endGlobalTid), total(domainId), total(textId), total(length(text)) FROM NVTX_EVENTS;
	SELECT count(*), total(start), total(end), total(correlationId), total(globalPid), total(graphNodeId), total(shortName) FROM CUPTI_ACTIVITY_KIND_KERNEL;
	SELECT count(*), total(globalTid), total(start), total(end), total(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME;
	EOF
	if command -v sqlite3 > /dev/null 2>&1; then
		: > "$T/na"; : > "$T/ns"
		l=$(load)
		for _i in 1 2; do
			run "$T/na" "$BIN/nsysjax-extract" -f nvtx "$T/big.sqlite"
			run "$T/ns" sh -c 'sqlite3 "$1" < "$2"' sh "$T/big.sqlite" "$T/scan.sql"
		done
		set -- $(best "$T/na") $(best "$T/ns")
		printf '%-22s %6ss %6ss CPU %4s MB | sqlite3 scan %6ss | %s x the scan (goal <= 2: %s), RSS goal <= 300 MB: %s | load %s\n' \
		    "-f nvtx ($R ranges)" "$1" "$2" "$3" "$4" "$(ratio "$1" "$4")" "$(le "$1" "$4" 2)" \
		    "$(le "$3" 300)" "$l"
	else
		echo "-f nvtx: sqlite3 (the shell) not found: no peer to compare with"
	fi
	rm -f "$T/big.sqlite"
fi
