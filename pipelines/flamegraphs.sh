#!/bin/sh
# The reference notebook's flame graphs of the steady state: folded stacks
# by Python source line and by op_name (nsysjax-fold, integer counts), of
# the whole run (with its idle time) and of each top module alone,
# GPU time by HLO opcode, and SVGs when flamegraph.pl or
# inferno-flamegraph is on PATH.  See doc/pipelines.md, "flamegraphs.sh".
set -eu
USAGE='pipelines/flamegraphs.sh -o dir [-u us|ns] [-s dir] input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

unit=us
while getopts o:u:s:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	u) case $OPTARG in us | ns) unit=$OPTARG ;; *) bad_usage "unknown unit '$OPTARG'" ;; esac ;;
	esac
done
shift $((OPTIND - 1))
steady_out "$@"
# One flame graph per top module too (the notebook's per-module view):
# its own thunks alone, without the module frame, so without the idle
# roots that fill the whole-run graph; named by the ProgramId's first 12
# characters, listed in modules.tsv (ProgramId, Name, ProjDurMs, File:
# the name before .source.folded and .op_name.folded).  One fold writes
# them all, and the whole run's three (nsysjax-fold -o: the frames read
# and the thunk rows summed once, each stack's line built once).
top_modules "$SD/module.tsv" > "$W/top"
set --
while IFS= read -r id; do [ -z "$id" ] || set -- "$@" -p "$id"; done < "$W/top"
nsysjax-fold -o "$OUT" -b source,op_name,opcode "$@" -H "$F/hlo.tsv" -M "$SD/module.tsv" \
    -S "$F/stackframes.tsv" -u "$unit" "$SD/thunk.tsv"
TOP=$W/top awk -F'\t' '
BEGIN { TOP = ENVIRON["TOP"]; while ((getline id < TOP) > 0) if (id != "") { top[id] = ++nt; ids[nt] = id; f[id] = "module-" substr(id, 1, 12) }
	close(TOP) }
FNR == 1 { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["ProgramId"] in top { id = $c["ProgramId"]; n[id] = $c["Name"]; t[id] += $c["ProjDurMs"] }
END { print "ProgramId\tName\tProjDurMs\tFile"
	for (j = 1; j <= nt; j++) { id = ids[j]; printf "%s\t%s\t%.6f\t%s\n", id, n[id], t[id], f[id] } }' \
    "$SD/module.tsv" > "$OUT/modules.tsv"

if command -v flamegraph.pl > /dev/null; then
	svg=flamegraph.pl
elif command -v inferno-flamegraph > /dev/null; then
	svg=inferno-flamegraph
else
	echo "$PROG: neither flamegraph.pl nor inferno-flamegraph on PATH: no SVG written" >&2
	exit 0
fi
# Deterministic SVGs: colours from the frame names (--hash), not random,
# and flamegraph.pl's hash order fixed (PERL_HASH_SEED); inferno's are
# deterministic with --hash too.  Each drawn straight into $OUT.
# flamegraph.pl is handed only what it draws at the page's width
# (nsysjax-fold --prune: stacks too narrow to draw merged into their
# parent; the same rectangles, a tenth of its time on the whole run's
# graphs); the .folded files stay whole.
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
draw() {	# draw TITLE FOLDED SVG
	_in=$2
	if [ "$svg" = flamegraph.pl ]; then
		nsysjax-fold -P -w 1250 "$2" > "$W/drawn.folded" || return 1
		_in=$W/drawn.folded
	fi
	"$svg" --hash --countname="$unit" --width=1250 --title="$1" "$_in" > "$3" < /dev/null
}
draw 'Source code flamegraph' "$OUT/source.folded" "$OUT/source.svg"
draw 'op_name flamegraph' "$OUT/op_name.folded" "$OUT/op_name.svg"
{
	IFS= read -r _
	while IFS="$TAB" read -r id name ms f; do
		prefix12 "$id"
		for k in source op_name; do
			draw "$name ($P12): $k, steady state" "$OUT/$f.$k.folded" "$OUT/$f.$k.svg"
		done
	done
} < "$OUT/modules.tsv"
