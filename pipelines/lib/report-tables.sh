# report-tables.sh, sourced by report.sh: the headline tables of the
# report in $OUT for people, as text (text_report: report.txt) or HTML
# (report_tables html, for report-html.sh): aligned columns, units in the
# headers, means with their uncertainty as the reference prints them
# (fmt.awk unc).  It reads only the TSV files in $OUT, which stay the
# record for programs.  FORMAT (txt or html) says which.
FORMAT=txt

# section TITLE FILE AWK-PROGRAM: the title, then the table the program
# makes of FILE (its columns by name in col[]); nothing when FILE has no
# rows.
section() {
	[ -f "$2" ] && [ "$(wc -l < "$2")" -gt 1 ] || return 0
	if [ "$FORMAT" = html ]; then
		printf '<h3>%s</h3>\n' "$(printf '%s' "$1" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')"
	else
		printf '\n%s\n\n' "$1"
	fi
	# One program file: POSIX awk (mawk) has -f but not gawk's -e.
	{
		printf '%s\n' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }'
		printf '%s\n' 'function f(name) { return $(col[name]) }'
		printf '%s\n' "$3"
		printf '%s\n' 'END { table_out(FORMAT) }'
	} > "$W/section.awk"
	awk -F'\t' -v FORMAT="$FORMAT" -f "$LIB/fmt.awk" -f "$W/section.awk" "$2"
}

# part ID TITLE: in HTML, a new <section> of the page (the sections are
# the page's table of contents), after $PART_HOOK PREVIOUS-ID has added
# what closes the previous one (its plots); nothing in text.
LASTPART=''
part() {
	[ "$FORMAT" = html ] || return 0
	if [ -n "$LASTPART" ]; then
		[ -z "${PART_HOOK:-}" ] || "$PART_HOOK" "$LASTPART"
		printf '</section>\n'
	fi
	LASTPART=$1
	printf '<section id="%s">\n<h2>%s</h2>\n' "$1" "$2"
}

text_report() {
	out=$1
	shift
	printf 'nsysjax report of'
	for i; do printf ' %s' "${i##*/}"; done
	printf '\n'
	printf 'Times of the steady state (aligned clocks, warm-up removed); mean(uncertainty) is the mean and\n'
	printf 'the standard deviation over executions, in the notation of nsys-jax.\n'
	FORMAT=txt report_tables "$out"
}

# cmdbuf_hint FILE: when a command buffer of FILE (summary's cmdbufs
# table) has only its whole graph's time, how to get each operation's.
cmdbuf_hint() {
	[ -f "$1" ] && awk -F'\t' 'NR > 1 && $5 == "0" { f = 1 } END { exit !f }' "$1" || return 0
	h1='Only whole-graph times: for the time of each operation inside a command buffer, profile'
	h2='with nsysjax-profile, whose SQLite export traces graph nodes (nsys --cuda-graph-trace=node).'
	if [ "$FORMAT" = html ]; then printf '<p>%s %s</p>\n' "$h1" "$h2"; else printf '\n%s\n%s\n' "$h1" "$h2"; fi
}

# report_tables OUT: every table, in $FORMAT; in HTML, in sections.
report_tables() {
	out=$1
	part summary 'Summary'
	section 'Runtime totals' "$out/summary/totals.tsv" '
	NR == 2 { cell(0, 0, "Quantity"); align(0, "l"); cell(0, 1, "Value") }
	{ q = f("Quantity"); v = f("Value")
	  if (q ~ /_ms$/) { sub(/_ms$/, " [ms]", q); v = fixed(v, 2) }
	  else v = plain(v)
	  gsub(/_/, " ", q); cell(NR - 1, 0, q); cell(NR - 1, 1, v) }'

	part modules 'Modules'
	section 'Modules: GPU time per XLA module' "$out/summary/modules.tsv" '
	NR == 2 { cell(0, 0, "Share"); cell(0, 1, "Total [ms]"); cell(0, 2, "Mean [ms]")
		cell(0, 3, "Wait [ms]"); cell(0, 4, "Wait share"); cell(0, 5, "Executions")
		cell(0, 6, "Thunks"); cell(0, 7, "Module (ProgramId)"); align(7, "l") }
	{ r = NR - 1
	  cell(r, 0, sprintf("%.2f%%", f("ProjDurPercent")))
	  cell(r, 1, fixed(f("ProjDurMs"), 2))
	  cell(r, 2, unc(f("ProjDurMeanMs"), f("ProjDurStdMs")))
	  cell(r, 3, f("WaitMeanMs") == "" ? "--" : unc(f("WaitMeanMs"), f("WaitStdMs")))
	  cell(r, 4, f("WaitPercent") == "" ? "--" : sprintf("%.2f%%", f("WaitPercent")))
	  cell(r, 5, f("Executions"))
	  cell(r, 6, unc(f("NumThunksMean"), f("NumThunksStd")))
	  cell(r, 7, f("Name") " (" substr(f("ProgramId"), 1, 12) ")") }'

	part thunks 'Thunks and operations'
	section 'GPU time by HLO operation' "$out/flamegraphs/opcodes.tsv" '
	NR == 2 { cell(0, 0, "Operation"); align(0, "l"); cell(0, 1, "Time [ms]"); cell(0, 2, "Share") }
	{ r = NR - 1; cell(r, 0, f("Opcode")); cell(r, 1, fixed(f("ProjDurMs"), 3)); cell(r, 2, pct(f("Fraction"), 2)) }'

	section 'The thunks with the most GPU time' "$out/summary/thunks.tsv" '
	NR == 2 { cell(0, 0, "Thunk"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
		cell(0, 2, "Executions"); cell(0, 3, "Time [ms]") }
	NR <= 16 { r = NR - 1; cell(r, 0, f("Name")); cell(r, 1, substr(f("ProgramId"), 1, 12))
	  cell(r, 2, f("Executions")); cell(r, 3, fixed(f("ProjDurMs"), 3)) }'

	# Issue 18: command buffers' share; where only whole-graph times
	# exist (no inner rows), how to see inside them.
	section 'XLA command buffers (CUDA graphs): share of GPU time' "$out/summary/cmdbufs.tsv" '
	NR == 2 { cell(0, 0, "Command buffer"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
		cell(0, 2, "Executions"); cell(0, 3, "Time [ms]"); cell(0, 4, "Inside [ms]"); cell(0, 5, "Share") }
	{ r = NR - 1; cell(r, 0, f("Name")); cell(r, 1, substr(f("ProgramId"), 1, 12)); cell(r, 2, f("Executions"))
	  cell(r, 3, fixed(f("ProjDurMs"), 3)); cell(r, 4, f("InnerMs") + 0 > 0 ? fixed(f("InnerMs"), 3) : "--")
	  cell(r, 5, pct(f("Fraction"), 2)); share += f("Fraction") }
	END { if (NR > 2) { cell(NR, 0, "all command buffers"); cell(NR, 5, pct(share, 2)) } }'
	cmdbuf_hint "$out/summary/cmdbufs.tsv"

	section 'Thunks whose duration varies most (over executions and devices)' "$out/variability/thunks.tsv" '
	NR == 2 { cell(0, 0, "Thunk"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
		cell(0, 2, "Executions"); cell(0, 3, "Mean [ms]"); cell(0, 4, "Relative std")
		cell(0, 5, "Min [ms]"); cell(0, 6, "Max [ms]") }
	NR <= 11 { r = NR - 1; cell(r, 0, f("Name")); cell(r, 1, substr(f("ProgramId"), 1, 12))
	  cell(r, 2, f("Executions")); cell(r, 3, unc(f("MeanMs"), f("StdMs")))
	  cell(r, 4, pct(f("RelStd"), 1)); cell(r, 5, fixed(f("MinMs"), 4)); cell(r, 6, fixed(f("MaxMs"), 4)) }'

	part communication 'Communication'
	section 'Bus bandwidth [GB/s] of the collectives, by message size' "$out/communication/bandwidth.tsv" '
	{ k = f("Collective"); s = f("MessageSize") + 0
	  if (!(k in kc)) { kc[k] = ++nk; kn[nk] = k }
	  if (!(s in sr)) { sr[s] = 1; sizes[++ns] = s }
	  v[s, k] = unc(f("BusBandwidthGBPerSec"), f("BusBandwidthStdErrGBPerSec")) }
	END {
		n = ns; for (i = 2; i <= n; i++) for (j = i; j > 1 && sizes[j - 1] > sizes[j]; j--) {
			t = sizes[j]; sizes[j] = sizes[j - 1]; sizes[j - 1] = t }
		cell(0, 0, "Size [B]")
		for (c = 1; c <= nk; c++) cell(0, c, kn[c])
		for (i = 1; i <= n; i++) {
			cell(i, 0, thousands(sizes[i]))
			for (c = 1; c <= nk; c++)
				cell(i, c, (sizes[i], kn[c]) in v ? v[sizes[i], kn[c]] : "--")
		}
	}'

	section 'Communication hidden behind compute' "$out/communication/hidden.tsv" '
	NR == 2 { cell(0, 0, "Collective"); align(0, "l"); cell(0, 1, "Thunks"); cell(0, 2, "Hidden [ms]")
		cell(0, 3, "Total [ms]"); cell(0, 4, "Hidden") }
	{ r = NR - 1; cell(r, 0, f("Collective")); cell(r, 1, f("Rows")); cell(r, 2, fixed(f("HiddenMs"), 3))
	  cell(r, 3, fixed(f("TotalMs"), 3)); cell(r, 4, pct(f("HiddenToTotal"), 2)) }'

	part alignment 'Alignment and stragglers'
	section 'Clock corrections per device (subtracted from its GPU times)' "$out/corrections.tsv" '
	NR == 2 { cell(0, 0, "Device"); cell(0, 1, "Correction [ms]"); cell(0, 2, "Instances")
		cell(0, 3, "Spread [ms]") }
	{ r = NR - 1; cell(r, 0, f("Device")); cell(r, 1, fixed(f("CorrectionMs"), 6))
	  cell(r, 2, f("Instances")); cell(r, 3, fixed(f("SpreadMs"), 6)) }'

	section 'Devices that run behind or ahead, per module (largest outlier scores)' "$out/variability/stragglers.tsv" '
	NR == 2 { cell(0, 0, "Module"); align(0, "l"); cell(0, 1, "Device"); cell(0, 2, "Start bias [ms]")
		cell(0, 3, "Duration bias [ms]"); cell(0, 4, "Outlier score [ms]") }
	NR <= 11 { r = NR - 1; cell(r, 0, f("Name")); cell(r, 1, f("Device")); cell(r, 2, fixed(f("StartBiasMs"), 3))
	  cell(r, 3, fixed(f("DurBiasMs"), 3)); cell(r, 4, fixed(f("OutlierScoreMs"), 3)) }'

	part compilation 'Compilation'
	section 'Compilation: the largest phases (own time)' "$out/summary/compile-summary.tsv" '
	NR == 2 { cell(0, 0, "Phase"); align(0, "l"); cell(0, 1, "Time [ms]"); cell(0, 2, "Share") }
	NR <= 11 { r = NR - 1; n = f("Name"); if (length(n) > 60) n = substr(n, 1, 57) "..."
	  cell(r, 0, n); cell(r, 1, fixed(f("DurNonChildMs"), 1)); cell(r, 2, pct(f("FracNonChild"), 2)) }'

	part memory 'Memory'
	section 'Peak heap memory per module (XLA buffer assignment)' "$out/memory/peaks.tsv" '
	NR == 2 { cell(0, 0, "Module (ProgramId)"); align(0, "l"); cell(0, 1, "Peak heap")
		cell(0, 2, "Peak [B]"); cell(0, 3, "At instruction"); align(3, "l") }
	{ r = NR - 1; cell(r, 0, f("Name") " (" substr(f("ProgramId"), 1, 12) ")")
	  cell(r, 1, bytes(f("PeakHeapBytes"))); cell(r, 2, thousands(f("PeakHeapBytes")))
	  cell(r, 3, f("PeakInstruction")) }'
}
