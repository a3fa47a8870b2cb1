#!/bin/sh
# The reference notebook's flame graphs of the steady state: folded stacks
# by Python source line and by op_name (nsysjax-fold, integer counts), of
# the whole run (with its idle time) and of each top module alone,
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
steady_out "$@"
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
# One flame graph per top module (the notebook's per-module view): its
# own thunks alone, without -M, so without the idle roots that fill the
# whole-run graph; named by the ProgramId's first 12 characters, listed
# in modules.tsv (ProgramId, Name, ProjDurMs, File: the name before
# .source.folded and .op_name.folded).
top_modules "$W/module.tsv" > "$W/top"
printf 'ProgramId\tName\tProjDurMs\tFile\n' > "$W/modules"
while IFS= read -r id; do
	[ -n "$id" ] || continue
	f=module-$(printf '%.12s' "$id")
	awk -F'\t' -v id="$id" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProgramId") c = i; print; next } $c == id' \
	    "$W/sums.tsv" > "$W/sums-$f.tsv"
	nsysjax-fold -H "$F/hlo.tsv" -b source -S "$F/stackframes.tsv" -u "$unit" "$W/sums-$f.tsv" > "$W/$f.source"
	nsysjax-fold -H "$F/hlo.tsv" -b op_name -u "$unit" "$W/sums-$f.tsv" > "$W/$f.op_name"
	cp "$W/$f.source" "$OUT/$f.source.folded"
	cp "$W/$f.op_name" "$OUT/$f.op_name.folded"
	awk -F'\t' -v id="$id" -v f="$f" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["ProgramId"] == id { n = $c["Name"]; t += $c["ProjDurMs"] } END { printf "%s\t%s\t%.6f\t%s\n", id, n, t, f }' \
	    "$W/module.tsv" >> "$W/modules"
done < "$W/top"
cp "$W/modules" "$OUT/modules.tsv"

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
tail -n +2 "$OUT/modules.tsv" | while IFS="$TAB" read -r id name ms f; do
	for k in source op_name; do
		"$svg" --hash --countname="$unit" --width=1250 --title="$name ($(printf '%.12s' "$id")): $k, steady state" \
		    "$OUT/$f.$k.folded" > "$W/$f.$k.svg"
		cp "$W/$f.$k.svg" "$OUT/"
	done
done
