#!/bin/sh
# make bench: wall time and peak RSS of nsysjax-extract (all frames) on
# proc0 and on the four archives, next to the floor: the time merely to
# read and decompress the members extract reads, with the same libraries
# (tests/bench/floor.c), and next to unzip -p | xz -dc doing the same in
# two processes (which overlaps unzip and xz on two cores).
# The reference needs 8.6 s and 0.9 GB on the four archives (golden
# env.json, load_profiler_data).  Needs ../shared/data.
set -eu
: "${BIN:=build/bin}" "${SHARED:=../shared}" "${FLOOR:=build/bench/floor}"
DATA=$SHARED/data/pax_fsdp4_4proc
[ -d "$DATA" ] || { echo "bench: $DATA not found" >&2; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

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

run() {
	label=$1; shift
	mkdir -p "$T/out"
	set -- $*
	ext=$(measure "$BIN/nsysjax-extract" -o "$T/out" "$@")
	thk=$(measure "$BIN/nsysjax-extract" -f thunk "$@")
	flr=$(measure "$FLOOR" "$@")
	pip=$(measure sh tests/bench-floor.sh "$@")
	printf '%-10s extract -o (all frames): %5ss %4s MB | -f thunk: %5ss %4s MB | floor: %5ss (unzip|xz: %5ss)\n' \
	    "$label" ${ext%% *} ${ext##* } ${thk%% *} ${thk##* } ${flr%% *} ${pip%% *}
}
P0=$DATA/pax_fsdp4_4proc_proc0.zip
ALL="$DATA/pax_fsdp4_4proc_proc0.zip $DATA/pax_fsdp4_4proc_proc1.zip $DATA/pax_fsdp4_4proc_proc2.zip $DATA/pax_fsdp4_4proc_proc3.zip"
run proc0 "$P0"
run combined4 "$ALL"
echo "reference (load_profiler_data, four archives): 8.6 s, 0.9 GB"

# nsysjax-warmup on 10 million thunk rows: the combined4 thunk frame
# repeated by tests/bench/gen-thunks.awk (executions and times shifted).
# Rows per second and peak RSS next to the input's size: warm-up keeps no
# row in memory.  The last line is its slow path: every row waits in
# $TMPDIR until the end (input from a pipe, nothing steady).
if [ -f tests/bench/gen-thunks.awk ]; then
	W=$BIN/nsysjax-warmup WD=$T/warmup; mkdir -p "$WD"
	"$BIN/nsysjax-extract" -f thunk $ALL > "$WD/thunk.tsv"
	"$BIN/nsysjax-extract" -f compile $ALL > "$WD/compile.tsv"
	awk -v ROWS=10000000 -f tests/bench/gen-thunks.awk "$WD/thunk.tsv" > "$WD/big.tsv"
	rm "$WD/thunk.tsv"
	wmb=$(($(wc -c < "$WD/big.tsv") / 1048576))
	wrun() {
		label=$1; shift
		r=$(measure "$@")
		awk -v l="$label" -v s="${r%% *}" -v m="${r##* }" -v mb="$wmb" 'BEGIN {
		    printf "warmup %-32s %6.2f s %5.2f M rows/s %4d MB peak RSS (input %d MB)\n",
		    l, s, 10 / (s > 0 ? s : 0.01), m, mb }'
	}
	wrun "-c (Communication read ahead)" "$W" -c "$WD/compile.tsv" "$WD/big.tsv"
	wrun "-c --communication yes" "$W" -c "$WD/compile.tsv" --communication yes "$WD/big.tsv"
	wrun "-m -c, from a pipe" sh -c '"$1" -m -c "$2" < "$3"' sh "$W" "$WD/compile.tsv" "$WD/big.tsv"
	wrun "-s N, nothing steady, pipe" sh -c '"$1" -s 1000000000 < "$2" 2> /dev/null' sh "$W" "$WD/big.tsv"
	rm -rf "$WD"
else
	echo "warmup: tests/bench/gen-thunks.awk not found, skipped"
fi

# nsysjax-align on a large thunk frame: the real combined4 thunk frame
# repeated to ALIGN_ROWS rows (default 10 million) with shifted executions
# and times by tests/bench/gen-thunks.awk, generated here into the temp
# directory (about 1.3 GB; never committed).  Estimating spools the rows
# to a temporary file and keeps only the collectives in memory; --apply
# streams.  Rows/s counts data rows over the best of 3 wall times.
ROWS=${ALIGN_ROWS:-10000000}
"$BIN/nsysjax-extract" -n proc0,proc1,proc2,proc3 -f thunk $ALL > "$T/thunk.tsv"
awk -v ROWS="$ROWS" -f tests/bench/gen-thunks.awk "$T/thunk.tsv" > "$T/big.tsv"
rm -rf "$T/out"
mb=$(( $(wc -c < "$T/big.tsv") / 1048576 ))
est=$(measure "$BIN/nsysjax-align" -o "$T/corr.tsv" "$T/big.tsv")
app=$(measure "$BIN/nsysjax-align" -a "$T/corr.tsv" "$T/big.tsv")
cat=$(measure cat "$T/big.tsv")
rps() { awk -v n="$ROWS" -v s="$1" 'BEGIN { printf "%.2f", (s > 0 ? n / s / 1e6 : 0) }'; }
printf 'align      %d thunk rows (%d MB): estimate %5ss %4s MB peak RSS %s M rows/s | --apply %5ss %4s MB %s M rows/s | cat %5ss\n' \
    "$ROWS" "$mb" ${est%% *} ${est##* } "$(rps ${est%% *})" ${app%% *} ${app##* } "$(rps ${app%% *})" ${cat%% *}
