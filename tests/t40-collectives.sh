#!/bin/sh
# nsysjax-collectives: bandwidth columns and summaries against the
# reference's golden outputs; filter behaviour; bad input.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
C=$BIN/nsysjax-collectives
K5=ProgramId,ProgramExecution,Name,ThunkExecution,Device
BW=AlgorithmBandwidthGBPerSec,BusBandwidthGBPerSec

# golden_summary TXT OURS: every cell "mean(u)" of the reference's text
# bandwidth table agrees with our mean and standard error to the digits
# shown (uncertainties' shorthand: "(1.9)" is absolute, "(12)" counts
# units of the mean's last digit).
golden_summary() {
	awk -F'\t' '
	FILENAME == ARGV[1] {
		if (FNR > 1) { mean[$1, $2] = $4; se[$1, $2] = $5 }
		next
	}
	FNR == 1 || done { next }
	FNR == 2 { gsub(/ /, ""); nc = split($0, head, "|"); next }
	/^\+/ { done = 1; next }
	{
		line = $0; gsub(/ /, "", line); split(line, cell, "|")
		size = cell[1]; gsub(/,/, "", size)
		for (i = 2; i <= nc; i++) {
			if (cell[i] ~ /^-+$/) { if ((head[i], size) in mean) { print "extra " head[i] " " size; bad++ }; continue }
			if (!match(cell[i], /^[0-9.]+\(/)) { print "cannot read " cell[i]; bad++; continue }
			x = substr(cell[i], 1, RLENGTH - 1); u = substr(cell[i], RLENGTH + 1); sub(/\)$/, "", u)
			d = index(x, ".") ? length(x) - index(x, ".") : 0
			if (index(u, ".")) { du = length(u) - index(u, "."); uv = u + 0 }
			else { du = d; uv = u * 10 ^ -d }
			k = head[i] SUBSEP size
			if (!(k in mean)) { print "missing " head[i] " " size; bad++; continue }
			dm = mean[k] - x; if (dm < 0) dm = -dm
			ds = se[k] - uv; if (ds < 0) ds = -ds
			if (dm > 0.5 * 10 ^ -d * 1.000001 || ds > 0.5 * 10 ^ -du * 1.000001) {
				print "differs " k ": golden " cell[i] ", ours " mean[k] " +- " se[k]; bad++ }
			n++
		}
	}
	END { print n " cells compared"; exit bad > 0 || n == 0 }
	' "$2" "$1"
}

# golden_hidden TXT OURS: the reference's per-collective and overall
# hidden-to-total ratios.
golden_hidden() {
	awk -F'\t' '
	FILENAME == ARGV[1] { if (FNR > 1) r[$1] = $5; next }
	/^\| +[a-z-]+ +\| +[0-9.]+ +\|$/ {
		split($0, c, "|"); name = c[2]; v = c[3]; gsub(/ /, "", name); gsub(/ /, "", v)
		d = r[name] - v; if (d < 0) d = -d
		if (!(name in r) || d > 1e-9 * v) { print "differs " name ": " v " vs " r[name]; bad++ }
		n++
	}
	/^Overall HiddenMs to TotalMs:/ {
		v = $0; sub(/.*: /, "", v); d = r["(all)"] - v; if (d < 0) d = -d
		if (d > 0.5e-4) { print "overall differs: " v " vs " r["(all)"]; bad++ }
		n++
	}
	END { exit bad > 0 || n < 2 }
	' "$2" "$1"
}

if have_data; then
	mkdir -p "$T/c4" "$T/p0"
	$X -n proc0,proc1,proc2,proc3 -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip || notok "extract combined4"
	$X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip" || notok "extract proc0"
	for d in c4:combined4 p0:proc0; do
		ours=${d%%:*} gold=${d#*:}
		$C "$T/$ours/communication.tsv" > "$T/$ours.comm" || notok "collectives $gold"
		check "bandwidth $gold" awk -v KEYS=$K5 -v REL="$BW" -f tests/cmpframe.awk \
		    "$GOLD/$gold/communication_clean.tsv" "$T/$ours.comm"
	done
	# The thunk frame gives the same communication rows; -d drops the rest.
	# (Columns by name: the thunk frame has more than the communication frame.)
	BWC="ProgramId ProgramExecution Name ThunkExecution Device AlgorithmBandwidthGBPerSec BusBandwidthGBPerSec"
	$C -d "$T/c4/thunk.tsv" > "$T/c4.thunkbw" || notok "collectives -d thunk frame"
	col "$T/c4.thunkbw" $BWC | sort > "$T/a"
	col "$T/c4.comm" $BWC | sort > "$T/b"
	cmp -s "$T/a" "$T/b" && ok || notok "thunk frame -d differs from communication frame"
	n=$($C "$T/c4/thunk.tsv" | awk -F'\t' 'NR > 1 && $13 == 0 && $19 != "" { n++ } END { print n + 0 }')
	[ "$n" -eq 0 ] && ok || notok "compute rows have bandwidth"
	[ "$($C "$T/c4/thunk.tsv" | wc -l)" -eq "$(wc -l < "$T/c4/thunk.tsv")" ] && ok || notok "rows lost"
	# Running twice rewrites the columns in place: the same bytes.
	$C "$T/c4.comm" | cmp -s - "$T/c4.comm" && ok || notok "not idempotent"

	# One SPMD step in two ProgramIds (process 3 autotuned its own
	# kernels): -m joins them.  Derived from the frames by awk: every
	# device of the step's ProgramIds runs the same collectives in the
	# same start order; an instance is (module name, execution, Name,
	# ThunkExecution) over every ProgramId of that module, its wait the
	# spread of ProjDurMs over its rows.
	M="$T/c4/module.tsv" CF="$T/c4/communication.tsv"
	seqs=$(awk -F'\t' 'FILENAME == ARGV[1] { if (FNR > 1) mod[$1] = $4; next }
	    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    mod[$1] == "pjit__wrapped_step_fn" && $c["CollectiveSize"] > 1 {
	        printf "%s\t%s\t%s\t%.9f\t%s|%s\n", $1, $2, $c["Device"], $c["ProjStartMs"], $c["Name"], $c["ThunkExecution"] }' "$M" "$CF" |
	    sort -t "$(printf '\t')" -k1,1 -k2,2n -k3,3n -k4,4g |
	    awk -F'\t' '{ k = $1 " " $2 " " $3; s[k] = s[k] " " $5; n[k]++ } END { for (k in s) { split(k, a, " "); print a[1], n[k], s[k] } }' | sort -u |
	    awk '{ p[$1]++; c[$2]++; $1 = ""; $2 = ""; q[$0]++ } END { for (k in p) np++; for (k in c) nc = nc " " k; for (k in q) nq++; print np, nc, nq }')
	[ "$seqs" = "2  23 1" ] && ok || notok "shared run: the step's ProgramIds, collectives per device, sequences: $seqs"
	$C -m "$M" -s waits "$CF" > "$T/wj" 2> "$T/wj.err" || notok "-m waits"
	awk -F'\t' 'FILENAME == ARGV[1] { if (FNR > 1) mod[$1] = $4; next }
	    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { k = mod[$1] SUBSEP $2 SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]; d = $c["ProjDurMs"]
	      if (!(k in n) || d < lo[k]) lo[k] = d; if (!(k in n) || d > hi[k]) hi[k] = d
	      if (!(k in n)) { col[k] = $c["Collective"]; sz[k] = $c["MessageSize"] }; n[k]++ }
	    END { for (k in n) if (n[k] > 1) printf "%s\t%.6f\t%s\t%d\n", col[k], hi[k] - lo[k], sz[k], n[k] }' "$M" "$CF" |
	    sort > "$T/wwant"
	awk -F'\t' 'NR > 1 { printf "%s\t%.6f\t%s\t%s\n", $1, $2, $3, $4 }' "$T/wj" | sort > "$T/wgot"
	paste "$T/wwant" "$T/wgot" | awk -F'\t' '$1 != $5 || $3 != $7 || $4 != $8 || $2 - $6 > 2e-6 || $6 - $2 > 2e-6 { bad++ }
	    END { exit bad > 0 || NR == 0 }' && [ "$(wc -l < "$T/wwant")" -eq "$(wc -l < "$T/wgot")" ] && ok ||
		notok "shared run: -m waits differ from the frames' 4-device instances: $(diff "$T/wwant" "$T/wgot" | head -4)"
	# The step's instances: 23 per execution, each on the 4 devices
	# (beside them, jit__psum's, one per row of device 0).
	n=$(awk -F'\t' 'FILENAME == ARGV[1] { if (FNR > 1) { mod[$1] = $4; if ($4 == "pjit__wrapped_step_fn" && $3 == 0) e[$2]++ }; next }
	    FNR > 1 && mod[$1] == "jit__psum" && $5 == 0 { p++ } END { print 23 * length(e) + p }' "$M" "$CF")
	got=$(awk -F'\t' 'NR > 1 && $4 == 4 { n++ } END { print n + 0 }' "$T/wj")
	bad=$(awk -F'\t' 'NR > 1 && $4 != 4 { n++ } END { print n + 0 }' "$T/wj")
	[ "$got" -eq "$n" ] && [ "$bad" -eq 0 ] && ok || notok "shared run: $got 4-device instances of the step (want $n), $bad on fewer devices"
	# One note names the two ProgramIds; no instance short of devices.
	[ "$(grep -c 'joined' "$T/wj.err")" -eq 1 ] && grep 'joined' "$T/wj.err" | grep -q 04555b1419fd &&
	    grep 'joined' "$T/wj.err" | grep -q 25fa0b3e673a && ! grep -q 'fewer devices' "$T/wj.err" && ok ||
		notok "shared run: -m notes: $(cat "$T/wj.err")"
	# Without -m the reference's instances: those short of their
	# CollectiveSize counted (awk, per ProgramId) and said.
	want=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { k = $1 SUBSEP $2 SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]; n[k]++; cs[k] = $c["CollectiveSize"] }
	    END { for (k in n) if (n[k] < cs[k]) m++; print m + 0 }' "$CF")
	$C -s waits "$CF" 2>&1 > /dev/null | grep -q "^nsysjax-collectives: $want collective instances have fewer devices" && [ "$want" -gt 0 ] && ok ||
		notok "shared run: no note of the $want instances short of devices"

	# The summaries of the reference's steady state (its input, not ours).
	$C -s bandwidth "$GOLD/combined4/steady_communication.tsv" > "$T/bw" || notok "summary"
	check "bandwidth table = communication.txt" golden_summary "$GOLD/combined4/communication.txt" "$T/bw"
	$C -s hidden "$GOLD/combined4/steady_communication.tsv" > "$T/hid" || notok "hidden"
	check "hidden table = communication.txt" golden_hidden "$GOLD/combined4/communication.txt" "$T/hid"
	# The three from one pass (-o): the golden tables too, and the waits.
	$C -s waits,hidden,bandwidth -o "$T/all" "$GOLD/combined4/steady_communication.tsv" || notok "-s list -o"
	check "-o: bandwidth table = communication.txt" golden_summary "$GOLD/combined4/communication.txt" "$T/all/bandwidth.tsv"
	check "-o: hidden table = communication.txt" golden_hidden "$GOLD/combined4/communication.txt" "$T/all/hidden.tsv"
	$C -s waits "$GOLD/combined4/steady_communication.tsv" | cmp -s - "$T/all/waits.tsv" && ok ||
		notok "-o: waits not those of -s waits"
	# Our own pipeline: the steady state of nsysjax-warmup (timestamps do
	# not matter to either table, so alignment is not needed).
	W=$BIN/nsysjax-warmup
	$W -c "$T/c4/compile.tsv" "$T/c4/thunk.tsv" | $C -s bandwidth > "$T/bw2" || notok "pipeline"
	check "pipeline bandwidth table = communication.txt" golden_summary "$GOLD/combined4/communication.txt" "$T/bw2"
	$W -c "$T/c4/compile.tsv" "$T/c4/thunk.tsv" | $C -s hidden > "$T/hid2" || notok "pipeline"
	check "pipeline hidden table = communication.txt" golden_hidden "$GOLD/combined4/communication.txt" "$T/hid2"
	# One process works too (the reference asserts there).
	$C -s bandwidth "$T/p0/communication.tsv" > "$T/bw0" && [ "$(wc -l < "$T/bw0")" -gt 5 ] && ok ||
		notok "single-process summary"
	awk -F'\t' 'NR > 1 && ($4 < 0 || $3 < 1) { bad++ } END { exit bad > 0 }' "$T/bw0" && ok || notok "summary invariants"
else
	skip "golden comparisons: $DATA not found"
fi

# Hand-made rows: the nccl-tests factors.
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tMessageSize\tCollective\tCollectiveSize\tProjDurMs\tProjDurHiddenMs\tX\n' > "$T/h.tsv"
printf 'p\t0\ta\t0\t1000000\tall-reduce\t4\t0.5\t0.5\tx\\ty\n' >> "$T/h.tsv"
printf 'p\t0\tb\t0\t1000000\tall-gather\t4\t1\t0\t\n' >> "$T/h.tsv"
printf 'p\t0\tc\t0\t1000000\treduce-scatter\t8\t1\t0\tz\n' >> "$T/h.tsv"
printf 'p\t0\td\t0\t1000000\tcollective-permute\t2\t1\t0\tz\n' >> "$T/h.tsv"
printf 'p\t0\te\t0\t1000000\tall-to-all\t4\t0\t0\tz\n' >> "$T/h.tsv"
$C "$T/h.tsv" > "$T/h.out"
got=$(awk -F'\t' 'NR > 1 { printf("%s %s;", $11, $12) }' "$T/h.out")
[ "$got" = "1 1.5;4 3;8 7;1 1; ;" ] && ok || notok "factors: got '$got'"
# Other columns pass through untouched, escapes included.
awk -F'\t' 'NR == 2 { exit !($10 == "x\\ty") }' "$T/h.out" && ok || notok "pass-through"

# The join on hand-made rows.  A (devices 0, 1) and B (device 2) run
# module "step": the same collectives in the same order: one step, its
# instances over 3 devices (all-gather wait 4.5 - 1 = 3.5 ms, where A
# alone waits 1 ms).  C and D (module "step2") run them in another order;
# E and F (module "step3") share device 7: neither pair is joined.
printf 'ProgramId\tProgramExecution\tDevice\tName\n' > "$T/jm.tsv"
for r in A:0:step A:1:step B:2:step C:3:step2 C:4:step2 D:5:step2 E:6:step3 E:7:step3 F:7:step3; do
	IFS=: read -r p d m <<EOF
$r
EOF
	printf '%s\t0\t%s\t%s\n' "$p" "$d" "$m" >> "$T/jm.tsv"
done
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tProjDurHiddenMs\tMessageSize\tCollective\tCollectiveSize\n' > "$T/jc.tsv"
# program device ag-start ag-dur rs-start rs-dur
while read -r p d as ad rs rd; do
	printf '%s\t0\tag\t0\t%s\t%s\t%s\t0\t1000\tall-gather\t3\n' "$p" "$d" "$as" "$ad" >> "$T/jc.tsv"
	printf '%s\t0\trs\t0\t%s\t%s\t%s\t0\t1000\treduce-scatter\t3\n' "$p" "$d" "$rs" "$rd" >> "$T/jc.tsv"
done <<EOF
A 0 1 1 10 0.5
A 1 1 2 10 0.5
B 2 1 4.5 10 0.25
C 3 1 1 10 0.5
C 4 1 1.25 10 0.875
D 5 10 9 1 9
E 6 1 1 10 0.5
E 7 1 1.5 10 0.5
F 7 1 6 10 6
EOF
$C -m "$T/jm.tsv" -s waits "$T/jc.tsv" > "$T/jw" 2> "$T/jw.err" || notok "-m on hand-made rows: $(cat "$T/jw.err")"
printf 'Collective\tWaitMs\tMessageSize\tDevices\nall-gather\t0.25\t1000\t2\nall-gather\t0.5\t1000\t2\nall-gather\t3.5\t1000\t3\nreduce-scatter\t0\t1000\t2\nreduce-scatter\t0.25\t1000\t3\nreduce-scatter\t0.375\t1000\t2\n' > "$T/jwant"
cmp -s "$T/jw" "$T/jwant" && ok || notok "-m waits: $(diff "$T/jwant" "$T/jw")"
[ "$(grep -c joined "$T/jw.err")" -eq 1 ] && grep -q "^nsysjax-collectives: module step: ProgramId B joined to A (the same 2 collectives" "$T/jw.err" && ok ||
	notok "-m note: $(cat "$T/jw.err")"
# Without -m, A's all-gather waits over its own 2 devices.
$C -s waits "$T/jc.tsv" 2> /dev/null | awk -F'\t' '$1 == "all-gather" && $4 == 3 { bad++ } $1 == "all-gather" && $2 == 1 { a++ } END { exit bad > 0 || a != 1 }' &&
	ok || notok "without -m: joined anyway"
# The bandwidth table joins too: one instance of A+B per collective (its
# fastest device, B's: 3 x 1000 B / 4.5 ms x 2/3 for the all-gather).
n=$($C -m "$T/jm.tsv" -s bandwidth "$T/jc.tsv" 2> /dev/null | awk -F'\t' '$1 == "all-gather" { print $3 }')
[ "$n" = 5 ] && ok || notok "-m bandwidth: $n all-gather instances (want 5: A+B, C, D, E, F)"
n=$($C -s bandwidth "$T/jc.tsv" 2> /dev/null | awk -F'\t' '$1 == "all-gather" { print $3 }')
[ "$n" = 6 ] && ok || notok "bandwidth without -m: $n all-gather instances (want 6)"
expect_error 2 "-m: no summary" $C -m "$T/jm.tsv" "$T/jc.tsv"
cut -f 1-4,6- "$T/jc.tsv" > "$T/jnodev.tsv"
expect_error 1 "jnodev.tsv: missing column 'Device'" $C -m "$T/jm.tsv" -s waits "$T/jnodev.tsv"
expect_error 1 "nosuch.tsv" $C -m "$T/nosuch.tsv" -s waits "$T/jc.tsv"

# nsysjax-stats -m: the stragglers of the same join.  A (devices 0, 1)
# and B (device 2) run module "step", one execution, the same collective
# "ag" (CollectiveSize 3): one step.  By hand, from stats.h's definition
# (a device's bias: its time less the mean over the devices at that
# point): module starts 0, 1, 5 (mean 2) and durations 10, 12, 8 (mean
# 10) give StartBiasMs -2, -1, 3 and DurBiasMs 0, 2, -2; the compute
# thunk f starts 1, 2, 6 (mean 3) and ends 2, 3, 10 (mean 5): ThunkBiasMs
# the mean of the start and end biases, (-2-3)/2, (-1-2)/2, (3+5)/2, and
# OutlierScoreMs |start bias| + |end bias|: 5, 3, 8.  Rows under A (the
# representative), by decreasing score.  Without -m, per ProgramId: A's
# against their own means (starts 0.5, durations 11, f's start 1.5 and
# end 2.5), B alone (all 0).
S=$BIN/nsysjax-stats
printf 'ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs\n' > "$T/sm.tsv"
printf 'A\t0\t0\tstep\t0\t10\nA\t0\t1\tstep\t1\t12\nB\t0\t2\tstep\t5\t8\n' >> "$T/sm.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tCommunication\tCollectiveSize\n' > "$T/st.tsv"
while read -r p d fs fd as; do
	printf '%s\t0\tf\t0\t%s\t%s\t%s\t0\t\n' "$p" "$d" "$fs" "$fd" >> "$T/st.tsv"
	printf '%s\t0\tag\t0\t%s\t%s\t1\t1\t3\n' "$p" "$d" "$as" >> "$T/st.tsv"
done <<EOF
A 0 1 1 4
A 1 2 1 5
B 2 6 4 9
EOF
$S -t stragglers -M "$T/sm.tsv" -m "$T/sm.tsv" "$T/st.tsv" > "$T/sj" 2> "$T/sj.err" || notok "stats -m: $(cat "$T/sj.err")"
printf 'ProgramId\tName\tDevice\tExecutions\tStartBiasMs\tDurBiasMs\tThunkBiasMs\tOutlierScoreMs\nA\tstep\t2\t1\t3\t-2\t4\t8\nA\tstep\t0\t1\t-2\t0\t-2.5\t5\nA\tstep\t1\t1\t-1\t2\t-1.5\t3\n' > "$T/sjwant"
cmp -s "$T/sj" "$T/sjwant" && ok || notok "stats -m stragglers: $(diff "$T/sjwant" "$T/sj")"
[ "$(grep -c joined "$T/sj.err")" -eq 1 ] && grep -q "^nsysjax-stats: module step: ProgramId B joined to A (the same 1 collectives" "$T/sj.err" && ok ||
	notok "stats -m note: $(cat "$T/sj.err")"
$S -t stragglers -M "$T/sm.tsv" "$T/st.tsv" > "$T/sn" 2> "$T/sn.err"
printf 'ProgramId\tName\tDevice\tExecutions\tStartBiasMs\tDurBiasMs\tThunkBiasMs\tOutlierScoreMs\nA\tstep\t0\t1\t-0.5\t-1\t-0.5\t1\nA\tstep\t1\t1\t0.5\t1\t0.5\t1\nB\tstep\t2\t1\t0\t0\t0\t0\n' > "$T/snwant"
cmp -s "$T/sn" "$T/snwant" && [ ! -s "$T/sn.err" ] && ok || notok "stats without -m: $(diff "$T/snwant" "$T/sn"; cat "$T/sn.err")"
# A compute thunk g that B alone runs stays its own instance (one row: its
# biases 0): device 2's ThunkBiasMs becomes (3 + 5 + 0 + 0) / 4 = 2, its
# score 8 + 0; the other columns as before.
{ cat "$T/st.tsv"; printf 'B\t0\tg\t0\t2\t7\t1\t0\t\n'; } > "$T/stg.tsv"
$S -t stragglers -M "$T/sm.tsv" -m "$T/sm.tsv" "$T/stg.tsv" 2> /dev/null | sed -n 2p > "$T/sg"
printf 'A\tstep\t2\t1\t3\t-2\t2\t8\n' | cmp -s - "$T/sg" && ok || notok "stats -m, a Name B alone has: $(cat "$T/sg")"
expect_error 2 "-m: only the stragglers" $S -t thunks -M "$T/sm.tsv" -m "$T/sm.tsv" "$T/st.tsv"
# The late table of the same join, by hand (stats.h): f's durations 1,
# 1, 4 give LateMs 1 - (1 + 4) / 2 = -1.5, -1.5 and 4 - (1 + 1) / 2 = 3;
# ag starts 4, 5, 9: device 2 arrives last, its peers wait 9 - (4 + 5) /
# 2 = 4.5 on average (WaitCausedMs); the start and thunk biases and the
# outlier score (per step, one step here) as above.  By wait caused,
# then late time: device 2, then 0 and 1 (ties: by device).
$S -t late -M "$T/sm.tsv" -m "$T/sm.tsv" "$T/st.tsv" > "$T/lj" 2> /dev/null
printf 'ProgramId\tName\tDevice\tSteps\tLateMs\tWaitCausedMs\tStartBiasMs\tThunkBiasMs\tOutlierScoreMs\nA\tstep\t2\t1\t3\t4.5\t3\t4\t8\nA\tstep\t0\t1\t-1.5\t0\t-2\t-2.5\t5\nA\tstep\t1\t1\t-1.5\t0\t-1\t-1.5\t3\n' > "$T/ljwant"
cmp -s "$T/lj" "$T/ljwant" && ok || notok "stats -m late: $(diff "$T/ljwant" "$T/lj")"
# A device planted slow in one thunk per step: 4 devices, 6 steps of
# jit_step (fusion.a 2 ms, the all-reduce that waits for the last
# device, fusion.b 1 ms); device 1's fusion.a takes P = 5 ms more every
# step, the others' up to 0.05 ms more (a fixed pattern).  Truth by
# construction: device 1 is late by 5 ms a step and its peers wait for
# it about as long at the all-reduce; the table ranks it first, late
# and its wait within 10% of 5 ms, positive, and every other device
# early (LateMs below 0).
awk -v P=5 'BEGIN { OFS = "\t"
	print "ProgramId", "ProgramExecution", "Device", "Name", "ProjStartMs", "ProjDurMs", "NumThunks" > "'"$T"'/pm.tsv"
	print "ProgramId", "ProgramExecution", "Name", "ThunkExecution", "Device", "ProjStartMs", "ProjDurMs", "Communication", "CollectiveSize"
	for (e = 0; e < 6; e++) {
		t0 = 20 * e; m = 0
		for (d = 0; d < 4; d++) { a[d] = 2 + ((d * 7 + e * 3) % 6) / 100 + (d == 1 ? P : 0); if (t0 + a[d] > m) m = t0 + a[d] }
		for (d = 0; d < 4; d++) {
			print "S", e, "fusion.a", 0, d, t0, a[d], 0, ""
			print "S", e, "all-reduce-start", 0, d, t0 + a[d], m + 0.1 - t0 - a[d], 1, 4
			print "S", e, "fusion.b", 0, d, m + 0.1, 1, 0, ""
			print "S", e, d, "jit_step", t0, m + 1.1 - t0, 3 > "'"$T"'/pm.tsv"
		}
	} }' > "$T/pt.tsv"
$S -t late -M "$T/pm.tsv" "$T/pt.tsv" > "$T/pl" 2> "$T/pl.err"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	NR == 2 { first = ($c["Device"] == 1 && $c["Steps"] == 6 && $c["LateMs"] > 4.5 && $c["LateMs"] < 5.5 && $c["WaitCausedMs"] > 4.5 && $c["WaitCausedMs"] < 5.5); next }
	$c["LateMs"] >= 0 { bad = 1 }
	END { exit !(first && !bad && NR == 5) }' "$T/pl" && ok || notok "planted straggler: $(cat "$T/pl" "$T/pl.err")"
# The stragglers table of the reference keeps its columns (what the
# report compares with the reference); its start bias alone says
# nothing of device 1 (every device starts the step together).
$S -t stragglers -M "$T/pm.tsv" "$T/pt.tsv" | awk -F'\t' 'NR == 1 { h = $0 } $3 == 1 { sb = $5 }
	END { exit !(h == "ProgramId\tName\tDevice\tExecutions\tStartBiasMs\tDurBiasMs\tThunkBiasMs\tOutlierScoreMs" && sb == 0) }' && ok ||
	notok "planted straggler: the stragglers table changed"

# expect_error STATUS PATTERN CMD...
expect_error 2 usage $C -x
expect_error 2 "unknown summary" $C -s nope
cut -f 1-6,8- "$T/h.tsv" > "$T/nosize.tsv"
expect_error 1 "nosize.tsv: missing column 'CollectiveSize'" $C "$T/nosize.tsv"
sed '3s/1000000/lots/' "$T/h.tsv" > "$T/nan.tsv"
expect_error -r 1 "nan.tsv:3: column MessageSize: not an integer: 'lots'" $C "$T/nan.tsv"
sed '4s/\tz$//' "$T/h.tsv" > "$T/ragged.tsv"
expect_error -r 1 "ragged.tsv:4: 9 fields, the header has 10" $C "$T/ragged.tsv"
sed '2s/all-reduce/all-nothing/' "$T/h.tsv" > "$T/kind.tsv"
expect_error -r 1 "kind.tsv:2: column Collective: unknown collective 'all-nothing'" $C "$T/kind.tsv"
expect_error 1 "nosuch.tsv: cannot open" $C "$T/nosuch.tsv"
# Rows before a bad one are written; the status says it failed.
$C "$T/ragged.tsv" > "$T/o" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/o")" -eq 3 ] && ok || notok "partial stream: exit $rc"
# A reader that stops early is no failure.
if have_data; then
	$C "$T/c4/thunk.tsv" 2> "$T/e" | head -1 > /dev/null
	[ ! -s "$T/e" ] && ok || notok "| head -1 printed: $(cat "$T/e")"
fi
done_testing t40-collectives
