#!/bin/sh
# An interrupted report.sh ends every process it started, whatever the
# stage: the extraction, the alignment and steady state, each section's
# tools, the flame graphs' renderer, gnuplot, the awk of the pages.  Each
# stage is held by a slow stand-in on PATH (the real program, after a
# wait in a child of its own: a grandchild of the job), and the report is
# sent SIGINT (to report.sh alone, as a CI cancel, or to its whole
# process group, as Ctrl-C) once the stand-in runs.  Then no process of
# its group may be left, and nothing of the report: no -o, no hidden
# directory beside it, no work directory.
set -u
. tests/lib.sh
R=pipelines/report.sh
EX=${EXAMPLE:-build/example/profile}
[ -d "$EX/rank0" ] || { notok "no $EX (make example)"; done_testing t84-interrupt; exit 1; }
need perl || { done_testing t84-interrupt; exit 0; }
[ -r /proc/self/stat ] || { skip "no /proc: the group's processes are not listed"; done_testing t84-interrupt; exit 0; }

# The stand-ins: $T/slow/NAME runs the real NAME, unless NAME is in
# $SLOW and its arguments hold $SLOW_ARG: then it says so
# ($T/mark/NAME), waits in a child (sleep) and runs the real one.
mkdir "$T/slow" "$T/mark" "$T/tmpd"
BINA=$(cd "$BIN" && pwd)
stand_in() { # NAME REAL
	cat > "$T/slow/$1" <<EOF
#!/bin/sh
case " \$SLOW " in
*" $1 "*)
	case " \$* " in *"\$SLOW_ARG"*) ;; *) exec "$2" "\$@" ;; esac
	: > "$T/mark/$1"
	sleep 300 &
	wait
	;;
esac
exec "$2" "\$@"
EOF
	chmod +x "$T/slow/$1"
}
for t in "$BINA"/*; do
	case ${t##*/} in
	nsysjax-*) stand_in "${t##*/}" "$t" ;;
	*) ln -s "$t" "$T/slow/${t##*/}" ;;
	esac
done
stand_in awk "$(command -v awk)"
stand_in flamegraph.pl "$(cd tests/fake && pwd)/flamegraph.pl"
GP=''
if command -v gnuplot > /dev/null; then GP=$(command -v gnuplot); stand_in gnuplot "$GP"; fi

# group: the live processes of process group $PG (from /proc/N/stat:
# the fields after the command name's ")": state, ppid, pgrp),
# "pid:command" each.
group() {
	cat /proc/[0-9]*/stat 2> /dev/null | awk -v pg="$PG" '{ l = $0; c = $0; sub(/^[^(]*\(/, "", c); sub(/\) [^)]*$/, "", c)
		sub(/.*\) /, "", l); split(l, f, " ")
		if (f[1] != "Z" && f[3] == pg) printf "%s:%s ", $1, c }'
}

# interrupt STAGE TO WAIT SLOW [ARG]: a report (-j 16) with the tools
# SLOW slow (those whose arguments hold ARG), SIGINT to TO (report:
# report.sh alone; group: its process group) once WAIT runs.
interrupt() {
	_stage=$1 _to=$2 _wait=$3
	rm -rf "$T/out" "$T/mark"/* "$T/tmpd"/*
	# A new process group (the report its leader) where SIGINT has its
	# default action (a background job of this script ignores it).
	SLOW=$4 SLOW_ARG=${5:-} NSYSJAX_BIN=$T/slow PATH=$T/slow:$PATH TMPDIR=$T/tmpd \
	    perl -e 'setpgrp(0, 0); $SIG{INT} = "DEFAULT"; exec @ARGV or die' sh $R -q -j 16 -o "$T/out" "$EX/rank0" "$EX/rank1" \
	    > /dev/null 2> "$T/err" &
	pid=$! PG=$!
	n=0
	while [ ! -e "$T/mark/$_wait" ] && kill -0 $pid 2> /dev/null && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	if [ ! -e "$T/mark/$_wait" ]; then
		notok "$_stage: $_wait never ran: $(cat "$T/err")"
		kill -TERM -$PG 2> /dev/null; wait $pid
		return
	fi
	before=$(group)
	if [ "$_to" = group ]; then kill -INT -$PG; else kill -INT $pid; fi
	wait $pid; rc=$?
	# A short time: what the report stopped is gone when it has ended;
	# 2 s for the last to be reaped on a loaded machine.
	n=0
	while left=$(group); [ -n "$left" ] && [ $n -lt 40 ]; do sleep 0.05; n=$((n + 1)); done
	[ $rc -eq 130 ] && ok || notok "$_stage, SIGINT to the $_to: exit $rc, want 130: $(head -3 "$T/err")"
	[ -z "$left" ] && ok || notok "$_stage, SIGINT to the $_to: left running: $left (of $before)"
	[ ! -e "$T/out" ] && [ -z "$(ls -A "$T" | grep '^\.out\.')" ] && [ -z "$(ls -A "$T/tmpd")" ] && ok ||
		notok "$_stage, SIGINT to the $_to: left $(ls -d "$T/out" 2> /dev/null) $(ls -A "$T" | grep '^\.out\.') $(ls -A "$T/tmpd")"
	[ -z "$left" ] || kill -KILL -$PG 2> /dev/null
}

for to in report group; do
	interrupt "the extraction" $to nsysjax-extract nsysjax-extract
	interrupt "the alignment" $to nsysjax-align nsysjax-align
	interrupt "the steady state" $to nsysjax-warmup nsysjax-warmup communication-from
	interrupt "the timeline" $to nsysjax-timeline nsysjax-timeline
	interrupt "the critical path" $to nsysjax-critpath nsysjax-critpath
	interrupt "the statistics" $to nsysjax-stats nsysjax-stats
	interrupt "the collectives" $to nsysjax-collectives nsysjax-collectives
	interrupt "the flame graphs' folding" $to nsysjax-fold nsysjax-fold
	interrupt "the flame graphs' rendering" $to flamegraph.pl flamegraph.pl
	interrupt "the roofline" $to nsysjax-roofline nsysjax-roofline
	interrupt "the plots' data" $to awk awk plots.awk
	[ -z "$GP" ] || interrupt "the plots" $to gnuplot gnuplot
	interrupt "the pages (report.awk)" $to awk awk report.awk
done
# Every section at once: each of their tools slow, SIGINT to report.sh
# once the last section started runs (the most processes at once).
interrupt "every section at once" report nsysjax-roofline \
    "nsysjax-critpath nsysjax-stats nsysjax-collectives nsysjax-fold nsysjax-roofline"
done_testing t84-interrupt
