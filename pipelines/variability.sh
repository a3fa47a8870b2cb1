#!/bin/sh
# The reference notebook's variability views of the steady state: the
# slowest compute thunks whose duration varies most over devices and
# executions, and how far each device runs ahead of or behind the others
# in the top modules (stragglers).  See README.md,
# "pipelines/variability.sh".
set -eu
USAGE='pipelines/variability.sh [-o dir] [-t table] [-r ratio] [-n count] input ...'
TABLES='thunks stragglers'
. "$(dirname -- "$0")/lib/common.sh"

ratio=0.1 count=10
while getopts o:t:r:n:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	r) number "$OPTARG" -r; ratio=$OPTARG ;;
	n) case $OPTARG in '' | *[!0-9]*) bad_usage "-n: not a count: '$OPTARG'" ;; esac; count=$OPTARG ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -z "$OUT" ] || mkdir -p "$OUT"

frames "$@"
steady thunk module
# The two tables side by side.
(awk -v RATIO="$ratio" -f "$LIB/tsv.awk" -f "$LIB/variability.awk" \
	pass=1 "$W/thunk.tsv" pass=2 "$W/thunk.tsv" > "$W/v"
sorted "$W/v" -k4,4nr -k1,1 -k2,2 > "$W/vs"
if [ "$count" -gt 0 ]; then head -n $((count + 1)) "$W/vs" > "$W/thunks"; else mv "$W/vs" "$W/thunks"; fi) & BG=$!
top_modules "$W/module.tsv" > "$W/top"
awk -v TOP="$W/top" -f "$LIB/tsv.awk" -f "$LIB/stragglers.awk" \
	"$W/module.tsv" pass=1 "$W/thunk.tsv" pass=2 "$W/thunk.tsv" > "$W/s"
sorted "$W/s" -k1,1n -k9,9nr -k4,4n | cut -f 2- > "$W/stragglers"
wait "$BG"; BG=
put thunks "$W/thunks"
put stragglers "$W/stragglers"
