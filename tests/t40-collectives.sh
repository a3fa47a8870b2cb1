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
