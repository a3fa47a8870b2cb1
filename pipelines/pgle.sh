#!/bin/sh
# The reference's analyses/pgle_costs.py: for each XLA module of the
# steady state, the profile XLA's --xla_gpu_pgle_profile_file_or_directory_path
# reads, DIR/<ProgramId>.pbtxt, one "costs { name: ... cost_us: ... }"
# line per instruction; and an index of the files on standard output.
# See doc/pipelines.md, "pgle.sh".
set -eu
USAGE='pipelines/pgle.sh -o dir [-i] [-s dir] input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

fallback=0
while getopts o:is:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in i) fallback=1 ;; esac
done
shift $((OPTIND - 1))
steady_out "$@"
if [ "$fallback" = 1 ]; then i=-i; else i=; fi
if [ -n "$STATS" ] && [ "$fallback" = 0 ]; then
	C=$STATS/costs.tsv
else
	nsysjax-stats -t costs $i -H "$F/hlo.tsv" "$SD/thunk.tsv" > "$W/sorted"
	C=$W/sorted
fi
# The files, the index rows (unsorted) and the note on empty names.
DIR=$OUT SHOW=$OUT_FINAL awk -v PROG="$PROG" -f "$LIB/tsv.awk" -f "$LIB/pgle-files.awk" \
	"$SD/module.tsv" "$C" > "$W/index"
printf 'ProgramId\tName\tProjDurMs\tCosts\tEmptyNames\tFile\n'
LC_ALL=C sort -t "$TAB" -k3,3nr -k1,1 "$W/index"
