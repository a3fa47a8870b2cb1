#!/bin/sh
# nsysjax-align: corrections against the reference's skews, aligned frames
# exactly the unaligned ones minus the corrections, the reference's aligned
# frames off by one constant per device, invariance under a clock shift,
# refusals, filter behaviour and bad input.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
A=$BIN/nsysjax-align
K5=ProgramId,ProgramExecution,Name,ThunkExecution,Device
K3=ProgramId,ProgramExecution,Device

# expected_medians SKEWS: per device, over the instances seen on every
# device (N of them), the median of the skews re-centred on the instance
# mean, rounded to the ns as align rounds (ties upwards), and the number
# of instances ("Device MedianNs Count").  Exact: a skew is a multiple of
# 1/N ns (the mean of N ends in whole ns), recovered from the float by
# rounding; re-centring counts in 1/N^2 ns and the median in 1/(2N^2).
expected_medians() {
	awk -F'\t' '
	function round(x) { return int(x + (x < 0 ? -0.5 : 0.5)) }
	NR == 1 { next }
	{ k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; n[k]++; dev[$5] = 1
	  s[k, n[k]] = $6; d[k, n[k]] = $5 }
	END {
		for (x in dev) nd++
		for (k in n) {
			if (n[k] != nd) continue
			sum = 0
			for (i = 1; i <= nd; i++) {
				q[i] = round(s[k, i] * nd * 1e6)
				if ((e = s[k, i] * nd * 1e6 - q[i]) > 0.01 || e < -0.01) {
					print "skew " s[k, i] " is no multiple of 1/" nd " ns"; exit 1 }
				sum += q[i]
			}
			for (i = 1; i <= nd; i++) v[d[k, i], ++c[d[k, i]]] = nd * q[i] - sum
		}
		for (x in dev) {
			m = c[x]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && v[x, j - 1] > v[x, j]; j--) {
				t = v[x, j]; v[x, j] = v[x, j - 1]; v[x, j - 1] = t }
			med = m % 2 ? 2 * v[x, (m + 1) / 2] : v[x, m / 2] + v[x, m / 2 + 1]
			den = 2 * nd * nd; r = med + nd * nd
			fl = int(r / den); if (fl * den > r) fl--
			printf "%s\t%d\t%d\n", x, fl, m
		}
	}' "$1"
}

# same_medians EXPECTED OURS: our corrections are the expected medians,
# to the ns, over the same number of instances.
same_medians() {
	awk -F'\t' "$AWK_NS"'
	FILENAME == ARGV[1] { e[$1] = $2; c[$1] = $3; ne++; next }
	FNR == 1 { next }
	{ n++
	  if (!($1 in e) || ns($2) != e[$1] || $3 != c[$1]) {
		print "device " $1 ": ours " $2 " over " $3 ", expected " e[$1] " ns over " c[$1]; bad++ } }
	END { if (n != ne) { print n " devices, expected " ne; bad++ }
	      exit bad > 0 || ne == 0 }' "$1" "$2"
}

# shifted CORR BEFORE AFTER: AFTER is BEFORE with ProjStartMs minus the
# device's correction, exactly in ns; every other field byte for byte.
shifted() {
	awk -F'\t' "$AWK_NS"'
	FILENAME == ARGV[1] { if (FNR > 1) corr[$1] = ns($2); next }
	FILENAME == ARGV[2] { if (FNR == 1) for (i = 1; i <= NF; i++) c[$i] = i
		before[FNR] = $0; nb++; next }
	{ n = split(before[FNR], b, "\t")
	  if (n != NF) { print "line " FNR ": fields differ"; bad++; next }
	  for (i = 1; i <= NF; i++) {
		if (FNR > 1 && i == c["ProjStartMs"]) {
			if (ns($i) != ns(b[i]) - corr[b[c["Device"]]]) {
				print "line " FNR ": " $i " != " b[i] " - correction"; bad++ }
		} else if ($i != b[i]) { print "line " FNR " column " i " changed"; bad++ }
	  }
	  rows++ }
	END { if (rows != nb) { print rows " rows, expected " nb; bad++ }
	      exit bad > 0 }' "$1" "$2" "$3"
}

# reference_offset REFCORR OURCORR GOLDEN OURS KEYS: the reference's
# aligned frame minus ours is, per device, one constant (its correction
# minus ours: the frames agree before alignment); the constants of devices
# 0-2 agree to 2 us (the reference's 3-device estimate there is consistent
# with ours); device 3's is exactly our correction (the reference's is 0).
reference_offset() {
	awk -F'\t' -v KEYS="$5" '
	BEGIN { nk = split(KEYS, key, ",") }
	FILENAME == ARGV[1] { if (FNR > 1) ref[$1] = $2; next }
	FILENAME == ARGV[2] { if (FNR > 1) our[$1] = $2; next }
	FNR == 1 { f++; for (i = 1; i <= NF; i++) c[f, $i] = i; next }
	{ k = ""; for (i = 1; i <= nk; i++) k = k SUBSEP $c[f, key[i]] }
	f == 1 { g[k] = $c[1, "ProjStartMs"]; ng++; next }
	!(k in g) { print "no reference row: " k; bad++; next }
	{ dev = $c[2, "Device"]; d = g[k] - $c[2, "ProjStartMs"]; m++
	  if (!(dev in lo) || d < lo[dev]) lo[dev] = d
	  if (!(dev in hi) || d > hi[dev]) hi[dev] = d }
	END {
		if (m != ng) { print m " rows matched of " ng; bad++ }
		for (x in lo) {
			if (hi[x] - lo[x] > 1e-8) { print "device " x ": offset varies " lo[x] ".." hi[x]; bad++ }
			if ((e = lo[x] - (our[x] - ref[x])) > 1e-8 || e < -1e-8) { print "device " x ": offset " lo[x]; bad++ }
		}
		for (x = 1; x <= 2; x++) if ((e = lo[x] - lo[0]) > 0.002 || e < -0.002) {
			print "devices 0 and " x ": offsets " lo[0] " and " lo[x]; bad++ }
		e = lo[3] - our[3]
		if (ref[3] != 0 || e > 1e-8 || e < -1e-8) { print "device 3: " lo[3] " vs " our[3]; bad++ }
		exit bad > 0
	}' "$1" "$2" "$3" "$4"
}

# shift_device DEV MS FILE: ProjStartMs + MS on the rows of device DEV
# (the clock of one process set off by a constant).
shift_device() {
	awk -F'\t' -v OFS='\t' -v DEV="$1" -v MS="$2" "$AWK_NS"'
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	$c["Device"] == DEV { t = ns($c["ProjStartMs"]) + ns(MS)
		$c["ProjStartMs"] = sprintf("%s%d.%06d", t < 0 ? "-" : "", (t < 0 ? -t : t) / 1000000, (t < 0 ? -t : t) % 1000000) }
	{ print }' "$3"
}

# constant_offset A B LO HI: ProjStartMs of B minus A is one constant
# over all rows, in ns between LO and HI, and varies by at most 1 ns.
constant_offset() {
	awk -F'\t' -v LO="$3" -v HI="$4" "$AWK_NS"'
	FILENAME == ARGV[1] { if (FNR == 1) for (i = 1; i <= NF; i++) c[$i] = i; a[FNR] = $c["ProjStartMs"]; next }
	FNR == 1 { next }
	{ d = ns($c["ProjStartMs"]) - ns(a[FNR]); if (FNR == 2) { lo = hi = d }
	  if (d < lo) lo = d; if (d > hi) hi = d }
	END { if (lo < LO || hi > HI || hi - lo > 1) { print "offsets " lo ".." hi " ns"; exit 1 } }' "$1" "$2"
}

if have_data; then
	mkdir -p "$T/c4" "$T/p0"
	$X -n proc0,proc1,proc2,proc3 -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip || notok "extract combined4"
	$X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip" || notok "extract proc0"
	C4=$T/c4

	# Corrections: thunk and communication frames agree, and equal the
	# complete-instance medians of the reference's own skews.
	$A -o "$T/corr.tsv" "$C4/thunk.tsv" > "$T/thunk.al" 2> "$T/e" && [ ! -s "$T/e" ] && ok ||
		notok "align thunk: $(cat "$T/e")"
	$A -o "$T/corr.comm" < "$C4/communication.tsv" > "$T/comm.al" && ok || notok "align communication"
	cmp -s "$T/corr.tsv" "$T/corr.comm" && ok || notok "thunk and communication corrections differ"
	[ "$(head -1 "$T/corr.tsv")" = "$(printf 'Device\tCorrectionMs\tInstances\tSpreadMs')" ] && ok ||
		notok "corrections header"
	# No temporary file (".corr.tsv.XXXXXX", base/tempfile.h) left behind.
	ls -A "$T" | grep -q '^\.corr\.tsv\.' && notok "corrections temporary file left behind" || ok
	expected_medians "$GOLD/combined4/alignment_skews.tsv" > "$T/expected"
	check "corrections = complete-instance medians of alignment_skews.tsv" same_medians "$T/expected" "$T/corr.tsv"
	# Sanity of the derivation itself: 4 devices, 5 complete instances.
	[ "$(awk -F'\t' '$3 == 5 { n++ } END { print n }' "$T/expected")" = 4 ] && ok || notok "expected: $(cat "$T/expected")"

	# Aligned = unaligned - correction, exactly; module via --apply.
	check "thunk aligned exactly" shifted "$T/corr.tsv" "$C4/thunk.tsv" "$T/thunk.al"
	check "communication aligned exactly" shifted "$T/corr.tsv" "$C4/communication.tsv" "$T/comm.al"
	$A -a "$T/corr.tsv" "$C4/module.tsv" > "$T/module.al" 2> "$T/e" && [ ! -s "$T/e" ] && ok ||
		notok "apply module: $(cat "$T/e")"
	check "module aligned exactly" shifted "$T/corr.tsv" "$C4/module.tsv" "$T/module.al"
	$A --apply "$T/corr.tsv" < "$C4/thunk.tsv" | cmp -s - "$T/thunk.al" && ok || notok "--apply differs from the estimate"

	# The reference's aligned frames: one offset per device.
	for f in thunk:$K5:thunk.al communication:$K5:comm.al module:$K3:module.al; do
		name=${f%%:*} rest=${f#*:}; keys=${rest%%:*} ours=${rest#*:}
		check "reference aligned_$name: a constant per device" reference_offset \
		    "$GOLD/combined4/alignment.tsv" "$T/corr.tsv" "$GOLD/combined4/aligned_$name.tsv" "$T/$ours" "$keys"
	done

	# One process's clock set off by a constant moves every aligned time
	# by one common constant: C/4 when C is a multiple of 4 ns, else
	# within 1 ns of it.
	shift_device 2 1234.567 "$C4/thunk.tsv" > "$T/shift2.tsv"
	$A "$T/shift2.tsv" > "$T/shift2.al" 2>/dev/null && ok || notok "align shifted"
	check "shift device 2 by 1234.567 ms" constant_offset "$T/thunk.al" "$T/shift2.al" 308641750 308641750
	shift_device 0 -5000.000003 "$C4/thunk.tsv" > "$T/shift0.tsv"
	$A "$T/shift0.tsv" > "$T/shift0.al" 2>/dev/null && ok || notok "align shifted"
	check "shift device 0 by -5000.000003 ms" constant_offset "$T/thunk.al" "$T/shift0.al" -1250000001 -1250000000

	# Several files (and -) are one input; output is deterministic.
	head -n 20001 "$C4/thunk.tsv" > "$T/part1"
	{ head -n 1 "$C4/thunk.tsv"; tail -n +20002 "$C4/thunk.tsv"; } > "$T/part2"
	$A "$T/part1" - < "$T/part2" | cmp -s - "$T/thunk.al" && ok || notok "two files differ from one"
	$A "$C4/thunk.tsv" | cmp -s - "$T/thunk.al" && ok || notok "not deterministic"
	if awk -F'\t' '{ for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+[eE][-+]?[0-9]+$/) bad++ }
	    END { exit bad > 0 }' "$T/thunk.al" "$T/corr.tsv"; then ok; else notok "exponent notation"; fi

	# A device missing from the table keeps its rows, with a warning.
	grep -v '^3	' "$T/corr.tsv" > "$T/corr3.tsv"
	$A -a "$T/corr3.tsv" "$C4/module.tsv" > "$T/m3" 2> "$T/e"
	grep -q "no correction for device 3 in .*corr3.tsv: its rows are unchanged" "$T/e" && ok ||
		notok "missing device warning: $(cat "$T/e")"
	awk -F'\t' 'NR == FNR { a[FNR] = $0; next } { split(a[FNR], b, "\t") }
	    $3 == 3 && $0 != a[FNR] { bad++ } $3 != 3 && FNR > 1 && $0 == a[FNR] { bad++ }
	    END { exit bad > 0 }' "$C4/module.tsv" "$T/m3" && ok || notok "device 3 rows changed"

	# proc0: one device, collectives of 4: declines, rows unchanged.
	for f in thunk communication; do
		$A -o "$T/corr0.tsv" "$T/p0/$f.tsv" > "$T/p0.al" 2> "$T/e"; rc=$?
		[ $rc -eq 0 ] && cmp -s "$T/p0.al" "$T/p0/$f.tsv" && ok || notok "proc0 $f: exit $rc or rows changed"
		grep -q "not aligned: one device (0) in the collectives, which span up to 4" "$T/e" && ok ||
			notok "proc0 $f message: $(cat "$T/e")"
		[ "$(cat "$T/corr0.tsv")" = "$(printf 'Device\tCorrectionMs\tInstances\tSpreadMs')" ] && ok ||
			notok "proc0 corrections table not empty"
	done
	grep -q "Aligning 1 using collectives of size 4" "$GOLD/proc0/alignment_status.txt" && ok ||
		notok "golden proc0 status changed"
	$A "$T/p0/module.tsv" 2> "$T/e" | cmp -s - "$T/p0/module.tsv" && grep -q "no CollectiveSize column" "$T/e" &&
		ok || notok "module frame without --apply"

	# A reader that stops early is no failure.
	$A "$C4/thunk.tsv" 2> "$T/e" | head -1 > /dev/null
	[ ! -s "$T/e" ] && ok || notok "| head -1 printed: $(cat "$T/e")"
	cat "$C4/thunk.tsv" | $A -a "$T/corr.tsv" 2> "$T/e" | head -1 > /dev/null
	[ ! -s "$T/e" ] && ok || notok "-a | head -1 printed: $(cat "$T/e")"
else
	skip "golden comparisons: $DATA not found"
fi

# Hand-made frames.  Two devices, one all-reduce: ends 11 and 11.000004
# ms, so skews -2 and +2 ns; a user column with an escape rides along.
H='ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjDurMs\tProjStartMs\tProjDurHiddenMs\tCollectiveSize\tX\n'
printf "$H" > "$T/h.tsv"
printf 'p\t0\tar\t0\t0\t1\t10\t0\t2\tx\\ty\n' >> "$T/h.tsv"
printf 'p\t0\tar\t0\t1\t0.5\t10.000004\t0.5\t2\t\n' >> "$T/h.tsv"
$A -o "$T/hc.tsv" "$T/h.tsv" > "$T/h.out" 2> "$T/e" && ok || notok "hand-made: $(cat "$T/e")"
[ "$(tail -n +2 "$T/hc.tsv" | tr '\t\n' ' ;')" = "0 -0.000002 1 0;1 0.000002 1 0;" ] && ok ||
	notok "hand-made corrections: $(cat "$T/hc.tsv")"
[ "$(cut -f 7,10 "$T/h.out" | tail -n +2 | tr '\t\n' ' ;')" = '10.000002 x\ty;10.000002 ;' ] && ok ||
	notok "hand-made rows: $(cat "$T/h.out")"

# Thunk frame: only Communication 1 rows count; compute rows (empty
# CollectiveSize) and unknown ones (empty Communication) shift too.
printf "Communication\\t$H" > "$T/th.tsv"
tail -n +2 "$T/h.tsv" | sed 's/^/1\t/' >> "$T/th.tsv"
printf '0\tp\t0\tfus\t0\t0\t5\t3\tjunk\t\t\n' >> "$T/th.tsv"
printf '\tp\t0\tfus\t0\t1\t5\t3.5\t\t\t\n' >> "$T/th.tsv"
$A -o "$T/thc.tsv" "$T/th.tsv" > "$T/th.out" 2>/dev/null && cmp -s "$T/thc.tsv" "$T/hc.tsv" && ok ||
	notok "thunk-style frame: $(cat "$T/thc.tsv")"
[ "$(cut -f 8 "$T/th.out" | tail -n +2 | tr '\n' ' ')" = "10.000002 10.000002 3.000002 3.499998 " ] && ok ||
	notok "thunk-style rows: $(cut -f 8 "$T/th.out" | tr '\n' ' ')"

# The spool goes to $TMPDIR when set, and nothing is left there.
mkdir -p "$T/td"
TMPDIR=$T/td $A "$T/th.tsv" 2>/dev/null | cmp -s - "$T/th.out" && [ -z "$(ls -A "$T/td")" ] && ok ||
	notok "TMPDIR spool"
TMPDIR=$T/nosuchdir $A "$T/th.tsv" > "$T/o" 2> "$T/e"
[ $? -eq 1 ] && grep -q "cannot create a temporary file" "$T/e" && [ ! -s "$T/o" ] && ok ||
	notok "unusable TMPDIR: $(cat "$T/e")"

# Refusals: rows pass through unchanged, a reason on stderr, exit 0.
declines() {
	title=$1 pat=$2 file=$3
	$A "$file" > "$T/o" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && cmp -s "$T/o" "$file" && grep -q "not aligned: .*$pat" "$T/e" && ok ||
		notok "$title: exit $rc, '$(cat "$T/e")'"
}
sed 's/\t2\t\([^\t]*\)$/\t1\t\1/' "$T/h.tsv" > "$T/size1.tsv"
declines "CollectiveSize 1" "largest CollectiveSize is 1" "$T/size1.tsv"
sed '3s/^p\t0/q\t0/' "$T/h.tsv" > "$T/incomplete.tsv"
declines "no complete instance" "no complete collective" "$T/incomplete.tsv"
cut -f 1-6,8- "$T/h.tsv" > "$T/nostart.tsv"
declines "no ProjStartMs" "no ProjStartMs column" "$T/nostart.tsv"
cut -f 1-8,10 "$T/h.tsv" > "$T/nosize.tsv"
declines "no CollectiveSize" "no CollectiveSize column" "$T/nosize.tsv"
printf "$H" > "$T/empty.tsv"
declines "header only" "no collectives" "$T/empty.tsv"

# expect_error STATUS PATTERN CMD...: exit STATUS, one stderr line
# matching PATTERN, nothing on stdout.
expect_error 2 usage $A -x
expect_error 2 "needs an argument" $A -a
expect_error 2 "exclude each other" $A -a "$T/hc.tsv" -o "$T/x.tsv" "$T/h.tsv"
expect_error 1 "nosuch.tsv" $A -a "$T/nosuch.tsv" "$T/h.tsv"
expect_error 1 "nosuch.tsv: cannot open" $A "$T/nosuch.tsv"
: > "$T/void.tsv"
expect_error 1 "void.tsv: no header line" $A "$T/void.tsv"
cut -f 1-4,6- "$T/h.tsv" > "$T/nodev.tsv"
expect_error 1 "nodev.tsv: missing column 'Device'" $A "$T/nodev.tsv"
cut -f 1-7,9- "$T/h.tsv" > "$T/nohid.tsv"
expect_error 1 "nohid.tsv: missing column 'ProjDurHiddenMs'" $A "$T/nohid.tsv"
sed '3s/10.000004/ten/' "$T/h.tsv" > "$T/nan.tsv"
expect_error 1 "nan.tsv:3: column ProjStartMs: not a number: 'ten'" $A "$T/nan.tsv"
sed '3s/\t0.5\t2/\t0.5x\t2/' "$T/h.tsv" > "$T/nanhid.tsv"
expect_error 1 "nanhid.tsv:3: column ProjDurHiddenMs: not a number: '0.5x'" $A "$T/nanhid.tsv"
sed '2s/\t0\t1\t10/\tzero\t1\t10/' "$T/h.tsv" > "$T/nandev.tsv"
expect_error 1 "nandev.tsv:2: column Device: not an integer: 'zero'" $A "$T/nandev.tsv"
sed '3s/\t$//' "$T/h.tsv" > "$T/ragged.tsv"
expect_error 1 "ragged.tsv:3: 9 fields, the header has 10" $A "$T/ragged.tsv"
sed '2s/^1/2/' "$T/th.tsv" > "$T/comm2.tsv"
expect_error 1 "comm2.tsv:2: column Communication: not 0 or 1" $A "$T/comm2.tsv"
sed '2s/\t2\tx/\t0\tx/' "$T/h.tsv" > "$T/size0.tsv"
expect_error 1 "size0.tsv:2: column CollectiveSize: not a positive integer" $A "$T/size0.tsv"
sed '2s/\t10\t/\t999999999999\t/' "$T/h.tsv" > "$T/far.tsv"
expect_error 1 "far.tsv:2: column ProjStartMs: out of range" $A "$T/far.tsv"
printf 'Device\tCorrectionMs\n0\t1\n0\t2\n' > "$T/dup.tsv"
expect_error 1 "dup.tsv: device 0 listed twice" $A -a "$T/dup.tsv" "$T/h.tsv"
printf 'Device\tSpreadMs\n0\t1\n' > "$T/nocorr.tsv"
expect_error 1 "nocorr.tsv: missing column 'CorrectionMs'" $A -a "$T/nocorr.tsv" "$T/h.tsv"
# Streaming (--apply): the rows before a bad one are written, exit 1.
{ cat "$T/h.tsv"; printf 'p\t1\tar\t0\t0\t1\tlate\t0\t2\t\n'; } > "$T/late.tsv"
$A -a "$T/hc.tsv" "$T/late.tsv" > "$T/o" 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/o")" -eq 3 ] && grep -q "late.tsv:4: column ProjStartMs: not a number" "$T/e" &&
	ok || notok "partial stream: exit $rc, $(wc -l < "$T/o") lines, '$(cat "$T/e")'"
# Estimating: nothing is written before the whole input is read.
$A "$T/late.tsv" > "$T/o" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/o" ] && ok || notok "estimate wrote rows before an error"
done_testing t20-align
