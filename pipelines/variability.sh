#!/bin/sh
# The reference notebook's variability views of the steady state: the
# slowest compute thunks whose duration varies most over devices and
# executions, and how far each device runs ahead of or behind the others
# in the top modules (stragglers), and per step which device makes the
# others wait and by how much (late).  See doc/pipelines.md,
# "variability.sh".
set -eu
USAGE='pipelines/variability.sh [-J] [-o dir] [-t table] [-s dir] [-r ratio] [-n count] input ...'
TABLES='thunks stragglers late'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

ratio=0.1 count=10 join=
while getopts Jo:t:s:r:n:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	J) join=1 ;;
	r) number "$OPTARG" -r; ratio=$OPTARG ;;
	n) case $OPTARG in '' | *[!0-9]*) bad_usage "-n: not a count: '$OPTARG'" ;; esac; count=$OPTARG ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -z "$OUT" ] || make_out "$OUT"

frames "$@"
table_dir
steady thunk module
# The two tables in one pass (and a replay) over the thunk rows; with
# -J the stragglers join the ProgramIds of one SPMD step (nsysjax-stats
# -m), as report.sh's tables (\$STATS) do; without, per ProgramId as the
# reference.
if [ -n "$STATS" ] && [ "$ratio" = 0.1 ]; then
	V=$STATS
else
	nsysjax-stats -t variability,stragglers,late -r "$ratio" -M "$SD/module.tsv" \
	    ${join:+-m "$SD/module.tsv"} -o "$W" "$SD/thunk.tsv"
	V=$W
fi
if [ "$count" -gt 0 ]; then
	head_lines $((count + 1)) < "$V/variability.tsv" > "$TD/thunks.tsv"
else
	cp "$V/variability.tsv" "$TD/thunks.tsv"
fi
put thunks "$TD/thunks.tsv"
put stragglers "$V/stragglers.tsv"
put late "$V/late.tsv"
