# Shared helpers of the shell test suites (sourced).  Each suite calls
# ok/notok/skip per case and ends with `done_testing NAME`, which prints
# "NAME: N passed, N failed, N skipped" for tests/run.sh.
: "${BIN:=build/bin}" "${SHARED:=../shared}"
# SHARED may be relative or absolute: made absolute here, so that a suite
# may cd elsewhere and still name $DATA and $GOLD.
case $SHARED in /*) ;; *) [ ! -d "$SHARED" ] || SHARED=$(cd -- "$SHARED" && pwd) ;; esac
DATA=$SHARED/data/pax_fsdp4_4proc
GOLD=$SHARED/golden
T=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-test.XXXXXX")
# Interrupted, a suite stops (it would go on without $T, failing noisily).
trap 'rm -rf "$T"' EXIT
# The per-user cache (.nsys-rep exports) of the run, not the user's.
XDG_CACHE_HOME=$T/cache; export XDG_CACHE_HOME
trap 'exit 130' INT
trap 'exit 143' TERM
# The counts are lines of files, not variables: a case run in a
# pipeline's subshell (`echo "$WANT" | expect NAME`, `... | mk NAME`)
# counts too, where a variable's increment would be lost with the
# subshell (and a failure there pass unnoticed).
: > "$T/.pass"; : > "$T/.fail"; : > "$T/.skip"
ok() { echo >> "$T/.pass"; }
notok() { echo >> "$T/.fail"; echo "FAIL: $*"; }
skip() { echo >> "$T/.skip"; echo "skipped: $*"; }
# need TOOL...: true when every TOOL is on PATH.  Otherwise the caller
# skips its cases, and under NSYSJAX_STRICT=1 (CI: .ci/run, where setup.sh
# has installed every tool the suites use) the lack is a failure.
need() {
	for _t; do
		command -v "$_t" > /dev/null 2>&1 && continue
		if [ "${NSYSJAX_STRICT:-0}" = 1 ]; then notok "$_t is not installed (run ./setup.sh --test)"
		else skip "$_t is not installed"; fi
		return 1
	done
}
check() {
	# check TITLE CMD...: run CMD, pass if it exits 0.
	title=$1; shift
	if "$@" >"$T/out" 2>&1; then ok; else notok "$title"; sed 's/^/  /' "$T/out" | head -20; fi
}
# expect_error [-r] STATUS TEXT CMD...: CMD fails with exit STATUS, its
# stderr holds TEXT (a fixed string) in one line for a bad input (STATUS
# 1), or the message and the usage lines for a bad call (STATUS 2, at
# most three lines), and nothing went to stdout; with -r, rows before the
# bad one may have (a streaming filter).  The error contract of
# README.md, "Errors".
expect_error() {
	_rows=0; [ "$1" = -r ] && { _rows=1; shift; }
	_want=$1 _pat=$2; shift 2
	"$@" > "$T/o" 2> "$T/e"; _rc=$?
	_max=1; [ "$_want" -eq 2 ] && _max=3
	if [ $_rc -ne "$_want" ]; then notok "exit $_rc, want $_want: $*"; sed 's/^/  /' "$T/e"
	elif [ "$(wc -l < "$T/e")" -gt $_max ] || [ ! -s "$T/e" ]; then notok "not one message: $*"; sed 's/^/  /' "$T/e"
	elif ! grep -qF -- "$_pat" "$T/e"; then notok "message '$(cat "$T/e")' lacks '$_pat': $*"
	elif [ $_rows -eq 0 ] && [ -s "$T/o" ]; then notok "output written on error: $*"
	else ok; fi
}
have_data() { [ -d "$DATA" ] && [ -d "$GOLD" ]; }
# need_built PROG SUITE: PROG, a generator of test inputs the Makefile
# builds (MKEXPORT, MKEXAMPLE), is there; else SUITE fails here, saying
# how to build it.
need_built() {
	[ -x "$1" ] && return 0
	notok "$1 not built (make $1)"
	done_testing "$2"
	exit 1
}
# AWK_NS: the awk function ns(S), milliseconds as the frames write them
# (a plain decimal) to integer ns, exactly: from the digits, without the
# rounding of a float multiplication.  A program starts with it:
# awk "$AWK_NS"' ... ns($2) ...'.
AWK_NS='function ns(s,   neg, i, f) {
	neg = s ~ /^-/; sub(/^-/, "", s)
	i = s; f = ""
	if (index(s, ".")) { i = substr(s, 1, index(s, ".") - 1); f = substr(s, index(s, ".") + 1) }
	f = substr(f "000000", 1, 6)
	return (neg ? -1 : 1) * (i * 1000000 + f)
}'
# Huge pages (mem_huge_pages in lib/base/mem.h; pipelines/lib/common.sh).
# thp_madvise: whether the kernel's THP mode here is madvise.
# hugetlb_want PRE ON: the GLIBC_TUNABLES a program passes on when it
# started with PRE ("-": unset) and adds glibc.malloc.hugetlb=1 (ON 1) or
# not (0): a value naming hugetlb is kept as it is, others gain it.
# with_tunables PRE ARG...: env(1) ARG... with GLIBC_TUNABLES unset (PRE
# "-") or PRE.
thp_madvise() {
	case $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null) in
	*"[madvise]"*) return 0 ;;
	esac
	return 1
}
hugetlb_want() {
	case $1:$2 in
	*glibc.malloc.hugetlb*) printf '%s' "$1" ;;
	-:1) printf 'glibc.malloc.hugetlb=1' ;;
	-:*) ;;
	*:1) printf '%s:glibc.malloc.hugetlb=1' "$1" ;;
	*) printf '%s' "$1" ;;
	esac
}
with_tunables() {
	_pre=$1; shift
	if [ "$_pre" = - ]; then env -u GLIBC_TUNABLES "$@"; else env GLIBC_TUNABLES="$_pre" "$@"; fi
}
# cmpframe GOLDEN OURS KEYS [SKIP]: the golden comparison of tests/cmpframe.awk
# col FILE NAME...: the columns NAME... of TSV FILE (header included),
# in that order, found by name in its header.
col() {
	_f=$1; shift
	awk -F'\t' -v want="$*" 'BEGIN { OFS = "\t"; n = split(want, w, " ") }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
		  for (k = 1; k <= n; k++) if (!(w[k] in c)) { print "no column " w[k] > "/dev/stderr"; exit 1 } }
	{ s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? OFS : "") $c[w[k]]; print s }' "$_f"
}
cmpframe() { awk -v KEYS="$3" -v SKIP="${4:-}" -f tests/cmpframe.awk "$1" "$2"; }
done_testing() {
	set -- "$1" "$(wc -l < "$T/.pass")" "$(wc -l < "$T/.fail")" "$(wc -l < "$T/.skip")"
	echo "$1: $(($2)) passed, $(($3)) failed, $(($4)) skipped"
	[ "$3" -eq 0 ]
}
