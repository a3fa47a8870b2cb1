#!/bin/sh
# pipelines/lib/messages.awk, which report.sh runs on every job's
# messages: the new report's directory written as the one asked for,
# work files named as intermediates, byte for byte as expected by
# construction; and in time linear in the lines (an extraction without
# dumps writes one note per module and process: 10,000 lines at 256
# processes), measured as CPU time against runs of a tenth of the lines.
set -u
. tests/lib.sh
M=pipelines/lib/messages.awk

# gen N NEWP FINALP: N lines on stdout, each with what messages.awk must
# make of it in $T/want: notes without paths, the new report's directory
# (NEWP) made FINALP, work files (".../nsysjax-pipeline.XXXXXX/NAME")
# made "intermediate file NAME", empty lines.
gen() {
	NP=$2 FP=$3 WANT=$T/want awk -v n="$1" 'BEGIN {
	np = ENVIRON["NP"]; fp = ENVIRON["FP"]; want = ENVIRON["WANT"]	# data, not -v: no escapes
	for (i = 0; i < n; i++) {
		r = i % 5
		if (r == 0) {
			a = sprintf("nsysjax-extract: run/proc%d.sqlite: no HLO dump for module jit_step_%d (program_id %d)", i, i % 40, i % 40); b = a
		} else if (r == 1) {
			a = sprintf("pipelines/summary.sh: %s/summary/t%d.tsv: cannot write, nor %s/x", np, i, np)
			b = sprintf("pipelines/summary.sh: %s/summary/t%d.tsv: cannot write, nor %s/x", fp, i, fp)
		} else if (r == 2) {
			a = sprintf("nsysjax-stats: /tmp/r.Q/nsysjax-pipeline.Ab%dc/steady/thunk.tsv: line %d: bad in %s/frames/thunk.tsv", i, i, np)
			b = sprintf("nsysjax-stats: intermediate file steady/thunk.tsv: line %d: bad in %s/frames/thunk.tsv", i, fp)
		} else if (r == 3) {
			a = ""; b = ""
		} else {
			a = sprintf("nsysjax-align: %s/c.tsv and /w/nsysjax-pipeline.q/c%d.tsv:/w/nsysjax-pipeline.r/d '\''x'\''", np, i)
			b = sprintf("nsysjax-align: %s/c.tsv and intermediate file c%d.tsv:intermediate file d '\''x'\''", fp, i)
		}
		print a; print b > want
	} }'
}
# msg FILE: messages.awk of FILE, NEW and FINAL from the environment.
msg() { awk -f "$M" "$1"; }

# The paths as data: spaces, quotes, '&', '\', '|' in them.
gen 3000 '/o/.out.new.12' '/o/out' > "$T/in"
NEW=/o/.out.new.12 FINAL=/o/out msg "$T/in" > "$T/got" && cmp -s "$T/got" "$T/want" && ok ||
	notok "messages.awk: $(diff "$T/want" "$T/got" | head -5)"
gen 3000 "/o/a b'c/.o&u\\t|.new.12" "/o/a b'c/o&u\\t|" > "$T/in"
NEW="/o/a b'c/.o&u\\t|.new.12" FINAL="/o/a b'c/o&u\\t|" msg "$T/in" > "$T/got" && cmp -s "$T/got" "$T/want" && ok ||
	notok "messages.awk, special characters in the paths: $(diff "$T/want" "$T/got" | head -5)"
# A newline in -o's path: the new directory's name spans two lines of
# the messages (and the one asked for three).
nl='
'
gen 3000 "/o/a${nl}b/.out.new.12" "/o/x${nl}y${nl}z" > "$T/in"
NEW="/o/a${nl}b/.out.new.12" FINAL="/o/x${nl}y${nl}z" msg "$T/in" > "$T/got" && cmp -s "$T/got" "$T/want" && ok ||
	notok "messages.awk, a newline in the paths: $(diff "$T/want" "$T/got" | head -5)"
# No FINAL (a job's messages before the report has a name): paths kept.
gen 200 '/o/.out.new.12' '/o/.out.new.12' > "$T/in"
NEW=/o/.out.new.12 FINAL='' msg "$T/in" > "$T/got" && cmp -s "$T/got" "$T/want" && ok || notok "messages.awk without FINAL"
# No line: nothing.
: > "$T/empty"
[ -z "$(NEW=/a FINAL=/b msg "$T/empty")" ] && ok || notok "messages.awk of no line"

# Linear: the CPU time of one run over 10,000 lines against the sum of
# ten runs over 1,000 lines each (as `times` counts the children's).  A
# quadratic rewriting takes 10 times the sum (it took 8.5 s against
# 0.8 s); a linear one about the sum.  The bound, 3 times the sum and
# 0.5 s, holds on any load: CPU time, not the wall clock.
# cpu: CPU, the time of this shell's children so far, in ms (times in
# this shell, not in a command substitution's subshell).
cpu() {
	times > "$T/times"
	CPU=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60000 + p[2] * 1000 } printf "%d\n", t }' "$T/times")
}
for nl1 in "" "/o/a${nl}b/.out.new.12"; do
	np=${nl1:-/o/.out.new.12}
	gen 10000 "$np" /o/out > "$T/big"
	: > "$T/small.all"
	i=0
	while [ $i -lt 10 ]; do gen 1000 "$np" /o/out > "$T/small.$i"; i=$((i + 1)); done
	cpu; t0=$CPU
	NEW=$np FINAL=/o/out timeout 120 awk -f "$M" "$T/big" > /dev/null
	cpu; t1=$CPU
	i=0
	while [ $i -lt 10 ]; do NEW=$np FINAL=/o/out awk -f "$M" "$T/small.$i" > /dev/null; i=$((i + 1)); done
	cpu; t2=$CPU
	big=$((t1 - t0)) small=$((t2 - t1))
	[ -z "${VERBOSE:-}" ] || echo "  (CPU: 10,000 lines $big ms, 10 x 1,000 lines $small ms)"
	what="NEW without a newline"; [ -z "$nl1" ] || what="NEW with a newline"
	[ $big -le $((3 * small + 500)) ] && ok ||
		notok "messages.awk ($what) not linear: 10,000 lines $big ms of CPU, 10 x 1,000 lines $small ms"
done
done_testing t81-messages
