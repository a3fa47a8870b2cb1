#!/bin/sh
# tests/fake/flamegraph.pl, the stand-in of Brendan Gregg's renderer
# that the report suites use, against the real one (when the shared
# tools hold it: CDDL, never copied here): given the same folded stacks,
# the stand-in writes every kind of element and every hazard that a page
# inlining the SVG must deal with (prolog, doctype, comment, style sheet,
# script, CDATA, on* handlers, ids, url(#id)), and draws every frame.
set -u
. tests/lib.sh
FAKE=tests/fake/flamegraph.pl
REAL=${NSYSJAX_FLAMEGRAPH:-$SHARED/tools/flamegraph/flamegraph.pl}

printf 'main;step;matmul 30\nmain;step;all-reduce 12\nmain;step 5\nmain;io 7\n' > "$T/in.folded"

# signature SVG: one line per element name ("tag NAME"), per attribute
# handler ("on NAME") and per hazard ("has KIND").
signature() {
	{
		grep -o -E '<[a-zA-Z][a-zA-Z0-9]*' "$1" | sed 's/^</tag /'
		grep -o -i -E '[[:space:]]on[a-z]+[[:space:]]*=' "$1" | tr -d ' \t=' | sed 's/^/on /'
		grep -q '^<?xml' "$1" && echo 'has prolog'
		grep -q '<!DOCTYPE' "$1" && echo 'has doctype'
		grep -q '<!--' "$1" && echo 'has comment'
		grep -q '<!\[CDATA\[' "$1" && echo 'has cdata'
		grep -q -E '[[:space:]]id="' "$1" && echo 'has id'
		grep -q 'url(#' "$1" && echo 'has url-ref'
		grep -q -E 'https?://[a-z]' "$1" && echo 'has address'
	} | sort -u
}

perl "$FAKE" --hash --title=t "$T/in.folded" > "$T/fake.svg" 2> "$T/err" && ok || notok "stand-in: $(cat "$T/err")"
for f in main step matmul all-reduce io; do
	grep -q ">$f<" "$T/fake.svg" && ok || notok "the stand-in drew no frame $f"
done
if [ -f "$REAL" ]; then
	perl "$REAL" --hash --title=t "$T/in.folded" > "$T/real.svg" 2> "$T/err" && ok || notok "flamegraph.pl: $(cat "$T/err")"
	for f in main step matmul all-reduce io; do
		grep -q ">$f<" "$T/real.svg" && ok || notok "flamegraph.pl drew no frame $f"
	done
	signature "$T/real.svg" > "$T/real.sig"
	signature "$T/fake.svg" > "$T/fake.sig"
	comm -23 "$T/real.sig" "$T/fake.sig" > "$T/missing"
	[ -s "$T/real.sig" ] && [ ! -s "$T/missing" ] && ok ||
		notok "the stand-in lacks what flamegraph.pl writes: $(tr '\n' ',' < "$T/missing")"
else
	skip "no flamegraph.pl at $REAL"
fi
done_testing t89-standin
