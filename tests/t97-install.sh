#!/bin/sh
# make install: the tools, the man pages and the pipelines, into a
# DESTDIR; the installed nsysjax-report makes the example's report from
# another directory with nothing of the source tree on PATH or in the
# environment, and nsysjax-profile finds the installed pipelines.
set -u
. tests/lib.sh
O=${BIN%/bin}
EX=${EXAMPLE:-build/example/profile}
EXDIR=$(cd "$EX" 2> /dev/null && pwd) || { notok "no example profile ($EX)"; done_testing t97-install; exit; }
R=$T/root
${MAKE:-make} -s install O="$O" DESTDIR="$R" PREFIX=/usr > "$T/log" 2>&1 && ok || notok "make install: $(tail -3 "$T/log")"
for c in cmd/*.c cmd/*.sh; do
	t=${c#cmd/}; t=${t%.*}
	[ -x "$R/usr/bin/$t" ] && [ -f "$R/usr/share/man/man1/$t.1" ] && ok || notok "$t or its man page not installed"
done
for p in pipelines/*.sh pipelines/lib/*; do
	cmp -s "$p" "$R/usr/share/nsysjax/$p" && ok || notok "$p not installed"
done
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && env -u NSYSJAX_BIN PATH="$R/usr/bin:/usr/bin:/bin" \
    nsysjax-report -q -o out "$EXDIR/rank0" "$EXDIR/rank1") > "$T/out" 2> "$T/err" &&
	ok || notok "installed nsysjax-report: $(cat "$T/err")"
[ -s "$T/elsewhere/out/report.html" ] && cmp -s "$T/out" "$T/elsewhere/out/report.txt" && ok ||
	notok "installed report: no report.html or report.txt"
awk -F'\t' -v want="$(awk -F'\t' '$1 == "correction_ms.1" { print $2 }' "$EXDIR/truth.tsv")" \
    'NR == 3 { d = $2 - want; exit !(d * d < 1e-12) }' "$T/elsewhere/out/corrections.tsv" && ok ||
	notok "installed report: corrections $(tr '\n' ' ' < "$T/elsewhere/out/corrections.tsv")"
[ "$(env PATH="$R/usr/bin:/usr/bin:/bin" nsysjax-report --version)" = "nsysjax-report $(sed -n 's/^VERSION = //p' Makefile)" ] &&
	ok || notok "nsysjax-report --version"
${MAKE:-make} -s uninstall O="$O" DESTDIR="$R" PREFIX=/usr > /dev/null 2>&1
[ -z "$(find "$R" -type f)" ] && ok || notok "uninstall left $(find "$R" -type f | head -3)"
done_testing t97-install
