#!/bin/sh
# What bounds the step, and what a fix would buy (nsysjax-critpath) on the
# steady state of a run: into DIR, breakdown.tsv (the critical time by
# label per module execution), modules.tsv (the same per module, means
# over its executions), scenarios.tsv (every execution) and
# scenario-means.tsv (per module and scenario), path.tsv (the critical
# paths), step.svg (one steady step of the module with the most time: its
# median execution), critpath.txt (the tables for a person) and
# critpath-section.html (the report's section).  See README.md,
# "nsysjax-critpath".
set -eu
USAGE='pipelines/critpath.sh -o dir [-s dir] [-C factor] [-x regex=factor] input ...'
TABLES=
. "$(dirname -- "$0")/lib/common.sh"

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
# A function, not a string: paths with spaces stay one word (review #11).
CP() { nsysjax-critpath -m "$W/module.tsv" -H "$F/hlo.tsv" "$@"; }
CP -b "$W/thunk.tsv" > "$OUT/breakdown.tsv" 2> "$W/b.err"
if [ -n "$SCALE" ]; then
	# shellcheck disable=SC2086
	CP -s --comm-scale "$COMM" --scale "$SCALE" "$W/thunk.tsv" > "$OUT/scenarios.tsv" 2> "$W/s.err"
else
	# shellcheck disable=SC2086
	CP -s --comm-scale "$COMM" "$W/thunk.tsv" > "$OUT/scenarios.tsv" 2> "$W/s.err"
fi
# shellcheck disable=SC2086
CP "$W/thunk.tsv" > "$OUT/path.tsv" 2> /dev/null

# Per module: executions, means of the step and of each label, shares.
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{ k = $c["ProgramId"]; if (!(k in n)) { o[++m] = k; name[k] = $c["Module"]; dev[k] = $c["Devices"] }
  n[k]++; st[k] += $c["StepMs"]; cm[k] += $c["ComputeMs"]; co[k] += $c["CommunicationMs"]
  pw[k] += $c["PeerWaitMs"]; gp[k] += $c["GapMs"]; hb[k] += $c["HostBound"]; ow[k] += $c["OffPathWaitMs"] }
END { print "ProgramId\tModule\tDevices\tExecutions\tStepMs\tComputeMs\tCommunicationMs\tPeerWaitMs\tGapMs\tGapShare\tHostBound\tOffPathWaitMs\tTotalMs"
  for (i = 1; i <= m; i++) { k = o[i]
    printf "%s\t%s\t%d\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.4f\t%d\t%.6f\t%.6f\n", k, name[k], dev[k], n[k], st[k] / n[k],
      cm[k] / n[k], co[k] / n[k], pw[k] / n[k], gp[k] / n[k], (st[k] > 0 ? gp[k] / st[k] : 0), hb[k], ow[k] / n[k], st[k] } }' \
	"$OUT/breakdown.tsv" | { IFS= read -r h; printf '%s\n' "$h"; LC_ALL=C sort -t "$TAB" -k13,13gr -k1,1; } > "$OUT/modules.tsv"
# Per module and scenario: the mean predicted step and gain.
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{ k = $c["ProgramId"] SUBSEP $c["Scenario"]; if (!(k in n)) o[++m] = k
  n[k]++; me[k] += $c["MeasuredMs"]; pr[k] += $c["PredictedMs"] }
END { print "ProgramId\tScenario\tExecutions\tMeasuredMs\tPredictedMs\tGainMs\tGainPct"
  for (i = 1; i <= m; i++) { k = o[i]; split(k, q, SUBSEP)
    printf "%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%.2f\n", q[1], q[2], n[k], me[k] / n[k], pr[k] / n[k],
      (me[k] - pr[k]) / n[k], (me[k] > 0 ? 100 * (me[k] - pr[k]) / me[k] : 0) } }' \
	"$OUT/scenarios.tsv" > "$OUT/scenario-means.tsv"

# The step drawn: the module with the most time, its median execution.
top=$(sed -n 2p "$OUT/modules.tsv" | cut -f 1)
rm -f "$OUT/step.svg"
if [ -n "$top" ]; then
	exec=$(awk -F'\t' -v p="$top" 'NR > 1 && $1 == p { print $6 "\t" $2 }' "$OUT/breakdown.tsv" |
		LC_ALL=C sort -t "$TAB" -k1,1g -k2,2n | awk -F'\t' '{ e[NR] = $2 } END { print e[int((NR + 1) / 2)] }')
	# shellcheck disable=SC2086
	CP --svg -e "$top:$exec" "$W/thunk.tsv" > "$OUT/step.svg" 2> /dev/null || rm -f "$OUT/step.svg"
fi

# The tables for a person.
{
	echo "Critical path of the steady state, per module (means over executions; ms)"
	awk -F'\t' 'NR > 1 && NR <= 11 { printf "  %-28.28s %3d dev %4d exec  step %10.3f  compute %5.1f%%  comm %5.1f%%  peer wait %5.1f%%  gap %5.1f%%%s\n",
	    $2 " (" substr($1, 1, 6) ")", $3, $4, $5, ($5 > 0 ? 100 * $6 / $5 : 0), ($5 > 0 ? 100 * $7 / $5 : 0),
	    ($5 > 0 ? 100 * $8 / $5 : 0), ($5 > 0 ? 100 * $9 / $5 : 0), ($11 > 0 ? "  host-bound" : "") }' "$OUT/modules.tsv"
	echo
	echo "What-if scenarios, the module with the most time (estimates from the measured graph; ms)"
	awk -F'\t' -v p="$top" 'NR > 1 && $1 == p { printf "  %-28.28s measured %10.3f  predicted %10.3f  gain %9.3f (%6.2f%%)\n", $2, $4, $5, $6, $7 }' \
	    "$OUT/scenario-means.tsv"
	awk -F'\t' 'NR > 1 && $11 > 0 { h = 1 } END { if (h) print "  Some executions are host-bound (gaps are over half of the critical path): GPU what-ifs are optimistic there." }' \
	    "$OUT/modules.tsv"
} > "$OUT/critpath.txt"

# The report's section: the tables, the picture, the caveat.
hesc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }
table() {
	awk -F'\t' -v cols="$2" 'BEGIN { n = split(cols, want, ",") }
	function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; printf "<table>\n<tr>"
		for (i = 1; i <= n; i++) printf "<th%s>%s</th>", (want[i] ~ /(Ms|Pct|Share|Devices|Executions)$/ ? " class=\"n\"" : ""), want[i]
		print "</tr>"; next }
	NR <= 41 { printf "<tr>"
		for (i = 1; i <= n; i++) { v = $c[want[i]]; if (want[i] == "ProgramId") v = substr(v, 1, 12)
			printf "<td%s>%s</td>", (want[i] ~ /(Ms|Pct|Share|Devices|Executions)$/ ? " class=\"n\"" : ""), esc(v) }
		print "</tr>" }
	END { print "</table>" }' "$1"
}
{
	printf '<section id="critpath">\n<h2>Critical path</h2>\n'
	printf '<p class="note">What bounds each steady step across its devices: the longest chain of thunks (compute, communication after the last device arrives at a collective), waits for a late peer and gaps (launch or host time), from the aligned frames. Scenarios are <b>estimates</b> from the measured graph (dependencies inferred from times, gaps kept); where gaps dominate (host-bound) GPU what-ifs are optimistic. Every execution, beside this page: <code>critpath/breakdown.tsv</code>, <code>critpath/scenarios.tsv</code>, <code>critpath/path.tsv</code>.</p>\n'
	printf '<h3>Critical time by label, per module (means over executions, ms)</h3>\n'
	table "$OUT/modules.tsv" ProgramId,Module,Devices,Executions,StepMs,ComputeMs,CommunicationMs,PeerWaitMs,GapMs,GapShare,OffPathWaitMs
	printf '<h3>What-if scenarios per module (means over executions, ms)</h3>\n'
	table "$OUT/scenario-means.tsv" ProgramId,Scenario,Executions,MeasuredMs,PredictedMs,GainMs,GainPct
	if [ -s "$OUT/step.svg" ]; then
		printf '<figure>\n'
		cat "$OUT/step.svg"
		printf '<figcaption>%s</figcaption>\n</figure>\n' "$(printf 'One steady step (%s, execution %s): a lane per device (beyond 8, the devices of the critical path and one lane for the others), the critical path in black, collective barriers (the last arrival) dashed' \
		    "$(printf '%s' "$top" | cut -c 1-12)" "$exec" | hesc)"
	fi
	printf '</section>\n'
} > "$OUT/critpath-section.html"
cat "$W/b.err" "$W/s.err" >&2
cat "$OUT/critpath.txt"
