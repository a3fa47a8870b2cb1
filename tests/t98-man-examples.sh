#!/bin/sh
# Every EXAMPLES block of every man page, run as written, on the
# example profile: in a directory per page holding rank0.zip and rank1.zip
# (the example's processes; step.zip, the first), before/ and after/ (the same run twice),
# report.sqlite with its dumps (the run as an nsys export) and
# run_nvtx_pushpop_trace.csv.  A command is a "$ " line of a literal
# block with its indented continuation lines, or a .Dl line; lines
# without "$ " in a block with commands are output.  Commands of programs
# that are not here (nsys, srun, mpirun, python, chromium, make) are
# skipped, so are nsysjax-profile's (t95 runs it against a stand-in
# nsys); a four-process example runs on the example's two processes.
# Each command must exit 0 (or end in a pipe a reader closed early, as
# `| head` does) and print no usage message.
set -u
. tests/lib.sh
EX=${EXAMPLE:-build/example/profile}
SQ=${EX%/profile}/sqlite/rank0
NSYSJAX_BIN=$(cd "$BIN" && pwd)
FAKE=$(cd tests/fake && pwd)
if [ ! -d "$EX/rank0" ] || [ ! -f "$SQ/rank0.sqlite" ]; then
	skip "man examples: the example profile is not built (make example)"
	done_testing t98-man-examples
	exit
fi
need zip bash || { done_testing t98-man-examples; exit; }
for r in rank0 rank1; do (cd "$EX/$r" && zip -q -r "$T/$r.zip" .) || notok "zip of the example's $r"; done

# commands PAGE: the commands of PAGE's EXAMPLES, one per record,
# records separated by a line holding only "%%".
commands() {
	awk '
	function unesc(s) { gsub(/\\e/, "\\", s); gsub(/\\-/, "-", s); gsub(/\\&/, "", s); return s }
	function flush() { if (cmd != "") print cmd "\n%%"; cmd = "" }
	/^\.Sh / { ex = ($0 == ".Sh EXAMPLES"); next }
	!ex { next }
	/^\.Dl / { flush(); print unesc(substr($0, 5)) "\n%%"; next }
	/^\.Bd / { inb = 1; n = 0; dollar = 0; next }
	/^\.Ed/ { flush()
		# A block without "$ " lines: each unindented line a command.
		if (!dollar) for (i = 1; i <= n; i++) if (line[i] !~ /^[ \t]/) print unesc(line[i]) "\n%%"
		inb = 0; next }
	inb { line[++n] = $0
		if ($0 ~ /^\$ /) { flush(); dollar = 1; cmd = unesc(substr($0, 3)); next }
		if (cmd != "" && $0 ~ /^[ \t]/) { cmd = cmd "\n" unesc($0); next }
		flush() }
	' "$1"
}

for page in man/*.1; do
	name=${page##*/}
	name=${name%.1}
	d=$T/$name
	mkdir -p "$d/before" "$d/after" "$d/xla-dump"
	cp "$T/rank0.zip" "$T/rank1.zip" "$d/"
	cp "$T/rank0.zip" "$d/step.zip"
	cp "$T/rank0.zip" "$T/rank1.zip" "$d/before/"
	cp "$T/rank0.zip" "$T/rank1.zip" "$d/after/"
	cp "$SQ/rank0.sqlite" "$d/report.sqlite"
	cp -R "$SQ/dump" "$d/dump"
	cp -R "$SQ/dump/." "$d/xla-dump/"
	cp "$EX/rank0/report_nvtx_pushpop_trace.csv" "$d/run_nvtx_pushpop_trace.csv"
	commands "$page" > "$T/cmds"
	n=0
	while :; do
		c=''
		while IFS= read -r l; do
			[ "$l" = %% ] && break
			c="$c$l
"
		done
		[ -n "$c" ] || break
		n=$((n + 1))
		case $c in
		nsys\ * | srun\ * | mpirun\ * | python* | chromium\ * | make\ * | nsysjax-profile\ *) continue ;;
		esac
		# Four processes on the example's two; its XLA dumps here.
		c=$(printf '%s' "$c" | sed -e 's/ rank2\.zip rank3\.zip//g' -e 's/proc0,proc1,proc2,proc3/proc0,proc1/g' \
		    -e 's|/tmp/xla-dump|xla-dump|g')
		(cd "$d" && PATH=$NSYSJAX_BIN:$PATH:$FAKE NSYSJAX_BIN=$NSYSJAX_BIN bash -o pipefail -c "$c") > "$T/out" 2> "$T/err"
		rc=$?
		if { [ $rc -eq 0 ] || [ $rc -eq 141 ]; } && ! grep -q 'usage:' "$T/err"; then
			ok
		else
			notok "$name example $n exits $rc: $c
$(head -n 3 "$T/err")"
		fi
	done < "$T/cmds"
	[ "$n" -gt 0 ] && ok || notok "$name: no examples found"
done
done_testing t98-man-examples
