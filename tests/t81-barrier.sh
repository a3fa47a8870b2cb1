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

# ---- the shared run: jit__psum is a barrier (99.99% collective wait) ----
# Expected values by awk over the reference's steady frames
# (../shared/golden/combined4: the same steady state as ours, t70).
if have_data; then
	G=$GOLD/combined4
	sh pipelines/report.sh -q -o "$T/p" "$DATA"/*.zip > /dev/null 2> "$T/err" || notok "report of the shared run: $(cat "$T/err")"
	sh pipelines/report.sh -q -B -o "$T/pb" "$T/p/frames" > /dev/null 2> "$T/err" || notok "report -B: $(cat "$T/err")"
	P=$T/p/report.txt
	psum=$(awk -F'\t' '$4 == "jit__psum" { print $1; exit }' "$G/steady_module.tsv")
	# section TITLE FILE: the lines of the section TITLE of report.txt FILE.
	section() { awk -v t="$1" '$0 == t { on = 1; next } on && /^[A-Z]/ && !/^Left out/ { exit } on' "$2"; }
	# GPU busy: the union per device of the step's thunks (the top
	# modules once psum is out: the two ProgramIds of
	# pjit__wrapped_step_fn), over the span of its module rows.
	awk -F'\t' -v bar="$psum" "$AWK_NS"'
	FNR == 1 { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
	f == 1 { if ($c["Name"] == "pjit__wrapped_step_fn") step[$c["ProgramId"]] = 1
		else next
		d = $c["Device"]; s = ns($c["ProjStartMs"]); e = s + ns($c["ProjDurMs"])
		if (!(d in lo) || s < lo[d]) lo[d] = s; if (!(d in hi) || e > hi[d]) hi[d] = e; next }
	$c["ProgramId"] in step { d = $c["Device"]; s = ns($c["ProjStartMs"])
		printf "%s\t%.0f\t%.0f\n", d, s, s + ns($c["ProjDurMs"]) + ns($c["ProjDurHiddenMs"]) }
	END { for (d in lo) w += hi[d] - lo[d]; printf "%.6f\n", w / 1e6 > "/dev/stderr" }' \
	    "$G/steady_module.tsv" "$G/steady_thunk.tsv" 2> "$T/wall" > "$T/iv"
	sort -t "$(printf '\t')" -k1,1n -k2,2n "$T/iv" |
	    awk -F'\t' -v w="$(cat "$T/wall")" '$1 != d || $2 > ce { if (d != "") u += ce - cs; d = $1; cs = $2; ce = $3; next }
	    $3 > ce { ce = $3 } END { u += ce - cs; printf "%.2f %.2f %.2f%%\n", u / 1e6, w, 100 * u / 1e6 / w }' > "$T/busy"
	read -r bu bw bp < "$T/busy"
	g() { awk -v v="$1" 'BEGIN { i = index(v, "."); w = substr(v, 1, i - 1); g = ""; while (length(w) > 3) { g = "," substr(w, length(w) - 2) g; w = substr(w, 1, length(w) - 3) }; print w g substr(v, i) }'; }
	grep -q "^GPU busy over the steady state, barriers left out: thunks running $(g "$bu") ms of $(g "$bw") ms wall ($bp;" "$P" && ok ||
		notok "shared run GPU busy, want $(g "$bu") of $(g "$bw") ms ($bp): $(grep '^GPU busy' "$P")"
	# GPU time by HLO operation: all-reduce-start holds the step's
	# all-reduces alone (psum's 8 s left out), and does not lead.
	ar=$(awk -F'\t' -v bar="$psum" 'NR > 1 && $1 != bar && $3 ~ /^all-reduce-start/ { s += $8 } END { printf "%.3f", s }' "$G/steady_thunk.tsv")
	section 'GPU time by HLO operation' "$P" > "$T/op"
	grep -q "^  all-reduce-start  *$ar  " "$T/op" && ok || notok "opcode all-reduce-start, want $ar ms: $(grep all-reduce "$T/op")"
	sed -n 4p "$T/op" | grep -q '^  fusion ' && ok || notok "opcode table does not lead with fusion: $(sed -n 4p "$T/op")"
	grep -q "^Left out as barrier: jit__psum ($(printf '%.12s' "$psum")), [0-9,.]* ms of module time" "$T/op" && ok || notok "opcode table names no barrier left out"
	# The thunks: the first of the reference's thunk summary that is not
	# psum's leads.
	top=$(awk -F'\t' -v bar="$psum" 'NR > 1 && $1 != bar { print $2; exit }' "$G/thunk_summary.tsv")
	section 'The thunks with the most GPU time' "$P" > "$T/th"
	sed -n 4p "$T/th" | grep -q "^  $top " && ok || notok "top thunk, want $top: $(sed -n 4p "$T/th")"
	grep "$(printf '%.12s' "$psum")" "$T/th" | grep -v '^Left out' | grep -q . && notok "a psum thunk in the thunk table" || ok
	grep -q '^Left out as barrier: the 2 thunk(s) of jit__psum' "$T/th" && ok || notok "thunk table names no barrier left out: $(tail -2 "$T/th")"
	# Hidden communication: "(all)" over the steady collectives that are
	# not psum's; psum's as a row of its own.
	awk -F'\t' -v bar="$psum" 'NR == 1 { next } { k = $1 == bar; n[k]++; h[k] += $13; t[k] += $8 + $13 }
	END { printf "(all) %d %.3f %.3f %.2f%%\n", n[0], h[0], t[0], 100 * h[0] / t[0]; printf "barrier %d %.3f %.3f %.2f%%\n", n[1], h[1], t[1], 100 * h[1] / t[1] }' \
	    "$G/steady_communication.tsv" > "$T/hid"
	section 'Communication hidden behind compute' "$P" > "$T/hc"
	awk '/^  \(all\) / { print "(all)", $2, $3, $4, $5 } /^  \(barrier jit__psum/ { n = NF; print "barrier", $(n - 3), $(n - 2), $(n - 1), $n }' "$T/hc" | tr -d , > "$T/hgot"
	cmp -s "$T/hid" "$T/hgot" && ok || notok "hidden communication: want $(cat "$T/hid"), got $(cat "$T/hgot")"
	# The headline's hidden share of the working module is the "(all)"
	# row's.
	grep -q "; $(awk 'NR == 1 { print $5 }' "$T/hid") of its communication hidden behind compute" "$P" && ok || notok "headline hidden share is not (all)'s"
	# Stragglers: no row of psum, one line naming it.
	section 'Which device makes the others wait, per module: per step, + is late (slower or later than its peers)' "$P" > "$T/st"
	! grep -q '^  jit__psum' "$T/st" && grep -q '^Left out as barrier: the 4 row(s) (module, device) of jit__psum' "$T/st" && ok ||
		notok "straggler table: $(head -5 "$T/st")"
	# -B keeps them: the tables of the sections (the reference's).
	section 'GPU time by HLO operation' "$T/pb/report.txt" | sed -n 4p | grep -q '^  all-reduce-start ' && ok || notok "-B: opcode table without the barrier"
	! grep -q '^Left out as barrier' "$T/pb/report.txt" && grep -q '^  jit__psum (' "$T/pb/report.txt" && ok || notok "-B left barriers out"
else
	skip "shared run: $DATA not found"
fi

# ---- nsysjax-diff: barriers out of the total, the tests and the gate ----
# Process 0 against process 3 of the shared run: psum's all-reduce waits
# ~0.5 ms a step on process 0 and ~938 ms on process 3 (waiting for the
# others), one instance seen from both sides.  The total without it is
# the step's, by awk over the reference's steady thunk frame: the time of
# every module but psum on device 0, and on device 3.
if have_data; then
	sh pipelines/diff.sh -o "$T/d03" "$DATA/pax_fsdp4_4proc_proc0.zip" -- "$DATA/pax_fsdp4_4proc_proc3.zip" > "$T/d03.out" 2> /dev/null
	read -r b a <<EOF2
$(awk -F'\t' -v bar="$psum" "$AWK_NS"'NR > 1 && $1 != bar && ($5 == 0 || $5 == 3) { s[$5] += ns($8) } END { printf "%.3f %.3f\n", s[0] / 1e6, s[3] / 1e6 }' "$GOLD/proc0/steady_thunk.tsv" 2>/dev/null)
EOF2
	# (proc0's golden holds device 0 alone: process 3's from combined4)
	a=$(awk -F'\t' -v bar="$psum" "$AWK_NS"'NR > 1 && $1 != bar && $5 == 3 { s += ns($8) } END { printf "%.3f", s / 1e6 }' "$G/steady_thunk.tsv")
	# (within 0.01 ms: the reference's steady state of one process
	# leaves out a few one-off modules of 0.002 ms that ours keeps)
	grep '^total' "$T/d03.out" | awk -v b="$b" -v a="$a" '{ x = $10; y = $13 } END { d = x - b; e = y - a; exit !(/barriers left out$/ && d * d < 1e-4 && e * e < 1e-4) }' && ok ||
		notok "diff 0 vs 3: want $b -> $a ms without psum: $(grep '^total' "$T/d03.out")"
	grep -q '^left out as barrier (collective wait, not work): jit__psum \[6f8097e2\]' "$T/d03.out" && ok || notok "diff 0 vs 3 names no barrier: $(cat "$T/d03.out")"
	awk -F'\t' '$1 == "jit__psum" && $5 != "" { bad = 1 } $1 == "(barriers)" { n++ } END { exit bad || n != 1 }' "$T/d03/modules.tsv" 2> /dev/null ||
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == "jit__psum" && $c["PValue"] != "" { bad = 1 } $1 == "(barriers)" { n++ } END { exit bad || n != 1 }' "$T/d03/modules.tsv" &&
		ok || notok "modules.tsv: psum tested or no (barriers) row"
	# -B: the total as before, psum in it.
	sh pipelines/diff.sh -B -o "$T/d03b" "$DATA/pax_fsdp4_4proc_proc0.zip" -- "$DATA/pax_fsdp4_4proc_proc3.zip" > "$T/d03b.out" 2> /dev/null
	grep '^total' "$T/d03b.out" | grep -v 'barriers left out' | grep -q '+753\.' && ok || notok "-B: $(grep '^total' "$T/d03b.out")"
	# A gated self-diff of the four processes: the 0.1% of -f is taken of
	# the time without psum, so the step's thunks of at least 0.1% of it
	# are tested (counted here by awk; psum's 8 s made it 8).
	sh pipelines/diff.sh -t 5 -o "$T/self" "$DATA"/*.zip -- "$DATA"/*.zip > "$T/self.out" 2> /dev/null
	want=$(awk -F'\t' -v bar="$psum" "$AWK_NS"'NR > 1 && $1 != bar { t[$1 "\t" $3] += ns($8); all += ns($8) } END { for (k in t) n += 2 * t[k] >= 0.001 * 2 * all; print n }' "$G/steady_thunk.tsv")
	grep -q "^items: 5158 (5158 in both runs, 0 added, 0 removed); $want tested" "$T/self.out" && [ "$want" -gt 100 ] && ok ||
		notok "self-diff: want $want tested: $(grep '^items' "$T/self.out")"
fi

done_testing t81-barrier
