#!/bin/bash
# nsysjax-profile: run a JAX program under `nsys profile` with JAX-friendly
# defaults and XLA dump flags, export the report to SQLite with the tables
# nsysjax reads, and write one output per process (a zip, or a directory)
# holding the .nsys-rep, the .sqlite, the HLO dumps and the Python sources
# they name: what NVIDIA's nsys-jax wrapper collects, without Python.
# `make` writes it to build/bin with its version filled in.  bash, not sh:
# arrays for the options, and a background job whose SIGINT is not
# ignored (see "nsys profile" below).
set -u
PROG=nsysjax-profile
VERSION='@VERSION@'
USAGE='nsysjax-profile [-fqzV] [-o name] [--no-zip] [-a analysis]... [nsys-option ...] [--] program [arg ...]'

# The tables of `nsys export --type sqlite` that nsysjax reads: the
# Makefile's EXPORT_TABLES.
TABLES='@EXPORT_TABLES@'

say() { [ "$quiet" = 1 ] || printf '%s: %s\n' "$PROG" "$*" >&2; }
warn() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
bad_usage() {
	[ $# -eq 0 ] || printf '%s: %s\n' "$PROG" "$*" >&2
	printf 'usage: %s\n' "$USAGE" >&2
	exit 2
}

help() {
	cat <<EOF
usage: $USAGE

  -o, --output=NAME     write NAME.zip (or the directory NAME with --no-zip);
                        %q{VAR} expands to \$VAR, %p to the process id, %h to
                        the host name, %% to %  (default nsysjax-%h-%p)
  -f, --force-overwrite replace an existing output
      --no-zip          write a directory, not a zip
  -z, --xz              compress the HLO dumps with xz
  -a, --analysis=NAME   afterwards, run pipelines/NAME.sh (report, summary,
                        communication, ...) on the output, into NAME.analysis/
  -q, --quiet           no progress lines
  -h, --help            this text
  -V, --version         the version

Options after these, up to --, go to nsys profile and win over ours:
  --cuda-graph-trace=node --cpuctxsw=none --python-sampling=true
  --trace=cublas,cuda,cudnn,cusolver,nvtx,osrt
EOF
	exit 0
}

# expand NAME: nsys's %q{VAR}, %p, %h and %% in NAME.
expand() {
	local s=$1 out='' var
	while [ -n "$s" ]; do
		case $s in
		%%*) out=$out%; s=${s#%%} ;;
		%p*) out=$out$$; s=${s#%p} ;;
		%h*) out=$out$(hostname 2> /dev/null || uname -n); s=${s#%h} ;;
		%q\{*\}*)
			var=${s#%q\{}; var=${var%%\}*}
			case $var in '' | *[!A-Za-z0-9_]*) bad_usage "-o: bad variable name in '$1'" ;; esac
			[ -n "${!var+set}" ] || die "-o $1: \$$var is not set"
			out=$out${!var}; s=${s#%q\{"$var"\}} ;;
		*) out=$out${s%"${s#?}"}; s=${s#?} ;;
		esac
	done
	printf '%s' "$out"
}

# ---- options ----
output='nsysjax-%h-%p' force=0 zip=1 xz=0 quiet=0 analyses=()
while [ $# -gt 0 ]; do
	case $1 in
	-o | --output) [ $# -ge 2 ] || bad_usage "option '$1' needs an argument"; output=$2; shift 2 ;;
	--output=*) output=${1#*=}; shift ;;
	-f | --force-overwrite) force=1; shift ;;
	--no-zip) zip=0; shift ;;
	-z | --xz) xz=1; shift ;;
	-a | --analysis) [ $# -ge 2 ] || bad_usage "option '$1' needs an argument"; analyses+=("$2"); shift 2 ;;
	--analysis=*) analyses+=("${1#*=}"); shift ;;
	-q | --quiet) quiet=1; shift ;;
	-h | --help) help ;;
	-V | --version) printf '%s %s\n' "$PROG" "$VERSION"; exit 0 ;;
	*) break ;;
	esac
done
# [nsys options] -- program args, or program args (as nsys-jax reads them).
nsysopts=() dashdash=0
for a in "$@"; do
	if [ "$a" = -- ]; then
		dashdash=1
		while [ "$1" != -- ]; do nsysopts+=("$1"); shift; done
		shift
		break
	fi
done
[ $# -gt 0 ] || bad_usage "no program to profile"
# Without --, an option where the program should be is an nsys option
# given in the wrong place (nsys-jax's rule too), not a program's name.
if [ "$dashdash" = 0 ]; then
	case $1 in
	-?*) bad_usage "$1: nsys options go before --: $PROG [options] [nsys options] -- program ..." ;;
	esac
fi
for a in "${nsysopts[@]+"${nsysopts[@]}"}"; do
	case $a in
	-o | --output | --output=* | -o?*) bad_usage "give the output name to $PROG -o, not to nsys" ;;
	esac
done
for a in "${analyses[@]+"${analyses[@]}"}"; do
	case $a in '' | */* | .*) bad_usage "--analysis '$a': not a pipeline name" ;; esac
done

# has_opt LONG [SHORT]: whether the user's nsys options set --LONG.
has_opt() {
	local a
	for a in "${nsysopts[@]+"${nsysopts[@]}"}"; do
		case $a in "--$1" | "--$1="*) return 0 ;; esac
		[ $# -lt 2 ] || case $a in "$2" | "$2"?*) return 0 ;; esac
	done
	return 1
}

# ---- checks before the run ----
command -v nsys > /dev/null 2>&1 ||
	die "nsys not found: install Nsight Systems (its CLI, nsys) and put it on PATH"
command -v "$1" > /dev/null 2>&1 || die "program not found: $1"
name=$(expand "$output") || exit
name=${name%.zip}
name=${name%.nsys-rep}
[ -n "$name" ] || bad_usage "-o: empty output name"
final=$name
[ "$zip" = 1 ] && final=$name.zip
outdir=$(dirname -- "$final")
base=$(basename -- "$name")
[ -d "$outdir" ] || mkdir -p -- "$outdir" 2> /dev/null || die "$outdir: cannot create directory"
[ -w "$outdir" ] || die "$outdir: output not writable"
if [ -e "$final" ] && [ "$force" = 0 ]; then
	die "$final exists: give -f to replace it"
fi

# The trap before the directory: none is left by a signal between them.
tmp='' dumptmp=''
trap 'rm -rf -- ${tmp:+"$tmp"} ${dumptmp:+"$dumptmp"}' EXIT
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nsysjax-profile.XXXXXX") || die "cannot make a temporary directory"

# ---- the environment of the program ----
export JAX_TRACEBACK_IN_LOCATIONS_LIMIT=${JAX_TRACEBACK_IN_LOCATIONS_LIMIT--1}
export JAX_ENABLE_COMPILATION_CACHE=${JAX_ENABLE_COMPILATION_CACHE-false}
xla=${XLA_FLAGS-} dump=''
# XLA splits its flags at white space; they are not globbed (flags hold
# regular expressions: --xla_dump_hlo_module_re=.*step.*).
read -r -a xlaflags <<< "$xla"
for f in "${xlaflags[@]+"${xlaflags[@]}"}"; do
	case $f in --xla_dump_to=*) dump=${f#--xla_dump_to=} ;; esac
done
case " $xla " in *" --xla_dump_hlo_as_proto"*) ;; *) xla="$xla --xla_dump_hlo_as_proto=true" ;; esac
if [ -z "$dump" ]; then
	dump=$tmp/dump
	# A TMPDIR with white space cannot be named in XLA_FLAGS.
	case $dump in
	*[[:space:]]*)
		dumptmp=$(mktemp -d /tmp/nsysjax-dump.XXXXXX) || die "cannot make a temporary directory"
		dump=$dumptmp/dump ;;
	esac
	xla="$xla --xla_dump_to=$dump"
fi
export XLA_FLAGS=${xla# }

# ---- nsys profile ----
defaults=()
has_opt cuda-graph-trace || defaults+=(--cuda-graph-trace=node)
has_opt cpuctxsw || defaults+=(--cpuctxsw=none)
has_opt python-sampling || defaults+=(--python-sampling=true)
has_opt trace -t || defaults+=(--trace=cublas,cuda,cudnn,cusolver,nvtx,osrt)
rep=$tmp/$base
say "profiling: nsys profile ${defaults[*]-} ${nsysopts[*]-} $*"
# nsys stays in our process group, so that the program may read the
# terminal (in a group of its own it would stop on SIGTTIN), and runs in
# a background subshell only so that a SIGTERM to us can be forwarded.
# The terminal's Ctrl-C reaches nsys and the program directly: we only
# outlive it (trap :), never send a second one.  SIGTERM is forwarded to
# nsys, with SIGCONT for a stopped nsys.
# The subshell outlives the signals too (trap :, which its children do
# not inherit: they start with every signal at its default), writes
# nsys's pid before exec-ing it, and nsys's exit status once it ends: a
# wait interrupted by a trapped signal just as its child ends may lose
# the child's status (bash 5.2 then gives 255), so the status is read
# from that file.  Without job control wait returns when the subshell
# ends or a trapped signal arrives, never on a stop: a stopped program
# costs no CPU here.
pid='' npid='' term=0
# forward: SIGTERM to nsys once its pid is known (a SIGTERM that came
# before is sent then), SIGCONT to it and to the subshell (stopped too,
# it would never write the status).
forward() {
	[ -n "$npid" ] || [ ! -s "$tmp/nsys.pid" ] || npid=$(cat "$tmp/nsys.pid")
	[ -z "$npid" ] || { kill -TERM "$npid"; kill -CONT "$npid"; } 2> /dev/null
	[ -z "$pid" ] || kill -CONT "$pid" 2> /dev/null
}
trap : INT
trap 'term=1; forward' TERM
( trap : INT QUIT TERM
  sh -c 'echo $$ > "$1" && shift && exec "$@"' sh "$tmp/nsys.pid" \
      nsys profile "${defaults[@]+"${defaults[@]}"}" "${nsysopts[@]+"${nsysopts[@]}"}" \
      --output="$rep" --force-overwrite=true "$@"
  echo $? > "$tmp/nsys.status" ) &
pid=$!
while kill -0 "$pid" 2> /dev/null; do
	wait "$pid"
	[ "$term" = 0 ] || [ -n "$npid" ] || forward
done
rc=$(cat "$tmp/nsys.status" 2> /dev/null) || rc=1
trap - INT TERM
[ -s "$rep.nsys-rep" ] || die "nsys wrote no report (program exit status $rc)"
[ "$rc" = 0 ] || warn "the program exited with status $rc; keeping its partial profile"

# ---- post-processing ----
stage=$tmp/out/$base
mkdir -p "$stage/dump"
mv "$rep.nsys-rep" "$stage/$base.nsys-rep"
say "exporting the report to SQLite"
if ! nsys export --type=sqlite --force-overwrite=true --tables="$TABLES" \
    --output="$stage/$base.sqlite" "$stage/$base.nsys-rep" > "$tmp/export.log" 2>&1; then
	# Releases without --tables export everything.
	nsys export --type=sqlite --force-overwrite=true \
	    --output="$stage/$base.sqlite" "$stage/$base.nsys-rep" > "$tmp/export.log" 2>&1 || {
		nsys export --help 2>&1 | grep -qi sqlite ||
			die "$(nsys --version 2>&1 | head -n 1): too old to export SQLite (nsys export --type=sqlite)"
		die "nsys export failed: $(tail -n 1 "$tmp/export.log")"
	}
fi
[ -s "$stage/$base.sqlite" ] || die "nsys export wrote no $base.sqlite"

ndump=0
for f in "$dump"/*.pb "$dump"/*.pbtxt; do
	[ -f "$f" ] || continue
	cp -- "$f" "$stage/dump/" || die "$f: cannot copy"
	ndump=$((ndump + 1))
done
empty_dump=''
if [ "$ndump" = 0 ]; then
	empty_dump="no HLO dump in $dump after the run (JAX compilation cache hit? set JAX_ENABLE_COMPILATION_CACHE=false or clear the cache)"
	warn "$empty_dump"
elif [ "$xz" = 1 ]; then
	xz -T1 -q -- "$stage"/dump/* || die "xz failed on the dumps"
fi

# The Python sources named by the dumps' stack frames
# ("file:line[:column][function]", a TSV field: \\ \t \n \r escaped).
# A path with a ".." component is not followed out of the stage.
if [ "$ndump" -gt 0 ]; then
	if nsysjax-extract -m -f stackframes -- "$stage" > "$tmp/frames.tsv" 2> "$tmp/frames.err"; then
		awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Frame") c = i; next }
		    function unescape(s,   o, i, ch) {
			o = ""
			for (i = 1; i <= length(s); i++) {
				ch = substr(s, i, 1)
				if (ch == "\\" && i < length(s)) {
					ch = substr(s, ++i, 1)
					ch = ch == "t" ? "\t" : ch == "n" ? "\n" : ch == "r" ? "\r" : ch
				}
				o = o ch
			}
			return o
		    }
		    c { f = unescape($c); sub(/(:[0-9]+)+\[[^]]*\]$/, "", f)
			if (f ~ /^\// && f !~ /\n/ && !(f in s)) { s[f]; print f } }' \
		    "$tmp/frames.tsv" | while IFS= read -r src; do
			case /$src/ in */../*) continue ;; esac
			[ -f "$src" ] || continue
			mkdir -p "$stage/sources$(dirname -- "$src")" && cp -- "$src" "$stage/sources$src"
		done
	else
		warn "Python sources not gathered: $(head -n 1 "$tmp/frames.err")"
	fi
fi

# ---- the output, whole or not at all ----
part=$outdir/.$base.part$$
rm -rf -- "$part"
if [ "$zip" = 1 ]; then
	command -v zip > /dev/null 2>&1 || die "zip not found: install zip, or give --no-zip"
	(cd "$stage" && zip -q -r -X -D "$tmp/out.zip" .) || die "zip failed"
	mv -- "$tmp/out.zip" "$part" || die "$final: cannot write"
else
	mv -- "$stage" "$part" 2> /dev/null || cp -R -- "$stage" "$part" || die "$final: cannot write"
fi
rm -rf -- "$final"
mv -- "$part" "$final" || die "$final: cannot write"
say "wrote $final"

# ---- analyses ----
status=$rc
if [ "${#analyses[@]}" -gt 0 ]; then
	here=$(cd -- "$(dirname -- "$0")" && pwd)
	pipelines=${NSYSJAX_PIPELINES:-}
	for d in "$here/../share/nsysjax/pipelines" "$here/../../pipelines"; do
		[ -n "$pipelines" ] || [ ! -d "$d" ] || pipelines=$d
	done
	[ -n "$pipelines" ] || die "pipelines not found: set NSYSJAX_PIPELINES"
	for a in "${analyses[@]}"; do
		if [ ! -f "$pipelines/$a.sh" ]; then
			warn "--analysis $a: no $pipelines/$a.sh"
			[ "$status" != 0 ] || status=1
			continue
		fi
		say "analysis $a"
		mkdir -p "$name.analysis"
		if ! NSYSJAX_BIN=${NSYSJAX_BIN:-$here} sh "$pipelines/$a.sh" -o "$name.analysis/$a" "$final" \
		    > "$name.analysis/$a.txt" 2> "$tmp/analysis.err"; then
			warn "--analysis $a failed: $(tail -n 1 "$tmp/analysis.err")"
			[ "$status" != 0 ] || status=1
		fi
	done
fi
if [ -n "$empty_dump" ] && [ "$status" = 0 ]; then
	status=1
fi
exit "$status"
