#!/bin/sh
# The reference's summaries of a run (analyses/summary.py and the
# notebook's module and thunk tables): per XLA module its executions,
# thunks, duration and wait time in the steady state; GPU time per thunk
# of the top modules and the runtime totals; the compilation tables of
# nsysjax-compilestats.  See README.md, "pipelines/summary.sh".
set -eu
USAGE='pipelines/summary.sh [-o dir] [-t table] [-s dir] input ...'
TABLES='modules thunks totals compile-ranges compile-no-pass-detail compile-passes compile-summary cmdbufs'
. "$(dirname -- "$0")/lib/common.sh"

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
# The compile tables meanwhile (the compile frame is all initialisation).
(for t in ranges no-pass-detail passes summary; do
	nsysjax-compilestats -t "$t" "$F/compile.tsv" > "$W/compile-$t"
done) & BG=$!
steady thunk module
# The module table's waits from the communication rows of the thunk frame
# (those of the communication frame); one pass for the three tables.
nsysjax-stats -t modules,thunks,totals -M "$W/module.tsv" -o "$W" "$W/thunk.tsv"
put modules "$W/modules.tsv"
put thunks "$W/thunks.tsv"
put totals "$W/totals.tsv"
# XLA command buffers (CUDA graphs) and their share of the GPU time.
awk -f "$LIB/tsv.awk" -f "$LIB/cmdbuf.awk" "$W/thunk.tsv" > "$W/cmdbufs.tsv"
put cmdbufs "$W/cmdbufs.tsv"
wait $BG; BG=
for t in ranges no-pass-detail passes summary; do put "compile-$t" "$W/compile-$t"; done
