#!/bin/sh
# Profiles of today's XLA, archive side: the example run of
# tests/example/mkexample.c written with -L 2026, as nsys 2026.3 and XLA
# of 2026 write it (trace.parquet with Text, Domain, Start, End, ...,
# Range Stack a list; report_nvtx_pushpop_trace.parquet; xz dumps;
# command buffers, thunks command_buffer_N that no HLO instruction
# names; instructions whose stack frame ids lie beyond the module's
# stack_frame_index).  Every frame keeps its rows, the totals are the
# planted ones (truth.tsv), the same run in the default layout gives the
# same frames where the layouts agree, and each tolerated lookup is one
# note per module.
set -u
. tests/lib.sh
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
X=$BIN/nsysjax-extract
P=$T/p26
D=$T/p24
F=$T/f26
G=$T/f24

truth() { awk -F'\t' -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$P/truth.tsv"; }
rows() { echo $(($(wc -l < "$1") - 1)); }
is() { if [ "$2" = "$3" ]; then ok; else notok "$1: got '$2', want '$3'"; fi; }

need_built "$MKEXAMPLE" t18-cmdbuf

# ---- the generator ----
check "mkexample -L 2026 writes the profile" "$MKEXAMPLE" -L 2026 "$P"
check "mkexample writes the default profile" "$MKEXAMPLE" "$D"
for r in rank0 rank1; do
	for m in nvtx_gpu_proj_trace/trace.parquet thread-metadata.parquet \
	    report_nvtx_pushpop_trace.parquet \
	    dump/module_0003.jit_init.sm_9.0_gpu_after_optimizations.hlo.pb.xz \
	    dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb.xz; do
		if [ -s "$P/$r/$m" ]; then ok; else notok "no $r/$m"; fi
	done
	is "$r: no CSV nor plain dump" "$(ls "$P/$r" "$P/$r/dump" | grep -c -e '\.csv$' -e '\.pb$')" 0
done
check "mkexample -L 2026 is deterministic" sh -c '"$1" -L 2026 "$2" && diff -r "$3" "$2"' sh \
	"$MKEXAMPLE" "$T/again" "$P"
check "the dumps are xz" xz -t "$P/rank0/dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb.xz"
"$MKEXAMPLE" -L 2024 "$T/bad" >/dev/null 2>&1
is "mkexample -L with another layout" $? 1

# ---- nsysjax-extract: every frame, nothing fails ----
mkdir -p "$F" "$G"
check "extract -o (2026.3 layout, command buffers)" sh -c '"$1" -o "$2" "$3/rank0" "$3/rank1" 2> "$4"' sh \
	"$X" "$F" "$P" "$T/notes"
check "extract -o (default layout)" sh -c '"$1" -o "$2" "$3/rank0" "$3/rank1" 2> /dev/null' sh "$X" "$G" "$D"
for f in thunk module communication compile hlo stackframes; do
	if [ -f "$F/$f.tsv" ] && [ "$(rows "$F/$f.tsv")" -gt 0 ]; then ok; else notok "frame $f empty"; fi
	check "extract -f $f" sh -c '"$1" -f "$2" "$3/rank0" "$3/rank1" > "$4" 2> /dev/null && cmp -s "$4" "$5/$2.tsv"' sh \
		"$X" "$f" "$P" "$T/one" "$F"
done
mkdir -p "$T/fj"
check "extract -j 2 (a worker per profile) gives the same frames" sh -c \
	'"$1" -j 2 -o "$2" "$3/rank0" "$3/rank1" 2> /dev/null && for f in thunk module communication compile hlo stackframes; do cmp "$2/$f.tsv" "$4/$f.tsv" || exit 1; done' sh \
	"$X" "$T/fj" "$P" "$F"

NI=$(truth l26.thunks.jit_init) NS=$(truth l26.thunks.jit_train_step)
EI=$(truth executions.jit_init) ES=$(truth executions.jit_train_step)
CB1=$(truth cmdbuf.jit_init) CB9=$(truth cmdbuf.jit_train_step)
is "thunk rows" "$(rows "$F/thunk.tsv")" $((2 * (NI * EI + NS * ES)))
is "module rows" "$(rows "$F/module.tsv")" $((2 * (EI + ES)))
is "NumThunks" "$(col "$F/module.tsv" Name NumThunks | sed 1d | sort -u | tr '\n' ' ')" \
	"$(printf 'jit_init\t%s jit_train_step\t%s ' "$NI" "$NS")"
# The hlo frame: every instruction a thunk runs, no row for command buffers.
is "hlo rows" "$(rows "$F/hlo.tsv")" $((NI - 1 + NS - 1))
is "no hlo row for a command buffer" "$(col "$F/hlo.tsv" Name | grep -c '^command_buffer_')" 0

# ---- command buffers: their rows carry the planted graph time ----
for cb in "$CB1" "$CB9"; do
	is "$cb: executions, total time, empty Communication" \
		"$(col "$F/thunk.tsv" Name ProjDurMs Communication | awk -F'\t' -v cb="$cb" "$AWK_NS"'
		    $1 == cb { n++; t += ns($2); if ($3 != "") c++ } END { print n + 0, t + 0, c + 0 }')" \
		"$(truth "cmdbuf_execs.$cb") $(truth "cmdbuf_all_ns.$cb") 0"
	for op in $(truth "cmdbuf_holds.$cb"); do
		is "$cb holds $op: no row of its own" \
			"$(col "$F/thunk.tsv" ProgramId Name | awk -F'\t' -v op="$op" -v p="$(col "$F/thunk.tsv" ProgramId Name | awk -F'\t' -v cb="$cb" '$2 == cb { print $1; exit }')" \
			    '$1 == p && $2 == op { n++ } END { print n + 0 }')" 0
	done
done
# The CommandBuffer column (when the thunk frame has it): its own name on
# a command buffer's row (by name: an archive has no thunk metadata),
# empty on every other row.
if head -n 1 "$F/thunk.tsv" | tr '\t' '\n' | grep -qx CommandBuffer; then
	is "CommandBuffer column" \
		"$(col "$F/thunk.tsv" Name CommandBuffer | awk -F'\t' -v cb1="$CB1" -v cb9="$CB9" '
		    NR > 1 { if ($1 == cb1 || $1 == cb9) { if ($2 != $1) bad++ } else if ($2 != "") bad++ }
		    END { print bad + 0 }')" 0
else
	skip "no CommandBuffer column in the thunk frame"
fi
# The same run in the default layout: a command buffer row starts where
# its first thunk did and ends where its last one ended; the other rows
# are the same but for the Orig columns (2024.5+ layouts have no Orig
# Start) and NumThunks.  HELD: "ProgramId Name" of the thunks held.
FPI=$(truth fingerprint.jit_init) FPS=$(truth fingerprint.jit_train_step)
HELD=$(for w in "$FPI $(truth "cmdbuf_holds.$CB1")" "$FPS $(truth "cmdbuf_holds.$CB9")"; do
	set -- $w; echo "$1 $2 first"; echo "$1 $3 last"; done)
cbof() { if [ "$1" = "$FPI" ]; then echo "$CB1"; else echo "$CB9"; fi; }
is "command buffers span the thunks they hold" \
	"$(col "$F/thunk.tsv" Name ProgramExecution Device ProjStartMs ProjDurMs | awk -F'\t' -v cb1="$CB1" -v cb9="$CB9" "$AWK_NS"'
	    $1 == cb1 || $1 == cb9 { printf "%s %s %s %.0f %.0f\n", $1, $2, $3, ns($4), ns($4) + ns($5) }' | sort)" \
	"$(col "$G/thunk.tsv" ProgramId Name ProgramExecution Device ProjStartMs ProjDurMs | awk -F'\t' -v held="$HELD" \
	    -v fpi="$FPI" -v cb1="$CB1" -v cb9="$CB9" "$AWK_NS"'
	    BEGIN { n = split(held, h, "\n"); for (i = 1; i <= n; i++) { split(h[i], w, " "); role[w[1] " " w[2]] = w[3] } }
	    { r = role[$1 " " $2]; k = ($1 == fpi ? cb1 : cb9) " " $3 " " $4 }
	    r == "first" { s[k] = ns($5) } r == "last" { e[k] = ns($5) + ns($6) }
	    END { for (k in s) printf "%s %.0f %.0f\n", k, s[k], e[k] }' | sort)"
COLS="ProgramId ProgramExecution Name ThunkExecution Device ProjDurMs ProjStartMs Communication ProjDurHiddenMs MessageSize Collective CollectiveSize"
is "other thunk rows as in the default layout" \
	"$(col "$F/thunk.tsv" $COLS | awk -F'\t' -v cb1="$CB1" -v cb9="$CB9" '$3 != cb1 && $3 != cb9' | cksum)" \
	"$(col "$G/thunk.tsv" $COLS | awk -F'\t' -v held="$HELD" '
	    BEGIN { n = split(held, h, "\n"); for (i = 1; i <= n; i++) { split(h[i], w, " "); drop[w[1] " " w[2]] = 1 } }
	    !(($1 " " $3) in drop)' | cksum)"
is "module rows as in the default layout" \
	"$(col "$F/module.tsv" ProgramId ProgramExecution Device Name ProjDurMs ProjStartMs | cksum)" \
	"$(col "$G/module.tsv" ProgramId ProgramExecution Device Name ProjDurMs ProjStartMs | cksum)"
is "communication rows as in the default layout" \
	"$(col "$F/communication.tsv" ProgramId ProgramExecution Name Device ProjDurMs ProjStartMs ProjDurHiddenMs MessageSize Collective CollectiveSize | cksum)" \
	"$(col "$G/communication.tsv" ProgramId ProgramExecution Name Device ProjDurMs ProjStartMs ProjDurHiddenMs MessageSize Collective CollectiveSize | cksum)"
# The push/pop parquet gives the CSV's compile frame (range ids differ:
# the command buffers took two ranges' place; XLA of 2026 names the
# autotuner pass "autotuner", mkexample -X 2026, which folds as the
# reference folds it: tests/autotune.awk on the old name).
awk -v old=gemm-fusion-autotuner -f tests/autotune.awk "$G/compile.tsv" "$G/compile.tsv" > "$T/g24.fold"
is "compile rows (from the push/pop parquet) as from the CSV" \
	"$(col "$F/compile.tsv" ProfileName Name TID NumChild StartMs DurMs DurChildMs DurNonChildMs ProgramId ProgramName | cksum)" \
	"$(col "$T/g24.fold" ProfileName Name TID NumChild StartMs DurMs DurChildMs DurNonChildMs ProgramId ProgramName | cksum)"

# ---- the notes: one per module and process ----
is "command buffer notes" "$(grep -c 'XLA command buffer.*nsysjax-profile' "$T/notes")" 4
for r in rank0 rank1; do
	is "$r: $CB9 noted with its executions" \
		"$(grep -c "$r: module jit_train_step: $ES executions of 1 XLA command buffer ($CB9)" "$T/notes")" 1
	is "$r: stack frames beyond the index noted" \
		"$(grep -c "$r: module jit_train_step: $(truth frames_beyond.jit_train_step) of [0-9]* HLO instructions name stack frames beyond the $(truth frames_index.jit_train_step) of its stack_frame_index (ids up to $(truth frames_beyond_max.jit_train_step))" "$T/notes")" 1
done
is "no other notes" "$(grep -c -v -e 'XLA command buffer' -e 'beyond the' "$T/notes")" 0
is "-f thunk: no stack frame note" \
	"$("$X" -f thunk "$P/rank0" 2>&1 >/dev/null | grep -c 'beyond the')" 0

# ---- stack frames beyond the index: the frames that exist, or none ----
is "a parent beyond the index: the frame below it" \
	"$(awk -F'\t' 'NR > 1 { p[$1] = $2; f[$1] = $3 }
	    END { for (k in f) if (p[k] != "" && p[p[k]] == "" && f[p[k]] == "'"$(truth frames_cut.input_reduce_fusion)"'") print "found" }' \
	    "$F/stackframes.tsv" | sort -u)" found
is "an id beyond the index: no stack, the op_name kept" \
	"$(col "$F/hlo.tsv" Name StackFrameIds OpNames | awk -F'\t' '$1 == "loop_multiply_fusion.1" { print "[" $2 "]", $3 }')" \
	"[] $(truth frames_none.loop_multiply_fusion.1)"

# ---- flame graphs of the steady state: the planted times ----
W=$BIN/nsysjax-warmup FO=$BIN/nsysjax-fold
"$W" -c "$F/compile.tsv" "$F/thunk.tsv" > "$T/steady_thunk.tsv"
"$W" -c "$F/compile.tsv" --communication-from "$F/thunk.tsv" "$F/module.tsv" > "$T/steady_module.tsv"
check "fold by source" sh -c '"$1" -u ns -H "$2/hlo.tsv" -S "$2/stackframes.tsv" -M "$3" "$4" > "$5" 2> /dev/null' sh \
	"$FO" "$F" "$T/steady_module.tsv" "$T/steady_thunk.tsv" "$T/source"
folded() { awk -v s="$1" '{ c = $NF; sub(/ [0-9]+$/, "") } $0 == s { print c; f = 1 } END { if (!f) print "none" }' "$2"; }
is "source: the command buffer and the thunk without metadata" \
	"$(folded '[GPU active];[Unknown]' "$T/source")" \
	$(($(truth "steady_ns.$CB9") + $(truth steady_ns.wrapped_copy)))
is "source: an id beyond the index falls back to the op_name" \
	"$(folded "[GPU active];[Unknown];$(truth frames_none.loop_multiply_fusion.1)" "$T/source")" \
	"$(truth steady_ns.loop_multiply_fusion.1)"
is "source: a parent beyond the index keeps the frame below" \
	"$(folded "[GPU active];$(truth frames_cut.input_reduce_fusion);jit(train_step)/jit(main)/jvp(loss_fn)/layer_norm/reduce_sum[axes=(1,)]" "$T/source")" \
	"$(truth steady_ns.input_reduce_fusion)"
is "source: GPU active is every steady thunk's time" \
	"$(awk '/^\[GPU active\]/ { t += $NF } END { print t }' "$T/source")" \
	"$(col "$T/steady_thunk.tsv" ProjDurMs | awk "$AWK_NS"' NR > 1 { t += ns($1) } END { print t }')"
check "fold by op_name" sh -c '"$1" -b op_name -u ns -H "$2/hlo.tsv" -M "$3" "$4" > "$5" 2> /dev/null' sh \
	"$FO" "$F" "$T/steady_module.tsv" "$T/steady_thunk.tsv" "$T/op_name"
is "op_name: GPU active is every steady thunk's time" \
	"$(awk '/^\[GPU active\]/ { t += $NF } END { print t }' "$T/op_name")" \
	"$(col "$T/steady_thunk.tsv" ProjDurMs | awk "$AWK_NS"' NR > 1 { t += ns($1) } END { print t }')"
check "fold by opcode" sh -c '"$1" -b opcode -H "$2/hlo.tsv" "$3" > "$4" 2> /dev/null' sh \
	"$FO" "$F" "$T/steady_thunk.tsv" "$T/opcodes"
# Every compute thunk outside the command buffers, and each command
# buffer of the steady state: the planted time.
planted() {
	awk -F'\t' -v held="$(truth "cmdbuf_holds.$CB9")" 'BEGIN { split(held, h, " "); skip[h[1]] = skip[h[2]] = 1 }
	    $1 ~ /^steady_ns\./ { k = substr($1, 11); if (!(k in skip)) print k, $2 }' "$P/truth.tsv" | sort
}
planted > "$T/planted"
is "steady compute thunks and command buffers: the planted times" \
	"$(col "$T/steady_thunk.tsv" Name ProjDurMs | awk -F'\t' "$AWK_NS"' NR > 1 { t[$1] += ns($2) } END { for (k in t) print k, t[k] }' |
	    awk 'NR == FNR { want[$1] = 1; next } $1 in want' "$T/planted" - | sort)" \
	"$(cat "$T/planted")"
is "steady compute thunks: no others" \
	"$(planted | cut -d' ' -f1 | tr '\n' ' ')" \
	"$(col "$T/steady_thunk.tsv" Name Communication | awk -F'\t' 'NR > 1 && $2 != "1" { print $1 }' | sort -u | tr '\n' ' ')"

# ---- the flame graph pipeline runs on it ----
check "pipelines/flamegraphs.sh" sh -c 'PATH="$1:$PATH" sh pipelines/flamegraphs.sh -o "$2" "$3/rank0" "$3/rank1" > /dev/null 2>&1' sh \
	"$BIN" "$T/fg" "$P"
if [ -s "$T/fg/source.folded" ] && [ -s "$T/fg/op_name.folded" ]; then ok; else notok "flamegraphs.sh wrote no folded stacks"; fi

# ---- the report: command buffers' share of the GPU time ----
check "pipelines/summary.sh -t cmdbufs" sh -c 'PATH="$1:$PATH" sh pipelines/summary.sh -t cmdbufs "$2" > "$3" 2> /dev/null' sh \
	"$BIN" "$F" "$T/cmdbufs"
is "summary: command buffers, executions, time, share" \
	"$(col "$T/cmdbufs" Name Executions ProjDurMs InnerMs Fraction | sed 1d | awk -F'\t' "$AWK_NS"' { printf "%s %s %.0f %s %.6f\n", $1, $2, ns($3), $4, $5 }')" \
	"$CB9 $(($(truth "cmdbuf_execs.$CB9") * 2 / 3)) $(truth "steady_ns.$CB9") 0 $(col "$T/steady_thunk.tsv" ProjDurMs |
	    awk "$AWK_NS"' NR > 1 { t += ns($1) } END { printf "%.6f", '"$(truth "steady_ns.$CB9")"' / t }')"
# With the CommandBuffer column (node-level exports): the rows inside a
# command buffer count for it; a thunk named command_buffer_N that the
# column does not mark is none.
printf 'ProgramId\tName\tProjDurMs\tCommandBuffer\n' > "$T/cbcol"
printf 'p\tcommand_buffer_2\t0.1\tcommand_buffer_2\np\tfusion.1\t0.25\tcommand_buffer_2\n' >> "$T/cbcol"
printf 'p\tfusion.2\t0.05\tcommand_buffer_2\np\tcommand_buffer_3\t0.2\t\np\tgemm\t0.4\t\n' >> "$T/cbcol"
is "nsysjax-stats -t cmdbufs with the CommandBuffer column" \
	"$("$BIN/nsysjax-stats" -t cmdbufs "$T/cbcol" | sed 1d | tr '\t' ' ')" \
	"p command_buffer_2 1 0.4 0.3 0.4"
is "nsysjax-stats -t cmdbufs without it: by name" \
	"$(cut -f 1-3 "$T/cbcol" | "$BIN/nsysjax-stats" -t cmdbufs | sed 1d | tr '\t' ' ')" \
	"$(printf 'p command_buffer_3 1 0.2 0 0.2\np command_buffer_2 1 0.1 0 0.1')"
check "pipelines/report.sh" sh -c 'PATH="$1:$PATH" sh pipelines/report.sh -q -o "$2" "$3/rank0" "$3/rank1" > "$2.txt" 2> /dev/null' sh \
	"$BIN" "$T/rep" "$P"
is "report: the command buffer section and how to see inside" \
	"$(grep -c -e '^XLA command buffers (CUDA graphs): share of GPU time' -e "^  $CB9 .*%$" -e 'profile$' -e '^with nsysjax-profile, whose SQLite export traces graph nodes' "$T/rep.txt")" 4
is "report of the default layout: no command buffer section" \
	"$(PATH="$BIN:$PATH" sh pipelines/report.sh -q -o "$T/rep24" "$D/rank0" "$D/rank1" 2> /dev/null | grep -c 'command buffer')" 0

done_testing t18-cmdbuf
