#!/bin/sh
# The layering check of lib/ (tests/layers.sh): on the tree, and on a
# copy with one upward include planted, which it must name.
. tests/lib.sh
if sh tests/layers.sh >"$T/out" 2>&1; then ok; else notok "layering rule broken:"; sed 's/^/  /' "$T/out"; fi
mkdir -p "$T/tree/lib/base" "$T/tree/lib/profile" "$T/tree/cmd"
printf '#include "base/err.h"\n' >"$T/tree/lib/profile/a.c"
printf '#include <stdio.h>\n#include "profile/a.h"\n' >"$T/tree/lib/base/b.c"
if sh tests/layers.sh "$T/tree" >"$T/out" 2>&1; then notok "upward include not found"
elif grep -q '^lib/base/b.c:2: includes "profile/a.h": profile is above base$' "$T/out"; then ok
else notok "upward include message"; cat "$T/out"; fi
done_testing t01-layers
