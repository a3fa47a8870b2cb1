#!/bin/sh
# nsysjax-compilestats: every table against the reference's golden outputs
# (compile_stats.tsv, compile_summary.tsv/.txt, summary.txt and the
# compilation-*.json of analyses/summary.py), from the compile frame and
# straight from the push/pop CSV reports; the attribution's invariants;
# the man page's examples; usage and input errors.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
S=$BIN/nsysjax-compilestats
TIMES=DurNonChildMs,DurChildMs,FracNonChild

# jsoncmp JSON OURS: a pandas to_json(orient="split") table, which prints
# 10 decimals, against our TSV, as sets keyed by Name; the JSON columns
# are found by name in ours.
jsoncmp() {
	awk -F'\t' '
	function strs(s, a) { gsub(/^"|"$/, "", s); return split(s, a, /","/) }
	FILENAME == ARGV[1] { j = j $0; next }
	FNR == 1 {
		for (i = 1; i <= NF; i++) col[$i] = i
		c = j; sub(/^.*"columns":\[/, "", c); sub(/\].*$/, "", c); nc = strs(c, cn)
		x = j; sub(/^.*"index":\[/, "", x); sub(/\],"data".*$/, "", x); ni = strs(x, idx)
		d = j; sub(/^.*"data":\[\[/, "", d); sub(/\]\]\}$/, "", d); nd = split(d, rows, /\],\[/)
		if (ni != nd) { print "index " ni " vs data " nd; bad++ }
		for (i = 1; i <= ni; i++) gold[idx[i]] = rows[i]
		for (k = 1; k <= nc; k++) if (!(cn[k] in col)) { print "missing column " cn[k]; bad++ }
		next
	}
	{
		n++
		if (!($1 in gold)) { print "extra row " $1; bad++; next }
		split(gold[$1], v, ",")
		for (k = 1; k <= nc; k++) {
			a = v[k] + 0; b = $(col[cn[k]]) + 0; e = a - b; if (e < 0) e = -e
			m = a < 0 ? -a : a
			if (e > 0.51e-10 && e > 1e-9 * m) { print "differs " $1 " " cn[k] ": " v[k] " vs " $(col[cn[k]]); bad++ }
		}
		seen[$1] = 1
	}
	END {
		for (i in gold) if (!(i in seen)) { print "missing row " i; bad++ }
		print ni " rows, " n " ours, " bad + 0 " differences"
		exit bad > 0 || n == 0
	}' "$1" "$2"
}

# toptxt TXT TITLE OURS: the ten rows under "=== TITLE ===" in summary.txt
# (pandas prints names cut to 47 characters and "...", numbers to 6
# decimals) are our first ten rows.
toptxt() {
	awk -F'\t' -v T="$2" '
	FILENAME == ARGV[1] && FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "DurNonChildPercent") pc = i; next }
	FILENAME == ARGV[1] { if (FNR <= 11) { name[FNR - 1] = $1; v[FNR - 1] = $2; p[FNR - 1] = $pc }; next }
	index($0, "=== " T " ===") { on = 1; next }
	on == 1 { on = 2; next }
	on == 2 && n < 10 {
		n++; line = $0
		pct = line; sub(/.* /, "", pct); sub(/ +[^ ]+$/, "", line)
		ms = line; sub(/.* /, "", ms); sub(/ +[^ ]+$/, "", line)
		want = name[n]; if (length(want) > 50) want = substr(want, 1, 47) "..."
		if (line != want || sprintf("%.6f", v[n]) != ms || sprintf("%.6f", p[n]) != pct) {
			print "row " n ": golden " line " " ms " " pct ", ours " want " " v[n] " " p[n]; bad++
		}
	}
	END { exit bad > 0 || n != 10 }' "$3" "$1"
}

# notebook SUMMARY: our summary printed as the notebook prints it.
notebook() {
	awk -F'\t' 'NR == 1 { next }
	{ tot += $2; name[++n] = $1; v[n] = $2; fr[n] = $4 }
	END {
		printf "Top 97%%+ of %.2fs compilation time\n", tot * 1e-3
		for (i = 1; i <= n; i++) {
			c += fr[i]
			if (c <= 0.97) printf "%5.2f%% %.2fs %s\n", fr[i] * 100, v[i] * 1e-3, name[i]
		}
	}' "$1"
}

# invariants TABLE: each compilation's shares add up to 1 and its
# seconds to its duration; there is at least one.
invariants() {
	awk -F'\t' 'NR > 1 { k = $1 SUBSEP $2; s[k] += $9; t[k] += $8; d[k] = $6 }
	END {
		for (k in s) {
			n++; e = s[k] - 1; f = t[k] - d[k]
			if (e > 1e-9 || e < -1e-9 || f > 1e-9 || f < -1e-9) { print "compilation " k ": " s[k] ", " t[k] " s of " d[k]; bad++ }
		}
		exit bad > 0 || n == 0
	}' "$1"
}

# conserved FRAME STATS: the stats add up to the XlaCompile roots' time.
conserved() {
	awk -F'\t' 'FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
	FILENAME == ARGV[1] { if ($(c[ARGV[1], "ParentId"]) == "") want += $(c[ARGV[1], "DurMs"]); next }
	{ got += $(c[ARGV[2], "DurNonChildMs"]) }
	END { e = got - want; if (e < 0) e = -e; if (e > 1e-6 || want == 0) { print got " vs " want; exit 1 } }' "$1" "$2"
}

if have_data; then
	$X -n proc0 -f compile "$DATA/pax_fsdp4_4proc_proc0.zip" > "$T/p0.tsv" || notok "extract proc0"
	$X -n proc0,proc1,proc2,proc3 -f compile "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > "$T/c4.tsv" ||
		notok "extract combined4"
	for d in p0:proc0 c4:combined4; do
		ours=${d%%:*} gold=$GOLD/${d#*:}
		f=$T/$ours.tsv
		$S "$f" > "$T/$ours.stats" || notok "stats $ours"
		check "compile_stats.tsv $ours" cmpframe "$gold/compile_stats.tsv" "$T/$ours.stats" Name
		awk -v KEYS=Name -v REL=$TIMES -f tests/cmpframe.awk "$gold/compile_stats.tsv" \
		    "$T/$ours.stats" > "$T/out" && ok || notok "compile_stats.tsv $ours within 1e-9"
		$S -t summary "$f" > "$T/$ours.sum" || notok "summary $ours"
		check "compile_summary.tsv $ours" awk -v KEYS=Name -v REL=$TIMES -f tests/cmpframe.awk \
		    "$gold/compile_summary.tsv" "$T/$ours.sum"
		notebook "$T/$ours.sum" | cmp -s - "$gold/compile_summary.txt" && ok ||
			notok "compile_summary.txt $ours"
		n=$($S -t summary -f 0.97 "$f" | wc -l)
		[ "$n" -eq "$(wc -l < "$gold/compile_summary.txt")" ] && ok || notok "-f 0.97: $n lines"
		$S -t ranges "$f" > "$T/$ours.ranges" && $S -t no-pass-detail "$f" > "$T/$ours.nopass" &&
			$S -t passes "$f" > "$T/$ours.passes" || notok "summary.py tables $ours"
		check "compilation-ranges.json $ours" jsoncmp "$gold/compilation-ranges.json" "$T/$ours.ranges"
		check "compilation-high-level.json $ours" jsoncmp "$gold/compilation-high-level.json" "$T/$ours.nopass"
		check "compilation-passes.json $ours" jsoncmp "$gold/compilation-passes.json" "$T/$ours.passes"
		check "summary.txt top ranges $ours" toptxt "$gold/summary.txt" "COMPILATION TIME -- TOP 10 RANGES" "$T/$ours.ranges"
		check "summary.txt top passes $ours" toptxt "$gold/summary.txt" "COMPILATION TIME -- TOP 10 XLA PASSES" "$T/$ours.passes"
		check "conserved $ours" conserved "$f" "$T/$ours.stats"
		# Several tables of one attribution (-o) are the tables of one
		# run each, checked above against the golden outputs.
		$S -t ranges,no-pass-detail -t passes,stats -o "$T/$ours.multi/sub" "$f" || notok "-t LIST -o $ours"
		for x in ranges:ranges nopass:no-pass-detail passes:passes stats:stats; do
			cmp -s "$T/$ours.${x%%:*}" "$T/$ours.multi/sub/${x#*:}.tsv" && ok || notok "-o ${x#*:} $ours differs"
		done
		$S -t compilations -c -g "$f" > "$T/$ours.comp" || notok "compilations $ours"
		check "compilations $ours" invariants "$T/$ours.comp"
		# The reference's own input frame gives the same (pandas wrote
		# ParentId as a float and NaN as "nan").
		awk -F'\t' -v OFS='\t' 'NR > 1 { for (i = 1; i <= NF; i++) if ($i == "nan") $i = ""; sub(/\.0$/, "", $6) } 1' \
		    "$gold/init_compile.tsv" > "$T/init.tsv"
		$S "$T/init.tsv" > "$T/init.stats" || notok "golden input $ours"
		check "golden init_compile.tsv $ours" awk -v KEYS=Name -v REL=$TIMES -f tests/cmpframe.awk \
		    "$gold/compile_stats.tsv" "$T/init.stats"
	done
	# Parallel regions: with autotuner detail kept, worker threads remain.
	$X -k -n proc0,proc1,proc2,proc3 -f compile "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > "$T/c4k.tsv" ||
		notok "extract -k"
	n=$(awk -F'\t' 'NR > 1 { t[$1 " " $4] = 1 } END { for (k in t) n++; print n }' "$T/c4k.tsv")
	[ "$n" -gt 4 ] && ok || notok "-k frame has no worker threads ($n)"
	$S "$T/c4k.tsv" > "$T/c4k.stats" || notok "stats -k"
	check "conserved with parallel regions" conserved "$T/c4k.tsv" "$T/c4k.stats"
	$S -t compilations "$T/c4k.tsv" > "$T/c4k.comp" || notok "compilations -k"
	check "compilations with parallel regions" invariants "$T/c4k.comp"
	# Summed naively, the ranges of all threads exceed the wall time.
	awk -F'\t' 'NR > 1 { all += $11; if ($6 == "") wall += $9 } END { exit !(all > wall + 1000) }' \
	    "$T/c4k.tsv" && ok || notok "no parallel overlap in the -k frame"

	# Straight from the nsys stats reports in the archives.
	for i in 0 1 2 3; do
		unzip -p "$DATA/pax_fsdp4_4proc_proc$i.zip" report_nvtx_pushpop_trace.csv.xz > "$T/proc$i.csv.xz"
	done
	$S -p "$T/proc0.csv.xz" > "$T/pp0.stats" || notok "-p .csv.xz"
	check "-p compile_stats.tsv proc0" awk -v KEYS=Name -v REL=$TIMES -f tests/cmpframe.awk \
	    "$GOLD/proc0/compile_stats.tsv" "$T/pp0.stats"
	xz -dc "$T/proc0.csv.xz" > "$T/proc0.csv"
	$S -p "$T/proc0.csv" | cmp -s - "$T/pp0.stats" && ok || notok "-p .csv differs from .csv.xz"
	$S -p < "$T/proc0.csv.xz" | cmp -s - "$T/pp0.stats" && ok || notok "-p from stdin differs"
	$S -p -n proc0,proc1,proc2,proc3 "$T"/proc[0-3].csv.xz > "$T/pp4.stats" || notok "-p -n"
	check "-p compile_stats.tsv combined4" awk -v KEYS=Name -v REL=$TIMES -f tests/cmpframe.awk \
	    "$GOLD/combined4/compile_stats.tsv" "$T/pp4.stats"
	$S -p -n proc0,proc1,proc2,proc3 -t stats,summary -o "$T/pp4m" "$T"/proc[0-3].csv.xz && cmp -s "$T/pp4.stats" "$T/pp4m/stats.tsv" &&
		ok || notok "-p -t stats,summary -o differs from -p"
	$S -p -k -n proc0,proc1,proc2,proc3 "$T"/proc[0-3].csv.xz | cmp -s - "$T/c4k.stats" && ok ||
		notok "-p -k differs from the extract -k frame"
	# Profiles named after the files; ProgramId unknown without HLO.
	$S -p -t compilations "$T/proc0.csv.xz" | awk -F'\t' 'NR > 1 && ($1 != "proc0" || $3 != "unknown") { bad++ }
	    END { exit bad > 0 || NR < 2 }' && ok || notok "-p profile names"

	# The man page's examples, as written.
	D=$(cd "$DATA" && pwd) P=$(cd "$BIN" && pwd)
	for i in 0 1 2 3; do ln -sf "$D/pax_fsdp4_4proc_proc$i.zip" "$T/rank$i.zip"; done
	( cd "$T" && PATH=$P:$PATH && export PATH &&
	  nsysjax-extract -f compile rank0.zip | nsysjax-compilestats | head > ex1 &&
	  nsysjax-extract -f compile rank*.zip > compile.tsv &&
	  nsysjax-compilestats -t summary -f 0.97 compile.tsv |
	    awk -F'\t' 'NR > 1 { printf "%5.2f%% %.2fs %s\n", 100 * $4, $2 / 1000, $1 }' > ex2 &&
	  nsysjax-compilestats -t passes compile.tsv | head -n 11 > ex3 &&
	  xz -dc proc0.csv.xz > run_nvtx_pushpop_trace.csv &&
	  nsysjax-compilestats -p -c -g -f 0.9 -t compilations run_nvtx_pushpop_trace.csv > ex4 ) ||
		notok "examples"
	[ "$(wc -l < "$T/ex1")" -eq 10 ] && ok || notok "example 1"
	tail -n +2 "$GOLD/combined4/compile_summary.txt" | cmp -s - "$T/ex2" && ok || notok "example 2"
	[ "$(wc -l < "$T/ex3")" -eq 11 ] && ok || notok "example 3"
	awk -F'\t' 'NR > 1 && $1 != "run_nvtx_pushpop_trace" { bad++ } END { exit bad > 0 || NR < 2 }' "$T/ex4" &&
		ok || notok "example 4"
	# A reader that stops early is no failure.
	$S -t compilations "$T/c4.tsv" 2> "$T/e" | head -1 > /dev/null
	[ ! -s "$T/e" ] && ok || notok "| head -1 printed: $(cat "$T/e")"
else
	skip "golden comparisons: $DATA not found"
fi

# Hand-made frame: one parallel region of 45 ms over 80 ms of workers.
H='ProfileName\tRangeId\tName\tTID\tParentId\tRangeStack\tStartMs\tDurMs\tDurChildMs\tDurNonChildMs\n'
{
	printf "$H"
	printf 'p\t1\tXlaCompile\t1\t\t:1\t0\t100\t90\t10\n'
	printf 'p\t2\tXlaPass:#name=a#\t1\t1\t:1:2\t0\t10\t0\t10\n'
	printf 'p\t3\tXlaCompileBackend\t1\t1\t:1:3\t10\t80\t\t\n'
	printf 'p\t10\tXlaEmitGpuAsm:#module=split_module#\t2\t3\t:1:3:10\t20\t40\t0\t40\n'
	printf 'p\t11\tXlaEmitGpuAsm\t3\t3\t:1:3:11\t25\t40\t0\t40\n'
} > "$T/h.tsv"
got=$($S "$T/h.tsv" | awk -F'\t' 'NR > 1 { printf("%s=%s/%s;", $1, $2, $3) }')
[ "$got" = "XlaCompileBackend=35/45;XlaEmitGpuAsm=22.5/0;XlaEmitGpuAsm:#module=split_module#=22.5/0;XlaCompile=10/90;XlaPass:#name=a#=10/0;" ] &&
	ok || notok "hand-made stats: $got"
got=$($S -c -g "$T/h.tsv" | awk -F'\t' 'NR > 1 { printf("%s=%s;", $1, $2) }')
[ "$got" = "XlaEmitGpuAsm=45;XlaCompileBackend=35;XlaCompile=10;XlaPasses=10;" ] && ok || notok "-c -g: $got"
# Files are read one after another; standard input too.
$S "$T/h.tsv" > "$T/o1"
$S < "$T/h.tsv" | cmp -s - "$T/o1" && ok || notok "stdin"
$S - < "$T/h.tsv" | cmp -s - "$T/o1" && ok || notok "- is stdin"
sed 's/^p\t/q\t/' "$T/h.tsv" > "$T/q.tsv"
{ cat "$T/h.tsv"; tail -n +2 "$T/q.tsv"; } > "$T/pq.tsv"
$S "$T/pq.tsv" > "$T/o2"
$S "$T/h.tsv" "$T/q.tsv" | cmp -s - "$T/o2" && ok || notok "two files differ from one"
[ "$(awk -F'\t' '$1 == "XlaCompile" { print $2 }' "$T/o2")" = 20 ] && ok || notok "profiles add up"

# expect_error STATUS PATTERN CMD...
expect_error 2 usage $S -x
expect_error 2 "unknown table 'nope'" $S -t nope
expect_error 2 "-f '2': not a number from 0 to 1" $S -f 2
expect_error 2 "needs an argument" $S -t
expect_error 2 "-k and -n go with -p" $S -k "$T/h.tsv"
expect_error 2 "-k and -n go with -p" $S -n a "$T/h.tsv"
expect_error 2 "-g leaves no passes" $S -g -t passes "$T/h.tsv"
expect_error 2 "-n gives 2 names for 1 inputs" $S -p -n a,b "$T/h.tsv"
cut -f 1-3,5- "$T/h.tsv" > "$T/notid.tsv"
expect_error 1 "nsysjax-compilestats: $T/notid.tsv: missing column 'TID'" $S "$T/notid.tsv"
sed '3s/\t0\t10\t0\t10$/\t0\tten\t0\t10/' "$T/h.tsv" > "$T/bad.tsv"
expect_error 1 "nsysjax-compilestats: $T/bad.tsv:3: column DurMs: not a number: 'ten'" $S "$T/bad.tsv"
sed '3s/:1:2/:1:9/' "$T/h.tsv" > "$T/stack.tsv"
expect_error 1 "$T/stack.tsv:3: column RangeStack: ':1:9' does not end with ':2', its RangeId" $S "$T/stack.tsv"
sed '3s/\t0\t10\t0\t10$/\t30\t10\t0\t10/' "$T/h.tsv" > "$T/overlap.tsv"
sed -i '3s/\t1\t:1:2\t/\t3\t:1:3:2\t/' "$T/overlap.tsv"
expect_error 1 "$T/overlap.tsv:3: RangeId 2: main-thread range inside the parallel region of RangeId 3" \
	$S "$T/overlap.tsv"
grep -v XlaCompile "$T/h.tsv" > "$T/nocompile.tsv"
expect_error 1 "$T/nocompile.tsv: profile 'p': no XlaCompile range, so no main thread" $S "$T/nocompile.tsv"
expect_error 2 "more than one table needs -o" $S -t stats,passes "$T/h.tsv"
expect_error 2 "the compilations table goes alone" $S -t stats,compilations -o "$T/x" "$T/h.tsv"
expect_error 1 "no XlaCompile range" $S -t stats,passes -o "$T/nodir/sub" "$T/nocompile.tsv"
[ ! -e "$T/nodir" ] && ok || notok "a failed -o left $T/nodir"
expect_error 1 "$T/nosuch.tsv: cannot open" $S "$T/nosuch.tsv"
expect_error 1 "$T/nosuch.csv: cannot open" $S -p "$T/nosuch.csv"
printf 'Start (ns),Name\n' > "$T/r.csv"
expect_error 1 "$T/r.csv: missing column End (ns)" $S -p "$T/r.csv"

if command -v mandoc > /dev/null; then
	mandoc -Tlint man/nsysjax-compilestats.1 2>&1 | grep -v -e "referenced manual not found" -e "outdated mandoc.db" > "$T/lint"
	[ ! -s "$T/lint" ] && ok || notok "mandoc -Tlint: $(cat "$T/lint")"
else
	skip "mandoc not installed"
fi
done_testing t60-compilestats
