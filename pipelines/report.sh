#!/bin/sh
# Every analysis of the reference for one run, into one directory: the
# frames (nsysjax-extract), then summary, communication, flame graphs,
# variability, memory and PGLE costs (the other pipelines, sharing the one
# extraction), a short text report on standard output and, when gnuplot
# is installed, the notebook's plots as SVG.  See README.md,
# "pipelines/report.sh".
#
# The report is written into a new directory beside -o's, which replaces
# it whole once the report is complete: a report directory holds one run,
# and a failed or interrupted report leaves the earlier one as it was.
set -eu
USAGE='pipelines/report.sh [-q] [-j jobs] [-m regex] [-x regex] [--skip n] -o dir input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

# The long options as short ones for getopts: --help (-h), --skip N
# (-k N); the arguments rotated through "$@" in their order.
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--) set -- "$@" --
	    while [ "$n" -gt 0 ]; do set -- "$@" "$1"; shift; n=$((n - 1)); done ;;
	--help) set -- "$@" -h ;;
	--skip=*) set -- "$@" -k "${a#--skip=}" ;;
	--skip) [ "$n" -gt 0 ] || bad_usage "--skip: no count"
		set -- "$@" -k "$1"; shift; n=$((n - 1)) ;;
	--*) bad_usage "unknown option '$a'" ;;
	*) set -- "$@" "$a" ;;
	esac
done

# Jobs at once: the online cores (a pipeline is a chain of
# single-threaded filters).
JOBS=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
QUIET=0 KEEP='' DROP='' SKIP=''
while getopts o:j:qm:x:k:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	q) QUIET=1 ;;
	j) case $OPTARG in '' | *[!0-9]* | 0) bad_usage "-j: not a count: '$OPTARG'" ;; esac; JOBS=$OPTARG ;;
	m) KEEP=$OPTARG ;;
	x) DROP=$OPTARG ;;
	k) case $OPTARG in '' | *[!0-9]*) bad_usage "--skip: not a count: '$OPTARG'" ;; esac; SKIP=$OPTARG ;;
	*) bad_usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -n "$OUT" ] || bad_usage "no output directory (-o)"
# A regular expression awk refuses is a usage error, not a failed job.
for re in "$KEEP" "$DROP"; do
	[ -z "$re" ] || echo | awk -v re="$re" '{ exit !("" ~ re || 1) }' 2> /dev/null ||
		bad_usage "not a regular expression: '$re'"
done

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

# -- per-module plots (issue 25)
# top_ids FILE: the ProgramIds of FILE's rows with TopModule 1, in its
# order, once each.
top_ids() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["TopModule"] == 1 && !seen[$c["ProgramId"]]++ { print $c["ProgramId"] "\t" $c["Name"] }' "$1"
}

# (gp sets $name: the module's name is $mname.)
# heap_plots: for every top module with heap simulator traces, its heap
# over program order (a line per trace), plots/heap-<ProgramId:12>.svg,
# its data (memory/series.tsv's rows of the module) beside it as .tsv.
heap_plots() {
	[ -f "$OUT/memory/peaks.tsv" ] || return 0
	top_ids "$OUT/memory/peaks.tsv" | while IFS="$TAB" read -r id mname; do
		k=$(printf '%.12s' "$id")
		awk -F'\t' -v p="$id" 'NR == 1 || $1 == p' "$OUT/memory/series.tsv" > "$OUT/plots/heap-$k.tsv"
		rm -f "$W/heapm.list"
		by_column "$OUT/plots/heap-$k.tsv" Trace heapm
		# shellcheck disable=SC2046
		export NSJ_TITLE="Heap usage over program order: $mname ($k)"
		[ ! -s "$W/heapm.list" ] || gp "heap-$k" $(cat "$W/heapm.list") <<'GP'
set datafile separator "\t"
set title system("printf %s \"$NSJ_TITLE\"")
set xlabel "Heap simulator event"; set ylabel "Heap [GiB]"; set grid; set key top left
plot for [i = 1:ARGC] value("ARG".i) using 3:($4 / 1073741824) skip 1 with steps \
    title "trace ".system("sed -n 2p '".value("ARG".i)."' | cut -f 2")
GP
		plot_index heap "$k" "$mname" "heap over program order"
	done
}

# straggler_plots: for every top module that ran on more than one
# device, each device's start bias against the mean over the devices of
# each thunk instance (ProgramExecution, Name, ThunkExecution), averaged
# over the steady executions, against the thunk's place in the module
# (its mean start less the module execution's mean start, averaged the
# same way): a line per device over time, the collectives marked.  Only
# instances that every device of the module ran count.  Data in
# plots/stragglers-<ProgramId:12>.tsv: ProgramId, Name, ThunkExecution,
# Device, Executions, OffsetMs, StartBiasMs, Communication, Collective;
# by Device, then OffsetMs.
straggler_plots() {
	top_ids "$OUT/summary/modules.tsv" | while IFS="$TAB" read -r id mname; do
		k=$(printf '%.12s' "$id")
		awk -F'\t' -v p="$id" '
		function ms6(v) { v = sprintf("%.6f", v); return v == "-0.000000" ? "0.000000" : v }
		FNR == 1 { file++; split("", c); for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["ProgramId"] != p { next }
		file == 1 { e = $c["ProgramExecution"]; ms[e] += $c["ProjStartMs"]; mn[e]++; dev[$c["Device"]] = 1; next }
		{ e = $c["ProgramExecution"]; d = $c["Device"]; i = e SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]
		  if (!(i in n)) { order[++ni] = i }
		  n[i]++; s[i] += $c["ProjStartMs"]; st[i, d] = $c["ProjStartMs"]
		  comm[$c["Name"] SUBSEP $c["ThunkExecution"]] = $c["Communication"] == 1
		  coll[$c["Name"] SUBSEP $c["ThunkExecution"]] = $c["Collective"] }
		END {
			for (d in dev) nd++
			if (nd < 2) exit
			for (j = 1; j <= ni; j++) {
				i = order[j]; if (n[i] != nd) continue
				split(i, x, SUBSEP); m = s[i] / n[i]
				t = x[2] SUBSEP x[3]
				if (!(t in tn)) torder[++nt] = t
				tn[t]++; off[t] += m - ms[x[1]] / mn[x[1]]
				for (d in dev) bias[t, d] += st[i, d] - m
			}
			print "ProgramId\tName\tThunkExecution\tDevice\tExecutions\tOffsetMs\tStartBiasMs\tCommunication\tCollective"
			for (j = 1; j <= nt; j++) {
				t = torder[j]; split(t, x, SUBSEP)
				for (d in dev) printf "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\n", p, x[1], x[2], d, tn[t],
				    ms6(off[t] / tn[t]), ms6(bias[t, d] / tn[t]), comm[t], coll[t]
			}
		}' "$ST/module.tsv" "$ST/thunk.tsv" > "$W/strm"
		[ -s "$W/strm" ] || continue
		sorted "$W/strm" -k4,4n -k6,6g -k2,2 -k3,3n > "$OUT/plots/stragglers-$k.tsv"
		rm -f "$W/strd.list"
		by_column "$OUT/plots/stragglers-$k.tsv" Device strd
		awk -F'\t' 'NR == 1 || $8 == 1' "$OUT/plots/stragglers-$k.tsv" > "$W/strc.tsv"
		# shellcheck disable=SC2046
		export NSJ_TITLE="Straggler bias over the module: $mname ($k), each device against the mean over devices"
		gp "stragglers-$k" strc.tsv $(cat "$W/strd.list") <<'GP'
set datafile separator "\t"
set title system("printf %s \"$NSJ_TITLE\"")
set xlabel "Thunk start within the module execution (mean over devices) [ms]"
set ylabel "Start bias against the mean over devices [ms]"; set grid; set key outside right
plot for [i = 2:ARGC] value("ARG".i) using 6:7 skip 1 with lines \
    title "device ".system("sed -n 2p '".value("ARG".i)."' | cut -f 4"), \
    ARG1 using 6:7 skip 1 with points pointtype 6 pointsize 1.2 lc rgb "black" title "collective"
GP
		plot_index stragglers "$k" "$mname" "straggler bias over the module, per device"
	done
}
# plot_index NAME K MODULE WHAT: plots/NAME-K.svg (when drawn) and its
# data listed in $W/plotidx; plot_index_txt: that list as a table for
# report.txt (the plots are drawn after its tables), nothing when empty.
plot_index() {
	svg=--
	[ ! -s "$OUT/plots/$1-$2.svg" ] || svg=plots/$1-$2.svg
	printf '%s\tplots/%s-%s.tsv\t%s (%s)\t%s\n' "$svg" "$1" "$2" "$3" "$2" "$4" >> "$W/plotidx"
}
plot_index_txt() {
	[ -s "$W/plotidx" ] || return 0
	# One program file: POSIX awk (mawk) has -f but not gawk's -e.
	echo '{ for (i = 1; i <= NF; i++) { cell(NR - 1, i - 1, $i); align(i - 1, "l") } } END { table_out("txt") }' > "$W/plotidx.awk"
	printf '\nPlots per top module (the data of each beside it)\n\n'
	{ printf 'Plot\tData\tModule (ProgramId)\tWhat\n'; cat "$W/plotidx"; } |
	    awk -F'\t' -f "$LIB/fmt.awk" -f "$W/plotidx.awk"
}
# -- end per-module plots

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
	cp "$W/heap.tsv" "$OUT/plots/heap.tsv"
	[ -z "$top" ] || gp heap heap.tsv <<'GP'
set title "Heap usage over program order, the module with the largest peak"
set xlabel "Heap simulator event"; set ylabel "Heap [GiB]"; set grid
plot ARG1 using 3:($4 / 1073741824) skip 1 with steps notitle
GP
	heap_plots
	straggler_plots
	# Per device the mean, min and max skew: a point per instance would
	# grow with devices x steps (megabytes of SVG at 16 devices).  The
	# header first, then the devices in order (a header sorted among the
	# rows would land below device 0's, which gnuplot's skip 1 drops).
	awk -F'\t' 'NR > 1 { d = $1 + 0; v = $3 + 0
	    if (!(d in n)) { n[d] = 0; lo[d] = v; hi[d] = v }
	    n[d]++; s[d] += v; if (v < lo[d]) lo[d] = v; if (v > hi[d]) hi[d] = v }
	    END { for (d in n) printf "%d\t%.6f\t%.6f\t%.6f\n", d, s[d] / n[d], lo[d], hi[d] }' \
	    "$OUT/alignment_skews.tsv" | sort -n > "$W/skews.rows"
	{ printf 'Device\tMeanMs\tMinMs\tMaxMs\n'; cat "$W/skews.rows"; } > "$W/skews.tsv"
	cp "$W/skews.tsv" "$OUT/plots/skews.tsv"
	[ ! -s "$W/skews.rows" ] || gp skews skews.tsv <<'GP'
set title "Collective end-time skew per device (complete instances): mean, min and max"
set xlabel "Device"; set ylabel "End time - instance mean [ms]"; set grid
plot ARG1 using 1:2:3:4 skip 1 with yerrorbars pointtype 7 pointsize 0.6 notitle
GP
	# The notebook's thunk variability: the ten most variable thunks,
	# mean with the range over executions and devices.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "Label\tMeanMs\tMinMs\tMaxMs"; next }
	    NR <= 11 { print $c["Name"] " (" substr($c["ProgramId"], 1, 6) ")\t" $c["MeanMs"] "\t" $c["MinMs"] "\t" $c["MaxMs"] }' \
	    "$OUT/variability/thunks.tsv" > "$W/var.tsv"
	cp "$W/var.tsv" "$OUT/plots/variability.tsv"
	[ "$(wc -l < "$W/var.tsv")" -lt 2 ] || gp variability var.tsv <<'GP'
set datafile separator "\t"
set title "The most variable thunks: mean, min and max duration over executions and devices"
set ylabel "Duration [ms]"; set grid ytics; set xtics rotate by -35 left font ",9"
set bmargin 9; set xrange [-0.6:*]; set yrange [0:*]
plot ARG1 using 0:2:3:4:xtic(1) skip 1 with yerrorbars pointtype 7 pointsize 0.8 notitle
GP
	# Per-device straggler bias per module: how far each device starts
	# behind (+) or ahead (-) of the others; points, since devices 0, 1,
	# 2, 3 are no series to join by lines.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "Key\tModule\tDevice\tStartBiasMs"; next }
	    { print substr($c["ProgramId"], 1, 12) "\t" $c["Name"] " (" substr($c["ProgramId"], 1, 6) ")\t" $c["Device"] "\t" $c["StartBiasMs"] }' \
	    "$OUT/variability/stragglers.tsv" | { IFS= read -r h; printf '%s\n' "$h"; sort -t "$TAB" -k1,1 -k3,3n; } > "$W/strag.tsv"
	cp "$W/strag.tsv" "$OUT/plots/stragglers.tsv"
	by_column "$W/strag.tsv" Key strag
	# shellcheck disable=SC2046
	[ ! -s "$W/strag.list" ] || gp stragglers $(cat "$W/strag.list") <<'GP'
set datafile separator "\t"
set title "Straggler bias per device and module (start time against the other devices)"
set xlabel "Device"; set ylabel "Start bias [ms]"; set grid; set xtics 1; set key outside right
plot for [i = 1:ARGC] value("ARG".i) using 3:4 skip 1 with points pointtype 7 pointsize 1.2 \
    title system("sed -n 2p '".value("ARG".i)."' | cut -f 2")
GP
	# The notebook's extra views.  The distribution of each device's
	# alignment skews (cumulative, one curve per device; plots/skews-by-device.tsv).
	awk -F'\t' 'NR == 1 { print "Device\tEndTimeSkewMs"; next } { print $1 "\t" $3 }' "$OUT/alignment_skews.tsv" |
	    { IFS= read -r h; printf '%s\n' "$h"; sort -t "$TAB" -k1,1n -s; } > "$OUT/plots/skews-by-device.tsv"
	by_column "$OUT/plots/skews-by-device.tsv" Device skd
	# shellcheck disable=SC2046
	[ ! -s "$W/skd.list" ] || gp skews-distribution $(cat "$W/skd.list") <<'GP'
set datafile separator "\t"
set title "Distribution of the collective end-time skew, per device"
set xlabel "End time - instance mean [ms]"; set ylabel "Instances (cumulative share)"; set grid; set key bottom right
plot for [i = 1:ARGC] value("ARG".i) using 2:(1) skip 1 smooth cnormal \
    title "device ".system("sed -n 2p '".value("ARG".i)."' | cut -f 1")
GP
	# Every compute thunk of the steady state: mean duration against its
	# relative standard deviation (plots/variability-scatter.tsv).
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Communication"] != 1 { k = $c["ProgramId"] "\t" $c["Name"]; x = $c["ProjDurMs"]; n[k]++; s[k] += x; q[k] += x * x }
	    END { print "ProgramId\tName\tExecutions\tMeanMs\tRelStd"
	      for (k in n) if (n[k] > 1 && s[k] > 0) { m = s[k] / n[k]; v = (q[k] - n[k] * m * m) / (n[k] - 1); if (v < 0) v = 0
	        printf "%s\t%d\t%.6f\t%.6f\n", k, n[k], m, sqrt(v) / m } }' "$ST/thunk.tsv" |
	    { IFS= read -r h; printf '%s\n' "$h"; LC_ALL=C sort -t "$TAB" -k1,1 -k2,2; } > "$W/scatter.tsv"
	cp "$W/scatter.tsv" "$OUT/plots/variability-scatter.tsv"
	[ "$(wc -l < "$W/scatter.tsv")" -lt 2 ] || gp variability-scatter scatter.tsv <<'GP'
set datafile separator "\t"
set title "Every compute thunk: mean duration against its relative standard deviation"
set xlabel "Mean duration"; set ylabel "Standard deviation / mean"; set grid
set logscale x; set format x "%.0s %cs"
plot ARG1 using ($4 / 1000):5 skip 1 with points pointtype 7 pointsize 0.5 notitle
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

# Up to $JOBS jobs at once: `job NAME CMD...` runs CMD in the background
# with its stderr in $W/NAME.err, waiting first for the oldest job when
# $JOBS run; `jobs_wait` waits for them all.  A failed job fails the
# report, with its messages (work files named as intermediates, the new
# report's directory as $FINAL).
JOBQ='' NJOB=0
job() {
	while [ "$NJOB" -ge "$JOBS" ]; do job_reap; done
	name=$1
	shift
	("$@") 2> "$W/$name.err" & BG="$BG $!"
	JOBQ="$JOBQ $!:$name" NJOB=$((NJOB + 1))
}
# The job leaves the queue once waited for: a signal during the wait
# must find it there, for stop_jobs to stop it.
job_reap() {
	# shellcheck disable=SC2086 # the queue's words: PID:NAME
	set -- $JOBQ
	pid=${1%%:*} name=${1#*:}
	st=0; wait "$pid" || st=$?
	shift
	JOBQ=$* NJOB=$((NJOB - 1))
	[ "$st" -eq 0 ] || { job_messages "$name" >&2; die "$name failed"; }
}
jobs_wait() { while [ -n "$JOBQ" ]; do job_reap; done; BG=; }
# job_messages NAME...: the messages of the jobs NAME, paths made the
# user's: a pipeline's work file is no file of theirs.
job_messages() {
	for name; do
		[ ! -f "$W/$name.err" ] || sed -e "s|$NEW|$FINAL|g" \
		    -e "s|[^ :'\"]*/nsysjax-pipeline\.[A-Za-z0-9]*/\([^ :'\"]*\)|intermediate file \1|g" "$W/$name.err"
	done
}

# stop_jobs: the running jobs stopped, with every process they started
# (a pipeline's tools too: a signal to report.sh alone, as a CI cancel
# sends, must not leave them writing), before the work directories go.
# On Linux every process below this shell is found in /proc, whether in
# the queue or not (a job forked as the signal came, a plot in the
# foreground): all of them are stopped (SIGSTOP: none forks any more)
# until the set is complete, then sent SIGTERM and continued, and waited
# for (their own traps remove their work directories).  Elsewhere the
# jobs of the queue alone.
stop_jobs() {
	roots=''
	for e in $JOBQ; do roots="$roots ${e%%:*}"; done
	JOBQ='' NJOB=0 BG=''
	if [ -r /proc/$$/stat ]; then
		all=''
		while :; do
			pids=$(below $$)
			[ "$pids" != "$all" ] || break
			all=$pids
			# shellcheck disable=SC2086
			kill -STOP $all 2> /dev/null || :
		done
		[ -n "$all" ] || return 0
		# shellcheck disable=SC2086
		{ kill -TERM $all; kill -CONT $all; } 2> /dev/null || :
		# A shell forked just before it was stopped may have caught
		# SIGTERM with its parent's trap and then dropped it (dash
		# clears the traps it inherits after the fork): those still
		# running get it again each second, for 5 s.
		n=0
		while live=$(alive $all); [ -n "$live" ] && [ $n -lt 100 ]; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			[ $((n % 20)) -ne 0 ] || kill -TERM $live 2> /dev/null || :
			sleep 0.05
		done
		# shellcheck disable=SC2086
		wait $roots 2> /dev/null || :
	elif [ -n "$roots" ]; then
		# shellcheck disable=SC2086
		kill $roots 2> /dev/null || :
		# shellcheck disable=SC2086
		wait $roots 2> /dev/null || :
	fi
}
# below PID: the live processes below PID (sorted pids), from the parent
# pid of each /proc/N/stat ("N (comm) S PPID ...", the command name may
# hold spaces and parentheses: the fields after the last ")").  Not those
# of this function: awk's parent (the shell of the command substitution)
# and what it started.
below() {
	cat /proc/[0-9]*/stat 2> /dev/null | awk -v root="$1" '
	BEGIN { getline s < "/proc/self/stat"; sub(/.*\) /, "", s); split(s, f, " "); me = f[2] }
	{ pid = $1; sub(/.*\) /, ""); if ($1 != "Z") { live[pid] = 1; kids[$2] = kids[$2] " " pid } }
	END { n = 1; q[1] = root
	      for (i = 1; i <= n; i++) { m = split(kids[q[i]], k, " "); for (j = 1; j <= m; j++) if (k[j] != me) q[++n] = k[j] }
	      for (i = 2; i <= n; i++) if (q[i] in live) print q[i] }' | sort -n | tr '\n' ' '
}
# alive PID...: those of PID... still running (not zombies).
alive() {
	for p; do
		[ -r "/proc/$p/stat" ] && ! sed 's/.*) //' "/proc/$p/stat" 2> /dev/null | grep -q '^Z' && printf '%s ' "$p"
	done
	:
}

# On exit the jobs and their processes stopped, then the work
# directories removed; on a signal the same, and the signal's status.
NEW=''
trap '_st=$?; trap "" INT TERM; stop_jobs; rm -rf "$W" ${NEW:+"$NEW"}
	[ "$_st" -eq 0 ] || [ -z "$OUT_MADE" ] || rm -rf -- "$OUT_MADE"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The output: $OUT is the directory asked for, $NEW the one written (on
# the same file system, so that it can be renamed into place).  An
# existing $OUT is replaced only when it is empty or an earlier report
# (it holds report.txt): never a directory of other files.
OUT=${OUT%"${OUT##*[!/]}"}
[ -n "$OUT" ] || OUT=/
if [ -e "$OUT" ] || [ -L "$OUT" ]; then
	[ -d "$OUT" ] && [ ! -L "$OUT" ] || die "$OUT: exists and is not a directory"
	[ -f "$OUT/report.txt" ] || [ -z "$(ls -A -- "$OUT")" ] ||
		die "$OUT: not an earlier report (no report.txt) and not empty: not replacing it"
	OUT=$(cd -- "$OUT" && pwd -P)
	[ "$OUT" != / ] || die "/: not replacing it"
fi
# Inputs inside $OUT would go with it; the one exception is the run's own
# frames, $OUT/frames as the only input (the report made again, with a
# comparison pipelines/diff.sh wrote to $OUT/diff): they and the
# comparison are moved into the new report.
SAME=0
for i; do
	[ -e "$i" ] && [ -d "$OUT" ] || continue
	case $(cd -- "$(dirname -- "$i")" && pwd -P)/${i##*/}/ in
	"$OUT"/*)
		if [ $# -eq 1 ] && [ "$(cd -- "$i" && pwd -P)" = "$OUT/frames" ]; then
			SAME=1
		else
			die "$i: inside the output directory $OUT, which the report replaces"
		fi ;;
	esac
done
parent=$(dirname -- "$OUT")
make_out "$parent"
# Named after this process, which no live process shares: a directory of
# that name is left by a dead one.  Named before it is made, so that the
# traps, set first, remove it whenever it exists.
NEW=$parent/.${OUT##*/}.new.$$
rm -rf -- "$NEW"
mkdir -- "$NEW" || die "$parent: cannot create the report directory"

# From here on the report is written into $NEW; $FINAL is where it goes.
FINAL=$OUT OUT=$NEW

# One extraction for every pipeline: they take a frames directory.  In
# the background, as every long step: a signal is then handled at once.
if [ $# -eq 1 ] && [ -f "$1/thunk.tsv" ]; then
	FR=$1
else
	FR=$OUT/frames
	mkdir -p "$FR"
	progress "extracting the frames of $# profile(s)"
	job extract nsysjax-extract -o "$FR" -- "$@"
	# The run's metadata beside the frames (issue 25): not a frame of
	# -o, whose files stay those --merge and the pipelines join.
	# Never fatal: without it the table is left out, with the reason.
	meta_job() {
		nsysjax-extract -f meta -- "$@" > "$W/meta.tsv" 2> "$W/meta.note" && mv "$W/meta.tsv" "$FR/meta.tsv" && cat "$W/meta.note" >&2 ||
			printf '%s: no run metadata: %s\n' "$PROG" "$(head -n 1 "$W/meta.note")" >&2
	}
	job meta meta_job "$@"
	jobs_wait
	job_messages extract meta >&2
fi
F=$FR

# The modules kept (-m, -x), by ProgramId: those whose name or ProgramId
# matches -m's expression and not -x's; then filter_modules keeps the
# rows of those programs of a frame on stdin.
if [ -n "$KEEP$DROP" ]; then
	awk -F'\t' -v keep="$KEEP" -v drop="$DROP" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ id = $c["ProgramId"]; name = $c["Name"]
	  if ((keep == "" || name ~ keep || id ~ keep) && (drop == "" || !(name ~ drop || id ~ drop))) print id }' \
	    "$FR/module.tsv" | sort -u > "$W/programs"
	[ -s "$W/programs" ] || die "no module of the run left by${KEEP:+ -m '$KEEP'}${DROP:+ -x '$DROP'}"
fi
filter_modules() {
	if [ -f "$W/programs" ]; then
		awk -F'\t' 'FNR == NR { keep[$1] = 1; next }
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProgramId") c = i; print; next }
		$c in keep' "$W/programs" -
	else
		cat
	fi
}
# --skip N: the first N executions of every module are initialisation
# (nsysjax-warmup -s), instead of the warm-up rule.
WARMUP_SKIP=$SKIP

# The intermediates, once for every section: the clock corrections and
# the skews behind them (one estimate, on the communication frame), then
# the steady state of each frame (aligned, warm-up split, -m/-x's
# modules) in $W/steady, which the pipelines take with -s.
progress "aligning the clocks, finding the steady state"
align_job() { nsysjax-align -o "$OUT/corrections.tsv" "$FR/communication.tsv" > /dev/null; }
job align align_job
jobs_wait
ST=$W/steady
mkdir "$ST"
steady_job() {
	steady_frame "$FR" "$OUT/corrections.tsv" "$1" > "$W/steady-$1.all"
	filter_modules < "$W/steady-$1.all" > "$ST/$1.tsv"
}
# The skews behind the corrections (a row per device and instance: most
# of the estimate's time) beside the steady state, not before it; the
# same estimate again, its messages already in align.err.
skews_job() { nsysjax-align -s "$OUT/alignment_skews.tsv" "$FR/communication.tsv" > /dev/null 2>&1; }
job skews skews_job
for f in thunk module communication; do job "steady-$f" steady_job "$f"; done
jobs_wait

progress "summary, communication, flame graphs, variability, memory, PGLE costs ($JOBS at once)"
# The sections, the longest first, and the waits for the plots.  A
# section is a job writing its own files into $OUT/NAME, which
# report-tables.sh and report-html.sh show when they are there.
run() {
	name=$1
	shift
	job "$name" sh "$HERE/$name.sh" -s "$ST" -o "$OUT/$name" "$@" "$FR" > /dev/null
}
waits_job() { nsysjax-collectives -s waits "$ST/communication.tsv" > "$OUT/waits.tsv"; }
# What the report says of each module beyond the reference's table
# (lib/modfacts.awk): devices, compute and communication, hidden share,
# collective wait and the barrier flag, the module doing the work, who
# compiled it; its hidden share checked by nsysjax-collectives.
modules_job() {
	mkdir -p "$OUT/modules"
	awk -f "$LIB/tsv.awk" -f "$LIB/modfacts.awk" "$ST/module.tsv" "$ST/thunk.tsv" "$FR/compile.tsv" > "$W/facts"
	sorted "$W/facts" -k6,6gr -k1,1 > "$OUT/modules/facts.tsv"
	# XLA's numeric program_id (in compile range names; per process, so
	# one may name several modules) to the modules it names, for the
	# compile table: XlaProgramId, Modules (comma-separated).
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    match($c["Name"], /program_id=[0-9]+/) && $c["ProgramName"] != "" {
		k = substr($c["Name"], RSTART + 11, RLENGTH - 11); m = $c["ProgramName"]
		if (!((k, m) in seen)) { seen[k, m] = 1; mods[k] = mods[k] (mods[k] == "" ? "" : ",") m } }
	    END { print "XlaProgramId\tModules"; for (k in mods) print k "\t" mods[k] }' "$FR/compile.tsv" > "$W/pids"
	sorted "$W/pids" -k1,1n > "$OUT/modules/xla-program-ids.tsv"
}
run flamegraphs
run variability
run summary
run pgle
job waits waits_job
job modules modules_job
run communication
run memory
# -- roofline (issue 20): its section writes $OUT/roofline (tables,
# summary.txt, section.html, roofline.svg); the GPU from the first input,
# kept in the frames for a report made again from them.
if [ "$FR" = "$1" ]; then run roofline; else
	run roofline -d "$1" -D "$FR/device.gpu_target_config.pbtxt"; fi
# -- end roofline
run critpath	# issue 21: critical path and what-if (critpath/)
jobs_wait
job_messages align steady-thunk steady-module steady-communication flamegraphs variability summary \
	pgle waits modules communication memory critpath roofline >&2

progress "writing report.txt"
text_report "$OUT" "$@" > "$OUT/report.txt"
{ echo; cat "$OUT/critpath/critpath.txt"; } >> "$OUT/report.txt"	# issue 21
# -- roofline (issue 20)
[ ! -s "$OUT/roofline/summary.txt" ] || cat "$OUT/roofline/summary.txt" >> "$OUT/report.txt"
if command -v gnuplot > /dev/null; then
	progress "plots"
	plots
	plot_index_txt >> "$OUT/report.txt"	# issue 25
else
	echo "pipelines/report.sh: gnuplot not found: no plots" >&2
fi
# The same run made again from its own frames: its comparison with
# another run (pipelines/diff.sh -o DIR/diff) stays.
[ "$SAME" = 0 ] || [ ! -d "$FINAL/diff" ] || cp -R "$FINAL/diff" "$OUT/diff"
progress "writing report.html"
html_report "$OUT" "$@"

# Complete: the new report replaces the old one whole (its frames moved
# over when they were the input), signals held off meanwhile.
trap '' INT TERM
if [ -d "$FINAL" ]; then
	[ "$SAME" = 0 ] || mv "$FINAL/frames" "$OUT/frames"
	OLD=$parent/.${FINAL##*/}.old.$$
	rm -rf -- "$OLD"
	mv -- "$FINAL" "$OLD" && mv -- "$OUT" "$FINAL" && rm -rf -- "$OLD" || die "$FINAL: cannot replace it"
else
	mv -- "$OUT" "$FINAL" || die "$FINAL: cannot create it"
fi
NEW='' OUT=$FINAL
trap 'exit 130' INT
trap 'exit 143' TERM
cat "$OUT/report.txt"
