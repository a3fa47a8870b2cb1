#!/bin/sh
# Extraction at scale (lib/profile/parts.h, merge.h): one worker process
# per profile and the merge of their frames give the bytes of one
# extraction in one process (-j 0), whatever -j; `--merge` of separate
# extractions (per process, per group, more parts than the merge's fan-in) gives
# them too; so do the GNU parallel and Slurm recipes of pipelines/.  A
# Device in two parts falls back to one process (-j) or is refused
# (--merge); a broken part is named.  The run is mkexample's large mode:
# N processes whose collectives span every device.
set -u
. tests/lib.sh
: "${MKEXAMPLE:=${BIN%/bin}/example/mkexample}"
X=$BIN/nsysjax-extract
FRAMES="thunk module communication compile hlo stackframes heap"

# same A B: directories A and B hold the same frames, byte for byte.
same() {
	for f in $FRAMES; do
		cmp -s "$1/$f.tsv" "$2/$f.tsv" || { echo "$f.tsv differs: $1 $2"; return 1; }
	done
	[ "$(ls "$1" | wc -l)" -eq "$(ls "$2" | wc -l)" ] || { echo "other files: $(ls "$1") / $(ls "$2")"; return 1; }
}

"$MKEXAMPLE" -n 8 -s 12 "$T/run" || notok "mkexample -n 8 -s 12"
set -- "$T"/run/rank0 "$T"/run/rank1 "$T"/run/rank2 "$T"/run/rank3 "$T"/run/rank4 "$T"/run/rank5 \
    "$T"/run/rank6 "$T"/run/rank7
"$X" -j 0 -o "$T/one" "$@" 2> "$T/one.err" || notok "extract -j 0"
awk -F'\t' 'NR > 1 && $16 != 8 { bad++ } NR > 1 { n[$1 "|" $2 "|" $3 "|" $4]++ }
    END { for (k in n) if (n[k] != 8) bad++; exit bad > 0 || NR < 100 }' "$T/one/communication.tsv" &&
	ok || notok "collectives span the eight devices"
for j in 1 2 3 8; do
	"$X" -j $j -o "$T/j$j" "$@" 2> "$T/j$j.err" || notok "extract -j $j"
	check "-j $j gives the bytes of -j 0" same "$T/one" "$T/j$j"
	cmp -s "$T/one.err" "$T/j$j.err" && ok || notok "-j $j: other notes"
done
for f in thunk hlo heap stackframes; do
	"$X" -j 0 -f $f "$@" > "$T/a.$f" && "$X" -j 2 -f $f "$@" > "$T/b.$f" &&
		cmp -s "$T/a.$f" "$T/b.$f" && ok || notok "-f $f: -j 2 differs from -j 0"
done

# Workers take the dearest profiles first (parts.c, dearest_first): ranks
# 5 and 6, each with a step module of its own (another piece of its
# hlo_module field appended, holding an unknown field: another dump, the
# same module; of other sizes, as a directory's dumps are told apart by
# size), are taken before rank 0 by the two workers of -j 2, so
# that rank 0 comes after a higher rank in its worker, and the hlo rows
# and stack frames still come out as -j 0's (extract.h, struct
# extract_seen), which are the unchanged run's.
cp -R "$T/run" "$T/dear"
printf '\012\003\300\076\001' >> "$T/dear/rank5/dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb"
printf '\012\004\300\076\201\001' >> "$T/dear/rank6/dump/module_0007.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb"
set -- "$T"/dear/rank0 "$T"/dear/rank1 "$T"/dear/rank2 "$T"/dear/rank3 "$T"/dear/rank4 "$T"/dear/rank5 \
    "$T"/dear/rank6 "$T"/dear/rank7
"$X" -j 0 -o "$T/dear0" "$@" 2> "$T/dear0.err" || notok "dear rank: extract -j 0"
check "dear rank: -j 0 gives the bytes of the unchanged run" same "$T/one" "$T/dear0"
for j in 1 2 3; do
	"$X" -j $j -o "$T/dear$j" "$@" 2> "$T/dear$j.err" || notok "dear rank: extract -j $j"
	check "dear rank: -j $j gives the bytes of -j 0" same "$T/one" "$T/dear$j"
	cmp -s "$T/dear0.err" "$T/dear$j.err" && ok || notok "dear rank: -j $j: other notes"
done
# Ranks 6 and 5 (taken first, one by each worker) and 2 broken: the error
# is rank 2's, the first in rank order, as -j 0 says, whatever order the
# workers took them in (after their failures both go on with ranks 0-2).
echo x > "$T/dear/rank5/nvtx_gpu_proj_trace/trace.parquet"
echo z > "$T/dear/rank6/nvtx_gpu_proj_trace/trace.parquet"
echo y > "$T/dear/rank2/nvtx_gpu_proj_trace/trace.parquet"
for j in 0 1 2; do
	expect_error 1 "dear/rank2:nvtx_gpu_proj_trace/trace.parquet: not a parquet file" "$X" -j $j -o "$T/no" "$@"
done
set -- "$T"/run/rank0 "$T"/run/rank1 "$T"/run/rank2 "$T"/run/rank3 "$T"/run/rank4 "$T"/run/rank5 \
    "$T"/run/rank6 "$T"/run/rank7

# --merge: of one extraction per process, and of three groups.
i=0
for p; do "$X" -o "$T/p$i" "$p" 2> /dev/null || notok "extract $p"; i=$((i + 1)); done
PARTS="$T/p0 $T/p1 $T/p2 $T/p3 $T/p4 $T/p5 $T/p6 $T/p7"
"$X" --merge -o "$T/m1" $PARTS || notok "--merge"
check "--merge of eight parts" same "$T/one" "$T/m1"
"$X" -o "$T/g0" "$1" "$2" && "$X" -o "$T/g1" "$3" "$4" "$5" && "$X" -o "$T/g2" "$6" "$7" "$8" &&
	"$X" --merge -o "$T/m2" "$T/g0" "$T/g1" "$T/g2" || notok "--merge of groups"
check "--merge of three groups" same "$T/one" "$T/m2"
"$X" --merge -f thunk $PARTS > "$T/m.thunk" &&
	cmp -s "$T/m.thunk" "$T/one/thunk.tsv" && ok || notok "--merge -f thunk"

# 256 parts: merged at once; and with 100 open files (a fan-in of 68,
# merge.h) the first parts in groups through temporary files first.
"$MKEXAMPLE" -n 256 -s 1 "$T/wide" || notok "mkexample -n 256"
ls -d "$T"/wide/rank* | sort -t k -k 2n > "$T/wide.list"
"$X" -j 0 -o "$T/wone" $(cat "$T/wide.list") 2> /dev/null || notok "extract 256 -j 0"
"$X" -j 2 -o "$T/wpar" $(cat "$T/wide.list") 2> /dev/null || notok "extract 256 -j 2"
check "256 processes: -j 2 gives the bytes of -j 0" same "$T/wone" "$T/wpar"
(ulimit -n 100 && "$X" -j 2 -o "$T/wlim" $(cat "$T/wide.list")) 2> /dev/null || notok "extract 256 -j 2, 100 open files"
check "256 processes, merged in groups: the bytes of -j 0" same "$T/wone" "$T/wlim"

# The recipes: GNU parallel on this machine, the Slurm array with the
# task variables set here.
if need parallel; then
	NSYSJAX_BIN=$BIN sh pipelines/extract-parallel.sh -j 3 -o "$T/gp" "$@" 2> "$T/gp.err" ||
		{ notok "extract-parallel.sh"; cat "$T/gp.err"; }
	check "GNU parallel recipe" same "$T/one" "$T/gp"
	NSYSJAX_BIN=$BIN sh pipelines/extract-parallel.sh -S 2/: -o "$T/gs" "$@" 2> /dev/null ||
		notok "extract-parallel.sh -S 2/:"
	check "GNU parallel recipe, --sshlogin :" same "$T/one" "$T/gs"
fi
printf '%s\n' "$@" > "$T/list"
for t in 0 1 2 3; do
	SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=2 NSYSJAX_BIN=$BIN \
	    sh pipelines/extract-slurm.sh "$T/sl" "$T/list" 2> /dev/null || notok "slurm task $t"
done
NSYSJAX_BIN=$BIN sh pipelines/extract-slurm.sh -m "$T/sl" "$T/list" 2> /dev/null || notok "slurm merge"
check "Slurm array recipe" same "$T/one" "$T/sl/frames"
# Eleven tasks for eight inputs: three have none; a task that did not
# finish stops the merge.
for t in 0 1 2 3 4 5 6 7 8 9 10; do
	SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_COUNT=11 NSYSJAX_BIN=$BIN \
	    sh pipelines/extract-slurm.sh "$T/s8" "$T/list" 2> /dev/null || notok "slurm task $t of 11"
done
NSYSJAX_BIN=$BIN sh pipelines/extract-slurm.sh -m "$T/s8" "$T/list" 2> /dev/null || notok "slurm merge of 11"
check "Slurm array, more tasks than inputs" same "$T/one" "$T/s8/frames"
rm "$T"/s8/parts/000004.done
expect_error 1 "task 4 of 11 did not finish" env NSYSJAX_BIN=$BIN sh pipelines/extract-slurm.sh -m "$T/s8" "$T/list"

# Devices in two profiles: one extraction numbers their thunks together
# (each profile's hidden time is its own); the workers' parts merge into
# the same bytes (merge_shared_begin), every frame alone too, and so do
# --merge's parts made by -o.  The second profile is another run's
# process 0 (a copy of the first would be refused as the same profile
# given twice), named copy0.
"$MKEXAMPLE" -n 2 -s 13 "$T/other" > /dev/null || notok "mkexample -n 2 -s 13"
cp -r "$T/other/rank0" "$T/copy0"
"$X" -j 0 -o "$T/dup0" "$1" "$T/copy0" 2> /dev/null || notok "a process and its copy -j 0"
"$X" -j 2 -o "$T/dup2" "$1" "$T/copy0" 2> /dev/null || notok "a process and its copy -j 2"
check "shared device: -j 2 gives the bytes of -j 0" same "$T/dup0" "$T/dup2"
"$X" -j 1 -o "$T/dup1" "$1" "$T/copy0" 2> /dev/null || notok "a process and its copy -j 1"
check "shared device: -j 1 gives the bytes of -j 0" same "$T/dup0" "$T/dup1"
for f in thunk communication module; do
	"$X" -j 2 -f $f "$1" "$T/copy0" > "$T/dup.$f" 2> /dev/null || notok "shared device -f $f"
	check "shared device: -f $f -j 2 gives -j 0's $f.tsv" cmp "$T/dup0/$f.tsv" "$T/dup.$f"
done
# The two profiles' rows of one thunk are numbered together: device 0
# runs each thunk of an execution twice (ThunkExecution 0 and 1).
check "shared device: ThunkExecution counts both profiles" awk -F '\t' '
    NR > 1 && $5 == 0 && $4 == 1 { n++ } END { exit !(n > 0) }' "$T/dup0/thunk.tsv"
# The workers run for shared devices too: TMPDIR a file fails them.
: > "$T/notdir"
expect_error 1 "notdir/nsysjax-extract" env TMPDIR="$T/notdir" "$X" -j 2 -o "$T/no" "$1" "$T/copy0"
expect_error 1 "notdir/nsysjax-extract" env TMPDIR="$T/notdir" "$X" -j 2 -o "$T/no" "$1" "$2"
"$X" -o "$T/sp0" "$1" 2> /dev/null && "$X" -o "$T/sp1" "$T/copy0" 2> /dev/null ||
	notok "a process and its copy, -o apart"
"$X" --merge -o "$T/spm" "$T/sp0" "$T/sp1" 2> /dev/null || notok "--merge of a process and its copy"
check "shared device: --merge gives the bytes of -j 0" same "$T/dup0" "$T/spm"
# Parts without a module frame: the devices are read off the thunk frame.
mkdir "$T/sn0" "$T/sn1"
cp "$T/sp0/thunk.tsv" "$T/sn0/"
cp "$T/sp1/thunk.tsv" "$T/sn1/"
"$X" --merge -f thunk "$T/sn0" "$T/sn1" > "$T/sn.thunk" 2> /dev/null || notok "--merge of thunk frames alone"
check "shared device: --merge of thunk frames alone gives -j 0's" cmp "$T/dup0/thunk.tsv" "$T/sn.thunk"
# Where the merge cannot number them (no thunk frame to check the
# communication rows' kinds), it names the device; one part given twice
# is refused as such.
mkdir "$T/sc0" "$T/sc1"
cp "$T/sp0/communication.tsv" "$T/sp0/module.tsv" "$T/sc0/"
cp "$T/sp1/communication.tsv" "$T/sp1/module.tsv" "$T/sc1/"
expect_error 1 "device 0 is in both $T/sc0 and $T/sc1: $T/sc0 has no thunk.tsv" "$X" --merge -o "$T/no" "$T/sc0" "$T/sc1"
# A thunk communication in one part and not in the other (its flag
# flipped in sk1's thunk frame): the communication frame alone could
# not be numbered as the thunk frame is.
cp -r "$T/sp1" "$T/sk1"
awk 'BEGIN { FS = OFS = "\t" } NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR > 1 && !done && $c["Communication"] == 1 { $c["Communication"] = 0; done = 1 } { print }' \
    "$T/sp1/thunk.tsv" > "$T/sk1/thunk.tsv"
expect_error 1 "is communication in one part and not in another" "$X" --merge -o "$T/no" "$T/sp0" "$T/sk1"
expect_error 1 "p0 and $T/p0/ are the same directory" "$X" --merge -o "$T/no" "$T/p0" "$T/p1" "$T/p0/"

# Broken parts are named.
expect_error 1 "no frame (NAME.tsv)" "$X" --merge -o "$T/no" "$T/run"
cp -r "$T/p1" "$T/q1"; rm "$T/q1/heap.tsv"
expect_error 1 "q1: no heap.tsv" "$X" --merge -o "$T/no" "$T/p0" "$T/q1"
cp -r "$T/p1" "$T/r1"
{ head -1 "$T/p1/thunk.tsv"; sed 1d "$T/p1/thunk.tsv" | sort -r; } > "$T/r1/thunk.tsv"
expect_error -r 1 "r1/thunk.tsv:3: not in the frame's order" "$X" --merge -f thunk "$T/p0" "$T/r1"
cp -r "$T/p1" "$T/h1"; cut -f 1-5 "$T/p1/module.tsv" > "$T/h1/module.tsv"
expect_error 1 "h1/module.tsv: header differs" "$X" --merge -f module "$T/p0" "$T/h1"
cp -r "$T/p1" "$T/s1"
awk 'BEGIN { FS = OFS = "\t" } NR == 2 { $10 = 99999 } { print }' "$T/p1/hlo.tsv" > "$T/s1/hlo.tsv"
expect_error 1 "s1/hlo.tsv:2: column StackFrameIds: no stack frame 99999" "$X" --merge -f hlo "$T/p0" "$T/s1"
cp -r "$T/p1" "$T/x1"; cut -f 1-10 "$T/p1/hlo.tsv" > "$T/x1/hlo.tsv"
expect_error 1 "x1/hlo.tsv: header differs" "$X" --merge -f hlo "$T/p0" "$T/x1"
# A worker that fails: the first failing profile in order is reported.
cp -r "$2" "$T/bad1"; : > "$T/bad1/nvtx_gpu_proj_trace/trace.parquet"
mkdir "$T/tmp"
expect_error 1 "bad1" env TMPDIR="$T/tmp" "$X" -j 2 -o "$T/no" "$1" "$T/bad1" "$3"
[ ! -e "$T/no/thunk.tsv" ] && ok || notok "a failed run left thunk.tsv"
[ -z "$(ls "$T/tmp")" ] && ok || notok "temporary files left: $(ls "$T/tmp")"
# Workers write their parts under $TMPDIR, and remove them.
TMPDIR="$T/tmp" "$X" -j 2 -f thunk "$@" > /dev/null && [ -z "$(ls "$T/tmp")" ] &&
	ok || notok "a run left temporary files: $(ls "$T/tmp")"
[ "$(wc -l < "$T/wide.list")" -eq 256 ] && [ "$(cut -f 3 "$T/wpar/module.tsv" | sort -u | wc -l)" -eq 257 ] &&
	ok || notok "the wide run has 256 devices"
expect_error 2 "-j" "$X" -j x "$1"

# A signal while the workers run: they stop, the parts go, the program
# ends by the signal.
"$MKEXAMPLE" -n 32 -s 200 "$T/sig" || notok "mkexample -n 32"
mkdir "$T/tmp2"
TMPDIR="$T/tmp2" "$X" -j 1 -o "$T/sigo" $(ls -d "$T"/sig/rank* | sort -t k -k 2n) 2> /dev/null & pid=$!
i=0
while [ -z "$(ls "$T/tmp2")" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid 2> /dev/null; rc=$?
# No sleep: the handler waits for the workers before removing the parts.
[ $rc -eq 143 ] && [ -z "$(ls "$T/tmp2")" ] && [ ! -e "$T/sigo" ] &&
	ok || notok "SIGTERM: exit $rc, left in TMPDIR: $(ls "$T/tmp2")"

done_testing t12-scale
