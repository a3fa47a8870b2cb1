#!/bin/sh
# nsysjax-critpath: replay identity (every thunk's recomputed start and
# end equals the aligned frame's, to the ns; the measured step equals the
# module frame's) on the example run, its SQLite exports and the shared
# 4-process run; the planted cases of mkexample -P found with their label
# and size; metamorphic relations on the example; the picture; errors.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
A=$BIN/nsysjax-align
CP=$BIN/nsysjax-critpath
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
EX=${BIN%/bin}/example

# ns(ms) in awk: exact integer ns of a decimal ms string.
NS='function ns(s,   neg, i, f) { neg = s ~ /^-/; sub(/^-/, "", s); i = index(s, ".")
	if (i == 0) f = "000000"; else { f = substr(s, i + 1) "000000"; f = substr(f, 1, 6); s = substr(s, 1, i - 1) }
	return (neg ? -1 : 1) * (s * 1000000 + f) }'

# frames DIR INPUT...: DIR/{thunk,module,hlo,communication}.tsv and
# DIR/corr.tsv (the alignment's corrections).
frames() {
	d=$1; shift
	$X -o "$d" "$@" 2> "$d.err" && $A -o "$d/corr.tsv" "$d/communication.tsv" > /dev/null 2>> "$d.err"
}

# identity DIR TITLE: slack mode's StartMs and DurMs against the thunk
# frame aligned by nsysjax-align -a (ProjDurMs + ProjDurHiddenMs), and
# the measured scenario against the module frame's span.
identity() {
	d=$1 title=$2
	if [ "$(wc -l < "$d/corr.tsv")" -gt 1 ]; then
		$A -a "$d/corr.tsv" "$d/thunk.tsv" > "$d/athunk.tsv" 2> /dev/null
		$A -a "$d/corr.tsv" "$d/module.tsv" > "$d/amodule.tsv" 2> /dev/null
		c="-c $d/corr.tsv"
	else
		cp "$d/thunk.tsv" "$d/athunk.tsv"; cp "$d/module.tsv" "$d/amodule.tsv"; c=
	fi
	# shellcheck disable=SC2086
	if ! $CP $c -m "$d/module.tsv" -H "$d/hlo.tsv" -k "$d/thunk.tsv" > "$d/slack.tsv" 2> "$d/cp.err"; then
		notok "$title: critpath -k failed"; cat "$d/cp.err"; return
	fi
	# ProgramIds joined into one SPMD step (the note names them) are
	# reported as the one they joined: the frames' rows renamed so.
	awk '/ joined to / { for (i = 1; i <= NF && $i !~ /^ProgramIds?$/; i++) ; for (j = i; j <= NF && $j != "joined"; j++) ;
	    for (i++; i < j; i++) print $i, $(j + 2) }' \
	    "$d/cp.err" > "$d/join.map"
	for f in athunk amodule; do
		awk -F'\t' 'BEGIN { OFS = FS } FILENAME == ARGV[1] { split($0, q, " "); to[q[1]] = q[2]; next }
		    FNR > 1 && ($1 in to) { $1 = to[$1] } { print }' "$d/join.map" "$d/$f.tsv" > "$d/$f.j" && mv "$d/$f.j" "$d/$f.tsv"
	done
	awk -F'\t' "$NS"'
	NR == FNR { if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
		if (("CommandBuffer" in c) && $c["CommandBuffer"] != "" && $c["CommandBuffer"] != $c["Name"]) next
		k = $c["ProgramId"] SUBSEP $c["ProgramExecution"] SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"] SUBSEP $c["Device"]
		s[k] = ns($c["ProjStartMs"]); e[k] = s[k] + ns($c["ProjDurMs"]) + ns($c["ProjDurHiddenMs"]); n++; next }
	FNR == 1 { for (i = 1; i <= NF; i++) d[$i] = i; next }
	{ k = $d["ProgramId"] SUBSEP $d["ProgramExecution"] SUBSEP $d["Name"] SUBSEP $d["ThunkExecution"] SUBSEP $d["Device"]
	  m++; x = ns($d["StartMs"]); y = x + ns($d["DurMs"])
	  if (!(k in s) || s[k] != x || e[k] != y) { if (bad++ < 3) print "differs: " $0 " want " s[k] " " e[k] } }
	END { if (m != n) print "rows: " m " of " n; exit bad || m != n }' "$d/athunk.tsv" "$d/slack.tsv" > "$d/id.out"
	if [ -s "$d/id.out" ]; then notok "$title: replay identity of thunks"; head -5 "$d/id.out"; else ok; fi
	# shellcheck disable=SC2086
	$CP $c -m "$d/module.tsv" -H "$d/hlo.tsv" -s "$d/thunk.tsv" > "$d/scen.tsv" 2> /dev/null
	# The step: the latest module end minus the earliest start, or,
	# for an execution without a collective on 2 devices or more (its
	# devices never wait for each other), the longest module.
	awk -F'\t' "$NS"'
	FILENAME == ARGV[1] { if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
		if ($c["Communication"] == 1 && $c["CollectiveSize"] > 1) {
			k = $c["ProgramId"] SUBSEP $c["ProgramExecution"]
			if (++n[k, $c["Name"], $c["ThunkExecution"]] == 2) bar[k] = 1 }; next }
	FILENAME == ARGV[2] { if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
		k = $c["ProgramId"] SUBSEP $c["ProgramExecution"]; s = ns($c["ProjStartMs"]); e = s + ns($c["ProjDurMs"])
		if (!(k in lo) || s < lo[k]) lo[k] = s; if (!(k in hi) || e > hi[k]) hi[k] = e
		if (e - s > own[k]) own[k] = e - s; next }
	FNR == 1 { for (i = 1; i <= NF; i++) d[$i] = i; next }
	$d["Scenario"] == "measured" { k = $d["ProgramId"] SUBSEP $d["ProgramExecution"]; m++
		if (ns($d["MeasuredMs"]) != ns($d["PredictedMs"]) || ns($d["GainMs"]) != 0) { print "predicted: " $0; bad++ }
		want = (k in bar) ? hi[k] - lo[k] : own[k]
		if ((k in lo) && ns($d["MeasuredMs"]) != want) { print "step: " $0 " want " want; bad++ } }
	END { if (m == 0) print "no measured rows"; exit bad || m == 0 }' "$d/athunk.tsv" "$d/amodule.tsv" "$d/scen.tsv" > "$d/st.out"
	if [ -s "$d/st.out" ]; then notok "$title: measured step"; head -5 "$d/st.out"; else ok; fi
}

# The example run, and the same run as SQLite exports.
E=$T/ex
if frames "$E" "$EX/profile/rank0" "$EX/profile/rank1"; then ok; else notok "extract example"; cat "$E.err"; fi
identity "$E" example
S=$T/sq
if frames "$S" "$EX/sqlite/rank0" "$EX/sqlite/rank1"; then ok; else notok "extract sqlite"; cat "$S.err"; fi
identity "$S" "sqlite exports"

# The example as nsys 2026.3 and XLA of 2026 write it (command buffers).
if "$MKEXAMPLE" -L 2026 "$T/l26" 2> /dev/null && frames "$T/l26f" "$T/l26/rank0" "$T/l26/rank1"; then
	ok; identity "$T/l26f" "2026 layout (command buffers)"
else
	notok "2026 layout run"
fi

# The shared 4-process run.
if [ -d "$DATA" ]; then
	P=$T/p4
	if frames "$P" "$DATA"/pax_fsdp4_4proc_proc*.zip; then ok; else notok "extract 4proc"; cat "$P.err"; fi
	identity "$P" "4-process run"
else
	skip "no shared data ($DATA)"
fi

# The shared run's training step in its steady state (aligned, warm-up
# split, as pipelines/critpath.sh has it).  Process 3 compiled it with
# other autotuning (another ProgramId, the same collectives): one 4-device
# step.  Its four reduce-scatters are async-start/done pairs named after
# the wrapped instruction (Communication 1, time hidden under compute):
# off the compute stream, so the path's gaps are the devices' idle time.
cat > "$T/gapbusy.awk" <<'EOF_GAP'
# gapbusy.awk path.tsv thunk.tsv (the thunk rows of the step only): per execution (ProgramExecution) of the
# path, the time of the device's own thunks inside the path's gap
# segments (union of the thunks' intervals, ms), printed "exec busy_ms".
function col(name) { for (i = 1; i <= NF; i++) if ($i == name) return i; return 0 }
FNR == 1 { f++
	if (f == 1) { pe = col("ProgramExecution"); pd = col("Device"); pl = col("Label"); ps = col("StartMs"); pdu = col("DurMs") }
	else { te = col("ProgramExecution"); td = col("Device"); ts = col("ProjStartMs"); tdu = col("ProjDurMs"); th = col("ProjDurHiddenMs") }
	next }
f == 1 && $pl == "gap" { n++; ge[n] = $pe; gd[n] = $pd; gs[n] = $ps; gf[n] = $ps + $pdu; execs[$pe] = 1; next }
f == 1 { execs[$pe] = 1; next }
f == 2 { k = $te SUBSEP $td; m = ++cnt[k]; rs[k, m] = $ts; rf[k, m] = $ts + $tdu + (th ? $th : 0) }
END {
	for (x in execs) busy[x] = 0
	for (g = 1; g <= n; g++) {
		k = ge[g] SUBSEP gd[g]; np = 0
		for (m = 1; m <= cnt[k]; m++) {
			a = rs[k, m] > gs[g] ? rs[k, m] : gs[g]; b = rf[k, m] < gf[g] ? rf[k, m] : gf[g]
			if (b > a) { np++; pa[np] = a; pb[np] = b }
		}
		# union of the pieces: insertion sort by start, then merge
		for (i = 2; i <= np; i++) { a = pa[i]; b = pb[i]; for (j = i - 1; j >= 1 && pa[j] > a; j--) { pa[j + 1] = pa[j]; pb[j + 1] = pb[j] } pa[j + 1] = a; pb[j + 1] = b }
		cs = -1; ce = -1
		for (i = 1; i <= np; i++) {
			if (pa[i] > ce) { if (ce > cs) busy[ge[g]] += ce - cs; cs = pa[i]; ce = pb[i] }
			else if (pb[i] > ce) ce = pb[i]
		}
		if (ce > cs) busy[ge[g]] += ce - cs
	}
	for (x in busy) printf "%s %.6f\n", x, busy[x]
}
EOF_GAP
cat > "$T/plant.awk" <<'EOF_PLANT'
# plant.awk -v pids="A B" -v e=EXEC -v dev=D -v name=NAME -v add=NS thunk.tsv thunk.tsv
# The thunk frame with a straggler planted: NAME (ThunkExecution 0) on
# device DEV in execution EXEC of the step (ProgramIds PIDS) ADD ns
# longer; DEV's rows that start after its end ADD later; on every other
# device the next collective of DEV after it ADD longer (its wait for
# DEV), their rows that start after its end ADD later.
function ms(v) { return sprintf("%d.%06d", int(v / 1000000), v % 1000000) }
FNR == 1 { pass++; if (pass == 1) { for (i = 1; i <= NF; i++) c[$i] = i; n = split(pids, q, " "); for (i = 1; i <= n; i++) inp[q[i]] = 1 }
	else print; next }
!($c["ProgramId"] in inp) || $c["ProgramExecution"] != e { if (pass == 2) print; next }
pass == 1 {
	s = ns($c["ProjStartMs"]); f = s + ns($c["ProjDurMs"]) + ns($c["ProjDurHiddenMs"]); d = $c["Device"]
	if (d == dev && $c["Name"] == name && $c["ThunkExecution"] == 0) xe = f
	nr++; rd[nr] = d; rs[nr] = s; rf[nr] = f; rn[nr] = $c["Name"] SUBSEP $c["ThunkExecution"]
	rc[nr] = $c["Communication"] == 1 && $c["CollectiveSize"] > 1; next }
pass == 2 && !done { done = 1
	best = -1; for (i = 1; i <= nr; i++) if (rd[i] == dev && rc[i] && rs[i] >= xe && (best < 0 || rs[i] < rs[best])) best = i
	coll = rn[best]
	for (i = 1; i <= nr; i++) if (rd[i] != dev && rn[i] == coll) pe[rd[i]] = rf[i] }
pass == 2 {
	s = ns($c["ProjStartMs"]); d = $c["Device"]; k = $c["Name"] SUBSEP $c["ThunkExecution"]
	if (d == dev) {
		if (k == name SUBSEP 0) $c["ProjDurMs"] = ms(ns($c["ProjDurMs"]) + add)
		else if (s >= xe) $c["ProjStartMs"] = ms(s + add)
	} else if (d in pe) {
		if (k == coll) $c["ProjDurMs"] = ms(ns($c["ProjDurMs"]) + add)
		else if (s >= pe[d]) $c["ProjStartMs"] = ms(s + add)
	}
	print }
EOF_PLANT
# removing FILE: the scenarios of FILE that only remove work predicting a
# longer step than measured, and comm-x0.5 gaining more than comm-free
# (comm-free bounds every comm-xF, F <= 1); nothing printed when none.
removing() {
	awk -F'\t' "$NS"'
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ k = $1 SUBSEP $2; p = ns($c["PredictedMs"]); m = ns($c["MeasuredMs"]); sc = $c["Scenario"] }
	sc ~ /^(comm-free|no-peer-wait|comm-x0\.5|no-straggler|no-gaps)$/ && p > m { print "longer: " $0 }
	sc == "comm-free" { cf[k] = p } sc == "comm-x0.5" { ch[k] = p }
	END { for (k in cf) if ((k in ch) && cf[k] > ch[k]) print "comm-x0.5 gains more than comm-free: " k }' "$1"
}
if [ -d "$DATA" ] && [ -s "$P/thunk.tsv" ]; then
	for f in thunk module; do
		$BIN/nsysjax-warmup -c "$P/compile.tsv" --communication-from "$P/communication.tsv" -a "$P/corr.tsv" \
		    "$P/$f.tsv" > "$P/s$f.tsv" 2> /dev/null
	done
	STEP=pjit__wrapped_step_fn
	pids=$(awk -F'\t' -v m=$STEP 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == m && !s[$1]++ { printf "%s ", $1 }' "$P/smodule.tsv")
	ndev=$(awk -F'\t' -v m=$STEP 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == m && !s[$c["Device"]]++ { n++ } END { print n + 0 }' "$P/smodule.tsv")
	execs=$(awk -F'\t' -v m=$STEP 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == m && !s[$c["ProgramExecution"]]++ { print $c["ProgramExecution"] }' "$P/smodule.tsv" | sort -n)
	nexec=$(echo "$execs" | wc -l)
	awk -F'\t' -v pids="$pids" 'BEGIN { n = split(pids, q, " "); for (i = 1; i <= n; i++) inp[q[i]] = 1 }
	    NR == 1 || ($1 in inp)' "$P/sthunk.tsv" > "$P/stepthunk.tsv"
	[ "$ndev" -eq 4 ] && [ "$nexec" -ge 3 ] && [ "$(echo "$pids" | wc -w)" -eq 2 ] && ok ||
		notok "shared run: the step should be 2 ProgramIds over 4 devices, 3 steady executions ($pids, $ndev, $nexec)"
	if $CP -m "$P/smodule.tsv" -H "$P/hlo.tsv" --comm-scale 0.5 -t breakdown,scenarios,path,slack -o "$P/st" \
	    "$P/sthunk.tsv" 2> "$P/st.err"; then ok; else notok "critpath on the steady shared run"; cat "$P/st.err"; fi
	# One 4-device step per steady execution, GapShare <= 0.10, not
	# host-bound (every device runs thunks ~96% of the step).
	if awk -F'\t' -v m=$STEP -v nd="$ndev" -v ne="$nexec" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Module"] == m { n++; if ($c["Devices"] != nd || $c["GapShare"] > 0.10 || $c["HostBound"] != 0) { print; bad++ } }
	    END { exit bad || n != ne }' "$P/st/breakdown.tsv"; then ok
	else notok "shared run: not one 4-device step per execution with GapShare <= 0.10, HostBound 0"
		awk -F'\t' -v m=$STEP '$3 == m' "$P/st/breakdown.tsv" | cut -f 1-12 | sed 's/^/  /'; fi
	# One note names the ProgramIds joined.
	if [ "$(grep -c 'joined' "$P/st.err")" -eq 1 ] && for p in $pids; do grep 'joined' "$P/st.err" | grep -q "$p" || exit 1; done
	then ok; else notok "shared run: no one note naming the joined ProgramIds"; cat "$P/st.err"; fi
	grep -q 'fewer devices than their CollectiveSize' "$P/st.err" && notok "shared run: incomplete collective groups" || ok
	# The path's gaps are idle time of their device: at most 1 ms of its
	# own thunks inside them per execution.
	awk -F'\t' -f "$T/gapbusy.awk" "$P/st/path.tsv" "$P/stepthunk.tsv" > "$P/gapbusy.out"
	if [ "$(wc -l < "$P/gapbusy.out")" -ge "$nexec" ] && awk '$2 > 1 { bad++ } END { exit bad > 0 }' "$P/gapbusy.out"
	then ok; else notok "shared run: gap segments hold more than 1 ms of their device's thunks"; cat "$P/gapbusy.out"; fi
	removing "$P/st/scenarios.tsv" > "$P/rm.out"
	if [ -s "$P/rm.out" ]; then notok "shared run: a scenario that removes work lengthens the step"; head -5 "$P/rm.out"; else ok; fi

	# A straggler planted from these frames: custom-call.236.0 of device
	# 2 5 ms longer in the middle steady execution, its later rows 5 ms
	# later, the peers waiting 5 ms at the next collective.
	pe=$(echo "$execs" | sed -n "$(( (nexec + 1) / 2 ))p")
	PS=$T/plant4
	mkdir -p "$PS"
	awk -F'\t' -v pids="$pids" -v e="$pe" -v dev=2 -v name=custom-call.236.0 -v add=5000000 "$NS"'BEGIN { OFS = FS }'"$(cat "$T/plant.awk")" \
	    "$P/sthunk.tsv" "$P/sthunk.tsv" > "$PS/thunk.tsv"
	awk -F'\t' -v pids="$pids" -v e="$pe" -v add=5000000 "$NS"'
	    function ms(v) { return sprintf("%d.%06d", int(v / 1000000), v % 1000000) }
	    BEGIN { OFS = FS; n = split(pids, q, " "); for (i = 1; i <= n; i++) inp[q[i]] = 1 }
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	    ($c["ProgramId"] in inp) && $c["ProgramExecution"] == e { $c["ProjDurMs"] = ms(ns($c["ProjDurMs"]) + add) } { print }' \
	    "$P/smodule.tsv" > "$PS/module.tsv"
	n5=$(cmp -l "$P/sthunk.tsv" "$PS/thunk.tsv" 2> /dev/null | wc -l)
	[ "$n5" -gt 0 ] && ok || notok "plant: nothing planted"
	$CP -m "$PS/module.tsv" -H "$P/hlo.tsv" --comm-scale 0.5 -t scenarios,path,slack -o "$PS/out" "$PS/thunk.tsv" 2> /dev/null
	if awk -F'\t' -v e="$pe" '$2 == e && $3 == "custom-call.236.0" && $4 == 0 && $5 == 2 { f = ($10 + 0 == 0 && $11 == 1) } END { exit !f }' \
	    "$PS/out/slack.tsv"; then ok
	else notok "plant: the straggler has slack"; awk -F'\t' -v e="$pe" '$2 == e && $3 == "custom-call.236.0"' "$PS/out/slack.tsv"; fi
	awk -F'\t' -v e="$pe" '$2 == e && $3 == 2 && $4 == "custom-call.236.0" && $6 == "compute" { f = 1 } END { exit !f }' \
	    "$PS/out/path.tsv" && ok || notok "plant: the straggler is not on the path"
	if awk -F'\t' -v e="$pe" '$2 == e && $3 == "no-straggler" && $6 >= 4.5 { f = 1 } END { exit !f }' "$PS/out/scenarios.tsv"
	then ok; else notok "plant: no-straggler recovers less than 4.5 ms"; awk -F'\t' -v e="$pe" '$2 == e' "$PS/out/scenarios.tsv"; fi
	removing "$PS/out/scenarios.tsv" > "$PS/rm.out"
	if [ -s "$PS/rm.out" ]; then notok "plant: a scenario that removes work lengthens the step"; head -5 "$PS/rm.out"; else ok; fi
	# no-peer-wait is no bound on straggler gains: the straggler's own
	# compute stays on its device's chain (the man page says so).
	awk -F'\t' -v e="$pe" '$2 == e { g[$3] = $6 } END { exit !(g["no-straggler"] > g["no-peer-wait"]) }' "$PS/out/scenarios.tsv" &&
		ok || notok "plant: no-peer-wait gains as much as no-straggler"
fi

# Two streams per device, as TransformerEngine runs write them: projected
# starts overlap the previous end by 0.1 to 2 us (each such overlap opened
# a stream that does not exist, and the path walked one of them: gaps over
# the attention kernel, the hidden collective-permute as communication).
# Truth by construction, by awk over the frames: per device the union of
# its thunks' intervals and of its compute thunks'.  Gap segments hold at
# most 1% of the step of their device's thunks; the communication on the
# path of a device is at most its exposed communication (communication
# not covered by compute: 0.05 ms, the all-reduce); no-gaps gains at most
# the device's idle time (module span less the union: 0.011 ms).
cat > "$T/twostream.awk" <<'EOF_TWO'
# The generated two-stream run: per device (0, 1) and execution (0, 1,
# 10 ms apart), a small-fusion stream whose projected starts overlap the
# previous end by 0.1 to 2 us, an attention-like kernel on another
# stream, a collective-permute hidden under it, one exposed all-reduce.
# Writes the thunk frame to stdout, the module frame to ENVIRON["MOD"].
function row(e, d, name, s, dur, hid, comm, cs) {
	printf "P2\t%d\t%s\t0\t%d\t%.6f\t%.6f\t%.6f\t%d\t%s\n", e, name, d, (base + s) / 1000000, dur / 1000000, hid / 1000000, comm, cs
}
BEGIN {
	mod = ENVIRON["MOD"]
	print "ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tProjDurHiddenMs\tCommunication\tCollectiveSize"
	print "ProgramId\tProgramExecution\tDevice\tName\tProjStartMs\tProjDurMs" > mod
	split("0.1 0.4 1.9 0.7 1.2 2.0 0.3 1.5 0.9 0.6", ov, " ")
	for (e = 0; e < 2; e++) for (d = 0; d < 2; d++) {
		base = 1000000 + e * 10000000	# ns
		row(e, d, "loop_fusion.0", 0, 50000, 0, 0, "")
		row(e, d, "loop_pad_fusion.12", 49800, 50200, 0, 0, "")
		row(e, d, "loop_compare_fusion", 98100, 11900, 0, 0, "")
		row(e, d, "te_fused_attn_forward_ffi.115", 101000, 2700000, 0, 0, "")
		for (k = 1; k <= 10; k++)
			row(e, d, "loop_select_fusion." k, 109900 + (k - 1) * 50000, 50000 + ov[k] * 1000, 0, 0, "")
		row(e, d, "collective-permute-start.4", 620000, 50000, 1930000, 1, 2)
		for (k = 1; k <= 5; k++)
			row(e, d, "loop_add_fusion." k, 630000 + (k - 1) * 100000, 100000 + ov[k + 5] * 1000, 0, 0, "")
		row(e, d, "loop_multiply_fusion", 2800500, 99500, 0, 0, "")
		row(e, d, "all-reduce.1", 2905000, 50000, 0, 1, 2)
		row(e, d, "loop_fusion.9", 2956000, 44000, 0, 0, "")
		printf "P2\t%d\t%d\tjit_attn_step\t%.6f\t%.6f\n", e, d, base / 1000000, 3.005 > mod
	}
}
EOF_TWO
# union THUNK: "exec dev busy compute exposed" in ns per execution and
# device of the thunk frame THUNK.
union() {
awk -F'\t' 'function ns(s,   neg, i, f) { neg = s ~ /^-/; sub(/^-/, "", s); i = index(s, ".")
	if (i == 0) f = "000000"; else { f = substr(s, i + 1) "000000"; f = substr(f, 1, 6); s = substr(s, 1, i - 1) }
	return (neg ? -1 : 1) * (s * 1000000 + f) }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{ s = ns($c["ProjStartMs"]); e = s + ns($c["ProjDurMs"]) + (("ProjDurHiddenMs" in c) ? ns($c["ProjDurHiddenMs"]) : 0)
  printf "%s %s %.0f %.0f %d\n", $c["ProgramExecution"], $c["Device"], s, e, $c["Communication"] == 1 }' "$1" |
sort -k1,1n -k2,2n -k3,3n |
awk 'function flush() { if (k == "") return; if (ae > as) all += ae - as; if (ce > cs) cmp += ce - cs
	busy[k] = all; comp[k] = cmp; all = cmp = 0; as = ae = cs = ce = -1 }
{ x = $1 " " $2
  if (x != k) { flush(); k = x; as = ae = cs = ce = -1 }
  if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3; if (!($1 in hi) || $4 > hi[$1]) hi[$1] = $4; ex[x] = $1
  if ($3 > ae) { if (ae > as) all += ae - as; as = $3; ae = $4 } else if ($4 > ae) ae = $4
  if (!$5) { if ($3 > ce) { if (ce > cs) cmp += ce - cs; cs = $3; ce = $4 } else if ($4 > ce) ce = $4 } }
END { flush(); for (x in busy) printf "%s %.0f %.0f %.0f %.0f\n", x, busy[x], comp[x], busy[x] - comp[x], hi[ex[x]] - lo[ex[x]] - busy[x] }' | sort -k1,1n -k2,2n
}
G=$T/twostream
mkdir -p "$G"
MOD=$G/module.tsv awk -f "$T/twostream.awk" > "$G/thunk.tsv"
if $CP -m "$G/module.tsv" -t breakdown,scenarios,path -o "$G/out" "$G/thunk.tsv" 2> "$G/err"; then ok
else notok "two streams: critpath failed"; cat "$G/err"; fi
union "$G/thunk.tsv" > "$G/union.out"
[ "$(wc -l < "$G/union.out")" -eq 4 ] && ok || notok "two streams: the union of 2 executions x 2 devices"
awk -F'\t' -f "$T/gapbusy.awk" "$G/out/path.tsv" "$G/thunk.tsv" > "$G/gapbusy.out"
if [ "$(wc -l < "$G/gapbusy.out")" -eq 2 ] && awk '$2 > 0.01 * 3.005 { print; bad++ } END { exit bad > 0 }' "$G/gapbusy.out"
then ok; else notok "two streams: gap segments over more than 1% of the step of their device's thunks"; cat "$G/gapbusy.out"; fi
# bound WHAT: 0 when every device of every execution keeps the bound.
bound() {
	awk -F'\t' -v what="$1" "$NS"'
	FILENAME == ARGV[1] { split($0, q, " "); ex[q[1], q[2]] = q[5]; idle[q[1], q[2]] = 3005000 - q[3]; next }
	FILENAME == ARGV[2] { if (FNR > 1 && $3 == "no-gaps") gain[$2] = ns($6); next }
	FNR > 1 && $6 == "communication" { comm[$2, $3] += ns($8) }
	END { for (k in ex) { split(k, q, SUBSEP)
		if (what == "comm" && comm[k] > ex[k]) { print "exec " q[1] " device " q[2] ": communication " comm[k] " > exposed " ex[k]; bad++ }
		if (what == "gain" && gain[q[1]] > idle[k]) { print "exec " q[1] ": no-gaps gains " gain[q[1]] " > idle " idle[k] " of device " q[2]; bad++ } }
	    exit bad > 0 }' "$G/union.out" "$G/out/scenarios.tsv" "$G/out/path.tsv" > "$G/$1.out"
}
if bound comm; then ok; else notok "two streams: communication on the path above the exposed"; cat "$G/comm.out"; fi
if bound gain; then ok; else notok "two streams: no-gaps gains more than the idle time"; cat "$G/gain.out"; fi

# Metamorphic on the example: comm-free >= each device's compute sum;
# every thunk twice as fast never lengthens the step, twice as slow never
# shortens it; the scenario rows of one execution share MeasuredMs.
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" -s --scale '.=0.5' --scale '.=2' \
    --comm-scale 0 "$E/thunk.tsv" > "$E/meta.tsv" 2> /dev/null
awk -F'\t' "$NS"'
NR == FNR { if (FNR == 1) { for (i = 1; i <= NF; i++) c[$i] = i; next }
	if ($c["Communication"] == 0) sum[$c["ProgramId"] SUBSEP $c["ProgramExecution"] SUBSEP $c["Device"]] += ns($c["ProjDurMs"]); next }
FNR == 1 { for (i = 1; i <= NF; i++) d[$i] = i; next }
{ k = $d["ProgramId"] SUBSEP $d["ProgramExecution"]; p = ns($d["PredictedMs"]); m = ns($d["MeasuredMs"])
  if ((k in meas) && meas[k] != m) { print "measured differs: " $0; bad++ }; meas[k] = m
  if ($d["Scenario"] == "comm-free" || $d["Scenario"] == "comm-x0") { cf[k, $d["Scenario"]] = p
	for (s in sum) { split(s, q, SUBSEP); if (q[1] SUBSEP q[2] == k && p < sum[s]) { print "comm-free " p " < compute " sum[s]; bad++ } } }
  if ($d["Scenario"] == "scale:.=0.5" && p > m) { print "faster is longer: " $0; bad++ }
  if ($d["Scenario"] == "scale:.=2" && p < m) { print "slower is shorter: " $0; bad++ }
  n++ }
END { for (x in cf) { split(x, q, SUBSEP); if (cf[q[1], q[2], "comm-free"] != cf[q[1], q[2], "comm-x0"]) { print "comm-x0 != comm-free"; bad++ } }
      exit bad || n < 7 * 8 }' "$E/thunk.tsv" "$E/meta.tsv" > "$E/meta.out"
if [ -s "$E/meta.out" ] || [ ! -s "$E/meta.tsv" ]; then notok "metamorphic"; head -5 "$E/meta.out"; else ok; fi

# Slack: a thunk with slack is on the path only where its device ran it
# while the path waited on another thunk (a collective, a gap: the path's
# time is labelled by what the device ran), so inside its own interval;
# the path's durations sum to the step; labels are the four.
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" "$E/thunk.tsv" > "$E/path.tsv" 2> /dev/null
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" -b "$E/thunk.tsv" > "$E/bd.tsv" 2> /dev/null
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" -k "$E/thunk.tsv" > "$T/sl.tsv" 2> /dev/null
awk -F'\t' "$NS"'
FILENAME == ARGV[1] { if (FNR > 1 && ns($10) > 0) { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5; slack[k] = 1; ss[k] = ns($6); se[k] = ss[k] + ns($7) }; next }
FILENAME == ARGV[2] { if (FNR > 1) { step[$1, $2] = ns($6); lab[$1, $2, "compute"] = ns($7); lab[$1, $2, "communication"] = ns($8)
	lab[$1, $2, "peer wait"] = ns($9); lab[$1, $2, "gap"] = ns($10) }; next }
FNR == 1 { next }
{ if ($6 !~ /^(compute|communication|peer wait|gap)$/) { print "label " $6; bad++ }
  tot[$1, $2] += ns($8); got[$1, $2, $6] += ns($8)
  k = $1 SUBSEP $2 SUBSEP $4 SUBSEP $5 SUBSEP $3
  if (($6 == "compute" || $6 == "communication") && (k in slack) && (ns($7) < ss[k] || ns($7) + ns($8) > se[k])) { print "slack on the path, outside its thunk: " $0; bad++ } }
END { for (k in step) if (tot[k] != step[k]) { print "path sum " tot[k] " != step " step[k]; bad++ }
      for (k in lab) if (lab[k] != got[k] + 0) { print "breakdown differs from the path " k; bad++ }
      exit bad > 0 }' "$T/sl.tsv" "$E/bd.tsv" "$E/path.tsv" > "$E/path.out"
if [ -s "$E/path.out" ] || [ ! -s "$E/path.tsv" ]; then notok "path, slack and breakdown agree"; head -5 "$E/path.out"; else ok; fi

# The planted cases: each on the critical path of its execution with the
# label and the size the generator planted (critpath-truth.tsv).
PL=$T/planted
if "$MKEXAMPLE" -P "$PL" && frames "$T/pl" "$PL/rank0" "$PL/rank1"; then ok; else notok "planted run"; fi
fact() { awk -F'\t' -v f="$1" '$1 == f { print $2 }' "$PL/critpath-truth.tsv"; }
$CP -c "$T/pl/corr.tsv" -m "$T/pl/module.tsv" -H "$T/pl/hlo.tsv" "$T/pl/thunk.tsv" > "$T/pl/path.tsv" 2> /dev/null
# planted TITLE EXEC DEVICE NAME LABEL MS: one path row with exactly these.
planted() {
	if awk -F'\t' -v e="$2" -v d="$3" -v n="$4" -v l="$5" -v ms="$6" "$NS"'
	    $1 ~ /^a6ef/ && $2 == e && $3 == d && $4 == n && $6 == l && ns($8) == ns(ms) { f = 1 }
	    END { exit !f }' "$T/pl/path.tsv"; then ok
	else notok "planted $1: no path row '$5' of $6 ms on device $3 ($4) in execution $2"
		awk -F'\t' -v e="$2" '$2 == e' "$T/pl/path.tsv" | head -8 | sed 's/^/  /'; fi
}
planted "late start" "$(fact late_exec)" "$(fact late_device)" "(late start)" "peer wait" "$(fact late_start_ms)"
# The planted transfer on the path: its communication rows and the compute
# that hides part of it (gemm_fusion_dot.2 and loop_multiply_fusion, over
# 1 ms: compute, not communication) add up to the planted transfer.
x0=$(fact xfer_dev0_ms) x1=$(fact xfer_dev1_ms)
if awk -F'\t' -v e="$(fact xfer_exec)" -v a="$x0" -v b="$x1" "$NS"'
    $1 ~ /^a6ef/ && $2 == e && $4 == "all-reduce-start" && $6 == "communication" { c[$3] += ns($8) }
    $1 ~ /^a6ef/ && $2 == e && $4 ~ /^(gemm_fusion_dot\.2|loop_multiply_fusion)$/ && $6 == "compute" { h[$3] += ns($8) }
    END { for (d in c) if (c[d] + h[d] == ns(d == 0 ? a : b) && h[d] > 1000000) f = 1; exit !f }' "$T/pl/path.tsv"; then ok
else notok "planted unhideable collective: no communication rows of $x0 / $x1 ms less the compute hiding it"; fi
planted "gap" "$(fact gap_exec)" "$(fact gap_device)" "$(fact gap_name)" gap "$(fact gap_ms)"
# comm-free gains the all-reduce's transfer less the compute that hides
# it (gemm_fusion_dot.2 and loop_multiply_fusion, 1.29 ms, with their
# launch gaps: under 1.5 ms).
$CP -c "$T/pl/corr.tsv" -m "$T/pl/module.tsv" -H "$T/pl/hlo.tsv" -s "$T/pl/thunk.tsv" > "$T/pl/scen.tsv" 2> /dev/null
if awk -F'\t' -v e="$(fact xfer_exec)" -v x="$x0" "$NS"'
    $1 ~ /^a6ef/ && $2 == e && $3 == "comm-free" && ns($6) >= ns(x) - 1500000 && ns($6) <= ns(x) { f = 1 } END { exit !f }' "$T/pl/scen.tsv"
then ok; else notok "comm-free gains the exposed all-reduce"; fi

# The picture: 2 lanes at the example; 16 devices fold into 8 lanes.
$CP -c "$E/corr.tsv" -m "$E/module.tsv" --svg -e "a6ef8f2b4c02e2e00281f6ff6071bd4d:3" "$E/thunk.tsv" > "$T/one.svg" 2> /dev/null
if head -c 4 "$T/one.svg" | grep -q '<svg' && tail -n 1 "$T/one.svg" | grep -q '</svg>' &&
    [ "$(grep -c '>device [0-9]*</text>' "$T/one.svg")" -eq 2 ] && grep -q 'polyline' "$T/one.svg" &&
    grep -q 'execution 3' "$T/one.svg"; then ok; else notok "svg of the example"; fi
if command -v xmllint > /dev/null; then
	xmllint --noout "$T/one.svg" 2> /dev/null && ok || notok "svg is not well-formed XML"
fi
if "$MKEXAMPLE" -n 16 -s 3 "$T/n16" && frames "$T/f16" "$T"/n16/rank*; then
	$CP -c "$T/f16/corr.tsv" -m "$T/f16/module.tsv" --svg "$T/f16/thunk.tsv" > "$T/16.svg" 2> /dev/null
	if [ "$(grep -c '>device [0-9]*</text>' "$T/16.svg")" -le 7 ] && grep -q 'other devices</text>' "$T/16.svg" &&
	    [ "$(wc -c < "$T/16.svg")" -lt 200000 ]; then ok; else notok "svg of 16 devices aggregated"; fi
	identity "$T/f16" "16 devices"
else
	notok "16-process run"
fi

# The report's section: pipelines/critpath.sh on the example's frames.
if NSYSJAX_BIN=$BIN sh pipelines/critpath.sh -o "$T/sec" "$E" > "$T/sec.out" 2> "$T/sec.err"; then ok; else notok "critpath.sh"; cat "$T/sec.err"; fi
for f in breakdown.tsv modules.tsv scenarios.tsv scenario-means.tsv path.tsv step.svg critpath.txt critpath-section.html; do
	[ -s "$T/sec/$f" ] && ok || notok "critpath.sh wrote no $f"
done
# The steady state: executions 2..5 of the train step (warm-up 0, 1),
# 6 scenarios each (comm-x0.5 included).
[ "$(awk -F'\t' 'NR > 1 && $1 ~ /^a6ef/' "$T/sec/breakdown.tsv" | wc -l)" -eq 4 ] && ok || notok "critpath.sh: not the 4 steady executions"
[ "$(awk -F'\t' 'NR > 1 && $1 ~ /^a6ef/' "$T/sec/scenarios.tsv" | wc -l)" -eq 24 ] && ok || notok "critpath.sh: scenarios"
grep -q '<svg' "$T/sec/critpath-section.html" && grep -q 'estimates' "$T/sec/critpath-section.html" && ok ||
	notok "critpath section lacks the picture or the caveat"
cmp -s "$T/sec.out" "$T/sec/critpath.txt" && ok || notok "critpath.sh: stdout is not critpath.txt"
# The tool's error reaches the section's stderr, not only its work file
# (set -e ended the script with the message unread): a negative duration
# in the last row (a steady execution's).
cp -r "$E" "$T/neg"
awk 'BEGIN { FS = OFS = "\t" } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProjDurMs") c = i }
    { r[NR] = $0 } END { for (i = 1; i < NR; i++) print r[i]; $0 = r[NR]; $c = -1; print }' \
    "$E/thunk.tsv" > "$T/neg/thunk.tsv"
expect_error 1 "column ProjDurMs: negative" env NSYSJAX_BIN="$BIN" sh pipelines/critpath.sh -o "$T/negsec" "$T/neg"

# Determinism, and what-ifs said to be estimates.
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" -s "$E/thunk.tsv" 2> "$T/est" | cmp -s - "$E/scen.tsv" && ok || notok "not deterministic"
grep -q "estimates" "$T/est" && ok || notok "scenarios not said to be estimates"

# Errors.
{ head -n 1 "$E/thunk.tsv"; awk -F'\t' 'NR > 1 && $2 == 1' "$E/thunk.tsv" | head -n 2
  awk -F'\t' 'NR > 1 && $2 == 2' "$E/thunk.tsv" | head -n 2; awk -F'\t' 'NR > 1 && $2 == 1' "$E/thunk.tsv" | tail -n 1; } > "$T/split.tsv"
expect_error -r 1 "its rows are not together" $CP "$T/split.tsv"
cut -f 1-8 "$E/thunk.tsv" | cut -f 1-5,7- > "$T/nostart.tsv"
expect_error 1 "missing column 'ProjStartMs'" $CP "$T/nostart.tsv"
expect_error 2 "not REGEX=FACTOR" $CP -s --scale fusion "$E/thunk.tsv"
expect_error 2 "bad regular expression" $CP -s --scale '(=2' "$E/thunk.tsv"
expect_error 2 "exclude each other" $CP -s -k "$E/thunk.tsv"
expect_error 1 "nope.tsv: cannot open" $CP -m "$T/nope.tsv" "$E/thunk.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\np\t0\ta\t0\t0\t1.5\t-2\n' > "$T/neg.tsv"
expect_error -r 1 "negative" $CP "$T/neg.tsv"

# Two collectives seen in different orders on two devices (device 1's
# clock 190 ms ahead): the barriers close a cycle.  The execution is left
# out with a note naming the collective and its devices; no memory error
# (the sanitizer pass runs this too), no table row.
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tCommunication\tCollectiveSize\n' > "$T/cycle.tsv"
printf 'p\t0\tA\t0\t0\t0\t10\t1\t2\np\t0\tC\t0\t0\t20\t10\t1\t2\np\t0\tC\t0\t1\t100\t10\t1\t2\np\t0\tA\t0\t1\t200\t10\t1\t2\n' >> "$T/cycle.tsv"
for m in -b -s -k ""; do
	# shellcheck disable=SC2086
	$CP $m "$T/cycle.tsv" > "$T/cycle.out" 2> "$T/cycle.err"; rc=$?
	if [ $rc -eq 0 ] && [ "$(wc -l < "$T/cycle.out")" -eq 1 ] &&
	    grep -q 'collective [AC] (ThunkExecution 0) on devices 0 1 is seen in another order' "$T/cycle.err" &&
	    ! grep -q 'replay' "$T/cycle.err"; then ok
	else notok "crossing collectives ($m): rc $rc"; cat "$T/cycle.out" "$T/cycle.err"; fi
done
# The same two devices in one order: no cycle, the barrier as measured.
awk 'BEGIN { FS = OFS = "\t" } NR > 1 && $5 == 1 { $6 = $3 == "A" ? 100 : 200 } { print }' "$T/cycle.tsv" > "$T/nocycle.tsv"
if $CP -b "$T/nocycle.tsv" > "$T/nocycle.out" 2> /dev/null && [ "$(wc -l < "$T/nocycle.out")" -eq 2 ]; then ok
else notok "collectives in one order: no row"; fi
# A module frame with a header and no rows (qsort of no rows: UB).
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\tProjDurMs\n' > "$T/emptymod.tsv"
if $CP -m "$T/emptymod.tsv" -b "$T/nocycle.tsv" > "$T/emptymod.out" 2> "$T/emptymod.err" &&
    cmp -s "$T/emptymod.out" "$T/nocycle.out"; then ok
else notok "an empty module frame"; cat "$T/emptymod.err"; fi

# -t LIST -o DIR: the tables of one pass are those of one run per mode
# (each checked above against the frames and the planted cases), with
# the notes once; a failed run leaves no file and no directory.
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" --comm-scale 0.5 -b "$E/thunk.tsv" > "$T/one-b.tsv" 2> /dev/null
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" --comm-scale 0.5 -s "$E/thunk.tsv" > "$T/one-s.tsv" 2> /dev/null
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" --comm-scale 0.5 -k "$E/thunk.tsv" > "$T/one-k.tsv" 2> /dev/null
$CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" --comm-scale 0.5 "$E/thunk.tsv" > "$T/one-p.tsv" 2> /dev/null
if $CP -c "$E/corr.tsv" -m "$E/module.tsv" -H "$E/hlo.tsv" --comm-scale 0.5 -t scenarios,path -t breakdown,slack \
    -o "$T/multi/sub" "$E/thunk.tsv" > "$T/multi.out" 2> "$T/multi.err"; then ok; else notok "-t -o"; cat "$T/multi.err"; fi
for x in b:breakdown s:scenarios k:slack p:path; do
	cmp -s "$T/one-${x%%:*}.tsv" "$T/multi/sub/${x#*:}.tsv" && ok || notok "-t -o: ${x#*:}.tsv differs from its own run"
done
[ ! -s "$T/multi.out" ] && [ "$(grep -c estimates "$T/multi.err")" -eq 1 ] && ok || notok "-t -o: stdout written, or notes not once"
expect_error -r 1 "its rows are not together" $CP -t path,breakdown -o "$T/failed/sub" "$T/split.tsv"
[ ! -e "$T/failed" ] && ok || notok "-t -o: a failed run left $T/failed"
expect_error 2 "go together" $CP -t path "$E/thunk.tsv"
expect_error 2 "excludes" $CP -t path -o "$T/x" -b "$E/thunk.tsv"
expect_error 2 "unknown table 'paths'" $CP -t paths -o "$T/x" "$E/thunk.tsv"

done_testing t86-critpath
