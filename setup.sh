#!/bin/sh
# Install what nsysjax needs to build and test on Debian 12 (only what is
# missing; apt-get needs root), then build.  Idempotent: run it before any
# make target on a fresh machine.
set -eu
PKGS="gcc make pkg-config libc6-dev libzip-dev liblzma-dev libprotobuf-c-dev
protobuf-c-compiler libcsv-dev libsnappy-dev libzstd-dev zlib1g-dev libsqlite3-dev
xz-utils zip unzip time mandoc clang libclang-rt-14-dev perl gnuplot-nox
chromium parallel"
# ---- the tests of nsysjax-timeline (issue 22): protoc decodes its
# Perfetto output, node and jq read its JSON, Chromium runs speedscope;
# node and npm by command, as another node (NodeSource's) carries npm ----
PKGS="$PKGS protobuf-compiler jq"
command -v node > /dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm > /dev/null 2>&1 || PKGS="$PKGS npm"
# ---- end of the timeline's packages ----
# -- issue 26 (tests/t13-slurm.sh): test-only packages: a single-node Slurm
# -- and an sshd on localhost for the many-machine recipes.
PKGS="$PKGS slurm-wlm munge openssh-server openssh-client"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup.sh: missing Debian packages:$missing" >&2
		echo "setup.sh: run as root, or: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "setup.sh: installing$missing" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
# ---- the timeline's test viewer (issue 22): speedscope's static web app
# (npm package speedscope), fetched once into the cache that
# tests/t77-timeline.sh reads; skipped without npm or network.
SPEEDSCOPE_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/nsysjax/speedscope
if [ ! -f "$SPEEDSCOPE_CACHE/node_modules/speedscope/dist/release/index.html" ] &&
    command -v npm > /dev/null; then
	mkdir -p "$SPEEDSCOPE_CACHE" &&
	    npm install --prefix "$SPEEDSCOPE_CACHE" --no-audit --no-fund --silent speedscope@1.25.0 ||
		echo "setup.sh: could not fetch speedscope (npm): t77-timeline skips its viewer check" >&2
fi
# ---- end of the timeline's test viewer ----
make -s all
