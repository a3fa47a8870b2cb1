#!/bin/sh
# Every analysis of the reference for one run, into one directory: the
# frames (nsysjax-extract), then summary, communication, flame graphs,
# variability, memory and PGLE costs (the other pipelines, sharing the one
# extraction), a short text report on standard output and, when gnuplot
# is installed, the notebook's plots as SVG.  See README.md,
# "pipelines/report.sh".
set -eu
USAGE='pipelines/report.sh -o dir [-j jobs] input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

# Jobs at once: the online cores (a pipeline is a chain of
# single-threaded filters).
JOBS=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
while getopts o:j:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	j) case $OPTARG in '' | *[!0-9]* | 0) bad_usage "-j: not a count: '$OPTARG'" ;; esac; JOBS=$OPTARG ;;
	*) bad_usage ;;
	esac
done
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
	by_column "$OUT/waits.tsv" Collective "$W/wait"
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

# Up to $JOBS jobs at once: `job NAME CMD...` runs CMD in the background
# with its stderr in $W/NAME.err, waiting first for the oldest job when
# $JOBS run; `jobs_wait` waits for them all.  A failed job fails the
# report, with its messages.
JOBQ='' NJOB=0
job() {
	while [ "$NJOB" -ge "$JOBS" ]; do job_reap; done
	name=$1
	shift
	("$@") 2> "$W/$name.err" & BG="$BG $!"
	JOBQ="$JOBQ $!:$name" NJOB=$((NJOB + 1))
}
job_reap() {
	# shellcheck disable=SC2086 # the queue's words: PID:NAME
	set -- $JOBQ
	pid=${1%%:*} name=${1#*:}
	shift
	JOBQ=$* NJOB=$((NJOB - 1))
	wait "$pid" || { cat "$W/$name.err" >&2; die "$name failed"; }
}
jobs_wait() { while [ -n "$JOBQ" ]; do job_reap; done; BG=; }

# The intermediates, once for every section: the clock corrections and
# the skews behind them (one estimate, on the communication frame), then
# the steady state of each frame (aligned, warm-up split) in $W/steady,
# which the pipelines take with -s.
nsysjax-align -o "$OUT/corrections.tsv" -s "$OUT/alignment_skews.tsv" "$FR/communication.tsv" \
	> /dev/null 2> "$W/align.err" || { cat "$W/align.err" >&2; die "nsysjax-align failed"; }
ST=$W/steady
mkdir "$ST"
steady_job() { steady_frame "$FR" "$OUT/corrections.tsv" "$1" > "$ST/$1.tsv"; }
for f in thunk module communication; do job "steady-$f" steady_job "$f"; done
jobs_wait
nsysjax-collectives -s waits "$ST/communication.tsv" > "$OUT/waits.tsv"

# The sections, the longest first.
run() {
	name=$1
	shift
	job "$name" sh "$HERE/$name.sh" -s "$ST" -o "$OUT/$name" "$@" "$FR" > /dev/null
}
run flamegraphs
run variability
run summary
run pgle
run communication
run memory
jobs_wait
cat "$W/align.err" "$W"/steady-*.err "$W"/flamegraphs.err "$W"/variability.err "$W"/summary.err \
	"$W"/pgle.err "$W"/communication.err "$W"/memory.err >&2

text_report "$@" > "$OUT/report.txt"
cat "$OUT/report.txt"
if command -v gnuplot > /dev/null; then
	plots
else
	echo "pipelines/report.sh: gnuplot not found: no plots" >&2
fi
