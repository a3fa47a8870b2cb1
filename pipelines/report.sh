#!/bin/sh
# Every analysis of the reference for one run, into one directory: the
# frames (nsysjax-extract), then summary, communication, flame graphs,
# variability, memory and PGLE costs (the other pipelines, sharing the one
# extraction), a short text report on standard output and, when gnuplot
# is installed, the notebook's plots as SVG.  See README.md,
# "pipelines/report.sh".
set -eu
USAGE='pipelines/report.sh [-q] -o dir [-j jobs] input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

# Jobs at once: the online cores (a pipeline is a chain of
# single-threaded filters).
JOBS=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
QUIET=0
while getopts o:j:qh opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	q) QUIET=1 ;;
	j) case $OPTARG in '' | *[!0-9]* | 0) bad_usage "-j: not a count: '$OPTARG'" ;; esac; JOBS=$OPTARG ;;
	*) bad_usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -n "$OUT" ] || bad_usage "no output directory (-o)"
make_out "$OUT"

. "$LIB/report-tables.sh"
. "$LIB/report-html.sh"

# progress STAGE: a line on stderr when it is a terminal, unless -q.
progress() {
	[ "$QUIET" = 0 ] && [ -t 2 ] && printf '%s: %s\n' "$PROG" "$*" >&2 || :
}

# gp NAME DATA...: run the gnuplot program on stdin with the data files
# (names in $W) as ARG1.. and the output $OUT/plots/NAME.svg; a plot that
# fails is a warning, not a failed report.  gnuplot runs in $W and sees
# no path of ours in its program text: the data files have fixed names,
# and the output path comes from the environment (gnuplot has system(),
# so a quote in -o must not end a gnuplot string).
gp() {
	name=$1
	shift
	# noenhanced: names are shown as written (no _ subscripts); SI
	# prefixes on log axes rather than exponent notation.
	(cd "$W" && NSYSJAX_PLOT=$PLOTS/$name.svg gnuplot -e "set encoding utf8; set terminal svg size 900,540 dynamic noenhanced background rgb 'white'; set output system('printf %s \"\$NSYSJAX_PLOT\"')" \
	    -c /dev/stdin "$@") 2> "$W/gp.err" ||
		{ printf '%s: plot %s: %s\n' "$PROG" "$name" "$(head -n 1 "$W/gp.err")" >&2; }
}

# by_column FILE COLUMN NAME: FILE split into $W/NAME.<k>.tsv, one per
# value of COLUMN in order of appearance (header kept; files are named
# by number, never by a data value), their names in $W/NAME.list.
by_column() {
	(cd "$W" && awk -F'\t' -v col="$2" -v out="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; h = $0; next }
	{ if (!($c in seen)) { seen[$c] = out "." ++n ".tsv"; print h > seen[$c]; print seen[$c] > (out ".list") }
	  print > seen[$c] }') < "$1"
}

# plots: the notebook's plots as SVG in $OUT/plots.
plots() {
	mkdir -p "$OUT/plots"
	PLOTS=$(cd "$OUT/plots" && pwd)
	by_column "$OUT/communication/bandwidth.tsv" Collective bw
	# shellcheck disable=SC2046
	[ ! -s "$W/bw.list" ] || gp bandwidth $(cat "$W/bw.list") <<'GP'
set title "Bus bandwidth of the steady state (fastest device per instance)"
set xlabel "Message size"; set ylabel "Bus bandwidth [GB/s]"
set logscale x; set format x "%.0s %cB"; set key top left; set grid
plot for [i = 1:ARGC] value("ARG".i) using 2:4:5 skip 1 with yerrorbars pointsize 0.8 \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
	by_column "$OUT/waits.tsv" Collective wait
	# shellcheck disable=SC2046
	[ ! -s "$W/wait.list" ] || gp waits $(cat "$W/wait.list") <<'GP'
set title "Wait per collective instance: spread of the exposed time over devices"
set xlabel "Wait"; set ylabel "Instances (cumulative share)"
set logscale x; set format x "%.0s %cs"; set key bottom right; set grid
plot for [i = 1:ARGC] value("ARG".i) using ($2 > 0 ? $2 / 1000 : NaN):(1) skip 1 smooth cnormal \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
	top=$(sed -n 2p "$OUT/memory/peaks.tsv" | cut -f 1)
	awk -F'\t' -v p="$top" 'NR == 1 || $1 == p' "$OUT/memory/series.tsv" > "$W/heap.tsv"
	[ -z "$top" ] || gp heap heap.tsv <<'GP'
set title "Heap usage over program order, the module with the largest peak"
set xlabel "Heap simulator event"; set ylabel "Heap [MB]"; set grid
plot ARG1 using 3:($4 / 1e6) skip 1 with steps notitle
GP
	# Per device the mean, min and max skew: a point per instance would
	# grow with devices x steps (megabytes of SVG at 16 devices).
	awk -F'\t' 'NR > 1 { d = $1 + 0; v = $3 + 0
	    if (!(d in n)) { n[d] = 0; lo[d] = v; hi[d] = v }
	    n[d]++; s[d] += v; if (v < lo[d]) lo[d] = v; if (v > hi[d]) hi[d] = v }
	    END { print "Device\tMeanMs\tMinMs\tMaxMs"
	    for (d in n) printf "%d\t%.6f\t%.6f\t%.6f\n", d, s[d] / n[d], lo[d], hi[d] }' \
	    "$OUT/alignment_skews.tsv" | sort -n > "$W/skews.tsv"
	[ "$(wc -l < "$W/skews.tsv")" -lt 2 ] || gp skews skews.tsv <<'GP'
set title "Collective end-time skew per device (complete instances): mean, min and max"
set xlabel "Device"; set ylabel "End time - instance mean [ms]"; set grid
plot ARG1 using 1:2:3:4 skip 1 with yerrorbars pointtype 7 pointsize 0.6 notitle
GP
	# The notebook's thunk variability: the ten most variable thunks,
	# mean with the range over executions and devices.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "Label\tMeanMs\tMinMs\tMaxMs"; next }
	    NR <= 11 { print $c["Name"] " (" substr($c["ProgramId"], 1, 6) ")\t" $c["MeanMs"] "\t" $c["MinMs"] "\t" $c["MaxMs"] }' \
	    "$OUT/variability/thunks.tsv" > "$W/var.tsv"
	[ "$(wc -l < "$W/var.tsv")" -lt 2 ] || gp variability var.tsv <<'GP'
set datafile separator "\t"
set title "The most variable thunks: mean, min and max duration over executions and devices"
set ylabel "Duration [ms]"; set grid ytics; set xtics rotate by -35 left font ",9"
set bmargin 9; set xrange [-0.6:*]; set yrange [0:*]
plot ARG1 using 0:2:3:4:xtic(1) skip 1 with yerrorbars pointtype 7 pointsize 0.8 notitle
GP
	# Per-device straggler bias per module: how far each device starts
	# behind (+) or ahead (-) of the others.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "Key\tModule\tDevice\tStartBiasMs"; next }
	    { print substr($c["ProgramId"], 1, 12) "\t" $c["Name"] " (" substr($c["ProgramId"], 1, 6) ")\t" $c["Device"] "\t" $c["StartBiasMs"] }' \
	    "$OUT/variability/stragglers.tsv" | { IFS= read -r h; printf '%s\n' "$h"; sort -t "$TAB" -k1,1 -k3,3n; } > "$W/strag.tsv"
	by_column "$W/strag.tsv" Key strag
	# shellcheck disable=SC2046
	[ ! -s "$W/strag.list" ] || gp stragglers $(cat "$W/strag.list") <<'GP'
set datafile separator "\t"
set title "Straggler bias per device and module (start time against the other devices)"
set xlabel "Device"; set ylabel "Start bias [ms]"; set grid; set xtics 1; set key outside right
plot for [i = 1:ARGC] value("ARG".i) using 3:4 skip 1 with linespoints pointtype 7 \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 2")
GP
	# Wait against message size per collective.
	# shellcheck disable=SC2046
	[ ! -s "$W/wait.list" ] || gp wait-size $(cat "$W/wait.list") <<'GP'
set title "Wait per collective instance against its message size"
set xlabel "Message size"; set ylabel "Wait"
set logscale xy; set format x "%.0s %cB"; set format y "%.0s %cs"; set key top left; set grid
plot for [i = 1:ARGC] value("ARG".i) using 3:($2 > 0 ? $2 / 1000 : NaN) skip 1 with points pointtype 7 pointsize 0.6 \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
}

# One extraction for every pipeline: they take a frames directory.
if [ $# -eq 1 ] && [ -f "$1/thunk.tsv" ]; then
	FR=$1
else
	FR=$OUT/frames
	mkdir -p "$FR"
	progress "extracting the frames of $# profile(s)"
	nsysjax-extract -o "$FR" -- "$@"
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
progress "aligning the clocks, finding the steady state"
nsysjax-align -o "$OUT/corrections.tsv" "$FR/communication.tsv" \
	> /dev/null 2> "$W/align.err" || { cat "$W/align.err" >&2; die "nsysjax-align failed"; }
ST=$W/steady
mkdir "$ST"
steady_job() { steady_frame "$FR" "$OUT/corrections.tsv" "$1" > "$ST/$1.tsv"; }
# The skews behind the corrections (a row per device and instance: most
# of the estimate's time) beside the steady state, not before it; the
# same estimate again, its messages already in align.err.
skews_job() { nsysjax-align -s "$OUT/alignment_skews.tsv" "$FR/communication.tsv" > /dev/null; }
job skews skews_job
for f in thunk module communication; do job "steady-$f" steady_job "$f"; done
jobs_wait

progress "summary, communication, flame graphs, variability, memory, PGLE costs ($JOBS at once)"
# The sections, the longest first, and the waits for the plots.
run() {
	name=$1
	shift
	job "$name" sh "$HERE/$name.sh" -s "$ST" -o "$OUT/$name" "$@" "$FR" > /dev/null
}
waits_job() { nsysjax-collectives -s waits "$ST/communication.tsv" > "$OUT/waits.tsv"; }
run flamegraphs
run variability
run summary
run pgle
job waits waits_job
run communication
run memory
run critpath	# issue 21: critical path and what-if (critpath/)
jobs_wait
cat "$W/align.err" "$W"/steady-*.err "$W"/flamegraphs.err "$W"/variability.err "$W"/summary.err \
	"$W"/pgle.err "$W"/waits.err "$W"/communication.err "$W"/memory.err "$W"/critpath.err >&2

progress "writing report.txt"
text_report "$OUT" "$@" > "$OUT/report.txt"
{ echo; cat "$OUT/critpath/critpath.txt"; } >> "$OUT/report.txt"	# issue 21
cat "$OUT/report.txt"
if command -v gnuplot > /dev/null; then
	progress "plots"
	plots
else
	echo "pipelines/report.sh: gnuplot not found: no plots" >&2
fi
progress "writing report.html"
html_report "$OUT" "$@"
