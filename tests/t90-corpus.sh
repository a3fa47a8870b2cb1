#!/bin/sh
# Replays every fuzz corpus (tests/corpus/TARGET, seeds and the
# reproducers of every crash found) through its target built with the
# normal compiler: FUZZDIR/TARGET (tests/fuzz/replay.c).  Under the
# sanitizer build of make check this catches any finding that returns.
set -u
. tests/lib.sh
: "${FUZZDIR:=build/fuzz}"
for d in tests/corpus/*/; do
	t=$(basename "$d")
	if [ ! -x "$FUZZDIR/$t" ]; then
		notok "corpus $t: no program $FUZZDIR/$t"
		continue
	fi
	check "corpus $t" "$FUZZDIR/$t" "$d"
done
done_testing t90-corpus
