#!/bin/sh
# Every analysis of the reference for one run, into one directory: the
# frames (nsysjax-extract), then summary, communication, flame graphs,
# variability, memory and PGLE costs (the other pipelines, sharing the one
# extraction), a short text report on standard output and, when gnuplot
# is installed, the notebook's plots as SVG.  See doc/pipelines.md,
# "report.sh".
#
# The report is written into a new directory beside -o's, which replaces
# it whole once the report is complete: a report directory holds one run,
# and a failed or interrupted report leaves the earlier one as it was.
set -eu
USAGE='pipelines/report.sh [-q] [-B] [-j jobs] [-m regex] [-x regex] [-X extract-option] [--skip n] -o dir input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

# The long options as short ones for getopts: --help (-h), --skip N
# (-k N); the arguments rotated through "$@" in their order.  Options
# may follow the inputs, as the tools' (getopt_long's permutation): each
# argument pushed gets a letter in MASK, o for an option or an option's
# argument (the short options that take one: o j m x X k), p for an
# input (all after --); then the list is doubled and rotated once more,
# the options of its first half kept, then --, then the inputs of its
# second half.
n=$# MASK=''
# optarg_next A: true when the short option cluster A ("-qo", "-Xfoo")
# ends with an option whose argument is the next word.
optarg_next() {
	_c=${1#-}
	while [ -n "$_c" ]; do
		_h=${_c%"${_c#?}"} _c=${_c#?}
		case $_h in [ojmxXk]) [ -z "$_c" ]; return ;; esac
	done
	return 1
}
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--) while [ "$n" -gt 0 ]; do set -- "$@" "$1"; MASK=${MASK}p; shift; n=$((n - 1)); done ;;
	--help) set -- "$@" -h; MASK=${MASK}o ;;
	--skip=*) set -- "$@" -k "${a#--skip=}"; MASK=${MASK}oo ;;
	--skip) [ "$n" -gt 0 ] || bad_usage "--skip: no count"
		set -- "$@" -k "$1"; MASK=${MASK}oo; shift; n=$((n - 1)) ;;
	--*) bad_usage "unknown option '$a'" ;;
	-?*) set -- "$@" "$a"; MASK=${MASK}o
	     if optarg_next "$a"; then
		[ "$n" -gt 0 ] || bad_usage "$a: no argument"
		set -- "$@" "$1"; MASK=${MASK}o; shift; n=$((n - 1))
	     fi ;;
	*) set -- "$@" "$a"; MASK=${MASK}p ;;
	esac
done
n=$# _m1=$MASK _m2=$MASK
set -- "$@" "$@"
while [ "$n" -gt 0 ]; do
	[ "${_m1%"${_m1#?}"}" = p ] || set -- "$@" "$1"
	_m1=${_m1#?}; shift; n=$((n - 1))
done
set -- "$@" --
n=${#_m2}
while [ "$n" -gt 0 ]; do
	[ "${_m2%"${_m2#?}"}" = o ] || set -- "$@" "$1"
	_m2=${_m2#?}; shift; n=$((n - 1))
done

# Jobs at once: the online cores (a pipeline is a chain of
# single-threaded filters): Linux's list of them read by the shell
# ("0-3,6"), else getconf.
JOBS=0
if [ -r /sys/devices/system/cpu/online ] && IFS= read -r _on < /sys/devices/system/cpu/online; then
	case $_on in *[!0-9,-]* | '') ;; *)
		_ifs=$IFS IFS=,
		for _r in $_on; do
			case $_r in *-*) JOBS=$((JOBS + ${_r#*-} - ${_r%-*} + 1)) ;; ?*) JOBS=$((JOBS + 1)) ;; esac
		done
		IFS=$_ifs ;;
	esac
fi
[ "$JOBS" -gt 0 ] || JOBS=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
QUIET=0 KEEP='' DROP='' SKIP='' BARRIERS=0
# -X OPT: one option for nsysjax-extract (-X -d -X DIR, -X --names=A,B,
# -X -k), each kept single-quoted for eval.  A module without HLO dump is
# a note in a report (--allow-missing-hlo): the report shows what the
# profile alone supports, and its list of what the capture lacks says so.
XOPTS='--allow-missing-hlo'
while getopts o:j:qBm:x:X:k:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	q) QUIET=1 ;;
	# -B: barriers (facts' Barrier) in the headline and the tables, as
	# any module; by default they are left out and named.
	B) BARRIERS=1 ;;
	j) case $OPTARG in '' | *[!0-9]* | 0) bad_usage "-j: not a count: '$OPTARG'" ;; esac; JOBS=$OPTARG ;;
	m) KEEP=$OPTARG ;;
	x) DROP=$OPTARG ;;
	X) case $OPTARG in
	   -o* | --output-dir* | -f* | --frame* | --merge | --check | -j* | --jobs*)
		bad_usage "-X $OPTARG: the report chooses that option itself" ;;
	   esac
	   XOPTS="$XOPTS '$(printf '%s' "$OPTARG" | sed "s/'/'\\\\''/g")'" ;;
	k) case $OPTARG in '' | *[!0-9]*) bad_usage "--skip: not a count: '$OPTARG'" ;; esac; SKIP=$OPTARG ;;
	*) bad_usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -n "$OUT" ] || bad_usage "no output directory (-o)"
# A regular expression awk refuses is a usage error, not a failed job.
for re in "$KEEP" "$DROP"; do
	[ -z "$re" ] || echo | RE=$re awk '{ exit !("" ~ ENVIRON["RE"] || 1) }' 2> /dev/null ||
		bad_usage "not a regular expression: '$re'"
done

# progress STAGE: a line on stderr when it is a terminal, unless -q.
progress() {
	[ "$QUIET" = 0 ] && [ -t 2 ] && printf '%s: %s\n' "$PROG" "$*" >&2 || :
}

# plots: the notebook's plots as SVG in $OUT/plots: lib/plots.awk writes
# their data and each plot's program ($W/plot.N.gp, listed in
# $W/plots.list), then draw_plots draws them, in two gnuplot processes at
# once when there are two cores (the plots are independent: each program
# begins with `reset session`), else in one.  A plot that fails is a
# warning, not a failed report; the warnings come in plot order.  The
# skews' two plots were drawn up before (skew_plots, plots.awk's PART).
plots() {
	OUT=$OUT W=$W ST=$ST awk -v PART=rest -f "$LIB/sort.awk" -f "$LIB/plots.awk"
	: > "$W/gpw.1"
	if [ "$JOBS" -gt 1 ]; then
		draw_plots 1 2 & _bg=$!
		draw_plots 0 2
		wait "$_bg" || :
	else
		draw_plots 0 1
	fi
	if [ -s "$W/gpw.0" ] || [ -s "$W/gpw.1" ]; then
		sort -t "$TAB" -k1,1n "$W/gpw.0" "$W/gpw.1" | cut -f 2- >&2
	fi
}
# skew_plots: the data and programs of the skews' plots, a job of its
# own once nsysjax-align -s has written them, beside the sections: at
# 256 devices 2.2 s of mawk, which at the end held up the report alone.
skew_plots() {
	OUT=$OUT W=$W ST=$ST awk -v PART=skews -f "$LIB/sort.awk" -f "$LIB/plots.awk"
}
# draw_plots G N: the plots whose number is G + 1 modulo N (counting from
# 1), in one gnuplot process: a program calls them in turn (call, not
# load: load empties ARG1..), each announced on stderr.  A failed plot
# stops gnuplot there, and it is run again for the plots after it; the
# warnings, "N TAB message", into $W/gpw.G.  gnuplot sees no path of ours
# in its program text: the plots directory and $W are its arguments
# (gnuplot has system(), so a quote in -o must not end a gnuplot string).
draw_plots() {
	_g=$1 _n=$2 _from=1
	: > "$W/gpw.$_g"
	while :; do
		_np=0
		while IFS="$TAB" read -r _i _name; do
			[ $(((_i - 1) % _n)) -eq "$_g" ] || continue
			_np=$_i
			[ "$_i" -ge "$_from" ] || continue
			printf "print 'nsysjax-plot %s'\ncall ARG2.'/plot.%s.gp' ARG1 ARG2\n" "$_i" "$_i"
		done < "$W/plots.list" > "$W/plots.$_g.gp"
		[ "$_from" -le "$_np" ] || break
		gnuplot -c "$W/plots.$_g.gp" "$OUT/plots" "$W" 2> "$W/gp.$_g.err" && break
		# The plot that failed: the last announced; its message, the
		# first line after the announcement.
		_last=$_from _msg='' _got=0
		while IFS= read -r _l; do
			case $_l in
			"nsysjax-plot "*) _last=${_l#nsysjax-plot } _msg='' _got=0 ;;
			*) [ "$_got" = 1 ] || _msg=$_l _got=1 ;;
			esac
		done < "$W/gp.$_g.err"
		while IFS="$TAB" read -r _i _name; do
			[ "$_i" != "$_last" ] || printf '%s\t%s: plot %s: %s\n' "$_i" "$PROG" "$_name" "$_msg" >> "$W/gpw.$_g"
		done < "$W/plots.list"
		_from=$((_last + 1))
	done
}

# Up to $JOBS jobs at once: `job NAME CMD...` runs CMD in the background
# with its stderr in $W/NAME.err, waiting first for a job to end when
# $JOBS run; `jobs_wait` waits for them all.  A failed job fails the
# report, with its messages (work files named as intermediates, the new
# report's directory as $FINAL).  Each job says when it ends, with its
# status, on a FIFO (fd 3, open read and write: a writer never blocks),
# so that the next starts as soon as any job ends, not the oldest (sh
# has no wait -n): a long section does not hold a core idle.
JOBQ='' NJOB=0
job() {
	while [ "$NJOB" -ge "$JOBS" ]; do job_reap; done
	name=$1
	shift
	# shellcheck disable=SC2064 # the name now, the status at the end
	{ trap "echo $name \$? >&3" EXIT; "$@" 2> "$W/$name.err"; } & BG="$BG $!"
	JOBQ="$JOBQ $!:$name" NJOB=$((NJOB + 1))
}
# The job leaves the queue once waited for: a signal during the wait
# must find it there, for stop_jobs to stop it.
job_reap() {
	read -r _done _st <&3 || die "lost track of the jobs"
	_q='' _pid=''
	for _e in $JOBQ; do
		if [ -z "$_pid" ] && [ "${_e#*:}" = "$_done" ]; then _pid=${_e%%:*}; else _q="$_q $_e"; fi
	done
	[ -z "$_pid" ] || wait "$_pid" || :
	JOBQ=$_q NJOB=$((NJOB - 1))
	[ "$_st" -eq 0 ] || { job_messages "$_done" >&2; die "$_done failed"; }
}
jobs_wait() { while [ -n "$JOBQ" ]; do job_reap; done; BG=; }
# jobs_wait_for NAME...: jobs reaped until those named have ended.
jobs_wait_for() {
	for _w; do
		while case "$JOBQ " in *":$_w "*) true ;; *) false ;; esac; do job_reap; done
	done
}
# job_messages NAME...: the messages of the jobs NAME, paths made the
# user's: a pipeline's work file is no file of theirs.
# One awk for them all: those with messages.  The paths are data (the
# environment), never program text: a '|', '&', '\' or newline in -o is
# a character of a path.  Should the rewriting fail, the messages are
# shown as they are: it never fails the report.
job_messages() {
	_names=$*
	set --	# (in a function: the caller's arguments stay)
	for name in $_names; do [ ! -s "$W/$name.err" ] || set -- "$@" "$W/$name.err"; done
	[ $# -eq 0 ] || NEW=$NEW FINAL=${FINAL:-} awk -f "$LIB/messages.awk" "$@" 2> /dev/null || cat "$@"
}

# stop_jobs: the running jobs stopped, with every process they started
# (a pipeline's tools too: a signal to report.sh alone, as a CI cancel
# sends, must not leave them writing), before the work directories go.
# On Linux every process of this report is found in /proc (ours), whether
# in the queue or not (a job forked as the signal came, a plot in the
# foreground), or its parent ended already: all of them are stopped
# (SIGSTOP: none forks any more) until the set is complete, then sent
# SIGTERM and continued, and waited for (their own traps remove their
# work directories).  Elsewhere the jobs of the queue alone.
stop_jobs() {
	roots=''
	for e in $JOBQ; do roots="$roots ${e%%:*}"; done
	JOBQ='' NJOB=0 BG=''
	if [ -r /proc/$$/stat ]; then
		all=''
		while :; do
			pids=$(ours $$)
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
# Every program this report starts has _NSYSJAX_REPORT=$W in its
# environment ($W: a name no other process holds): one whose parent has
# ended is no longer below this shell, but still carries it.  A Ctrl-C
# reaches the whole process group: a job's tool in the foreground of its
# shell dies of it, and what it had started in the background (where
# SIGINT is ignored) is left to init.
_NSYSJAX_REPORT=$W
export _NSYSJAX_REPORT
# ours PID: the live processes of this report (sorted pids): those below
# PID, from the parent pid of each /proc/N/stat ("N (comm) S PPID ...",
# the command name may hold spaces and parentheses: the fields after the
# last ")"), and those whose /proc/N/environ holds _NSYSJAX_REPORT=$W.  Not
# those of this function: the child of PID that awk is below (the
# command substitution's shell) and what it started, which have the
# variable emptied.
ours() {
	_NSYSJAX_REPORT=''
	{
		cat /proc/[0-9]*/stat 2> /dev/null | awk -v root="$1" '
		BEGIN { getline s < "/proc/self/stat"; me = s + 0 }
		{ pid = $1; sub(/.*\) /, ""); up[pid] = $2; if ($1 != "Z") { live[pid] = 1; kids[$2] = kids[$2] " " pid } }
		END { x = me; while ((x in up) && up[x] != root) x = up[x]
		      n = 1; q[1] = root
		      for (i = 1; i <= n; i++) { m = split(kids[q[i]], k, " "); for (j = 1; j <= m; j++) if (k[j] != x) q[++n] = k[j] }
		      for (i = 2; i <= n; i++) if (q[i] in live) print q[i] }'
		grep -l -s -z -x -F "_NSYSJAX_REPORT=$W" /proc/[0-9]*/environ 2> /dev/null || :
	} | awk -F/ '{ p = NF > 1 ? $3 : $1; if (p != "" && !(p in seen)) { seen[p] = 1; print p } }' | sort -n | tr '\n' ' '
}
# alive PID...: those of PID... still running (not zombies).
alive() {
	for p; do
		[ -r "/proc/$p/stat" ] && ! sed 's/.*) //' "/proc/$p/stat" 2> /dev/null | grep -q '^Z' && printf '%s ' "$p"
	done
	:
}

# lock_final: the lock of the replace step, a directory beside -o's
# (mkdir is atomic), LOCK; another report holding it is waited for (the
# step takes milliseconds), 10 s at most, after which the lock is taken
# to be left by a report that was killed (kill -9: no trap ran).
LOCK=''
lock_final() {
	_l=$parent/.${FINAL##*/}.lock _n=0
	until mkdir -- "$_l" 2> /dev/null; do
		_n=$((_n + 1))
		if [ "$_n" -gt 100 ]; then
			rmdir -- "$_l" 2> /dev/null || die "$_l: cannot take the lock of $FINAL"
			_n=0
		fi
		sleep 0.1
	done
	LOCK=$_l
}
# On exit the jobs and their processes stopped, then the work
# directories removed; on a signal the same, and the signal's status.
NEW=''
# (A report that ends well has waited for every job: no process of it
# is left to look for.)
trap '_st=$?; trap "" INT TERM; [ "$_st" -eq 0 ] && [ -z "$JOBQ" ] || stop_jobs; rm -rf "$W" ${NEW:+"$NEW"}
	[ -z "$LOCK" ] || rmdir -- "$LOCK" 2> /dev/null || :
	[ "$_st" -eq 0 ] || rm_made' EXIT
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
	parent_dir "$i"
	case $(cd -- "$PARENT" && pwd -P)/${i##*/}/ in
	"$OUT"/*)
		if [ $# -eq 1 ] && [ "$(cd -- "$i" && pwd -P)" = "$OUT/frames" ]; then
			SAME=1
		else
			die "$i: inside the output directory $OUT, which the report replaces"
		fi ;;
	esac
done
parent_dir "$OUT"
parent=$PARENT
# Named after this process, which no live process shares: a directory of
# that name is left by a dead one.  Named before it is made, so that the
# traps, set first, remove it whenever it exists.  The directories made
# above it (make_parents) are removed on failure only when empty: other
# reports may be written beside this one (results/jobN).
NEW=$parent/.${OUT##*/}.new.$$
if [ -e "$NEW" ] || [ -L "$NEW" ]; then rm -rf -- "$NEW"; fi
mkdir_in "$parent" "$NEW" || die "$parent: cannot create the report directory"
# With every directory the sections write into (and the work directory's
# steady/, and each section's own work directory, named as a pipeline's
# so that job_messages calls its files intermediate), in one mkdir: a
# process start is dear.
EXTRACT=1
if [ $# -eq 1 ] && [ -f "$1/thunk.tsv" ]; then EXTRACT=0; fi
GNUPLOT=''
if command -v gnuplot > /dev/null; then GNUPLOT=1; fi
ST=$W/steady
FRAMES=''
[ "$EXTRACT" = 0 ] || FRAMES=$NEW/frames
mkdir -- "$NEW/modules" "$NEW/summary" "$NEW/communication" "$NEW/flamegraphs" \
    "$NEW/variability" "$NEW/memory" "$NEW/pgle" "$NEW/roofline" "$NEW/critpath" \
    ${FRAMES:+"$FRAMES"} ${GNUPLOT:+"$NEW/plots"} "$ST" \
    "$W/nsysjax-pipeline.flamegraphs" "$W/nsysjax-pipeline.variability" "$W/nsysjax-pipeline.summary" \
    "$W/nsysjax-pipeline.communication" "$W/nsysjax-pipeline.memory" "$W/nsysjax-pipeline.pgle" \
    "$W/nsysjax-pipeline.roofline" "$W/nsysjax-pipeline.critpath" || die "$parent: cannot create the report directory"
{ mkfifo "$W/jobs" && exec 3<> "$W/jobs"; } || die "cannot create a FIFO in $W"

# From here on the report is written into $NEW; $FINAL is where it goes.
FINAL=$OUT OUT=$NEW

# One extraction for every pipeline: they take a frames directory.  In
# the background, as every long step: a signal is then handled at once.
if [ "$EXTRACT" = 0 ]; then
	FR=$1
else
	FR=$OUT/frames
	progress "extracting the frames of $# profile(s)"
	extract_job() { eval "nsysjax-extract $XOPTS -o \"\$FR\" -- \"\$@\""; }
	job extract extract_job "$@"
	jobs_wait
	# The run's metadata beside the frames: nsysjax-extract -o writes
	# meta.tsv itself (or says why not).  Should a frames directory lack
	# it without a reason (an nsysjax-extract of before), it is read
	# from the inputs on its own.  Never fatal: without it the table is
	# left out, with the reason.
	meta_job() {
		if eval "nsysjax-extract $XOPTS -f meta -- \"\$@\"" > "$FR/meta.tsv" 2> "$W/meta.note"; then
			[ ! -s "$W/meta.note" ] || cat "$W/meta.note" >&2
		else
			rm -f "$FR/meta.tsv"
			printf '%s: no run metadata: %s\n' "$PROG" "$(head -n 1 "$W/meta.note")" >&2
		fi
	}
	if [ ! -f "$FR/meta.tsv" ] && ! grep -q 'no run metadata' "$W/extract.err"; then
		job meta meta_job "$@"
		jobs_wait
	fi
	job_messages extract meta >&2
fi
F=$FR

# What the capture cannot show (nsysjax-extract --check on the frames), a
# list shown at the top of the report when it is not empty.
# Never fatal: a check that fails leaves the list out, with the reason.
capture_job() {
	nsysjax-extract --check "$FR" > "$OUT/capture.txt" 2> "$W/capture.note" ||
		{ rm -f "$OUT/capture.txt"; printf '%s: no capture check: %s\n' "$PROG" "$(head -n 1 "$W/capture.note")" > "$W/capture-fail.err"; }
}
job capture capture_job

# The modules kept (-m, -x), by ProgramId: those whose name or ProgramId
# matches -m's expression and not -x's; then filter_modules keeps the
# rows of those programs of a frame on stdin.
if [ -n "$KEEP$DROP" ]; then
	KEEP=$KEEP DROP=$DROP awk -F'\t' '
	BEGIN { keep = ENVIRON["KEEP"]; drop = ENVIRON["DROP"] }
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
# The command buffers' forms, once for the three frames (lib/common.sh's
# warmup), beside the alignment: one pass over the thunk frame, not three.
if [ -f "$FR/thunk.tsv" ]; then
	forms_job() { nsysjax-warmup --forms-from "$FR/thunk.tsv" --forms-only > "$W/forms.tsv"; }
	job forms forms_job
	FORMS=$W/forms.tsv
fi
jobs_wait
# The note of the executions left out by their form: the thunk frame's
# split alone says it (the others split the same executions).
steady_job() {
	[ "$1" = thunk ] || WARMUP_QUIET=1
	if [ -f "$W/programs" ]; then
		steady_frame "$FR" "$OUT/corrections.tsv" "$1" > "$W/steady-$1.all"
		filter_modules < "$W/steady-$1.all" > "$ST/$1.tsv"
	else
		steady_frame "$FR" "$OUT/corrections.tsv" "$1" > "$ST/$1.tsv"
	fi
}
# The skews behind the corrections (a row per device and instance: most
# of the estimate's time) beside the steady state, not before it; the
# same estimate again, its messages already in align.err.
skews_job() { nsysjax-align -s "$OUT/alignment_skews.tsv" "$FR/communication.tsv" > /dev/null 2>&1; }
job skews skews_job
# The whole run on the aligned clocks, for ui.perfetto.dev, beside the
# report (report.html links it).  Never fatal: without it the link is
# left out, with the reason.
timeline_job() {
	nsysjax-timeline -c "$OUT/corrections.tsv" "$FR" > "$OUT/timeline.perfetto-trace" 2> "$W/timeline.note" || {
		rm -f "$OUT/timeline.perfetto-trace"
		printf '%s: no timeline: %s\n' "$PROG" "$(head -n 1 "$W/timeline.note")" >&2
	}
}
job timeline timeline_job
for f in thunk module communication; do job "steady-$f" steady_job "$f"; done
jobs_wait

progress "summary, communication, flame graphs, variability, memory, PGLE costs ($JOBS at once)"
# The sections, the longest first, and the waits for the plots.  A
# section is a job writing its own files into $OUT/NAME, which
# report.awk shows in report.txt and report.html when they are there.
run() {
	name=$1
	shift
	# Its work directory, made above (lib/common.sh), exported to it alone.
	_NSYSJAX_SECTION_DIR=$W/nsysjax-pipeline.$name
	export _NSYSJAX_SECTION_DIR
	job "$name" sh "$HERE/$name.sh" -s "$ST" -o "$OUT/$name" "$@" "$FR" > /dev/null
	unset _NSYSJAX_SECTION_DIR
}
# Every table of nsysjax-stats the sections read, in one pass over the
# steady thunk rows ($W/stats; summary.sh, variability.sh and pgle.sh
# take theirs from it, lib/common.sh's STATS): the summary's module,
# thunk, totals and command buffer tables, the variability, straggler
# and late tables, the PGLE costs, the sums the scatter and straggler plots draw
# (plots.awk's steady_pass reads them), and what the report says of each
# module beyond the reference's table (modules/facts.tsv: devices,
# compute and communication, hidden share, collective wait and the
# barrier flag, the module doing the work, who compiled it) with, from
# the compile frame, XLA's numeric program_id (in compile range names;
# per process, so one may name several modules) to the modules it names
# (xla-program-ids, for the compile table) and the processes whose
# compilation it holds (compile-profiles).
# The straggler table joins the ProgramIds of one SPMD step (-m: a
# device's bias is against every device of its step); the join's note is
# the one coll_job keeps, not said twice.
stats_job() {
	nsysjax-stats -t modules,thunks,totals,cmdbufs,variability,stragglers,late,costs,scatter,offsets,facts,xla-program-ids,compile-profiles \
	    -M "$ST/module.tsv" -m "$ST/module.tsv" -H "$FR/hlo.tsv" -C "$FR/compile.tsv" -o "$W/stats" "$ST/thunk.tsv" 2> "$W/stats.note" &&
		cp "$W/stats/facts.tsv" "$W/stats/xla-program-ids.tsv" "$W/stats/compile-profiles.tsv" "$OUT/modules/"
	_rc=$?
	grep -v ' joined to ' "$W/stats.note" >&2 || :
	return $_rc
}
# The summaries of the steady communication rows: the communication
# section's bandwidth and hidden time (into $W/stats too), per ProgramId
# as the reference's; and the wait per collective instance, for the
# plots, with the ProgramIds of one SPMD step joined (-m: an instance
# over all the devices of its step).  The join's note is the critical
# path's too: kept in $W/spmd.note for the headline (report.awk), not
# said twice.
coll_job() {
	nsysjax-collectives -s bandwidth,hidden -o "$W/stats" "$ST/communication.tsv" &&
		nsysjax-collectives -m "$ST/module.tsv" -s waits -o "$W/stats" "$ST/communication.tsv" 2> "$W/spmd.note" &&
		cp "$W/stats/waits.tsv" "$OUT/waits.tsv"
	_rc=$?
	grep -v ' joined to ' "$W/spmd.note" >&2 || :
	return $_rc
}
# The critical path first: two passes over the steady thunk rows, the
# longest section at scale (256 processes: 5 s of 14); with it the
# statistics, then the sections that do without them.
run critpath	# critical path and what-if (critpath/)
# The headline's GPU busy time: every steady thunk's interval (Device,
# ProgramId, ProjStartMs, its end: ProjDurMs and ProjDurHiddenMs after
# the start, a collective's whole duration), sorted by device and start,
# for report.awk's union per device (sort(1): at scale the rows are
# millions, too many for an awk sort).
intervals_job() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%s\t%s\t%s\t%.6f\n", $c["Device"], $c["ProgramId"], $c["ProjStartMs"], $c["ProjStartMs"] + $c["ProjDurMs"] + $c["ProjDurHiddenMs"] }' \
	    "$ST/thunk.tsv" | LC_ALL=C sort -t "$TAB" -k1,1n -k3,3n > "$W/intervals.tsv"
}
job intervals intervals_job
job stats stats_job
job coll coll_job
[ -z "$GNUPLOT" ] || job skewplots skew_plots
run flamegraphs
# The roofline: its section writes $OUT/roofline (tables,
# summary.txt, section.html, roofline.svg); the GPU from the first input,
# kept in the frames for a report made again from them.
if [ "$FR" = "$1" ]; then run roofline; else
	run roofline -d "$1" -D "$FR/device.gpu_target_config.pbtxt"; fi
jobs_wait_for stats coll
# The tables without barriers (facts' Barrier: modules whose time is
# collective wait), unless -B: the steady frames without their rows in
# $W/nobar, their GPU time by opcode and hidden communication beside the
# sections' (flamegraphs/opcodes.no-barriers.tsv,
# communication/hidden.no-barriers.tsv), which report.awk shows in place
# of those (they stay the reference's, barriers in); $W/barriers lists
# their ProgramIds.
nobar_job() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Barrier"] == 1 { print $c["ProgramId"] }' \
	    "$OUT/modules/facts.tsv" > "$W/barriers"
	[ -s "$W/barriers" ] || return 0
	mkdir "$W/nobar"
	for _f in thunk module communication; do
		awk -F'\t' 'FNR == NR { bar[$1] = 1; next }
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProgramId") c = i; print; next }
		!($c in bar)' "$W/barriers" "$ST/$_f.tsv" > "$W/nobar/$_f.tsv"
	done
	nsysjax-fold -b opcode -H "$FR/hlo.tsv" -M "$W/nobar/module.tsv" "$W/nobar/thunk.tsv" > "$OUT/flamegraphs/opcodes.no-barriers.tsv" &&
		nsysjax-collectives -s hidden -o "$W/nobar" "$W/nobar/communication.tsv" &&
		cp "$W/nobar/hidden.tsv" "$OUT/communication/hidden.no-barriers.tsv"
}
[ "$BARRIERS" = 1 ] || job nobar nobar_job
_NSYSJAX_STATS_DIR=$W/stats
export _NSYSJAX_STATS_DIR
run variability
run summary
run communication
run memory
# The plots (when gnuplot is there) are a job too, once the tables they
# draw are written.
if [ -n "$GNUPLOT" ]; then
	jobs_wait_for variability summary communication memory skewplots
	progress "plots"
	job plots plots
fi
run pgle
jobs_wait
job_messages align forms intervals nobar steady-thunk steady-module steady-communication stats coll flamegraphs variability summary \
	pgle communication memory critpath roofline skewplots plots timeline >&2

# The same run made again from its own frames: its comparison with
# another run (pipelines/diff.sh -o DIR/diff) stays.
[ "$SAME" = 0 ] || [ ! -d "$FINAL/diff" ] || cp -R "$FINAL/diff" "$OUT/diff"
PLOTS=0
if [ -n "$GNUPLOT" ]; then
	PLOTS=1
else
	echo "pipelines/report.sh: gnuplot not found: no plots" >&2
fi
progress "writing report.txt and report.html"
OUT=$OUT FR=$FR W=$W BARRIERS=$BARRIERS awk -v PLOTS="$PLOTS" -f "$LIB/sort.awk" -f "$LIB/fmt.awk" -f "$LIB/report.awk" -f "$LIB/diagnosis.awk" -- "$@"
# The capture check's list is report.awk's, after the diagnosis.
job_messages capture-fail >&2

# Complete: the new report replaces the old one whole (its frames moved
# over when they were the input), signals held off meanwhile, under a
# lock that other reports into the same directory take too (see
# lock_final): of two reports into one directory the second replaces
# the first's whole, as when they do not overlap.  The rename goes onto a
# path that must not exist (rename_onto): never into a directory made
# meanwhile by another program, which wins, and this report fails,
# saying so.
trap '' INT TERM
lock_final
won() { die "$FINAL: written by another program while this report ran: this report is not kept"; }
if [ -d "$FINAL" ] && [ ! -L "$FINAL" ]; then
	[ -f "$FINAL/report.txt" ] || [ -z "$(ls -A -- "$FINAL")" ] || won
	[ "$SAME" = 0 ] || mv "$FINAL/frames" "$OUT/frames"
	OLD=$parent/.${FINAL##*/}.old.$$
	rm -rf -- "$OLD"
	mv -- "$FINAL" "$OLD" || die "$FINAL: cannot replace it"
	rename_onto "$OUT" "$FINAL" "$parent" || { [ -e "$FINAL" ] && won; mv -- "$OLD" "$FINAL" 2> /dev/null || :; die "$FINAL: cannot replace it"; }
	rm -rf -- "$OLD"
elif [ -e "$FINAL" ] || [ -L "$FINAL" ]; then
	won
else
	rename_onto "$OUT" "$FINAL" "$parent" || { [ ! -e "$FINAL" ] || won; die "$FINAL: cannot create it"; }
fi
NEW='' OUT=$FINAL
rmdir -- "$LOCK" 2> /dev/null || :
LOCK=''
trap 'exit 130' INT
trap 'exit 143' TERM
cat "$OUT/report.txt"
