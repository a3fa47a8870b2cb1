#!/bin/sh
# pipelines/report.sh: the whole report of a run, on the example profile
# (always) and on the four real archives (with ../shared).  Its tables
# must be those of the tools and pipelines run alone, its corrections
# those of nsysjax-align, its output the same bytes on a second run.
set -u
. tests/lib.sh
R=pipelines/report.sh
export NSYSJAX_BIN=$BIN
EX=${EXAMPLE:-build/example/profile}

# report_checks NAME DIR INPUT...: the report of INPUT in DIR is complete
# and agrees with the pieces.
report_checks() {
	name=$1 dir=$2
	shift 2
	for f in report.txt corrections.tsv alignment_skews.tsv \
	    summary/modules.tsv communication/bandwidth.tsv communication/hidden.tsv \
	    flamegraphs/source.folded flamegraphs/op_name.folded \
	    flamegraphs/opcodes.tsv variability/thunks.tsv memory/peaks.tsv; do
		[ -s "$dir/$f" ] || { notok "$name: $f missing or empty"; return; }
	done
	ok
	"$BIN/nsysjax-align" -o "$T/corr" "$dir/frames/communication.tsv" > /dev/null 2>&1
	cmp -s "$T/corr" "$dir/corrections.tsv" && ok || notok "$name: corrections differ from nsysjax-align's"
	sh pipelines/communication.sh -t bandwidth "$dir/frames" > "$T/bw" 2> /dev/null
	cmp -s "$T/bw" "$dir/communication/bandwidth.tsv" && ok || notok "$name: bandwidth differs from communication.sh's"
	# The text report holds the tables, formatted: the bandwidth cells are
	# the TSV's means to the digit printed.
	awk -v MODE=tsv -f tests/reporttxt.awk "$dir/report.txt" "$dir/communication/bandwidth.tsv" > "$T/rt" &&
		ok || notok "$name: report.txt's bandwidth table: $(head -5 "$T/rt")"
	grep -q 'e[+-][0-9]' "$dir/report.txt" && notok "$name: exponent notation in report.txt" || ok
	# Skews: one row per device and complete instance, summing to 0.
	awk -F'\t' 'NR > 1 { s[$2] += $3; n++ } END { for (i in s) if (s[i] > 1e-6 || s[i] < -1e-6) bad++; exit bad > 0 || n == 0 }' \
	    "$dir/alignment_skews.tsv" && ok || notok "$name: skews do not centre on each instance"
	if command -v gnuplot > /dev/null; then
		n=$(ls "$dir/plots" 2> /dev/null | grep -c '\.svg$')
		[ "$n" -ge 3 ] && grep -q '<svg' "$dir/plots/bandwidth.svg" && ok || notok "$name: $n plots"
	else
		skip "$name plots: gnuplot not installed"
	fi
}

if [ -x build/example/mkexample ] || [ -d "$EX" ]; then
	[ -d "$EX/rank0" ] || build/example/mkexample "$EX" > /dev/null
	sh $R -o "$T/ex" "$EX/rank0" "$EX/rank1" > "$T/ex.out" 2> "$T/ex.err" && ok || notok "report on the example: $(cat "$T/ex.err")"
	report_checks example "$T/ex"
	cmp -s "$T/ex.out" "$T/ex/report.txt" && ok || notok "stdout is not report.txt"
	# The planted clock offset (tests/example/truth.tsv) comes out.
	awk -F'\t' 'NR == 3 { exit !($2 + 0 > 1359 && $2 + 0 < 1360) }' "$T/ex/corrections.tsv" && ok ||
		notok "example corrections: $(cat "$T/ex/corrections.tsv")"
	# A frames directory is a valid input and gives the same report.
	sh $R -o "$T/ex2" "$T/ex/frames" > /dev/null 2>&1
	diff -r -x frames -x report.txt -x report.html "$T/ex" "$T/ex2" > /dev/null && ok || notok "frames input gives another report"
	# A failing pipeline (memory.sh: no heap frame) fails the report with
	# its message, stops the others and leaves nothing in TMPDIR.
	mkdir -p "$T/nh" "$T/tmpd"
	cp "$T/ex/frames/"*.tsv "$T/nh/" && rm "$T/nh/heap.tsv"
	TMPDIR=$T/tmpd sh $R -o "$T/nho" "$T/nh" > /dev/null 2> "$T/e"; rc=$?
	sleep 1
	[ $rc -eq 1 ] && grep -q 'memory failed' "$T/e" && grep -q 'no heap.tsv' "$T/e" &&
	    [ -z "$(ls -A "$T/tmpd")" ] && ok || notok "failing pipeline: exit $rc, left $(ls -A "$T/tmpd")"
else
	skip "example profile: build/example/mkexample not built"
fi

if have_data; then
	sh $R -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > /dev/null 2> "$T/c4.err" && ok ||
		notok "report on combined4: $(cat "$T/c4.err")"
	report_checks combined4 "$T/c4"
	# The straggler table joins the ProgramIds of one SPMD step (process
	# 3 compiled pjit__wrapped_step_fn under another ProgramId): its four
	# devices are one module, device 3 with biases (not "--"), and per
	# module the biases weighted by executions add up to 0 over devices.
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == "pjit__wrapped_step_fn" { id[$c["ProgramId"]] = 1; dev[$c["Device"]] = 1
		s += $c["StartBiasMs"] * $c["Executions"]; d += $c["DurBiasMs"] * $c["Executions"]
		if ($c["Device"] == 3 && $c["StartBiasMs"] != 0) three = 1 }
	    END { for (k in id) ni++; for (k in dev) nd++
		exit !(ni == 1 && nd == 4 && three && s < 1e-6 && s > -1e-6 && d < 1e-6 && d > -1e-6) }' "$T/c4/variability/stragglers.tsv" &&
	    grep -q '^  pjit__wrapped_step_fn (25fa0b3e673a) *3 ' "$T/c4/report.txt" &&
	    ! grep -q '^  pjit__wrapped_step_fn (04555b1419fd) .*--' "$T/c4/report.txt" && ok ||
		notok "combined4: pjit__wrapped_step_fn's stragglers not joined: $(grep pjit__wrapped_step_fn "$T/c4/variability/stragglers.tsv")"
	# report.txt prints what the reference prints: its bandwidth table
	# (communication.txt) cell for cell, value(uncertainty) and all, and
	# the module durations and waits of summary.txt where its numbers are
	# ours (the reference leaves device 3 unaligned, which changes jit__psum).
	awk -v MODE=golden -f tests/reporttxt.awk "$T/c4/report.txt" "$GOLD/combined4/communication.txt" > "$T/rt" &&
		ok || notok "combined4: report.txt's bandwidth vs communication.txt: $(head -5 "$T/rt")"
	for m in 25fa0b3e673a:126.5\(7\):1.7\(4\) 04555b1419fd:127.13\(13\):-- e1c23df2884f:0.002168\(16\):--; do
		id=${m%%:*} rest=${m#*:}; dur=${rest%%:*} wait=${rest#*:}
		grep "^  .*($id)\( barrier\)*$" "$T/c4/report.txt" | head -n 1 | awk -v d="$dur" -v w="$wait" '
		    { for (i = 1; i <= NF; i++) { if ($i == d) fd = 1; if ($i == w || (w == "--" && ($i == "0" || $i == "--"))) fw = 1 } }
		    END { exit !(fd && fw) }' && ok || notok "combined4 module $id: not $dur and $wait as in summary.txt"
	done
	# Same input, same bytes, plots included, whatever the jobs at once.
	sh $R -j 1 -o "$T/c4b" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > /dev/null 2>&1
	diff -r "$T/c4" "$T/c4b" > /dev/null && ok || notok "report not deterministic (-j 1)"
	# With a flame graph renderer on PATH (a stand-in for flamegraph.pl
	# that picks random colours without --hash and walks a Perl hash):
	# the SVGs are written, inlined in report.html, and the same bytes
	# twice; without one (the runs above), report.html says how to render
	# the folded files.
	if command -v flamegraph.pl > /dev/null || command -v inferno-flamegraph > /dev/null; then
		skip "the runs without a renderer: one is on PATH"
	else
		grep -q 'render it with <code>flamegraph.pl' "$T/c4/report.html" && ok || notok "no render command in report.html"
	fi
	for k in 1 2; do
		PATH=$(cd tests/fake && pwd):$PATH sh $R -o "$T/fg$k" "$T/c4/frames" > /dev/null 2>&1 ||
			notok "report with flamegraph.pl ($k)"
	done
	[ -s "$T/fg1/flamegraphs/source.svg" ] && [ -s "$T/fg1/flamegraphs/op_name.svg" ] && ok ||
		notok "flame graphs not rendered"
	# Inline: the modules' own (the working module's first), not the
	# whole run's, mostly idle time between executions: that one linked.
	grep -q '>pjit__wrapped_step_fn ([0-9a-f]\{12\}): source, steady state' "$T/fg1/report.html" &&
	    ! grep -q '>Source code flamegraph' "$T/fg1/report.html" && grep -q 'href="flamegraphs/source.svg"' "$T/fg1/report.html" &&
	    ok || notok "flame graphs in report.html: not the working module's inline and the whole run's linked"
	diff -r "$T/fg1" "$T/fg2" > /dev/null && ok || notok "report with flame graphs not deterministic"
	sh $R -j 5 -o "$T/c4c" "$T/c4/frames" > /dev/null 2>&1
	diff -r -x frames -x report.txt -x report.html "$T/c4" "$T/c4c" > /dev/null && ok || notok "report not deterministic (-j 5)"
	# The pipelines given report.sh's steady frames (-s) write what they
	# write computing them: the intermediates once are the same.
	steady=$T/st
	mkdir -p "$steady"
	for f in thunk module communication; do
		"$BIN/nsysjax-align" -a "$T/c4/corrections.tsv" "$T/c4/frames/$f.tsv" 2> /dev/null |
			"$BIN/nsysjax-warmup" -c "$T/c4/frames/compile.tsv" \
			    --communication-from "$T/c4/frames/communication.tsv" > "$steady/$f.tsv"
	done
	sh pipelines/variability.sh -J -s "$steady" -o "$T/var" "$T/c4/frames" 2> /dev/null
	diff -r "$T/var" "$T/c4/variability" > /dev/null && ok || notok "variability.sh -J -s differs from the report's"
	sh pipelines/summary.sh -o "$T/sum" "$T/c4/frames" 2> /dev/null
	diff -r "$T/sum" "$T/c4/summary" > /dev/null && ok || notok "summary.sh alone differs from the report's"
	# The report's sections take their statistics from its one pass
	# (nsysjax-stats with every table); alone, each computes its own.
	sh pipelines/pgle.sh -s "$steady" -o "$T/pg" "$T/c4/frames" > /dev/null 2>&1
	diff -r "$T/pg" "$T/c4/pgle" > /dev/null && ok || notok "pgle.sh -s differs from the report's"
	sh pipelines/communication.sh -s "$steady" -o "$T/com" "$T/c4/frames" > /dev/null 2>&1
	# (but for the table without barriers, the report's alone)
	diff -r -x '*.no-barriers.tsv' "$T/com" "$T/c4/communication" > /dev/null && ok || notok "communication.sh -s differs from the report's"
	# The waits: one row per instance on two devices or more, the
	# ProgramIds of one SPMD step joined.
	"$BIN/nsysjax-collectives" -m "$steady/module.tsv" -s waits "$steady/communication.tsv" 2> /dev/null | cmp -s - "$T/c4/waits.tsv" && ok ||
		notok "waits.tsv is not nsysjax-collectives -m -s waits of the steady state"
	# The headline counts the step of both ProgramIds (process 3's own
	# autotuning): its executions and devices from the steady module
	# rows, its compute from the steady compute thunks, by awk.
	want=$(awk -F'\t' 'FILENAME == ARGV[1] { if (FNR > 1 && $4 == "pjit__wrapped_step_fn") { m[$1]; e++; d[$3] }; next }
	    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    ($1 in m) && $c["Communication"] == 0 { s += $c["ProjDurMs"] } END { printf "%.2f %d %d", s, e / length(d), length(d) }' "$steady/module.tsv" "$steady/thunk.tsv")
	got=$(sed -n 's/^The module that does the work (the most compute time): pjit__wrapped_step_fn ([0-9a-f]*), \([0-9]*\) steps* of [0-9,.]* ms on \([0-9]*\) devices*, \([0-9,.]*\) ms of compute over them (ProgramIds .*04555b1419fd.* are one SPMD step.*/\3 \1 \2/p' "$T/c4/report.txt" | tr -d ,)
	[ -n "$got" ] && [ "$got" = "$want" ] && ok || notok "combined4: the headline's step: got '$got', want '$want' (compute ms, steps, devices)"
else
	skip "combined4 report: $DATA not found"
fi

# The words of the compilation and memory sections.  A profile without
# compilation (the example's compile frame emptied to its header) says
# so, with no table of compile times of 0.
if [ -d "$T/ex/frames" ]; then
	cp -R "$T/ex/frames" "$T/nc"
	head -n 1 "$T/ex/frames/compile.tsv" > "$T/nc/compile.tsv"
	sh $R -q -o "$T/ncr" "$T/nc" > /dev/null 2>&1
	grep -q '^Compilation: not in the profile' "$T/ncr/report.txt" && ! grep -q '^Compilation time per module' "$T/ncr/report.txt" &&
	    grep -q 'Compilation: not in the profile' "$T/ncr/report.html" && ok ||
		notok "no compilation in the profile: $(grep -A4 '^Compilation' "$T/ncr/report.txt")"
	# One module's compilation out of the profile (jit_train_step's
	# ranges removed; --skip 0: a steady state without the compile
	# frame): its row says so; jit_init's is the sum of its outermost
	# ranges (ParentId empty), by hand from the frame.
	mkdir "$T/nc1" && cp "$T/ex/frames/"* "$T/nc1/"
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } $c["ProgramName"] != "jit_train_step"' \
	    "$T/ex/frames/compile.tsv" > "$T/nc1/compile.tsv"
	ms=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["ProgramName"] == "jit_init" && $c["ParentId"] == "" { s += $c["DurMs"] } END { printf "%.1f", s }' \
	    "$T/ex/frames/compile.tsv")
	sh $R -q --skip=0 -o "$T/nc1r" "$T/nc1" > /dev/null 2>&1
	sed -n '/^Compilation time per module/,/^Peak/p' "$T/nc1r/report.txt" > "$T/nc1t"
	grep -q '^  jit_train_step ([0-9a-f]*) *not in the profile  *--$' "$T/nc1t" &&
	    grep -q "^  jit_init ([0-9a-f]*) *$ms  *rank0,rank1$" "$T/nc1t" && ok ||
		notok "a module compiled before the profile: not 'not in the profile', or jit_init not $ms ms: $(cat "$T/nc1t")"
else
	skip "no compilation in the profile: no example report"
fi
if [ -s "$T/c4/report.txt" ]; then
	# Every module the compile phase table names is in the per-module
	# table or named below it with the reason; the shared run's
	# pjit_init_model_from_seed ran only in the warm-up: its executions
	# (rows of the frames' module.tsv, counted here) are all before the
	# steady state.
	awk '/^Compilation: the largest phases/ { p = 1; next } p && /^  -/ { t = 1; next } t && /^$/ { exit }
	    t { n = split($0, x, /  +/); if (x[3] != "--") print x[3] }' "$T/c4/report.txt" | sort -u > "$T/phmods"
	bad=$(while read -r m; do
		grep -q "^  $m ([0-9a-f]*) " "$T/c4/report.txt" || grep -q "^$m (in the phases above) is not in this table, .*: " "$T/c4/report.txt" || echo "$m"
	done < "$T/phmods")
	n=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Name"] == "pjit_init_model_from_seed" { n++ } END { print n + 0 }' "$T/c4/frames/module.tsv")
	grep -qx pjit_init_model_from_seed "$T/phmods" && [ -z "$bad" ] &&
	    grep -q "^pjit_init_model_from_seed (in the phases above) is not in this table, .*only in the warm-up.* ($n execution(s)" "$T/c4/report.txt" &&
	    ok || notok "modules of the compile phases without their reason: $bad $(grep 'in the phases above' "$T/c4/report.txt")"
	# The heap peak says what it counts: XLA's temporaries, without the
	# parameters and outputs (pjit_init_model_from_seed's 140 B: its
	# outputs, the model, are allocations of their own).
	sed -n '/temporaries per module/,/^Critical path/p' "$T/c4/report.txt" > "$T/heapw"
	grep -q "^Peak of XLA's temporaries per module" "$T/heapw" && grep -q '^  pjit_init_model_from_seed ([0-9a-f]*) *140 B' "$T/heapw" &&
	    grep -q "parameters, constants and outputs have buffers of their own and are not in it" "$T/heapw" &&
	    ! grep -q 'Peak heap memory' "$T/c4/report.txt" && ok || notok "the heap table does not say what it counts: $(head -3 "$T/heapw")"
else
	skip "compile phases and heap words: no combined4 report"
fi

# Options after the inputs, as nsysjax-extract takes them (getopt_long's
# order): the same report as with the options first; an option's
# argument is never an input (-X -k), nor an input after -- an option.
if [ -s "$T/ex/report.txt" ]; then
	sh $R "$EX/rank0" -q -o "$T/after" "$EX/rank1" > "$T/after.txt" 2> "$T/after.err" &&
	    cmp -s "$T/after/report.txt" "$T/ex/report.txt" && cmp -s "$T/after.txt" "$T/ex/report.txt" && ok ||
		notok "options after the inputs: $(cat "$T/after.err")"
	sh $R "$T/ex/frames" -qo "$T/after2" -j 1 -X -k > /dev/null 2> "$T/after.err" &&
	    cmp -s "$T/after2/report.txt" "$T/ex2/report.txt" && ok || notok "-qo DIR -X -k after the input: $(cat "$T/after.err")"
	(cd "$T" && sh "$OLDPWD/$R" "$OLDPWD/$EX/rank0" -o > /dev/null 2> "$T/e"; st=$?
	 [ $st -eq 2 ] && grep -q '^pipelines/report.sh: -o: no argument' "$T/e" && [ ! -e "$T/--" ]) && ok ||
		notok "-o last, without its argument: $(cat "$T/e")"
	sh $R -q -o "$T/dd" -- -x > /dev/null 2> "$T/e"; st=$?
	[ $st -eq 1 ] && grep -q -- '-x: cannot open' "$T/e" && ok || notok "-- then -x: not an input: $st $(cat "$T/e")"
else
	skip "options after the inputs: no example report"
fi
# make run: into OUT=; a mistyped INPUTS (INPUT=) named in one line
# before the report of the example; the timeline is report.sh's, not
# drawn again.  First what make would run (-n), then, the example built
# in this build's directory, the run itself.
O_=${BIN%/bin}
make --no-print-directory -s -n -o all -o example O="$O_" run OUT="$T/mr" INPUT=x.zip > "$T/mk" 2>&1
grep -q "report.sh -o $T/mr $O_/example/profile/rank0 $O_/example/profile/rank1\$" "$T/mk" &&
    ! grep -q 'nsysjax-timeline' "$T/mk" && [ "$(grep -c 'INPUT= is not a variable of make run' "$T/mk")" -eq 1 ] && ok ||
	notok "make run OUT= INPUT=: $(cat "$T/mk")"
if [ -d "$O_/example/profile/rank1" ] && [ -x "$BIN/nsysjax-timeline" ]; then
	make --no-print-directory -s -o all -o example O="$O_" run OUT="$T/mr" INPUT=x.zip > "$T/mr.out" 2> "$T/mr.err"
	head -n 1 "$T/mr.out" | grep -q '^make run: no INPUTS: the report of the example profile; INPUT= is not a variable' &&
	    sed -n 2p "$T/mr.out" | grep -q '^nsysjax report of rank0 rank1$' && [ -s "$T/mr/report.txt" ] &&
	    grep -q "^make run: the aligned timeline is $T/mr/timeline.perfetto-trace " "$T/mr.out" &&
	    [ -s "$T/mr/timeline.perfetto-trace" ] && ok || notok "make run OUT= INPUT=: $(head -3 "$T/mr.out") $(cat "$T/mr.err")"
	# A known variable is no typo: no such line.
	make --no-print-directory -s -n -o all -o example O="$O_" run OUT="$T/mr" CC=cc > "$T/mk" 2>&1
	grep -q 'is not a variable' "$T/mk" && notok "make run CC=cc: $(head -1 "$T/mk")" || ok
else
	skip "make run: no example profile in $O_"
fi
# The run's metadata is the frames' meta.tsv, which nsysjax-extract -o
# writes: the inputs are not read again for it (-f meta), and the
# report is the same bytes.  An nsysjax-extract that leaves it out
# without a reason (a stand-in removing it after -o: one of before) has
# it read from the inputs.  The tools by NSYSJAX_BIN, nsysjax-extract
# a wrapper logging its calls.
if [ -s "$T/ex/report.txt" ]; then
	mkdir "$T/wbin"
	for t in "$BIN"/nsysjax-*; do ln -s "$(cd "${t%/*}" && pwd)/${t##*/}" "$T/wbin/${t##*/}"; done
	rm "$T/wbin/nsysjax-extract"
	{
		echo '#!/bin/sh'
		echo "echo \"\$*\" >> '$T/xlog'"
		echo "'$(cd "$BIN" && pwd)/nsysjax-extract' \"\$@\"; st=\$?"
		echo "if [ -n \"\${DROP_META:-}\" ] && [ \"\$2\" = -o ]; then rm -f \"\$3/meta.tsv\"; fi"
		echo 'exit $st'
	} > "$T/wbin/nsysjax-extract"
	chmod +x "$T/wbin/nsysjax-extract"
	NSYSJAX_BIN=$T/wbin sh $R -q -o "$T/mt" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/mt.err"
	! grep -q -- '-f meta' "$T/xlog" && grep -q -- '-o ' "$T/xlog" && diff -r "$T/ex" "$T/mt" > /dev/null && ok ||
		notok "metadata: the inputs read again, or another report: $(cat "$T/xlog")"
	: > "$T/xlog"
	DROP_META=1 NSYSJAX_BIN=$T/wbin sh $R -q -o "$T/mt2" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/mt.err"
	[ "$(grep -c -- '-f meta' "$T/xlog")" -eq 1 ] && diff -r "$T/ex" "$T/mt2" > /dev/null && ok ||
		notok "metadata without the frames' meta.tsv: $(cat "$T/xlog") $(diff -r "$T/ex" "$T/mt2" | head -5)"
else
	skip "the run's metadata: no example report"
fi
# Command buffers in two forms: the example with jit_train_step's
# command_buffer_9 run as plain thunks in execution 0 and as a CUDA
# graph in 1-5 (mkexport archive -g, as t16).  With --skip 0 execution 0
# is left out by its form: the report says so once (the thunk frame's
# split), not once per frame; the forms are read once, into the small
# frame of nsysjax-warmup --forms-only: a row for jit_init's plain last
# execution and one per graph execution (1-5), which splits every frame
# as the whole thunk frame does, note included.
MKX=${BIN%/bin}/sqlite/mkexport MKE=${BIN%/bin}/example/mkexample
if [ -x "$MKX" ] && [ -x "$MKE" ]; then
	"$MKE" "$T/cbx" > /dev/null 2>&1
	for r in rank0 rank1; do
		mkdir -p "$T/cbg/$r" && cp -R "$T/cbx/$r/dump" "$T/cbg/$r/" &&
		    "$MKX" archive -g jit_train_step:command_buffer_9:loop_add_fusion:gemm_fusion_dot.1 "$T/cbx/$r" "$T/cbg/$r/$r.sqlite" ||
			notok "mkexport -g $r"
	done
	"$BIN/nsysjax-extract" -o "$T/cbf" "$T/cbg/rank0" "$T/cbg/rank1" 2> /dev/null
	sh $R --skip 0 -q -o "$T/cbfr" "$T/cbf" > /dev/null 2> "$T/cbfr.err"
	[ "$(grep -c '^nsysjax-warmup: 1 execution left out of the steady state: its command buffers ran in another form' "$T/cbfr.err")" -eq 1 ] &&
	    ok || notok "the forms' note: not once: $(grep -c 'another form' "$T/cbfr.err") times"
	"$BIN/nsysjax-warmup" --forms-from "$T/cbf/thunk.tsv" --forms-only > "$T/forms.tsv"
	id=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Name"] == "jit_train_step" { print $c["ProgramId"]; exit }' "$T/cbf/module.tsv")
	ini=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Name"] == "jit_init" { print $c["ProgramId"]; exit }' "$T/cbf/module.tsv")
	printf 'ProgramId\tProgramExecution\tName\tCommandBuffer\n%s\t0\t-\t\n' "$ini" > "$T/forms.want"
	for e in 1 2 3 4 5; do printf '%s\t%s\t-\t-\n' "$id" "$e"; done >> "$T/forms.want"
	cmp -s "$T/forms.tsv" "$T/forms.want" && ok || notok "--forms-only: $(cat "$T/forms.tsv")"
	bad=''
	for f in thunk module communication; do
		"$BIN/nsysjax-warmup" -s 0 --forms-from "$T/forms.tsv" "$T/cbf/$f.tsv" > "$T/fa" 2> "$T/fae"
		"$BIN/nsysjax-warmup" -s 0 --forms-from "$T/cbf/thunk.tsv" "$T/cbf/$f.tsv" > "$T/fb" 2> "$T/fbe"
		cmp -s "$T/fa" "$T/fb" && cmp -s "$T/fae" "$T/fbe" && [ -s "$T/fae" ] || bad="$bad $f"
		"$BIN/nsysjax-warmup" -q -s 0 --forms-from "$T/forms.tsv" "$T/cbf/$f.tsv" 2> "$T/fqe" | cmp -s - "$T/fa" && [ ! -s "$T/fqe" ] || bad="$bad $f(-q)"
	done
	[ -z "$bad" ] && ok || notok "the forms of --forms-only split otherwise:$bad"
else
	skip "command buffers' forms: $MKX or $MKE not built"
fi
sh $R > /dev/null 2> "$T/e"; [ $? -eq 2 ] && grep -q usage "$T/e" && ok || notok "no arguments: not a usage error"
sh $R -o "$T/x" > /dev/null 2>&1; [ $? -eq 2 ] && ok || notok "no input: not a usage error"
for j in 0 x -1; do
	sh $R -j "$j" -o "$T/x" "$T" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && grep -q usage "$T/e" && ok || notok "-j $j: not a usage error"
done
sh $R -o "$T/y" "$T/nosuch.zip" > /dev/null 2> "$T/e"; [ $? -eq 1 ] && grep -q "nosuch.zip" "$T/e" && ok ||
	notok "bad input: $(cat "$T/e")"
# A module execution the module frame lacks (frames cut by hand): the
# report is made, the stragglers of that module count the others only
# (the plots' awk divided by zero there: NaN under mawk, a fatal error
# under gawk).
if [ -d "$T/ex/frames" ] && command -v gnuplot > /dev/null; then
	mkdir "$T/cut" && cp "$T/ex/frames/"* "$T/cut/" &&
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
	    !($c["Name"] == "jit_train_step" && $c["ProgramExecution"] == 3)' "$T/ex/frames/module.tsv" > "$T/cut/module.tsv"
	sh $R -q -o "$T/cutr" "$T/cut" > /dev/null 2> "$T/cut.err" && ok || notok "report without a module execution: $(cat "$T/cut.err")"
	grep -qi nan "$T/cutr/plots/"*.tsv 2> /dev/null && notok "NaN in the plots' data" || ok
	n=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["Executions"] }' "$T/ex/plots/stragglers-"*.tsv | sort -u)
	m=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["Executions"] }' "$T/cutr/plots/stragglers-"*.tsv | sort -u)
	[ -n "$n" ] && [ "$m" = $((n - 1)) ] && ok || notok "stragglers without an execution: Executions $m, want $((n - 1))"
else
	skip "a module execution missing: no example report or no gnuplot"
fi
# Sixteen devices: every device drawn (a plot kept its first nine
# series once), the key naming at most 16 series.
if [ -x build/example/mkexample ] && command -v gnuplot > /dev/null; then
	build/example/mkexample -n 16 -s 6 "$T/e16" > /dev/null &&
	sh $R -q -o "$T/r16" "$T/e16"/rank* > /dev/null 2> "$T/r16.err" && ok || notok "report of 16 devices: $(cat "$T/r16.err")"
	groups() { grep -o 'id="gnuplot_plot_[0-9]*"' "$1" | sort -u | wc -l; }
	[ "$(groups "$T/r16/plots/skews-distribution.svg")" -eq 16 ] && ok || notok "skews-distribution: $(groups "$T/r16/plots/skews-distribution.svg") series of 16"
	s=$(ls "$T/r16/plots/stragglers-"*.svg | head -n 1)
	[ -n "$s" ] && [ "$(groups "$s")" -eq 17 ] && [ "$(grep -c '>device [0-9]*<' "$s")" -eq 15 ] && ok ||
		notok "stragglers of 16 devices: $(groups "$s") series (want the collectives and 16 devices), $(grep -c '>device [0-9]*<' "$s") named (want 15)"
else
	skip "16 devices: no mkexample or no gnuplot"
fi
# The output path is data: '|', a newline, '\' escapes and '&' in -o
# (sed's s||| and awk's -v read them as program text once) make a whole
# report there, and a failing input's message is the tool's.
if have_data; then set -- "$DATA"/pax_fsdp4_4proc_proc[0-3].zip; else set -- "$EX/rank0" "$EX/rank1"; fi
if [ -e "$1" ]; then
	odd=$(printf '%s/p|q\nr\\ts&t\\1' "$T")
	mkdir -p "$odd"
	sh $R -q -o "$odd/out" "$@" > "$T/odd.txt" 2> "$T/odd.err"; st=$?
	[ "$st" -eq 0 ] && [ -s "$odd/out/report.txt" ] && [ -s "$odd/out/critpath/modules.tsv" ] &&
	    [ -s "$odd/out/report.html" ] && cmp -s "$T/odd.txt" "$odd/out/report.txt" && ok ||
		notok "report into '$odd/out': status $st, $(head -3 "$T/odd.err")"
	# Nothing written beside it: no directory whose name is -o's with
	# the escapes read (a tab for \t).
	[ "$(ls -A "$T" | grep -c "$(printf 'r\ts')")" -eq 0 ] && ok || notok "a directory named with -o's escapes read"
	sh $R -q -o "$odd/out2" "$T/missing.zip" > /dev/null 2> "$T/odd.err"; st=$?
	[ "$st" -eq 1 ] && grep -q "missing.zip: cannot open" "$T/odd.err" && ! grep -q '^sed:\|^awk:' "$T/odd.err" && ok ||
		notok "missing input into '$odd/out2': status $st, $(cat "$T/odd.err")"
	# The messages name the report's directory as the user gave it:
	# a planted note in the new report's path comes back with -o's.
	printf 'x: %s/.out.new.1/critpath/a.tsv: note\ny: /tmp/nsysjax-pipeline.Ab12/steady/thunk.tsv: note\n' "$odd" |
	    NEW="$odd/.out.new.1" FINAL="$odd/out" awk -f pipelines/lib/messages.awk > "$T/msg"
	printf 'x: %s/out/critpath/a.tsv: note\ny: intermediate file steady/thunk.tsv: note\n' "$odd" | cmp -s - "$T/msg" && ok ||
		notok "messages rewritten: $(cat "$T/msg")"
	rm -rf "$odd"
	# Another program makes -o while the report runs (an mv on PATH that
	# creates it, holding a report.txt, just before the report's own
	# rename): the report fails saying so, and leaves nothing inside it
	# (plain mv moved the new report into it: race/.race.new.PID, status 0).
	mkdir "$T/mvbin"
	real_mv=$(command -v mv)
	{
		echo '#!/bin/sh'
		echo 'for last; do :; done'
		echo "if [ \"\$last\" = '$T/race' ] && [ ! -e \"\$last\" ]; then mkdir \"\$last\" && echo other > \"\$last/report.txt\"; fi"
		echo "exec '$real_mv' \"\$@\""
	} > "$T/mvbin/mv"
	chmod +x "$T/mvbin/mv"
	PATH=$T/mvbin:$PATH sh $R -q -o "$T/race" "$@" > /dev/null 2> "$T/race.err"; st=$?
	[ "$st" -eq 1 ] && grep -q "race: written by another program while this report ran" "$T/race.err" &&
	    [ "$(ls -A "$T/race")" = report.txt ] && [ "$(cat "$T/race/report.txt")" = other ] &&
	    [ -z "$(ls -A "$T" | grep '^\.race\.')" ] && ok ||
		notok "-o made meanwhile: status $st, $(ls -A "$T/race" | tr '\n' ' ') $(cat "$T/race.err")"
	# Two reports into one new -o at once: each ends whole (the second
	# replaces the first's), none inside the other.
	sh $R -q -o "$T/two" "$@" > /dev/null 2> "$T/two1.err" & p1=$!
	sh $R -q -o "$T/two" "$@" > /dev/null 2> "$T/two2.err"; st2=$?
	wait "$p1"; st1=$?
	[ "$st1" -eq 0 ] && [ "$st2" -eq 0 ] && [ -s "$T/two/report.txt" ] && [ -z "$(ls -A "$T/two" | grep '^\.')" ] &&
	    [ -z "$(ls -A "$T" | grep '^\.two\.')" ] && ok || notok "two reports at once: $st1 $st2 $(ls -A "$T/two" | tr '\n' ' ')"
else
	skip "odd -o paths: no input"
fi
# Names are never cut short in the text: a thunk renamed in a copy of
# the shared run's frames to a name of 53 characters (past the 34 the
# roofline's table once cut it to) is whole in its summary; a command
# buffer's row (no HLO instruction, an empty Opcode) is named.
if [ -d "$T/c4/frames" ]; then
	cp -R "$T/c4/frames" "$T/lf"
	long=custom-call.219.0.double_buffer_clone_and_a_long_tail
	for f in thunk hlo; do
		sed "s/	custom-call\.219\.0	/	$long	/" "$T/c4/frames/$f.tsv" > "$T/lf/$f.tsv"
	done
	sh pipelines/roofline.sh -o "$T/lfr" "$T/lf" > /dev/null 2>&1
	grep -q "^$long " "$T/lfr/summary.txt" && ok || notok "roofline summary: $long cut: $(grep custom-call.219 "$T/lfr/summary.txt")"
	# The critical path's modules: name and the ProgramId's first 12
	# characters, whole (the ProgramId was cut to 5).
	awk -F'\t' 'NR > 1 && NR <= 11 { print "  " $2 " (" substr($1, 1, 12) ") " }' "$T/c4/critpath/modules.tsv" > "$T/cpl"
	while IFS= read -r l; do grep -qF -- "$l" "$T/c4/report.txt" || echo "$l"; done < "$T/cpl" > "$T/cpmiss"
	[ -s "$T/cpl" ] && [ ! -s "$T/cpmiss" ] && ok || notok "critical path labels cut: $(cat "$T/cpmiss")"
	# The what-if table holds the modules with 1% of the critical time
	# or more (TotalMs); the others, trivial, are named in one line.
	awk -F'\t' 'NR == FNR { if (FNR > 1) { t[$1] = $13; s += $13 }; next }
	    END { for (k in t) print (t[k] >= 0.01 * s ? "big" : "small"), substr(k, 1, 12) }' "$T/c4/critpath/modules.tsv" /dev/null > "$T/sizes"
	sed -n '/What-if scenarios per module/,/<\/table>/p' "$T/c4/critpath/critpath-section.html" > "$T/wi"
	bad=$(while read -r kind id; do
		n=$(grep -c "<td>$id</td>" "$T/wi")
		if [ "$kind" = big ] && [ "$n" -eq 0 ]; then echo "$id missing"; fi
		if [ "$kind" = small ] && { [ "$n" -gt 0 ] || ! grep -q "($id)[^<]*under 1%" "$T/c4/critpath/critpath-section.html"; }; then echo "$id not in one line"; fi
	done < "$T/sizes")
	grep -q small "$T/sizes" && [ -z "$bad" ] && ok || notok "what-if table: $bad"
fi
if [ -d "$T/ex/frames" ]; then
	# A thunk of the example renamed command_buffer_9 (no hlo row: XLA
	# names the buffers it makes, they are no instruction).
	cp -R "$T/ex/frames" "$T/cb"
	# (The longest thunk's name: a thunk of the top module.)
	awk -F'\t' -v OFS='\t' 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (NR > 1) print; next }
	    NR == FNR { if ($c["ProjDurMs"] + 0 > m) { m = $c["ProjDurMs"] + 0; n = $c["Name"] }; next }
	    $c["Name"] == n { $c["Name"] = "command_buffer_9" } { print }' "$T/ex/frames/thunk.tsv" "$T/ex/frames/thunk.tsv" > "$T/cb/thunk.tsv"
	sh $R -q -o "$T/cbr" "$T/cb" > /dev/null 2>&1
	awk -F'\t' 'NR > 1 && $1 == "" { f = 1 } END { exit !f }' "$T/cbr/flamegraphs/opcodes.tsv" &&
	    sed -n '/^GPU time by HLO operation/,/^The thunks/p' "$T/cbr/report.txt" | grep -q '^  (no HLO instruction: command buffers' && ok ||
		notok "the opcode row without an HLO instruction is not named: $(sed -n '/^GPU time by HLO operation/,/^The thunks/p' "$T/cbr/report.txt" | head -12)"
	# A module without an HLO dump: nsysjax-extract names it
	# missing-hlo-N, which the report shows whole (its first 12
	# characters are every such module's).  Planted: jit_init's
	# ProgramId made missing-hlo-7 in every frame of a copy.
	id=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Name"] == "jit_init" { print $c["ProgramId"]; exit }' "$T/ex/frames/module.tsv")
	mkdir "$T/mh"
	for f in "$T/ex/frames/"*; do sed "s/$id/missing-hlo-7/g" "$f" > "$T/mh/${f##*/}"; done
	sh $R -q --skip=0 -o "$T/mhr" "$T/mh" > /dev/null 2>&1
	[ -n "$id" ] && grep -q 'jit_init (missing-hlo-7)' "$T/mhr/report.txt" && ok || notok "missing-hlo-7 not whole in report.txt: $(grep -o 'jit_init ([^)]*)' "$T/mhr/report.txt" | sort -u)"
fi
# A planted straggler (mkexample -S): process 1 runs one compute thunk of
# every step longer (straggler-truth.tsv), its peer then waits for it.
# The straggler table ranks device 1 first, late by the planted amount
# per step within 10% (+, "late"), the wait it causes its peer at least
# 90% of it, device 0 early by as much and causing no such wait.
if [ -x build/example/mkexample ]; then
	build/example/mkexample -S "$T/slow" > /dev/null &&
	    sh $R -q -o "$T/slowr" "$T/slow/rank0" "$T/slow/rank1" > /dev/null 2> "$T/e" || notok "report of the straggler: $(cat "$T/e")"
	P=$(awk -F'\t' '$1 == "slow_ms_per_step" { print $2 }' "$T/slow/straggler-truth.tsv")
	D=$(awk -F'\t' '$1 == "slow_device" { print $2 }' "$T/slow/straggler-truth.tsv")
	awk -F'\t' -v p="$P" -v d="$D" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    NR == 2 { first = $c["Device"] == d && $c["LateMs"] > 0.9 * p && $c["LateMs"] < 1.1 * p && $c["WaitCausedMs"] > 0.9 * p; next }
	    NR == 3 { other = $c["LateMs"] < -0.9 * p && $c["WaitCausedMs"] < 0.1 * p }
	    END { exit !(p > 0 && first && other && NR == 3) }' "$T/slowr/variability/late.tsv" && ok ||
		notok "planted straggler ($P ms on device $D): $(cat "$T/slowr/variability/late.tsv")"
	# The report's table: device 1 first, its late time with its sign.
	awk -v d="$D" -v p="$P" '/^Which device makes the others wait/ { on = 1; next } on && /^  jit_train_step/ { n++
	        if (n == 1) ok = $(NF - 5) == d && $(NF - 4) ~ /^[+]/ && $(NF - 4) + 0 > 0.9 * p && $(NF - 4) + 0 < 1.1 * p }
	    on && /^$/ && n { on = 0 } END { exit !(ok && n == 2) }' "$T/slowr/report.txt" && ok ||
		notok "report straggler table: $(grep -A5 '^Which device makes the others wait' "$T/slowr/report.txt")"
fi
done_testing t78-report
