#!/bin/sh
# The layering check of lib/ (tests/layers.sh): on the tree, on a copy
# with one upward include planted, which it must name, and on one with
# two files of a folder that call each other.
. tests/lib.sh
if sh tests/layers.sh >"$T/out" 2>&1; then ok; else notok "layering rule broken:"; sed 's/^/  /' "$T/out"; fi
mkdir -p "$T/tree/lib/base" "$T/tree/lib/profile" "$T/tree/cmd"
printf '#include "base/err.h"\n' >"$T/tree/lib/profile/a.c"
printf '#include <stdio.h>\n#include "profile/a.h"\n' >"$T/tree/lib/base/b.c"
if sh tests/layers.sh "$T/tree" >"$T/out" 2>&1; then notok "upward include not found"
elif grep -q '^lib/base/b.c:2: includes "profile/a.h": profile is above base$' "$T/out"; then ok
else notok "upward include message"; cat "$T/out"; fi
# Two files of one folder that call each other; names in comments,
# strings and static functions do not count, nor a call between folders.
mkdir -p "$T/circle/lib/profile" "$T/circle/lib/base" "$T/circle/cmd"
cat >"$T/circle/lib/profile/a.c" <<'EOF'
int
a_open(void)
{
	return b_read() + base_x();	/* b_write( in a comment */
}
EOF
cat >"$T/circle/lib/profile/b.c" <<'EOF'
static int
a_close(void)
{
	return 0;
}

int
b_read(void)
{
	return a_close();
}

int
b_write(void)
{
	puts("a_open(");
	return a_open();
}
EOF
cat >"$T/circle/lib/base/x.c" <<'EOF'
int
base_x(void)
{
	return a_open();
}
EOF
if sh tests/layers.sh "$T/circle" >"$T/out" 2>&1; then notok "circle not found"
elif [ "$(cat "$T/out")" = "lib/profile/a.c and lib/profile/b.c call each other (lib/profile/a.c calls b_read, lib/profile/b.c calls a_open)" ]; then ok
else notok "circle message"; cat "$T/out"; fi
# Without the call back, no circle.
sed -i 's/return a_open();/return 1;/' "$T/circle/lib/profile/b.c"
if sh tests/layers.sh "$T/circle" >"$T/out" 2>&1; then ok; else notok "a one-way call taken for a circle"; cat "$T/out"; fi
done_testing t01-layers
