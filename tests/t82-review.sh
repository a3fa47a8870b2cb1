#!/bin/sh
# The reproducers of the maintainer's review (../shared/REVIEW.md),
# one case each, built here or read from $SHARED/repro/review: each
# failed before its fix (several only under the sanitizer pass of make
# check, which runs this suite again with ASan and UBSan).
set -u
. tests/lib.sh
R=$SHARED/repro/review
F=$BIN/nsysjax-fold

# #1: a valid hlo frame whose 17th row repeats a (ProgramId, Name): fold
# kept a pointer into its variant array across the array's growth.
awk 'BEGIN { print "ProgramId\tName\tOpcode"
	for (i = 1; i <= 16; i++) printf "p\tn%d\tfusion\n", i
	print "p\tn1\tcopy" }' > "$T/hlo-dup.tsv"
printf 'ProgramId\tName\tProgramExecution\tDevice\tThunkExecution\tProjStartMs\tProjDurMs\np\tn1\t0\t0\t0\t1\t2\n' > "$T/thunks.tsv"
if "$F" -b opcode -H "$T/hlo-dup.tsv" "$T/thunks.tsv" > "$T/o" 2> "$T/e" &&
    grep -q '^fusion	2	1$' "$T/o"; then ok
else notok "fold: hlo frame with a repeated row past 16: $(head -3 "$T/e")"; fi
if [ -f "$R/hlo-dup.tsv" ]; then
	check "fold: repro/review/hlo-dup.tsv" "$F" -b opcode -H "$R/hlo-dup.tsv" "$R/thunks.tsv"
fi

# #9: a valid module frame of a long run: 330,000 executions of 1 ms from
# one hour on (the guard summed |start|).
awk 'BEGIN { print "ProgramId\tDevice\tProjStartMs\tProjDurMs"
	for (i = 0; i < 330000; i++) printf "p\t0\t%d\t1\n", 3600000 + i }' > "$T/modules-long.tsv"
printf 'ProgramId\tName\tOpcode\np\tn1\tfusion\n' > "$T/hlo1.tsv"
# Modules 330,000 ms, thunks 2 ms: idle 329,998 ms.
if "$F" -b opcode -H "$T/hlo1.tsv" -M "$T/modules-long.tsv" "$T/thunks.tsv" > "$T/o" 2> "$T/e" &&
    grep -q '^GPU idle during modules	329998	' "$T/o"; then ok
else notok "fold: long module frame: $(head -3 "$T/e")"; fi

# #12: an unknown option inside a cluster is named by itself, not by
# the word before it (the program's path, another option).
for c in "-zk foo" "--verbose -zk" "-vz"; do
	# shellcheck disable=SC2086
	expect_error 2 "nsysjax-fold: unknown option '-z'" "$F" $c
done
expect_error 2 "nsysjax-fold: option '--hlo' needs an argument" "$F" --hlo
expect_error 2 "nsysjax-fold: unknown option '--nope'" "$F" --nope

# #10: a profile directory whose members are symlinks (to big files on
# other filesystems) is the profile; a symlink loop inside is skipped.
EX=${BIN%/bin}/example/profile/rank0
if [ -d "$EX" ]; then
	mkdir -p "$T/links"
	abs=$(cd "$EX" && pwd)
	(cd "$EX" && find . -type f) | while read -r f; do
		mkdir -p "$T/links/${f%/*}" && ln -s "$abs/$f" "$T/links/$f"
	done
	ln -s . "$T/links/loop"
	ln -s "$T/links" "$T/links/dump/up"
	if "$BIN/nsysjax-extract" -f thunk "$EX" > "$T/real" 2>&1 &&
	    "$BIN/nsysjax-extract" -f thunk "$T/links" > "$T/linked" 2> "$T/e" &&
	    [ -s "$T/real" ] && cmp -s "$T/real" "$T/linked"; then ok
	else notok "extract: a directory of symlinks: $(head -3 "$T/e")"; fi
else
	skip "no example profile in ${BIN%/bin}/example (make example)"
fi

# #2: a 107-byte parquet file whose footer says 1 row and whose chunk
# claims 2^31-1 values in one RLE run: refused before 18 GiB are asked
# for (under a 4 GB address-space limit).
FZ=${FUZZDIR:-${BIN%/bin}/fuzz}
if [ -f "$R/bomb.parquet" ] && [ -x "$FZ/parquet" ]; then
	# ASan reserves terabytes of address space: it gets its own limit.
	if grep -q __asan_init "$FZ/parquet"; then lim=:
	else lim='ulimit -v 4000000'; fi
	if (eval "$lim"; ASAN_OPTIONS=max_allocation_size_mb=1024 \
	    "$FZ/parquet" "$R/bomb.parquet") > "$T/o" 2>&1; then ok
	else notok "parquet: repro/review/bomb.parquet: $(head -3 "$T/o")"; fi
else
	skip "no $R/bomb.parquet or $FZ/parquet"
fi

# #11: shell quoting.  report.sh with an apostrophe in -o writes its
# plots (the path was spliced into a gnuplot string); an input whose name
# begins with '-' is an input, not an option; extract-parallel.sh with a
# space and a quote in its output directory.
if [ -d "$EX" ] && need gnuplot; then
	mkdir -p "$T/q"
	cp -R "$EX/../rank0" "$T/q/-rank0"
	cp -R "$EX/../rank1" "$T/q/-rank1"
	o="$T/q/it's my \$(touch $T/q/pwned) run"
	if (cd "$T/q" && NSYSJAX_BIN=$(cd "$OLDPWD/$BIN" 2>/dev/null && pwd || echo "$BIN") \
	    sh "$OLDPWD/pipelines/report.sh" -q -o "$o" -- -rank0 -rank1) > "$T/o" 2> "$T/e" &&
	    [ -s "$o/plots/bandwidth.svg" ] && [ ! -e "$T/q/pwned" ] &&
	    ! grep -q 'plot' "$T/e"; then ok
	else notok "report.sh -o with a quote: $(head -3 "$T/e")"; fi
	if need parallel; then
		p="$T/q/par 'x' out"
		if (cd "$T/q" && PATH=$(cd "$OLDPWD/$BIN" && pwd):$PATH \
		    sh "$OLDPWD/pipelines/extract-parallel.sh" -o "$p" -- -rank0 -rank1) > "$T/o" 2> "$T/e" &&
		    cmp -s "$p/thunk.tsv" "$o/frames/thunk.tsv"; then ok
		else notok "extract-parallel.sh -o with a space and quote: $(head -3 "$T/e")"; fi
	fi
fi

# #4: outputs go through a new temporary name of their own (O_EXCL): a
# symlink planted at the old fixed name ".NAME.tmp" is not followed.
X=$BIN/nsysjax-extract
if [ -d "$EX" ]; then
	mkdir -p "$T/planted"
	echo precious > "$T/victim"
	for f in thunk module hlo; do ln -s "$T/victim" "$T/planted/.$f.tsv.tmp"; done
	if "$X" -o "$T/planted" "$EX" 2> "$T/e" && [ "$(cat "$T/victim")" = precious ] &&
	    [ -s "$T/planted/thunk.tsv" ] && [ ! -L "$T/planted/thunk.tsv" ]; then ok
	else notok "extract -o: a planted symlink was followed: $(head -3 "$T/e")"; fi
	# No temporary file is left beside the outputs.
	ls -A "$T/planted" | grep -v '^\.[a-z]*\.tsv\.tmp$' | grep -q '^\.' &&
		notok "extract -o left a temporary file: $(ls -A "$T/planted")" || ok
fi

# A failed -o leaves nothing it created (as git clone), and
# never removes a directory that existed before.
printf 'not a zip' > "$T/damaged.zip"
expect_error 1 "damaged.zip" "$X" -o "$T/made/out" "$T/damaged.zip"
[ ! -e "$T/made" ] && ok || notok "extract -o: a failed run left $(find "$T/made")"
mkdir -p "$T/existed"
expect_error 1 "damaged.zip" "$X" -o "$T/existed" "$T/damaged.zip"
[ -d "$T/existed" ] && ok || notok "extract -o: a failed run removed a directory that existed"
if [ -d "$EX" ]; then
	NSYSJAX_BIN=$BIN sh pipelines/report.sh -q -o "$T/rmade" "$T/damaged.zip" > /dev/null 2> "$T/e"
	rc=$?
	[ $rc -ne 0 ] && [ ! -e "$T/rmade" ] && ok ||
		notok "report.sh -o: a failed run (exit $rc) left $(find "$T/rmade" 2>/dev/null | head -3)"
	mkdir -p "$T/rexisted"
	NSYSJAX_BIN=$BIN sh pipelines/report.sh -q -o "$T/rexisted" "$T/damaged.zip" > /dev/null 2>&1
	[ -d "$T/rexisted" ] && ok || notok "report.sh -o: a failed run removed a directory that existed"
fi

# #5: the .nsys-rep export cache is per user (mode 0700), keyed by the
# report's identity, and refused when others can write it.
SQX=${BIN%/bin}/example/sqlite/rank0/rank0.sqlite
if [ -f "$SQX" ]; then
	mkdir -p "$T/rp"
	cp -R "${SQX%/*}/dump" "$T/rp/"
	printf 'fake nsys report\nsqlite=%s\n' "$(cd "${SQX%/*}" && pwd)/${SQX##*/}" > "$T/rp/r.nsys-rep"
	xc="$T/xc"
	if PATH=$(pwd)/tests/fake:$PATH XDG_CACHE_HOME=$xc "$X" -f thunk "$T/rp/r.nsys-rep" > "$T/o" 2> "$T/e" &&
	    [ -s "$T/o" ] && [ "$(stat -c %a "$xc/nsysjax")" = 700 ] &&
	    [ "$(ls "$xc/nsysjax" | grep -c '^r-.*\.sqlite$')" = 1 ] && [ ! -e "$T/rp/r.sqlite" ]; then ok
	else notok ".nsys-rep: the export cache: $(head -3 "$T/e"); $(ls -la "$xc/nsysjax" 2>&1)"; fi
	chmod 0777 "$xc/nsysjax"
	PATH=$(pwd)/tests/fake:$PATH XDG_CACHE_HOME=$xc expect_error 1 "not a private cache directory" \
	    "$X" -f thunk "$T/rp/r.nsys-rep"
fi

# mem_huge_pages: nsysjax-extract runs again with glibc's huge pages for
# its heap (glibc.malloc.hugetlb=1) where THP is madvise'd, and its
# child, nsys, inherits the tunable; a user's own tunables are kept, and
# a choice of hugetlb is never overridden.  Not in a sanitizer's build
# (its malloc is not glibc's), before glibc 2.35, nor without /proc.
if [ -f "$SQX" ]; then
	on=0
	! thp_madvise || on=1
	case $(getconf GNU_LIBC_VERSION 2> /dev/null) in
	"glibc 2."*) [ "$(getconf GNU_LIBC_VERSION | sed 's/.*\.//')" -ge 35 ] || on=0 ;;
	*) on=0 ;;
	esac
	! grep -q __asan_init "$X" || on=0
	[ -e /proc/self/exe ] || on=0	# a chroot without /proc: no way to run again
	# The frame without huge pages: the same bytes with them.
	GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$X" -f thunk "$SQX" > "$T/real0" 2> /dev/null
	for pre in - glibc.malloc.perturb=0 glibc.malloc.hugetlb=0; do
		want=$(hugetlb_want "$pre" "$on")
		rm -rf "$T/xh" "$T/nl"
		with_tunables "$pre" PATH="$(pwd)/tests/fake:$PATH" XDG_CACHE_HOME="$T/xh" \
		    FAKE_NSYS_LOG="$T/nl" "$X" -f thunk "$T/rp/r.nsys-rep" > "$T/o" 2> "$T/e"
		got=$(sed -n 's/^ENV GLIBC_TUNABLES=//p' "$T/nl" 2> /dev/null)
		if [ -s "$T/o" ] && [ "$got" = "$want" ] && cmp -s "$T/o" "$T/real0"; then ok
		else notok "huge pages, GLIBC_TUNABLES $pre (THP $on): nsys got '$got', want '$want'; $(head -2 "$T/e")"; fi
	done
fi

# ---- The findings of ../shared/REVIEW2.md, by its ids ----

# R9: the same profile given twice, a copy under another name (c.zip,
# the bytes of a.zip): one extraction refuses it, and so must every path
# that extracts in parts and merges them (--merge, extract-parallel.sh,
# extract-slurm.sh): each part records its profiles' identities
# (profiles.tsv), and the merge refuses parts whose identities meet.
if [ -f "$DATA/pax_fsdp4_4proc_proc2.zip" ]; then
	D=$T/r9
	mkdir -p "$D"
	ln -s "$DATA/pax_fsdp4_4proc_proc0.zip" "$D/a.zip"
	ln -s "$DATA/pax_fsdp4_4proc_proc1.zip" "$D/b.zip"
	cp "$DATA/pax_fsdp4_4proc_proc0.zip" "$D/c.zip"
	ln -s "$DATA/pax_fsdp4_4proc_proc2.zip" "$D/d.zip"
	XA=$(cd "$BIN" && pwd)/nsysjax-extract
	cd "$D"
	expect_error 1 "a.zip and c.zip hold the same profile (the same trace: " "$XA" -o whole a.zip b.zip c.zip
	"$XA" -j 1 -o pa a.zip b.zip 2> /dev/null && "$XA" -o pc c.zip 2> /dev/null &&
	    "$XA" -o pd d.zip 2> /dev/null || notok "R9: extract the parts"
	expect_error 1 "a.zip (in pa) and c.zip (in pc) hold the same profile (the same trace: " \
	    "$XA" --merge -o m pa pc
	[ ! -e m ] && ok || notok "R9: a refused merge left $(ls m)"
	expect_error 1 "a.zip (in pa) and c.zip (in pc) hold the same profile" "$XA" --merge -f thunk pa pc
	# Distinct profiles still merge into one extraction's bytes, their
	# identities with them: each input's trace, its size and CRC-32 as
	# unzip -v lists them from the zip's directory, in order.
	"$XA" --merge -o m1 pa pd 2> /dev/null || notok "R9: --merge of distinct parts"
	"$XA" -o ref a.zip b.zip d.zip 2> /dev/null || notok "R9: extract three"
	check "R9: --merge of distinct parts gives one extraction's bytes" diff -r ref m1
	want=""
	for i in 0 1 2; do
		want="$want$(unzip -v "$DATA/pax_fsdp4_4proc_proc$i.zip" nvtx_gpu_proj_trace/trace.parquet |
		    awk '$8 == "nvtx_gpu_proj_trace/trace.parquet" { printf "%s 00000000%s", $1, $7 }')"
		want="$want $(echo a b d | cut -d' ' -f$((i + 1))).zip,"
	done
	got=$(awk -F'\t' 'NR > 1 { printf "%s %s %s,", $1, $2, $4 }' m1/profiles.tsv)
	[ "$got" = "$want" ] && ok || notok "R9: profiles.tsv: got '$got', want '$want'"
	# A merged directory is a part too: its profiles go with it.
	expect_error 1 "a.zip (in m1) and c.zip (in pc) hold the same profile" "$XA" --merge -o m2 m1 pc
	if need parallel; then
		NSYSJAX_BIN=$(dirname "$XA") sh "$OLDPWD/pipelines/extract-parallel.sh" -o par a.zip b.zip c.zip > /dev/null 2> err
		if [ $? -ne 0 ] && grep -qF "a.zip (input 1) and c.zip (input 3) hold the same profile" err &&
		    [ ! -e par/thunk.tsv ]; then ok
		else notok "R9: extract-parallel.sh merged a profile given twice: $(cat err)"; fi
	fi
	printf '%s\n' "$D/a.zip" "$D/b.zip" "$D/c.zip" > list
	for t in 0 1 2; do
		SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_COUNT=3 NSYSJAX_BIN=$(dirname "$XA") \
		    sh "$OLDPWD/pipelines/extract-slurm.sh" sl list 2> /dev/null || notok "R9: slurm task $t"
	done
	NSYSJAX_BIN=$(dirname "$XA") sh "$OLDPWD/pipelines/extract-slurm.sh" -m sl list > /dev/null 2> err
	if [ $? -ne 0 ] && grep -qF "$D/a.zip (in sl/parts/000000) and $D/c.zip (in sl/parts/000002) hold the same profile" err &&
	    [ ! -e sl/frames/thunk.tsv ]; then ok
	else notok "R9: extract-slurm.sh -m merged a profile given twice: $(cat err)"; fi
	cd "$OLDPWD"
fi

done_testing t82-review
