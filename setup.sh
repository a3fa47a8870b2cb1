#!/bin/sh
# Install what nsysjax needs on Debian 12 (only what is missing; apt-get
# needs root), then build.  Idempotent: run it before any make target on
# a fresh machine.
#
#   ./setup.sh          what `make` and `make run` need: the compiler, the
#                       -dev libraries, gnuplot (the plots) and perl
#                       (flamegraph.pl's language)
#   ./setup.sh --test   and what the test suites need (`make check`)
#
# As a user (not root) it builds as soon as what `make run` needs is
# there, and names the packages of the tests that are missing.
set -eu
usage() { echo "usage: ./setup.sh [--test]"; }
TEST=0
for a; do
	case $a in
	--test) TEST=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

# What `make` and `make run` need.
RUN_PKGS="gcc make pkg-config libc6-dev libzip-dev liblzma-dev libprotobuf-c-dev
protobuf-c-compiler libcsv-dev libsnappy-dev libzstd-dev zlib1g-dev libsqlite3-dev
perl gnuplot-nox"
# jansson parses XLA's backend_config JSON (lib/formats/hlocost.c)
RUN_PKGS="$RUN_PKGS libjansson-dev"

# ---- The packages of the tests (`./setup.sh --test`): one list, one
# package a line, so that additions merge.  Each line says what uses it.
TEST_PKGS="
xz-utils
zip
unzip
time
mandoc
clang
libclang-rt-14-dev
chromium
parallel
sqlite3
protobuf-compiler
jq
slurm-wlm
munge
openssh-server
openssh-client
"
# node and npm by command, as another node (NodeSource's) carries npm.
command -v node > /dev/null 2>&1 || TEST_PKGS="$TEST_PKGS nodejs"
command -v npm > /dev/null 2>&1 || TEST_PKGS="$TEST_PKGS npm"
# xz-utils, zip, unzip: archives made and read by the suites
# time: GNU time (peak memory, tests/bench)
# mandoc: the man pages checked, their EXAMPLES run (t98)
# clang, libclang-rt-14-dev: make fuzz (libFuzzer, sanitizers)
# chromium: report.html rendered headless (t79)
# parallel: pipelines/extract-parallel.sh
# sqlite3: the SQLite shell, to look into an nsys export when a suite fails
# protobuf-compiler, jq, nodejs, npm: the tests of nsysjax-timeline: protoc
#   decodes its Perfetto output, node and jq read its JSON, Chromium runs
#   speedscope
# slurm-wlm, munge, openssh-server, openssh-client: tests/t13-slurm.sh:
#   a single-node Slurm and an sshd on localhost
# ---- end of the packages of the tests

missing() {
	m=""
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			m="$m $p"
	done
	printf '%s' "$m"
}
# shellcheck disable=SC2086
run_missing=$(missing $RUN_PKGS)
test_missing=""
# shellcheck disable=SC2086
[ "$TEST" = 0 ] || test_missing=$(missing $TEST_PKGS)
all="$run_missing$test_missing"
# What it does, a line per step before it (apt-get and the build are
# quiet, and take from seconds to minutes).
# shellcheck disable=SC2086 # split into words on purpose
words() { set -- $1; echo $#; }
if [ -z "$all" ]; then
	[ "$TEST" = 1 ] && what="make run and the tests need" || what="make run needs"
	echo "setup.sh: the Debian packages $what are installed" >&2
fi
if [ -n "$all" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "setup.sh: installing $(words "$all") Debian package(s) with apt-get (a minute or more, downloads included):$all" >&2
		apt-get update -qq
		# What make run needs without the packages Debian recommends
		# beside them (the tests' packages keep theirs: chromium's fonts).
		# shellcheck disable=SC2086
		[ -z "$run_missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $run_missing >/dev/null
		# shellcheck disable=SC2086
		[ -z "$test_missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $test_missing >/dev/null
	elif [ -n "$run_missing" ]; then
		echo "setup.sh: missing Debian packages:$all" >&2
		echo "setup.sh: run as root, or: sudo apt-get install$all" >&2
		exit 1
	else
		echo "setup.sh: missing the tests' Debian packages:$test_missing (their tests are skipped)" >&2
		echo "setup.sh: run as root, or: sudo apt-get install$test_missing" >&2
	fi
fi
# ---- the timeline's test viewer, with --test: speedscope's
# static web app (npm package speedscope), fetched once into the cache
# that tests/t77-timeline.sh reads ($NSYSJAX_SPEEDSCOPE, default under
# $HOME/.cache: the suites set their own XDG_CACHE_HOME); skipped without
# npm or network.
SPEEDSCOPE_CACHE=${NSYSJAX_SPEEDSCOPE:-$HOME/.cache/nsysjax/speedscope}
if [ "$TEST" = 1 ] && [ ! -f "$SPEEDSCOPE_CACHE/node_modules/speedscope/dist/release/index.html" ] &&
    command -v npm > /dev/null; then
	# A registry this machine cannot reach (no network, a TLS proxy
	# whose CA it lacks) is recorded with npm's reason in
	# speedscope.unreachable beside the cache: t77 then says why it
	# skips, even under NSYSJAX_STRICT; a missing cache without that
	# record (setup.sh --test not run) fails there.
	echo "setup.sh: fetching speedscope 1.25.0 with npm into $SPEEDSCOPE_CACHE (the timeline tests' viewer)" >&2
	mkdir -p "$SPEEDSCOPE_CACHE"
	rm -f "$SPEEDSCOPE_CACHE.unreachable"
	if ! npm install --prefix "$SPEEDSCOPE_CACHE" --no-audit --no-fund --loglevel=error \
	    speedscope@1.25.0 > "$SPEEDSCOPE_CACHE.log" 2>&1; then
		{ grep -m 1 -E '(ERR!|error) (code|request)' "$SPEEDSCOPE_CACHE.log" ||
		    echo "npm install failed"; } > "$SPEEDSCOPE_CACHE.unreachable"
		echo "setup.sh: could not fetch speedscope (npm: $(cat "$SPEEDSCOPE_CACHE.unreachable")): t77-timeline skips its viewer check" >&2
	fi
fi
# ---- end of the timeline's test viewer ----
echo "setup.sh: building the nsysjax tools into build/bin (make all: about 30 s on 2 cores)" >&2
make -s all
echo "setup.sh: done; next: make run (the report of an example profile), or make run INPUTS=\"\$(ls prof_*.zip)\"" >&2
