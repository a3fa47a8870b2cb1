#!/bin/sh
# The reference's analyses/communication.py: the bus bandwidth of the
# collectives per collective and message size, and the share of
# communication time hidden behind compute, over the steady state.  See
# README.md, "pipelines/communication.sh".
set -eu
USAGE='pipelines/communication.sh [-o dir] [-t table] [-s dir] input ...'
TABLES='bandwidth hidden'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

std_args "$@"
shift $((OPTIND - 1))

frames "$@"
table_dir
steady communication
for s in bandwidth hidden; do
	nsysjax-collectives -s "$s" "$SD/communication.tsv" > "$TD/$s.tsv"
	put "$s" "$TD/$s.tsv"
done
