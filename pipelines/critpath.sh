#!/bin/sh
# What bounds the step, and what a fix would buy (nsysjax-critpath) on the
# steady state of a run: into DIR, breakdown.tsv (the critical time by
# label per module execution), modules.tsv (the same per module, means
# over its executions), scenarios.tsv (every execution) and
# scenario-means.tsv (per module and scenario), path.tsv (the critical
# paths), step.svg (one steady step of the module with the most time: its
# median execution), critpath.txt (the tables for a person) and
# critpath-section.html (the report's section).  See doc/pipelines.md,
# "critpath.sh".
set -eu
USAGE='pipelines/critpath.sh -o dir [-s dir] [-C factor] [-x regex=factor] input ...'
TABLES=
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

COMM=0.5 SCALE=
while getopts o:s:C:x:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	C) number "$OPTARG" -C; COMM=$OPTARG ;;
	x) SCALE=$OPTARG ;;
	*) bad_usage ;;
	esac
done
shift $((OPTIND - 1))
steady_out "$@"
# A function, not a string: paths with spaces stay one word.
CP() { nsysjax-critpath -m "$SD/module.tsv" -H "$F/hlo.tsv" "$@"; }
# The three tables in one pass: each execution's graph built once.  Its
# notes are printed after the section; its error, at once (set -e would
# end the script with the message still in the work file).
CP -t breakdown,scenarios,path -o "$OUT" --comm-scale "$COMM" ${SCALE:+--scale "$SCALE"} \
    "$SD/thunk.tsv" 2> "$W/s.err" || { cat "$W/s.err" >&2; exit 1; }

# Per module: executions, means of the step and of each label, shares;
# per module and scenario: the mean predicted step and gain; the step to
# draw (lib/critpath-tables.awk, one pass).
MODULES=$OUT/modules.tsv MEANS=$OUT/scenario-means.tsv TOP=$W/top awk -F'\t' \
    -f "$LIB/sort.awk" -f "$LIB/critpath-tables.awk" "$OUT/breakdown.tsv" "$OUT/scenarios.tsv"

# The step drawn: the module with the most time, its median execution.
top='' exec=''
IFS="$TAB" read -r top exec < "$W/top" || :
if [ -e "$OUT/step.svg" ] || [ -L "$OUT/step.svg" ]; then rm -f "$OUT/step.svg"; fi
if [ -n "$top" ]; then
	# shellcheck disable=SC2086
	CP --svg -e "$top:$exec" "$SD/thunk.tsv" > "$OUT/step.svg" 2> /dev/null || rm -f "$OUT/step.svg"
fi

# The tables for a person (critpath.txt, also on standard output) and the
# report's section (critpath-section.html: the tables, the picture, the
# caveat); the notes of nsysjax-critpath on standard error.
OUT=$OUT W=$W awk -F'\t' -v p="$top" -v exec="$exec" '
BEGIN { OUT = ENVIRON["OUT"]; W = ENVIRON["W"] }	# paths as data, not -v
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
# load(FILE, A): the lines of FILE in A[1..]; their number.
function load(file, a,    n, line) {
	n = 0
	while ((getline line < file) > 0) a[++n] = line
	close(file)
	return n
}
# table(A, N, COLS): the rows of A (a TSV file), the columns COLS
# (comma-separated), at most 40 rows, as an HTML table.
function table(a, nl, cols,    n, want, c, i, r, v) {
	n = split(cols, want, ",")
	for (r = 1; r <= nl; r++) {
		$0 = a[r]
		if (r == 1) { for (i = 1; i <= NF; i++) c[$i] = i; printf "<table>\n<tr>" > H
			for (i = 1; i <= n; i++) printf "<th%s>%s</th>", (want[i] ~ /(Ms|Pct|Share|Devices|Executions)$/ ? " class=\"n\"" : ""), want[i] > H
			print "</tr>" > H; continue }
		if (r > 41) continue
		printf "<tr>" > H
		for (i = 1; i <= n; i++) { v = $c[want[i]]; if (want[i] == "ProgramId") v = substr(v, 1, 12)
			printf "<td%s>%s</td>", (want[i] ~ /(Ms|Pct|Share|Devices|Executions)$/ ? " class=\"n\"" : ""), esc(v) > H }
		print "</tr>" > H
	}
	print "</table>" > H
}
BEGIN {
	T = OUT "/critpath.txt"; H = OUT "/critpath-section.html"
	nm = load(OUT "/modules.tsv", mods); ns = load(OUT "/scenario-means.tsv", means)
	print "Critical path of the steady state, per module (means over executions; ms)" > T
	# The module column as wide as its longest label, the ProgramId by
	# its first 12 characters: a name cut short is lost to a person.
	wl = 6
	for (r = 2; r <= nm && r <= 11; r++) { $0 = mods[r]; l = length($2 " (" substr($1, 1, 12) ")"); if (l > wl) wl = l }
	for (r = 2; r <= nm && r <= 11; r++) { $0 = mods[r]
		printf "  %-" wl "s %3d dev %4d exec  step %10.3f  compute %5.1f%%  comm %5.1f%%  peer wait %5.1f%%  gap %5.1f%%%s\n",
		    $2 " (" substr($1, 1, 12) ")", $3, $4, $5, ($5 > 0 ? 100 * $6 / $5 : 0), ($5 > 0 ? 100 * $7 / $5 : 0),
		    ($5 > 0 ? 100 * $8 / $5 : 0), ($5 > 0 ? 100 * $9 / $5 : 0), ($11 > 0 ? "  host-bound" : "") > T }
	print "" > T
	print "What-if scenarios, the module that does the work (estimates from the measured graph; ms)" > T
	for (r = 2; r <= ns; r++) { $0 = means[r]
		if ($1 == p) printf "  %-" (wl > 28 ? wl : 28) "s measured %10.3f  predicted %10.3f  gain %9.3f (%6.2f%%)\n", $2, $4, $5, $6, $7 > T }
	for (r = 2; r <= nm; r++) { $0 = mods[r]; if ($11 > 0) h = 1 }
	if (h) print "  Some executions are host-bound (gaps are over half of the critical path): GPU what-ifs are optimistic there." > T
	close(T)

	printf "<section id=\"critpath\">\n<h2>Critical path</h2>\n" > H
	printf "<p class=\"note\">What bounds each steady step across its devices: the longest chain of thunks (compute, communication after the last device arrives at a collective), waits for a late peer and gaps (launch or host time), from the aligned frames. Scenarios are <b>estimates</b> from the measured graph (dependencies inferred from times, gaps kept); where gaps dominate (host-bound) GPU what-ifs are optimistic. Every execution, beside this page: <code>critpath/breakdown.tsv</code>, <code>critpath/scenarios.tsv</code>, <code>critpath/path.tsv</code>.</p>\n" > H
	printf "<h3>Critical time by label, per module (means over executions, ms)</h3>\n" > H
	table(mods, nm, "ProgramId,Module,Devices,Executions,StepMs,ComputeMs,CommunicationMs,PeerWaitMs,GapMs,GapShare,OffPathWaitMs")
	printf "<h3>What-if scenarios per module (means over executions, ms)</h3>\n" > H
	# The modules that hold time (1%% of the critical time or more,
	# TotalMs) in the table; the rest named in one line.
	for (r = 2; r <= nm; r++) { $0 = mods[r]; tot += $13 }
	for (r = 2; r <= nm; r++) { $0 = mods[r]; if (tot > 0 && $13 >= 0.01 * tot) hold[$1] = 1
		else small = small (small == "" ? "" : ", ") $2 " (" substr($1, 1, 12) ")" }
	nh = 1; held[1] = means[1]
	for (r = 2; r <= ns; r++) { $0 = means[r]; if ($1 in hold) held[++nh] = means[r] }
	table(held, nh, "ProgramId,Scenario,Executions,MeasuredMs,PredictedMs,GainMs,GainPct")
	if (small != "")
		printf "<p class=\"note\">%s: under 1%% of the critical time each; their scenarios are in <code>critpath/scenario-means.tsv</code>.</p>\n", esc(small) > H
	svg = OUT "/step.svg"
	if ((getline line < svg) > 0) {
		printf "<figure>\n" > H
		do print line > H; while ((getline line < svg) > 0)
		close(svg)
		printf "<figcaption>%s</figcaption>\n</figure>\n", esc(sprintf("One steady step (%s, execution %s): a lane per device (beyond 8, the devices of the critical path and one lane for the others), the critical path in black, collective barriers (the last arrival) dashed", \
		    substr(p, 1, 12), exec)) > H
	}
	printf "</section>\n" > H
	close(H)
	while ((getline line < (W "/s.err")) > 0) print line > "/dev/stderr"
	while ((getline line < T) > 0) print line
}'
