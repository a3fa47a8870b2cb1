#!/bin/sh
# pipelines/report.sh as a user meets it, on the example
# profile: make run's inputs, a report directory replaced whole only on
# success, signals stopping every job, the module and execution choices
# (-m, -x, --skip), --help, the data of the plots.
set -u
. tests/lib.sh
R=pipelines/report.sh
export NSYSJAX_BIN=$BIN
EX=${EXAMPLE:-build/example/profile}
truth() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$EX/truth.tsv"; }

# make run: INPUTS="$(ls ...)" holds newlines; they are spaces on the
# one command line; out/ is not removed beforehand.
make -s -n -o all run INPUTS="$(printf 'a.zip\nb.zip\n')" > "$T/mk" 2>&1
grep -q 'report.sh -o out a.zip b.zip$' "$T/mk" && ! grep -q 'rm -rf' "$T/mk" && ok ||
	notok "make run with newlines in INPUTS: $(cat "$T/mk")"

sh $R --help > "$T/h" 2>&1; [ $? -eq 0 ] && grep -q '^usage: .*--skip' "$T/h" && ok || notok "--help: $(cat "$T/h")"
sh $R --bogus -o "$T/x" "$EX/rank0" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && grep -q usage "$T/e" && ok ||
	notok "--bogus: not a usage error"
sh $R --skip x -o "$T/x" "$EX/rank0" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && ok || notok "--skip x: not a usage error"
sh $R -m '(' -o "$T/x" "$EX/rank0" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && ok || notok "-m '(': not a usage error"

# Input handed to the wrong tool: a TSV filter names what it got and the
# tool that reads it (lib/base/tsv.c, one place for every filter).
SQ=${EX%/profile}/sqlite/rank0/rank0.sqlite
if [ -f "$SQ" ]; then
	expect_error 1 "rank0.sqlite: an SQLite database, not TSV: nsysjax-extract" "$BIN/nsysjax-warmup" -s 1 "$SQ"
	expect_error 1 "trace.parquet: a Parquet file, not TSV" "$BIN/nsysjax-collectives" -s hidden "$EX/rank0/nvtx_gpu_proj_trace/trace.parquet"
	xz -c < "$EX/rank0/report_nvtx_pushpop_trace.csv" > "$T/p.xz" 2> /dev/null &&
		expect_error 1 "p.xz: xz-compressed, not TSV" "$BIN/nsysjax-align" "$T/p.xz"
	if need zip; then
		(cd "$EX" && zip -q -r "$T/rank0.zip" rank0)
		expect_error 1 "rank0.zip: a zip archive, not TSV: nsysjax-extract" "$BIN/nsysjax-compilestats" "$T/rank0.zip"
	fi
fi

# nsysjax-diff's summary: no exponent notation, in the p value nor in
# the options it repeats (1e-08 given as 0.00000001).
if [ -d "$EX/rank0" ]; then
	"$BIN/nsysjax-extract" -f thunk "$EX/rank0" "$EX/rank1" > "$T/before.tsv" 2> /dev/null
	awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	    { $c["ProjDurMs"] = sprintf("%.6f", $c["ProjDurMs"] * 1.5); print }' "$T/before.tsv" > "$T/after.tsv"
	"$BIN/nsysjax-diff" -t 5 -p 0.00000001 -f 0.00001 "$T/before.tsv" "$T/after.tsv" > "$T/dout" 2>&1
	grep -q "gate (-t 5, -p 0.00000001)" "$T/dout" && grep -q "at least 0.00001 of the time" "$T/dout" &&
	    grep -q '^total: .*, p \(< 0.000001\|[01]\.[0-9]\{4,6\}\))' "$T/dout" && ! grep -q "[0-9]e[-+][0-9]" "$T/dout" && ok ||
		notok "nsysjax-diff summary: $(tail -3 "$T/dout")"
fi

if [ ! -d "$EX/rank0" ]; then
	skip "example profile: not built (make example)"
	done_testing t76-report-use
	exit
fi
mkdir -p "$T/tmpd"
export TMPDIR="$T/tmpd"

# A report over an earlier one: the earlier files are gone (a stale
# plot, a stale PGLE file), the frames are the new run's.
sh $R -q -o "$T/r" "$EX/rank0" "$EX/rank1" > /dev/null 2>&1 || notok "report on the example"
: > "$T/r/plots/stale.svg"
: > "$T/r/pgle/0123456789abcdef.pbtxt"
sh $R -q -o "$T/r" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/e" && [ ! -e "$T/r/plots/stale.svg" ] &&
	[ ! -e "$T/r/pgle/0123456789abcdef.pbtxt" ] && [ -s "$T/r/report.html" ] && ok ||
	notok "report over an earlier one keeps its files: $(cat "$T/e")"
ls -A "$T" | grep -q '\.r\.\(new\|old\)\.' && notok "work directories left beside the report" || ok
# A failed report leaves the earlier one as it was.
cp -R "$T/r" "$T/r.before"
sh $R -q -o "$T/r" "$T/nosuch.zip" > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && diff -r "$T/r" "$T/r.before" > /dev/null && ok || notok "failed report: exit $rc, earlier report changed"
ls -A "$T" | grep -q '\.r\.\(new\|old\)\.' && notok "failed report left its directory" || ok
# Its own frames as input: the same report, frames and comparison kept.
mkdir "$T/r/diff" && echo '<section id="nsysjax-diff"></section>' > "$T/r/diff/diff-section.html"
sh $R -q -o "$T/r" "$T/r/frames" > /dev/null 2> "$T/e" && [ -s "$T/r/frames/thunk.tsv" ] &&
	grep -q 'id="nsysjax-diff"' "$T/r/report.html" && diff -r -x report.txt -x report.html -x diff "$T/r" "$T/r.before" > /dev/null && ok ||
	notok "report of its own frames: $(cat "$T/e")"
# A directory that is no report is not replaced; nor an input in it.
mkdir "$T/mine" && : > "$T/mine/thesis.tex"
sh $R -q -o "$T/mine" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && [ -f "$T/mine/thesis.tex" ] && grep -q 'not an earlier report' "$T/e" && ok ||
	notok "a directory of other files: exit $rc, $(cat "$T/e")"
cp -R "$T/r/frames" "$T/r.before/frames2"
sh $R -q -o "$T/r.before" "$T/r.before/frames2" > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'inside the output directory' "$T/e" && ok || notok "input inside -o: exit $rc, $(cat "$T/e")"
[ -z "$(ls -A "$T/tmpd")" ] && ok || notok "work files left in TMPDIR: $(ls -A "$T/tmpd")"

# One profile given twice (a symbolic link, a copy): refused by name,
# before anything runs; no message names a pipeline's work file.
ln -s "$(cd "$EX/rank0" && pwd)" "$T/link0"
cp -R "$EX/rank0" "$T/copy0"
for dup in link0:'the same file' copy0:'the same profile'; do
	sh $R -q -o "$T/dup" "$EX/rank0" "$EX/rank1" "$T/${dup%%:*}" > /dev/null 2> "$T/e"; rc=$?
	[ $rc -eq 1 ] && grep -q "${dup#*:}" "$T/e" && grep -q "${dup%%:*}" "$T/e" && [ ! -e "$T/dup" ] &&
		! grep -q 'nsysjax-pipeline\.' "$T/e" && ok || notok "${dup%%:*} given with rank0: exit $rc, $(cat "$T/e")"
done
expect_error 1 'the same file' "$BIN/nsysjax-extract" -f module "$EX/rank0" "$T/link0"

# The data of the plots hold every device (the skews: one row each, the
# header first), and the straggler data every device of each module.
ndev=$(truth devices)
if command -v gnuplot > /dev/null; then
	awk -F'\t' 'NR == 1 { if ($1 != "Device") exit 1; next } { print $1 }' "$T/r/plots/skews.tsv" > "$T/d" &&
		[ "$(tr '\n' ' ' < "$T/d")" = "$(seq 0 $((ndev - 1)) | tr '\n' ' ')" ] && ok ||
		notok "skews plot data: devices $(tr '\n' ' ' < "$T/d")"
	awk -F'\t' 'NR > 1 { print $1 }' "$T/r/corrections.tsv" | cmp -s - "$T/d" && ok || notok "skews plot: not the corrections' devices"
else
	skip "plots: gnuplot not installed"
fi

# The modules' facts (modules/facts.tsv): the work module is the one
# with the most compute; its hidden share is nsysjax-collectives's over
# its own communication rows; the collective wait recomputed from the
# steady thunk frame, per instance the sum of durations less the count
# times the shortest (sort, then one pass).
facts_checks() { # NAME REPORT-DIR
	d=$2
	for f in thunk communication; do
		"$BIN/nsysjax-align" -a "$d/corrections.tsv" "$d/frames/$f.tsv" 2> /dev/null |
		    "$BIN/nsysjax-warmup" -c "$d/frames/compile.tsv" --communication-from "$d/frames/communication.tsv" > "$T/st-$f.tsv"
	done
	work=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["WorkModule"] == 1 { print $1 }' "$d/modules/facts.tsv")
	want=$(awk -F'\t' 'NR > 1 && $13 == 0 { t[$1] += $8 } END { for (k in t) if (t[k] > m) { m = t[k]; w = k }; print w }' "$T/st-thunk.tsv")
	[ -n "$work" ] && [ "$work" = "$want" ] && ok || notok "$1: work module $work, want $want"
	awk -F'\t' -v w="$work" 'NR == 1 || $1 == w' "$T/st-communication.tsv" | "$BIN/nsysjax-collectives" -s hidden |
	    awk -F'\t' '$1 == "(all)" { print $5 }' > "$T/hs"
	awk -F'\t' -v w="$work" -v hs="$(cat "$T/hs")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $1 == w { d = $c["HiddenShare"] - hs; exit !(hs != "" && d < 1e-9 && d > -1e-9) }' "$d/modules/facts.tsv" && ok ||
		notok "$1: hidden share of $work not $(cat "$T/hs")"
	awk -F'\t' -v OFS='\t' 'NR > 1 && $13 == 1 { printf "%s|%s|%s|%s\t%.6f\n", $1, $2, $3, $4, $8 + $14 }' "$T/st-thunk.tsv" | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2g |
	    awk -F'\t' '{ split($1, k, "|") } $1 != last { last = $1; lo = $2 } { w[k[1]] += $2 - lo } END { for (p in w) printf "%s\t%.6f\n", p, w[p] }' | sort > "$T/waitwant"
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Devices"] > 1 && $c["CommunicationMs"] > 0 { printf "%s\t%.6f\n", $1, $c["CollectiveWaitMs"] }' \
	    "$d/modules/facts.tsv" | sort > "$T/waitgot"
	[ -s "$T/waitgot" ] && join "$T/waitwant" "$T/waitgot" | awk '{ d = $2 - $3; if (d > 1e-5 || d < -1e-5) bad++ } END { exit bad > 0 }' &&
		[ "$(wc -l < "$T/waitgot")" -le "$(wc -l < "$T/waitwant")" ] && ok || notok "$1: collective waits differ: $(head -3 "$T/waitwant" "$T/waitgot")"
	# WaitShare is CollectiveWaitMs / ProjDurMs: exactly 0 without a wait
	# (gawk 5.2.1 gave each run another denormal there), else within 1e-9.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Devices"] > 1 {
	    w = $c["CollectiveWaitMs"]; s = $c["WaitShare"]; d = $c["ProjDurMs"]
	    if (length(s) > 24 || (w == 0 && s != "0") || (d > 0 && (s - w / d > 1e-9 || w / d - s > 1e-9))) bad++ }
	    END { exit bad > 0 }' "$d/modules/facts.tsv" && ok || notok "$1: WaitShare not CollectiveWaitMs / ProjDurMs"
}
facts_checks example "$T/r"
# The compile tables: phases without XLA's decoration, the total (the
# outermost ranges, summed over the processes) and the time of each
# module's compilations (its XlaCompile ranges, by name here).
sed -n '/^Compilation: the largest phases/,/^$/p;/^  *Phase/,/^$/p' "$T/r/report.txt" | grep -q ':#' &&
	notok "compile table: decorated phase names" || ok
tot=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["ParentId"] == "" { t += $c["DurMs"] } END { printf "%.1f", t / 1000 }' "$T/r/frames/compile.tsv")
grep -q "^Compilation: $tot s in total, summed over $ndev process(es)" "$T/r/report.txt" && ok || notok "compile total: not $tot s over $ndev processes"
cms=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } index($c["Name"], "XlaCompile:#module=jit_train_step,") == 1 { t += $c["DurMs"] }
    END { s = sprintf("%.1f", t); i = index(s, "."); w = substr(s, 1, i - 1); g = ""
          while (length(w) > 3) { g = "," substr(w, length(w) - 2) g; w = substr(w, 1, length(w) - 3) }; print w g substr(s, i) }' "$T/r/frames/compile.tsv")
grep -q "^  jit_train_step ($(truth fingerprint.jit_train_step | cut -c 1-12))  *$cms  *rank0,rank1\$" "$T/r/report.txt" && ok ||
	notok "compile time of jit_train_step: not $cms"

# The notebook's extra views, with their data: every compute thunk of
# the steady state (more than one execution) in the variability scatter,
# every device in the skew distribution; the top modules' share line.
if command -v gnuplot > /dev/null; then
	awk -F'\t' 'NR > 1 && $13 != 1 { n[$1 "\t" $3]++ } END { for (k in n) if (n[k] > 1) m++; print m + 0 }' "$T/st-thunk.tsv" > "$T/nv"
	[ "$(tail -n +2 "$T/r/plots/variability-scatter.tsv" | wc -l)" -eq "$(cat "$T/nv")" ] && [ -s "$T/r/plots/variability-scatter.svg" ] && ok ||
		notok "variability scatter: not every compute thunk ($(cat "$T/nv"))"
	[ "$(tail -n +2 "$T/r/plots/skews-by-device.tsv" | cut -f 1 | sort -un | tr '\n' ' ')" = "$(seq 0 $((ndev - 1)) | tr '\n' ' ')" ] &&
		[ -s "$T/r/plots/skews-distribution.svg" ] && ok || notok "skew distribution: not every device"
fi
grep -q '^100\.00% of execution time accounted for by the 1 top module(s) of 1: ' "$T/r/report.txt" && ok || notok "no top-module share line"

# plots.awk's skew distribution: skews by Device, as
# nsysjax-align -s writes them, go out in one pass; out of order, through
# the stable sort. Either way the table is what sort -s -k1,1n gives of
# (Device, EndTimeSkewMs), and each series file holds one device's rows.
skd_check() { # NAME ROWS...
	_n=$1; shift
	rm -rf "$T/pk"; mkdir -p "$T/pk/out/plots" "$T/pk/w/plotdata" "$T/pk/st"
	{ printf 'Device\tInstance\tEndTimeSkewMs\n'; printf '%s\n' "$@"; } > "$T/pk/out/alignment_skews.tsv"
	OUT=$T/pk/out W=$T/pk/w ST=$T/pk/st awk -f pipelines/lib/sort.awk -f pipelines/lib/plots.awk || notok "$_n: plots.awk failed"
	{ printf 'Device\tEndTimeSkewMs\n'; printf '%s\n' "$@" | cut -f 1,3 | sort -s -t "$(printf '\t')" -k1,1n; } > "$T/pk/want"
	cmp -s "$T/pk/want" "$T/pk/out/plots/skews-by-device.tsv" && ok || notok "$_n: skews-by-device.tsv not sorted by Device, stably"
	for f in "$T"/pk/w/skd.*.tsv; do tail -n +2 "$f" | cut -f 1 | sort -u; done > "$T/pk/devs"
	[ "$(cat "$T/pk/devs")" = "$(tail -n +2 "$T/pk/want" | cut -f 1 | uniq)" ] && ok || notok "$_n: not one series file per device, in order"
}
TB=$(printf '\t')
skd_check "in order" "0${TB}1${TB}0.5" "0${TB}2${TB}-0.25" "1${TB}1${TB}-0.5" "10${TB}1${TB}0.125" "10${TB}2${TB}0.25"
skd_check "out of order" "2${TB}1${TB}0.5" "10${TB}1${TB}-0.25" "2${TB}2${TB}-0.5" "1${TB}1${TB}0.125" "10${TB}2${TB}0.25"
# Past 2,000 skews on a device every curve is binned: per device 201 points
# (two for a device whose skews are all equal), from its least skew at
# share 0 to its greatest at share 1, the share at each edge between the
# shares of its skews below and at or below the edge (counted here from
# the rows, to the 6 decimals written).  Device 3: 2,001 skews i^2 / 10^6,
# device 1 three of 0.5, device 7 the values -1 .. 1 by 0.001 (its last
# written before device 3's: out of order).
skd_binned() { # NAME ORDER
	awk -v order="$2" 'BEGIN { OFS = "\t"; print "Device", "Instance", "EndTimeSkewMs"
		for (k = 1; k <= 3; k++) print 1, k, 0.5
		if (order == "out") print 7, 0, -1.000
		for (i = 0; i <= 2000; i++) printf "3\t%d\t%.6f\n", i, i * i / 1e6
		for (i = (order == "out"); i <= 2000; i++) printf "7\t%d\t%.3f\n", i, -1 + i / 1000 }' > "$T/pkb.tsv"
	rm -rf "$T/pk"; mkdir -p "$T/pk/out/plots" "$T/pk/w" "$T/pk/st"
	cp "$T/pkb.tsv" "$T/pk/out/alignment_skews.tsv"
	OUT=$T/pk/out W=$T/pk/w ST=$T/pk/st awk -f pipelines/lib/sort.awk -f pipelines/lib/plots.awk || notok "$1: plots.awk failed"
	{ printf 'Device\tEndTimeSkewMs\n'; tail -n +2 "$T/pkb.tsv" | cut -f 1,3 | sort -s -t "$TB" -k1,1n; } |
		cmp -s - "$T/pk/out/plots/skews-by-device.tsv" && ok || notok "$1: skews-by-device.tsv not every skew by Device"
	for f in "$T"/pk/w/skd.*.tsv; do
		awk -F'\t' -v rows="$T/pkb.tsv" 'BEGIN { while ((getline l < rows) > 0) { split(l, x, "\t"); if (x[1] ~ /^[0-9]+$/) { v[x[1], ++n[x[1]]] = x[3] + 0 } } }
		NR == 1 { if ($0 != "Device\tEndTimeSkewMs\tShare\tFromMeanMs") bad = bad " header"; next }
		{ d = $1; m++; e = $2 + 0; s = $3 + 0
		  if (m == 1) { dev = d; lo = e; if (s != 0) bad = bad " first share " s }
		  if (d != dev) bad = bad " devices " dev "," d
		  if (s < last) bad = bad " share falls at " e
		  last = s; hi = e
		  below = 0; upto = 0
		  for (i = 1; i <= n[d]; i++) { below += v[d, i] < e - 0.000001; upto += v[d, i] <= e + 0.000001 }
		  if (s < below / n[d] - 0.000001 || s > upto / n[d] + 0.000001) bad = bad " share " s " at " e " not in [" below / n[d] ", " upto / n[d] "]" }
		END { mn = v[dev, 1]; mx = v[dev, 1]; for (i = 1; i <= n[dev]; i++) { if (v[dev, i] < mn) mn = v[dev, i]; if (v[dev, i] > mx) mx = v[dev, i] }
		  if (m != (mn == mx ? 2 : 201)) bad = bad " " m " points"
		  if (last != 1 || sprintf("%.6f", lo) != sprintf("%.6f", mn) || sprintf("%.6f", hi) != sprintf("%.6f", mx)) bad = bad " ends " lo " " hi " " last
		  if (bad != "") { print FILENAME ":" substr(bad, 1, 300); exit 1 } }' "$f" || { notok "$1: binned series $f"; return; }
	done
	ok
	[ "$(ls "$T"/pk/w/skd.*.tsv | wc -l)" -eq 3 ] && ok || notok "$1: not one binned series per device"
}
skd_binned "binned, in order" in
skd_binned "binned, out of order" out

# The plots as drawn, read from their SVG (plot_facts: gnuplot's border,
# its texts outside the plots, each plot's key entries, paths and point
# symbols, in pixels, y downwards).
plot_facts() { # SVG
	awk '
	function xy(s, p) { sub(/.*translate\(/, "", s); sub(/\).*/, "", s); split(s, p, ",") }
	/<g id="gnuplot_plot_/ { g = ++ng; first = 1; next }
	/^\t<\/g>$/ { g = 0 }	# a plot ends (a text group ends with its text)
	/translate\(/ && /text-anchor=/ {
		l0 = $0; xy($0, p); a = $0; sub(/.*text-anchor="/, "", a); sub(/".*/, "", a)
		getline t; getline; gsub(/<[^>]*>/, "", t); gsub(/^[ \t]+|[ \t]+$/, "", t)
		if (g && first) { print "key", g, p[1], p[2], t; first = 0 } else if (!g) print "label", a, p[1], p[2], t
		# A tick label follows its tick mark on the line: the mark
		# where it meets the border.
		if (!g && match(l0, /d=.M[0-9.]+,[0-9.]+/)) { m = substr(l0, RSTART + 4, RLENGTH - 4); split(m, q, ","); print "tick", a, q[1], q[2], t }
		next }
	/ d=.M/ && / Z / && !nframe {
		d = $0; sub(/.* d=./, "", d); sub(/[^0-9 .,MLZ].*/, "", d); gsub(/[MLZ]/, " ", d); n = split(d, q, /[ ,]+/)
		for (i = 1; i <= n; i++) if (q[i] != "") { v = q[i] + 0
			if (++k % 2) { if (L == "" || v < L) L = v; if (v > R) R = v } else { if (T == "" || v < T) T = v; if (v > B) B = v } }
		print "frame", L, R, T, B; nframe = 1; next }
	g && /<path / && / d=/ {
		d = $0; sub(/.* d=./, "", d)
		while (d !~ /\047/ && (getline l) > 0) d = d " " l
		sub(/\047.*/, "", d); n = split(d, s, "M")
		for (i = 2; i <= n; i++) { u = s[i]; gsub(/L/, " ", u); gsub(/[ \t]+/, " ", u); sub(/^ /, "", u); sub(/ $/, "", u); print "path", g, u }
		next }
	g && /<use xlink:href=.#gpPt/ && !/#FFFFFF/ { xy($0, p); print "point", g, p[1], p[2] }' "$1"
}
# x_ticks FACTS, y_ticks FACTS: the ticks of the x axis (on the bottom
# border), of the y axis (on the left border), "PIXEL LABEL".
x_ticks() {
	awk 'FNR == NR { if ($1 == "frame") B = $5; next }
	    $1 == "tick" && $2 == "middle" && $4 - B < 0.5 && B - $4 < 0.5 { t = $5; for (i = 6; i <= NF; i++) t = t " " $i; print $3, t }' "$1" "$1"
}
y_ticks() {
	awk 'FNR == NR { if ($1 == "frame") L = $2; next }
	    $1 == "tick" && $2 == "end" && $3 - L < 0.5 && L - $3 < 0.5 { t = $5; for (i = 6; i <= NF; i++) t = t " " $i; print $4, t }' "$1" "$1"
}
if command -v gnuplot > /dev/null; then
	# Keys: every key entry of every plot outside the border (inside, at
	# the bottom right, the roofline's and the skews distribution's key
	# covered points).
	for f in "$T"/r/plots/*.svg "$T"/r/roofline/roofline.svg; do
		plot_facts "$f" > "$T/pf"
		awk -v f="${f##*/}" '$1 == "frame" { L = $2; R = $3; T = $4; B = $5 }
		    $1 == "key" { n++; if ($3 >= L && $3 <= R && $4 >= T && $4 <= B) print f ": key \"" $5 (NF > 5 ? " " $6 : "") "\" at " $3 "," $4 " inside the frame " L "-" R ", " T "-" B }
		    END { if (n) print "keyed" > "/dev/stderr" }' "$T/pf"
	done > "$T/keyin" 2> "$T/keyed"
	[ ! -s "$T/keyin" ] && [ "$(wc -l < "$T/keyed")" -ge 5 ] && ok || notok "keys over the data: $(head -n 3 "$T/keyin"; wc -l < "$T/keyed") plots with keys"
	# The device axes (the skews, the stragglers): a tick at a device
	# only, an integer from 0 to the devices (of the corrections) less
	# one, each labelled; every point within the border (a key's sample
	# is beyond it) at least a quarter of a device's spacing inside it
	# (devices 0 and N-1 were drawn on it).
	for p in skews stragglers; do
		plot_facts "$T/r/plots/$p.svg" > "$T/pf"
		x_ticks "$T/pf" > "$T/xt"
		awk -v nd="$ndev" -v p="$p" 'FILENAME ~ /xt$/ { if ($2 !~ /^[0-9]+$/ || $2 + 0 >= nd) print p ": tick " $2; seen[$2 + 0] = 1; next }
		    $1 == "frame" { L = $2; R = $3; T = $4; B = $5; m = (R - L) / nd / 4 }
		    $1 == "point" && $3 >= L - 1 && $3 <= R + 1 && $4 >= T - 1 && $4 <= B + 1 { np++; if ($3 < L + m || $3 > R - m) print p ": a point at x " $3 ", the border at " L " and " R }
		    END { for (d = 0; d < nd; d++) if (!(d in seen)) print p ": no tick at device " d; if (!np) print p ": no point" }' "$T/xt" "$T/pf" > "$T/axbad"
		[ ! -s "$T/axbad" ] && ok || notok "device axis: $(head -n 3 "$T/axbad" | tr '\n' ' ')"
	done
	# One palette: every colour of every plot of the example's report
	# one of the Okabe-Ito palette's (or white; gnuplot's own default
	# colours were in every plot of one series).
	cat "$T"/r/plots/*.svg "$T"/r/roofline/roofline.svg | grep -o "rgb([0-9, ]*)\|#[0-9A-Fa-f]\{6\}" | tr -d ' ' | sed '/^#/y/abcdef/ABCDEF/' | sort -u |
	    grep -v -x -e '#FFFFFF' -e 'rgb(0,114,178)' -e 'rgb(230,159,0)' -e 'rgb(0,158,115)' -e 'rgb(204,121,167)' -e 'rgb(86,180,233)' \
	        -e 'rgb(213,94,0)' -e 'rgb(0,0,0)' -e 'rgb(240,228,66)' > "$T/colbad"
	[ ! -s "$T/colbad" ] && ok || notok "colours not of the palette: $(tr '\n' ' ' < "$T/colbad")"
	# A device is one colour in every plot: planted, skews of devices 0
	# to 3 and a module that ran on devices 2 and 3 only (its straggler
	# plot's first device was the first colour, device 0's in the skews'
	# distribution).
	rm -rf "$T/pk"; mkdir -p "$T/pk/out/plots" "$T/pk/out/summary" "$T/pk/w/stats" "$T/pk/st"
	awk 'BEGIN { OFS = "\t"; print "Device", "Instance", "EndTimeSkewMs"; for (d = 0; d < 4; d++) for (i = 1; i <= 3; i++) print d, i, d + i / 1000 }' > "$T/pk/out/alignment_skews.tsv"
	printf 'ProgramId\tName\tTopModule\nfeed\tjit_step\t1\n' > "$T/pk/out/summary/modules.tsv"
	printf 'ProgramId\tDevice\nfeed\t2\nfeed\t3\n' > "$T/pk/st/module.tsv"
	awk 'BEGIN { OFS = "\t"; print "ProgramId", "Name", "ThunkExecution", "Device", "Executions", "OffsetMs", "StartBiasMs", "Communication", "Collective"
	    for (d = 2; d <= 3; d++) for (k = 0; k < 3; k++) print "feed", "thunk." k, 0, d, 2, k, (d - 2.5) * k / 10, 0, "" }' > "$T/pk/w/stats/offsets.tsv"
	OUT=$T/pk/out W=$T/pk/w ST=$T/pk/st awk -f pipelines/lib/sort.awk -f pipelines/lib/plots.awk || notok "plots.awk on planted devices"
	for p in skews-distribution stragglers-feed; do
		n=$(awk -F'\t' -v p="$p" '$2 == p { print $1 }' "$T/pk/w/plots.list")
		[ -n "$n" ] && gnuplot -c "$T/pk/w/plot.$n.gp" "$T/pk/out/plots" "$T/pk/w" 2>> "$T/pk/gp.err"
		awk -v p="$p" '/<text>device [0-9]+<\/text>/ { t = $0; sub(/.*<text>/, "", t); sub(/<.*/, "", t); next }
		    t != "" && /stroke=.rgb/ { s = $0; sub(/.*stroke=.rgb\(/, "", s); sub(/\).*/, "", s); gsub(/ /, "", s); print t, s, p; t = "" }' "$T/pk/out/plots/$p.svg"
	done > "$T/devcol"
	awk '{ k = $1 " " $2; if (k in c && c[k] != $3) { print k ": " c[k] " in " w[k] ", " $3 " in " $4; bad = 1 } c[k] = $3; w[k] = $4; n[$4]++ }
	    END { exit bad || n["skews-distribution"] != 4 || n["stragglers-feed"] != 2 }' "$T/devcol" > "$T/devbad" && ok ||
		notok "a device's colour differs between plots: $(cat "$T/devbad" "$T/pk/gp.err")"
	# The skews' distribution, planted: device 0's skews -100.001, -100,
	# -100 and -99.999 ms (mean -100), device 1's 50.002, 50, 49.998, 50
	# and 50 (mean 50).  About its mean device 0 rises at -1 µs from share
	# 0 to 1/4, at 0 to 3/4 and at 1 µs to 1; device 1 at -2 µs to 1/5, at
	# 0 to 4/5 and at 2 µs to 1.  Drawn as steps (each segment level or
	# upright), on a y axis from 0 (it began at the first share; the two
	# devices were vertical lines 150 ms apart).
	rm -rf "$T/pk"; mkdir -p "$T/pk/out/plots" "$T/pk/w" "$T/pk/st"
	printf 'Device\tInstance\tEndTimeSkewMs\n0\t1\t-100.001\n0\t2\t-100\n0\t3\t-100\n0\t4\t-99.999\n1\t1\t50.002\n1\t2\t50\n1\t3\t49.998\n1\t4\t50\n1\t5\t50\n' \
	    > "$T/pk/out/alignment_skews.tsv"
	if OUT=$T/pk/out W=$T/pk/w ST=$T/pk/st awk -v PART=skews -f pipelines/lib/sort.awk -f pipelines/lib/plots.awk &&
	    gnuplot -c "$T/pk/w/plot.skews-distribution.gp" "$T/pk/out/plots" "$T/pk/w" 2> "$T/pk/gp.err"; then
		plot_facts "$T/pk/out/plots/skews-distribution.svg" > "$T/pf"
		x_ticks "$T/pf" > "$T/xt"; y_ticks "$T/pf" > "$T/yt"
		T=$T awk -v want="device 0: -1 0 0.25, 0 0.25 0.75, 1 0.75 1; device 1: -2 0 0.2, 0 0.2 0.8, 2 0.8 1" '
		function ax(f, a,    n, l, p, v) { n = 0; while ((getline l < f) > 0) { split(l, p, " "); v = p[2]; gsub(/−/, "-", v)
			if (!n++) { a["p0"] = p[1]; a["v0"] = v } else { a["p1"] = p[1]; a["v1"] = v } } }
		function val(a, px) { return a["v0"] + (px - a["p0"]) * (a["v1"] - a["v0"]) / (a["p1"] - a["p0"]) }
		function near(x, y, e) { return x - y < e && y - x < e }
		BEGIN { ax(ENVIRON["T"] "/xt", X); ax(ENVIRON["T"] "/yt", Y) }
		$1 == "frame" { L = $2; R = $3; Tp = $4; B = $5
			if (!near(val(Y, B), 0, 0.01) || !near(val(Y, Tp), 1, 0.1)) bad = bad sprintf(" y axis %.3f to %.3f", val(Y, B), val(Y, Tp)) }
		$1 == "key" { name[$2] = $5 " " $6 }
		$1 == "path" && NF > 3 { g = $2; split("", px); split("", py); n = 0; out = 0
			for (i = 3; i <= NF; i++) { split($i, q, ","); px[++n] = q[1]; py[n] = q[2]; if (q[1] < L - 1 || q[1] > R + 1 || q[2] < Tp - 1 || q[2] > B + 1) out = 1 }
			if (out) next
			got = ""
			for (i = 2; i <= n; i++) {
				if (!near(px[i], px[i - 1], 0.02) && !near(py[i], py[i - 1], 0.02)) { bad = bad " " name[g] ": a slope at " px[i]; break }
				if (py[i] < py[i - 1] - 0.02) {
					x = val(X, px[i]); y0 = val(Y, py[i - 1]); y1 = val(Y, py[i])
					if (rn[g] && near(x, rx[g, rn[g]], 0.01)) ry1[g, rn[g]] = y1
					else { rx[g, ++rn[g]] = x; ry0[g, rn[g]] = y0; ry1[g, rn[g]] = y1 } } } }
		END { nd = split(want, w, "; ")
			for (k = 1; k <= nd; k++) { split(w[k], h, ": "); g = 0; for (j in name) if (name[j] == h[1]) g = j
				nr = split(h[2], r, ", ")
				if (rn[g] != nr) { bad = bad " " h[1] ": " rn[g] + 0 " rises, want " nr; continue }
				for (i = 1; i <= nr; i++) { split(r[i], e, " ")
					if (!near(rx[g, i], e[1], 0.05) || !near(ry0[g, i], e[2], 0.01) || !near(ry1[g, i], e[3], 0.01))
						bad = bad sprintf(" %s: rise %d at %.3f from %.3f to %.3f, want %s", h[1], i, rx[g, i], ry0[g, i], ry1[g, i], r[i]) } }
			if (bad != "") { print substr(bad, 2, 400); exit 1 } }' "$T/pf" > "$T/cdfbad" && ok ||
			notok "skews distribution: $(cat "$T/cdfbad")"
	else
		notok "skews distribution not drawn: $(head -n 2 "$T/pk/gp.err")"
	fi
	# The roofline's x axis from its points: two operations planted in
	# nsysjax-roofline's table, of intensity 1e-8 at 1e-9 TFLOP/s (below
	# the y axis: not drawn) and of 0.03 at 0.01 TFLOP/s; the axis begins
	# within a decade below the least intensity drawn (autoscaled, at
	# 1e-8) and ends at or beyond the greatest, both from ops.tsv (the 50
	# first rows with a rate, those of 1 GFLOP/s and more drawn).
	mkdir -p "$T/rlbin"
	for b in "$BIN"/nsysjax-*; do ln -s "$(cd "${b%/*}" && pwd)/${b##*/}" "$T/rlbin/${b##*/}"; done
	rm -f "$T/rlbin/nsysjax-roofline"
	cat > "$T/rlbin/nsysjax-roofline" <<-EOS
	#!/bin/sh
	"$(cd "$BIN" && pwd)/nsysjax-roofline" "\$@" || exit
	while [ \$# -gt 1 ]; do [ "\$1" = -o ] && o=\$2; shift; done
	awk -F'\t' -v OFS='\t' 'NR == 1 { print; for (i = 1; i <= NF; i++) c[\$i] = i
	    for (k = 1; k <= 2; k++) { for (i = 1; i <= NF; i++) r[i] = ""
	        r[c["ProgramId"]] = "planted"; r[c["Name"]] = "planted." k; r[c["Opcode"]] = "fusion"; r[c["TimeMs"]] = 1; r[c["Flops"]] = 1
	        r[c["MatmulFlops"]] = 0; r[c["Bound"]] = "memory"; r[c["Intensity"]] = k == 1 ? "0.00000001" : "0.03"; r[c["TFLOPs"]] = k == 1 ? "0.000000001" : "0.01"
	        l = r[1]; for (i = 2; i <= NF; i++) l = l OFS r[i]; print l }; next } { print }' "\$o/roofline-ops.tsv" > "\$o/planted" &&
	    mv "\$o/planted" "\$o/roofline-ops.tsv"
	EOS
	chmod +x "$T/rlbin/nsysjax-roofline"
	if NSYSJAX_BIN=$T/rlbin sh pipelines/roofline.sh -o "$T/rl" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/rl.err" && [ -s "$T/rl/roofline.svg" ]; then
		plot_facts "$T/rl/roofline.svg" > "$T/pf"; x_ticks "$T/pf" > "$T/xt"
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    $c["Intensity"] > 0 && $c["TFLOPs"] > 0 && n++ < 50 && $c["TFLOPs"] >= 0.001 { v = $c["Intensity"] + 0; if (lo == "" || v < lo) lo = v; if (v > hi) hi = v }
		    END { print lo, hi }' "$T/rl/ops.tsv" > "$T/rlr"
		awk -v r="$(cat "$T/rlr")" 'BEGIN { split(r, e, " "); lo = e[1]; hi = e[2] }
		    FILENAME ~ /xt$/ { if (!n++) { p0 = $1; v0 = log($2) } else { p1 = $1; v1 = log($2) }; next }
		    $1 == "frame" { a = exp(v0 + ($2 - p0) * (v1 - v0) / (p1 - p0)); b = exp(v0 + ($3 - p0) * (v1 - v0) / (p1 - p0))
		        if (lo != 0.03 || !(a >= lo / 10 && a <= lo && b >= hi)) { printf "x axis %.9f to %.3f for points %s to %s\n", a, b, lo, hi; exit 1 }; exit }' \
		    "$T/xt" "$T/pf" > "$T/rlbad" && ok || notok "roofline: $(cat "$T/rlbad")"
	else
		notok "roofline with planted operations: $(head -n 2 "$T/rl.err")"
	fi
fi

# Per top module, with the steady thunk frame of facts_checks
# ($T/st-thunk.tsv, the same run): a heap plot for each top module with
# heap simulator traces, its data the module's heap series (its peak the
# heap frame's); a straggler plot for each top module on more than one
# device, its data every device of every thunk that all devices ran,
# each device's start against the mean over devices (recomputed here,
# averaged over executions), the collectives marked as the thunk frame
# marks them; every one linked from report.html and listed in report.txt.
views_checks() { # NAME REPORT-DIR
	d=$2
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["TopModule"] == 1 { print $c["ProgramId"] }' "$d/summary/modules.tsv" | sort -u > "$T/top"
	awk -F'\t' 'NR > 1 { print $1 }' "$d/frames/heap.tsv" | sort -u | join - "$T/top" | cut -c 1-12 > "$T/hwant"
	ls "$d/plots" | sed -n 's/^heap-\([0-9a-f]*\)\.tsv$/\1/p' | sort > "$T/hgot"
	[ -s "$T/hwant" ] && cmp -s "$T/hwant" "$T/hgot" && ok || notok "$1: heap plots of $(tr '\n' ' ' < "$T/hgot"), want $(tr '\n' ' ' < "$T/hwant")"
	while read -r k; do
		want=$(awk -F'\t' -v k="$k" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    index($c["ProgramId"], k) == 1 && $c["HeapBytes"] + 0 > m { m = $c["HeapBytes"] + 0 } END { printf "%d", m }' "$d/frames/heap.tsv")
		got=$(awk -F'\t' 'NR > 1 && $4 + 0 > m { m = $4 + 0 } END { printf "%d", m }' "$d/plots/heap-$k.tsv")
		[ "$got" = "$want" ] && [ -s "$d/plots/heap-$k.svg" ] && grep -q "href=\"plots/heap-$k.tsv\"" "$d/report.html" &&
		    grep -q "^  plots/heap-$k.svg  *plots/heap-$k.tsv " "$d/report.txt" && ok ||
			notok "$1: heap plot of $k: peak $got, want $want, or its svg, link or listing missing"
	done < "$T/hgot"
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { d[$c["ProgramId"], $c["Device"]] = 1 }
	    END { for (k in d) { split(k, x, SUBSEP); n[x[1]]++ } for (p in n) if (n[p] > 1) print p }' "$T/st-thunk.tsv" | sort | join - "$T/top" | cut -c 1-12 > "$T/swant"
	ls "$d/plots" | sed -n 's/^stragglers-\([0-9a-f]*\)\.tsv$/\1/p' | sort > "$T/sgot"
	[ -s "$T/swant" ] && cmp -s "$T/swant" "$T/sgot" && ok || notok "$1: straggler plots of $(tr '\n' ' ' < "$T/sgot"), want $(tr '\n' ' ' < "$T/swant")"
	while read -r k; do
		f=$d/plots/stragglers-$k.tsv
		# Recomputed: instances (execution, thunk) on every device of the
		# module; per device and thunk the mean of start - instance mean.
		awk -F'\t' -v k="$k" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    index($c["ProgramId"], k) != 1 { next }
		    { i = $c["ProgramExecution"] SUBSEP $c["Name"] SUBSEP $c["ThunkExecution"]; dv[$c["Device"]] = 1
		      n[i]++; s[i] += $c["ProjStartMs"]; st[i, $c["Device"]] = $c["ProjStartMs"]
		      t = $c["Name"] SUBSEP $c["ThunkExecution"]; cm[t] = $c["Communication"]; co[t] = $c["Collective"] }
		    END { for (x in dv) nd++
		      for (i in n) if (n[i] == nd) { split(i, y, SUBSEP); t = y[2] SUBSEP y[3]; ne[t]++
		        for (x in dv) b[t, x] += st[i, x] - s[i] / n[i] }
		      for (t in ne) { split(t, y, SUBSEP); for (x in dv) printf "%s|%s|%s\t%.6f\t%s\t%s\t%d\n", y[1], y[2], x, b[t, x] / ne[t], cm[t], co[t], ne[t] } }' \
		    "$T/st-thunk.tsv" | sort > "$T/bwant"
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    { printf "%s|%s|%s\t%s\t%s\t%s\t%s\n", $c["Name"], $c["ThunkExecution"], $c["Device"], $c["StartBiasMs"], $c["Communication"], $c["Collective"], $c["Executions"] }' "$f" | sort > "$T/bgot"
		[ "$(cut -f 1 "$T/bwant" | tr '\n' ' ')" = "$(cut -f 1 "$T/bgot" | tr '\n' ' ')" ] &&
		    [ "$(cut -f 3- "$T/bwant")" = "$(cut -f 3- "$T/bgot")" ] &&
		    join -t "$(printf '\t')" "$T/bwant" "$T/bgot" | awk -F'\t' '{ e = $2 - $6; if (e > 2e-6 || e < -2e-6) bad++ } END { exit bad > 0 || NR == 0 }' &&
		    awk -F'\t' '$3 == 1 { n++ } END { exit !(n > 0) }' "$T/bwant" && ok ||
			notok "$1: straggler data of $k: not every device and thunk, or biases, collectives differ: $(diff "$T/bwant" "$T/bgot" | head -4)"
		# No lines join devices: the data is by device, then time.
		awk -F'\t' 'NR > 2 && ($4 + 0 < d || ($4 + 0 == d && $6 + 0 < o)) { bad = 1 } NR > 1 { d = $4 + 0; o = $6 + 0 } END { exit bad }' "$f" &&
		    [ -s "$d/plots/stragglers-$k.svg" ] && grep -q "href=\"plots/stragglers-$k.tsv\"" "$d/report.html" &&
		    grep -q "^  plots/stragglers-$k.svg  *plots/stragglers-$k.tsv " "$d/report.txt" && ok ||
			notok "$1: straggler plot of $k: data not by device then time, or svg, link or listing missing"
	done < "$T/sgot"
}
if command -v gnuplot > /dev/null; then
	views_checks example "$T/r"
	# The example's planted heap: its peak and where it is.
	fp=$(truth fingerprint.jit_train_step | cut -c 1-12)
	awk -F'\t' 'NR > 1 && $4 + 0 > m { m = $4 + 0; e = $5 } END { printf "%d %s", m, e }' "$T/r/plots/heap-$fp.tsv" > "$T/hp"
	[ "$(cat "$T/hp")" = "$(truth heap_peak_bytes.jit_train_step) $(truth heap_peak_event.jit_train_step)" ] && ok ||
		notok "example heap plot data: peak $(cat "$T/hp")"
	# Plots 4 and 5 fail (one in each of the two gnuplot processes; a
	# gnuplot that appends a plot of a missing file to their programs):
	# a warning each, in plot order, the same as one process writes, the
	# report made, and every other plot drawn.
	mkdir -p "$T/fakegp"
	realgp=$(command -v gnuplot)
	cat > "$T/fakegp/gnuplot" <<-EOF
	#!/bin/sh
	case \$2 in */plots.*.gp)
		for n in 4 5; do
			grep -q nsysjax-broken "\$4/plot.\$n.gp" ||
				printf 'plot "/nonexistent/nsysjax-broken.tsv" using 1:2\n' >> "\$4/plot.\$n.gp"
		done ;;
	esac
	exec "$realgp" "\$@"
	EOF
	chmod +x "$T/fakegp/gnuplot"
	for j in 1 2; do
		PATH="$T/fakegp:$BIN:$PATH" sh pipelines/report.sh -q -j $j -o "$T/rbroken$j" "$T/r/frames" > /dev/null 2> "$T/broken$j.err" ||
			notok "report with two failing plots (-j $j): $(head -n 3 "$T/broken$j.err")"
		grep '^pipelines/report.sh: plot ' "$T/broken$j.err" > "$T/broken$j.w"
	done
	[ "$(wc -l < "$T/broken2.w")" -eq 2 ] && cmp -s "$T/broken1.w" "$T/broken2.w" && ok ||
		notok "failing plots: warnings $(cat "$T/broken2.w"), one process: $(cat "$T/broken1.w")"
	for f in "$T"/r/plots/*.svg; do [ -s "$T/rbroken2/plots/${f##*/}" ] || echo "${f##*/}"; done > "$T/brokenmiss"
	[ ! -s "$T/brokenmiss" ] && ok || notok "failing plots: not drawn: $(cat "$T/brokenmiss")"
fi

# One flame graph per top module: its own steady thunk time (us, each
# stack rounded: within one us per stack), no idle root; the whole-run
# graph keeps its idle roots; the page links each module's files.
fp=$(truth fingerprint.jit_train_step)
f=$T/r/flamegraphs/module-$(printf '%.12s' "$fp").source.folded
want=$(awk -F'\t' -v id="$fp" 'NR > 1 && $1 == id { t += $8 } END { printf "%.3f", t * 1000 }' "$T/st-thunk.tsv")
[ -s "$f" ] && ! grep -q '^\[GPU idle' "$f" && awk -v w="$want" '{ t += $NF; n++ } END { d = t - w; exit !(n > 0 && d <= n && d >= -n) }' "$f" &&
	grep -q '^\[GPU idle between module executions\]' "$T/r/flamegraphs/source.folded" && ok ||
	notok "per-module flame graph $f: want $want us, $(awk '{ t += $NF } END { print t }' "$f" 2> /dev/null)"
# (The SVG when a renderer drew it, else the folded file and a word on
# speedscope, which opens it.)
if [ -s "$T/r/flamegraphs/source.svg" ]; then
	grep -q "href=\"flamegraphs/module-$(printf '%.12s' "$fp").source.svg\"" "$T/r/report.html" && ok ||
		notok "report.html: no per-module flame graph link to its SVG"
else
	grep -q "href=\"flamegraphs/module-$(printf '%.12s' "$fp").source.folded\"" "$T/r/report.html" &&
		grep -q 'speedscope' "$T/r/report.html" && ok || notok "report.html: no per-module flame graph links or no word on speedscope"
fi
grep -q "^The module that does the work (the most compute time): jit_train_step ($(truth fingerprint.jit_train_step | cut -c 1-12))" "$T/r/report.txt" &&
	ok || notok "example: the work module does not lead the report"
if have_data; then
	sh $R -q -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > /dev/null 2> "$T/e" || notok "report on combined4: $(cat "$T/e")"
	facts_checks combined4 "$T/c4"
	if command -v gnuplot > /dev/null; then views_checks combined4 "$T/c4"; fi
	# The run metadata: the GPU as XLA's gpu_target_config names it.
	cfg=$(unzip -Z1 "$DATA/pax_fsdp4_4proc_proc0.zip" 2> /dev/null | grep 'gpu_target_config\.pbtxt\.xz$' | head -n 1)
	gpu=$(unzip -p "$DATA/pax_fsdp4_4proc_proc0.zip" "$cfg" 2> /dev/null | xz -dc 2> /dev/null | sed -n 's/^device_description_str: "\(.*\)"$/\1/p')
	[ -n "$gpu" ] && grep -q "^  GpuName  *$gpu  *device-metadata.parquet\$" "$T/c4/report.txt" &&
	    grep -q "<td>$gpu</td>" "$T/c4/report.html" && ok || notok "combined4: no run metadata naming the GPU '$gpu'"
	# jit__psum: a barrier; the step module leads; the fingerprint that
	# ran on one device (04555b1419fd, process 3 alone) has no wait of
	# its own (the reference prints 0), and in the straggler table its
	# device is one of the step's (joined to 25fa0b3e673a: biases, not
	# the reference's 0).
	grep -q '^jit__psum (6f8097e242d8) is a barrier: 99\.[0-9]*% of its time is collective wait' "$T/c4/report.txt" && ok ||
		notok "combined4: no barrier line for jit__psum"
	grep -q '^The module that does the work (the most compute time): pjit__wrapped_step_fn (25fa0b3e673a)' "$T/c4/report.txt" && ok ||
		notok "combined4: the step does not lead"
	grep '(04555b1419fd)' "$T/c4/report.txt" | sed -n 1p | grep -q '127.13(13)  *--  *-- ' && ok || notok "combined4: wait of a module on one device is not --"
	! grep -q 'pjit__wrapped_step_fn (04555b1419fd)  *3 ' "$T/c4/report.txt" &&
	    grep 'pjit__wrapped_step_fn (25fa0b3e673a)  *3 ' "$T/c4/report.txt" | grep -q '[0-9]  *-*[0-9.]*  *[0-9.,]*$' && ok ||
		notok "combined4: device 3's straggler row not joined to the step: $(grep 'pjit__wrapped_step_fn ([0-9a-f]*)  *3 ' "$T/c4/report.txt")"
	grep -q 'Wait share is the mean wait' "$T/c4/report.txt" && grep -q '^pjit__wrapped_step_fn appears more than once.*04555b1419fd.*compiled by pax_fsdp4_4proc_proc3\.$' "$T/c4/report.txt" &&
		ok || notok "combined4: wait share above 100% or the module seen twice not explained"
else
	skip "combined4 facts: $DATA not found"
fi

# -m, -x: the modules kept, by name or ProgramId; --skip N: executions.
steps=$(truth executions.jit_train_step)
sh $R -q --skip 3 -o "$T/s" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/e" &&
	awk -F'\t' -v want=$((ndev * (steps - 3))) 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == "jit_train_step" { n = $c["Executions"] } END { exit n != want }' "$T/s/summary/modules.tsv" && ok ||
	notok "--skip 3: $(cat "$T/e")"
sh $R -q --skip=0 -m '^jit_init$' -o "$T/m" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/e" &&
	[ "$(awk -F'\t' 'NR > 1 { print $2 ":" $3 }' "$T/m/summary/modules.tsv")" = "jit_init:$((ndev * $(truth executions.jit_init)))" ] &&
	ok || notok "-m jit_init: $(cat "$T/e" "$T/m/summary/modules.tsv")"
sh $R -q --skip 0 -x init -o "$T/x" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/e" &&
	[ "$(awk -F'\t' 'NR > 1 { print $2 }' "$T/x/summary/modules.tsv")" = jit_train_step ] &&
	! grep -q "$(truth fingerprint.jit_init)" "$T/x/pgle/"* && ok || notok "-x init: $(cat "$T/e")"
sh $R -q -m nosuchmodule -o "$T/n" "$EX/rank0" > /dev/null 2> "$T/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'no module' "$T/e" && [ ! -e "$T/n" ] && ok || notok "-m matching nothing: exit $rc"

# A signal to report.sh alone (a CI cancel): its jobs stop too, nothing
# is written afterwards, the work directories go, the status is the
# signal's.  Sent once sections run (a section's work directory, inside
# the report's, holds a file), and once during the extraction (the
# report's work directory exists).  (perl: a test suite's tool.)
started() { # sections | extraction
	if [ "$1" = extraction ]; then [ -n "$(ls "$T/tmpd")" ]; else
		for d in "$T/tmpd"/*/nsysjax-pipeline.*; do [ -n "$(ls "$d" 2> /dev/null)" ] && return 0; done; return 1; fi
}
for sig in TERM INT; do
	for at in sections extraction; do
		rm -rf "$T/k" "$T/tmpd"/*
		# A job of a script ignores SIGINT (POSIX): perl restores it.
		perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' sh $R -q -o "$T/k" "$EX/rank0" "$EX/rank1" > /dev/null 2> /dev/null &
		pid=$!
		n=0
		while ! started "$at" && [ $n -lt 300 ]; do sleep 0.02; n=$((n + 1)); done
		kill -"$sig" $pid
		wait $pid; rc=$?
		sleep 1
		want=143; [ $sig = INT ] && want=130
		[ $rc -eq $want ] && [ ! -e "$T/k" ] && [ -z "$(ls -A "$T/tmpd")" ] &&
		    ! ls -A "$T" | grep -q '^\.k\.' && ok || notok "SIG$sig (during the $at): exit $rc, left $(ls -A "$T/tmpd") $(ls -A "$T" | grep '^\.k')"
	done
done
done_testing t76-report-use
