#!/bin/sh
# The reference notebook's flame graphs of the steady state: folded stacks
# by Python source line and by op_name (nsysjax-fold, integer counts),
# GPU time by HLO opcode, and SVGs when flamegraph.pl or
# inferno-flamegraph is on PATH.  See README.md, "pipelines/flamegraphs.sh".
set -eu
USAGE='pipelines/flamegraphs.sh -o dir [-u us|ns] [-s dir] input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

unit=us
while getopts o:u:s:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	u) case $OPTARG in us | ns) unit=$OPTARG ;; *) bad_usage "unknown unit '$OPTARG'" ;; esac ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$OUT" ] || bad_usage "no output directory (-o)"
[ $# -gt 0 ] || bad_usage "no input"
make_out "$OUT"

frames "$@"
steady thunk module
# The folds need only each instruction's total time: one pass over the
# thunk rows sums them (exactly, in ns), and the three folds read the sums.
nsysjax-stats -t thunks -T 1 -M "$W/module.tsv" "$W/thunk.tsv" > "$W/sums.tsv"
fold() { nsysjax-fold -H "$F/hlo.tsv" -M "$W/module.tsv" "$@" "$W/sums.tsv"; }
fold -b source -S "$F/stackframes.tsv" -u "$unit" > "$W/source"
fold -b op_name -u "$unit" > "$W/op_name"
fold -b opcode > "$W/opcodes"
cp "$W/source" "$OUT/source.folded"
cp "$W/op_name" "$OUT/op_name.folded"
cp "$W/opcodes" "$OUT/opcodes.tsv"

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
# deterministic with --hash too.
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
"$svg" --hash --countname="$unit" --width=1250 --title='Source code flamegraph' \
	"$OUT/source.folded" > "$W/source.svg"
"$svg" --hash --countname="$unit" --width=1250 --title='op_name flamegraph' \
	"$OUT/op_name.folded" > "$W/op_name.svg"
cp "$W/source.svg" "$W/op_name.svg" "$OUT/"
