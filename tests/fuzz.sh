#!/bin/sh
# make fuzz: run each libFuzzer target of FUZZDIR (default build-fuzz/fuzz)
# for FUZZTIME seconds (default 60) on a copy of tests/corpus/TARGET in a
# temporary directory, which keeps what libFuzzer finds: new inputs in
# corpus/TARGET, crashes, leaks and timeouts as TARGET-crash-*, ...
# Arguments name the targets (default: all).  Prints one line per target
# (executions, corpus size, findings); exit 1 if anything was found.
# tests/corpus itself is never written: add a minimised reproducer to it
# by hand once its bug is fixed.  Every target runs with
# -malloc_limit_mb=1024: no single allocation may exceed 1 GiB, whatever
# a decoder's input claims (parquet's budget is 256 MiB).
set -u
: "${FUZZDIR:=build-fuzz/fuzz}" "${FUZZTIME:=60}"
W=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-fuzz.XXXXXX")
[ $# -gt 0 ] || set -- $(cd tests/corpus && ls)
found=0
for t in "$@"; do
	mkdir -p "$W/corpus/$t" "$W/tmp"
	cp tests/corpus/"$t"/* "$W/corpus/$t/" 2>/dev/null
	# The targets' temporary files stay in $W even when a run crashes.
	TMPDIR=$W/tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    "$FUZZDIR/$t" -max_total_time="$FUZZTIME" -timeout=30 \
	    -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
	    -artifact_prefix="$W/$t-" "$W/corpus/$t" >"$W/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/$t.log")
	# Artifacts, and sanitizer reports that did not stop the run.
	n=$(($(ls "$W" | grep -c "^$t-") + $(grep -c 'runtime error' "$W/$t.log")))
	printf '%s: %s executions in %ss, corpus %s files, %s findings (exit %s)\n' \
	    "$t" "${execs:-?}" "$FUZZTIME" "$(ls "$W/corpus/$t" | wc -l)" "$n" "$rc"
	if [ "$n" -gt 0 ] || [ "$rc" -ne 0 ]; then
		found=1
		grep -m 3 'ERROR\|SUMMARY\|runtime error' "$W/$t.log" | sed 's/^/  /'
	fi
done
if [ $found -ne 0 ]; then
	echo "findings and logs in $W"
	exit 1
fi
rm -rf "$W"
