#!/bin/sh
# Install what nsysjax needs to build and test on Debian 12 (only what is
# missing; apt-get needs root), then build.  Idempotent: run it before any
# make target on a fresh machine.
set -eu
PKGS="gcc make pkg-config libc6-dev libzip-dev liblzma-dev libprotobuf-c-dev
protobuf-c-compiler libcsv-dev libsnappy-dev libzstd-dev zlib1g-dev libsqlite3-dev
xz-utils zip unzip time mandoc clang libclang-rt-14-dev perl gnuplot-nox
chromium parallel"
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
make -s all
