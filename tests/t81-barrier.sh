#!/bin/sh
# The report's headline utilisation is GPU busy time (the union of the
# thunk intervals of each device), and barriers (modules whose time is
# collective wait) are left out of the headline, of every report table
# and of nsysjax-diff's totals and gate, each named; -B keeps them.
# Expected values are computed here by awk over the frames and by
# construction, never taken from our own output.
set -u
. tests/lib.sh
MKEXAMPLE=${MKEXAMPLE:-$(dirname "$BIN")/example/mkexample}
PATH=$(cd "$BIN" && pwd):$PATH; export PATH

# ---- GPU busy: the union of thunk intervals, on a run with idle gaps ----
# mkexample -P plants a host stall of 3 ms before loop_add_fusion on
# device 0 and a late start of process 1 (its device idle inside the
# module, waiting for the launch): idle time inside modules, so modules
# active exceeds the thunks' union.  The all-gather and all-reduce overlap
# compute (hidden): the union counts that time once.  The generator's
# first two executions of jit_train_step are its warm-up (slow NCCL
# start: truth.tsv's init_executions), the steady state the four others.
need_built "$MKEXAMPLE" t81-barrier
"$MKEXAMPLE" -P "$T/ex" > /dev/null || notok "mkexample -P"
sh pipelines/report.sh -q -o "$T/r" "$T/ex/rank0" "$T/ex/rank1" > /dev/null 2> "$T/err" || notok "report of the example: $(cat "$T/err")"
# union FRAMES: per device, the union of the steady thunks' intervals
# [ProjStartMs, + ProjDurMs + ProjDurHiddenMs] and the span of the steady
# module rows; prints "UNION WALL ACTIVE" summed over the devices, in ms,
# "%.2f" as the report rounds.  Times in integer ns (AWK_NS): no float
# rounding.
union() {
	awk -F'\t' "$AWK_NS"'
	FNR == 1 { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
	$c["ProgramExecution"] < 2 { next }
	f == 1 && $c["ProgramId"] ~ /^a6ef8f2b/ {
		d = $c["Device"]; s = ns($c["ProjStartMs"]); e = s + ns($c["ProjDurMs"]) + ns($c["ProjDurHiddenMs"])
		n[d]++; S[d, n[d]] = s; E[d, n[d]] = e }
	f == 2 && $c["ProgramId"] ~ /^a6ef8f2b/ {
		d = $c["Device"]; s = ns($c["ProjStartMs"]); e = s + ns($c["ProjDurMs"]); act += ns($c["ProjDurMs"])
		if (!(d in lo) || s < lo[d]) lo[d] = s; if (!(d in hi) || e > hi[d]) hi[d] = e }
	END {
		for (d in n) {
			# insertion sort by start, then the merged runs
			for (i = 2; i <= n[d]; i++) for (j = i; j > 1 && S[d, j - 1] > S[d, j]; j--) {
				t = S[d, j]; S[d, j] = S[d, j - 1]; S[d, j - 1] = t
				t = E[d, j]; E[d, j] = E[d, j - 1]; E[d, j - 1] = t }
			cs = S[d, 1]; ce = E[d, 1]
			for (i = 2; i <= n[d]; i++) {
				if (S[d, i] > ce) { u += ce - cs; cs = S[d, i]; ce = E[d, i] }
				else if (E[d, i] > ce) ce = E[d, i] }
			u += ce - cs
			w += hi[d] - lo[d]
		}
		printf "%.2f %.2f %.2f %.2f%% %.2f%%\n", u / 1e6, w / 1e6, act / 1e6, 100 * u / w, 100 * act / w
	}' "$1/thunk.tsv" "$1/module.tsv"
}
set -- $(union "$T/r/frames")
# The planted run has idle gaps inside modules: the union is below the
# modules' active time (else this case tests nothing).
awk -v u="$1" -v a="$3" 'BEGIN { exit !(u + 1 < a) }' && ok || notok "no idle time inside modules in the planted run: union $1, active $3"
grep -q "^GPU busy over the steady state: thunks running $1 ms of $2 ms wall ($4; the union of each device's thunk intervals" "$T/r/report.txt" && ok ||
	notok "headline GPU busy, want $1 of $2 ms ($4): $(grep -i -E '^(GPU busy|Utilisation)' "$T/r/report.txt")"
grep -q "^Share of time inside XLA programs: modules active $3 ms of $2 ms wall ($5)\.\$" "$T/r/report.txt" && ok ||
	notok "share inside XLA programs, want $3 of $2 ms ($5): $(grep -i 'inside XLA\|modules active' "$T/r/report.txt")"
# The lines in report.html too.
grep -q "<p class=\"lead\">GPU busy over the steady state: thunks running $1 ms" "$T/r/report.html" && ok || notok "GPU busy not in report.html"

done_testing t81-barrier
