#!/bin/sh
# The reference's summaries of a run (analyses/summary.py and the
# notebook's module and thunk tables): per XLA module its executions,
# thunks, duration and wait time in the steady state; GPU time per thunk
# of the top modules and the runtime totals; the compilation tables of
# nsysjax-compilestats.  See doc/pipelines.md, "summary.sh".
set -eu
USAGE='pipelines/summary.sh [-o dir] [-t table] [-s dir] input ...'
TABLES='modules thunks totals compile-ranges compile-no-pass-detail compile-passes compile-summary cmdbufs'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
table_dir
# The compile tables meanwhile (the compile frame is all initialisation),
# the four in one pass: the attribution, most of the work, made once.
nsysjax-compilestats -t ranges,no-pass-detail,passes,summary -o "$W/compile" "$F/compile.tsv" & BG=$!
steady thunk module
# The module table's waits from the communication rows of the thunk frame
# (those of the communication frame); one pass for the four tables, with
# the XLA command buffers (CUDA graphs) and their share of the GPU time.
if [ -n "$STATS" ]; then
	cp "$STATS/modules.tsv" "$STATS/thunks.tsv" "$STATS/totals.tsv" "$STATS/cmdbufs.tsv" "$TD/"
else
	nsysjax-stats -t modules,thunks,totals,cmdbufs -M "$SD/module.tsv" -o "$TD" "$SD/thunk.tsv"
fi
for t in modules thunks totals cmdbufs; do put "$t" "$TD/$t.tsv"; done
wait $BG; BG=
for t in ranges no-pass-detail passes summary; do put "compile-$t" "$W/compile/$t.tsv"; done
