#!/bin/sh
# What changed between two runs: both runs end to end (frames, clocks
# aligned, steady state), then nsysjax-diff's tables (thunks, modules,
# op_names; command buffers paired with the thunks they replaced), the
# differential flame graph (nsysjax-fold --diff; an SVG
# when flamegraph.pl is on PATH) and an HTML section (a fragment for a
# larger report, and a page of its own).  Exit 3 when the gate (-t)
# finds a regression, else 4 when it could not have (too few executions
# for a test to be significant: nsysjax-diff's "no power"), after
# writing everything.  See doc/pipelines.md,
# "diff.sh".
set -eu
USAGE='pipelines/diff.sh -o dir [-B] [-n] [-p level] [-t percent] before_input ... -- after_input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

gate='' alpha='' norm='' bar=''
# -t is the gate here, not common_opt's table
while getopts o:Bnp:t:h opt; do
	case $opt in
	n) norm=-n ;;
	# -B: barriers counted in the totals and the gate (nsysjax-diff -B)
	B) bar=-B ;;
	p) number "$OPTARG" -p; alpha=$OPTARG ;;
	t) number "$OPTARG" -t; gate=$OPTARG ;;
	*) common_opt "$opt" "${OPTARG:-}" || bad_usage ;;
	esac
done
# getopts takes a "--" right after the options as their end: then the
# run before has no input.
if [ "$OPTIND" -gt 1 ] && eval "[ \"\${$((OPTIND - 1))}\" = -- ]"; then
	bad_usage "no input of the run before"
fi
shift $((OPTIND - 1))
[ -n "$OUT" ] || bad_usage "no output directory (-o)"

# The inputs of each run, apart (quoted for eval, so that any name
# survives): BEFORE's up to "--", AFTER's after it.
quote() { printf "'%s' " "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
before='' after='' nb=0 na=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	before="$before$(quote "$1")"; nb=$((nb + 1)); shift
done
[ $# -gt 0 ] || bad_usage "no '--' between the runs' inputs"
shift
while [ $# -gt 0 ]; do
	after="$after$(quote "$1")"; na=$((na + 1)); shift
done
[ "$nb" -gt 0 ] || bad_usage "no input of the run before"
[ "$na" -gt 0 ] || bad_usage "no input of the run after"
make_out "$OUT"

# run SIDE INPUT...: the frames of one run in $W/SIDE (or the directory
# given), its steady thunk and module frames in $W/SIDE.steady_*.tsv.
run() {
	side=$1
	shift
	frames "$@"
	if [ "$F" = "$W/frames" ]; then
		mv "$W/frames" "$W/$side"
		F=$W/$side
	fi
	steady thunk module
	mv "$W/thunk.tsv" "$W/$side.steady_thunk.tsv"
	mv "$W/module.tsv" "$W/$side.steady_module.tsv"
	eval "F_$side=\$F"
}
eval "run before $before"
eval "run after $after"
B=$F_before A=$F_after

# The tables; the gate is read from the thunk table's run.  What each
# run's command buffers hold (cmdbufs.tsv, when its extraction wrote
# one) pairs a buffer with the thunks it replaced.
opts=$bar
[ -z "$alpha" ] || opts="$opts -p $alpha"
[ ! -f "$B/cmdbufs.tsv" ] || opts="$opts -b $(quote "$B/cmdbufs.tsv")"
[ ! -f "$A/cmdbufs.tsv" ] || opts="$opts -a $(quote "$A/cmdbufs.tsv")"
rc=0
eval "nsysjax-diff $opts ${gate:+-t \"\$gate\"} -P \"\$W/cmdbuf-pairs.tsv\" \
	-b \"\$B/module.tsv\" -a \"\$A/module.tsv\" \
	\"\$W/before.steady_thunk.tsv\" \"\$W/after.steady_thunk.tsv\" \
	> \"\$W/thunks.tsv\" 2> \"\$W/report.txt\"" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || { cat "$W/report.txt" >&2; exit 1; }
eval "nsysjax-diff -q -s $opts -b \"\$B/module.tsv\" -a \"\$A/module.tsv\" \
	\"\$W/before.steady_thunk.tsv\" \"\$W/after.steady_thunk.tsv\" > \"\$W/modules.tsv\""
eval "nsysjax-diff -q -k op_name $opts -b \"\$B/module.tsv\" -a \"\$A/module.tsv\" \
	-b \"\$B/hlo.tsv\" -a \"\$A/hlo.tsv\" \
	\"\$W/before.steady_thunk.tsv\" \"\$W/after.steady_thunk.tsv\" > \"\$W/op_names.tsv\""
cp "$W/thunks.tsv" "$OUT/thunks.tsv"
cp "$W/modules.tsv" "$OUT/modules.tsv"
cp "$W/op_names.tsv" "$OUT/op_names.tsv"
cp "$W/cmdbuf-pairs.tsv" "$OUT/cmdbuf-pairs.tsv"
cp "$W/report.txt" "$OUT/report.txt"
cat "$W/report.txt"

# The differential flame graph by source line: each run folded as
# flamegraphs.sh does, then merged.
for side in before after; do
	eval "S=\$F_$side"
	nsysjax-fold -b source -H "$S/hlo.tsv" -S "$S/stackframes.tsv" \
		-M "$W/$side.steady_module.tsv" "$W/$side.steady_thunk.tsv" > "$W/$side.folded"
	cp "$W/$side.folded" "$OUT/$side.folded"
done
nsysjax-fold -d $norm "$W/before.folded" "$W/after.folded" > "$W/diff.folded"
cp "$W/diff.folded" "$OUT/diff.folded"
svg=''
if command -v flamegraph.pl > /dev/null; then
	# --hash and a fixed hash seed: the same input draws the same bytes
	PERL_HASH_SEED=0 flamegraph.pl --hash --countname=us --width=1250 \
		--title='Differential flame graph: after vs before (red: slower)' \
		"$W/diff.folded" > "$W/diff.svg"
	cp "$W/diff.svg" "$OUT/diff.svg"
	svg=$W/diff.svg
else
	echo "$PROG: flamegraph.pl not on PATH: no diff.svg" >&2
fi

# The HTML section (a fragment to include in a report) and its page.
if [ -n "$svg" ]; then
	base64 < "$svg" | tr -d '\n' > "$W/svg.b64"
else
	: > "$W/svg.b64"
fi
awk -v gate="$gate" -v rc="$rc" -f "$LIB/tsv.awk" -f "$LIB/diff-html.awk" \
	"$W/modules.tsv" "$W/thunks.tsv" "$W/op_names.tsv" "$W/report.txt" "$W/svg.b64" \
	> "$W/diff-section.html"
cp "$W/diff-section.html" "$OUT/diff-section.html"
{
	printf '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
	# as report.html: nothing may load but inline styles and data: images
	printf '%s\n' "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
	printf '<title>nsysjax: what changed between two runs</title>\n</head>\n<body>\n'
	cat "$W/diff-section.html"
	printf '</body>\n</html>\n'
} > "$W/diff.html"
cp "$W/diff.html" "$OUT/diff.html"
# Exits 3 and 4 are the gate's verdicts, not failures: the output stays.
out_complete
exit "$rc"
