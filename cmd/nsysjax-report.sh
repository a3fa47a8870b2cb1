#!/bin/sh
# nsysjax-report: the whole report of a run (pipelines/report.sh) from an
# installed copy: the pipelines are in ../share/nsysjax/pipelines beside
# this script's directory once installed, in the source tree's pipelines/
# when run from build/bin.  `make` fills in the version.
set -eu
case ${1:-} in
-V | --version) echo "nsysjax-report @VERSION@"; exit 0 ;;
-h | --help)
	cat <<EOF
usage: nsysjax-report [-q] [-B] [-j jobs] [-m regex] [-x regex] [-X extract-option] [--skip n] -o dir input ...

  -o dir      the output directory: report.txt, report.html, plots/, TSV
              (replaced whole once the new report is complete)
  -j jobs     pipelines at once (default: the online cores)
  -m regex    only the modules whose name or ProgramId matches
  -x regex    leave out the modules whose name or ProgramId matches
  -X option   one option for nsysjax-extract, repeatable (-X -d -X dumps,
              -X -k); a module without HLO dump is always a note
  --skip n    the first n executions of every module are warm-up
  -B          barriers (modules whose time is collective wait) in the
              headline and the tables, as any module; by default left
              out and named
  -q          no progress lines
  -h, --help  this text
  -V, --version  the version

Options may follow the inputs; -- ends them.
EOF
	exit 0 ;;
esac
here=$(cd -- "$(dirname -- "$0")" && pwd)
for d in "$here/../share/nsysjax/pipelines" "$here/../../pipelines"; do
	if [ -f "$d/report.sh" ]; then
		# The tools beside this script first: the ones installed with it.
		PATH=$here:$PATH
		export PATH
		exec sh "$d/report.sh" "$@"
	fi
done
echo "nsysjax-report: pipelines not found beside $here (../share/nsysjax/pipelines)" >&2
exit 1
