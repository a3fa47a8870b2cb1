#!/bin/sh
# The extraction's findings of the third review (../shared/REVIEW3.md,
# by its ids), each a case built here from the example run (make
# example); each failed before its fix.  Unit tests hold the others:
# R3-7 meta_test (a device-metadata.parquet of 1e300 SMs), R3-8
# xz_test (a 64-byte stream claiming 4 GiB, under a 1 GiB limit), R3-9
# hlocost_test ("wrap": 2^64 convolution pairs).
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
EX=${BIN%/bin}/example/profile
SQ=${BIN%/bin}/example/sqlite
R=$SHARED/repro/review3

# rows FRAME: "DEVICE:ROWS ..." of a frame, by its Device column, sorted.
rows() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Device") d = i; next }
	    { n[$d]++ } END { for (k in n) printf "%s:%d\n", k, n[k] }' "$1" | sort | tr '\n' ' '
}

if [ ! -d "$EX/rank0" ] || [ ! -f "$SQ/rank0/rank0.sqlite" ]; then
	skip "no example run in ${BIN%/bin}/example (make example)"
	done_testing t83-review3
	exit 0
fi
ABS=$(cd "$EX" && pwd)

# R3-1: one profile in two containers is one profile given twice: its
# directory and a zip of it (a top folder inside, as zip -r or macOS's
# Compress make it), two zips of it at other levels, a bare export and
# a directory holding it.  Each container has other bytes; the trace
# inside is the same.  Refused by one extraction and by --merge of
# parts, where every row of device 0 was counted twice, exit 0.
if need zip; then
	D=$T/r31
	mkdir -p "$D"
	(cd "$EX" && zip -qr -9 "$D/folder0.zip" rank0 && cd rank0 && zip -qr -0 "$D/flat0.zip" .) ||
	    notok "R3-1: zip the example's rank0"
	"$X" -o "$D/ref" "$EX/rank0" "$EX/rank1" 2> "$D/e" || notok "R3-1: rank0 rank1: $(cat "$D/e")"
	[ "$(rows "$D/ref/thunk.tsv")" = "0:89 1:89 " ] && ok || notok "R3-1: rank0 rank1: $(rows "$D/ref/thunk.tsv")"
	expect_error 1 "$EX/rank0 and $D/folder0.zip hold the same profile (the same trace: " \
	    "$X" -o "$D/one" "$EX/rank0" "$EX/rank1" "$D/folder0.zip"
	[ ! -e "$D/one" ] && ok || notok "R3-1: a refused extraction left $D/one"
	expect_error 1 "$D/flat0.zip and $D/folder0.zip hold the same profile" "$X" -f thunk "$D/flat0.zip" "$D/folder0.zip"
	# The trace's size and CRC-32 as unzip lists them (the message
	# names the identity).
	want=$(unzip -v "$D/folder0.zip" rank0/nvtx_gpu_proj_trace/trace.parquet |
	    awk '$8 ~ /trace.parquet$/ { printf "the same trace: %s bytes, CRC-32 %s)", $1, $7 }')
	expect_error 1 "$want" "$X" -f module "$D/folder0.zip" "$EX/rank0"
	"$X" -o "$D/pa" "$EX/rank0" "$EX/rank1" 2> /dev/null && "$X" -o "$D/pb" "$D/folder0.zip" 2> /dev/null ||
	    notok "R3-1: extract the parts"
	expect_error 1 "$EX/rank0 (in $D/pa) and $D/folder0.zip (in $D/pb) hold the same profile (the same trace: " \
	    "$X" --merge -o "$D/m" "$D/pa" "$D/pb"
	[ ! -e "$D/m" ] && ok || notok "R3-1: a refused merge left $D/m"
	# profiles.tsv: the trace's identity, the same from the directory
	# and from the zip.
	a=$(awk -F'\t' 'NR == 2 { print $1, $2 }' "$D/pa/profiles.tsv")
	b=$(awk -F'\t' 'NR == 2 { print $1, $2 }' "$D/pb/profiles.tsv")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || notok "R3-1: profiles.tsv of rank0 '$a', of its zip '$b'"
	# An export by itself and in a directory (with its dumps).
	mkdir -p "$D/s0"
	cp "$SQ/rank0/rank0.sqlite" "$D/s0/"
	cp -R "$SQ/rank0/dump" "$D/s0/"
	expect_error 1 "$SQ/rank0/rank0.sqlite and $D/s0 hold the same profile (the same trace: " \
	    "$X" -f thunk "$SQ/rank0/rank0.sqlite" "$SQ/rank1/rank1.sqlite" "$D/s0"
	# Distinct profiles in those containers still extract as before.
	"$X" -o "$D/two" "$D/folder0.zip" "$EX/rank1" 2> "$D/e" &&
	    [ "$(rows "$D/two/thunk.tsv")" = "0:89 1:89 " ] && ok || notok "R3-1: folder0.zip rank1: $(cat "$D/e")"
fi

# R3-3: a zip whose central directory lists nvtx_gpu_proj_trace/trace.
# parquet twice (rank0's and rank1's): unzip reads the last, extraction
# read the first.  Made by zipping rank1's trace under a name of the
# same length and renaming it in the zip's headers.
if need zip; then
	D=$T/r33
	mkdir -p "$D/z"
	cp -R "$EX/rank0/." "$D/z/"
	cp "$EX/rank1/nvtx_gpu_proj_trace/trace.parquet" "$D/z/nvtx_gpu_proj_trace/trace.parqueX"
	(cd "$D/z" && zip -qr "$D/dup.zip" .) &&
	    LC_ALL=C sed -i 's#nvtx_gpu_proj_trace/trace\.parqueX#nvtx_gpu_proj_trace/trace.parquet#g' "$D/dup.zip" ||
	    notok "R3-3: make dup.zip"
	n=$(unzip -l "$D/dup.zip" | grep -c ' nvtx_gpu_proj_trace/trace\.parquet$')
	[ "$n" -eq 2 ] && ok || notok "R3-3: dup.zip lists the trace $n times"
	expect_error 1 "$D/dup.zip: two members named nvtx_gpu_proj_trace/trace.parquet" "$X" -f module "$D/dup.zip"
	# The same zip without the second one reads.
	(cd "$D/z" && rm nvtx_gpu_proj_trace/trace.parqueX && zip -qr "$D/one.zip" .) &&
	    "$X" -f module "$D/one.zip" > /dev/null 2> "$D/e" && ok || notok "R3-3: one.zip: $(cat "$D/e")"
fi

# R3-2: without dumps, modules are told apart by name, not program_id:
# an export whose process compiled jit_init and jit_train_step in the
# other order (program_ids 3 and 7 exchanged) beside one that did not.
# One ProgramId held jit_init on one device and jit_train_step on the
# other, and nsysjax-diff of two identical runs said -96 %.
if need sqlite3; then
	D=$T/r32
	mkdir -p "$D"
	swap() {
		cp "$1" "$2"
		sqlite3 "$2" "UPDATE StringIds SET value = replace(replace(replace(value,
		    'program_id=3#', 'program_id=X#'), 'program_id=7#', 'program_id=3#'),
		    'program_id=X#', 'program_id=7#');"
	}
	cp "$SQ/rank0/rank0.sqlite" "$SQ/rank1/rank1.sqlite" "$D/"
	swap "$SQ/rank0/rank0.sqlite" "$D/s0.sqlite"
	swap "$SQ/rank1/rank1.sqlite" "$D/s1.sqlite"
	"$X" -m -o "$D/one" "$D/rank0.sqlite" "$D/s1.sqlite" 2> /dev/null || notok "R3-2: extract rank0 s1"
	# Every ProgramId one module name; the first 12 characters one
	# per (ProgramId) too.
	got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { k = $c["ProgramId"] SUBSEP $c["Name"]; if (!(k in seen)) { seen[k]; n[$c["ProgramId"]]++ } }
	    END { for (p in n) if (n[p] > 1) print p }' "$D/one/module.tsv")
	[ -z "$got" ] && ok || notok "R3-2: ProgramIds with two module names: $got"
	# Each module's executions are its own: jit_train_step 6 per
	# device (the example's steps), jit_init 1, one ProgramId per module
	# over both devices, as with the same program_ids.
	got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { n[$c["Name"] " " $c["ProgramId"] " " $c["Device"]]++ }
	    END { for (k in n) print k, n[k] }' "$D/one/module.tsv" | awk '{ print $1 "/" $3 ":" $4 }' | sort | tr '\n' ' ')
	[ "$got" = "jit_init/0:1 jit_init/1:1 jit_train_step/0:6 jit_train_step/1:6 " ] && ok ||
	    notok "R3-2: executions by module and device: $got"
	np=$(awk -F'\t' 'NR > 1 { print $1 }' "$D/one/module.tsv" | sort -u | wc -l)
	n12=$(awk -F'\t' 'NR > 1 { print substr($1, 1, 12) }' "$D/one/module.tsv" | sort -u | wc -l)
	[ "$np" -eq 2 ] && [ "$n12" -eq 2 ] && ok || notok "R3-2: $np ProgramIds, $n12 distinct in 12 characters (want 2, 2)"
	# Two identical runs but for the order of compilation: every
	# module against its namesake, no change.
	"$X" -m -o "$D/before" "$D/rank0.sqlite" "$D/rank1.sqlite" 2> /dev/null &&
	    "$X" -m -o "$D/after" "$D/s0.sqlite" "$D/s1.sqlite" 2> /dev/null || notok "R3-2: extract before, after"
	"$BIN/nsysjax-diff" -q -s -b "$D/before/module.tsv" -a "$D/after/module.tsv" \
	    "$D/before/thunk.tsv" "$D/after/thunk.tsv" > "$D/diff" 2> "$D/e" || notok "R3-2: diff: $(cat "$D/e")"
	got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { printf "%s %s %s %s %s,", $c["Module"], $c["ExecutionsBefore"], $c["ExecutionsAfter"], $c["ChangePercent"], ($c["Match"] == "" ? "-" : "m") }' "$D/diff")
	[ "$got" = "jit_init 2 2 0 m,jit_train_step 12 12 0 m,(all) 14 14 0 -," ] && ok || notok "R3-2: diff of identical runs: $got"
	# The same module, the same run: the same ProgramIds.
	a=$(awk -F'\t' 'NR > 1 { print $1 }' "$D/before/module.tsv" | sort -u | tr '\n' ' ')
	"$X" -m -o "$D/again" "$D/rank0.sqlite" "$D/rank1.sqlite" 2> /dev/null
	b=$(awk -F'\t' 'NR > 1 { print $1 }' "$D/again/module.tsv" | sort -u | tr '\n' ' ')
	[ "$a" = "$b" ] && ok || notok "R3-2: ProgramIds of one run differ: '$a' '$b'"
fi

# -n names the profiles: four exports named report.sqlite in four
# directories are four profiles under -n, and still one clash without
# it or when -n repeats a name.
D=$T/names
for i in 0 1; do
	mkdir -p "$D/d$i"
	cp "$SQ/rank$i/rank$i.sqlite" "$D/d$i/report.sqlite"
	cp -R "$SQ/rank$i/dump" "$D/d$i/"
done
expect_error 1 "$D/d0/report.sqlite and $D/d1/report.sqlite both hold a profile named report" \
    "$X" -f thunk "$D/d0/report.sqlite" "$D/d1/report.sqlite"
"$X" -o "$D/o" -n p0,p1 "$D/d0/report.sqlite" "$D/d1/report.sqlite" 2> "$D/e" || notok "-n p0,p1: $(cat "$D/e")"
"$X" -o "$D/ref" -n p0,p1 "$SQ/rank0/rank0.sqlite" "$SQ/rank1/rank1.sqlite" 2> /dev/null || notok "-n p0,p1: the example's exports"
check "-n p0,p1 of two report.sqlite: the frames of the example's exports" diff -r -x profiles.tsv "$D/ref" "$D/o"
got=$(awk -F'\t' 'NR > 1 { print $1 }' "$D/o/meta.tsv" | sort -u | tr '\n' ' ')
[ "$got" = "p0 p1 " ] && ok || notok "-n p0,p1: meta.tsv's ProfileNames '$got'"
"$X" -j 0 -f compile -n p0,p1 "$D/d0/report.sqlite" "$D/d1/report.sqlite" > "$D/c0" 2> "$D/e" &&
    cmp -s "$D/c0" "$D/ref/compile.tsv" && ok || notok "-j 0 -f compile -n p0,p1: $(cat "$D/e")"
expect_error 1 "both hold a profile named p0" "$X" -f thunk -n p0,p0 "$D/d0/report.sqlite" "$D/d1/report.sqlite"
expect_error 1 "1 profile names for 2 profiles" "$X" -f thunk -n p0 "$D/d0/report.sqlite" "$D/d1/report.sqlite"

# R3-8 through the fuzz driver, as tests/fuzz.sh limits it: the review's
# 64-byte stream claiming 4 GiB (its own generator, mkxz.py).
FZ=${FUZZDIR:-${BIN%/bin}/fuzz}
if [ -f "$R/claim4g.xz" ] && [ -x "$FZ/xz" ]; then
	if grep -q __asan_init "$FZ/xz"; then lim=:
	else lim='ulimit -v 1500000'; fi
	if (eval "$lim"; ASAN_OPTIONS=max_allocation_size_mb=1024:allocator_may_return_null=0 \
	    "$FZ/xz" "$R/claim4g.xz") > "$T/o" 2>&1; then ok
	else notok "xz: repro/review3/claim4g.xz: $(head -3 "$T/o")"; fi
else
	skip "no $R/claim4g.xz or $FZ/xz"
fi

done_testing t83-review3
