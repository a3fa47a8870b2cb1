#!/bin/sh
# The report's first paragraph (Diagnosis): each value equals its
# section's, read from report.txt, on the example's planted straggler
# (mkexample -S: the waited-for device is the planted one) and on the
# shared four-process run when it is there.
set -u
. tests/lib.sh
export NSYSJAX_BIN=$BIN
DATA=${DATA:-../shared/data/pax_fsdp4_4proc}

# diag_checks NAME DIR: the diagnosis's step and what-if against the
# critical path's table (critpath.txt in report.txt), its min and max
# against critpath/breakdown.tsv (by awk), its top thunk against the
# thunks table's first row.
diag_checks() {
	name=$1 d=$2
	grep -q '^Diagnosis$' "$d/report.txt" && ok || { notok "$name: no Diagnosis"; return; }
	dg=$(sed -n '/^Diagnosis$/,/^$/!d; /^  /p' "$d/report.txt"; sed -n '/^Diagnosis$/,/^What\|^Times/p' "$d/report.txt")
	step=$(printf '%s\n' "$dg" | sed -n 's/.* steady steps* of \([0-9.,]*\) ms (min.*/\1/p' | head -n 1 | tr -d ,)
	mod=$(printf '%s\n' "$dg" | sed -n 's/^  \([^ ]* ([0-9a-z-]*)\): [0-9]* steady step.*/\1/p' | head -n 1)
	cstep=$(awk -v m="$mod" 'index($0, "  " m " ") == 1 { for (i = 1; i <= NF; i++) if ($i == "step") { print $(i + 1); exit } }' "$d/report.txt")
	[ -n "$step" ] && [ "$step" = "$cstep" ] && ok || notok "$name: diagnosis step '$step' against the critical path's '$cstep' ($mod)"
	mm=$(printf '%s\n' "$dg" | sed -n 's/.*(min \([0-9.,]*\), max \([0-9.,]*\)).*/\1 \2/p' | head -n 1 | tr -d ,)
	id=$(printf '%s' "$mod" | sed 's/.*(\(.*\))/\1/')
	want=$(awk -F'\t' -v id="$id" 'NR > 1 && index($1, id) == 1 { if (!n++ || $6 < lo) lo = $6; if (n == 1 || $6 > hi) hi = $6 } END { printf "%.3f %.3f", lo, hi }' "$d/critpath/breakdown.tsv")
	[ -n "$mm" ] && [ "$mm" = "$want" ] && ok || notok "$name: min/max '$mm', breakdown '$want'"
	wif=$(printf '%s\n' "$dg" | sed -n 's/.*The largest what-if is \([a-z0-9.-]*\): \([0-9.,]*\) ms.*/\1 \2/p' | head -n 1)
	cw=$(awk '/^What-if scenarios, the module that does the work/ { on = 1; next } on && /^  / && $1 != "measured" { for (i = 1; i < NF; i++) if ($i == "gain") g = $(i + 1); if (g + 0 > best + 0) { best = g; s = $1 } } on && !/^  / { on = 0 } END { print s, best }' "$d/report.txt")
	[ -n "$wif" ] && [ "$wif" = "$cw" ] && ok || notok "$name: what-if '$wif' against '$cw'"
	top=$(printf '%s\n' "$dg" | sed -n 's/.*The top thunk is \([^ ]*\) ([0-9a-z-]*), \([0-9.,]*\) ms in \([0-9]*\) executions.*/\1 \3 \2/p' | head -n 1)
	ct=$(awk '/^The thunks with the most GPU time/ { on = 1; next } on && /^  -/ { getline; print $1, $3, $4; exit }' "$d/report.txt")
	[ -n "$top" ] && [ "$top" = "$ct" ] && ok || notok "$name: top thunk '$top' against '$ct'"
}

if [ -x build/example/mkexample ]; then
	build/example/mkexample -S "$T/slow" > /dev/null &&
	    sh pipelines/report.sh -q -o "$T/slowr" "$T/slow/rank0" "$T/slow/rank1" > /dev/null 2> "$T/e" || notok "report of the straggler: $(cat "$T/e")"
	diag_checks straggler "$T/slowr"
	D=$(awk -F'\t' '$1 == "slow_device" { print $2 }' "$T/slow/straggler-truth.tsv")
	grep -q "^  Device $D makes the others wait" "$T/slowr/report.txt" && ok ||
		notok "planted straggler $D: $(grep 'makes the others wait' "$T/slowr/report.txt")"
else
	skip "no mkexample"
fi
if [ -d "$DATA" ]; then
	sh pipelines/report.sh -q -o "$T/sh" "$DATA"/*.zip > /dev/null 2> "$T/e" || notok "report of the shared run: $(cat "$T/e")"
	diag_checks shared "$T/sh"
else
	skip "shared run: $DATA not found"
fi
done_testing t87-diagnosis
