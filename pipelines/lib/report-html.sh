# report-html.sh, sourced by report.sh after report-tables.sh:
# html_report OUT INPUT... writes OUT/report.html, the report as one
# self-contained page for a person (the notebook's place): the tables of
# report-tables.sh in sections, every plot of OUT/plots inline as SVG, and
# the flame graphs inline when a renderer made them, else links to the
# folded files with the command that renders them; and the comparison
# with another run that pipelines/diff.sh -o OUT/diff wrote before, if
# any (its self-contained section).  No network and no other file: a Content-Security-Policy forbids every load but inline
# styles and data: images.

# esc: stdin HTML-escaped.
esc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }

# inline_svg FILE CAPTION: FILE's <svg> element (its XML prolog and
# doctype dropped) in a <figure>.
inline_svg() {
	[ -s "$1" ] || return 0
	printf '<figure>\n'
	sed -n '/<svg/,$p' "$1"
	printf '<figcaption>%s</figcaption>\n</figure>\n' "$(printf '%s' "$2" | esc)"
}

# html_plots PART: the plots that belong to section PART.
html_plots() {
	p=$OUT/plots
	case $1 in
	thunks) inline_svg "$p/variability.svg" 'Duration spread of the most variable thunks: mean, minimum and maximum over executions and devices'
		inline_svg "$p/variability-scatter.svg" 'Every compute thunk: mean duration against relative standard deviation (data: plots/variability-scatter.tsv)' ;;
	communication)
		inline_svg "$p/bandwidth.svg" 'Bus bandwidth by message size (nccl-tests definition, GB/s = 1e9 B/s)'
		inline_svg "$p/waits.svg" 'Wait per collective instance: the spread of its exposed time over devices'
		inline_svg "$p/wait-size.svg" 'Wait against message size, per collective' ;;
	alignment)
		inline_svg "$p/skews.svg" 'End-time skew of each device per complete collective instance'
		inline_svg "$p/skews-distribution.svg" 'Distribution of the end-time skews, per device (data: plots/skews-by-device.tsv)'
		inline_svg "$p/stragglers.svg" 'Start bias of each device per module: how far it runs behind (+) or ahead (-)'
		module_plots stragglers 'Straggler bias over the module (each device against the mean over devices, per thunk; circles: collectives)' ;;
	memory)
		# One plot per top module; the largest peak's alone when
		# there are none (an earlier layout of plots/).
		if [ -n "$(ls "$p"/heap-*.svg 2> /dev/null)" ]; then
			module_plots heap 'Heap usage over program order'
		else
			inline_svg "$p/heap.svg" 'Heap usage over program order, the module with the largest peak'
		fi ;;
	esac
}

# module_plots KIND CAPTION: each plots/KIND-<ProgramId:12>.svg inline,
# captioned with its module, and linked with its data (.tsv).
module_plots() {
	for f in "$OUT"/plots/"$1"-*.tsv; do
		[ -f "$f" ] || continue
		b=${f##*/}
		b=${b%.tsv}
		k=${b#"$1"-}
		m=$(awk -F'\t' -v k="$k" 'NR > 1 && index($1, k) == 1 { print $2; exit }' "$OUT/summary/modules.tsv" 2> /dev/null)
		inline_svg "$OUT/plots/$b.svg" "$2: $m ($k)"
		printf '<p class="note">%s (%s): <a href="plots/%s.svg">plots/%s.svg</a>, data <a href="plots/%s.tsv">plots/%s.tsv</a></p>\n' \
		    "$(printf '%s' "$m" | esc)" "$k" "$b" "$b" "$b" "$b"
	done
}

# html_flamegraphs: the whole run's graphs inline (their idle frames
# included) and linked, and one per top module linked
# (flamegraphs/modules.tsv): opened as files, flamegraph.pl's SVGs zoom
# and search, which this page's Content-Security-Policy stops.  Without a
# renderer, the folded files and how to render or open them.
html_flamegraphs() {
	printf '</section>\n<section id="flamegraphs">\n<h2>Flame graphs</h2>\n'
	fg=$OUT/flamegraphs
	for k in source op_name; do
		if [ -s "$fg/$k.svg" ]; then
			printf '<p>The whole run by %s, idle time included: <a href="flamegraphs/%s.svg">flamegraphs/%s.svg</a> (open it to zoom and search).</p>\n' "$k" "$k" "$k"
			inline_svg "$fg/$k.svg" "GPU time by $k (folded stacks in flamegraphs/$k.folded)"
		else
			printf '<p>GPU time by %s: <a href="flamegraphs/%s.folded">flamegraphs/%s.folded</a>; render it with <code>flamegraph.pl --hash --countname=us flamegraphs/%s.folded &gt; %s.svg</code> (no renderer was on PATH).</p>\n' \
			    "$k" "$k" "$k" "$k" "$k"
		fi
	done
	if [ -s "$fg/modules.tsv" ]; then
		printf '<h3>Per module (steady state, its own thunks: no idle time)</h3>\n<ul>\n'
		tail -n +2 "$fg/modules.tsv" | while IFS="$TAB" read -r id name ms f; do
			printf '<li>%s (%.12s):' "$(printf '%s' "$name" | esc)" "$id"
			for k in source op_name; do
				if [ -s "$fg/$f.$k.svg" ]; then e=svg; else e=folded; fi
				printf ' <a href="flamegraphs/%s.%s.%s">%s</a>' "$f" "$k" "$e" "$k"
			done
			printf '</li>\n'
		done
		printf '</ul>\n'
	fi
	[ -s "$fg/source.svg" ] ||
		printf '<p class="note">flamegraph.pl is not packaged in Debian: get it from github.com/brendangregg/FlameGraph (or inferno-flamegraph: cargo install inferno) and put it on PATH before the report. The .folded files also open as they are in speedscope (speedscope.app, or npm install -g speedscope).</p>\n'
	printf '</section>\n'
}

html_report() {
	out=$1
	shift
	{
		cat <<'EOF'
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nsysjax report</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1.5em 3em; color: #1b1b1b; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #76b900; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin: 1.4em 0 0.4em; font-size: 1.05em; }
nav { position: sticky; top: 0; background: #fff; padding: 0.5em 0; border-bottom: 1px solid #ddd; }
nav a { margin-right: 1.2em; color: #2a5db0; text-decoration: none; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.3em 0 1em; }
th, td { padding: 0.2em 0.7em; text-align: left; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { background: #f3f5f0; position: sticky; top: 2.4em; }
td.n, th.n { text-align: right; }
tr:hover td { background: #fafbf7; }
figure { margin: 1em 0 2em; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
code { background: #f3f3f3; padding: 0.1em 0.3em; }
.note { color: #555; }
p.lead { margin: 0.4em 0; font-weight: 500; }
</style>
</head>
<body>
<header>
<h1>nsysjax report</h1>
EOF
		printf '<p>Profiles:'
		for i; do printf ' <code>%s</code>' "$(printf '%s' "${i##*/}" | esc)"; done
		printf '</p>\n'
		cat <<'EOF'
<p class="note">Times of the steady state: clocks aligned across devices, warm-up executions removed. A mean(uncertainty) is the mean and the standard deviation over executions in the notation of nsys-jax (126.5(7) is 126.5 &plusmn; 0.7). The TSV files beside this page hold every number at full precision.</p>
<nav><a href="#summary">Summary</a><a href="#modules">Modules</a><a href="#thunks">Thunks</a><a href="#communication">Communication</a><a href="#alignment">Alignment</a><a href="#compilation">Compilation</a><a href="#memory">Memory</a><a href="#flamegraphs">Flame graphs</a></nav>
</header>
<main>
EOF
		FORMAT=html PART_HOOK=html_plots report_tables "$out"
		html_plots memory
		html_flamegraphs
		# -- roofline (issue 20): pipelines/roofline.sh's own section
		[ ! -s "$out/roofline/section.html" ] || cat "$out/roofline/section.html"
		# issue 21: the critical-path section (pipelines/critpath.sh)
		[ ! -s "$out/critpath/critpath-section.html" ] || cat "$out/critpath/critpath-section.html"
		[ ! -s "$out/diff/diff-section.html" ] || cat "$out/diff/diff-section.html"
		printf '</main>\n</body>\n</html>\n'
	} > "$out/report.html.tmp" && mv "$out/report.html.tmp" "$out/report.html"
}
