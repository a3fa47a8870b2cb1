#!/bin/sh
# The layering rule of lib/ (lib/README.md): base < formats < profile <
# analysis < cmd.  A file may include headers of its own layer or of a
# lower one; analysis/ may include only base/ (rows in, rows out: it
# never decodes a file format nor opens a profile).  Reads every
# `#include "DIR/x.h"` of lib/ and cmd/ and prints FILE:LINE: what for
# each one that breaks the rule.  Then no two files of one folder may
# call each other (tests/calls.awk): a part that is called does not call
# back into its caller; it gets a module of its own, or the dependency
# is inverted.  Usage: sh tests/layers.sh [ROOT] (default .); exit 1
# when any include or call breaks a rule.
calls=$(cd "$(dirname "$0")" && pwd)/calls.awk
cd "${1:-.}" || exit 2
bad=0
find lib cmd -name '*.[ch]' | LC_ALL=C sort | xargs awk '
BEGIN {
	rank["base"] = 0; rank["formats"] = 1; rank["profile"] = 2
	rank["analysis"] = 3; rank["cmd"] = 4; bad = 0
}
FNR == 1 {
	n = split(FILENAME, p, "/")
	layer = (p[1] == "cmd") ? "cmd" : p[2]
	if (!(layer in rank)) {
		printf "%s: not in a layer folder of lib/\n", FILENAME; bad = 1
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	if (inc !~ /\//) next		# generated or local header (hlo.pb-c.h)
	to = inc; sub(/\/.*/, "", to)
	if (!(to in rank)) {
		printf "%s:%d: includes \"%s\": no such layer\n", FILENAME, FNR, inc; bad = 1
	} else if (rank[to] > rank[layer]) {
		printf "%s:%d: includes \"%s\": %s is above %s\n", FILENAME, FNR, inc, to, layer; bad = 1
	} else if (layer == "analysis" && to != "analysis" && to != "base") {
		printf "%s:%d: includes \"%s\": analysis/ uses only base/ (it never opens a profile)\n", FILENAME, FNR, inc; bad = 1
	}
}
END { exit bad }' || bad=1
out=$(find lib cmd -name '*.c' | LC_ALL=C sort | xargs awk -f "$calls") || bad=1
if [ -n "$out" ]; then
	printf '%s\n' "$out" | LC_ALL=C sort
	bad=1
fi
exit "$bad"
