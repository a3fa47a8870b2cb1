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
