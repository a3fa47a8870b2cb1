#!/bin/sh
# nsysjax-fold --prune: folded stacks cut to what flamegraph.pl draws.  On
# a generated file of many stacks too narrow to draw (deep chains, leaves
# under wide frames, roots, names that sort between a frame and its
# children: x_layers_1 and x_layers_10, names with spaces), the real
# flamegraph.pl draws the same rectangles from the pruned lines as from
# the whole file (names, counts, percentages and depths; widths to its
# 0.1-pixel rounding of the x positions, which move inside their parent),
# the pruned file has a small share of the lines and the same total, and
# lines the pruning does not model are copied whole.
set -u
. tests/lib.sh
F=$BIN/nsysjax-fold
FG=$SHARED/tools/flamegraph/flamegraph.pl

# A folded file: wide frames (counts of 10^5) with narrow leaves (1-40)
# and narrow chains (depth up to 12) under them, and narrow roots.
awk 'BEGIN {
	srand(7); wide = 100000
	split("x_layers_1 x_layers_10 x_layers_11 x_layers_2 x_layers_1(a) x_layers_1.b", L, " ")
	for (l = 1; l <= 6; l++) {
		p = "[GPU active];jit(main);transformer;" L[l]
		print p " " wide
		print p ";ff_layer;dot_general[dimension_numbers=(((2,), (0,)), ((), ())) precision=None] " 3 * wide
		for (k = 0; k < 1500; k++) {
			s = p; d = 1 + int(rand() * 12)
			for (j = 0; j < d; j++) s = s ";op" int(rand() * 400) (rand() < 0.2 ? "[shape=(3, 12)]" : "")
			print s " " (1 + int(rand() * 40))
		}
		# a frame both drawn and with narrow children only
		for (k = 0; k < 400; k++) print p ";layer_norm;add" k " " (1 + int(rand() * 3))
	}
	for (k = 0; k < 2000; k++) print "tiny_root_" k ";x;y " (1 + int(rand() * 5))
	print "[GPU idle] " 20 * wide
}' | LC_ALL=C sort > "$T/in.folded"
cp "$T/in.folded" "$T/keep.folded"
nin=$(wc -l < "$T/in.folded")

# frames SVG: a line per rectangle: its title (name, count, share), y
# and width.
frames() {
	awk '/<title>/ { t = $0; sub(/.*<title>/, "", t); sub(/<\/title>.*/, "", t) }
	/<rect x=/ && t != "" { y = $0; sub(/.* y="/, "", y); sub(/".*/, "", y)
		w = $0; sub(/.* width="/, "", w); sub(/".*/, "", w); print t "\t" y "\t" w; t = "" }' "$1" | LC_ALL=C sort
}
# same_frames A B: the same titles and depths, widths within 0.1 pixel.
same_frames() {
	frames "$1" > "$T/fa"; frames "$2" > "$T/fb"
	[ -s "$T/fa" ] || { echo "no rectangles in $1"; return 1; }
	paste "$T/fa" "$T/fb" | awk -F'\t' '
	$1 != $4 || $2 != $5 { print "differs: " $1 " y " $2 " | " $4 " y " $5; bad++ }
	{ d = $3 - $6; if (d < 0) d = -d; if (d > 0.1001) { print "width " $3 " vs " $6 ": " $1; bad++ } }
	END { exit bad > 0 }' && [ "$(wc -l < "$T/fa")" -eq "$(wc -l < "$T/fb")" ]
}

# prune_case NAME FG-OPTIONS -- PRUNE-OPTIONS
prune_case() {
	name=$1; fgo=$2; po=$3
	# shellcheck disable=SC2086 # the options
	if ! "$F" -P $po "$T/in.folded" > "$T/p.folded" 2> "$T/err"; then
		notok "$name: --prune failed"; sed 's/^/  /' "$T/err"; return
	fi
	if cmp -s "$T/in.folded" "$T/keep.folded"; then ok; else notok "$name: the input changed"; fi
	nout=$(wc -l < "$T/p.folded")
	if [ "$nout" -gt 0 ] && [ "$((nout * 20))" -le "$nin" ]; then ok; else
		notok "$name: $nout of $nin lines kept (want at most a twentieth)"; fi
	if [ "$(awk '{ s += $NF } END { print s }' "$T/in.folded")" = \
	    "$(awk '{ s += $NF } END { print s }' "$T/p.folded")" ]; then ok; else notok "$name: the total changed"; fi
	if [ -f "$FG" ] && need perl; then
		# shellcheck disable=SC2086
		PERL_HASH_SEED=0 perl "$FG" --hash $fgo "$T/in.folded" > "$T/a.svg" 2> /dev/null
		# shellcheck disable=SC2086
		PERL_HASH_SEED=0 perl "$FG" --hash $fgo "$T/p.folded" > "$T/b.svg" 2> /dev/null
		if same_frames "$T/a.svg" "$T/b.svg" > "$T/d" 2>&1; then ok; else
			notok "$name: other rectangles from the pruned lines"; head -5 "$T/d" | sed 's/^/  /'; fi
	else
		skip "$name: flamegraph.pl not at $FG"
	fi
}
prune_case "defaults (1200 px, 0.1 px)" "" ""
prune_case "the report's width" "--width=1250" "-w 1250"
prune_case "a percentage" "--minwidth=0.5%" "-m 0.5%"

# A narrow root's time stays in the total: the line of the empty stack.
"$F" -P "$T/in.folded" > "$T/p.folded" 2> /dev/null
if grep -q '^ [0-9][0-9]*$' "$T/p.folded" && ! grep -q '^tiny_root_' "$T/p.folded"; then ok; else
	notok "narrow roots not merged into the empty stack"; fi
# From stdin, unsorted: the same lines.
sort -r "$T/in.folded" | "$F" -P > "$T/q.folded" 2> /dev/null
if cmp -s "$T/p.folded" "$T/q.folded"; then ok; else notok "unsorted input from stdin prunes otherwise"; fi

# Lines it does not model are copied whole: a differential line, a
# fractional count, a line flamegraph.pl ignores.
printf 'a;b 10\na;b;c 1 2\n' > "$T/diff.folded"
printf 'a;b 10\na;b;c 0.5\n' > "$T/frac.folded"
printf 'a;b 10\na;b;c\n' > "$T/bad.folded"
for f in diff frac bad; do
	if "$F" -P "$T/$f.folded" > "$T/o.folded" 2> /dev/null && cmp -s "$T/$f.folded" "$T/o.folded"; then ok; else
		notok "$f: not copied whole"; fi
done
expect_error 1 "missing.folded" "$F" -P "$T/missing.folded"
expect_error 2 "--width" "$F" -P -w 5 "$T/in.folded"
expect_error 2 "--minwidth" "$F" -P -m x "$T/in.folded"
done_testing t51-prune
