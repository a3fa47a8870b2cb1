#!/bin/sh
# Output directories shared by runs at once, as the jobs of a Slurm array
# or a CI matrix write them (report.sh -o results/jobN): a run that fails
# or is interrupted removes what it wrote itself (its private directory
# beside -o) and the directories it made above -o only when they are
# empty: never another run's output written there meanwhile.  Then two
# reports into one -o (the lock of the replace step).
set -u
. tests/lib.sh
R=pipelines/report.sh
export NSYSJAX_BIN=$BIN
EX=${EXAMPLE:-build/example/profile}
[ -d "$EX/rank0" ] || { notok "no $EX (make example)"; done_testing t83-outdirs; exit 1; }
EXA=$(cd "$EX" && pwd)

# A stand-in nsysjax-extract ($T/hold/nsysjax-extract, every other tool
# the build's) that says it started (HOLD.started), then waits for
# HOLD.go and fails: a run held in its extraction, as a long one is,
# until the others have finished, then failing as a bad input makes it.
mkdir "$T/hold"
for t in "$BIN"/*; do ln -s "$(cd "${t%/*}" && pwd)/${t##*/}" "$T/hold/${t##*/}"; done
rm "$T/hold/nsysjax-extract"
cat > "$T/hold/nsysjax-extract" <<'EOF'
#!/bin/sh
: > "$HOLD.started"
n=0
while [ ! -e "$HOLD.go" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
echo "nsysjax-extract: held, then failed" >&2
exit 1
EOF
chmod +x "$T/hold/nsysjax-extract"
# held NAME CMD...: CMD in the background with the stand-in, HOLD=$T/NAME;
# its pid in HELD once it is in its extraction.
held() {
	_h=$T/$1
	shift
	HOLD=$_h NSYSJAX_BIN=$T/hold "$@" > /dev/null 2> "$_h.err" &
	HELD=$!
	_n=0
	while [ ! -e "$_h.started" ] && [ $_n -lt 600 ]; do sleep 0.05; _n=$((_n + 1)); done
}
# hidden DIR: the names of DIR's hidden entries (a run's leftovers).
hidden() { ls -A "$1" 2> /dev/null | grep '^\.' | tr '\n' ' '; }

# 1. A, into runs/a, makes runs/ and is held; B writes runs/b whole; A
# fails.  B's report stays, A leaves nothing, runs/ stays (not empty).
held a sh $R -q -o "$T/runs/a" "$EX/rank0" "$EX/rank1"
A=$HELD
[ -e "$T/a.started" ] && [ -d "$T/runs" ] && ok || notok "report A never reached its extraction: $(cat "$T/a.err")"
sh $R -q -o "$T/runs/b" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/b.err" && [ -f "$T/runs/b/report.txt" ] && ok ||
	notok "report B: $(cat "$T/b.err")"
: > "$T/a.go"
wait $A; rc=$?
[ $rc -eq 1 ] && grep -q 'extract failed' "$T/a.err" && ok || notok "report A: exit $rc, want 1: $(cat "$T/a.err")"
[ -f "$T/runs/b/report.txt" ] && [ -f "$T/runs/b/report.html" ] && ok || notok "a failed report removed another's, beside it"
[ ! -e "$T/runs/a" ] && [ -z "$(hidden "$T/runs")" ] && ok || notok "the failed report left $(ls -A "$T/runs")"

# 2. The same, A interrupted (SIGTERM to report.sh alone, a cancelled
# job) instead of failing.
rm -rf "$T/runs"
held a2 sh $R -q -o "$T/runs/a" "$EX/rank0" "$EX/rank1"
A=$HELD
sh $R -q -o "$T/runs/b" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/b.err" || notok "report B: $(cat "$T/b.err")"
kill -TERM $A
wait $A; rc=$?
: > "$T/a2.go"
[ $rc -eq 143 ] && ok || notok "report A, SIGTERM: exit $rc, want 143"
[ -f "$T/runs/b/report.txt" ] && ok || notok "an interrupted report removed another's, beside it"
[ ! -e "$T/runs/a" ] && [ -z "$(hidden "$T/runs")" ] && ok || notok "the interrupted report left $(ls -A "$T/runs")"

# 3. An array of four jobs at once into results/jobN, results/ new: job1
# starts first (it makes results/), is held and fails last; job3's input
# is no profile (it fails at once); job0 and job2 complete.
printf 'not a profile\n' > "$T/bad.txt"
held job1 sh $R -q -o "$T/results/job1" "$EX/rank0" "$EX/rank1"
J1=$HELD
sh $R -q -o "$T/results/job0" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/j0.err" & J0=$!
sh $R -q -o "$T/results/job2" "$EX/rank1" > /dev/null 2> "$T/j2.err" & J2=$!
sh $R -q -o "$T/results/job3" "$T/bad.txt" > /dev/null 2> "$T/j3.err" & J3=$!
wait $J0; r0=$?; wait $J2; r2=$?; wait $J3; r3=$?
: > "$T/job1.go"
wait $J1; r1=$?
[ $r0 -eq 0 ] && [ $r2 -eq 0 ] && [ $r1 -eq 1 ] && [ $r3 -eq 1 ] && ok ||
	notok "array: exits $r0 $r1 $r2 $r3, want 0 1 0 1: $(cat "$T/j0.err" "$T/j2.err")"
[ -f "$T/results/job0/report.txt" ] && [ -f "$T/results/job2/report.txt" ] && ok ||
	notok "array: the finished reports are gone: $(ls -A "$T/results" 2> /dev/null)"
[ "$(ls -A "$T/results" | tr '\n' ' ')" = "job0 job2 " ] && ok || notok "array: results/ holds $(ls -A "$T/results" | tr '\n' ' ')"

# 4. Alone, a failed report removes the directories it made, empty.
sh $R -q -o "$T/solo/x/y" "$T/bad.txt" > /dev/null 2>&1
[ ! -e "$T/solo" ] && ok || notok "a failed report left the directories it made: $(find "$T/solo")"
# ...but not one it made that another program filled meanwhile.
held solo2 sh $R -q -o "$T/solo2/x/y" "$EX/rank0"
A=$HELD
echo mine > "$T/solo2/user.txt"
: > "$T/solo2.go"
wait $A
[ -f "$T/solo2/user.txt" ] && [ ! -e "$T/solo2/x" ] && ok || notok "a failed report: solo2 holds $(find "$T/solo2" 2> /dev/null)"

# 5. The pipelines, writing into a new -o themselves: summary.sh A into
# sums/a (it makes sums/) held and failing, summary.sh B into sums/b.
held s sh pipelines/summary.sh -o "$T/sums/a" "$EX/rank0"
A=$HELD
sh pipelines/summary.sh -o "$T/sums/b" "$EX/rank0" > /dev/null 2> "$T/sb.err" && [ -f "$T/sums/b/modules.tsv" ] && ok ||
	notok "summary.sh B: $(cat "$T/sb.err")"
: > "$T/s.go"
wait $A; rc=$?
[ $rc -eq 1 ] && [ -f "$T/sums/b/modules.tsv" ] && ok || notok "summary.sh: a failed run (exit $rc) removed another's output beside it"
[ "$(ls -A "$T/sums" | tr '\n' ' ')" = "b " ] && ok || notok "summary.sh: sums/ holds $(ls -A "$T/sums" | tr '\n' ' ')"
# A pipeline's new -o is whole once it ends well, nothing hidden beside
# it; one that fails leaves none of it, nor the directories it made.
sh pipelines/summary.sh -o "$T/sums/c/d" "$EX/rank0" > /dev/null 2>&1 && [ -f "$T/sums/c/d/modules.tsv" ] &&
	[ -z "$(hidden "$T/sums/c")" ] && ok || notok "summary.sh into a new directory: $(ls -A "$T/sums/c")"
sh pipelines/summary.sh -o "$T/sums/e/f" "$T/bad.txt" > /dev/null 2>&1
[ $? -eq 1 ] && [ ! -e "$T/sums/e" ] && [ -z "$(hidden "$T/sums")" ] && ok || notok "summary.sh failing: left $(ls -A "$T/sums")"
# Given an existing directory, a pipeline writes into it in place, and a
# failure removes nothing there.
mkdir "$T/keep" && echo x > "$T/keep/other"
sh pipelines/summary.sh -o "$T/keep" "$T/bad.txt" > /dev/null 2>&1
[ -f "$T/keep/other" ] && [ -z "$(hidden "$T/keep")" ] && ok || notok "summary.sh into an existing directory, failing: $(ls -A "$T/keep")"
sh pipelines/summary.sh -o "$T/keep" "$EX/rank0" > /dev/null 2>&1 && [ -f "$T/keep/modules.tsv" ] && [ -f "$T/keep/other" ] && ok ||
	notok "summary.sh into an existing directory"
# diff.sh's verdicts (exit 3, 4) are no failures: its new -o stays.
sh pipelines/diff.sh -o "$T/dd/x" "$EX/rank0" -- "$EX/rank0" > /dev/null 2>&1; rc=$?
[ -f "$T/dd/x/diff.html" ] && [ -z "$(hidden "$T/dd")" ] && ok || notok "diff.sh into a new directory: exit $rc, $(ls -A "$T/dd" 2> /dev/null)"

# 6. Two reports into one -o, the first slow in its replace step (a
# sleep after the lock, in a copy of the pipelines): the second waits
# for the lock, then replaces the first whole; both exit 0, nothing
# nested, nothing hidden left.
cp -R pipelines "$T/pl"
awk '{ print } /^lock_final$/ { print "sleep 3" }' pipelines/report.sh > "$T/pl/report.sh"
if grep -q '^sleep 3$' "$T/pl/report.sh"; then
	sh "$T/pl/report.sh" -q -o "$T/one" "$EX/rank0" "$EX/rank1" > /dev/null 2> "$T/slow.err" & S=$!
	n=0
	while [ ! -d "$T/.one.lock" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	sh $R -q -o "$T/one" "$EX/rank1" > /dev/null 2> "$T/fast.err"; rf=$?
	wait $S; rs=$?
	[ $rf -eq 0 ] && [ $rs -eq 0 ] && ok || notok "two reports into one -o: exits $rs $rf: $(cat "$T/slow.err" "$T/fast.err")"
	# The second, of rank1 alone, is the one kept: one device.
	[ -f "$T/one/report.txt" ] && [ -z "$(hidden "$T/one")" ] && ! ls -A "$T" | grep -q '^\.one\.' &&
	    [ "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Device") c = i; next } { d[$c] = 1 } END { n = 0; for (k in d) n++; print n }' "$T/one/frames/module.tsv" 2> /dev/null)" = 1 ] &&
	    ok || notok "two reports into one -o: $(ls -A "$T/one") $(ls -A "$T" | grep '^\.one\.')"
else
	notok "report.sh: no lock_final line"
fi
done_testing t83-outdirs
