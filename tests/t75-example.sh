#!/bin/sh
# The example profile of `make run` (tests/example/mkexample.c): the
# generator writes the same bytes every time, and every tool finds in its
# output the facts it planted (its truth.tsv): frame sizes, programs,
# message sizes, bus bandwidths, hidden time, the clock offset between
# the two processes, the warm-up split, the Python frames of the flame
# graph, the compile times and the parallel compilation region, the
# thunks whose duration varies, the heap simulator trace's peak, and that
# the report of `make run` has all seven plots and no empty section.
set -u
. tests/lib.sh
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
X=$BIN/nsysjax-extract
P=$T/profile
F=$T/frames

# ms or s as written (plain decimals) to integer ns, without floats.
AWK_NS='function ns(s, digits,   neg, i, f) {
	neg = s ~ /^-/; sub(/^-/, "", s)
	i = s; f = ""
	if (index(s, ".")) { i = substr(s, 1, index(s, ".") - 1); f = substr(s, index(s, ".") + 1) }
	f = substr(f "000000000", 1, digits)
	return (neg ? -1 : 1) * (i * 10 ^ digits + f)
}'

truth() { awk -F'\t' -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$P/truth.tsv"; }

# rows FILE: data lines of a TSV file.
rows() { echo $(($(wc -l < "$1") - 1)); }

# is TITLE GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok; else notok "$1: got '$2', want '$3'"; fi
}

if [ ! -x "$MKEXAMPLE" ]; then
	notok "$MKEXAMPLE not built (make $MKEXAMPLE)"
	done_testing t75-example
	exit
fi

# ---- the generator ----
check "mkexample writes the profile" "$MKEXAMPLE" "$P"
for r in rank0 rank1; do
	for m in nvtx_gpu_proj_trace/trace.parquet thread-metadata.parquet \
	    report_nvtx_pushpop_trace.csv \
	    dump/module_0003.jit_init.sm_9.0_gpu_after_optimizations.hlo.pb \
	    dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb; do
		if [ -s "$P/$r/$m" ]; then ok; else notok "no $r/$m"; fi
	done
done
check "mkexample is deterministic" sh -c '"$1" "$2" && diff -r "$3" "$2"' sh \
	"$MKEXAMPLE" "$T/again" "$P"
"$MKEXAMPLE" >/dev/null 2>&1
is "mkexample without a directory" $? 2

# ---- nsysjax-extract ----
mkdir -p "$F"
check "extract -o" "$X" -o "$F" "$P/rank0" "$P/rank1"
for f in thunk module communication compile hlo stackframes; do
	if [ -f "$F/$f.tsv" ] && [ "$(rows "$F/$f.tsv")" -gt 0 ]; then ok; else notok "frame $f empty"; fi
done
NI=$(truth thunks.jit_init) NS=$(truth thunks.jit_train_step)
EI=$(truth executions.jit_init) ES=$(truth executions.jit_train_step)
FPI=$(truth fingerprint.jit_init) FPS=$(truth fingerprint.jit_train_step)
is "thunk rows" "$(rows "$F/thunk.tsv")" $((2 * (NI * EI + NS * ES)))
is "module rows" "$(rows "$F/module.tsv")" $((2 * (EI + ES)))
is "communication rows" "$(rows "$F/communication.tsv")" $((2 * ES * 3))
is "hlo rows" "$(rows "$F/hlo.tsv")" $((NI + NS))
is "programs and executions per device" \
	"$(awk -F'\t' 'NR > 1 { n[$1 " " $4 " " $3 " " $9 " " $10]++ }
	    END { for (k in n) print k, n[k] }' "$F/module.tsv" | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$FPI jit_init 0 0 0 $EI" "$FPI jit_init 1 0 1 $EI" \
	    "$FPS jit_train_step 0 0 0 $ES" "$FPS jit_train_step 1 0 1 $ES" | sort | tr '\n' ' ')"
is "NumThunks" "$(awk -F'\t' 'NR > 1 { print $4, $12 }' "$F/module.tsv" | sort -u | tr '\n' ' ')" \
	"jit_init $NI jit_train_step $NS "
is "autotuner executions (-k)" \
	"$("$X" -k -f module "$P/rank0" "$P/rank1" | awk -F'\t' '$1 == "unknown" { print $3, $4 }' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
	" $(truth executions.autotuner) 0 gemm_fusion_dot  $(truth executions.autotuner) 1 gemm_fusion_dot "
is "XlaCompile ranges" \
	"$(awk -F'\t' '$3 ~ /^XlaCompile:/ { print $1, $12, $13 }' "$F/compile.tsv" | tr '\n' ' ')" \
	"rank0 $FPI jit_init rank0 $FPS jit_train_step rank1 $FPI jit_init rank1 $FPS jit_train_step "

# ---- communication facts from the HLO dumps ----
for c in all-gather all-reduce reduce-scatter; do
	is "$c: rows, MessageSize, CollectiveSize" \
		"$(awk -F'\t' -v c="$c" '$15 == c { print $14, $16 }' "$F/communication.tsv" | sort | uniq -c | tr -s ' ')" \
		" $((2 * ES)) $(truth "message_size.$c") 2"
done

# ---- nsysjax-collectives: bandwidth and hidden time ----
W=$BIN/nsysjax-warmup
"$W" -c "$F/compile.tsv" "$F/thunk.tsv" > "$T/steady_thunk.tsv"
"$W" -c "$F/compile.tsv" --communication-from "$F/thunk.tsv" "$F/module.tsv" > "$T/steady_module.tsv"
"$W" -i -c "$F/compile.tsv" --communication-from "$F/thunk.tsv" "$F/module.tsv" > "$T/init_module.tsv"
# bw TABLE KIND INSTANCES: each collective's bus bandwidth is the planted
# one (relative 1e-9) over INSTANCES instances.
bw() {
	awk -F'\t' -v kind="$2" -v inst="$3" '
	FILENAME == ARGV[1] { split($1, k, "."); if (k[1] == "busbw_" kind) want[substr($1, length(k[1]) + 2)] = $2; next }
	FNR == 1 { next }
	{ n++; d = $4 - want[$1]; if (d < 0) d = -d
	  if (!($1 in want) || d > 1e-9 * want[$1] || $3 != inst) { print "bad row: " $0 " want " want[$1]; bad++ } }
	END { if (n != 3) { print n " rows"; bad++ }; exit bad > 0 }' "$P/truth.tsv" "$1"
}
C=$BIN/nsysjax-collectives
check "steady bus bandwidth" sh -c '"$1" -s bandwidth "$2" > "$3"' sh "$C" "$T/steady_thunk.tsv" "$T/bw_steady"
check "steady bandwidths are the planted ones" bw "$T/bw_steady" steady $((ES - $(truth init_executions.jit_train_step)))
check "bus bandwidth" sh -c '"$1" -s bandwidth "$2" > "$3"' sh "$C" "$F/thunk.tsv" "$T/bw_all"
check "bandwidths with warm-up are the planted ones" bw "$T/bw_all" all "$ES"
check "warm-up lowers every bandwidth" awk -F'\t' 'FNR == 1 { next }
	FILENAME == ARGV[1] { s[$1] = $4; next } { if (!($4 < s[$1])) exit 1; n++ } END { exit n != 3 }' \
	"$T/bw_steady" "$T/bw_all"
"$C" -s hidden "$F/thunk.tsv" > "$T/hidden"
for c in all-gather all-reduce reduce-scatter; do
	is "$c: hidden and total time" \
		"$(awk -F'\t' -v c="$c" '$1 == c { print $3, $4 }' "$T/hidden")" \
		"$(truth "hidden_ms.$c") $(truth "total_ms.$c")"
done
check "communication partly hidden" awk -F'\t' '
	$1 == "all-gather" || $1 == "all-reduce" { if (!($3 > 0 && $3 < $4)) exit 1; n++ }
	END { exit n != 2 }' "$T/hidden"
check "collectives add bandwidth columns" sh -c '"$1" -d "$2" | awk -F"\t" "
	NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
	{ n++; if (!(\$c[\"BusBandwidthGBPerSec\"] > 0)) exit 1 } END { exit n != 36 }"' sh "$C" "$F/thunk.tsv"

# ---- nsysjax-align: the planted clock offset, exactly ----
A=$BIN/nsysjax-align
check "align" sh -c '"$1" -o "$2" "$3" > "$4"' sh "$A" "$T/corr" "$F/thunk.tsv" "$T/aligned_thunk.tsv"
is "corrections" "$(awk -F'\t' 'NR > 1 { print $1, $2, $3, $4 }' "$T/corr" | tr '\n' ' ')" \
	"0 $(truth correction_ms.0) $(truth correction_instances) $(truth spread_ms) 1 $(truth correction_ms.1) $(truth correction_instances) $(truth spread_ms) "
is "device 1 minus device 0 is the clock offset" \
	"$(awk -F'\t' "$AWK_NS"' NR > 1 { c[$1] = ns($2, 6) } END { printf "%.0f\n", c[1] - c[0] }' "$T/corr")" \
	"$(truth clock_offset_ns)"
"$A" -a "$T/corr" "$F/module.tsv" > "$T/aligned_module.tsv"
check "aligned steps start together (after the first)" awk -F'\t' "$AWK_NS"'
	FNR == 1 { next }
	$4 == "jit_train_step" && $2 > 0 { t[$2, $3] = ns($8, 6); e[$2] = 1 }
	END { for (x in e) { d = t[x, 1] - t[x, 0]; if (d < 0) d = -d; if (d > 500000) exit 1; n++ }
	      exit n != '"$((ES - 1))"' }' "$T/aligned_module.tsv"
check "unaligned steps are the offset apart" awk -F'\t' "$AWK_NS"'
	FNR == 1 { next }
	$4 == "jit_train_step" && $2 > 0 { t[$2, $3] = ns($8, 6); e[$2] = 1 }
	END { for (x in e) { d = t[x, 1] - t[x, 0] - '"$(truth clock_offset_ns)"'; if (d < 0) d = -d; if (d > 500000) exit 1 } }' \
	"$F/module.tsv"

# ---- nsysjax-warmup: compiled and communicating, so two executions go ----
is "steady modules" "$(awk -F'\t' 'NR > 1 { print $1, $2, $3 }' "$T/steady_module.tsv" | tr '\n' ' ')" \
	"$(for e in 2 3 4 5; do for d in 0 1; do printf '%s %s %s ' "$FPS" $e $d; done; done)"
is "init modules" "$(awk -F'\t' 'NR > 1 { print $4, $2, $3 }' "$T/init_module.tsv" | tr '\n' ' ')" \
	"jit_init 0 0 jit_init 0 1 jit_train_step 0 0 jit_train_step 0 1 jit_train_step 1 0 jit_train_step 1 1 "
is "steady thunks" "$(rows "$T/steady_thunk.tsv")" $((2 * (ES - 2) * NS))

# ---- nsysjax-fold: the Python frames planted ----
FO=$BIN/nsysjax-fold
check "fold by source" sh -c '"$1" -u ns -H "$2/hlo.tsv" -S "$2/stackframes.tsv" -M "$3" "$4" > "$5"' sh \
	"$FO" "$F" "$T/steady_module.tsv" "$T/steady_thunk.tsv" "$T/source"
# folded STACK: its count, or "none"
folded() { awk -v s="$1" '{ c = $NF; sub(/ [0-9]+$/, "") } $0 == s { print c; f = 1 } END { if (!f) print "none" }' "$2"; }
G='[GPU active];train.py:118[<module>];train.py:97[main]'
L="$G;train.py:45[train_step];model.py:31[loss_fn]"
is "source: backward matmuls" \
	"$(folded "$L;model.py:17:12[__call__];jit(train_step)/jit(main)/transpose(jvp(loss_fn))/dense/dot_general" "$T/source")" \
	$(($(truth steady_ns.gemm_fusion_dot.1) + $(truth steady_ns.gemm_fusion_dot.2)))
is "source: a fusion of two lines, first half" \
	"$(folded "$L;model.py:18[__call__];jit(train_step)/jit(main)/jvp(loss_fn)/dense/add" "$T/source")" \
	$(($(truth steady_ns.loop_add_fusion) / 2))
is "source: a fusion of two lines, second half" \
	"$(folded "$L;model.py:19[__call__];model.py:9[gelu];jit(train_step)/jit(main)/jvp(loss_fn)/gelu/tanh" "$T/source")" \
	$(($(truth steady_ns.loop_add_fusion) / 2))
is "source: train.py:42[train_step]" \
	"$(folded "$G;train.py:42[train_step];jit(train_step)/jit(main)/convert_element_type[new_dtype=bfloat16 weak_type=False]" "$T/source")" \
	"$(truth steady_ns.wrapped_convert)"
is "source: optimizer frames" \
	"$(folded "$G;train.py:50[train_step];optim.py:23[adam_update];jit(train_step)/jit(main)/adam_update/mul" "$T/source")" \
	"$(truth steady_ns.loop_multiply_fusion.1)"
is "source: no metadata" "$(folded '[GPU active];[Unknown]' "$T/source")" "$(truth steady_ns.wrapped_copy)"
check "source: idle roots" grep -q '^\[GPU idle between module executions\] [1-9]' "$T/source"
check "fold by op_name" sh -c '"$1" -b op_name -u ns -H "$2/hlo.tsv" -M "$3" "$4" > "$5"' sh \
	"$FO" "$F" "$T/steady_module.tsv" "$T/steady_thunk.tsv" "$T/op_name"
is "op_name: backward matmuls" \
	"$(folded '[GPU active];jit(train_step);jit(main);transpose(jvp(loss_fn));dense;dot_general' "$T/op_name")" \
	$(($(truth steady_ns.gemm_fusion_dot.1) + $(truth steady_ns.gemm_fusion_dot.2)))
is "opcodes" "$("$FO" -b opcode -H "$F/hlo.tsv" "$T/steady_thunk.tsv" | awk -F'\t' 'NR > 1 { print $1 }' | sort | tr '\n' ' ')" \
	"all-gather-start all-reduce-start fusion reduce-scatter "

# ---- nsysjax-compilestats: compile times and the parallel region ----
CS=$BIN/nsysjax-compilestats
"$CS" -t compilations "$F/compile.tsv" > "$T/compilations"
for r in rank0 rank1; do
	for g in jit_init jit_train_step; do
		is "$r $g: compile time" \
			"$(awk -F'\t' -v r="$r" -v g="$g" "$AWK_NS"' $1 == r && $4 == g { print ns($6, 9) }' "$T/compilations" | sort -u)" \
			"$(echo "$(truth "compile_ms.$r.$g")" | awk "$AWK_NS"'{ print ns($1, 6) }')"
	done
done
check "each compilation is shared out whole" awk -F'\t' 'NR > 1 { s[$1 " " $2] += $9 }
	END { for (k in s) { if (s[k] < 1 - 1e-9 || s[k] > 1 + 1e-9) exit 1; n++ } exit n != 4 }' "$T/compilations"
is "worker ranges grafted under XlaCompileGpuAsm" \
	"$(awk -F'\t' '$3 ~ /^XlaCompileGpuAsm/ && $5 > 0 { gpu[$1] = $2 }
	    $3 ~ /split_module/ { n[$1 " " $3 " " ($6 == gpu[$1])]++; tid[$1 " " $4] = 1 }
	    END { for (k in n) print k, n[k]; for (k in tid) t++; print "threads", t }' "$F/compile.tsv" | sort | tr '\n' ' ')" \
	"$(W=$(truth compile_workers); for r in rank0 rank1; do
	    printf '%s XlaEmitGpuAsm:#module=split_module# 1 %s ' $r "$W"
	    printf '%s XlaOptimizeLlvmIr:#module=split_module# 1 %s ' $r "$W"; done
	    printf 'threads %s ' $((2 * W)))"
check "compilestats -p on the CSV report" sh -c '
	"$1" -p -n rank0 "$2/rank0/report_nvtx_pushpop_trace.csv" > "$4/pa" &&
	awk -F"\t" "NR == 1 || \$1 == \"rank0\"" "$3/compile.tsv" | "$1" > "$4/pb" &&
	cmp "$4/pa" "$4/pb"' sh "$CS" "$P" "$F" "$T"

# ---- nsysjax-roofline: the GPU in the dump and each gemm's FLOPs ----
RL=$BIN/nsysjax-roofline
for g in gemm_fusion_dot gemm_fusion_dot.1 gemm_fusion_dot.2; do
	is "hlo Flops of $g (2 x result x contraction)" \
	    "$(awk -F'\t' -v g=$g 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	        $c["Name"] == g { print $c["Flops"] }' "$F/hlo.tsv" | sort -u)" "$(truth flops.$g)"
done
check "roofline -d: the GPU of the dump's gpu_target_config" sh -c \
	'"$1" -d "$2/rank0" -H "$3/hlo.tsv" "$4" > "$5"' sh "$RL" "$P" "$F" "$T/steady_thunk.tsv" "$T/rops"
# Each gemm's rate: FLOPs x steady executions over its steady time
# (truth), and its bandwidth fraction against the planted bandwidth.
for g in gemm_fusion_dot gemm_fusion_dot.1 gemm_fusion_dot.2; do
	check "roofline: $g rate and bandwidth fraction" awk -F'\t' -v g=$g \
	    -v fl="$(truth flops.$g)" -v ns="$(truth steady_ns.$g)" -v bw="$(truth gpu.bandwidth_Bps)" \
	    -v n=$((2 * (ES - 2))) '
	    function near(a, b) { return a - b < 1e-9 * b && b - a < 1e-9 * b }
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["Name"] == g { seen = 1
		if ($c["Executions"] != n || !near($c["TFLOPs"], fl * n / ns / 1e3) ||
		    !near($c["MemoryUtil"] * bw / 1e9, $c["GBps"])) { print; exit 1 } }
	    END { exit !seen }' "$T/rops"
done
# The bf16 gemms against H100 SXM's dense BF16 peak (NVIDIA's data sheet:
# 989.4 TFLOP/s), so that the example's report shows MFU.
is "roofline: H100 SXM BF16 peak" "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["Name"] == "gemm_fusion_dot.1" { print $c["PeakTFLOPs"] }' "$T/rops")" 989.4
check "roofline --save-device: the planted GPU" sh -c '"$1" -d "$2/rank0" --save-device "$3" -H "$4/hlo.tsv" "$5" > /dev/null &&
	grep -q "core_count: $6\$" "$3" && grep -qF "$7" "$3"' sh "$RL" "$P" "$T/gpu.pbtxt" "$F" "$T/steady_thunk.tsv" \
	"$(truth gpu.sms)" "\"$(truth gpu.name)\""

# ---- variability and heap memory: the planted variation and trace ----
# The planted durations of the steady executions, on both devices: count,
# mean, sample standard deviation, min and max in ms, computed here.
planted_var() {
	awk -F'\t' -v n="$1" -v from="$2" '
	index($1, "duration_ns." n ".") == 1 { e = substr($1, length("duration_ns." n ".") + 1)
	    if (e + 0 >= from) for (d = 0; d < 2; d++) v[k++] = $2 / 1e6 }
	END { for (i = 0; i < k; i++) { s += v[i]; if (i == 0 || v[i] < lo) lo = v[i]; if (i == 0 || v[i] > hi) hi = v[i] }
	      m = s / k; for (i = 0; i < k; i++) q += (v[i] - m) ^ 2
	      printf "%d %.9f %.9f %.9f %.9f\n", k, m, sqrt(q / (k - 1)), lo, hi }' "$P/truth.tsv"
}
VS=$(truth init_executions.jit_train_step)
VAR=$(cut -f 1 "$P/truth.tsv" | sed -n 's/^duration_ns\.\(.*\)\.[0-9]*$/\1/p' | sort -u)
check "variability.sh" sh -c 'NSYSJAX_BIN=$1 sh pipelines/variability.sh -t thunks "$2" "$3" > "$4"' sh \
	"$BIN" "$P/rank0" "$P/rank1" "$T/var"
is "variable thunks: the planted ones" \
	"$(awk -F'\t' 'NR > 1 { print $2 }' "$T/var" | sort | tr '\n' ' ')" "$(echo $VAR | tr ' ' '\n' | sort | tr '\n' ' ')"
for n in $VAR; do
	is "$n: executions, mean, std, min, max (ms)" \
		"$(awk -F'\t' -v n="$n" '$2 == n { printf "%d %.9f %.9f %.9f %.9f\n", $3, $4, $5, $7, $8 }' "$T/var")" \
		"$(planted_var "$n" "$VS")"
done
"$X" -f heap "$P/rank0" > "$T/heap" || notok "extract -f heap"
# (One trace, Trace 0, of jit_train_step's ProgramId.)
is "heap frame: the planted trace's events" \
	"$(awk -F'\t' 'NR > 1 { n[$2]++ } END { for (k in n) print k, n[k] }' "$T/heap")" \
	"0 $(truth heap_events.jit_train_step)"
check "memory.sh" sh -c 'NSYSJAX_BIN=$1 sh pipelines/memory.sh -t peaks "$2" "$3" > "$4"' sh \
	"$BIN" "$P/rank0" "$P/rank1" "$T/peaks"
is "heap peak: bytes, event, instruction" \
	"$(awk -F'\t' 'NR > 1 { print $2, $4, $5, $6, $7 }' "$T/peaks" | sort -u)" \
	"jit_train_step $(truth heap_events.jit_train_step) $(truth heap_peak_bytes.jit_train_step) $(truth heap_peak_event.jit_train_step) $(truth heap_peak_instruction.jit_train_step)"

# ---- the report of make run: every plot, every section with content ----
if need gnuplot; then
	NSYSJAX_BIN=$BIN sh pipelines/report.sh -q -o "$T/report" "$P/rank0" "$P/rank1" > /dev/null 2> "$T/report.err" ||
		notok "report.sh on the example: $(cat "$T/report.err")"
	for g in bandwidth waits wait-size heap skews variability stragglers; do
		[ -s "$T/report/plots/$g.svg" ] && ok || notok "plots/$g.svg missing"
	done
	[ "$(ls "$T/report/plots" | wc -l)" -ge 7 ] && ok || notok "plots: fewer than seven"
	# A section is empty when nothing follows its heading.
	is "report.html: sections without content" "$(awk '
	    /<section/ { id = $0; sub(/.*id="/, "", id); sub(/".*/, "", id); n = 0; next }
	    /<\/section>/ { if (id != "" && n == 0) print id; id = ""; next }
	    id != "" && !/<h2>/ && NF { n++ }' "$T/report/report.html" | tr '\n' ' ')" ""
fi

# ---- XLA's thunk names since mid-2026 (-X 2026, the default of -L 2026):
# "hlo_op=OP,unique_hlo_op_id=ID#", ID the instruction's id in the dump.
# The frames are those of the old names, byte for byte, in both layouts;
# an id that disagreed with its dump would cost its row the metadata and
# give a note (tests/t15-sqlite.sh plants that): none here.
: "${MKEXPORT:=${BIN%/bin}/sqlite/mkexport}"
for lay in "" "-L 2026"; do
	tag=${lay:+26}
	check "mkexample $lay -X 2026" "$MKEXAMPLE" $lay -X 2026 "$T/x26$tag"
	check "mkexample $lay -X 2024" "$MKEXAMPLE" $lay -X 2024 "$T/x24$tag"
	check "extract $lay -X 2026" sh -c '"$1" -o "$2" "$3/rank0" "$3/rank1" 2> "$4"' sh "$X" "$T/x26f$tag" "$T/x26$tag" "$T/x26e$tag"
	! grep -q unique_hlo_op_id "$T/x26e$tag" && ok || notok "$lay -X 2026: $(cat "$T/x26e$tag")"
	check "extract $lay -X 2024" "$X" -o "$T/x24f$tag" "$T/x24$tag/rank0" "$T/x24$tag/rank1"
	for f in thunk module communication hlo stackframes heap; do
		check "$lay -X 2026: $f frame of the old names" cmp "$T/x24f$tag/$f.tsv" "$T/x26f$tag/$f.tsv"
	done
	# The autotuner pass, renamed XlaPass:#name=autotuner (AutotunerPass),
	# folds as the reference folds it (JAX-Toolbox e00e463b): the row is
	# XlaAutotunerCompilation with NumChild 0 and its whole duration, the
	# ranges below it dropped.  The compile frame and the compile
	# statistics are those of the old names so folded by tests/autotune.awk.
	! grep -q 'XlaPass:#name=autotuner' "$T/x26f$tag/compile.tsv" && ok ||
	    notok "$lay -X 2026: the autotuner pass is left in the compile frame"
	grep -q 'XlaPass:#name=gemm-fusion-autotuner,program_id=7#' "$T/x24f$tag/compile.tsv" && ok ||
	    notok "$lay -X 2024: no autotuner pass in the compile frame"
	awk -v old=gemm-fusion-autotuner -f tests/autotune.awk "$T/x24f$tag/compile.tsv" \
	    "$T/x24f$tag/compile.tsv" > "$T/x24c$tag"
	[ "$(wc -l < "$T/x24c$tag")" -lt "$(wc -l < "$T/x24f$tag/compile.tsv")" ] && ok ||
	    notok "$lay -X 2024: the fold drops no row"
	check "$lay -X 2026: compile frame of the old names, the pass folded" cmp "$T/x24c$tag" "$T/x26f$tag/compile.tsv"
	for t in stats passes; do
		"$BIN/nsysjax-compilestats" -t $t "$T/x24c$tag" > "$T/cs24"
		"$BIN/nsysjax-compilestats" -t $t "$T/x26f$tag/compile.tsv" > "$T/cs26"
		check "$lay -X 2026: compilestats -t $t of the old names, the pass folded" cmp "$T/cs24" "$T/cs26"
	done
	# Every thunk row that has HLO metadata came from a range with an id.
	n26=$("$X" -k -f thunk "$T/x26$tag/rank0" 2>/dev/null | awk -F'\t' 'NR > 1 && $13 != ""' | wc -l)
	nid=$("$X" -k -f thunk "$T/x26$tag/rank0" 2>/dev/null | awk -F'\t' 'NR > 1 && $3 ~ /unique_hlo_op_id/' | wc -l)
	[ "$n26" -gt 0 ] && [ "$nid" -eq 0 ] && ok || notok "$lay -X 2026: $n26 rows with metadata, $nid raw names"
done
# The ranges carry ids: the default layout as an export, its nvtx frame.
if [ -x "$MKEXPORT" ] && "$MKEXPORT" archive "$T/x26/rank0" "$T/x26.sqlite"; then
	n=$("$X" -f nvtx "$T/x26.sqlite" 2>/dev/null | grep -c '^TSL:Thunk:#[^	]*hlo_op=[a-z0-9._-]*,unique_hlo_op_id=[0-9]*#	')
	[ "$n" -gt 50 ] && ok || notok "-X 2026: $n thunk ranges with ids"
else
	notok "$MKEXPORT archive of the -X 2026 example"
fi
cmp -s "$P/rank0/thread-metadata.parquet" "$T/x24/rank0/thread-metadata.parquet" &&
    cmp -s "$P/rank0/nvtx_gpu_proj_trace/trace.parquet" "$T/x24/rank0/nvtx_gpu_proj_trace/trace.parquet" &&
    ok || notok "-X 2024 is the default layout's bytes"
! cmp -s "$P/rank0/nvtx_gpu_proj_trace/trace.parquet" "$T/x26/rank0/nvtx_gpu_proj_trace/trace.parquet" &&
    ok || notok "-X 2026 writes other names"

done_testing t75-example
