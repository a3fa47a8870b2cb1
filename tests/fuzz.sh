#!/bin/sh
# make fuzz: run each libFuzzer target of FUZZDIR (default build-fuzz/fuzz)
# for FUZZTIME seconds (default 60) on a copy of tests/corpus/TARGET in a
# temporary directory, which keeps what libFuzzer finds: new inputs in
# corpus/TARGET, crashes, leaks, timeouts and running out of memory as
# TARGET-crash-*, -leak-*, -timeout-*, -oom-*.
#
# Fork mode (-fork=1 -ignore_crashes=1 -ignore_timeouts=1
# -ignore_ooms=1): a finding does not end the run, so one shallow bug
# cannot hide a deeper one behind it.  Each artifact is then replayed
# alone and named by its kind (the sanitizer's error, runtime error,
# timeout, out of memory, leak) and the first frame of the tree's code
# in its report; artifacts with one name are one finding.  An input
# that takes longer than FUZZTIMEOUT seconds (default 10) is a timeout,
# a finding like any other.
#
# Arguments name the targets (default: all).  Prints one line per target
# (executions, corpus size, artifacts, distinct findings), then each
# finding with its count and one artifact; exit 1 if anything was found.
# tests/corpus itself is never written: add a minimised reproducer to it
# by hand once its bug is fixed.  Every target runs with
# -malloc_limit_mb=1024: no single allocation may exceed 1 GiB, whatever
# a decoder's input claims (parquet's budget is 256 MiB).
set -u
: "${FUZZDIR:=build-fuzz/fuzz}" "${FUZZTIME:=60}" "${FUZZTIMEOUT:=10}"
W=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-fuzz.XXXXXX")
[ $# -gt 0 ] || set -- $(cd tests/corpus && ls)
LIMITS="-rss_limit_mb=2048 -malloc_limit_mb=1024"

# run SECONDS TARGET ARG...: the target with the sanitizers' options,
# its temporary files in $W (kept there even when a run crashes), killed
# after SECONDS.
run() {
	_s=$1 _t=$2; shift 2
	# shellcheck disable=SC2086
	TMPDIR=$W/tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    timeout "$_s" "$FUZZDIR/$_t" $LIMITS -timeout="$FUZZTIMEOUT" "$@"
}

# name REPORT: "KIND at FUNC FILE:LINE", the kind of the first error in
# the report and the first frame in the tree's code (lib/, cmd/,
# tests/fuzz/; the runtime error's own location for UBSan).
name() {
	awk '
	function tree(s) { sub(/:[0-9]+:?$/, "", s); return match(s, /(lib|cmd|tests)\//) ? substr(s, RSTART) : s }
	kind == "" && /runtime error:/ {
		at = tree($1); m = $0; sub(/.*runtime error: /, "", m)
		gsub(/[-+]?[0-9][0-9.e+]*/, "N", m)	# the values vary, not the error
		kind = "runtime error: " m
	}
	kind == "" && /ERROR: AddressSanitizer: / { kind = $0; sub(/.*AddressSanitizer: /, "", kind); sub(/ on .*/, "", kind) }
	kind == "" && /ERROR: LeakSanitizer/ { kind = "leak" }
	kind == "" && /ERROR: libFuzzer: timeout/ { kind = "timeout" }
	kind == "" && /ERROR: libFuzzer: out-of-memory/ { kind = "out of memory" }
	kind == "" && /ERROR: libFuzzer: deadly signal/ { kind = "deadly signal" }
	kind != "" && at == "" && /^ *#[0-9]+ 0x[0-9a-f]+ in / && $NF ~ /\/(lib|cmd|tests\/fuzz)\// { at = $4 " " tree($NF) }
	END { if (kind == "") kind = "did not reproduce"; print kind " at " (at == "" ? "?" : at) }' "$1"
}

found=0
for t in "$@"; do
	mkdir -p "$W/corpus/$t" "$W/tmp"
	cp tests/corpus/"$t"/* "$W/corpus/$t/" 2>/dev/null
	run $((FUZZTIME + 3 * FUZZTIMEOUT + 60)) "$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
	    -max_total_time="$FUZZTIME" -artifact_prefix="$W/$t-" \
	    "$W/corpus/$t" > "$W/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$W/$t.log" | tail -n 1)
	: > "$W/$t.names"
	na=0
	for a in "$W/$t"-crash-* "$W/$t"-leak-* "$W/$t"-timeout-* "$W/$t"-oom-*; do
		[ -f "$a" ] || continue
		na=$((na + 1))
		run $((3 * FUZZTIMEOUT + 30)) "$t" "$a" > "$a.report" 2>&1
		printf '%s\t%s\n' "$(name "$a.report")" "$a" >> "$W/$t.names"
	done
	n=$(cut -f 1 "$W/$t.names" | sort -u | wc -l)
	printf '%s: %s executions in %ss, corpus %s files, %s artifacts, %s distinct findings (exit %s)\n' \
	    "$t" "${execs:-?}" "$FUZZTIME" "$(ls "$W/corpus/$t" | wc -l)" "$na" "$n" "$rc"
	sort "$W/$t.names" | awk -F'\t' '
	    $1 != last { if (last != "") printf "  %s (%d inputs, e.g. %s)\n", last, k, eg; last = $1; k = 0; eg = $2 }
	    { k++ }
	    END { if (last != "") printf "  %s (%d inputs, e.g. %s)\n", last, k, eg }'
	if [ "$n" -gt 0 ] || [ "$rc" -ne 0 ]; then
		found=1
		[ "$n" -gt 0 ] || tail -n 5 "$W/$t.log" | sed 's/^/  /'
	fi
done
if [ $found -ne 0 ]; then
	echo "findings, their reports (ARTIFACT.report) and logs in $W"
	exit 1
fi
rm -rf "$W"
