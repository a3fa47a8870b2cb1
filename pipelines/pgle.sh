#!/bin/sh
# The reference's analyses/pgle_costs.py: for each XLA module of the
# steady state, the profile XLA's --xla_gpu_pgle_profile_file_or_directory_path
# reads, DIR/<ProgramId>.pbtxt, one "costs { name: ... cost_us: ... }"
# line per instruction; and an index of the files on standard output.
# See README.md, "pipelines/pgle.sh".
set -eu
USAGE='pipelines/pgle.sh -o dir [-i] [-s dir] input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

fallback=0
while getopts o:is:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in i) fallback=1 ;; esac
done
shift $((OPTIND - 1))
steady_out "$@"
if [ "$fallback" = 1 ]; then i=-i; else i=; fi
nsysjax-stats -t costs $i -H "$F/hlo.tsv" "$W/thunk.tsv" > "$W/sorted"
awk -v DIR="$OUT" -v PROG="$PROG" -f "$LIB/tsv.awk" -f "$LIB/pgle-files.awk" \
	"$W/module.tsv" "$W/sorted" > "$W/index"
printf 'ProgramId\tName\tProjDurMs\tCosts\tEmptyNames\tFile\n'
LC_ALL=C sort -t "$TAB" -k3,3nr -k1,1 "$W/index" | tee "$W/i"
awk -F'\t' -v PROG="$PROG" '{ e += $5; n += $4; if ($5) f++ }
	END { if (e) printf "%s: %d of %d names empty in %d files (-i: the instruction names instead)\n", PROG, e, n, f > "/dev/stderr" }' "$W/i"
