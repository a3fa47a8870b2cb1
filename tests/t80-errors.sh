#!/bin/sh
# The error contract of every tool (README "Errors", each man page's EXIT
# STATUS): 0 on success; 2 and the usage line for a bad option, and no
# usage text for bad data; 1 and exactly one line
# "nsysjax-TOOL: INPUT[:MEMBER][:LINE]: what is wrong" for bad input, a
# streaming filter having written the rows before the bad line; 1 on a
# full disk; no message when a reader closes the pipe early (| head -1):
# the tool ends there, by SIGPIPE (status 141) or by finishing (0), even if
# the shell ignored SIGPIPE; a 10 MB field is handled.  Inputs are the
# made-up profile of tests/fuzz/seeds/mkseeds.c and frames extracted from it.
set -u
. tests/lib.sh
Z=tests/corpus/archive/gen-profile.zip

# run CMD...: run CMD, stdout in $T/out, stderr in $T/err, status in $rc.
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# expect TITLE RC RE CMD...: CMD exits RC, writes exactly one line on
# stderr, matching the extended regular expression RE, and no usage text.
expect() {
	title=$1 want=$2 re=$3; shift 3
	run "$@"
	if [ "$rc" -ne "$want" ]; then
		notok "$title: exit $rc, not $want"; sed 's/^/  /' "$T/err"
	elif [ "$(wc -l < "$T/err")" -ne 1 ] || ! grep -Eq "$re" "$T/err" ||
	    grep -q 'usage:' "$T/err"; then
		notok "$title: stderr is not one line matching $re"
		sed 's/^/  /' "$T/err"
	else
		ok
	fi
}

# usage TOOL ARGS...: a bad option gives exit 2, the message, the usage.
usage() {
	tool=$1; shift
	run "$BIN/$tool" -Z "$@"
	if [ "$rc" -eq 2 ] && head -n 1 "$T/err" |
	    grep -q "^$tool: unknown option '-Z'\$" &&
	    sed -n 2p "$T/err" | grep -q "^usage: $tool " &&
	    [ ! -s "$T/out" ]; then
		ok
	else
		notok "$tool -Z: exit $rc"; sed 's/^/  /' "$T/err"
	fi
}

# good TITLE CMD...: exit 0, some output, no usage text.
good() {
	title=$1; shift
	run "$@"
	if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && ! grep -q 'usage:' "$T/err"
	then ok; else notok "$title: exit $rc"; sed 's/^/  /' "$T/err"; fi
}

# head1 TITLE CMD...: CMD | head -n 1, with SIGPIPE ignored by the shell
# too: one line out, nothing on stderr, CMD ends by 0 or SIGPIPE (141).
head1() {
	title=$1; shift
	for ign in "" "trap '' PIPE;"; do
		(eval "$ign"; { "$@" 2>"$T/err"; echo $? >"$T/rc"; } | head -n 1 \
		    >"$T/out")
		r=$(cat "$T/rc")
		if [ "$(wc -l < "$T/out")" -eq 1 ] && [ ! -s "$T/err" ] &&
		    { [ "$r" -eq 0 ] || [ "$r" -eq 141 ]; }; then
			ok
		else
			notok "$title | head -1 ${ign:+(SIGPIPE ignored)}: exit $r"
			sed 's/^/  /' "$T/err"
		fi
	done
}

# full TOOL CMD...: stdout on a full disk: exit 1 and one message.
full() {
	tool=$1; shift
	"$@" >/dev/full 2>"$T/err"; rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q \
	    "^$tool: <stdout>: write error: No space left on device\$" "$T/err"
	then ok; else notok "$tool > /dev/full: exit $rc"; sed 's/^/  /' "$T/err"; fi
}

# ---- inputs ----------------------------------------------------------------

F=$T/f
mkdir "$F" "$T/dir"
if ! "$BIN/nsysjax-extract" -o "$F" "$Z" 2>"$T/err"; then
	notok "extract the made-up profile"; cat "$T/err"
	done_testing t80-errors; exit
fi
(cd "$T/dir" && unzip -q "$OLDPWD/$Z")
echo 'not a zip' >"$T/bad.zip"
# Many rows (the pipe must fill), then a bad one at line 40002.
awk 'NR == 1 { print; next } { r[NR] = $0 }
    END { for (i = 0; i < 20000; i++) for (k in r) print r[k] }' \
    "$F/thunk.tsv" >"$T/many.tsv"
{ cat "$T/many.tsv"; printf 'x\ty\n'; tail -n 1 "$F/thunk.tsv"; } >"$T/badrow.tsv"
n=$(wc -l < "$T/many.tsv")
# big FRAME ROW: a 10 MB Name in line ROW of FRAME.
big() {
	awk -F'\t' -v OFS='\t' -v row="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Name") c = i }
	NR == row { s = "x"; while (length(s) < 10000000) s = s s; $c = s }
	{ print }' "$1"
}
big "$F/thunk.tsv" 2 >"$T/big.tsv"
big "$F/compile.tsv" 4 >"$T/bigcompile.tsv"
printf 'Device\tCorrectionMs\n0\t0.001\n' >"$T/corr.tsv"

# ---- nsysjax-extract --------------------------------------------------------

X=$BIN/nsysjax-extract
good "extract" "$X" "$Z"
usage nsysjax-extract "$Z"
expect "extract: not a zip" 1 "^nsysjax-extract: $T/bad.zip: not a zip archive\$" \
    "$X" "$T/bad.zip"
expect "extract: missing" 1 "^nsysjax-extract: $T/none.zip: cannot open: " \
    "$X" "$T/none.zip"
# A zip cut short (no central directory at its end) is truncated, not
# "not a zip"; --check writes no frames.
head -c 3000 tests/corpus/archive/gen-profile-2026.zip >"$T/cut.zip"
expect "extract: cut zip" 1 "^nsysjax-extract: $T/cut.zip: truncated zip archive " \
    "$X" "$T/cut.zip"
expect "extract: cut zip, --check" 1 "^nsysjax-extract: $T/cut.zip: truncated zip archive " \
    "$X" --check "$T/cut.zip"
# One byte changed in a stored member: its CRC no longer matches.
LC_ALL=C sed 's/XlaModule/YlaModule/' tests/corpus/archive/gen-profile-2026.zip \
    >"$T/crc.zip"
expect "extract: CRC error" 1 \
    "^nsysjax-extract: $T/crc.zip:nvtx_gpu_proj_trace/trace.parquet: truncated or corrupt member \\(CRC error\\)\$" \
    "$X" "$T/crc.zip"
printf 'garbage' >"$T/dir/thread-metadata.parquet"
expect "extract: bad member" 1 \
    "^nsysjax-extract: $T/dir:thread-metadata.parquet: not a parquet file" \
    "$X" "$T/dir"
(cd "$T/dir" && unzip -qo "$OLDPWD/$Z" thread-metadata.parquet &&
    xz -dc report_nvtx_pushpop_trace.csv.xz |
    sed '3s/^\([^,]*\),/\1x,/' >report_nvtx_pushpop_trace.csv &&
    rm report_nvtx_pushpop_trace.csv.xz)
expect "extract: bad line of a member" 1 \
    "^nsysjax-extract: $T/dir:report_nvtx_pushpop_trace.csv:3: column Start \\(ns\\): not an integer" \
    "$X" -f compile "$T/dir"
head1 "extract" "$X" -f compile "$Z"
full nsysjax-extract "$X" "$Z"
# -o: a frame that cannot be written leaves no frame, nor temporary file.
mkdir "$T/o"
ln -s /dev/full "$T/o/module.tsv"
expect "extract -o, full disk" 1 \
    "^nsysjax-extract: $T/o/module.tsv: write error: No space left on device\$" \
    "$X" -o "$T/o" "$Z"
check "extract -o, nothing left" test "$(ls -A "$T/o")" = module.tsv

# ---- the filters ------------------------------------------------------------

C=$BIN/nsysjax-collectives
good "collectives" "$C" "$F/thunk.tsv"
usage nsysjax-collectives
expect "collectives: bad row" 1 \
    "^nsysjax-collectives: $T/badrow.tsv:$((n + 1)): 2 fields, the header has [0-9]+\$" \
    "$C" "$T/badrow.tsv"
check "collectives: rows before the bad one" test "$(wc -l < "$T/out")" -eq "$n"
head1 "collectives" "$C" "$T/many.tsv"
full nsysjax-collectives "$C" "$F/thunk.tsv"
good "collectives: 10 MB field" "$C" "$T/big.tsv"

A=$BIN/nsysjax-align
good "align" "$A" "$F/thunk.tsv"
usage nsysjax-align
expect "align: bad row" 1 \
    "^nsysjax-align: $T/badrow.tsv:$((n + 1)): 2 fields" "$A" "$T/badrow.tsv"
check "align: estimating writes nothing" test ! -s "$T/out"
expect "align -a: bad row" 1 \
    "^nsysjax-align: $T/badrow.tsv:$((n + 1)): 2 fields" \
    "$A" -a "$T/corr.tsv" "$T/badrow.tsv"
check "align -a: rows before the bad one" test "$(wc -l < "$T/out")" -eq "$n"
head1 "align -a" "$A" -a "$T/corr.tsv" "$T/many.tsv"
full nsysjax-align "$A" -a "$T/corr.tsv" "$F/thunk.tsv"
good "align: 10 MB field" "$A" -a "$T/corr.tsv" "$T/big.tsv"

W=$BIN/nsysjax-warmup
good "warmup" "$W" -m -c "$F/compile.tsv" "$F/thunk.tsv"
usage nsysjax-warmup -s 1
expect "warmup: bad row" 1 \
    "^nsysjax-warmup: $T/badrow.tsv:$((n + 1)): 2 fields" \
    "$W" -s 0 "$T/badrow.tsv"
check "warmup: rows before the bad one" test "$(wc -l < "$T/out")" -eq "$n"
head1 "warmup" "$W" -s 0 "$T/many.tsv"
full nsysjax-warmup "$W" -s 0 "$F/thunk.tsv"
good "warmup: 10 MB field" "$W" -m -s 0 "$T/big.tsv"

FO=$BIN/nsysjax-fold
good "fold" "$FO" -H "$F/hlo.tsv" -S "$F/stackframes.tsv" "$F/thunk.tsv"
usage nsysjax-fold -H "$F/hlo.tsv"
expect "fold: bad row" 1 "^nsysjax-fold: $T/badrow.tsv:$((n + 1)): 2 fields" \
    "$FO" -H "$F/hlo.tsv" -S "$F/stackframes.tsv" "$T/badrow.tsv"
check "fold: writes nothing" test ! -s "$T/out"
expect "fold: bad side table" 1 "^nsysjax-fold: $T/bad.zip: missing column" \
    "$FO" -H "$T/bad.zip" -S "$F/stackframes.tsv" "$F/thunk.tsv"
head1 "fold" "$FO" -b opcode -H "$F/hlo.tsv" "$T/many.tsv"
full nsysjax-fold "$FO" -H "$F/hlo.tsv" -S "$F/stackframes.tsv" "$F/thunk.tsv"
good "fold: 10 MB field" "$FO" -b op_name -H "$F/hlo.tsv" "$T/big.tsv"

DF=$BIN/nsysjax-diff
good "diff" "$DF" -q "$F/thunk.tsv" "$F/thunk.tsv"
usage nsysjax-diff "$F/thunk.tsv" "$F/thunk.tsv"
expect "diff: bad row" 1 "^nsysjax-diff: $T/badrow.tsv:$((n + 1)): 2 fields" \
    "$DF" -q "$F/thunk.tsv" "$T/badrow.tsv"
check "diff: writes nothing" test ! -s "$T/out"
expect "diff: bad side table" 1 "^nsysjax-diff: $T/bad.zip: " \
    "$DF" -q -b "$T/bad.zip" "$F/thunk.tsv" "$F/thunk.tsv"
head1 "diff" "$DF" -q "$T/many.tsv" "$T/many.tsv"
full nsysjax-diff "$DF" -q "$F/thunk.tsv" "$F/thunk.tsv"
good "diff: 10 MB field" "$DF" -q "$T/big.tsv" "$F/thunk.tsv"

CS=$BIN/nsysjax-compilestats
good "compilestats" "$CS" "$F/compile.tsv"
usage nsysjax-compilestats
sed '3s/^\([^	]*	[^	]*	[^	]*	\)[^	]*/\1x/' "$F/compile.tsv" >"$T/badcompile.tsv"
expect "compilestats: bad row" 1 \
    "^nsysjax-compilestats: $T/badcompile.tsv:3: column TID: not an integer: 'x'\$" \
    "$CS" "$T/badcompile.tsv"
check "compilestats: writes nothing" test ! -s "$T/out"
expect "compilestats -p: bad report" 1 \
    "^nsysjax-compilestats: $T/dir/report_nvtx_pushpop_trace.csv:3: column Start" \
    "$CS" -p "$T/dir/report_nvtx_pushpop_trace.csv"
head1 "compilestats" "$CS" -t ranges "$F/compile.tsv"
full nsysjax-compilestats "$CS" "$F/compile.tsv"
good "compilestats: 10 MB field" "$CS" "$T/bigcompile.tsv"

# Every tool answers --version and -V with its name and the Makefile's
# VERSION, and --help with its usage line, on stdout, exit 0.
version=$(sed -n 's/^VERSION = //p' Makefile)
for c in cmd/*.c cmd/*.sh; do
	tool=${c#cmd/}; tool=${tool%.*}
	for v in --version -V; do
		run "$BIN/$tool" $v
		[ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$tool $version" ] && [ ! -s "$T/err" ] &&
			ok || notok "$tool $v: exit $rc, '$(cat "$T/out")'"
	done
	run "$BIN/$tool" --help
	[ "$rc" -eq 0 ] && head -n 1 "$T/out" | grep -q "^usage: $tool " &&
	    grep -q -- '--version' "$T/out" && ok || notok "$tool --help: exit $rc"
done

# extract -o makes its directory and the missing parents (mkdir -p), and
# refuses a path through a file, before reading any input.
run "$BIN/nsysjax-extract" -o "$T/new/sub" "$Z"
[ "$rc" -eq 0 ] && [ -s "$T/new/sub/thunk.tsv" ] && ok || notok "extract -o new/sub: exit $rc"
: > "$T/file"
expect "extract -o through a file" 1 "^nsysjax-extract: .*/file: not a directory\$" \
    "$BIN/nsysjax-extract" -o "$T/file/sub" nosuch.zip

ST=$BIN/nsysjax-stats
good "stats" "$ST" -t thunks -M "$F/module.tsv" "$F/thunk.tsv"
usage nsysjax-stats -t thunks
expect "stats: bad row" 1 "^nsysjax-stats: $T/badrow.tsv:$((n + 1)): 2 fields" \
    "$ST" -t variability "$T/badrow.tsv"
check "stats: writes nothing" test ! -s "$T/out"
expect "stats: bad side table" 1 "^nsysjax-stats: $T/bad.zip: missing column" \
    "$ST" -t thunks -M "$T/bad.zip" "$F/thunk.tsv"
# -o makes a missing directory (nsysjax-stats(1)'s example); a file in
# its way is an error.
: > "$T/afile"
expect "stats -o: a file in the way" 1 "^nsysjax-stats: $T/afile" \
    "$ST" -t thunks,totals -M "$F/module.tsv" -o "$T/afile/sub" "$F/thunk.tsv"
"$ST" -t thunks,totals -M "$F/module.tsv" -o "$T/none" "$F/thunk.tsv" 2> /dev/null && [ -s "$T/none/thunks.tsv" ] &&
	ok || notok "stats -o: a missing directory is not made"
run "$ST" -t thunks,totals -M "$F/module.tsv" "$F/thunk.tsv"
check "stats: two tables without -o is a usage error" test "$rc" -eq 2
head1 "stats" "$ST" -t variability -r 0 "$T/many.tsv"
full nsysjax-stats "$ST" -t thunks -M "$F/module.tsv" "$F/thunk.tsv"
good "stats: 10 MB field" "$ST" -t costs -H "$F/hlo.tsv" "$T/big.tsv"
# The compile frame's tables: -C is needed; a compile frame without a
# column they read is one message naming it; the facts read it after the
# module frame, whose missing Process column is named too.
run "$ST" -t xla-program-ids "$F/thunk.tsv"
check "stats -t xla-program-ids without -C is a usage error" test "$rc" -eq 2
cut -f 1,2 "$F/compile.tsv" > "$T/cut-compile.tsv"
expect "stats: compile frame without Name" 1 "^nsysjax-stats: $T/cut-compile.tsv: missing column 'Name'" \
    "$ST" -t xla-program-ids -C "$T/cut-compile.tsv"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i != "Process") k[i] = 1 } { o = ""
	for (i = 1; i <= NF; i++) if (i in k) o = o (o == "" ? "" : "\t") $i; print o }' "$F/module.tsv" > "$T/noproc.tsv"
expect "stats: facts without the module frame's Process" 1 "^nsysjax-stats: $T/noproc.tsv: missing column 'Process'" \
    "$ST" -t facts -M "$T/noproc.tsv" -C "$F/compile.tsv" "$F/thunk.tsv"
good "stats: facts" "$ST" -t facts -M "$F/module.tsv" -C "$F/compile.tsv" "$F/thunk.tsv"
# nsysjax-collectives: several summaries need -o, -o needs -s; a
# missing column is one message, and nothing is left in -o's directory.
run "$BIN/nsysjax-collectives" -s bandwidth,hidden "$F/communication.tsv"
check "collectives: two summaries without -o is a usage error" test "$rc" -eq 2
run "$BIN/nsysjax-collectives" -o "$T/cs" "$F/communication.tsv"
check "collectives: -o without -s is a usage error" test "$rc" -eq 2
cut -f 1-3 "$F/communication.tsv" > "$T/cut-comm.tsv"
expect "collectives -o: a missing column" 1 "^nsysjax-collectives: $T/cut-comm.tsv: missing column" \
    "$BIN/nsysjax-collectives" -s bandwidth,waits -o "$T/cs" "$T/cut-comm.tsv"
check "collectives -o: nothing written after an error" test ! -e "$T/cs/bandwidth.tsv"

# setup.sh says what it installs and builds, each in a line before the
# step (it was silent for 28 s): stand-ins for dpkg-query (gnuplot-nox
# missing, or nothing), id (root), apt-get and make write their calls on
# the same stderr, so the file holds the order.
mkdir -p "$T/setup"
for c in apt-get make; do printf '#!/bin/sh\necho "CALL %s $*" >&2\n' "$c" > "$T/setup/$c"; done
printf '#!/bin/sh\necho 0\n' > "$T/setup/id"
printf '#!/bin/sh\nfor p; do :; done\n[ "$p" = gnuplot-nox ] && [ -n "${SETUP_MISSING:-}" ] || echo "install ok installed"\n' > "$T/setup/dpkg-query"
chmod +x "$T/setup/"*
SETUP_MISSING=1 PATH=$T/setup:$PATH sh setup.sh > "$T/setup.out" 2> "$T/setup.err"; rc=$?
awk -v rc="$rc" '/^setup.sh: installing 1 Debian package\(s\) with apt-get .*: gnuplot-nox$/ && !a { i = NR }
    /^CALL apt-get update/ && !a { a = NR } /^setup.sh: building the nsysjax tools/ { b = NR } /^CALL make -s all$/ { m = NR }
    /^setup.sh: done; next: make run/ { d = NR }
    END { exit !(rc == 0 && i && a > i && b > a && m > b && d > m) }' "$T/setup.err" && ok ||
	notok "setup.sh's lines (status $rc): $(cat "$T/setup.err")"
PATH=$T/setup:$PATH sh setup.sh > /dev/null 2> "$T/setup.err"
grep -q '^setup.sh: the Debian packages make run needs are installed$' "$T/setup.err" && ! grep -q 'CALL apt-get' "$T/setup.err" &&
    grep -q '^setup.sh: building' "$T/setup.err" && ok || notok "setup.sh, nothing missing: $(cat "$T/setup.err")"

done_testing t80-errors
