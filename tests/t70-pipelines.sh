#!/bin/sh
# pipelines/: summary.sh, communication.sh, flamegraphs.sh, variability.sh
# and pgle.sh against the reference's golden outputs (proc0 and
# combined4), or, where the reference has none, against the rule
# recomputed here with independent awk from the reference's own steady
# state; input forms, output forms, the examples of doc/pipelines.md, usage errors.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
NSYSJAX_BIN=$(cd "$BIN" && pwd)
TMPDIR=$T/tmp
export NSYSJAX_BIN TMPDIR
mkdir "$TMPDIR"

# json2tsv KEY < JSON: a pandas to_json(orient="split") table as TSV, its
# index as column KEY, nested column names joined by '.', null empty.
json2tsv() {
	perl -MJSON::PP -e '
	local $/; my $j = decode_json(<STDIN>);
	my @c = map { ref $_ ? join(".", @$_) : $_ } @{$j->{columns}};
	print join("\t", $ARGV[0], @c), "\n";
	for my $i (0 .. $#{$j->{index}}) {
		print join("\t", $j->{index}[$i], map { defined $_ ? $_ : "" } @{$j->{data}[$i]}), "\n";
	}' "$1"
}
have_json() { perl -MJSON::PP -e 1 2> /dev/null; }

# rename MAP < TSV: the header's columns renamed, MAP "old=new,...".
rename() {
	awk -F'\t' -v OFS='\t' -v MAP="$1" 'NR == 1 {
		n = split(MAP, m, ","); for (i = 1; i <= n; i++) { split(m[i], kv, "="); to[kv[1]] = kv[2] }
		for (i = 1; i <= NF; i++) if ($i in to) $i = to[$i]
	} { print }'
}
SUMMARY_PY='Name.first=Name,Name.count=Executions,NumThunks.mean=NumThunksMean,NumThunks.std=NumThunksStd'
SUMMARY_PY=$SUMMARY_PY,'ProjDurMs.sum=ProjDurMs,ProjDurMs.mean=ProjDurMeanMs,ProjDurMs.std=ProjDurStdMs'
SUMMARY_PY=$SUMMARY_PY,'ProjDurMs.percent=ProjDurPercent,WaitMs.mean=WaitMeanMs,WaitMs.std=WaitStdMs,WaitMs.percent=WaitPercent'
NOTEBOOK='Name.first=Name,Name.count=Executions,NumThunks.mean=NumThunksMean,NumThunks.std=NumThunksStd'
NOTEBOOK=$NOTEBOOK,'ProjDurMs.sum=ProjDurMs,ProjDurMs.std=ProjDurStdMs'

# waitfrac GOLDEN OURS [SKIP]: the notebook's wait (module_stats.tsv,
# "42.45%" or "--") is 100 * StartSpreadFraction to the two places shown;
# SKIP names a ProgramId not compared.
waitfrac() {
	awk -F'\t' -v SKIP="${3:-}" '
	FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
	FILENAME == ARGV[1] { g[$1] = $(c[FILENAME, "WaitFrac"]); next }
	$1 == SKIP { next }
	{
		v = $(c[FILENAME, "StartSpreadFraction"]); n++
		want = g[$1] == "--" ? "" : g[$1]
		got = v == "" ? "" : sprintf("%.2f%%", 100 * v)
		if (!($1 in g) || got != want) { print $1 ": golden " g[$1] ", ours " v; bad++ }
	}
	END { exit bad > 0 || n == 0 }' "$1" "$2"
}

# bandwidth CSV BANDWIDTH HIDDEN: every cell "mean(u)" of communication_summary.csv's
# bandwidth table agrees with our mean and standard error to the digits
# shown (the uncertainties shorthand: "(1.9)" absolute, "(12)" in units
# of the mean's last digit); "-" where we have no row; then the hidden
# ratios per collective and overall within 1e-9 relative.  (The CSV has
# CRLF line ends.)
bandwidth() {
	awk -F'\t' '
	function near(a, b) { return (a - b < 0 ? b - a : a - b) <= 1e-9 * (a < 0 ? -a : a) }
	FILENAME == ARGV[1] { if (FNR > 1) { mean[$1, $2] = $4; se[$1, $2] = $5; nb++ }; next }
	FILENAME == ARGV[2] { if (FNR > 1) ratio[$1] = $5; next }
	{ sub(/\r$/, "") }
	/^Bandwidth Table/ { sec = "bw"; next }
	/^HiddenMs to TotalMs Table/ { sec = "hid"; next }
	/^Overall HiddenMs to TotalMs,/ {
		split($0, f, ","); if (!near(f[2], ratio["(all)"])) { print "overall: " f[2] " vs " ratio["(all)"]; bad++ }
		nh++; next
	}
	sec == "bw" && /^Size/ { nc = split($0, head, ","); next }
	sec == "bw" && /^[0-9]/ {
		split($0, cell, ",")
		for (i = 2; i <= nc; i++) {
			k = head[i] SUBSEP cell[1]
			if (cell[i] == "-") { if (k in mean) { print "extra " head[i] " " cell[1]; bad++ }; continue }
			if (!match(cell[i], /^[0-9.]+\(/)) { print "cannot read " cell[i]; bad++; continue }
			x = substr(cell[i], 1, RLENGTH - 1); u = substr(cell[i], RLENGTH + 1); sub(/\)$/, "", u)
			d = index(x, ".") ? length(x) - index(x, ".") : 0
			if (index(u, ".")) { du = length(u) - index(u, "."); uv = u + 0 } else { du = d; uv = u * 10 ^ -d }
			if (!(k in mean)) { print "missing " head[i] " " cell[1]; bad++; continue }
			dm = mean[k] - x; if (dm < 0) dm = -dm
			ds = se[k] - uv; if (ds < 0) ds = -ds
			if (dm > 0.5 * 10 ^ -d * 1.000001 || ds > 0.5 * 10 ^ -du * 1.000001) {
				print "differs " head[i] " " cell[1] ": golden " cell[i] ", ours " mean[k] " +- " se[k]; bad++ }
			n++
		}
		next
	}
	sec == "hid" && /^[a-z]/ {
		split($0, f, ","); if (!near(f[2], ratio[f[1]])) { print f[1] ": " f[2] " vs " ratio[f[1]]; bad++ }
		nh++
	}
	END { if (n != nb) { print n " cells, " nb " rows"; bad++ }; exit bad > 0 || n == 0 || nh < 2 }
	' "$2" "$3" "$1"
}

# cmpfold GOLDEN OURS: the same stacks; each count (ns) within 1 ns or
# 1e-6 relative of the golden value (Python float ms).
cmpfold() {
	awk '
	{ i = match($0, / [^ ]*$/); k = substr($0, 1, i - 1); v = substr($0, i + 1) }
	FILENAME == ARGV[1] { g[k] = v * 1e6; ng++; next }
	{ o[k] = v; no++ }
	END {
		for (k in g) { d = g[k] - o[k]; if (d < 0) d = -d
			if (!(k in o) || (d > 1.000001 && d > 1e-6 * g[k])) { print "differs: " substr(k, 1, 120); bad++ } }
		exit bad > 0 || ng == 0 || ng != no
	}' "$1" "$2"
}

# variable GOLDEN_THUNK RATIO COUNT > TSV: the notebook's detailed view
# recomputed from the reference's steady thunk frame, two passes: mean
# and sample std of ProjDurMs per compute (ProgramId, Name), std/mean >
# RATIO, largest mean first, COUNT rows (0: all).
variable() {
	awk -F'\t' -v OFS='\t' -v R="$2" '
	FNR == 1 { pass++; next }
	$13 == "True" { next }
	pass == 1 { k = $1 OFS $3; s[k] += $8; n[k]++; next }
	{ k = $1 OFS $3; d = $8 - s[k] / n[k]; q[k] += d * d }
	END {
		print "ProgramId", "Name", "Executions", "MeanMs", "StdMs"
		for (k in n) if (n[k] > 1 && s[k] > 0) {
			m = s[k] / n[k]; sd = sqrt(q[k] / (n[k] - 1))
			if (sd / m > R) printf "%s\t%d\t%.17g\t%.17g\n", k, n[k], m, sd
		}
	}' "$1" "$1" | { IFS= read -r h; echo "$h"; sort -t "$(printf '\t')" -k4,4gr -k1,1 -k2,2 |
		if [ "$3" -gt 0 ]; then head -n "$3"; else cat; fi; }
}

# pgle_expected GOLDEN_THUNK HLO > LINES: analyses/pgle_costs.py's rule on
# the reference's steady thunk frame (floats): per (ProgramId, Name) of a
# module with HLO facts, max of ProjDurMs + ProjDurHiddenMs for
# communication, min for compute, "%.1f" us; "ProgramId Name cost
# exact-cost", sorted.
pgle_expected() {
	awk -F'\t' '
	FNR == 1 { f++; next }
	f == 1 { h[$1 SUBSEP $2] = 1; next }
	!(($1 SUBSEP $3) in h) { next }
	{
		k = $1 SUBSEP $3; t = $8 + $14
		if (!(k in c)) { c[k] = $13 == "True"; v[k] = t }
		else if (c[k] ? t > v[k] : t < v[k]) v[k] = t
	}
	END { for (k in v) { split(k, a, SUBSEP); printf "%s\t%s\t%.1f\t%.17g\n", a[1], a[2], v[k] * 1000, v[k] * 1000 } }
	' "$2" "$1" | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2
}

# pgle_files DIR > LINES: the files pgle.sh -i wrote, as "ProgramId Name
# cost" in file order.
pgle_files() {
	for f in "$1"/*.pbtxt; do
		id=${f##*/}; id=${id%.pbtxt}
		sed -n 's/^costs { name: "\(.*\)" cost_us: \([0-9]*\.[0-9]\) }$/\1\t\2/p' "$f" |
			awk -v id="$id" '{ print id "\t" $0 }'
	done
}

if have_data; then
	mkdir -p "$T/c4" "$T/p0"
	$X -n proc0,proc1,proc2,proc3 -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip || notok "extract combined4"
	$X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip" || notok "extract proc0"

	for d in p0:proc0 c4:combined4; do
		o=${d%%:*} gn=${d#*:} g=$GOLD/${d#*:}
		# summary.sh
		pipelines/summary.sh -o "$T/$o.sum" "$T/$o" 2> "$T/err" || notok "summary.sh $gn: $(cat "$T/err")"
		if have_json; then
			json2tsv ProgramId < "$g/module-stats.json" | rename "$SUMMARY_PY" > "$T/ms.tsv"
			check "summary $gn: modules = module-stats.json" \
				awk -v KEYS=ProgramId -v ABS=1e-9 -f tests/cmpframe.awk "$T/ms.tsv" "$T/$o.sum/modules.tsv"
			json2tsv Name < "$g/compilation-ranges.json" > "$T/cr.tsv"
			check "summary $gn: compile-ranges = compilation-ranges.json" \
				awk -v KEYS=Name -v ABS=1e-9 -f tests/cmpframe.awk "$T/cr.tsv" "$T/$o.sum/compile-ranges.tsv"
		else
			skip "summary $gn: JSON comparisons: no perl JSON::PP"
		fi
		rename "$NOTEBOOK" < "$g/module_stats.tsv" > "$T/nb.tsv"
		check "summary $gn: modules = module_stats.tsv" \
			awk -v KEYS=ProgramId -v SKIP=WaitFrac -f tests/cmpframe.awk "$T/nb.tsv" "$T/$o.sum/modules.tsv"
		# combined4: the reference leaves device 3 unaligned (see
		# ../shared/golden/README.md), which only jit__psum runs with
		# the others; its notebook wait is checked below on the
		# reference's own steady state.
		check "summary $gn: notebook wait = module_stats.tsv" \
			waitfrac "$g/module_stats.tsv" "$T/$o.sum/modules.tsv" \
			"$([ "$o" = c4 ] && echo 6f8097e242d8bf3b64f63c04c3f09c47)"
		check "summary $gn: thunks = thunk_summary.tsv" \
			awk -v KEYS=ProgramId,Name -f tests/cmpframe.awk "$g/thunk_summary.tsv" "$T/$o.sum/thunks.tsv"
		grep -v '^inconsistent_stack_pairs' "$g/runtime_totals.tsv" > "$T/rt.tsv"
		check "summary $gn: totals = runtime_totals.tsv" \
			awk -v KEYS=Quantity -f tests/cmpframe.awk "$T/rt.tsv" "$T/$o.sum/totals.tsv"
		check "summary $gn: compile-summary = compile_summary.tsv" \
			awk -v KEYS=Name -f tests/cmpframe.awk "$g/compile_summary.tsv" "$T/$o.sum/compile-summary.tsv"
		for t in ranges no-pass-detail passes summary; do
			"$BIN/nsysjax-compilestats" -t $t "$T/$o/compile.tsv" | cmp -s - "$T/$o.sum/compile-$t.tsv" && ok ||
				notok "summary $gn: compile-$t is not nsysjax-compilestats -t $t"
		done

		# communication.sh (proc0: the reference asserts; its output
		# continuing unaligned is communication_align_fallback/)
		pipelines/communication.sh -o "$T/$o.comm" "$T/$o" 2> "$T/err" || notok "communication.sh $gn: $(cat "$T/err")"
		csv=$g/communication_summary.csv
		[ -f "$csv" ] || csv=$g/communication_align_fallback/communication_summary.csv
		check "communication $gn = ${csv#"$GOLD"/}" bandwidth "$csv" "$T/$o.comm/bandwidth.tsv" "$T/$o.comm/hidden.tsv"

		# flamegraphs.sh, with a flamegraph.pl that checks its lines
		mkdir -p "$T/fgbin"
		cat > "$T/fgbin/flamegraph.pl" <<-'EOF'
		#!/usr/bin/perl
		# Stand-in for flamegraph.pl: refuse a line it would ignore.
		my $n = 0; my $args = join(" ", grep { /^--/ } @ARGV); @ARGV = grep { !/^--/ } @ARGV;
		while (<>) { chomp; /^(.*)\s+?(\d+(?:\.\d*)?)$/ or die "ignored: $_\n"; $n++ }
		die "no input\n" unless $n;
		print "<svg>$n $args</svg>\n";
		EOF
		chmod +x "$T/fgbin/flamegraph.pl"
		PATH="$T/fgbin:$PATH" pipelines/flamegraphs.sh -u ns -o "$T/$o.fg" "$T/$o" < /dev/null 2> "$T/err" ||
			notok "flamegraphs.sh $gn: $(cat "$T/err")"
		for by in source op_name; do
			check "flamegraphs $gn: $by.folded" cmpfold "$g/$by.folded" "$T/$o.fg/$by.folded"
		done
		grep -q -- '--countname=ns' "$T/$o.fg/source.svg" 2> /dev/null && [ -s "$T/$o.fg/op_name.svg" ] && ok ||
			notok "flamegraphs $gn: no SVG or no --countname=ns"
		grep -v '^_total' "$g/op_runtime.tsv" > "$T/op.tsv"
		check "flamegraphs $gn: opcodes = op_runtime.tsv" \
			awk -v KEYS=Opcode -f tests/cmpframe.awk "$T/op.tsv" "$T/$o.fg/opcodes.tsv"

		# variability.sh: the detailed view against the notebook's rule
		# on the reference's steady state, default and other options.
		for opts in "0.1 10" "0.3 0" "0 3"; do
			set -- $opts
			pipelines/variability.sh -r "$1" -n "$2" -o "$T/$o.var" "$T/$o" 2> "$T/err" ||
				notok "variability.sh $gn: $(cat "$T/err")"
			variable "$g/steady_thunk.tsv" "$1" "$2" > "$T/var.tsv"
			check "variability $gn -r $1 -n $2: thunks" \
				awk -v KEYS=ProgramId,Name -f tests/cmpframe.awk "$T/var.tsv" "$T/$o.var/thunks.tsv"
			cut -f 1,2 "$T/$o.var/thunks.tsv" > "$T/o2"
			cut -f 1,2 "$T/var.tsv" | cmp -s - "$T/o2" && ok || notok "variability $gn -r $1 -n $2: order"
		done
		# Stragglers: the biases of a module execution add up to 0 over
		# its devices; devices 0-2 are aligned by the reference up to one
		# constant (to a microsecond), so their module biases are the
		# reference's.
		awk -F'\t' 'NR > 1 { s[$1] += $5 * $4; d[$1] += $6 * $4 }
			END { for (p in s) if (s[p] > 1e-6 || s[p] < -1e-6 || d[p] > 1e-6 || d[p] < -1e-6) { print p; bad++ }
			exit bad > 0 || NR < 2 }' "$T/$o.var/stragglers.tsv" && ok || notok "stragglers $gn: biases do not add up to 0"
		awk -F'\t' '
		FILENAME == ARGV[1] {
			if (FNR > 1 && $1 == "25fa0b3e673a92036f22550cd7bcb068") {
				e = $2; st[FNR] = $8; du[FNR] = $7; dv[FNR] = $3; ex[FNR] = e
				ss[e] += $8; sd[e] += $7; n[e]++ }
			next
		}
		FNR == 1 {
			for (r in st) { b[dv[r]] += st[r] - ss[ex[r]] / n[ex[r]]; c[dv[r]] += du[r] - sd[ex[r]] / n[ex[r]]; m[dv[r]]++ }
			next
		}
		$1 == "25fa0b3e673a92036f22550cd7bcb068" {
			x = $5 - b[$3] / m[$3]; y = $6 - c[$3] / m[$3]; k++
			if (x > 2e-3 || x < -2e-3 || y > 2e-3 || y < -2e-3) { print "device " $3 ": " $5 " " $6; bad++ }
		}
		END { exit bad > 0 || k == 0 }' "$g/steady_module.tsv" "$T/$o.var/stragglers.tsv" && ok ||
			notok "stragglers $gn: pjit__wrapped_step_fn biases differ from the reference's steady state"

		# pgle.sh: analyses/pgle_costs.py's rule on the reference's
		# steady state; names (-i: instruction names) in Name order.
		pipelines/pgle.sh -i -o "$T/$o.pgi" "$T/$o" > "$T/$o.pgi.idx" 2> "$T/err" ||
			notok "pgle.sh -i $gn: $(cat "$T/err")"
		pipelines/pgle.sh -o "$T/$o.pg" "$T/$o" > "$T/$o.pg.idx" 2> "$T/$o.pg.err" || notok "pgle.sh $gn"
		pgle_expected "$g/steady_thunk.tsv" "$T/$o/hlo.tsv" > "$T/pe"
		pgle_files "$T/$o.pgi" > "$T/po"
		# The costs agree to 0.1 us, except that a tie (x.x5 us) may
		# round either way: we round the exact ns, the reference a float.
		check "pgle $gn: the rule on the reference's steady state" awk -F'\t' '
			FILENAME == ARGV[1] { want[FNR] = $0; n = FNR; next }
			{ split(want[FNR], w, "\t"); d = $3 - w[3]; if (d < 0) d = -d; m++
			  t = w[4] * 10 - int(w[4] * 10) - 0.5; if (t < 0) t = -t
			  if ($1 != w[1] || $2 != w[2] || (d > 0 && (d > 0.1000001 || t > 1e-6))) {
				print "line " FNR ": " $0 " vs " want[FNR]; bad++ } }
			END { exit bad > 0 || m != n || n == 0 }' "$T/pe" "$T/po"
		# Without -i the same lines with the scheduling names (all empty
		# in this sample, which stderr says).
		for f in "$T/$o.pg"/*.pbtxt; do
			sed 's/name: "[^"]*"/name: ""/' "${f%/*}i/${f##*/}" 2>/dev/null | cmp -s - "$f" || echo "$f"
		done > "$T/pgdiff"
		[ ! -s "$T/pgdiff" ] && [ "$(ls "$T/$o.pg" | wc -l)" -eq "$(ls "$T/$o.pgi" | wc -l)" ] && ok ||
			notok "pgle $gn: -i changes more than the names: $(cat "$T/pgdiff")"
		grep -q 'names empty in' "$T/$o.pg.err" && ok || notok "pgle $gn: empty names not reported"
		awk -F'\t' 'NR > 1 { if (!(system("test -f " $6) == 0)) bad++; n++ } END { exit bad > 0 || n == 0 }' \
			"$T/$o.pg.idx" && ok || notok "pgle $gn: index names missing files"
	done

	# The notebook's wait on the reference's own (aligned) steady state:
	# jit__psum's 42.45% too.
	"$BIN/nsysjax-stats" -t modules -M "$GOLD/combined4/steady_module.tsv" \
		"$GOLD/combined4/steady_communication.tsv" > "$T/gm.tsv"
	check "nsysjax-stats -t modules on the reference's steady state: notebook wait" \
		waitfrac "$GOLD/combined4/module_stats.tsv" "$T/gm.tsv"

	# Input forms: an archive gives what its frames give; the tables on
	# standard output, alone (-t) or in sections, are the files of -o.
	pipelines/summary.sh -o "$T/z.sum" "$DATA/pax_fsdp4_4proc_proc0.zip" 2> /dev/null || notok "summary.sh on an archive"
	diff -r "$T/z.sum" "$T/p0.sum" > /dev/null && ok || notok "archive and frames directory differ"
	pipelines/summary.sh -t thunks "$T/c4" | cmp -s - "$T/c4.sum/thunks.tsv" && ok || notok "-t thunks differs from -o"
	pipelines/communication.sh "$T/c4" > "$T/sec"
	{ echo '# bandwidth'; cat "$T/c4.comm/bandwidth.tsv"; echo; echo '# hidden'; cat "$T/c4.comm/hidden.tsv"; echo; } |
		cmp -s - "$T/sec" && ok || notok "sections on stdout differ from -o"
	pipelines/variability.sh -t stragglers "$T/c4" | cmp -s - "$T/c4.var/stragglers.tsv" && ok ||
		notok "variability -t stragglers differs from -o"
	# No SVG tool: said on stderr, the folded files written all the same.
	if ! command -v flamegraph.pl > /dev/null && ! command -v inferno-flamegraph > /dev/null; then
		pipelines/flamegraphs.sh -o "$T/nofg" "$T/p0" 2> "$T/err" && grep -q 'no SVG written' "$T/err" &&
		    [ -s "$T/nofg/source.folded" ] && [ ! -e "$T/nofg/source.svg" ] && ok || notok "no SVG tool: $(cat "$T/err")"
		check "flamegraphs: us counts" awk '{ if ($NF !~ /^[0-9]+$/) bad++ } END { exit bad > 0 || NR == 0 }' "$T/nofg/op_name.folded"
	else
		skip "no SVG tool: one is on PATH"
	fi
else
	skip "golden comparisons: $DATA not found"
fi

# Hand-made frames, two devices whose collectives end together (so the
# corrections are 0), three executions of which the first is
# initialisation (communication, no compilation): the summary's numbers
# worked out by hand.  Waits 5-3 = 2 and 5-4 = 1 ms: mean 1.5, std
# sqrt(0.5); durations 10 9 10 7: sum 36, mean 9, std sqrt(2); start
# spreads 1 and 3 over 36 ms.
mkdir -p "$T/hm"
printf 'ProfileName\tRangeId\tName\tTID\tNumChild\tParentId\tRangeStack\tStartMs\tDurMs\tDurChildMs\tDurNonChildMs\tProgramId\tProgramName\n' > "$T/hm/compile.tsv"
printf 'ProgramId\tProgramExecution\tDevice\tName\tProjDurMs\tProjStartMs\tNumThunks\n' > "$T/hm/module.tsv"
printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjDurMs\tProjStartMs\tCommunication\tProjDurHiddenMs\tCollectiveSize\n' > "$T/hm/thunk.tsv"
while read -r e d ms md cs cd; do
	printf 'p\t%s\t%s\tstep\t%s\t%s\t2\n' "$e" "$d" "$md" "$ms" >> "$T/hm/module.tsv"
	printf 'p\t%s\tar\t0\t%s\t%s\t%s\t1\t0\t2\n' "$e" "$d" "$cd" "$cs" >> "$T/hm/thunk.tsv"
	printf 'p\t%s\tf\t0\t%s\t1\t%s\t0\t0\t\n' "$e" "$d" "$ms" >> "$T/hm/thunk.tsv"
done <<EOF
0 0 0 10 5 5
0 1 0 10 5 5
1 0 100 10 105 5
1 1 101 9 107 3
2 0 200 10 205 5
2 1 203 7 206 4
EOF
awk -F'\t' -v OFS='\t' 'NR == 1 || $8 == 1 { $8 = ""; sub(/\t\t/, "\t"); print }' "$T/hm/thunk.tsv" > "$T/hm/communication.tsv"
pipelines/summary.sh -o "$T/hm.out" "$T/hm" 2> "$T/err" || notok "summary.sh hand-made: $(cat "$T/err")"
printf 'p\tstep\t4\t2\t0\t36\t9\t1.4142135623730951\t100\t1.5\t0.7071067811865476\t16.666666666666668\t0.1111111111111111\t1\n' > "$T/want"
tail -n +2 "$T/hm.out/modules.tsv" | cmp -s - "$T/want" && ok || notok "hand-made modules: $(tail -n +2 "$T/hm.out/modules.tsv")"
printf 'Quantity\tValue\nall_thunks_active_ms\t21\nall_modules_active_ms\t36\nall_modules_wall_ms\t219\n' |
	cmp -s - "$T/hm.out/totals.tsv" && ok || notok "hand-made totals: $(cat "$T/hm.out/totals.tsv")"
printf 'ProgramId\tName\tExecutions\tProjDurMs\np\tar\t4\t17\np\tf\t4\t4\n' |
	cmp -s - "$T/hm.out/thunks.tsv" && ok || notok "hand-made thunks: $(cat "$T/hm.out/thunks.tsv")"

# Usage: -h on stdout; bad options, tables, values and no input exit 2
# with the usage line on stderr; a missing input exits 1.
for s in summary communication flamegraphs variability pgle; do
	p=pipelines/$s.sh
	$p -h > "$T/o" 2> "$T/e" && grep -q "^usage: $p " "$T/o" && [ ! -s "$T/e" ] && ok || notok "$s -h"
	grep -q '^set -eu$' "$p" && ok || notok "$s: no set -eu"
	for args in "-x $T" "" "-o $T/u"; do
		# shellcheck disable=SC2086
		$p $args > "$T/o" 2> "$T/e"; rc=$?
		[ $rc -eq 2 ] && grep -q "^usage: $p " "$T/e" && [ ! -s "$T/o" ] && ok || notok "$s $args: exit $rc"
	done
	$p -o "$T/missing.out" "$T/nosuch.zip" > "$T/o" 2> "$T/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'nosuch.zip' "$T/e" && ok || notok "$s missing input: exit $rc, $(cat "$T/e")"
done
for args in "-t nope" "-r x" "-n -1" "-r 1.2.3"; do
	pipelines/variability.sh $args "$T" > /dev/null 2> "$T/e"; rc=$?
	[ $rc -eq 2 ] && ok || notok "variability $args: exit $rc"
done
pipelines/summary.sh -t nope "$T" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && grep -q "unknown table 'nope'" "$T/e" && ok ||
	notok "summary -t nope"
for s in flamegraphs pgle; do
	pipelines/$s.sh "$T" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && grep -q 'no output directory' "$T/e" && ok ||
		notok "$s without -o"
done
pipelines/flamegraphs.sh -o "$T/x" -u ms "$T" > /dev/null 2>&1; [ $? -eq 2 ] && ok || notok "flamegraphs -u ms"
# Nothing is left in TMPDIR.
[ -z "$(ls -A "$TMPDIR")" ] && ok || notok "left in TMPDIR: $(ls -A "$TMPDIR")"

# The examples of doc/pipelines.md, run as written on the sample, from a
# directory with rank0.zip ... rank3.zip and pipelines/.
if have_data; then
	mkdir -p "$T/ex"
	for i in 0 1 2 3; do ln -s "$(cd "$DATA" && pwd)/pax_fsdp4_4proc_proc$i.zip" "$T/ex/rank$i.zip"; done
	ln -s "$(pwd)/pipelines" "$T/ex/pipelines"
	# Commands are the indented lines of the introduction and of these
	# scripts' sections; a line ending in '|' or '\' goes on.
	awk '/^## / { ss = $2 }
	    ss != "" && ss !~ /^(summary|communication|flamegraphs|variability|pgle)\.sh$/ { next }
	    cont { sub(/^ +/, ""); cmd = cmd " " $0 }
	    !cont && /^    [a-z]/ && !/\[-/ { sub(/^    /, ""); cmd = $0 }
	    { cont = cmd ~ /[|\\]$/; if (cont) sub(/\\$/, "", cmd) }
	    cmd != "" && !cont { print cmd; cmd = "" }' doc/pipelines.md > "$T/ex.sh"
	n=$(grep -c pipelines/ "$T/ex.sh")
	if [ "$n" -ge 5 ] && (cd "$T/ex" && PATH="$NSYSJAX_BIN:$PATH" sh -e ../ex.sh > out 2> err); then
		ok
	else
		notok "doc/pipelines.md examples ($n commands): $(head -5 "$T/ex/err" 2> /dev/null)"
	fi
	for s in summary communication flamegraphs variability pgle; do
		grep -q "pipelines/$s.sh" "$T/ex.sh" && ok || notok "doc/pipelines.md: no example of $s.sh"
	done
else
	skip "doc/pipelines.md examples: $DATA not found"
fi
# lib/common.sh exports glibc's huge pages to every program of a
# pipeline where THP is madvise'd (as mem_huge_pages does for the
# tools), keeping a user's tunables and never overriding a choice of
# hugetlb.
on=0
! thp_madvise || on=1
for pre in - glibc.malloc.perturb=0 glibc.malloc.hugetlb=0; do
	want=$(hugetlb_want "$pre" "$on")
	got=$(cd pipelines && with_tunables "$pre" sh -c 'USAGE=x TABLES=x; set -eu; . ./lib/common.sh; printf "%s" "${GLIBC_TUNABLES-}"' 2>&1)
	[ "$got" = "$want" ] && ok ||
		notok "common.sh: GLIBC_TUNABLES $pre (THP $on): got '$got', want '$want'"
done

# Every pipeline runs as the README writes it, pipelines/NAME.sh, not
# through sh: each is tracked executable, and answers -h with its usage.
for p in pipelines/*.sh; do
	m=$(git ls-files -s -- "$p" 2> /dev/null | cut -c1-6)
	[ -z "$m" ] || [ "$m" = 100755 ] || notok "$p: tracked as $m, not executable"
	"$p" -h > "$T/h" 2>&1 && grep -q "^usage: \(pipelines/\)\{0,1\}${p##*/}" "$T/h" && ok || notok "$p -h, run as the README does: $(head -2 "$T/h")"
done

done_testing t70-pipelines
