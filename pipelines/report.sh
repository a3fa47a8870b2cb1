#!/bin/sh
# Every analysis of the reference for one run, into one directory: the
# frames (nsysjax-extract), then summary, communication, flame graphs,
# variability, memory and PGLE costs (the other pipelines, sharing the one
# extraction), a short text report on standard output and, when gnuplot
# is installed, the notebook's plots as SVG.  See README.md,
# "pipelines/report.sh".
set -eu
USAGE='pipelines/report.sh -o dir input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

while getopts o:h opt; do common_opt "$opt" "${OPTARG:-}" || bad_usage; done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -n "$OUT" ] || bad_usage "no output directory (-o)"
mkdir -p "$OUT"

# text_report: the headline tables, as text.
text_report() {
	printf 'nsysjax report: %s\n\n' "$*"
	printf '# Modules (summary/modules.tsv)\n'
	cut -f 1-3,6,9,10,12 "$OUT/summary/modules.tsv"
	printf '\n# Clock corrections (corrections.tsv)\n'
	cat "$OUT/corrections.tsv"
	printf '\n# Bus bandwidth of the steady state (communication/bandwidth.tsv)\n'
	cat "$OUT/communication/bandwidth.tsv"
	printf '\n# Hidden communication time (communication/hidden.tsv)\n'
	cat "$OUT/communication/hidden.tsv"
	printf '\n# GPU time by operation (flamegraphs/opcodes.tsv)\n'
	cat "$OUT/flamegraphs/opcodes.tsv"
	printf '\n# Compilation, top phases (summary/compile-summary.tsv)\n'
	head -n 11 "$OUT/summary/compile-summary.tsv"
	printf '\n# Peak heap per module (memory/peaks.tsv)\n'
	cat "$OUT/memory/peaks.tsv"
}

# gp NAME DATA...: run the gnuplot program on stdin with the data files
# as ARG1.. and the output $OUT/plots/NAME.svg; a plot that fails is a
# warning, not a failed report.
gp() {
	name=$1
	shift
	gnuplot -e "set terminal svg size 900,540 dynamic background rgb 'white'; set output '$OUT/plots/$name.svg'" \
	    -c /dev/stdin "$@" 2> "$W/gp.err" ||
		{ printf '%s: plot %s: %s\n' "$PROG" "$name" "$(head -n 1 "$W/gp.err")" >&2; }
}

# by_column FILE COLUMN OUT: FILE split into OUT.<value>.tsv per value of
# COLUMN (header kept), the value list in OUT.list.
by_column() {
	awk -F'\t' -v col="$2" -v out="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; h = $0; next }
	{ f = out "." $c ".tsv"; if (!(f in seen)) { seen[f] = 1; print h > f; print $c > (out ".list") }
	  print > f }' "$1"
}

# plots: the notebook's plots as SVG in $OUT/plots.
plots() {
	mkdir -p "$OUT/plots"
	by_column "$OUT/communication/bandwidth.tsv" Collective "$W/bw"
	[ ! -s "$W/bw.list" ] || gp bandwidth $(sed "s|.*|$W/bw.&.tsv|" "$W/bw.list") <<'GP'
set title "Bus bandwidth of the steady state (fastest device per instance)"
set xlabel "Message size [B]"; set ylabel "Bus bandwidth [GB/s]"
set logscale x; set key top left; set grid
plot for [i = 1:ARGC] value("ARG".i) using 2:4:5 skip 1 with yerrorbars pointsize 0.8 \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
	steady communication
	awk -f "$LIB/tsv.awk" -f "$LIB/waits.awk" "$W/communication.tsv" > "$W/w"
	sorted "$W/w" -k1,1 -k2,2g > "$W/waits.tsv"
	by_column "$W/waits.tsv" Collective "$W/wait"
	[ ! -s "$W/wait.list" ] || gp waits $(sed "s|.*|$W/wait.&.tsv|" "$W/wait.list") <<'GP'
set title "Wait per collective instance: spread of the exposed time over devices"
set xlabel "Wait [ms]"; set ylabel "Instances (cumulative share)"
set logscale x; set format x "%g"; set key bottom right; set grid
plot for [i = 1:ARGC] value("ARG".i) using ($2 > 0 ? $2 : NaN):(1) skip 1 smooth cnormal \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
	top=$(sed -n 2p "$OUT/memory/peaks.tsv" | cut -f 1)
	awk -F'\t' -v p="$top" 'NR == 1 || $1 == p' "$OUT/memory/series.tsv" > "$W/heap.tsv"
	[ -z "$top" ] || gp heap "$W/heap.tsv" <<'GP'
set title "Heap usage over program order, the module with the largest peak"
set xlabel "Heap simulator event"; set ylabel "Heap [MB]"; set grid
plot ARG1 using 3:($4 / 1e6) skip 1 with steps notitle
GP
	[ "$(wc -l < "$OUT/alignment_skews.tsv")" -lt 2 ] || gp skews "$OUT/alignment_skews.tsv" <<'GP'
set title "Collective end-time skew per device (complete instances)"
set xlabel "Device"; set ylabel "End time - instance mean [ms]"; set grid
plot ARG1 using 1:3 skip 1 with points pointtype 7 pointsize 0.5 notitle
GP
}

# One extraction for every pipeline: they take a frames directory.
if [ $# -eq 1 ] && [ -f "$1/thunk.tsv" ]; then
	FR=$1
else
	FR=$OUT/frames
	mkdir -p "$FR"
	nsysjax-extract -o "$FR" "$@"
fi
F=$FR

# Two at a time: the machine has two cores, and each pipeline is a chain
# of single-threaded filters.
run() {
	name=$1
	shift
	sh "$HERE/$name.sh" -o "$OUT/$name" "$@" "$FR" > /dev/null 2> "$W/$name.err" ||
		{ cat "$W/$name.err" >&2; die "$name.sh failed"; }
}
run summary & BG=$!
run communication
run flamegraphs
wait "$BG" || die "summary.sh failed"
run variability & BG=$!
run memory
run pgle
wait "$BG" || die "variability.sh failed"
BG=
cat "$W"/*.err >&2

# The clock corrections and the skews behind them, for the report and the
# alignment plot: per complete instance of the largest collectives, each
# device's end time minus the instance's mean (as nsysjax-align).
nsysjax-align -o "$OUT/corrections.tsv" "$FR/communication.tsv" > /dev/null 2> "$W/align.err" ||
	{ cat "$W/align.err" >&2; die "nsysjax-align failed"; }
awk -f "$LIB/tsv.awk" -f "$LIB/skews.awk" "$FR/communication.tsv" > "$W/skews"
sorted "$W/skews" -k1,1n -k2,2n > "$OUT/alignment_skews.tsv"

text_report "$@" > "$OUT/report.txt"
cat "$OUT/report.txt"
if command -v gnuplot > /dev/null; then
	plots
else
	echo "pipelines/report.sh: gnuplot not found: no plots" >&2
fi
