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
	awk -F'\t' -v FORMAT="$FORMAT" -v FACTS="${FACTS:-}" -f "$LIB/fmt.awk" -f "$W/section.awk" "$2"
}

# para FILE AWK-PROGRAM: the lines the program prints from FILE (its
# columns by name in col[], fmt.awk's functions), as text or each as an
# HTML paragraph; nothing when FILE has no rows.  FACTS is the modules'
# facts table (modules/facts.tsv), which a program may read with facts().
para() {
	[ -f "$1" ] && [ "$(wc -l < "$1")" -gt 1 ] || return 0
	{
		printf '%s\n' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }'
		printf '%s\n' 'function f(name) { return $(col[name]) }'
		printf '%s\n' "$2"
	} > "$W/para.awk"
	awk -F'\t' -v FACTS="${FACTS:-}" -f "$LIB/fmt.awk" -f "$W/para.awk" "$1" > "$W/para.out"
	[ -s "$W/para.out" ] || return 0
	if [ "$FORMAT" = html ]; then
		sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s|^|<p class="lead">|; s|$|</p>|' "$W/para.out"
	else
		printf '\n'
		cat "$W/para.out"
	fi
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
	FACTS=$out/modules/facts.tsv
	# The module that does the work first (the most compute time), with
	# its own hidden share: a barrier module can hold most GPU time.
	para "$FACTS" '
	f("WorkModule") == 1 && f("ComputeMs") > 0 {
		printf "The module that does the work (the most compute time): %s (%s), %s ms of compute in %d executions on %d device(s)", \
		    f("Name"), substr(f("ProgramId"), 1, 12), grouped(fixed(f("ComputeMs"), 2)), f("Executions"), f("Devices")
		if (f("HiddenShare") != "") printf "; %s of its communication hidden behind compute", pct(f("HiddenShare"), 2)
		print "." }
	f("Barrier") == 1 {
		bar[++nb] = sprintf("%s (%s) is a barrier: %s of its time is collective wait (its devices waiting for the slowest), not work.", \
		    f("Name"), substr(f("ProgramId"), 1, 12), pct(f("WaitShare"), 2)) }
	END { for (i = 1; i <= nb; i++) print bar[i] }'
	# The utilisation: modules active over the wall time they span.
	para "$out/summary/totals.tsv" '
	{ v[f("Quantity")] = f("Value") }
	END { if (v["all_modules_wall_ms"] > 0)
		printf "Utilisation: XLA modules active %s ms of %s ms wall (%s).\n", grouped(fixed(v["all_modules_active_ms"], 2)), \
		    grouped(fixed(v["all_modules_wall_ms"], 2)), pct(v["all_modules_active_ms"] / v["all_modules_wall_ms"], 2) }'
	section 'Runtime totals' "$out/summary/totals.tsv" '
	NR == 2 { cell(0, 0, "Quantity"); align(0, "l"); cell(0, 1, "Value") }
	{ q = f("Quantity"); v = f("Value")
	  if (q ~ /_ms$/) { sub(/_ms$/, " [ms]", q); v = grouped(fixed(v, 2)) }
	  else v = plain(v)
	  gsub(/_/, " ", q); cell(NR - 1, 0, q); cell(NR - 1, 1, v) }'
	# -- run metadata (issue 25): nsysjax-extract's meta frame, a row
	# per key; the processes named when their values differ; "--" for
	# what no profile records.
	section 'Run metadata (what the profiles record; JAX and XLA versions only when their environment named them)' \
	    "${FR:-$out/frames}/meta.tsv" '
	{ k = f("Key"); v = f("Value"); p = f("ProfileName")
	  # The dump directory differs per process and is no setting.
	  if (k == "XlaFlags") { gsub(/(^| )--xla_dump_to=[^ ]*/, "", v); sub(/^ /, "", v) }
	  if (!(k in kr)) { kr[k] = ++nk; kn[nk] = k }
	  if (v == "") v = "--"
	  if (!((k, v) in seen)) { seen[k, v] = ++nv[k]; val[k, nv[k]] = v; src[k, nv[k]] = f("Source") }
	  who[k, seen[k, v]] = who[k, seen[k, v]] (who[k, seen[k, v]] == "" ? "" : ",") p }
	END {
		cell(0, 0, "Key"); align(0, "l"); cell(0, 1, "Value"); align(1, "l"); cell(0, 2, "Source"); align(2, "l")
		r = 0
		for (i = 1; i <= nk; i++) for (j = 1; j <= nv[kn[i]]; j++) {
			k = kn[i]; v = val[k, j]
			if (k == "GpuMemoryBytes" && v ~ /^[0-9]+$/) v = bytes(v) " (" thousands(v) " B)"
			if (nv[k] > 1) v = v " (" who[k, j] ")"
			# A long value (XLA flags) over lines of at most 72
			# characters, split at spaces.
			first = 1
			while (v != "") {
				line = v
				if (length(v) > 72) {
					line = substr(v, 1, 72); c = 0
					for (x = 72; x > 1; x--) if (substr(line, x, 1) == " ") { c = x; break }
					if (c > 1) line = substr(v, 1, c - 1)
					v = substr(v, length(line) + 1); sub(/^ +/, "", v)
				} else v = ""
				r++; cell(r, 0, j == 1 && first ? k : ""); cell(r, 1, line)
				cell(r, 2, !first ? "" : src[k, j] == "" ? "--" : src[k, j]); first = 0
			}
		}
	}'

	part modules 'Modules'
	section 'Modules: GPU time per XLA module' "$out/summary/modules.tsv" '
	NR == 2 { cell(0, 0, "Share"); cell(0, 1, "Total [ms]"); cell(0, 2, "Mean [ms]")
		cell(0, 3, "Wait [ms]"); cell(0, 4, "Wait share"); cell(0, 5, "Executions")
		cell(0, 6, "Thunks"); cell(0, 7, "Devices"); cell(0, 8, "Module (ProgramId)"); align(8, "l")
		facts() }
	{ r = NR - 1; k = f("ProgramId")
	  # One device: no peer to wait for, so no wait (the reference prints 0).
	  one = (k in fdev) && fdev[k] == 1
	  cell(r, 0, sprintf("%.2f%%", f("ProjDurPercent")))
	  cell(r, 1, grouped(fixed(f("ProjDurMs"), 2)))
	  cell(r, 2, unc(f("ProjDurMeanMs"), f("ProjDurStdMs")))
	  cell(r, 3, f("WaitMeanMs") == "" || one ? "--" : unc(f("WaitMeanMs"), f("WaitStdMs")))
	  cell(r, 4, f("WaitPercent") == "" || one ? "--" : sprintf("%.2f%%", f("WaitPercent")))
	  cell(r, 5, f("Executions"))
	  cell(r, 6, unc(f("NumThunksMean"), f("NumThunksStd")))
	  cell(r, 7, k in fdev ? fdev[k] : "--")
	  cell(r, 8, f("Name") " (" substr(k, 1, 12) ")" (k in fbar ? " barrier" : ""))
	  names[f("Name")]++ }
	END { for (k in fname) if (names[fname[k]] > 1) twice = 1 }'
	# The notebook: the top modules, taken until they make 99% of the time.
	para "$out/summary/modules.tsv" '
	f("TopModule") == 1 { share += f("ProjDurPercent"); ids = ids (ids == "" ? "" : ", ") substr(f("ProgramId"), 1, 12) " (" f("Name") ")"; nt++ }
	{ nm++ }
	END { if (nt) printf "%.2f%% of execution time accounted for by the %d top module(s) of %d: %s.\n", share, nt, nm, ids }'
	para "$out/summary/modules.tsv" '
	{ if (f("WaitPercent") > 100) over = 1; n[f("Name")]++; top += f("TopModule") }
	END {
		if (over) print "Wait share is the mean wait (per execution, the longest minus the shortest duration of each collective over the devices) over the mean duration: above 100% a device waits longer than an execution lasts on average, the mark of a barrier."
		facts()
		for (k in fname) if (n[fname[k]] > 1)
			printf "%s appears more than once: its processes compiled different programs (fingerprints); %s ran on process(es) %s, compiled by %s.\n", fname[k], substr(k, 1, 12), fproc[k], fby[k]
	}'

	part thunks 'Thunks and operations'
	section 'GPU time by HLO operation' "$out/flamegraphs/opcodes.tsv" '
	NR == 2 { cell(0, 0, "Operation"); align(0, "l"); cell(0, 1, "Time [ms]"); cell(0, 2, "Share") }
	{ r = NR - 1; cell(r, 0, f("Opcode")); cell(r, 1, grouped(fixed(f("ProjDurMs"), 3))); cell(r, 2, pct(f("Fraction"), 2)) }'

	section 'The thunks with the most GPU time' "$out/summary/thunks.tsv" '
	NR == 2 { cell(0, 0, "Thunk"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
		cell(0, 2, "Executions"); cell(0, 3, "Time [ms]") }
	NR <= 16 { r = NR - 1; cell(r, 0, f("Name")); cell(r, 1, substr(f("ProgramId"), 1, 12))
	  cell(r, 2, f("Executions")); cell(r, 3, grouped(fixed(f("ProjDurMs"), 3))) }'

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
	  cell(r, 4, pct(f("RelStd"), 1)); cell(r, 5, grouped(fixed(f("MinMs"), 4))); cell(r, 6, grouped(fixed(f("MaxMs"), 4))) }'

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
	{ r = NR - 1; cell(r, 0, f("Collective")); cell(r, 1, f("Rows")); cell(r, 2, grouped(fixed(f("HiddenMs"), 3)))
	  cell(r, 3, grouped(fixed(f("TotalMs"), 3))); cell(r, 4, pct(f("HiddenToTotal"), 2)) }'

	part alignment 'Alignment and stragglers'
	section 'Clock corrections per device (subtracted from its GPU times)' "$out/corrections.tsv" '
	NR == 2 { cell(0, 0, "Device"); cell(0, 1, "Correction [ms]"); cell(0, 2, "Instances")
		cell(0, 3, "Spread [ms]") }
	{ r = NR - 1; cell(r, 0, f("Device")); cell(r, 1, grouped(fixed(f("CorrectionMs"), 6)))
	  cell(r, 2, f("Instances")); cell(r, 3, grouped(fixed(f("SpreadMs"), 6))) }'

	section 'Devices that run behind or ahead, per module (largest outlier scores)' "$out/variability/stragglers.tsv" '
	NR == 2 { cell(0, 0, "Module"); align(0, "l"); cell(0, 1, "Device"); cell(0, 2, "Start bias [ms]")
		cell(0, 3, "Duration bias [ms]"); cell(0, 4, "Outlier score [ms]") }
	NR == 2 { facts() }
	# A module on one device has no other device to be behind.
	NR <= 11 { r = NR - 1; k = f("ProgramId"); one = (k in fdev) && fdev[k] == 1
	  cell(r, 0, f("Name") " (" substr(k, 1, 12) ")"); cell(r, 1, f("Device"))
	  cell(r, 2, one ? "--" : grouped(fixed(f("StartBiasMs"), 3)))
	  cell(r, 3, one ? "--" : grouped(fixed(f("DurBiasMs"), 3))); cell(r, 4, one ? "--" : grouped(fixed(f("OutlierScoreMs"), 3))) }'

	part compilation 'Compilation'
	NSJ_PIDS=$out/modules/xla-program-ids.tsv
	# The processes whose compilation the compile frame holds.
	NSJ_PROFILES=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ProfileName") c = i; next }
	    c && !($c in s) { s[$c] = 1; printf "%s ", $c }' "${FR:-$out/frames}/compile.tsv" 2> /dev/null || :)
	export NSJ_PIDS NSJ_PROFILES
	# The total (every phase's own time, summed over the processes: each
	# compiles its programs), then the notebook's line and its phases.
	para "$out/summary/compile-summary.tsv" '
	NR == 2 { total = f("FracNonChild") > 0 ? f("DurNonChildMs") / f("FracNonChild") : 0 }
	NR <= 11 { top += f("FracNonChild") }
	END { np = split(ENVIRON["NSJ_PROFILES"], x, " ")
		if (total > 0) printf "Compilation: %s s in total, summed over %d process(es) (each compiles its own programs); the phases below are the top %.1f%% of %s s compilation time.\n", \
		    grouped(fixed(total / 1000, 1)), np, 100 * top, grouped(fixed(total / 1000, 1)) }'
	section 'Compilation: the largest phases (own time)' "$out/summary/compile-summary.tsv" '
	NR == 2 { cell(0, 0, "Phase"); align(0, "l"); cell(0, 1, "Module"); align(1, "l"); cell(0, 2, "Time [ms]"); cell(0, 3, "Share")
		# XLA numeric program_id -> module name(s), from the compile frame.
		while ((getline line < ENVIRON["NSJ_PIDS"]) > 0) { split(line, x, "\t"); pid[x[1]] = x[2] } }
	NR <= 11 { r = NR - 1; n = f("Name"); mod = ""; what = ""
	  # XLA decorates a phase name: "XlaPass:#name=priority-fusion,program_id=19#".
	  if (match(n, /:#.*#$/)) {
		deco = substr(n, RSTART + 2, RLENGTH - 3); n = substr(n, 1, RSTART - 1)
		k = split(deco, kv, ",")
		for (i = 1; i <= k; i++) {
			if (kv[i] ~ /^name=/) what = substr(kv[i], 6)
			else if (kv[i] ~ /^module=/) mod = substr(kv[i], 8)
			else if (kv[i] ~ /^program_id=/ && mod == "") mod = substr(kv[i], 12) in pid ? pid[substr(kv[i], 12)] : ""
		}
	  }
	  if (what != "") n = n " " what
	  if (length(n) > 60) n = substr(n, 1, 57) "..."
	  cell(r, 0, n); cell(r, 1, mod == "" ? "--" : mod); cell(r, 2, grouped(fixed(f("DurNonChildMs"), 1))); cell(r, 3, pct(f("FracNonChild"), 2)) }'

	section 'Compilation time per module (its compilations, summed over processes)' "$out/modules/facts.tsv" '
	NR == 2 { cell(0, 0, "Module (ProgramId)"); align(0, "l"); cell(0, 1, "Compile [ms]"); cell(0, 2, "Processes that compiled it"); align(2, "l") }
	{ r = NR - 1; cell(r, 0, f("Name") " (" substr(f("ProgramId"), 1, 12) ")"); cell(r, 1, grouped(fixed(f("CompileMs"), 1)))
	  cell(r, 2, f("CompiledBy") == "" ? "--" : f("CompiledBy")) }'

	part memory 'Memory'
	section 'Peak heap memory per module (XLA buffer assignment)' "$out/memory/peaks.tsv" '
	NR == 2 { cell(0, 0, "Module (ProgramId)"); align(0, "l"); cell(0, 1, "Peak heap")
		cell(0, 2, "Peak [B]"); cell(0, 3, "At instruction"); align(3, "l") }
	{ r = NR - 1; cell(r, 0, f("Name") " (" substr(f("ProgramId"), 1, 12) ")")
	  cell(r, 1, bytes(f("PeakHeapBytes"))); cell(r, 2, thousands(f("PeakHeapBytes")))
	  cell(r, 3, f("PeakInstruction")) }'
}
