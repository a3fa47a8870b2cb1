#!/bin/sh
# The reference's summaries of a run (analyses/summary.py and the
# notebook's module and thunk tables): per XLA module its executions,
# thunks, duration and wait time in the steady state; GPU time per thunk
# of the top modules and the runtime totals; the compilation tables of
# nsysjax-compilestats.  See README.md, "pipelines/summary.sh".
set -eu
USAGE='pipelines/summary.sh [-o dir] [-t table] input ...'
TABLES='modules thunks totals compile-ranges compile-no-pass-detail compile-passes compile-summary'
. "$(dirname -- "$0")/lib/common.sh"

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
# The compile tables meanwhile (the compile frame is all initialisation).
(for t in ranges no-pass-detail passes summary; do
	nsysjax-compilestats -t "$t" "$F/compile.tsv" > "$W/compile-$t"
done) & BG=$!
steady thunk module communication
top_modules "$W/module.tsv" > "$W/top"
awk -v TOP="$W/top" -f "$LIB/tsv.awk" -f "$LIB/modules.awk" \
	"$W/module.tsv" "$W/communication.tsv" > "$W/m"
sorted "$W/m" -k6,6nr -k1,1 > "$W/modules"
awk -v TOP="$W/top" -v TOTALS="$W/totals" -f "$LIB/tsv.awk" -f "$LIB/runtime.awk" \
	"$W/thunk.tsv" "$W/module.tsv" > "$W/t"
sorted "$W/t" -k4,4nr -k1,1 -k2,2 > "$W/thunks"
put modules "$W/modules"
put thunks "$W/thunks"
put totals "$W/totals"
wait "$BG"; BG=
for t in ranges no-pass-detail passes summary; do put "compile-$t" "$W/compile-$t"; done
