#!/bin/sh
# The last analysis of the reference's notebook (Analysis.ipynb, "Using
# compile-time information"): the heap memory of each XLA module over
# program order, from the heap simulator traces of its buffer assignment,
# and its peak.  See doc/pipelines.md, "memory.sh".
set -eu
USAGE='pipelines/memory.sh [-o dir] [-t table] [-s dir] input ...'
TABLES='peaks series'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
[ -f "$F/heap.tsv" ] ||
	die "$F: no heap.tsv (written by nsysjax-extract -o since it has the heap frame)"
table_dir
steady module
top_modules "$SD/module.tsv" > "$W/top"
TOP=$W/top SERIES=$TD/series.tsv awk -f "$LIB/tsv.awk" -f "$LIB/memory.awk" \
	"$F/heap.tsv" "$F/module.tsv" > "$W/p"
sorted "$W/p" -k5,5nr -k1,1 -k3,3n > "$TD/peaks.tsv"
put peaks "$TD/peaks.tsv"
put series "$TD/series.tsv"
