# The HTML section of pipelines/diff.sh (run with -f tsv.awk -f
# diff-html.awk): a self-contained fragment, <section id="nsysjax-diff">
# with its own CSS (every rule scoped to #nsysjax-diff), no script and no
# external request; the flame graph, when drawn, is an <img> with a data:
# URI.  Inputs, in order: nsysjax-diff's module table (-s), its thunk
# table, its op_name table, its text summary, the SVG in base64 (empty
# when none).  Variables: gate (the -t percent, may be empty), rc (0, 3
# for a regression, 4 when too few executions let the gate fail).  Tables show the first TOP rows (default 20).

function esc(s) {
	gsub(/&/, "\\&amp;", s)
	gsub(/</, "\\&lt;", s)
	gsub(/>/, "\\&gt;", s)
	gsub(/"/, "\\&quot;", s)
	# the TSV escapes, for people
	gsub(/\\n/, " ", s)
	gsub(/\\t/, " ", s)
	gsub(/\\\\/, "\\", s)
	return s
}

function fms(x) { return x == "" ? "" : sprintf("%.3f", x) }
function fpct(x) { return x == "" ? "" : sprintf("%+.2f%%", x) }
function fp(x) { return x == "" ? "" : (x < 0.0001 ? "&lt;0.0001" : sprintf("%.4f", x)) }

# The class of a row: slower or faster when significant.
function cls(   p, d) {
	p = $c["PAdjusted"]; d = $c["DeltaMs"]
	if (p == "" || p >= 0.05 || d == "") return ""
	return d > 0 ? " class=\"slower\"" : " class=\"faster\""
}

# The module cell: its name and the start of its fingerprint.
function module(   id, s) {
	id = $c["ProgramIdBefore"]
	if (id == "") id = $c["ProgramIdAfter"]
	s = "<td>" esc($c["Module"])
	if (id != "" && id != $c["Module"])
		s = s " <span class=\"id\">" esc(substr(id, 1, 8)) "</span>"
	return s "</td>"
}

# One table row of the current line; KEY: the key column's name or "".
function row(key,   s) {
	s = "<tr" cls() ">" module()
	if (key != "") s = s "<td class=\"k\">" esc($c[key]) "</td>"
	s = s "<td>" $c["Match"] "</td>"
	s = s "<td class=\"n\">" $c["ExecutionsBefore"] "/" $c["ExecutionsAfter"] "</td>"
	s = s "<td class=\"n\">" fms($c["MeanBeforeMs"]) "</td><td class=\"n\">" fms($c["MeanAfterMs"]) "</td>"
	s = s "<td class=\"n\">" fpct($c["ChangePercent"]) "</td><td class=\"n\">" fp($c["PAdjusted"]) "</td>"
	s = s "<td class=\"n\">" fms($c["ContributionMs"]) "</td></tr>"
	return s
}

function head(key,   s) {
	s = "<tr><th>Module</th>"
	if (key != "") s = s "<th>" key "</th>"
	return s "<th>Match</th><th>Executions</th><th>Mean before (ms)</th><th>Mean after (ms)</th>" \
	    "<th>Change</th><th>p (adjusted)</th><th>Contribution (ms)</th></tr>"
}

BEGIN {
	if (TOP == "") TOP = 20
	print "<section id=\"nsysjax-diff\">"
	print "<style>"
	print "#nsysjax-diff { font-family: sans-serif; font-size: 14px; }"
	print "#nsysjax-diff table { border-collapse: collapse; margin: 0.5em 0 1.5em; }"
	print "#nsysjax-diff th, #nsysjax-diff td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }"
	print "#nsysjax-diff th { background: #f2f2f2; }"
	print "#nsysjax-diff td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }"
	print "#nsysjax-diff tr.slower td { color: #a00000; }"
	print "#nsysjax-diff tr.faster td { color: #006000; }"
	print "#nsysjax-diff pre { background: #f8f8f8; padding: 0.5em; overflow-x: auto; }"
	print "#nsysjax-diff .verdict { font-weight: bold; }"
	print "#nsysjax-diff img { max-width: 100%; border: 1px solid #ccc; }"
	print "#nsysjax-diff td.k { max-width: 40em; overflow-wrap: anywhere; }"
	print "#nsysjax-diff span.id { color: #777; font-size: 85%; font-family: monospace; }"
	print "</style>"
	print "<h2>What changed between the runs</h2>"
	file = 0
}

# The tables are kept in BODY, so that the total and the verdict (the
# module table's last row) come first.
function out(line) { body = body line "\n" }

FNR == 1 { file++ }

file <= 3 && FNR == 1 {
	header()
	key = file == 2 ? "Name" : file == 3 ? "OpName" : ""
	if (file == 1) {
		out("<h3>Modules</h3>")
		out("<p>Time per module execution (the sum of its thunks' exposed time), before and after; the contribution is the change at the first run's number of executions.</p>")
	} else if (file == 2) {
		out("</table>")
		out("<h3>Thunks, largest contributions first (the first " TOP ")</h3>")
	} else {
		out("</table>")
		out("<h3>By op_name, largest contributions first (the first " TOP ")</h3>")
	}
	out("<table>")
	out(head(key))
	next
}

file == 1 {
	if ($c["Module"] == "(all)") {
		total = sprintf("Total GPU-busy time (thunk time summed, not step time): %s ms before, %s ms after; change %s ms (%s) at the first run's executions, p %s.",
		    fms($c["TotalBeforeMs"]), fms($c["TotalAfterMs"]), fms($c["ContributionMs"]),
		    fpct($c["ChangePercent"]), fp($c["PValue"]))
		next
	}
	# The barriers nsysjax-diff left out of that total (its row
	# "(barriers)"), after it.
	if ($c["Module"] == "(barriers)") {
		bars = sprintf("Left out of the total as barriers (modules whose time is collective wait, not work; -B counts them): %s ms before, %s ms after; change %s ms. Their rows above are not tested.",
		    fms($c["TotalBeforeMs"]), fms($c["TotalAfterMs"]), fms($c["ContributionMs"]))
		next
	}
	out(row(""))
	next
}

file <= 3 && FNR <= TOP + 1 { out(row(key)); next }
file <= 3 { next }

file == 4 { report = report esc($0) "\n"; next }

file == 5 { svg = svg $0; next }

END {
	out("</table>")
	if (total != "") print "<p>" total "</p>"
	if (bars != "") print "<p>" bars "</p>"
	if (gate != "")
		printf "<p class=\"verdict\">Gate (slower by more than %s%% and significant): %s</p>\n",
		    esc(gate), rc == 3 ? "regression" : rc == 4 ? "no power (too few executions for the gate to fail; see the summary)" : "pass"
	printf "%s", body
	print "<h3>Summary</h3>"
	printf "<pre>%s</pre>\n", report
	print "<h3>Differential flame graph</h3>"
	if (svg != "")
		print "<p>Widths: the run after; red: slower, blue: faster (by source line). The interactive SVG is diff.svg.</p>\n<img alt=\"differential flame graph\" src=\"data:image/svg+xml;base64," svg "\">"
	else
		print "<p>Not drawn: flamegraph.pl was not on PATH (the lines are in diff.folded).</p>"
	print "</section>"
}
