#!/bin/sh
# extract-parallel.sh: nsysjax-extract over the processes of a large run
# on many machines with GNU parallel, then one merge.  Each input (one
# process's archive or export) is extracted by its own job, on this
# machine or on the hosts of -S (parallel --sshlogin), into PARTS/<n>;
# `nsysjax-extract --merge` then joins the parts, in input order, into
# DIR: the same bytes as `nsysjax-extract -o DIR input ...` on one machine.
#
# PARTS (default DIR/parts, removed after the merge unless -k) and the
# inputs must be at the same paths on every host (a shared filesystem),
# and nsysjax-extract on every host's PATH (or, with $NSYSJAX_BIN or the
# build next to this script, at that path on every host).  Give absolute
# paths for -S.  ssh options (a port, a key) go in ~/.ssh/config or in
# PARALLEL_SSH (GNU parallel's ssh command).
set -eu
USAGE='extract-parallel.sh [-k] [-S sshlogin[,...]] [-j jobs] [-P parts] -o DIR input ...'
TABLES=''
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

LOGINS='' JOBS='' PARTS='' KEEP=0
while getopts o:S:j:P:kh opt; do
	case $opt in
	S) LOGINS=$OPTARG ;;
	j) number "$OPTARG" "-j"; JOBS=$OPTARG ;;
	P) PARTS=$OPTARG ;;
	k) KEEP=1 ;;
	*) common_opt "$opt" "${OPTARG:-}" || bad_usage ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$OUT" ] || bad_usage "no -o DIR"
[ $# -gt 0 ] || bad_usage "no input"
command -v parallel > /dev/null || die "GNU parallel is not installed"
make_out "$OUT"
[ -n "$PARTS" ] || PARTS=$OUT/parts
mkdir -p "$PARTS"
PARTS=$(cd -- "$PARTS" && pwd)
n=$#
# The jobs of -S run in a remote shell, with the remote PATH: the
# nsysjax-extract common.sh chose ($NSYSJAX_BIN's, the build's) by its
# absolute path, else the one on each host's PATH.
XP=nsysjax-extract
if [ -n "${NSYSJAX_BIN:-}" ]; then
	XP=$(cd -- "$NSYSJAX_BIN" && pwd)/nsysjax-extract
elif [ -x "$HERE/../build/bin/nsysjax-extract" ]; then
	XP=$(cd -- "$HERE/../build/bin" && pwd)/nsysjax-extract
fi

# One job per input, each a single worker (parallel runs them side by
# side); {#} numbers them in input order from 1.  -q: parallel quotes
# every word of the command for the shell it runs it with (locally and
# over ssh), so that paths with spaces or quotes stay one word.
set -- --will-cite -q --halt now,fail=1 ${JOBS:+-j "$JOBS"} \
    ${LOGINS:+--sshlogin "$LOGINS"} \
    "$XP" -j 1 -o "$PARTS/{#}" -- {} ::: "$@"
parallel "$@" || die "an extraction failed (see above)"

i=1
set --
while [ "$i" -le "$n" ]; do
	set -- "$@" "$PARTS/$i"
	i=$((i + 1))
done
# The merge names a part by its directory, which is this run's own (a
# failed run leaves none): its messages name it by the input instead.
rc=0
nsysjax-extract --merge -o "$OUT" -- "$@" 2> "$OUT/.merge.err" || rc=$?
awk -v p="(in $PARTS/" '{
	while ((i = index($0, p)) > 0)
		$0 = substr($0, 1, i - 1) "(input " substr($0, i + length(p))
	print
}' "$OUT/.merge.err" >&2
rm -f "$OUT/.merge.err"
[ "$rc" -eq 0 ] || die "the merge failed"
[ "$KEEP" -eq 1 ] || rm -rf "$PARTS"
