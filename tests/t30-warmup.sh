#!/bin/sh
# nsysjax-warmup: the steady/init split against the reference's golden
# steady_*.tsv and init_*.tsv; each rule, the fallback, --skip, the ways
# the facts arrive, filter behaviour; bad input.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
W=$BIN/nsysjax-warmup
K5=ProgramId,ProgramExecution,Name,ThunkExecution,Device
K3=ProgramId,ProgramExecution,Device
# The golden frames went through the reference's clock alignment, which
# moves ProjStartMs by a constant per device (checked by shifted below);
# the communication frame's bandwidth columns come from nsysjax-collectives.
TIME=ProjStartMs
BW=AlgorithmBandwidthGBPerSec,BusBandwidthGBPerSec

# shifted GOLDEN OURS: golden ProjStartMs - ours is one constant per
# Device (within 1 ns), matching rows by the five index columns.
shifted() {
	awk -F'\t' '
	FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i
		k1 = c["ProgramId"]; k2 = c["ProgramExecution"]; k3 = c["Name"]
		k4 = c["ThunkExecution"]; k5 = c["Device"]; t = c["ProjStartMs"]; next }
	{ k = $k1 SUBSEP $k2 SUBSEP (k3 ? $k3 : "") SUBSEP (k4 ? $k4 : "") SUBSEP $k5 }
	FILENAME == ARGV[1] { g[k] = $t; next }
	!(k in g) { bad++; next }
	{ d = g[k] - $t; dev = $k5; n++
	  if (!(dev in lo) || d < lo[dev]) lo[dev] = d
	  if (!(dev in hi) || d > hi[dev]) hi[dev] = d }
	END { for (dev in lo) if (hi[dev] - lo[dev] > 1e-6) { print "device " dev ": spread " hi[dev] - lo[dev]; bad++ }
	      exit bad > 0 || n == 0 }' "$1" "$2"
}

# golden_split NAME OURDIR: steady and init sets of every frame.
golden_split() {
	g=$GOLD/$1 o=$2
	F="-c $o/compile.tsv --communication-from $o/thunk.tsv"
	for f in thunk module communication; do
		case $f in module) K=$K3 ;; *) K=$K5 ;; esac
		$W $F "$o/$f.tsv" > "$T/s.$f" && $W -i $F "$o/$f.tsv" > "$T/i.$f" ||
			notok "$1 $f: exit $?"
		check "$1 steady_$f" cmpframe "$g/steady_$f.tsv" "$T/s.$f" $K $TIME,$BW
		check "$1 init_$f" cmpframe "$g/init_$f.tsv" "$T/i.$f" $K $TIME,$BW
		check "$1 steady_$f times" shifted "$g/steady_$f.tsv" "$T/s.$f"
		check "$1 init_$f times" shifted "$g/init_$f.tsv" "$T/i.$f"
	done
	# The compile frame is initialisation as a whole.
	$W $F "$o/compile.tsv" > "$T/s.compile" && $W -i $F "$o/compile.tsv" > "$T/i.compile" ||
		notok "$1 compile: exit $?"
	[ "$(wc -l < "$T/s.compile")" -eq 1 ] && ok || notok "$1: steady compile rows"
	check "$1 init_compile" cmpframe "$g/init_compile.tsv" "$T/i.compile" ProfileName,RangeId
	cmp -s "$T/i.compile" "$o/compile.tsv" && ok || notok "$1: init compile is not the frame"
}

# facts OURDIR: every way the facts arrive gives the same bytes.
facts() {
	o=$1
	$W -c "$o/compile.tsv" "$o/thunk.tsv" > "$T/a" &&
	$W -c "$o/compile.tsv" --communication yes "$o/thunk.tsv" > "$T/b" &&
	$W -c "$o/compile.tsv" --communication-from "$o/communication.tsv" "$o/thunk.tsv" > "$T/c" &&
	$W -c "$o/compile.tsv" < "$o/thunk.tsv" > "$T/d" &&
	cmp -s "$T/a" "$T/b" && cmp -s "$T/a" "$T/c" && cmp -s "$T/a" "$T/d"
}

# parts OURDIR: several input files are one stream; one header out.
parts() {
	o=$1
	head -n 20001 "$o/thunk.tsv" > "$T/p1"
	{ head -n 1 "$o/thunk.tsv"; tail -n +20002 "$o/thunk.tsv"; } > "$T/p2"
	$W -c "$o/compile.tsv" "$T/p1" "$T/p2" | cmp -s - "$T/a"
}

# marked OURDIR: -m appends Steady; without it the rows are the input,
# and its 1 rows are the steady output, its 0 rows the init output.
marked() {
	o=$1 F="-c $1/compile.tsv"
	$W -m $F "$o/thunk.tsv" > "$T/m" || return 1
	[ "$(head -n 1 "$T/m")" = "$(head -n 1 "$o/thunk.tsv")	Steady" ] || return 1
	sed 's/	[^	]*$//' "$T/m" | cmp -s - "$o/thunk.tsv" || return 1
	{ head -n 1 "$o/thunk.tsv"; awk -F'\t' 'NR > 1 && $NF == 1' "$T/m" | sed 's/	[^	]*$//'; } |
		cmp -s - "$T/a" || return 1
	$W -i $F "$o/thunk.tsv" | tail -n +2 > "$T/i"
	awk -F'\t' 'NR > 1 && $NF == 0' "$T/m" | sed 's/	[^	]*$//' | cmp -s - "$T/i"
}

# applied FRAMES: -a TABLE (the corrections nsysjax-align -o estimates
# from the communication frame) gives the bytes of nsysjax-align -a TABLE
# piped in, for every frame and mode, and the rows did move.
applied() {
	o=$1
	F="-c $o/compile.tsv --communication-from $o/communication.tsv"
	$BIN/nsysjax-align -o "$T/corr" "$o/communication.tsv" > /dev/null 2>&1 &&
		[ "$(wc -l < "$T/corr")" -gt 1 ] || return 1
	for f in thunk module communication; do
		for m in steady i m; do
			case $m in steady) m='' ;; *) m=-$m ;; esac
			# shellcheck disable=SC2086
			$BIN/nsysjax-align -a "$T/corr" "$o/$f.tsv" | $W $m $F > "$T/ap1" 2> /dev/null || return 1
			# shellcheck disable=SC2086
			$W $m -a "$T/corr" $F "$o/$f.tsv" > "$T/ap2" 2> "$T/ap.err" || return 1
			cmp -s "$T/ap1" "$T/ap2" && [ ! -s "$T/ap.err" ] || { echo "$f $m differs"; return 1; }
		done
		$W $F "$o/$f.tsv" | cmp -s - "$T/ap2" && { echo "$f: no row moved"; return 1; }
	done
	return 0
}

if have_data; then
	mkdir -p "$T/p0" "$T/c4"
	check "extract proc0" $X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip"
	check "extract combined4" $X -n proc0,proc1,proc2,proc3 -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip
	golden_split combined4 "$T/c4"
	golden_split proc0 "$T/p0"
	check "facts arrive alike" facts "$T/c4"
	check "several inputs" parts "$T/c4"
	check "mark" marked "$T/c4"
	check "-a: the bytes of nsysjax-align -a piped in" applied "$T/c4"
	# --skip: every program loses the same number of executions.
	$W -s 3 "$T/c4/module.tsv" > "$T/s3" &&
	awk -F'\t' 'NR > 1 && $2 < 3 { bad++ } NR > 1 { n++ } END { exit bad || !n }' "$T/s3" &&
	[ $(($(wc -l < "$T/s3") + $($W -i -s 3 "$T/c4/module.tsv" | wc -l))) -eq \
	    $(($(wc -l < "$T/c4/module.tsv") + 1)) ] && ok || notok "--skip 3"
	# The fallback on real data: nothing would be steady, all is kept.
	$W -s 100 "$T/c4/module.tsv" > "$T/o" 2> "$T/e" && cmp -s "$T/o" "$T/c4/module.tsv" &&
	    grep -q "no steady-state row among 123" "$T/e" && ok || notok "fallback on module"
	# Same input, same bytes.
	$W -c "$T/c4/compile.tsv" "$T/c4/thunk.tsv" | cmp -s - "$T/a" && ok || notok "not deterministic"
else
	skip "golden comparisons: $DATA not found"
fi

# ---- each rule on a small frame ----
printf 'ProgramId\tX\nA\tcompiled\n' > "$T/comp"
H='ProgramId\tProgramExecution\tDevice\n'
printf "$H"'A\t0\t0\nA\t1\t0\nA\t2\t0\nB\t0\t0\nB\t1\t0\nB\t2\t0\n' > "$T/mod"
# rule COMM WANT TITLE: the executions kept as steady, as "A2 B1 ...".
rule() {
	got=$($W -c "$T/comp" --communication "$1" "$T/mod" | awk -F'\t' 'NR > 1 { printf "%s%s%s", s, $1, $2; s = " " }')
	[ "$got" = "$2" ] && ok || notok "$3: got '$got', want '$2'"
}
rule yes "A2 B1 B2" "compiled + communication skip 2, communication alone 1"
rule no "A1 A2 B0 B1 B2" "compiled alone skips 1, neither 0"
# The input's own Communication column; a 1 anywhere counts.
printf 'ProgramId\tProgramExecution\tCommunication\nB\t0\t0\nB\t1\t0\nB\t2\t1\n' > "$T/thk"
[ "$($W -c "$T/comp" "$T/thk" | tail -n +2 | cut -f2 | tr '\n' ' ')" = "1 2 " ] && ok ||
	notok "Communication from the input"
sed 's/1$/0/' "$T/thk" > "$T/thk0"
[ "$($W -c "$T/comp" "$T/thk0" | tail -n +2 | cut -f2 | tr '\n' ' ')" = "0 1 2 " ] && ok ||
	notok "no Communication 1 in the input"
# From a pipe the rows wait until the end; the same rows come out.
for f in thk thk0; do
	for m in "" -i -m; do
		cat "$T/$f" | $W $m -c "$T/comp" > "$T/o1"
		$W $m -c "$T/comp" "$T/$f" > "$T/o2"
		cmp -s "$T/o1" "$T/o2" && ok || notok "pipe and file differ: $f $m"
	done
done
# A communication frame with rows means communication; an empty one not.
printf 'ProgramId\tName\nB\tall-reduce\n' > "$T/cf"
printf 'ProgramId\tName\n' > "$T/cf0"
[ "$($W -c "$T/comp" --communication-from "$T/cf" "$T/mod" | wc -l)" -eq 4 ] && ok || notok "--communication-from frame"
[ "$($W -c "$T/comp" --communication-from "$T/cf0" "$T/mod" | wc -l)" -eq 6 ] && ok || notok "--communication-from empty frame"
# Programs compiled: the union of every -c.
printf 'ProgramId\nB\n' > "$T/compB"
[ "$($W -c "$T/comp" -c "$T/compB" --communication no "$T/mod" | wc -l)" -eq 5 ] && ok || notok "-c twice"
# --skip overrides the facts (the -c file is not even read).
[ "$($W -s 2 -c "$T/nosuch" "$T/mod" | wc -l)" -eq 3 ] && ok || notok "--skip overrides"
[ "$($W -s 0 "$T/mod" | wc -l)" -eq 7 ] && ok || notok "--skip 0"
# Fallback: warn on stderr, keep everything, exit 0; init is empty.
printf "$H"'A\t0\t0\nA\t1\t0\n' > "$T/short"
$W -c "$T/comp" --communication yes "$T/short" > "$T/o" 2> "$T/e" && cmp -s "$T/o" "$T/short" &&
    [ "$(wc -l < "$T/e")" -eq 1 ] && grep -q "keeping every row as steady state" "$T/e" && ok || notok "fallback"
[ "$($W -i -c "$T/comp" --communication yes "$T/short" 2>/dev/null | wc -l)" -eq 1 ] && ok || notok "fallback -i"
[ "$($W -m -c "$T/comp" --communication yes "$T/short" 2>/dev/null | awk -F'\t' 'NR > 1 && $4 == 1' | wc -l)" -eq 2 ] &&
    ok || notok "fallback -m"
# Columns pass through unchanged, escapes and all; the user's own too.
printf 'Mine\tProgramId\tProgramExecution\tMore\nx\\ty\tB\t1\ta\\\\b\\nc\n' > "$T/esc"
$W -c "$T/comp" --communication yes "$T/esc" | cmp -s - "$T/esc" && ok || notok "pass-through"
# No temporary file left behind, and TMPDIR is where the rows wait.
mkdir -p "$T/tmp"
TMPDIR=$T/tmp $W -c "$T/comp" < "$T/thk" > /dev/null && [ -z "$(ls -A "$T/tmp")" ] && ok || notok "temporary file left"
TMPDIR=$T/nosuch $W -c "$T/comp" < "$T/thk" > /dev/null 2> "$T/e"
[ $? -eq 1 ] && grep -q "cannot create temporary file" "$T/e" && ok || notok "TMPDIR error"
# -v reports the facts.
$W -v -c "$T/comp" "$T/thk" 2>&1 > /dev/null | grep -q "compiled programs 1, communication yes" && ok || notok "-v"
$W -v -c "$T/comp" < "$T/thk0" 2>&1 > /dev/null | grep -q "communication no; 3 rows waited" && ok || notok "-v waited"

# ---- errors ----
# expect_error STATUS PATTERN CMD...: CMD exits STATUS and prints one
# stderr line matching PATTERN (stdout may hold rows decided earlier).
expect_error 2 "usage" $W "$T/mod"
expect_error 2 "give -c FILE" $W "$T/mod"
expect_error 2 "exclude each other" $W -i -m -s 1 "$T/mod"
expect_error 2 "yes or no" $W -s 1 --communication maybe "$T/mod"
expect_error 2 "exclude each other" $W -c "$T/comp" --communication yes --communication-from "$T/cf" "$T/mod"
expect_error 2 "--skip '-1': not an integer" $W -s -1 "$T/mod"
expect_error 2 "--skip '2x': not an integer" $W -s 2x "$T/mod"
expect_error 2 "usage" $W --bogus "$T/mod"
expect_error 1 "nosuch: cannot open" $W -c "$T/nosuch" "$T/mod"
expect_error 1 "nosuch: cannot open" $W -s 1 "$T/nosuch"
expect_error 1 "mod: missing column 'Communication' (whether the profile has communication: else give --communication" $W -c "$T/comp" "$T/mod"
printf 'Name\n' > "$T/noid"
expect_error 1 "noid: missing column 'ProgramId'" $W -c "$T/noid" --communication no "$T/mod"
expect_error 1 "noid: missing column 'ProgramId'" $W -s 1 "$T/noid"
printf 'ProgramId\tDevice\nA\t0\n' > "$T/noexec"
expect_error 1 "noexec: missing column 'ProgramExecution'" $W -s 1 "$T/noexec"
printf "$H"'A\t5\t0\nA\t6x\t0\n' > "$T/nonnum"
expect_error -r 1 "nonnum:3: column ProgramExecution: not an integer: '6x'" $W -s 1 "$T/nonnum"
# The row decided before the bad one is written.
[ "$(cat "$T/o")" = "$(printf "$H"'A\t5\t0')" ] && ok || notok "rows before the error"
printf "$H"'A\t5\t0\nA\t6\n' > "$T/ragged"
expect_error -r 1 "ragged:3: 2 fields, the header has 3" $W -s 1 "$T/ragged"
printf 'ProgramId\tProgramExecution\tCommunication\nA\t0\tTrue\n' > "$T/badcomm"
expect_error 1 "badcomm:2: column Communication: not 0 or 1: 'True'" $W -c "$T/comp" "$T/badcomm"
expect_error 1 "badcomm:2: column Communication: not 0 or 1" $W -c "$T/comp" --communication-from "$T/badcomm" "$T/mod"
printf 'ProgramId\tProgramExecution\tSteady\n' > "$T/hasmark"
expect_error 1 "hasmark: column 'Steady' exists already" $W -m -s 1 "$T/hasmark"
printf "$H" > "$T/h1"; printf 'ProgramId\tProgramExecution\n' > "$T/h2"
expect_error -r 1 "h2: header differs" $W -s 1 "$T/h1" "$T/h2"
: > "$T/empty"
expect_error 1 "empty: no header line" $W -s 1 "$T/empty"

# -a by hand: device 0's ProjStartMs less its correction, exact in ns
# (10.5 - 0.25, 0.000001 - -2); device 1, not in the table, unchanged
# and named in a warning; an empty ProjStartMs stays empty.
printf 'Device\tCorrectionMs\tInstances\tSpreadMs\n0\t0.25\t3\t0\n' > "$T/t1"
printf 'Device\tCorrectionMs\tInstances\tSpreadMs\n0\t-2\t3\t0\n' > "$T/t2"
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\nA\t5\t0\t10.5\nA\t5\t1\t10.5\nA\t6\t0\t\nA\t7\t0\t0.000001\n' > "$T/ap"
$W -s 1 -a "$T/t1" "$T/ap" > "$T/o" 2> "$T/e" &&
	[ "$(cut -f 4 "$T/o" | tr '\n' ' ')" = "ProjStartMs 10.25 10.5  -0.249999 " ] &&
	grep -qF "no correction for device 1 in $T/t1: its rows are unchanged" "$T/e" &&
	[ "$(wc -l < "$T/e")" -eq 1 ] && ok || notok "-a by hand: $(cat "$T/o" "$T/e")"
$W -s 1 -a "$T/t2" "$T/ap" 2> /dev/null | cut -f 4 | tr '\n' ' ' | grep -qx "ProjStartMs 12.5 10.5  2.000001 " &&
	ok || notok "-a: a negative correction"
printf 'ProgramId\tProgramExecution\tDevice\nA\t5\t0\n' > "$T/nostart"
$W -s 1 -a "$T/t1" "$T/nostart" > "$T/o" 2> "$T/e" && cmp -s "$T/o" "$T/nostart" &&
	grep -qF "not aligned: no ProjStartMs column" "$T/e" && ok || notok "-a: no ProjStartMs passes"
expect_error 1 "nosuch: No such file" $W -s 1 -a "$T/nosuch" "$T/ap"
printf 'ProgramId\tProgramExecution\tProjStartMs\nA\t5\t1\n' > "$T/nodev"
expect_error 1 "nodev: missing column 'Device'" $W -s 1 -a "$T/t1" "$T/nodev"
printf 'ProgramId\tProgramExecution\tDevice\tProjStartMs\nA\t5\t0\t1.5\nA\t6\t0\t1x\n' > "$T/badstart"
expect_error -r 1 "badstart:3: column ProjStartMs" $W -s 1 -a "$T/t1" "$T/badstart"
done_testing t30-warmup
