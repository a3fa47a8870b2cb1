#!/bin/sh
# nsysjax-profile against a stand-in nsys (tests/fake/nsys: no GPU and no
# nsys here), which records its arguments and the program's environment:
# the JAX defaults and the user's overrides, XLA_FLAGS merging, %q{VAR}
# names for several ranks, a failing program, signal forwarding, the
# analysis hook, the export's fallbacks, and the errors.  The example
# run (tests/example/mkexample.c) provides the HLO dumps JAX would write
# and, where nsysjax-extract reads SQLite, the export nsys would write.
. tests/lib.sh
P=$BIN/nsysjax-profile
FAKE=$(cd tests/fake && pwd)
EX=${EXAMPLE:-build/example/profile}
if [ ! -d "$EX/rank0/dump" ]; then
	notok "the example profile is missing ($EX: make example)"
	done_testing t95-profile; exit
fi
EXDIR=$(cd "$EX" && pwd)
mkdir -p "$T/run" "$T/dumps"
cp "$EXDIR"/rank0/dump/*.pb "$T/dumps/"
SQ=$(cd "$EX/../sqlite" && pwd)/rank%r/rank%r.sqlite

# prof ARGS...: nsysjax-profile with the fake nsys first on PATH, in $T/run;
# status in $rc, stderr in $T/err, the fake's log in $T/log.
prof() {
	: > "$T/log"
	(cd "$T/run" && PATH=$FAKE:$(cd "$OLDPWD" && cd "$BIN" && pwd):$PATH \
	    FAKE_NSYS_LOG=$T/log FAKE_NSYS_SQLITE=${FAKE_NSYS_SQLITE-$SQ} \
	    FAKE_NSYS_DUMPS=${FAKE_NSYS_DUMPS-$T/dumps} "$P" "$@") > "$T/out" 2> "$T/err"
	rc=$?
}
P=$(cd "$BIN" && pwd)/nsysjax-profile
logged() { grep -qxF -- "$1" "$T/log"; }
count() { sed '/^export$/,$d' "$T/log" | grep -cxF -- "$1"; }

# Defaults, in nsys-jax's order, then the output; the program's
# environment; the layout of the output.
unset XLA_FLAGS JAX_TRACEBACK_IN_LOCATIONS_LIMIT JAX_ENABLE_COMPILATION_CACHE
prof -q -o one true
[ $rc -eq 0 ] && ok || { notok "plain run: exit $rc"; cat "$T/err"; }
for a in --cuda-graph-trace=node --cpuctxsw=none --python-sampling=true \
    --trace=cublas,cuda,cudnn,cusolver,nvtx,osrt --force-overwrite=true; do
	[ "$(count "ARG $a")" = 1 ] && ok || notok "default $a not given once"
done
logged "PROGRAM true" && ok || notok "program not run as given"
logged "ENV JAX_TRACEBACK_IN_LOCATIONS_LIMIT=-1" && ok || notok "JAX_TRACEBACK_IN_LOCATIONS_LIMIT"
logged "ENV JAX_ENABLE_COMPILATION_CACHE=false" && ok || notok "JAX_ENABLE_COMPILATION_CACHE"
grep -q '^ENV XLA_FLAGS=--xla_dump_hlo_as_proto=true --xla_dump_to=/.*/dump$' "$T/log" && ok ||
	notok "XLA_FLAGS: $(grep XLA_FLAGS "$T/log")"
(cd "$T/run" && unzip -Z1 one.zip) > "$T/members" 2> /dev/null
for m in one.nsys-rep one.sqlite dump/module_0003.jit_init.sm_9.0_gpu_after_optimizations.hlo.pb; do
	grep -qxF "$m" "$T/members" && ok || notok "one.zip lacks $m: $(tr '\n' ' ' < "$T/members")"
done
[ ! -s "$T/err" ] && ok || notok "-q: stderr not empty: $(cat "$T/err")"
(cd "$T/run" && unzip -p one.zip one.sqlite) | cmp -s - "$(printf '%s' "$SQ" | sed 's/%r/0/g')" && ok ||
	notok "one.sqlite is not the export"

# The user's nsys options come after ours and replace the defaults they
# name, in every spelling; the user's environment wins.
JAX_ENABLE_COMPILATION_CACHE=true prof -q -o two -t cuda,nvtx --cpuctxsw=process-tree --python-sampling false -- true
[ $rc -eq 0 ] && ok || notok "overrides: exit $rc"
[ "$(count "ARG --trace=cublas,cuda,cudnn,cusolver,nvtx,osrt")" = 0 ] && logged "ARG -t cuda,nvtx" && ok ||
	notok "-t does not replace the default --trace"
[ "$(count "ARG --cpuctxsw=none")" = 0 ] && logged "ARG --cpuctxsw=process-tree" && ok ||
	notok "--cpuctxsw= does not replace the default"
[ "$(count "ARG --python-sampling=true")" = 0 ] && logged "ARG --python-sampling false" && ok ||
	notok "--python-sampling VALUE does not replace the default"
logged "ARG --cuda-graph-trace=node" && ok || notok "an untouched default was dropped"
[ "$(grep -n 'ARG --cuda-graph-trace=node' "$T/log" | cut -d: -f1)" -lt "$(grep -n 'ARG -t cuda,nvtx' "$T/log" | cut -d: -f1)" ] &&
	ok || notok "the user's options do not come after ours"
logged "ENV JAX_ENABLE_COMPILATION_CACHE=true" && ok || notok "the user's JAX_ENABLE_COMPILATION_CACHE replaced"

# XLA_FLAGS: the user's flags kept, their dump directory used (and its
# dumps gathered), the proto flag added only when absent.
mkdir -p "$T/mydump"
XLA_FLAGS="--xla_gpu_enable_latency_hiding_scheduler=true --xla_dump_to=$T/mydump" \
    prof -q --no-zip -o three true
logged "ENV XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true --xla_dump_to=$T/mydump --xla_dump_hlo_as_proto=true" &&
	ok || notok "XLA_FLAGS merged wrongly: $(grep XLA_FLAGS "$T/log")"
[ -f "$T/mydump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb" ] &&
    [ -f "$T/run/three/dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb" ] && ok ||
	notok "the user's --xla_dump_to not used"
XLA_FLAGS="--xla_dump_hlo_as_proto=false" prof -q -o four true
grep -q '^ENV XLA_FLAGS=--xla_dump_hlo_as_proto=false --xla_dump_to=' "$T/log" && ok ||
	notok "the user's --xla_dump_hlo_as_proto replaced: $(grep XLA_FLAGS "$T/log")"

# Names: %q{VAR} per rank, %% and %h; an unset variable is an error
# before anything runs; -z compresses the dumps.
for r in 0 1; do SLURM_PROCID=$r prof -q -z -o 'prof_%q{SLURM_PROCID}' true; done
[ -f "$T/run/prof_0.zip" ] && [ -f "$T/run/prof_1.zip" ] && ok ||
	notok "%q{SLURM_PROCID}: $(ls "$T/run")"
(cd "$T/run" && unzip -Z1 prof_1.zip) | grep -q '^dump/module_0007.*\.hlo\.pb\.xz$' && ok || notok "-z: dumps not .xz"
prof -q --no-zip -o 'h_%h_%%' true
[ -d "$T/run/h_$(hostname 2> /dev/null || uname -n)_%" ] && ok || notok "%h and %%: $(ls "$T/run")"
(unset NOSUCHVAR; prof -o 'p_%q{NOSUCHVAR}' true; [ $rc -eq 1 ] && grep -q 'NOSUCHVAR is not set' "$T/err" && [ ! -s "$T/log" ]) &&
	ok || notok "an unset %q{} variable: exit $rc, $(cat "$T/err")"

# A failing program keeps its profile; its status is ours.
prof -o fails sh -c 'exit 3'
[ $rc -eq 3 ] && [ -f "$T/run/fails.zip" ] && grep -q 'exited with status 3; keeping its partial profile' "$T/err" &&
	ok || notok "failing program: exit $rc, $(cat "$T/err")"

# A terminal's Ctrl-C (SIGINT to the process group) and SIGTERM to
# nsysjax-profile alone reach nsys and the program; the profile collected
# so far is still exported and written.  setsid gives the run a process
# group of its own, as a terminal's foreground job has.  (A background
# job of sh starts with SIGINT ignored, as no terminal's would: perl
# restores it first.)  Then a program that stops (SIGTTIN, a debugger):
# nsysjax-profile waits without spinning, and SIGTERM still ends the run.
# run_sig NAME PROGRAM...: start the run in the background.
run_sig() {
	rm -f "$T/started" "$T/sig"
	_n=$1; shift
	(cd "$T/run" && exec env PATH=$FAKE:$PATH FAKE_NSYS_LOG=$T/log \
	    FAKE_NSYS_SQLITE=$(printf '%s' "$SQ" | sed 's/%r/0/g') FAKE_NSYS_DUMPS=$T/dumps \
	    setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' "$P" -q -o "$_n" \
	    "$@" > /dev/null 2> "$T/err") &
	bg=$!
	i=0
	while [ ! -f "$T/started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
}
# end_sig SIGNAL: wait up to 10 s for the run to end; rc its status.
end_sig() {
	i=0
	while kill -0 $bg 2> /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 $bg 2> /dev/null && { kill -KILL -$bg; notok "SIG$1: nsysjax-profile still runs"; }
	wait $bg; rc=$?
}
for sig in INT TERM; do
	run_sig "sig$sig" sh -c "trap 'echo got > $T/sig; exit 9' $sig; : > $T/started; while :; do sleep 0.1; done"
	if [ $sig = INT ]; then kill -INT -$bg; else kill -TERM $bg; fi
	end_sig $sig
	[ -f "$T/sig" ] && ok || notok "SIG$sig did not reach the program"
	[ $rc -eq 9 ] && [ -f "$T/run/sig$sig.zip" ] && ok || notok "after SIG$sig: exit $rc, $(cat "$T/err")"
done
# cputicks PID: its user + system time in clock ticks.
cputicks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
if [ -r /proc/self/stat ]; then
	# The program stops nsys and itself (under the old `set -m` loop,
	# a stopped nsys made wait return at once, forever).
	run_sig stopped sh -c ": > $T/started; kill -STOP \$PPID; kill -STOP \$\$; echo resumed"
	t0=$(cputicks $bg); sleep 1; t1=$(cputicks $bg)
	[ $((t1 - t0)) -le 5 ] && ok || notok "stopped program: nsysjax-profile used $((t1 - t0)) ticks in 1 s"
	kill -TERM $bg
	end_sig TERM
	[ $rc -eq 143 ] && [ -f "$T/run/stopped.zip" ] && ok ||
		notok "stopped program, then SIGTERM: exit $rc, $(cat "$T/err")"
else
	skip "stopped program: no /proc"
fi

# The analysis hook: pipelines from NSYSJAX_PIPELINES, results beside the
# output; a failing analysis makes the status 1.
mkdir -p "$T/pipes"
cat > "$T/pipes/probe.sh" <<'EOF'
while getopts o: o; do out=$OPTARG; done
shift $((OPTIND - 1))
mkdir -p "$out" && ls "$1" > "$out/inputs" && echo probed
EOF
printf 'echo broken >&2; exit 1\n' > "$T/pipes/broken.sh"
NSYSJAX_PIPELINES=$T/pipes prof -q --no-zip -o an -a probe true
[ $rc -eq 0 ] && grep -q '^an.sqlite$' "$T/run/an.analysis/probe/inputs" && grep -q probed "$T/run/an.analysis/probe.txt" &&
	ok || notok "--analysis probe: exit $rc, $(cat "$T/err")"
NSYSJAX_PIPELINES=$T/pipes prof -q -o an2 -a broken true
[ $rc -eq 1 ] && grep -q -- '--analysis broken failed: broken' "$T/err" && ok || notok "failing analysis: exit $rc"

# Export fallbacks and errors.
FAKE_NSYS_OLD=1 prof -q -o old true
[ $rc -eq 0 ] && [ -f "$T/run/old.zip" ] && [ "$(grep -c '^export$' "$T/log")" = 2 ] && ok ||
	notok "nsys without export --tables: exit $rc, $(cat "$T/err")"
FAKE_NSYS_ANCIENT=1 prof -q -o ancient true
[ $rc -eq 1 ] && grep -q 'too old to export SQLite' "$T/err" && ok || notok "nsys too old: exit $rc, $(cat "$T/err")"
FAKE_NSYS_DUMPS= prof -q -o nodump true
[ $rc -eq 1 ] && [ -f "$T/run/nodump.zip" ] && grep -q 'JAX compilation cache hit?' "$T/err" && ok ||
	notok "empty dump directory: exit $rc, $(cat "$T/err")"
prof -q -o one true
[ $rc -eq 1 ] && grep -q 'one.zip exists: give -f' "$T/err" && [ ! -s "$T/log" ] && ok || notok "existing output: exit $rc"
prof -q -f -o one true
[ $rc -eq 0 ] && ok || notok "-f: exit $rc"
: > "$T/run/afile"
prof -q -o afile/x true
[ $rc -eq 1 ] && grep -q 'afile: cannot create directory' "$T/err" && ok || notok "unwritable output: exit $rc, $(cat "$T/err")"
prof -q -o x no-such-program-here
[ $rc -eq 1 ] && grep -q 'program not found: no-such-program-here' "$T/err" && ok || notok "missing program: exit $rc"
(cd "$T/run" && PATH=/usr/bin:/bin "$P" -o x true) > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'nsys not found' "$T/err" && ok || notok "missing nsys: exit $rc, $(cat "$T/err")"
prof -o x -- --trace=cuda
[ $rc -eq 1 ] && ok || notok "an option as the program: exit $rc"
# nsys options without --: the error says where they go; -o before the
# program still needs no --.
prof -o p1 --trace=cuda,nvtx python3 -c pass
[ $rc -eq 2 ] && grep -qF -- '--trace=cuda,nvtx: nsys options go before --: nsysjax-profile [options] [nsys options] -- program ...' "$T/err" &&
    [ ! -s "$T/log" ] && [ ! -e "$T/run/p1.zip" ] && ok || notok "nsys option without --: exit $rc, $(cat "$T/err")"
prof -q --output p2 -q python3 -c pass
[ $rc -eq 0 ] && [ -f "$T/run/p2.zip" ] && logged "PROGRAM python3 -c pass" && ok || notok "--output before the program, no --: exit $rc, $(cat "$T/err")"
prof --output=x --trace=cuda -o y -- true
[ $rc -eq 2 ] && grep -q 'output name to nsysjax-profile -o' "$T/err" && ok || notok "nsys -o: exit $rc"
prof
[ $rc -eq 2 ] && grep -q '^usage: nsysjax-profile' "$T/err" && ok || notok "no program: exit $rc"

# What nsysjax-profile wrote for two ranks is the example run: the same
# frames as its nsys-jax archives, and the report finds the planted clock
# offset (make run INPUTS=... runs the same report.sh).
for r in 0 1; do SLURM_PROCID=$r prof -q -f -o 'rank_%q{SLURM_PROCID}' python3 -c pass; done
X=$BIN/nsysjax-extract
$X -n rank0,rank1 -o "$T/fp" "$T/run/rank_0.zip" "$T/run/rank_1.zip" 2> "$T/err" &&
    $X -o "$T/fa" "$EXDIR/rank0" "$EXDIR/rank1" 2>> "$T/err" && ok || notok "extract: $(cat "$T/err")"
for f in thunk module communication compile hlo stackframes heap; do
	cmp -s "$T/fa/$f.tsv" "$T/fp/$f.tsv" && ok || notok "$f frame differs from the example archives'"
done
truth() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$EXDIR/truth.tsv"; }
NSYSJAX_BIN=$BIN sh pipelines/report.sh -o "$T/rep" "$T/run/rank_0.zip" "$T/run/rank_1.zip" > /dev/null 2> "$T/err" &&
    ok || notok "report.sh on the profiles: $(cat "$T/err")"
awk -F'\t' -v c0="$(truth correction_ms.0)" -v c1="$(truth correction_ms.1)" '
    NR > 1 { c[$1] = $2 } END {
	d0 = c[0] - c0; d1 = c[1] - c1
	exit !(d0 * d0 < 1e-12 && d1 * d1 < 1e-12) }' "$T/rep/corrections.tsv" 2> /dev/null && ok ||
	notok "report: corrections $(tr '\n' ' ' < "$T/rep/corrections.tsv" 2> /dev/null), planted $(truth correction_ms.0) $(truth correction_ms.1)"

# A .nsys-rep input of nsysjax-extract: exported with nsys (the fake's
# export copies the example's), cached in $XDG_CACHE_HOME/nsysjax (the
# suite's own, tests/lib.sh) under the report's (dev, inode, size, mtime),
# re-exported once the report changes; without nsys, one line with the
# command to run.
mkdir -p "$T/rep0"
(cd "$T/run" && unzip -q -o rank_0.zip rank_0.nsys-rep -d "$T/rep0")
cp -R "$EXDIR/rank0/dump" "$T/rep0/"
touch -d 2020-01-01 "$T/rep0/rank_0.nsys-rep"	# zip times are rounded up
: > "$T/log"
xrep() { PATH=$FAKE:$PATH FAKE_NSYS_LOG=$T/log "$X" -n rank0 -f thunk "$T/rep0/rank_0.nsys-rep" > "$T/rep.tsv" 2> "$T/err"; }
$X -f thunk "$EXDIR/rank0" > "$T/a0.tsv"
xrep && cmp -s "$T/rep.tsv" "$T/a0.tsv" && [ ! -e "$T/rep0/rank_0.sqlite" ] &&
    [ "$(ls "$XDG_CACHE_HOME/nsysjax" | grep -c '\.sqlite$')" = 1 ] && ok ||
	notok ".nsys-rep input: $(cat "$T/err")"
[ "$(grep -c '^export$' "$T/log")" = 1 ] && grep -q "^ARG --tables=NVTX_EVENTS," "$T/log" && ok ||
	notok ".nsys-rep: export not run once with --tables"
xrep && [ "$(grep -c '^export$' "$T/log")" = 1 ] && ok || notok ".nsys-rep: the cached export not reused"
touch "$T/rep0/rank_0.nsys-rep"
xrep && [ "$(grep -c '^export$' "$T/log")" = 2 ] && ok || notok ".nsys-rep: a newer report not exported again"
rm -rf "$XDG_CACHE_HOME/nsysjax"
PATH=/usr/bin:/bin "$X" -f thunk "$T/rep0/rank_0.nsys-rep" > "$T/o" 2> "$T/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q 'nsys is not on PATH: export it with `nsys export --type=sqlite' "$T/err" &&
	[ ! -s "$T/o" ] && ok || notok ".nsys-rep without nsys: exit $rc, $(cat "$T/err")"

# ---- sources of frames with a column, no ".."
# out of the stage, XLA_FLAGS not globbed, a TMPDIR with a space.  A
# stand-in nsysjax-extract first on PATH gives the stack frames (the
# second with an escaped tab in its path).
mkdir -p "$T/fx" "$T/src/a" "$T/src/b" "$T/glob/.step.x"
printf 'x = 1\n' > "$T/src/a/train.py"
printf 'z = 3\n' > "$T/outside.py"
printf 'y = 2\n' > "$T/src/b/tab	name.py"
{
	echo '#!/bin/sh'
	printf "printf 'FrameId\\\\tParentFrameId\\\\tFrame\\\\n'\n"
	printf "printf '0\\\\t\\\\t%s/src/a/train.py:42:7[step]\\\\n'\n" "$T"
	printf "printf '1\\\\t0\\\\t%s/src/b/tab\\\\\\\\tname.py:3[f]\\\\n'\n" "$T"
	printf "printf '2\\\\t0\\\\t%s/src/a/../../outside.py:1[g]\\\\n'\n" "$T"
} > "$T/fx/nsysjax-extract"
chmod +x "$T/fx/nsysjax-extract"
: > "$T/log"
(cd "$T/glob" && PATH=$T/fx:$FAKE:$PATH FAKE_NSYS_LOG=$T/log FAKE_NSYS_SQLITE=$(printf '%s' "$SQ" | sed 's/%r/0/g') \
    FAKE_NSYS_DUMPS=$T/dumps XLA_FLAGS='--xla_dump_hlo_module_re=.*step.*' \
    "$P" -q --no-zip -o "$T/run/srcs" true) > "$T/out" 2> "$T/err"; rc=$?
[ $rc -eq 0 ] && cmp -s "$T/src/a/train.py" "$T/run/srcs/sources$T/src/a/train.py" &&
	cmp -s "$T/src/b/tab	name.py" "$T/run/srcs/sources$T/src/b/tab	name.py" &&
	[ ! -e "$T/run/srcs/sources$T/outside.py" ] && ok ||
	notok "sources of frames with a column: exit $rc, $(cat "$T/err"); $(cd "$T/run/srcs" 2>/dev/null && find sources)"
grep -q '^ENV XLA_FLAGS=--xla_dump_hlo_module_re=\.\*step\.\* --xla_dump_hlo_as_proto=true --xla_dump_to=' "$T/log" &&
	ok || notok "XLA_FLAGS globbed: $(grep XLA_FLAGS "$T/log")"
mkdir -p "$T/sp ace"
TMPDIR="$T/sp ace" prof -q -o spaced true
d=$(sed -n 's/^ENV XLA_FLAGS=.*--xla_dump_to=//p' "$T/log")
[ $rc -eq 0 ] && case $d in *" "*) false ;; *) true ;; esac &&
	(cd "$T/run" && unzip -Z1 spaced.zip) | grep -q '^dump/.*\.pb$' && ok ||
	notok "TMPDIR with a space: dumps in '$d', exit $rc, $(cat "$T/err")"

done_testing t95-profile
