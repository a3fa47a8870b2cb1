#!/bin/sh
# nsysjax-fold: folded stacks and the opcode table against the reference's
# golden outputs (from its steady-state rows and from ours), the line rules
# of flamegraph.pl, inferno and speedscope, the man page's examples, hand-made corner cases and bad input.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
F=$BIN/nsysjax-fold
W=$BIN/nsysjax-warmup

# cmpfold GOLDEN OURS NS: the same stacks; each count (in units of NS ns)
# within one unit or 1e-6 relative of the golden value (Python float ms).
cmpfold() {
	awk -v UNIT="$3" '
	{ i = match($0, / [^ ]*$/); k = substr($0, 1, i - 1); v = substr($0, i + 1) }
	FILENAME == ARGV[1] { g[k] = v * 1e6; ng++; next }
	{ o[k] = v * UNIT; no++ }
	END {
		for (k in g) if (!(k in o)) { print "missing: " substr(k, 1, 160); bad++ }
		for (k in o) if (!(k in g)) { print "extra: " substr(k, 1, 160); bad++ }
		for (k in g) if (k in o) {
			d = g[k] - o[k]; if (d < 0) d = -d
			if (d > UNIT * 1.000001 && d > 1e-6 * g[k]) {
				print "differs: " g[k] " ns, ours " o[k] ": " substr(k, 1, 120); bad++ }
		}
		exit bad > 0 || ng == 0 || ng != no
	}' "$1" "$2"
}

# consumers FILE: every line is read by flamegraph.pl (its regex, and no
# second count that would make it a differential line), by speedscope
# (/^(.*) (\d+)$/) and by inferno (an integer after the last space, no
# number before it), and no line is empty or has a CR.
consumers() {
	perl -e '
	use open qw(:std :utf8);
	my ($n, $bad) = (0, 0);
	while (<>) {
		chomp;
		$n++;
		my $line = $_;
		my ($stack, $count) = ($line =~ /^(.*)\s+?(\d+(?:\.\d*)?)$/);
		if (!defined $count) { print "flamegraph.pl ignores: $line\n"; $bad++; next }
		if ($stack =~ /^(.*)\s+?(\d+(?:\.\d*)?)$/) { print "flamegraph.pl reads two counts: $line\n"; $bad++ }
		if ($line !~ /^(.*) (\d+)$/) { print "speedscope skips: $line\n"; $bad++ }
		my $i = rindex($line, " ");
		my $s = substr($line, 0, $i);
		if (substr($line, $i + 1) !~ /^[0-9]+$/) { print "inferno count: $line\n"; $bad++ }
		my $j = rindex($s, " ");
		if ($j >= 0 && substr($s, $j + 1) =~ /^[0-9]*\.?[0-9]*$/ && substr($s, $j + 1) =~ /[0-9]/) {
			print "inferno reads two counts: $line\n"; $bad++ }
		if ($line eq "" || $line =~ /\r/) { print "bad line: $line\n"; $bad++ }
	}
	exit($bad > 0 || $n == 0 ? 1 : 0);' "$1"
}

# sum FILE: the sum of the counts.
sum() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }

# golden_opcodes TSV TXT OURS: every opcode of op_runtime.tsv (but _total)
# within 1e-9 relative, and op_runtime.txt's percent and ms as printed.
golden_opcodes() {
	awk -F'\t' '
	FILENAME == ARGV[1] { if (FNR > 1 && $1 != "_total") { g[$1] = $2; ng++ }; next }
	FILENAME == ARGV[2] { if (FNR > 1) { v[$1] = $2; f[$1] = $3; no++ }; next }
	/%/ {
		line = $0; sub(/^ +/, "", line); split(line, w, / +/)
		name = line; sub(/^[^ ]+ +[^ ]+ /, "", name)
		p = w[1]; sub(/%$/, "", p); ms = w[2]; sub(/ms$/, "", ms)
		if (!(name in v)) { print "txt: no row " name; bad++; next }
		if (sprintf("%.2f", 100 * f[name]) != sprintf("%.2f", p) ||
		    sprintf("%.2f", v[name]) != sprintf("%.2f", ms)) {
			print "txt differs: " $0 " vs " 100 * f[name] "% " v[name]; bad++ }
		nt++
	}
	END {
		for (k in g) { d = g[k] - v[k]; if (d < 0) d = -d
			if (!(k in v) || d > 1e-9 * (g[k] < 0 ? -g[k] : g[k]) + 1e-9) {
				print "tsv differs: " k " " g[k] " vs " v[k]; bad++ } }
		exit bad > 0 || ng != no || nt != ng
	}' "$1" "$3" "$2"
}

# golden_totals TSV STDERR: -v's three totals are runtime_totals.tsv's.
golden_totals() {
	awk '
	FILENAME == ARGV[1] { t[$1] = $2; next }
	/selected/ {
		for (i = 1; i <= NF; i++) if ($(i + 1) == "ms" || $(i + 1) == "ms,") v[$(i - 1)] = $i
		n = split("thunks:all_thunks_active_ms modules:all_modules_active_ms wall:all_modules_wall_ms", q, " ")
		for (j = 1; j <= n; j++) {
			split(q[j], kv, ":"); d = v[kv[1]] - t[kv[2]]; if (d < 0) d = -d
			if (d > 1e-6) { print kv[1] " " v[kv[1]] " vs " t[kv[2]]; bad++ }
			seen++
		}
	}
	END { exit bad > 0 || seen != 3 }' "$1" "$2"
}

if have_data; then
	mkdir -p "$T/c4" "$T/p0"
	$X -n proc0,proc1,proc2,proc3 -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip || notok "extract combined4"
	$X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip" || notok "extract proc0"
	# The two dumps of jit__psum (module_0001 and _0038) disagree on the
	# stack of all-reduce-start: the hlo frame has both.
	awk -F'\t' '{ n[$1 FS $2]++ } END { for (k in n) if (n[k] > 1) print k }' "$T/c4/hlo.tsv" > "$T/dup"
	[ "$(cat "$T/dup")" = "$(printf '6f8097e242d8bf3b64f63c04c3f09c47\tall-reduce-start')" ] && ok ||
		notok "hlo variant rows: $(cat "$T/dup")"
	for d in p0:proc0 c4:combined4; do
		o=${d%%:*} g=$GOLD/${d#*:}
		in="-H $T/$o/hlo.tsv -M $g/steady_module.tsv $g/steady_thunk.tsv"
		for by in source op_name; do
			for u in ns:1 us:1000; do
				$F -b $by -u ${u%:*} -S "$T/$o/stackframes.tsv" $in > "$T/$o.$by.${u%:*}" 2> "$T/err" ||
					notok "fold $by ${d#*:}: $(cat "$T/err")"
				check "$by ${u%:*} ${d#*:} = $by.folded" cmpfold "$g/$by.folded" "$T/$o.$by.${u%:*}" ${u#*:}
				check "$by ${u%:*} ${d#*:}: consumers" consumers "$T/$o.$by.${u%:*}"
			done
			# No time lost: the counts add up to the wall time.
			want=$(awk -F'\t' '$1 == "all_modules_wall_ms" { printf "%.0f", $2 * 1000 }' "$g/runtime_totals.tsv")
			got=$(sum "$T/$o.$by.us")
			[ $((got - want)) -le 1 ] && [ $((want - got)) -le 1 ] && ok ||
				notok "$by ${d#*:}: counts sum to $got us, wall is $want"
			sed 's/ [0-9]*$//' "$T/$o.$by.us" | LC_ALL=C sort -c 2> /dev/null && ok || notok "$by ${d#*:}: not sorted"
		done
		$F -b opcode $in > "$T/$o.opcode" || notok "fold opcode ${d#*:}"
		check "opcode ${d#*:} = op_runtime" golden_opcodes "$g/op_runtime.tsv" "$g/op_runtime.txt" "$T/$o.opcode"
		$F -v -b op_name $in 2> "$T/$o.v" > /dev/null
		check "totals ${d#*:} = runtime_totals" golden_totals "$g/runtime_totals.tsv" "$T/$o.v"
	done
	grep -c 'inconsistent metadata' "$T/c4.source.ns" | grep -qx 1 && ok || notok "one spliced stack"

	# Same bytes whatever the row order, from a pipe or from files.
	g=$GOLD/combined4
	(head -n 1 "$g/steady_thunk.tsv"; tail -n +2 "$g/steady_thunk.tsv" | sort -r) > "$T/shuf.tsv"
	$F -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" -M "$g/steady_module.tsv" < "$T/shuf.tsv" |
		cmp -s - "$T/c4.source.us" && ok || notok "row order or stdin changes the output"
	head -n 1000 "$g/steady_thunk.tsv" > "$T/t1.tsv"
	(head -n 1 "$g/steady_thunk.tsv"; tail -n +1001 "$g/steady_thunk.tsv") > "$T/t2.tsv"
	$F -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" -M "$g/steady_module.tsv" "$T/t1.tsv" "$T/t2.tsv" |
		cmp -s - "$T/c4.source.us" && ok || notok "two files differ from one"
	# --top 1 keeps every module: more time, and every stack of 0.99.
	$F -t 1 -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" -M "$g/steady_module.tsv" "$g/steady_thunk.tsv" > "$T/all"
	sed 's/ [0-9]*$//' "$T/all" > "$T/all.k"
	sed 's/ [0-9]*$//' "$T/c4.source.us" | LC_ALL=C comm -23 - "$T/all.k" > "$T/lost"
	[ "$(sum "$T/all")" -ge "$(sum "$T/c4.source.us")" ] && [ ! -s "$T/lost" ] && ok ||
		notok "--top 1: $(sum "$T/all") us, lost $(wc -l < "$T/lost") stacks"

	# -o: every kind of the whole run and the flame graphs of each
	# program alone in one pass, the same bytes as a fold of each (the
	# whole run's checked against the golden files above; a program's
	# from its own rows, without -M).
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProgramId") c = i; next } !s[$c]++ { print $c }' \
	    "$g/steady_thunk.tsv" > "$T/progs"
	set --
	while read -r id; do set -- "$@" -p "$id"; done < "$T/progs"
	$F -o "$T/multi" -b opcode,source,op_name "$@" -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" \
	    -M "$g/steady_module.tsv" "$g/steady_thunk.tsv" 2> "$T/err" || notok "fold -o: $(cat "$T/err")"
	cmp -s "$T/multi/source.folded" "$T/c4.source.us" && cmp -s "$T/multi/opcodes.tsv" "$T/c4.opcode" && ok ||
		notok "fold -o: the whole run differs from single folds"
	$F -b op_name -H "$T/c4/hlo.tsv" -M "$g/steady_module.tsv" "$g/steady_thunk.tsv" | cmp -s - "$T/multi/op_name.folded" &&
		ok || notok "fold -o: op_name differs"
	np=0
	while read -r id; do
		np=$((np + 1))
		awk -F'\t' -v id="$id" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProgramId") c = i; print; next } $c == id' \
		    "$g/steady_thunk.tsv" > "$T/one.tsv"
		for by in source op_name; do
			$F -b $by -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" "$T/one.tsv" > "$T/one.$by"
			[ -s "$T/one.$by" ] && cmp -s "$T/one.$by" "$T/multi/module-$(printf '%.12s' "$id").$by.folded" && ok ||
				notok "fold -o -p $id: $by differs from a fold of its rows"
		done
	done < "$T/progs"
	[ "$(ls "$T/multi" | wc -l)" -eq $((3 + 2 * np)) ] && [ "$np" -ge 3 ] && ok || notok "fold -o: $(ls "$T/multi" | wc -l) files for $np programs"

	# Our own steady state (nsysjax-warmup) gives the reference's graphs.
	if [ -x "$W" ]; then
		for d in p0:proc0 c4:combined4; do
			o=${d%%:*} g=$GOLD/${d#*:}
			$W -c "$T/$o/compile.tsv" "$T/$o/thunk.tsv" > "$T/$o.st" 2>/dev/null &&
			$W -c "$T/$o/compile.tsv" --communication-from "$T/$o/thunk.tsv" "$T/$o/module.tsv" > "$T/$o.sm" 2>/dev/null ||
				notok "warmup ${d#*:}"
			for by in source op_name; do
				$F -b $by -u ns -H "$T/$o/hlo.tsv" -S "$T/$o/stackframes.tsv" -M "$T/$o.sm" "$T/$o.st" > "$T/$o.own.$by"
				check "$by ${d#*:} from our pipeline" cmpfold "$g/$by.folded" "$T/$o.own.$by" 1
			done
			$F -b opcode -H "$T/$o/hlo.tsv" -M "$T/$o.sm" "$T/$o.st" > "$T/$o.own.opcode"
			check "opcode ${d#*:} from our pipeline" golden_opcodes "$g/op_runtime.tsv" "$g/op_runtime.txt" "$T/$o.own.opcode"
		done
	else
		skip "our pipeline: no $W"
	fi
else
	skip "golden comparisons: $DATA not found"
fi

# Hand-made tables: a frame with ';' and a newline, a leaf "step 3", an
# op_name with a tab, an instruction without hlo row.
printf 'FrameId\tParentFrameId\tFrame\n0\t\ta.py:1[f;g]\n1\t0\tb\\nc\n2\t1\tstep 3\n' > "$T/sf.tsv"
printf 'ProgramId\tName\tOpcode\tStackFrameIds\tOpNames\n' > "$T/hlo.tsv"
printf 'p\tx\tfusion\t2\tstep 3\n' >> "$T/hlo.tsv"
printf 'p\ty\tcopy\t\tu/v\\tw 12\n' >> "$T/hlo.tsv"
printf 'ProgramId\tName\tProjDurMs\n' > "$T/th.tsv"
printf 'p\tx\t0.0025\np\ty\t0.001\np\tz\t0.0005\n' >> "$T/th.tsv"
$F -u ns -H "$T/hlo.tsv" -S "$T/sf.tsv" "$T/th.tsv" > "$T/h.out" 2> "$T/h.err"
printf '[GPU active];[Unknown] 500\n[GPU active];[Unknown];u/v w_12 1000\n[GPU active];a.py:1[f:g];b c;step_3 2500\n' > "$T/h.want"
cmp -s "$T/h.out" "$T/h.want" && ok || notok "hand-made source: $(cat "$T/h.out")"
check "hand-made: consumers" consumers "$T/h.out"
grep -qx 'nsysjax-fold: 1 instruction with no hlo row: \[GPU active\];\[Unknown\]' "$T/h.err" && ok || notok "no warning: $(cat "$T/h.err")"
$F -b op_name -H "$T/hlo.tsv" "$T/th.tsv" > "$T/h2.out" 2> /dev/null
printf '[GPU active];[Unknown] 1\n[GPU active];step_3 2\n[GPU active];u;v w_12 1\n' > "$T/h2.want"
cmp -s "$T/h2.out" "$T/h2.want" && ok || notok "hand-made op_name: $(cat "$T/h2.out")"
# -o -p: program p alone is the whole of this run; program q has no thunk
# (an empty graph); the opcode table is the whole run's alone.
$F -o "$T/ho" -u ns -b source,opcode -p p -p q -H "$T/hlo.tsv" -S "$T/sf.tsv" "$T/th.tsv" 2> "$T/ho.err"
cmp -s "$T/ho/module-p.source.folded" "$T/h.want" && cmp -s "$T/ho/source.folded" "$T/h.want" &&
	[ -f "$T/ho/module-q.source.folded" ] && [ ! -s "$T/ho/module-q.source.folded" ] && [ -s "$T/ho/opcodes.tsv" ] &&
	[ "$(ls "$T/ho" | wc -l)" -eq 4 ] && ok || notok "hand-made -o -p: $(ls "$T/ho")"
grep -qx 'nsysjax-fold: program p: 1 instruction with no hlo row: \[GPU active\];\[Unknown\]' "$T/ho.err" &&
	[ "$(wc -l < "$T/ho.err")" -eq 2 ] && ok || notok "-o warnings: $(cat "$T/ho.err")"
$F -o "$T/ho2" -b op_name -p p -H "$T/hlo.tsv" "$T/th.tsv" 2> /dev/null
# A program alone ignores -M, even when the module rows are another's.
printf 'ProgramId\tDevice\tProjStartMs\tProjDurMs\nq\t0\t1\t0.01\n' > "$T/modq.tsv"
$F -o "$T/ho3" -u ns -p p -H "$T/hlo.tsv" -S "$T/sf.tsv" -M "$T/modq.tsv" "$T/th.tsv" 2> /dev/null
cmp -s "$T/ho3/module-p.source.folded" "$T/h.want" && ok || notok "-o -p with another's modules: $(cat "$T/ho3/module-p.source.folded")"
cmp -s "$T/ho2/module-p.op_name.folded" "$T/h2.want" && cmp -s "$T/ho2/op_name.folded" "$T/h2.want" && ok ||
	notok "hand-made -o -p op_name: $(cat "$T/ho2/module-p.op_name.folded")"

# expect_error STATUS PATTERN CMD...: exit status, one message (and the
# two usage lines for status 2), no output.
H="-H $T/hlo.tsv -S $T/sf.tsv"
expect_error 2 usage $F -x $H "$T/th.tsv"
expect_error 2 "the hlo frame is needed" $F -S "$T/sf.tsv" "$T/th.tsv"
expect_error 2 "needs -S" $F -H "$T/hlo.tsv" "$T/th.tsv"
expect_error 2 "unknown --by 'stack'" $F -b stack $H "$T/th.tsv"
expect_error 2 "not a fraction" $F -t 0 $H "$T/th.tsv"
expect_error 2 "not a number from 0 to 1" $F -t 1.5 $H "$T/th.tsv"
expect_error 2 "not a number from 0 to 1" $F --top=x $H "$T/th.tsv"
expect_error 2 "unknown --unit 'ms'" $F -u ms $H "$T/th.tsv"
expect_error 2 "needs an argument" $F $H "$T/th.tsv" -t
expect_error 2 "a list of --by needs -o" $F -b source,op_name $H "$T/th.tsv"
expect_error 2 "unknown --by 'stack'" $F -o "$T/od" -b source,stack $H "$T/th.tsv"
expect_error 2 "--program needs -o" $F -p p $H "$T/th.tsv"
expect_error 2 "--program 'a/b': not a ProgramId" $F -o "$T/od" -p a/b $H "$T/th.tsv"
expect_error 2 "first 12 characters" $F -o "$T/od" -p 0123456789abX -p 0123456789abY $H "$T/th.tsv"
expect_error 2 "--program folds flame graphs" $F -o "$T/od" -b opcode -p p $H "$T/th.tsv"
: > "$T/afile"
expect_error 1 "afile: not a directory" $F -o "$T/afile/sub" $H "$T/th.tsv"
expect_error 1 "nosuch.tsv: cannot open" $F -H "$T/nosuch.tsv" -b op_name "$T/th.tsv"
expect_error 1 "nosuch.tsv: cannot open" $F $H "$T/nosuch.tsv"
cut -f 1,2 "$T/th.tsv" > "$T/nodur.tsv"
expect_error 1 "nodur.tsv: missing column 'ProjDurMs'" $F $H "$T/nodur.tsv"
sed '3s/0.001/soon/' "$T/th.tsv" > "$T/nan.tsv"
expect_error 1 "nan.tsv:3: column ProjDurMs: not a number: 'soon'" $F $H "$T/nan.tsv"
expect_error 1 "nan.tsv:3: column ProjDurMs: not a number: 'soon'" $F -o "$T/od" -b source,opcode $H "$T/nan.tsv"
[ ! -e "$T/od" ] && ok || notok "a failed fold -o left $T/od"
sed '3s/0.001/-0.001/' "$T/th.tsv" > "$T/neg.tsv"
expect_error 1 "neg.tsv:3: column ProjDurMs: negative duration" $F $H "$T/neg.tsv"
sed '2s/\t2\t/\t7\t/' "$T/hlo.tsv" > "$T/badid.tsv"
expect_error 1 "badid.tsv:2: column StackFrameIds: no stack frame 7" $F -H "$T/badid.tsv" -S "$T/sf.tsv" "$T/th.tsv"
sed '3s/^1\t0/1\t1/' "$T/sf.tsv" > "$T/cycle.tsv"
expect_error 1 "cycle.tsv:3: column ParentFrameId: not a smaller FrameId: 1" $F -H "$T/hlo.tsv" -S "$T/cycle.tsv" "$T/th.tsv"
printf 'ProgramId\tDevice\tProjStartMs\n' > "$T/mod.tsv"
expect_error 1 "mod.tsv: missing column 'ProjDurMs'" $F $H -M "$T/mod.tsv" "$T/th.tsv"
# A reader that stops early is no failure.
if have_data; then
	$F -H "$T/c4/hlo.tsv" -S "$T/c4/stackframes.tsv" "$GOLD/combined4/steady_thunk.tsv" 2> "$T/e" | head -1 > /dev/null
	[ ! -s "$T/e" ] && ok || notok "| head -1 printed: $(cat "$T/e")"
fi

# The examples of the man page, run as written on the
# sample's first process, with a flamegraph.pl that applies its line rule.
if have_data && [ -x "$W" ]; then
	mkdir -p "$T/ex/bin"
	abs=$(cd "$BIN" && pwd)
	cat > "$T/ex/bin/flamegraph.pl" <<'EOF'
#!/usr/bin/perl
# Stand-in for flamegraph.pl: refuse any line it would ignore.
use open qw(:std :utf8);
my $n = 0;
while (<STDIN>) { chomp; /^(.*)\s+?(\d+(?:\.\d*)?)$/ or die "ignored: $_\n"; $n++ }
die "no input\n" unless $n;
print "<svg>$n</svg>\n";
EOF
	chmod +x "$T/ex/bin/flamegraph.pl"
	# Commands are "$ " lines in the man page's EXAMPLES.
	awk '/^\.Sh EXAMPLES/ { on = 1; next } /^\.Sh/ { on = 0 }
	    on && /^\$ / { print substr($0, 3) }' man/nsysjax-fold.1 > "$T/ex/man.sh"
	for s in man; do
		n=$(wc -l < "$T/ex/$s.sh")
		mkdir -p "$T/ex/$s"
		ln -s "$(cd "$DATA" && pwd)/pax_fsdp4_4proc_proc0.zip" "$T/ex/$s/rank0.zip"
		if [ "$n" -ge 4 ] && (cd "$T/ex/$s" && PATH="$abs:$T/ex/bin:$PATH" sh -e ../$s.sh > out 2> err) &&
		    [ -s "$T/ex/$s/source.svg" ] && [ -s "$T/ex/$s/op_name.collapsedstack.txt" ] &&
		    grep -q '^GPU idle during modules' "$T/ex/$s/out"; then
			ok
		else
			notok "$s examples ($n commands): $(head -5 "$T/ex/$s/err" 2>/dev/null)"
		fi
	done
	check "example output: consumers" consumers "$T/ex/man/op_name.collapsedstack.txt"
else
	skip "examples: no sample data or no $W"
fi
done_testing t50-fold
