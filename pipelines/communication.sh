#!/bin/sh
# The reference's analyses/communication.py: the bus bandwidth of the
# collectives per collective and message size, and the share of
# communication time hidden behind compute, over the steady state.  See
# doc/pipelines.md, "communication.sh".
set -eu
USAGE='pipelines/communication.sh [-o dir] [-t table] [-s dir] input ...'
TABLES='bandwidth hidden'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
table_dir
steady communication
# Both summaries from one pass (or report.sh's, lib/common.sh's STATS).
if [ -n "$STATS" ]; then
	cp "$STATS/bandwidth.tsv" "$STATS/hidden.tsv" "$TD/"
else
	nsysjax-collectives -s bandwidth,hidden -o "$TD" "$SD/communication.tsv"
fi
for s in bandwidth hidden; do put "$s" "$TD/$s.tsv"; done
