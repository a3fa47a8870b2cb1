#!/bin/sh
# report.html in a real browser: headless Chromium (Debian's chromium)
# loads the report of the four real archives (or, without ../shared, of
# the example) from disk; from the DOM it renders, every section, table
# and plot is there and the numbers are those of the TSV files; no
# request left the file; a screenshot is a PNG of the size asked for.
set -u
. tests/lib.sh
export NSYSJAX_BIN=$BIN
EX=${EXAMPLE:-build/example/profile}

if have_data; then
	set -- "$DATA"/pax_fsdp4_4proc_proc[0-3].zip
else
	set -- "$EX/rank0" "$EX/rank1"
fi
sh pipelines/report.sh -q -o "$T/r" "$@" > /dev/null 2> "$T/err" && ok || notok "report.sh: $(cat "$T/err")"
H=$T/r/report.html
[ -s "$H" ] && ok || { notok "no report.html"; done_testing t79-html; exit; }
# The aligned timeline beside the page, linked: a Perfetto trace (a
# protobuf whose first field, Trace.packet, is field 1, length-delimited:
# its first byte 0x0a).
[ "$(head -c 1 "$T/r/timeline.perfetto-trace" 2> /dev/null | od -A n -t x1 | tr -d ' ')" = 0a ] &&
    grep -q 'href="timeline.perfetto-trace"' "$H" && ok || notok "no timeline.perfetto-trace in the report directory, or not linked"

# page_ids PAGE: every id of PAGE is unique, and every in-page reference
# (url(#id), href="#id") names one of them: inlined SVGs each bring ids
# of their own (flamegraph.pl's "background", gnuplot's "gpPt1").
page_ids() {
	grep -o -E "[[:space:]]id=[\"'][^\"']*" "$1" | sed -E "s/^[[:space:]]id=[\"']//" | sort > "$T/ids"
	sort -u "$T/ids" | cmp -s - "$T/ids" && ok || notok "ids repeated in $1: $(uniq -d "$T/ids" | head -3)"
	grep -o -E "(url\(#|href=[\"']#)[^\"')]*" "$1" | sed -E "s/^(url\(#|href=[\"']#)//" | sort -u | comm -23 - "$T/ids" > "$T/dangling"
	[ ! -s "$T/dangling" ] && ok || notok "in-page references to no id in $1: $(head -3 "$T/dangling")"
}
# The page by itself: one file, nothing to fetch.  A strict
# Content-Security-Policy; no src, no href but in-page anchors and the
# report's own folded files, no url(), no @import, no address with a
# scheme but the SVG namespace names.  (Links to the report's flame
# graph files: opened as files, they zoom and search; and to each
# per-module plot and its data.)
grep -q "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"" "$H" &&
	ok || notok "no Content-Security-Policy"
grep -o -i -E '(src|href)="[^"]*"' "$H" | grep -v -E '^href="(#[a-z_-]+|timeline\.perfetto-trace|flamegraphs/[a-z0-9_.-]+\.(folded|svg)|critpath/[a-z0-9_.-]+\.tsv|plots/(heap|stragglers)-[0-9a-f]{12}\.(svg|tsv))"$' > "$T/links"
[ ! -s "$T/links" ] && ok || notok "links out of the page: $(head -3 "$T/links")"
grep -o -E '[a-z]+://[^" ]*' "$H" | grep -v -E '^http://www\.w3\.org/(2000/svg|1999/xlink)$' > "$T/urls"
[ ! -s "$T/urls" ] && ok || notok "addresses in the page: $(sort -u "$T/urls" | head -3)"
grep -q -i -E 'url\([^#]|@import|<script|<iframe|<link |<!--' "$H" && notok "url() of a resource, @import, script, link or comment in the page" || ok
page_ids "$H"

if need chromium; then
	chr() {
		chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		    --disable-background-networking --disable-component-update --disable-sync \
		    --user-data-dir="$T/chr" "$@" 2> /dev/null
	}
	chr --log-net-log="$T/net.json" --dump-dom "file://$H" > "$T/dom.html"
	[ -s "$T/dom.html" ] && ok || notok "chromium rendered no DOM"
	# Sections, tables and plots in the rendered DOM.
	for id in summary modules thunks communication alignment compilation memory flamegraphs reading; do
		grep -q "<section id=\"$id\">" "$T/dom.html" && ok || notok "section $id missing"
	done
	# The nav bar links every section of the page, and only those.
	grep -o '<section id="[a-z_-]*"' "$T/dom.html" | sed 's/.*id="\(.*\)"/\1/' | sort -u > "$T/secs"
	sed -n '/<nav>/,/<\/nav>/p' "$T/dom.html" | grep -o 'href="#[a-z_-]*"' | sed 's/href="#\(.*\)"/\1/' | sort -u > "$T/navs"
	cmp -s "$T/secs" "$T/navs" && grep -qx roofline "$T/navs" && grep -qx critpath "$T/navs" && ok ||
		notok "nav and sections differ: $(diff "$T/secs" "$T/navs" | grep '^[<>]' | tr '\n' ' ')"
	# No table wider than a 1400 px window: the document's scrollWidth
	# in Chromium, read by a script added to a copy of the page (the
	# page itself runs none: its policy forbids them).
	{
		grep -v 'Content-Security-Policy' "$H" | sed 's|</body>||; s|</html>||'
		echo '<script>document.title = "scrollWidth=" + document.documentElement.scrollWidth;</script></body></html>'
	} > "$T/r/width.html"
	chr --window-size=1400,900 --dump-dom "file://$T/r/width.html" > "$T/wdom.html"
	sw=$(sed -n 's/.*<title>scrollWidth=\([0-9]*\)<.*/\1/p' "$T/wdom.html" | head -n 1)
	[ -n "$sw" ] && [ "$sw" -le 1400 ] && ok || notok "page wider than a 1400 px window: scrollWidth ${sw:-unread}"
	rm -f "$T/r/width.html"
	nt=$(grep -c '<table>' "$T/dom.html")
	[ "$nt" -ge 11 ] && ok || notok "$nt tables"
	if command -v gnuplot > /dev/null; then
		for p in bandwidth waits wait-size skews stragglers variability heap; do
			[ -s "$T/r/plots/$p.svg" ] && ok || notok "plot $p.svg missing"
		done
		np=$(grep -c -E '<figure[ >]' "$T/dom.html")
		ns=$(sed -n '/<figure[ >]/,/<\/figure>/p' "$T/dom.html" | grep -c '<svg')
		[ "$np" -ge 7 ] && [ "$ns" -ge 7 ] && ok || notok "$np figures, $ns inline SVGs"
	fi
	# Numbers: the page shows the TSV's values, formatted (the bandwidth
	# table is checked cell for cell against the TSV by tests/reporttxt.awk
	# through report.txt; here the corrections and the hidden shares).
	# (with thousands separators in the integer part, as every time).
	awk -F'\t' 'NR > 1 { v = sprintf("%.6f", $2); neg = sub(/^-/, "", v); i = index(v, ".")
	    w = substr(v, 1, i - 1); g = ""; while (length(w) > 3) { g = "," substr(w, length(w) - 2) g; w = substr(w, 1, length(w) - 3) }
	    print (neg ? "-" : "") w g substr(v, i) }' "$T/r/corrections.tsv" > "$T/want"
	while read -r v; do
		grep -q "<td class=\"n\">$v</td>" "$T/dom.html" || echo "$v"
	done < "$T/want" > "$T/miss"
	[ -s "$T/want" ] && [ ! -s "$T/miss" ] && ok || notok "corrections not on the page: $(cat "$T/miss")"
	# (the table without barriers when the report left any out)
	hid=$T/r/communication/hidden.no-barriers.tsv
	[ -f "$hid" ] || hid=$T/r/communication/hidden.tsv
	awk -F'\t' 'NR > 1 { printf "%.2f%%\n", 100 * $5 }' "$hid" > "$T/want"
	while read -r v; do
		grep -q "<td class=\"n\">$v</td>" "$T/dom.html" || echo "$v"
	done < "$T/want" > "$T/miss"
	[ ! -s "$T/miss" ] && ok || notok "hidden shares not on the page: $(cat "$T/miss")"
	# The only file the browser read is the page; the only other
	# addresses in its log are Chromium's own background services.
	grep -o '"url":"[^"]*"' "$T/net.json" | sort -u | grep -v -E "\"url\":\"file://$H\"|google(apis)?\\.com/" > "$T/req"
	[ ! -s "$T/req" ] && ok || notok "requests: $(head -3 "$T/req")"
	# A screenshot: a PNG of the size asked for.
	chr --window-size=1200,3000 --screenshot="$T/page.png" "file://$H" > /dev/null
	wh=$(od -A n -t u1 -j 16 -N 8 "$T/page.png" 2> /dev/null |
	    awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 "x" $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')
	[ "$(head -c 8 "$T/page.png" | od -A n -t x1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$wh" = 1200x3000 ] &&
	    [ "$(wc -c < "$T/page.png")" -gt 50000 ] && ok || notok "screenshot: $wh, $(wc -c < "$T/page.png") bytes"
fi
# A comparison with another run written into the report's directory
# (pipelines/diff.sh -o DIR/diff) becomes a section of report.html.
if have_data; then
	sh pipelines/diff.sh -o "$T/r/diff" "$T/r/frames" -- "$T/r/frames" > /dev/null 2> "$T/err" &&
	    sh pipelines/report.sh -q -o "$T/r" "$T/r/frames" > /dev/null 2>> "$T/err" &&
	    grep -q '<section id="nsysjax-diff"' "$H" && ok || notok "diff section not in report.html: $(head -3 "$T/err")"
fi
# The barrier does not lead (the shared run: jit__psum is a barrier,
# pjit__wrapped_step_fn does the work).  The headline utilisation is the
# one the report computes with the barrier left out by -x (nsysjax-stats'
# totals over the frame without it: another path to the same number);
# the barrier is named as left out, with the whole figure; the what-if
# and the step drawn are the working module's.
if have_data; then
	sh pipelines/report.sh -q -x '^jit__psum$' -o "$T/rx" "$@" > /dev/null 2>&1
	for h in 'GPU busy over the steady state' 'Share of time inside XLA programs'; do
		want=$(grep "^$h: " "$T/rx/report.txt" | sed "s/^$h: //")
		got=$(grep "^$h, barriers left out: " "$T/r/report.txt" | sed "s/^$h, barriers left out: //")
		[ -n "$want" ] && [ "$got" = "$want" ] && ok || notok "headline $h '$got', want -x's '$want'"
	done
	grep -q '^Left out as barrier: jit__psum (6f8097e242d8)\. With it: .*(2\.[0-9][0-9]%).*-m .jit__psum.' "$T/r/report.txt" && ok ||
		notok "no line naming jit__psum as left out: $(grep -i 'left out' "$T/r/report.txt")"
	work=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["Name"] == "pjit__wrapped_step_fn" && $c["Devices"] == 3 { print substr($c["ProgramId"], 1, 12) }' "$T/r/modules/facts.tsv")
	[ -n "$work" ] && grep -q "One steady step ($work, execution" "$H" && ok || notok "step drawn is not pjit__wrapped_step_fn ($work)'s"
	wstep=$(awk -F'\t' -v w="$work" 'NR > 1 && substr($1, 1, 12) == w { printf "%.3f", $5 }' "$T/r/critpath/modules.tsv")
	grep -A1 '^What-if scenarios, the module that does the work' "$T/r/report.txt" | grep -q "^  measured  *measured  *$wstep " && ok ||
		notok "what-if not of the working module (step $wstep): $(grep -A1 '^What-if' "$T/r/report.txt")"
fi
# flamegraph.pl on PATH (tests/fake's: a script and event handlers as
# the real one's): the page still has no script and no on*= handler,
# the interactive SVGs are linked, the working module's inline first.
PATH=$(cd tests/fake && pwd):$PATH sh pipelines/report.sh -q -o "$T/rf" "$@" > /dev/null 2> "$T/err" && ok || notok "report.sh with flamegraph.pl: $(cat "$T/err")"
HF=$T/rf/report.html
[ -s "$T/rf/flamegraphs/source.svg" ] && grep -q '<script' "$T/rf/flamegraphs/source.svg" && ok || notok "the stand-in flamegraph.pl drew no SVG with a script"
grep -q -i '<script' "$HF" && notok "a script in report.html with flamegraph.pl" || ok
grep -q -i -E 'url\([^#]|<!--' "$HF" && notok "a comment or a url() of a resource in report.html with flamegraph.pl" || ok
page_ids "$HF"
grep -q -i -E '<[^>]*[[:space:]]on[a-z]+[[:space:]]*=' "$HF" && notok "an on*= handler in report.html: $(grep -o -i -E '[[:space:]]on[a-z]+=[^ >]*' "$HF" | sort -u | head -3)" || ok
grep -q 'href="flamegraphs/source.svg"' "$HF" && ok || notok "the whole run's interactive flame graph is not linked"
first=$(sed -n '/<section id="flamegraphs">/,/<\/section>/p' "$HF" | grep -o '<figcaption>[^<]*' | head -n 1)
if have_data; then
	case $first in *"pjit__wrapped_step_fn ($work), steady state, by source"*) ok ;; *) notok "first flame graph: $first" ;; esac
else
	[ -n "$first" ] && ok || notok "no inline flame graph"
fi
# One palette: a collective has one colour in every plot that names it
# (its key's sample line follows its name in gnuplot's SVG).
if command -v gnuplot > /dev/null && [ -s "$T/r/plots/bandwidth.svg" ]; then
	for p in bandwidth waits wait-size; do
		awk -v p="$p" '/<text>[a-z-]+<\/text>/ { t = $0; sub(/.*<text>/, "", t); sub(/<.*/, "", t); next }
		    t != "" && /stroke=.rgb/ { s = $0; sub(/.*stroke=.rgb\(/, "", s); sub(/\).*/, "", s); gsub(/ /, "", s); print t, s, p; t = "" }' "$T/r/plots/$p.svg"
	done | sort -u > "$T/colours"
	awk '{ if ($1 in c && c[$1] != $2) { print $1 ": " c[$1] " in " w[$1] ", " $2 " in " $3; bad = 1 } c[$1] = $2; w[$1] = $3; n++ }
	    END { exit bad || n < 3 }' "$T/colours" > "$T/colbad" && ok || notok "colours differ between plots: $(cat "$T/colbad")"
fi
done_testing t79-html
