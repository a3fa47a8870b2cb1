#!/bin/sh
# Runs every test suite: unit tests of lib/ (tests/unit), then the shell
# suites tests/t*.sh.  Environment: BIN (directory of the built tools),
# UNITDIR (directory of the built unit tests), SHARED (default ../shared).
# Prints one "N passed, N failed, N skipped" total line; exit 1 on failure.
set -u
: "${BIN:=build/bin}" "${UNITDIR:=build/tests}" "${SHARED:=../shared}"
export BIN SHARED
pass=0 fail=0 skip=0
tally() {
	# Reads "... N passed, N failed[, N skipped]" lines from a suite.
	p=$(printf '%s\n' "$1" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$1" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p' | tail -n 1)
	s=$(printf '%s\n' "$1" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p' | tail -n 1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ "$2" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then fail=$((fail + 1)); fi
}
for t in "$UNITDIR"/*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	tally "$out" $rc
done
for t in tests/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	out=$(sh "$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	tally "$out" $rc
done
echo "total: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
