# Sourced by the pipelines (POSIX sh, after `set -eu` and after setting
# USAGE, the usage line without "usage: ", and TABLES, the names of the
# tables the script can write).  Provides the tools on PATH, a work
# directory $W removed on exit, option helpers and the frames of the run.

# (Parameter expansions rather than dirname here and below: a process
# start is dear, and a report runs many pipelines.)
case $0 in */*) HERE=${0%/*}; HERE=${HERE:-/} ;; *) HERE=. ;; esac
LIB=$HERE/lib
PROG=pipelines/${0##*/}
TAB=$(printf '\t')

# The tools: $NSYSJAX_BIN when set, else the build next to the scripts
# (../build/bin), else PATH.
if [ -n "${NSYSJAX_BIN:-}" ]; then
	PATH=$NSYSJAX_BIN:$PATH
elif [ -x "$HERE/../build/bin/nsysjax-extract" ]; then
	PATH=$(cd -- "$HERE/../build/bin" && pwd):$PATH
fi
export PATH

# glibc's huge pages for the heaps of every program a pipeline runs (awk
# and gnuplot too), as the nsysjax tools take them themselves
# (mem_huge_pages, lib/base/mem.h): where THP is madvise'd, unless
# GLIBC_TUNABLES names glibc.malloc.hugetlb already.  Set here once, the
# tools need not execute themselves again.
case ${GLIBC_TUNABLES:-} in
*glibc.malloc.hugetlb*) ;;
*)	_thp=''
	{ read -r _thp < /sys/kernel/mm/transparent_hugepage/enabled; } 2> /dev/null || :
	case $_thp in
	*"[madvise]"*)
		GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1
		export GLIBC_TUNABLES ;;
	esac ;;
esac

die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage() { printf 'usage: %s\n' "$USAGE"; }
# bad_usage [MESSAGE]: the message and the usage line on stderr, exit 2.
bad_usage() {
	[ $# -eq 0 ] || printf '%s: %s\n' "$PROG" "$*" >&2
	usage >&2
	exit 2
}

# Options every pipeline shares: -o DIR, -t TABLE, -s DIR, -h.
# common_opt OPT ARG handles one getopts result; it fails (status 1) for
# an option it does not know, so that the script can handle its own.
OUT='' ONLY='' STEADY=''
common_opt() {
	case $1 in
	o) OUT=$2 ;;
	s) [ -d "$2" ] || bad_usage "-s: not a directory: '$2'"
	   STEADY=$2 ;;
	t) case " $TABLES " in
		*" $2 "*) ONLY=$2 ;;
		*) bad_usage "unknown table '$2' (one of: $TABLES)" ;;
		esac ;;
	h) usage; exit 0 ;;
	\?) bad_usage ;;
	*) return 1 ;;
	esac
}

# std_args "$@": the whole option prologue of a script with no options of
# its own: -o, -t, -s, -h, then at least one input; makes $OUT.  The caller
# then drops the options: shift $((OPTIND - 1)).
std_args() {
	while getopts o:t:s:h opt; do common_opt "$opt" "${OPTARG:-}" || bad_usage; done
	shift $((OPTIND - 1))
	[ $# -gt 0 ] || bad_usage "no input"
	[ -z "$OUT" ] || make_out "$OUT"
}

# make_out DIR: the output directory DIR.  One that exists is written in
# place.  A new one is written as a private directory beside it
# (PARENT/.NAME.new.PID, OUT then names it; OUT_FINAL is DIR, the name
# to show in what the run writes), renamed
# onto DIR once the run is complete (out_publish, on a successful exit):
# a run that fails (or is interrupted) removes that directory, which no
# other program knows, and nothing else.  The directories it made above
# it (make_parents) are removed only when they are empty: others may
# have written there meanwhile (the jobs of an array into results/jobN).
OUT_NEW='' OUT_FINAL=''
make_out() {
	OUT_FINAL=$1
	if [ -d "$1" ]; then return 0; fi
	[ ! -e "$1" ] && [ ! -L "$1" ] || die "$1: exists and is not a directory"
	_o=$1
	while case $_o in ?*/) true ;; *) false ;; esac; do _o=${_o%/}; done
	parent_dir "$_o"
	_p=$PARENT
	OUT_FINAL=$_o OUT_NEW=$_p/.${_o##*/}.new.$$
	if [ -e "$OUT_NEW" ] || [ -L "$OUT_NEW" ]; then rm -rf -- "$OUT_NEW"; fi	# left by a dead process of this pid
	mkdir_in "$_p" "$OUT_NEW" || die "$_p: cannot create the output directory"
	OUT=$OUT_NEW
}
# make_parents DIR: mkdir -p DIR, remembering the outermost directory
# this makes (OUT_MADE) and DIR (OUT_MADE_IN), for rm_made.  mkdir -p is
# tried again when it fails: a failing run of another program may have
# removed a directory it found empty between two of its steps.
OUT_MADE='' OUT_MADE_IN=''
make_parents() {
	_d=$1 _m=''
	while [ ! -e "$_d" ] && [ ! -L "$_d" ]; do
		_m=$_d
		parent_dir "$_d"
		[ "$PARENT" != "$_d" ] || break
		_d=$PARENT
	done
	if [ -n "$_m" ]; then OUT_MADE=$_m OUT_MADE_IN=$1; fi
	_n=0
	until [ -d "$1" ] || mkdir -p -- "$1" 2> /dev/null; do
		_n=$((_n + 1))
		[ "$_n" -lt 10 ] || { mkdir -p -- "$1"; return 1; }
	done
}
# mkdir_in PARENT DIR: mkdir DIR, inside PARENT, which make_parents makes
# first; made again should PARENT be removed meanwhile (see
# make_parents), 10 times at most.  Once DIR is there, PARENT is not
# empty: no other run removes it.
mkdir_in() {
	_n=0
	make_parents "$1" || return 1
	until mkdir -- "$2" 2> /dev/null; do
		_n=$((_n + 1))
		[ "$_n" -lt 10 ] && [ ! -d "$1" ] || { mkdir -- "$2"; return 1; }
		make_parents "$1" || return 1
	done
}
# rm_made: the directories make_parents made, innermost first, removed
# while they are empty (rmdir: never what another program put there).
rm_made() {
	[ -n "$OUT_MADE" ] || return 0
	_d=$OUT_MADE_IN
	while rmdir -- "$_d" 2> /dev/null && [ "$_d" != "$OUT_MADE" ]; do
		parent_dir "$_d"
		[ "$PARENT" != "$_d" ] || break
		_d=$PARENT
	done
	OUT_MADE=''
}
# out_publish: the private output directory (make_out) renamed onto the
# directory asked for, which must still be missing or empty: should
# another program have written there meanwhile, it wins and this run
# fails, saying so.  Nothing to do for an output written in place.
out_publish() {
	[ -n "$OUT_NEW" ] || return 0
	if [ -d "$OUT_FINAL" ] && [ ! -L "$OUT_FINAL" ]; then rmdir -- "$OUT_FINAL" 2> /dev/null || :; fi
	parent_dir "$OUT_FINAL"
	if rename_onto "$OUT_NEW" "$OUT_FINAL" "$PARENT"; then
		OUT_NEW='' OUT_MADE='' OUT=$OUT_FINAL
	else
		printf '%s: %s\n' "$PROG" "$OUT_FINAL: written by another program while this one ran: this output is not kept" >&2
		return 1
	fi
}
# rename_onto FROM TO DIR: FROM renamed TO, which must not exist: should a
# directory TO appear meanwhile, mv would move FROM into it (TO/FROM's
# name); the rename is then undone and fails, so that no output ends
# inside another.  GNU mv's -T (rename(2) semantics) when mv has it,
# probed once in DIR (TO's parent).
rename_onto() {
	if [ -z "${MV_T+x}" ]; then
		MV_T=''
		_p=$3/.nsysjax.mvt.$$
		if mkdir -- "$_p" && mv -T -- "$_p" "$_p.t" 2> /dev/null; then MV_T=-T; rmdir -- "$_p.t"; else rmdir -- "$_p" 2> /dev/null || :; fi
	fi
	[ ! -e "$2" ] && [ ! -L "$2" ] || return 1
	# shellcheck disable=SC2086
	mv $MV_T -- "$1" "$2" 2> /dev/null || return 1
	if [ -e "$2/${1##*/}" ]; then
		mv -- "$2/${1##*/}" "$1" 2> /dev/null || :
		return 1
	fi
}
# parent_dir PATH: PARENT set to dirname(1)'s answer, without its
# process start (nor a command substitution's).
parent_dir() {
	PARENT=$1
	while case $PARENT in ?*/) true ;; *) false ;; esac; do PARENT=${PARENT%/}; done
	case $PARENT in
	*/*) PARENT=${PARENT%/*}
	     while case $PARENT in ?*/) true ;; *) false ;; esac; do PARENT=${PARENT%/}; done
	     PARENT=${PARENT:-/} ;;
	*) PARENT=. ;;
	esac
}
# out_complete: the output is whole; it stays whatever the exit status
# (a verdict such as diff.sh's 3 is no failure): published now.
out_complete() { out_publish || exit 1; OUT_MADE=''; }

# number VALUE WHAT: VALUE must be a plain non-negative decimal.
number() {
	case $1 in
	'' | *[!0-9.]* | *.*.* | .) bad_usage "$2: not a number: '$1'" ;;
	esac
}

# table_dir: TD, where a table NAME is written as NAME.tsv before put
# shows it: $OUT itself with -o and no -t (its place: put has nothing to
# copy), else $W.  Called once the options are read.
TD=''
table_dir() {
	if [ -n "$OUT" ] && [ -z "$ONLY" ]; then TD=$OUT; else TD=$W; fi
}

# Jobs in the background: `... & BG="$BG $!"`, later `wait ...` and
# BG emptied; on exit those still running are stopped.  The traps come
# before the work directory: a signal between its mktemp and them would
# leave it behind (seen under load in t76's signal checks).
W='' BG='' W_OWN=1
# shellcheck disable=SC2086
# A run that ends well publishes its output (out_publish); one that
# fails removes its private output directory and the empty directories
# it made (rm_made).
trap '_st=$?; trap "" INT TERM; [ -z "$BG" ] || kill $BG 2> /dev/null || :; [ "$W_OWN" = 0 ] || rm -rf "$W"
	[ "$_st" -ne 0 ] || out_publish || _st=1
	[ "$_st" -eq 0 ] || { [ -z "$OUT_NEW" ] || rm -rf -- "$OUT_NEW"; rm_made; }
	exit "$_st"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A section that report.sh runs works in the directory it made for it
# (_NSYSJAX_SECTION_DIR, empty, inside its own work directory, which it
# removes): a mktemp and an rm less per section, each a process start.
if [ -n "${_NSYSJAX_SECTION_DIR:-}" ] && [ -d "$_NSYSJAX_SECTION_DIR" ]; then
	W=$_NSYSJAX_SECTION_DIR W_OWN=0
	unset _NSYSJAX_SECTION_DIR
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-pipeline.XXXXXX") || die "cannot create a work directory in ${TMPDIR:-/tmp}"
fi
# It may also find the tables of nsysjax-stats made already
# (_NSYSJAX_STATS_DIR: TABLE.tsv, from one pass over the steady frames it
# is given, with the default options, for every section that reads them):
# STATS is that directory, else empty.  A section given other options
# than the defaults computes its own.
STATS=''
if [ -n "${_NSYSJAX_STATS_DIR:-}" ] && [ -d "$_NSYSJAX_STATS_DIR" ]; then STATS=$_NSYSJAX_STATS_DIR; fi
unset _NSYSJAX_STATS_DIR

# frames INPUT...: sets F to the directory of the run's frames: INPUT
# itself when it is one directory written by `nsysjax-extract -o` (it
# holds thunk.tsv), else $W/frames, extracted from the inputs (archives or
# extracted archives, the processes of one run).
frames() {
	command -v nsysjax-extract > /dev/null ||
		die "nsysjax-extract not found: set NSYSJAX_BIN or PATH"
	if [ $# -eq 1 ] && [ -f "$1/thunk.tsv" ]; then
		F=$1
		return
	fi
	F=$W/frames
	mkdir "$F"
	nsysjax-extract -o "$F" -- "$@"
}

# steady FRAME...: $SD/FRAME.tsv, the steady state of each named frame
# of $F (thunk, module or communication) as the reference has it: clocks
# aligned (corrections estimated once on the collectives, those of the
# communication frame, applied to each frame; nothing to apply when
# nsysjax-align declined, as for one device), then nsysjax-warmup's split;
# SD is $W.  With -s DIR, the frames DIR/FRAME.tsv, computed so by
# pipelines/report.sh (steady_frames), are used as they are: SD is DIR.
SD=''
steady() {
	if [ -n "$STEADY" ]; then
		for f do
			[ -f "$STEADY/$f.tsv" ] || die "$STEADY: no $f.tsv"
		done
		SD=$STEADY
		return
	fi
	SD=$W
	# Once per call, for the frames of $F (diff.sh calls it for two runs),
	# the forms too when the thunk frame splits more than one frame (the
	# others say nothing of them: the thunk frame's note holds theirs).
	nsysjax-align -o "$W/corrections.tsv" "$F/communication.tsv" > /dev/null
	FORMS='' _th=''
	case " $* " in *" thunk "*) _th=1 ;; esac
	if [ $# -gt 1 ] && [ -f "$F/thunk.tsv" ]; then
		nsysjax-warmup --forms-from "$F/thunk.tsv" --forms-only > "$W/forms.tsv"
		FORMS=$W/forms.tsv
	fi
	for f do
		WARMUP_QUIET=''
		[ -z "$_th" ] || [ "$f" = thunk ] || WARMUP_QUIET=1
		steady_frame "$F" "$W/corrections.tsv" "$f" > "$W/$f.tsv"
	done
	FORMS='' WARMUP_QUIET=''
}

# steady_frame FRAMES CORRECTIONS FRAME: the steady state of FRAMES/FRAME.tsv
# on standard output: aligned with the table CORRECTIONS (unless it is
# empty: alignment declined), then split, by nsysjax-warmup -a in one
# pass (nsysjax-align -a piped into it read and wrote every row twice);
# streamed.  With WARMUP_SKIP set (report.sh --skip N), the first N
# executions of every program are initialisation instead
# (nsysjax-warmup -s N).
WARMUP_SKIP=''
steady_frame() {
	if lines2 "$2"; then
		warmup "$1" -a "$2" "$1/$3.tsv"
	else
		warmup "$1" "$1/$3.tsv"
	fi
}
# lines2 FILE: true when FILE has two lines or more (wc -l > 1), read
# by the shell itself.
lines2() { { IFS= read -r _l && IFS= read -r _l; } < "$1"; }
# warmup FRAMES [FILE]: nsysjax-warmup's steady state of FILE (or stdin),
# with the facts of the run FRAMES, or --skip's count; executions whose
# command buffers ran in another form than the program's last (XLA's
# warm-up) are left out by the thunk frame's forms: FORMS when set
# (nsysjax-warmup --forms-only of it, made once for several frames),
# else the frame itself.  WARMUP_QUIET set: no note of them (another
# frame's split says it).
FORMS='' WARMUP_QUIET=''
warmup() {
	_fr=$1
	shift
	if [ -n "$FORMS" ]; then
		set -- --forms-from "$FORMS" "$@"
	elif [ -f "$_fr/thunk.tsv" ]; then
		set -- --forms-from "$_fr/thunk.tsv" "$@"
	fi
	[ -z "$WARMUP_QUIET" ] || set -- -q "$@"
	if [ -n "$WARMUP_SKIP" ]; then
		nsysjax-warmup -s "$WARMUP_SKIP" "$@"
	else
		nsysjax-warmup -c "$_fr/compile.tsv" --communication-from "$_fr/communication.tsv" "$@"
	fi
}

# steady_out INPUT...: the prologue of a pipeline that writes into -o DIR
# from the steady thunk and module frames of a run, called after its
# options are dropped (shift $((OPTIND - 1))): -o and at least one INPUT
# are required (else the usage, exit 2); makes $OUT, sets F (frames) and
# SD, the directory of thunk.tsv and module.tsv (steady).
steady_out() {
	[ -n "$OUT" ] || bad_usage "no output directory (-o)"
	[ $# -gt 0 ] || bad_usage "no input"
	make_out "$OUT"
	frames "$@"
	steady thunk module
}

# top_modules MODULE: the ProgramIds of the top modules of a module frame,
# largest total ProjDurMs first, one per line: as the reference's
# notebook, modules are taken while those already taken make less than
# 99% of the total (lib/topmods.awk).
top_modules() {
	awk -f "$LIB/tsv.awk" -f "$LIB/sort.awk" -f "$LIB/topmods.awk" "$1"
}

# prefix12 S: P12 set to the first 12 characters of S (printf '%.12s',
# the short form of a ProgramId), without a command substitution.
prefix12() {
	P12=$1
	_r=${1#????????????}
	[ "$_r" = "$1" ] || P12=${1%"$_r"}
}

# head_lines N: the first N lines of standard input (head -n N), read by
# the shell itself: for a few short lines, cheaper than head's process.
head_lines() {
	_n=$1
	while [ "$_n" -gt 0 ]; do
		if IFS= read -r _l; then printf '%s\n' "$_l"; else printf '%s' "$_l"; break; fi
		_n=$((_n - 1))
	done
}

# sorted FILE KEYS...: FILE's header, then its rows sorted by the sort(1)
# keys given (fields separated by tabs, byte order).  The header is read
# by the shell, which leaves the rows to sort: one process, not three.
sorted() {
	f=$1
	shift
	{
		if IFS= read -r _h; then printf '%s\n' "$_h"; else printf '%s' "$_h"; fi
		LC_ALL=C sort -t "$TAB" "$@"
	} < "$f"
}

# put NAME FILE: the table NAME (FILE, TSV) to $OUT/NAME.tsv with -o
# (nothing to do when FILE is it: written in place, see table_dir);
# else to standard output, alone with -t NAME, else after a line
# "# NAME" and followed by an empty line.  Tables other than -t's are
# left out.
put() {
	[ -z "$ONLY" ] || [ "$ONLY" = "$1" ] || return 0
	if [ -n "$OUT" ]; then
		[ "$2" = "$OUT/$1.tsv" ] || cp "$2" "$OUT/$1.tsv"
	elif [ -n "$ONLY" ]; then
		cat "$2"
	else
		printf '# %s\n' "$1"
		cat "$2"
		echo
	fi
}
