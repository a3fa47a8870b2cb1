#!/bin/sh
# make bench: wall time and peak RSS of nsysjax-extract (all frames) on
# proc0 and on the four archives, next to the floor: the time merely to
# read and decompress the members extract reads, with the same libraries
# (tests/bench/floor.c), and next to unzip -p | xz -dc doing the same in
# two processes (which overlaps unzip and xz on two cores).  extract -o
# and the floor run in turns (best of 3 each), so that their ratio
# compares runs under the same load; the load at start is printed.
# The reference needs 8.6 s and 0.9 GB on the four archives (golden
# env.json, load_profiler_data).  Needs ../shared/data.
set -eu
: "${BIN:=build/bin}" "${SHARED:=../shared}" "${FLOOR:=build/bench/floor}"
case $SHARED in /*) ;; *) [ ! -d "$SHARED" ] || SHARED=$(cd -- "$SHARED" && pwd) ;; esac
DATA=$SHARED/data/pax_fsdp4_4proc
[ -d "$DATA" ] || { echo "bench: $DATA not found" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# The machine's load at start: the figures are wall times on a machine
# other jobs may share.
printf 'load at start: %s (1, 5, 15 min) on %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null)" \
    "$(getconf _NPROCESSORS_ONLN)"

# best of 3 wall seconds and the peak RSS in MB of "$@"
measure() {
	best=""; rss=0
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$T/time" "$@" > /dev/null
		read -r s kb < "$T/time"
		best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
		rss=$(( kb > rss ? kb : rss ))
	done
	echo "$best $((rss / 1024))"
}

# pair FILE-A FILE-B: best of 3 of extract -o (A) and of the floor (B),
# run in turns (A B A B A B) so that both see the same load; each file
# ends with "S MB" as measure prints it.
pair() {
	: > "$T/ta"; : > "$T/tb"
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$T/time" "$BIN/nsysjax-extract" -o "$T/out" "$@" > /dev/null
		cat "$T/time" >> "$T/ta"
		/usr/bin/time -f '%e %M' -o "$T/time" "$FLOOR" "$@" > /dev/null
		cat "$T/time" >> "$T/tb"
	done
	for f in ta tb; do
		awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { printf "%s %d\n", t, m / 1024 }' "$T/$f"
	done
}

run() {
	label=$1; shift
	mkdir -p "$T/out"
	set -- $*
	pr=$(pair "$@")
	ext=$(printf '%s\n' "$pr" | sed -n 1p) flr=$(printf '%s\n' "$pr" | sed -n 2p)
	thk=$(measure "$BIN/nsysjax-extract" -f thunk "$@")
	pip=$(measure sh tests/bench-floor.sh "$@")
	rat=$(awk -v e="${ext%% *}" -v f="${flr%% *}" 'BEGIN { printf "%.2f", (f > 0 ? e / f : 0) }')
	printf '%-10s extract -o (all frames): %5ss %4s MB (%s x floor) | -f thunk: %5ss %4s MB | floor: %5ss (unzip|xz: %5ss)\n' \
	    "$label" ${ext%% *} ${ext##* } "$rat" ${thk%% *} ${thk##* } ${flr%% *} ${pip%% *}
}
P0=$DATA/pax_fsdp4_4proc_proc0.zip
ALL="$DATA/pax_fsdp4_4proc_proc0.zip $DATA/pax_fsdp4_4proc_proc1.zip $DATA/pax_fsdp4_4proc_proc2.zip $DATA/pax_fsdp4_4proc_proc3.zip"
run proc0 "$P0"
run combined4 "$ALL"
# The roofline: the cost rules over every instruction of the
# four archives' dumps (extract -o costs the instructions of thunks only;
# decoding the cost facts is inside its time above).
printf 'hlocost    '
"$(dirname "$FLOOR")/hlocost" $ALL
echo "reference (load_profiler_data, four archives): 8.6 s, 0.9 GB"

# The whole report (pipelines/report.sh) on the four archives; peak RSS is
# the largest process of the run.  Reference, notebook-equivalent: 18 s,
# 1.5 GB.
rep=$(measure sh -c 'rm -rf "$1"; NSYSJAX_BIN=$2 sh pipelines/report.sh -o "$1" $3 2> /dev/null' sh "$T/report" "$BIN" "$ALL")
printf 'report.sh  four archives: %5ss %4s MB peak RSS (reference notebook-equivalent: 18 s, 1.5 GB)\n' ${rep%% *} ${rep##* }

# flamegraph.pl on the report's flame graphs: the .folded files whole
# against the lines nsysjax-fold -P hands it (pipelines/flamegraphs.sh,
# the pruning's own time included): input lines, and wall and CPU
# seconds of drawing all the graphs (best of 3; CPU is steadier on a
# shared machine).  The real flamegraph.pl: on PATH, else ../shared's.
FGPL=$(command -v flamegraph.pl || echo "$SHARED/tools/flamegraph/flamegraph.pl")
if [ -f "$FGPL" ] && [ -d "$T/report/flamegraphs" ]; then
	# fg_line whole|pruned FOLDED...: "wall CPU", the best of 3 each.
	fg_line() {
		: > "$T/fgt"
		for i in 1 2 3; do
			/usr/bin/time -f '%e %U %S' -o "$T/time" sh -c 'FGPL=$1 BIN=$2 how=$3; shift 3
			    for f; do if [ "$how" = whole ]; then PERL_HASH_SEED=0 perl "$FGPL" --hash --width=1250 "$f"
			    else "$BIN/nsysjax-fold" -P -w 1250 "$f" | PERL_HASH_SEED=0 perl "$FGPL" --hash --width=1250; fi
			    done > /dev/null' sh "$FGPL" "$BIN" "$@"
			cat "$T/time" >> "$T/fgt"
		done
		awk 'NR == 1 || $1 < t { t = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 } END { printf "%.2f %.2f", t, c }' "$T/fgt"
	}
	set -- "$T/report/flamegraphs"/*.folded
	lw=$(cat "$@" | wc -l)
	lp=$(for f; do "$BIN/nsysjax-fold" -P -w 1250 "$f"; done | wc -l)
	fw=$(fg_line whole "$@") fp=$(fg_line pruned "$@")
	printf 'flamegraph.pl, the report'"'"'s %d graphs: whole %d lines, %5ss wall, %5ss CPU | pruned (nsysjax-fold -P) %d lines, %5ss wall, %5ss CPU\n' \
	    $# "$lw" ${fw% *} ${fw#* } "$lp" ${fp% *} ${fp#* }
fi

# The filters on 10 million thunk rows: the real combined4 thunk frame
# repeated by tests/bench/gen-thunks.awk (executions and times shifted so
# that collective instances stay distinct), generated once here into the
# temporary directory (about 1.2 GB; never committed).  Rows per second
# count data rows over the best of 3 wall times; peak RSS is next to the
# input's size: the filters hold only the columns they need.
ROWS=${BENCH_ROWS:-10000000}
F=$T/filters; mkdir -p "$F"
"$BIN/nsysjax-extract" -n proc0,proc1,proc2,proc3 -o "$T/out" $ALL
awk -v ROWS="$ROWS" -v MODULES="$T/out/module.tsv" -v MOUT="$F/module.tsv" \
    -f tests/bench/gen-thunks.awk "$T/out/thunk.tsv" > "$F/big.tsv"
mb=$(( $(wc -c < "$F/big.tsv") / 1048576 ))
rps() { awk -v n="$ROWS" -v s="$1" 'BEGIN { printf "%.2f", (s > 0 ? n / s / 1e6 : 0) }'; }
frun() {
	label=$1; shift
	r=$(measure "$@")
	printf '%-44s %6ss %5s M rows/s %5s MB peak RSS (input %d MB)\n' \
	    "$label" ${r%% *} "$(rps ${r%% *})" ${r##* } "$mb"
}
echo "filters on $ROWS thunk rows:"
frun "cat (the I/O floor)" cat "$F/big.tsv"
frun "collectives" "$BIN/nsysjax-collectives" "$F/big.tsv"
frun "collectives -s bandwidth" "$BIN/nsysjax-collectives" -s bandwidth "$F/big.tsv"
# Estimating spools the rows to a temporary file and keeps only the
# collectives in memory; --apply streams.
frun "align (estimate, -o)" "$BIN/nsysjax-align" -o "$F/corr.tsv" "$F/big.tsv"
frun "align --apply" "$BIN/nsysjax-align" -a "$F/corr.tsv" "$F/big.tsv"
# Warm-up keeps no row in memory.  The last line is its slow path: every
# row waits in $TMPDIR until the end (input from a pipe, nothing steady).
W=$BIN/nsysjax-warmup C=$T/out/compile.tsv
frun "warmup -c (Communication read ahead)" "$W" -c "$C" "$F/big.tsv"
frun "warmup -c --communication yes" "$W" -c "$C" --communication yes "$F/big.tsv"
frun "warmup -m -c, from a pipe" sh -c '"$1" -m -c "$2" < "$3"' sh "$W" "$C" "$F/big.tsv"
frun "warmup -s N, nothing steady, pipe" sh -c '"$1" -s 1000000000 < "$2" 2> /dev/null' sh "$W" "$F/big.tsv"

# The analyses of the pipelines, in C, on the same rows and
# their module frame (the real one repeated with the same shifts).  The
# awk programs they replace needed, by measurements on this
# machine, 12.5 s and 340 MB for the stragglers of 2 M rows
# (stragglers.awk), and 17.6 s for the skews of 6,000 steps (skews.awk,
# an insertion sort: quadratic).
S=$BIN/nsysjax-stats M=$F/module.tsv
frun "stats -t thunks,totals,modules" "$S" -t thunks,totals,modules -M "$M" -o "$F" "$F/big.tsv"
frun "stats -t variability,stragglers" "$S" -t variability,stragglers -M "$M" -o "$F" "$F/big.tsv"
frun "stats -t stragglers" "$S" -t stragglers -M "$M" "$F/big.tsv"
# The plots' sums (plots.awk's steady pass, in C).
frun "stats -t scatter,offsets" "$S" -t scatter,offsets -M "$M" -o "$F" "$F/big.tsv"
frun "stats -t costs" "$S" -t costs -H "$T/out/hlo.tsv" "$F/big.tsv"
frun "collectives -s waits" "$BIN/nsysjax-collectives" -s waits "$F/big.tsv"
frun "align -o -s (corrections and skews)" "$BIN/nsysjax-align" -o "$F/corr.tsv" -s "$F/skews.tsv" "$F/big.tsv"
echo "awk before: stragglers.awk 12.5 s, 340 MB on 2 M rows; skews.awk 17.6 s at 6,000 steps"

# nsysjax-critpath on N rows that all overlap on one device (N streams):
# stream assignment must stay O(n log n); x4 rows should cost about x4
# (a scan of every stream per row cost x15: 0.32 s, 5.0 s).
for n in 20000 80000; do
	awk -v n=$n 'BEGIN { print "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs"
	    for (i = 0; i < n; i++) printf "p\t0\tk%d\t0\t0\t%d.%06d\t1000\n", i, i / 1000000, i % 1000000 }' > "$F/ov$n.tsv"
	r=$(measure "$BIN/nsysjax-critpath" -b "$F/ov$n.tsv")
	printf '%-44s %6ss %5s MB peak RSS\n' "critpath -b, $n fully overlapping rows" ${r%% *} ${r##* }
done

# nsysjax-compilestats on 1,000 profiles: the combined4 compile frame
# repeated 250 times under other profile names (5 M ranges).  One profile
# at a time: holding every range took 1 GB.
awk -F'\t' -v OFS='\t' 'NR == 1 { print; next } { r[NR] = $0 }
    END { for (k = 0; k < 250; k++) for (i = 2; i <= NR; i++) { $0 = r[i]; $1 = $1 "_" k; print } }' \
    "$T/out/compile.tsv" > "$F/compile.tsv"
r=$(measure "$BIN/nsysjax-compilestats" -t summary "$F/compile.tsv")
printf '%-44s %6ss %5s MB peak RSS (%d ranges, %d MB)\n' "compilestats -t summary, 1,000 profiles" \
    ${r%% *} ${r##* } $(($(wc -l < "$F/compile.tsv") - 1)) $(( $(wc -c < "$F/compile.tsv") / 1048576 ))
# nsysjax-diff on two thunk frames of $ROWS rows: BEFORE the frame above,
# AFTER made the same way from a copy of the real frame whose ProjDurMs
# are 1% longer (so that every item differs).  Both frames are read in
# full and every item tested; memory holds 4 bytes per row and run.
awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProjDurMs") c = i; print; next }
	{ $c = sprintf("%.6f", $c * 1.01); print }' "$T/out/thunk.tsv" > "$T/out/thunk_after.tsv"
awk -v ROWS="$ROWS" -f tests/bench/gen-thunks.awk "$T/out/thunk_after.tsv" > "$F/after.tsv"
r=$(measure "$BIN/nsysjax-diff" -q -b "$T/out/module.tsv" -a "$T/out/module.tsv" "$F/big.tsv" "$F/after.tsv")
printf '%-44s %6ss %5s M rows/s %5s MB peak RSS (inputs 2 x %d MB)\n' \
    "diff (two frames of $ROWS rows each)" ${r%% *} "$(rps ${r%% *} | awk '{ printf "%.2f", $1 * 2 }')" ${r##* } "$mb"

# nsys SQLite exports (tests/sqlite/mkexport.c, MKEXPORT): the 4-process
# run converted to exports against the archives (goal: within 1.5x), and
# -f nvtx on generated exports shaped like nsys-ai's largest reported
# case (16 M NVTX ranges, 7 M runtime calls, 2.2 M kernels, 5 threads:
# goal 20 s; nsys-ai's Python sweep took 61 s) and a tenth of it cut to
# 1 M ranges (goal 2 s).  The 16 M export is about 1.4 GB in $T;
# BENCH_SQLITE_RANGES=0 skips it.
: "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
Q=$T/sqlite; mkdir -p "$Q/out"
for i in 0 1 2 3; do
	mkdir -p "$Q/a$i" "$Q/proc$i"
	(cd "$Q/a$i" && unzip -q "$DATA/pax_fsdp4_4proc_proc$i.zip")
	"$MKEXPORT" archive "$Q/a$i" "$Q/proc$i/proc$i.sqlite"
	mv "$Q/a$i/dump" "$Q/proc$i/dump"; rm -rf "$Q/a$i"
done
ar=$(measure "$BIN/nsysjax-extract" -o "$Q/out" $ALL)
sq=$(measure "$BIN/nsysjax-extract" -o "$Q/out" "$Q"/proc[0-3])
printf 'combined4  extract -o: archives %5ss %4s MB | SQLite exports %5ss %4s MB\n' \
    ${ar%% *} ${ar##* } ${sq%% *} ${sq##* }
nvtx_bench() {
	"$MKEXPORT" synth "$1" "$2" "$3" 5 "$Q/big.sqlite"
	r=$(measure "$BIN/nsysjax-extract" -f nvtx "$Q/big.sqlite")
	printf 'nvtx frame of %9s ranges, %8s calls, %8s kernels, 5 threads: %6ss %5s MB peak RSS (export %d MB)\n' \
	    "$1" "$2" "$3" ${r%% *} ${r##* } $(( $(wc -c < "$Q/big.sqlite") / 1048576 ))
	rm -f "$Q/big.sqlite"
}
nvtx_bench 1000000 437500 137500
R=${BENCH_SQLITE_RANGES:-16000000}
[ "$R" -gt 0 ] && nvtx_bench "$R" $((R * 7 / 16)) $((R * 11 / 80))

# The SQLite reader at the sizes nsys-ai publishes rates for (its
# src/nsys_ai/parquet_cache.py, on 12 cores): 50 MB/s at 93 MB, 89 at
# 235 MB, 110 at 924 MB, 136 at 3.7 GB.  Exports of those sizes made by
# mkexport synth in the proportions of the 2.79 M-range export
# (tests/bench/workers.sh: runtime calls 175/279 and kernels 165/279 of
# the NVTX ranges, 5 threads; about 105 bytes per range), each read once
# by nsysjax-extract -f nvtx here on 2 cores: MB/s of wall time (the
# export's bytes, 10^6 a MB), CPU seconds and peak RSS.
# BENCH_SQLITE_SIZES chooses the sizes in MB (default "93 235 924 3700";
# the last needs 3.7 GB in $TMPDIR and about ten minutes: "93 235 924"
# leaves it out).
: "${BENCH_SQLITE_SIZES:=93 235 924 3700}"
echo "SQLite reader (nsysjax-extract -f nvtx) on $(getconf _NPROCESSORS_ONLN) cores; nsys-ai on 12 cores:"
for S in $BENCH_SQLITE_SIZES; do
	case $S in 93) ref=50 ;; 235) ref=89 ;; 924) ref=110 ;; 3700) ref=136 ;; *) ref=- ;; esac
	R=$((S * 27900000 / 2936))
	"$MKEXPORT" synth "$R" $((R * 175 / 279)) $((R * 165 / 279)) 5 "$Q/size.sqlite"
	/usr/bin/time -f '%e %U %S %M' -o "$T/time" "$BIN/nsysjax-extract" -f nvtx "$Q/size.sqlite" > /dev/null
	awk -v b="$(wc -c < "$Q/size.sqlite")" -v r="$R" -v ref="$ref" '{
		printf "  export %7.1f MB (%9d ranges): %6.2f s wall, %6.2f s CPU, %5.1f MB/s, %5d MB peak RSS | nsys-ai: %s MB/s\n",
		    b / 1e6, r, $1, $2 + $3, ($1 > 0 ? b / 1e6 / $1 : 0), $4 / 1024, ref }' "$T/time"
	rm -f "$Q/size.sqlite"
done
