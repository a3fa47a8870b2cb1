# report.awk (with fmt.awk), run by report.sh once every section is
# written: report.txt and report.html in one process (each process start
# is dear; the earlier shell functions ran an awk, a wc and a sed per
# table, twice).  The arguments are the report's inputs (their names
# head both files); nothing is read as a main input.  In the
# environment (paths are data: -v would read escape sequences): OUT (the
# new report's directory), FR (the frames), W (the work directory:
# plotidx, the module plots, from plots.awk), BARRIERS (1: report.sh -B,
# barriers kept in the headline and the tables); -v PLOTS (1 when gnuplot
# drew the plots).
#
# report.txt: the headline tables of the TSV files in OUT for people
# (aligned columns, units in the headers, means with their uncertainty
# as the reference prints them: fmt.awk's unc), then critpath.txt, the
# roofline's summary and the index of the module plots.  report.html:
# the same tables in the sections of one self-contained page (the
# notebook's place), every plot of OUT/plots inline as SVG, the flame
# graphs inline when a renderer made them, else links to the folded
# files with the command that renders them; the roofline's, the
# critical path's and (when pipelines/diff.sh -o OUT/diff wrote one)
# the comparison's sections.  No network and no other file: a
# Content-Security-Policy forbids every load but inline styles and
# data: images.
#
# A section or paragraph is a function over the rows of one TSV file
# (load), R the row number as NR was when each was an awk program of
# its own; each table is built once (fmt.awk's cell) and written in
# both formats.
BEGIN {
	FS = "\t"
	OUT = ENVIRON["OUT"]; FR = ENVIRON["FR"]; W = ENVIRON["W"]
	KEEPBAR = ENVIRON["BARRIERS"] == 1
	TXT = OUT "/report.txt"
	HTML = OUT "/report.html"
	FACTS = OUT "/modules/facts.tsv"
	header()
	diagnosis()
	capture_list()
	printf "\nTimes of the steady state (aligned clocks, warm-up removed); mean(uncertainty) is the mean and\n" > TXT
	printf "the standard deviation over executions, in the notation of nsys-jax.\n" > TXT
	tables()
	html_plots("memory")
	html_flamegraphs()
	# The roofline's section (pipelines/roofline.sh), the critical
	# path's (pipelines/critpath.sh), the comparison's.
	copy(OUT "/roofline/section.html", HTML)
	copy(OUT "/critpath/critpath-section.html", HTML)
	copy(OUT "/diff/diff-section.html", HTML)
	reading()
	printf "</main>\n</body>\n</html>\n" > HTML
	close(HTML)
	printf "\n" > TXT
	copy(OUT "/critpath/critpath.txt", TXT)
	copy(OUT "/roofline/summary.txt", TXT)
	if (PLOTS)
		plot_index_txt()
	close(TXT)
	exit
}

# load(FILE): the lines of FILE in L[1..], col[] the columns of its
# header; the number of lines (0: no file).  A section is shown when
# its file has a row (two lines: wc -l > 1).
function load(file,    n, line, i) {
	split("", L); split("", col)
	n = 0
	while ((getline line < file) > 0)
		L[++n] = line
	close(file)
	if (n) {
		$0 = L[1]
		for (i = 1; i <= NF; i++)
			col[$i] = i
	}
	return n
}
# row(R): line R of the file loaded, as $0 (its fields by name: f).
function row(r) { $0 = L[r]; R = r }
function f(name) { return $(col[name]) }

# copy(FILE, TO): FILE's lines appended to TO (cat), when FILE is not
# empty.
function copy(file, to,    line) {
	while ((getline line < file) > 0)
		print line > to
	close(file)
}
# nonempty(FILE): test -s; exists(FILE): test -e (a file).
function nonempty(file,    line, r) {
	r = (getline line < file) > 0
	close(file)
	return r
}
function exists(file,    line, r) {
	r = (getline line < file) >= 0
	close(file)
	return r
}

# title(TITLE): a section's title in both formats.
function title(t) {
	printf "\n%s\n\n", t > TXT
	printf "<h3>%s</h3>\n", html(t) > HTML
}
# table_both(): the table built with cell() in both formats, emptied.
function table_both() {
	table_print("  ", TXT)
	table_html(HTML)
	table_clear()
}
# The lines of a paragraph: pr(S) adds S (with its newlines) to P;
# para_out() writes P, after an empty line in text, a <p class="lead">
# per line in HTML, and empties it.
function pr(s) { P = P s }
function para_out(    n, x, i) {
	if (P == "")
		return
	printf "\n%s", P > TXT
	n = split(P, x, "\n")
	if (substr(P, length(P)) == "\n")
		n--
	for (i = 1; i <= n; i++)
		printf "<p class=\"lead\">%s</p>\n", html(x[i]) > HTML
	P = ""
}

# part(ID, TITLE): in HTML, a new <section> of the page (the sections are
# the page's table of contents), after html_plots(PREVIOUS-ID) has added
# what closes the previous one (its plots); nothing in text.
function part(id, t) {
	if (LASTPART != "") {
		html_plots(LASTPART)
		printf "</section>\n" > HTML
	}
	LASTPART = id
	printf "<section id=\"%s\">\n<h2>%s</h2>\n", id, t > HTML
}

# The page: its head (the style) before the list of profiles, its
# navigation after.
function page_text() {
	HTML_HEAD = \
	    "<!DOCTYPE html>\n" \
	    "<html lang=\"en\">\n" \
	    "<head>\n" \
	    "<meta charset=\"utf-8\">\n" \
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n" \
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" \
	    "<title>nsysjax report</title>\n" \
	    "<style>\n" \
	    "body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1.5em 3em; color: #1b1b1b; }\n" \
	    "h1 { margin-bottom: 0.2em; }\n" \
	    "h2 { border-bottom: 2px solid #76b900; padding-bottom: 0.2em; margin-top: 2em; }\n" \
	    "h3 { margin: 1.4em 0 0.4em; font-size: 1.05em; }\n" \
	    "p.lead { overflow-wrap: anywhere; }\n" \
	    "nav { position: sticky; top: 0; background: #fff; padding: 0.5em 0; border-bottom: 1px solid #ddd; }\n" \
	    "nav a { margin-right: 1.2em; color: #2a5db0; text-decoration: none; }\n" \
	    "table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.3em 0 1em; }\n" \
	    "th, td { padding: 0.2em 0.7em; text-align: left; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }\n" \
	    "th { background: #f3f5f0; position: sticky; top: 2.4em; }\n" \
	    "td.n, th.n { text-align: right; }\n" \
	    "th, td:not(.n) { white-space: normal; overflow-wrap: anywhere; }\n" \
	    "tr:hover td { background: #fafbf7; }\n" \
	    "figure { margin: 1em 0 2em; }\n" \
	    "figure svg { max-width: 100%; height: auto; }\n" \
	    "figcaption { color: #555; font-size: 0.9em; }\n" \
	    "code { background: #f3f3f3; padding: 0.1em 0.3em; }\n" \
	    ".note { color: #555; }\n" \
	    "p.lead { margin: 0.4em 0; font-weight: 500; }\n" \
	    "</style>\n" \
	    "</head>\n" \
	    "<body>\n" \
	    "<header>\n" \
	    "<h1>nsysjax report</h1>\n"
	HTML_NAV = \
	    "<p class=\"note\">Times of the steady state: clocks aligned across devices, warm-up executions removed. A mean(uncertainty) is the mean and the standard deviation over executions in the notation of nsys-jax (126.5(7) is 126.5 &plusmn; 0.7). The TSV files beside this page hold every number at full precision.</p>\n" \
	    "<nav><a href=\"#summary\">Summary</a><a href=\"#modules\">Modules</a><a href=\"#thunks\">Thunks</a><a href=\"#communication\">Communication</a><a href=\"#alignment\">Alignment</a><a href=\"#compilation\">Compilation</a><a href=\"#memory\">Memory</a><a href=\"#flamegraphs\">Flame graphs</a>"
	# The rest of the nav bar (nav_end): the sections present.
	HTML_NAV_END = "</nav>\n</header>\n<main>\n"
}

function header(    i, s) {
	page_text()
	printf "nsysjax report of" > TXT
	for (i = 1; i < ARGC; i++) {
		s = ARGV[i]; sub(/.*\//, "", s)
		printf " %s", s > TXT
	}
	printf "\n" > TXT
	printf "%s", HTML_HEAD > HTML
	printf "<p>Profiles:" > HTML
	for (i = 1; i < ARGC; i++) {
		s = ARGV[i]; sub(/.*\//, "", s)
		printf " <code>%s</code>", html(s) > HTML
	}
	printf "</p>\n" > HTML
	# The diagnosis and the capture check's list lead the page.
	sub(/<nav>/, "<nav><a href=\"#diagnosis\">Diagnosis</a>" (nonempty(OUT "/capture.txt") ? "<a href=\"#capture\">Capture</a>" : ""), HTML_NAV)
	printf "%s", HTML_NAV > HTML
	# Every section of the page in the nav bar: the roofline's, the
	# critical path's and the comparison's when they were written.
	if (nonempty(OUT "/roofline/section.html")) printf "<a href=\"#roofline\">Roofline</a>" > HTML
	if (nonempty(OUT "/critpath/critpath-section.html")) printf "<a href=\"#critpath\">Critical path</a>" > HTML
	if (nonempty(OUT "/diff/diff-section.html")) printf "<a href=\"#nsysjax-diff\">Comparison</a>" > HTML
	printf "<a href=\"#reading\">How to read</a>" > HTML
	printf "%s", HTML_NAV_END > HTML
	# The aligned timeline beside the page (report.sh writes it).
	if (nonempty(OUT "/timeline.perfetto-trace"))
		printf "<p>The whole run on one aligned clock: <a href=\"timeline.perfetto-trace\">timeline.perfetto-trace</a> (in ui.perfetto.dev, &ldquo;Open trace file&rdquo;).</p>\n" > HTML
}

# capture_list(): what the capture cannot show (report.sh's
# capture.txt, nsysjax-extract --check's numbered list), after the
# diagnosis in both formats; nothing when the list is empty.
function capture_list(    file, line) {
	file = OUT "/capture.txt"
	if (!nonempty(file)) return
	printf "\nWhat this capture cannot show (nsysjax-extract --check)\n\n" > TXT
	printf "<section id=\"capture\"><h2>What this capture cannot show</h2><ol>\n" > HTML
	while ((getline line < file) > 0) {
		printf "  %s\n", line > TXT
		sub(/^[0-9]+\. /, "", line)
		printf "<li>%s</li>\n", html(line) > HTML
	}
	close(file)
	printf "</ol></section>\n" > HTML
}

# -- the tables

function tables() {
	part("summary", "Summary")
	FACTS = OUT "/modules/facts.tsv"
	p_work()
	p_utilisation()
	s_totals()
	s_meta()
	part("modules", "Modules")
	s_modules()
	p_top()
	p_modules()
	part("thunks", "Thunks and operations")
	s_opcodes()
	s_thunks()
	s_cmdbufs()
	cmdbuf_hint()
	s_variability()
	part("communication", "Communication")
	s_bandwidth()
	s_hidden()
	part("alignment", "Alignment and stragglers")
	s_corrections()
	s_stragglers()
	part("compilation", "Compilation")
	PIDS = OUT "/modules/xla-program-ids.tsv"
	# The processes whose compilation the compile frame holds.
	NPROFILES = 0
	while ((getline _pl < (OUT "/modules/compile-profiles.tsv")) > 0) NPROFILES++
	close(OUT "/modules/compile-profiles.tsv")
	NPROFILES = NPROFILES > 0 ? NPROFILES - 1 : 0
	if (!p_no_compile()) {
		p_compile()
		s_compile()
		s_compile_modules()
	}
	part("memory", "Memory")
	s_peaks()
}

# The ProgramIds joined into one SPMD step, as the note of
# nsysjax-collectives -m says (the report's waits job, $W/spmd.note:
# "module M: ProgramId B [C ...] joined to A (...)"): JTO[B] = A.
function spmd_joins(    file, line, w, nw, i, j) {
	file = ENVIRON["W"] "/spmd.note"
	while ((getline line < file) > 0) {
		if (line !~ /: module .*: ProgramIds? .* joined to [^ ]+ \(/) continue
		nw = split(line, w, " ")
		for (i = 1; i <= nw && w[i] !~ /^ProgramIds?$/; i++) ;
		for (j = i + 1; j <= nw && w[j] != "joined"; j++) ;
		for (i++; i < j; i++) JTO[w[i]] = w[j + 2]
	}
	close(file)
}

# The module that does the work first (the most compute time), with
# its own hidden share: a barrier module can hold most GPU time.  The
# ProgramIds of one SPMD step (spmd_joins) count as one: their compute,
# executions and devices summed, and the headline names them.
function p_work(    n, r, bar, nb, i, g, cm, ex, dv, hd, co, who) {
	dg_steps()	# (it loads files of its own: before FACTS is loaded here)
	if ((n = load(FACTS)) < 2) return
	spmd_joins()
	for (r = 2; r <= n; r++) {
		row(r)
		g = f("ProgramId") in JTO ? JTO[f("ProgramId")] : f("ProgramId")
		cm[g] += f("ComputeMs"); ex[g] += f("Executions"); dv[g] += f("Devices")
		hd[g] += f("HiddenMs"); co[g] += f("CommunicationMs")
		if (f("ProgramId") in JTO) who[g] = who[g] ", " sid(f("ProgramId"))
	}
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("WorkModule") == 1 && f("ComputeMs") > 0) {
			g = f("ProgramId") in JTO ? JTO[f("ProgramId")] : f("ProgramId")
			pr(sprintf("The module that does the work (the most compute time): %s (%s), %s on %d device%s, %s ms of compute over them", \
			    f("Name"), sid(g), work_steps(ex[g], dv[g]), dv[g], dv[g] > 1 ? "s" : "", grouped(fixed(cm[g], 2))))
			if (g in who) {
				pr(sprintf(" (ProgramIds %s%s are one SPMD step: processes that compiled it apart, joined by module name and collective sequence)", sid(g), who[g]))
				if (co[g] > 0) pr(sprintf("; %s of its communication hidden behind compute", pct(hd[g] / co[g], 2)))
			} else if (f("HiddenShare") != "") pr(sprintf("; %s of its communication hidden behind compute", pct(f("HiddenShare"), 2)))
			pr(".\n")
		}
		if (f("Barrier") == 1)
			bar[++nb] = sprintf("%s (%s) is a barrier: %s of its time is collective wait (its devices waiting for the slowest), not work.", \
			    f("Name"), sid(f("ProgramId")), pct(f("WaitShare"), 2))
	}
	for (i = 1; i <= nb; i++) pr(bar[i] "\n")
	para_out()
}

# work_steps(EX, DV): the steps of the module that does the work, for
# the headline: the critical path's (diagnosis.awk's dg_steps: their
# number and mean step time), else its executions per device.
function work_steps(ex, dv,    n) {
	if (dg_steps())
		return sprintf("%d step%s of %s ms", DG_NSTEP, DG_NSTEP > 1 ? "s" : "", grouped(fixed(DG_STEP, 3)))
	n = dv > 0 ? int(ex / dv + 0.5) : ex
	return sprintf("%d step%s", n, n > 1 ? "s" : "")
}

# The headline utilisation, over the steady state: first GPU busy, the
# union of the thunk intervals of each device (a collective its whole
# duration, hidden part included; overlapping thunks counted once) over
# the wall its modules span, both summed over the devices; then the
# share of time inside XLA programs, the modules active over the same
# wall (a module can be active with its GPU idle: launch gaps, host
# stalls).  Barriers (facts' Barrier: a module whose time is collective
# wait) are left out and named (bar_left, -B keeps them): a barrier's
# steady executions can spread over the initialisation, its wall being
# most of the run's, and its time is no work.  The modules counted as
# the reference counts them (summary/totals.tsv's definitions, here on
# the modules that are not barriers): the top modules of those (taken
# while those taken make less than 99% of their total); per device the
# end of its last minus the start of its first.  One line gives the
# share inside XLA programs barriers included (the Runtime totals), and
# how to report a barrier alone.
function p_utilisation(    m) {
	if (!util_calc()) return
	if (!UT_OK) {
		if (UT_WALL > 0)
			pr(sprintf("Share of time inside XLA programs: modules active %s ms of %s ms wall (%s).\n", grouped(fixed(UT_ACT, 2)), \
			    grouped(fixed(UT_WALL, 2)), pct(UT_ACT / UT_WALL, 2)))
		para_out()
		return
	}
	m = UTB[0] > 0 ? sprintf(" summed over %d devices, from %s (device %s) to %s (device %s)", UTB[0], pct(UTLO[1], 2), UTLO[0], pct(UTHI[1], 2), UTHI[0]) : ""
	pr(sprintf("GPU busy over the steady state%s: thunks running %s ms of %s ms wall (%s; the union of each device's thunk intervals over the span of its modules%s).\n", \
	    UT_NB > 0 ? ", barriers left out" : "", grouped(fixed(UTB[1], 2)), grouped(fixed(UTW[0], 2)), UT_BUSY, m))
	pr(sprintf("Share of time inside XLA programs%s: modules active %s ms of %s ms wall (%s).\n", UT_NB > 0 ? ", barriers left out" : "", \
	    grouped(fixed(UTA[0], 2)), grouped(fixed(UTW[0], 2)), pct(UTA[0] / UTW[0], 2)))
	if (UT_NB > 0)
		pr(sprintf("Left out as barrier%s: %s. With %s: modules active %s ms of %s ms wall (%s), the Runtime totals below; " \
		    "its own report: -m '%s'; -B keeps barriers in.\n", UT_NB > 1 ? "s" : "", UT_NAMES, UT_NB > 1 ? "them" : "it", \
		    grouped(fixed(UT_ACT, 2)), grouped(fixed(UT_WALL, 2)), UT_WALL > 0 ? pct(UT_ACT / UT_WALL, 2) : "--", UT_RE))
	para_out()
}
# util_calc(): the numbers of p_utilisation, once (the diagnosis quotes
# them first): UT_ACT and UT_WALL the Runtime totals' modules active and
# wall (ms), UT_NB the barriers left out, UT_NAMES and UT_RE their names
# as a list and as a regular expression; UT_OK when steady_busy found
# modules, its results in UTA, UTW, UTB, UTLO, UTHI and UT_BUSY the GPU
# busy share ("95.35%"; "" when UT_OK is not set).  False without the
# totals.
function util_calc(    n, r, v, k) {
	if (UT_DONE) return UT_DONE > 0
	UT_DONE = -1
	if ((n = load(OUT "/summary/totals.tsv")) < 2) return 0
	UT_DONE = 1
	for (r = 2; r <= n; r++) { row(r); v[f("Quantity")] = f("Value") }
	# In variables: an element never assigned, once passed to a
	# function, reads back as garbage in gawk 5.2.1 (Debian 12's): a later
	# read gave another denormal on each run, or a double free (BEGIN {
	# f(a["k"]); print a["k"] / 5 } with f(t) { return t % 10 } shows it).
	UT_ACT = v["all_modules_active_ms"] + 0; UT_WALL = v["all_modules_wall_ms"] + 0
	UT_NB = 0
	if ((n = load(FACTS)) >= 2)
		for (r = 2; r <= n; r++) {
			row(r); k = f("ProgramId")
			if (is_bar(k)) {
				UTBAR[k] = 1; UT_NB++
				UT_NAMES = UT_NAMES (UT_NAMES == "" ? "" : ", ") f("Name") " (" sid(k) ")"
				UT_RE = UT_RE (UT_RE == "" ? "" : "|") f("Name")
			}
		}
	UT_OK = steady_busy(UTBAR, UTA, UTW, UTB, UTLO, UTHI) && UTW[0] > 0
	UT_BUSY = UT_OK ? pct(UTB[1] / UTW[0], 2) : ""
	return 1
}
# is_bar(K): ProgramId K is a barrier the report leaves out: facts'
# Barrier, unless -B (report.sh's BARRIERS=1) keeps them.
function is_bar(k) {
	facts()
	return (k in fbar) && !KEEPBAR
}
# bar_list(): the barriers left out, "Name (ProgramId)" in the facts'
# order, comma-separated ("" for none); BARMS their module time (ms).
function bar_list(    line, x, n, i, c, k) {
	if (BARLISTED) return BARLIST
	BARLISTED = 1; BARMS = 0
	if (FACTS == "" || (getline line < FACTS) <= 0) return ""
	n = split(line, x, "\t"); for (i = 1; i <= n; i++) c[x[i]] = i
	while ((getline line < FACTS) > 0) {
		split(line, x, "\t"); k = x[c["ProgramId"]]
		if (!is_bar(k)) continue
		BARLIST = BARLIST (BARLIST == "" ? "" : ", ") x[c["Name"]] " (" sid(k) ")"
		BARMS += x[c["ProjDurMs"]]
	}
	close(FACTS)
	return BARLIST
}
# bar_line(WHAT): the line under a table that left barriers out: what it
# left out (WHAT), and the option that keeps them.
function bar_line(what) {
	pr(sprintf("Left out as barrier%s: %s; -B keeps %s.\n", index(bar_list(), "), ") ? "s" : "", what, index(bar_list(), "), ") ? "them" : "it"))
	para_out()
}
# steady_busy(BAR, A, W, B, LO, HI): A[0] and W[0], the modules active
# and the wall (ms) of the steady module frame's top modules, those in
# BAR left out (see p_utilisation); B[1] the union of their thunks'
# intervals per device ($W/intervals.tsv, sorted by device and start),
# summed, B[0] the number of devices; LO and HI the least and most busy
# device ([0] its number, [1] its busy share of its wall, the first in
# device order on a tie).  False without such modules.  Two passes over
# the module frame (a total per module, then per device), one over the
# intervals, nothing kept per row.
function steady_busy(bar, a, w, b, lo_, hi_,    file, line, c, x, t, ids, nid, i, tot, seen, top, lo, hi, busy, d, s, e, k, cd, cs, ce, u, nd, sh) {
	file = W "/steady/module.tsv"
	if ((getline line < file) <= 0) return 0
	split(line, x, "\t"); for (i in x) c[x[i]] = i
	while ((getline line < file) > 0) {
		split(line, x, "\t")
		if (!(x[c["ProgramId"]] in bar)) t[x[c["ProgramId"]]] += x[c["ProjDurMs"]]
	}
	close(file)
	nid = 0
	for (k in t) ids[++nid] = k
	# Largest first, ties by ProgramId (topmods.awk's order).
	split("", TOTS); for (k in t) TOTS[k] = t[k]
	msort(ids, nid)
	for (i = 1; i <= nid; i++) tot += t[ids[i]]
	if (tot <= 0) return 0
	for (i = 1; i <= nid && seen < 0.99; i++) { top[ids[i]] = 1; seen += t[ids[i]] / tot }
	getline line < file
	while ((getline line < file) > 0) {
		split(line, x, "\t")
		if (!(x[c["ProgramId"]] in top)) continue
		d = x[c["Device"]]; s = x[c["ProjStartMs"]] + 0; e = s + x[c["ProjDurMs"]]
		busy[d] += x[c["ProjDurMs"]]
		if (!(d in lo) || s < lo[d]) lo[d] = s
		if (!(d in hi) || e > hi[d]) hi[d] = e
	}
	close(file)
	a[0] = 0; w[0] = 0
	for (d in busy) { a[0] += busy[d]; w[0] += hi[d] - lo[d] }
	# The union per device: intervals in order of start, a run of
	# overlapping ones merged, each run's length added.
	file = W "/intervals.tsv"
	cd = ""
	while ((getline line < file) > 0) {
		split(line, x, "\t")
		if (!(x[2] in top)) continue
		s = x[3] + 0; e = x[4] + 0
		if (x[1] != cd || s > ce) {
			if (cd != "") u[cd] += ce - cs
			cd = x[1]; cs = s; ce = e
		} else if (e > ce) ce = e
	}
	close(file)
	if (cd != "") u[cd] += ce - cs
	b[0] = 0; b[1] = 0; nd = 0
	for (d in busy) {
		b[1] += u[d]; nd++
		ids[nd] = d
	}
	# The devices in numeric order: the least and most busy, the first
	# on a tie.
	for (i = 2; i <= nd; i++) for (k = i; k > 1 && ids[k - 1] + 0 > ids[k] + 0; k--) { d = ids[k]; ids[k] = ids[k - 1]; ids[k - 1] = d }
	for (i = 1; i <= nd; i++) {
		d = ids[i]; sh = hi[d] > lo[d] ? u[d] / (hi[d] - lo[d]) : 0
		if (i == 1 || sh < lo_[1]) { lo_[0] = d; lo_[1] = sh }
		if (i == 1 || sh > hi_[1]) { hi_[0] = d; hi_[1] = sh }
	}
	b[0] = nd > 1 ? nd : 0
	return 1
}
# before(X, Y), for sort.awk's msort: the larger total first (TOTS),
# then the ProgramId.
function before(x, y) {
	return TOTS[x] > TOTS[y] || (TOTS[x] == TOTS[y] && (x "") < (y ""))
}

function s_totals(    n, r, q, v) {
	if ((n = load(OUT "/summary/totals.tsv")) < 2) return
	title("Runtime totals")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Quantity"); align(0, "l"); cell(0, 1, "Value") }
		q = f("Quantity"); v = f("Value")
		if (q ~ /_ms$/) { sub(/_ms$/, " [ms]", q); v = grouped(fixed(v, 2)) }
		else v = plain(v)
		gsub(/_/, " ", q); cell(R - 1, 0, q); cell(R - 1, 1, v)
	}
	table_both()
}

# -- run metadata: nsysjax-extract's meta frame, a row per
# key; the processes named when their values differ; "--" for what no
# profile records.
function s_meta(    n, r, k, v, p, kr, kn, nk, seen, nv, val, src, who, i, j, first, line, c, x, rr) {
	if ((n = load(FR "/meta.tsv")) < 2) return
	title("Run metadata (what the profiles record; JAX and XLA versions only when their environment named them)")
	for (r = 2; r <= n; r++) {
		row(r)
		k = f("Key"); v = f("Value"); p = f("ProfileName")
		# The dump directory differs per process and is no setting.
		if (k == "XlaFlags") { gsub(/(^| )--xla_dump_to=[^ ]*/, "", v); sub(/^ /, "", v) }
		if (!(k in kr)) { kr[k] = ++nk; kn[nk] = k }
		if (v == "") v = "--"
		if (!((k, v) in seen)) { seen[k, v] = ++nv[k]; val[k, nv[k]] = v; src[k, nv[k]] = f("Source") }
		who[k, seen[k, v]] = who[k, seen[k, v]] (who[k, seen[k, v]] == "" ? "" : ",") p
	}
	cell(0, 0, "Key"); align(0, "l"); cell(0, 1, "Value"); align(1, "l"); cell(0, 2, "Source"); align(2, "l")
	rr = 0
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
			rr++; cell(rr, 0, j == 1 && first ? k : ""); cell(rr, 1, line)
			cell(rr, 2, !first ? "" : src[k, j] == "" ? "--" : src[k, j]); first = 0
		}
	}
	table_both()
}

function s_modules(    n, r, rr, k, one, names) {
	if ((n = load(OUT "/summary/modules.tsv")) < 2) return
	title("Modules: GPU time per XLA module")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Share"); cell(0, 1, "Total [ms]"); cell(0, 2, "Mean [ms]")
			cell(0, 3, "Wait [ms]"); cell(0, 4, "Wait share"); cell(0, 5, "Executions")
			cell(0, 6, "Thunks"); cell(0, 7, "Devices"); cell(0, 8, "Module (ProgramId)"); align(8, "l")
			facts() }
		rr = R - 1; k = f("ProgramId")
		# One device: no peer to wait for, so no wait (the reference prints 0).
		one = (k in fdev) && fdev[k] == 1
		cell(rr, 0, sprintf("%.2f%%", f("ProjDurPercent")))
		cell(rr, 1, grouped(fixed(f("ProjDurMs"), 2)))
		cell(rr, 2, unc(f("ProjDurMeanMs"), f("ProjDurStdMs")))
		cell(rr, 3, f("WaitMeanMs") == "" || one ? "--" : unc(f("WaitMeanMs"), f("WaitStdMs")))
		cell(rr, 4, f("WaitPercent") == "" || one ? "--" : sprintf("%.2f%%", f("WaitPercent")))
		cell(rr, 5, f("Executions"))
		cell(rr, 6, unc(f("NumThunksMean"), f("NumThunksStd")))
		cell(rr, 7, k in fdev ? fdev[k] : "--")
		cell(rr, 8, f("Name") " (" sid(k) ")" (k in fbar ? " barrier" : ""))
		names[f("Name")]++
	}
	table_both()
}

# The notebook: the top modules, taken until they make 99% of the time.
function p_top(    n, r, share, ids, nt, nm) {
	if ((n = load(OUT "/summary/modules.tsv")) < 2) return
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("TopModule") == 1) { share += f("ProjDurPercent"); ids = ids (ids == "" ? "" : ", ") sid(f("ProgramId")) " (" f("Name") ")"; nt++ }
		nm++
	}
	if (nt) pr(sprintf("%.2f%% of execution time accounted for by the %d top module(s) of %d: %s.\n", share, nt, nm, ids))
	para_out()
}

function p_modules(    n, r, over, cnt, top, k) {
	if ((n = load(OUT "/summary/modules.tsv")) < 2) return
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("WaitPercent") > 100) over = 1; cnt[f("Name")]++; top += f("TopModule")
	}
	if (over) pr("Wait share is the mean wait (per execution, the longest minus the shortest duration of each collective over the devices) over the mean duration: above 100% a device waits longer than an execution lasts on average, the mark of a barrier.\n")
	facts()
	for (k in fname) if (cnt[fname[k]] > 1)
		pr(sprintf("%s appears more than once: its processes compiled different programs (fingerprints); %s ran on process(es) %s, compiled by %s.\n", fname[k], sid(k), fproc[k], fby[k]))
	para_out()
}

function s_opcodes(    n, r, rr, nb) {
	# Without barriers (report.sh's opcodes.no-barriers.tsv), when it
	# left any out.
	nb = bar_list() != "" && exists(OUT "/flamegraphs/opcodes.no-barriers.tsv")
	if ((n = load(OUT "/flamegraphs/opcodes" (nb ? ".no-barriers" : "") ".tsv")) < 2) return
	title("GPU time by HLO operation")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Operation"); align(0, "l"); cell(0, 1, "Time [ms]"); cell(0, 2, "Share") }
		rr = R - 1; cell(rr, 0, f("Opcode") != "" ? f("Opcode") : "(no HLO instruction: command buffers, thunks outside the dumps)"); cell(rr, 1, grouped(fixed(f("ProjDurMs"), 3))); cell(rr, 2, pct(f("Fraction"), 2))
	}
	table_both()
	if (nb) bar_line(sprintf("%s, %s ms of module time, not in the shares above", bar_list(), grouped(fixed(BARMS, 3))))
}

# The thunks of barriers left out (is_bar), counted in the line under
# the table.
function s_thunks(    n, r, rr, left, lms) {
	if ((n = load(OUT "/summary/thunks.tsv")) < 2) return
	title("The thunks with the most GPU time")
	rr = 0
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Thunk"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
			cell(0, 2, "Executions"); cell(0, 3, "Time [ms]") }
		if (is_bar(f("ProgramId"))) { left++; lms += f("ProjDurMs"); continue }
		if (rr < 15) { rr++; cell(rr, 0, f("Name")); cell(rr, 1, sid(f("ProgramId")))
			cell(rr, 2, f("Executions")); cell(rr, 3, grouped(fixed(f("ProjDurMs"), 3))) }
	}
	table_both()
	if (left) bar_line(sprintf("the %d thunk(s) of %s, %s ms", left, bar_list(), grouped(fixed(lms, 3))))
}

# Command buffers' share; where only whole-graph times exist
# (no inner rows), how to see inside them.
function s_cmdbufs(    n, r, rr, share) {
	if ((n = load(OUT "/summary/cmdbufs.tsv")) < 2) return
	title("XLA command buffers (CUDA graphs): share of GPU time")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Command buffer"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
			cell(0, 2, "Executions"); cell(0, 3, "Time [ms]"); cell(0, 4, "Inside [ms]"); cell(0, 5, "Share") }
		rr = R - 1; cell(rr, 0, f("Name")); cell(rr, 1, sid(f("ProgramId"))); cell(rr, 2, f("Executions"))
		cell(rr, 3, fixed(f("ProjDurMs"), 3)); cell(rr, 4, f("InnerMs") + 0 > 0 ? fixed(f("InnerMs"), 3) : "--")
		cell(rr, 5, pct(f("Fraction"), 2)); share += f("Fraction")
	}
	if (n > 2) { cell(n, 0, "all command buffers"); cell(n, 5, pct(share, 2)) }
	table_both()
}
# cmdbuf_hint: when a command buffer has only its whole graph's time,
# how to get each operation's.
function cmdbuf_hint(    n, r, x, h1, h2, any) {
	n = load(OUT "/summary/cmdbufs.tsv")
	for (r = 2; r <= n; r++) { split(L[r], x, "\t"); if (x[5] == "0") any = 1 }
	if (!any) return
	h1 = "Only whole-graph times: for the time of each operation inside a command buffer, profile"
	h2 = "with nsysjax-profile, whose SQLite export traces graph nodes (nsys --cuda-graph-trace=node)."
	printf "<p>%s %s</p>\n", h1, h2 > HTML
	printf "\n%s\n%s\n", h1, h2 > TXT
}

function s_variability(    n, r, rr) {
	if ((n = load(OUT "/variability/thunks.tsv")) < 2) return
	title("Thunks whose duration varies most (over executions and devices)")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Thunk"); align(0, "l"); cell(0, 1, "Module (ProgramId)"); align(1, "l")
			cell(0, 2, "Executions"); cell(0, 3, "Mean [ms]"); cell(0, 4, "Relative std")
			cell(0, 5, "Min [ms]"); cell(0, 6, "Max [ms]") }
		if (R <= 11) { rr = R - 1; cell(rr, 0, f("Name")); cell(rr, 1, sid(f("ProgramId")))
			cell(rr, 2, f("Executions")); cell(rr, 3, unc(f("MeanMs"), f("StdMs")))
			cell(rr, 4, pct(f("RelStd"), 1)); cell(rr, 5, grouped(fixed(f("MinMs"), 4))); cell(rr, 6, grouped(fixed(f("MaxMs"), 4))) }
	}
	table_both()
}

function s_bandwidth(    n, r, k, s, kc, nk, kn, sr, sizes, ns, v, i, j, t, c) {
	if ((n = load(OUT "/communication/bandwidth.tsv")) < 2) return
	title("Bus bandwidth [GB/s] of the collectives, by message size")
	for (r = 2; r <= n; r++) {
		row(r)
		k = f("Collective"); s = f("MessageSize") + 0
		if (!(k in kc)) { kc[k] = ++nk; kn[nk] = k }
		if (!(s in sr)) { sr[s] = 1; sizes[++ns] = s }
		v[s, k] = unc(f("BusBandwidthGBPerSec"), f("BusBandwidthStdErrGBPerSec"))
	}
	n = ns; for (i = 2; i <= n; i++) for (j = i; j > 1 && sizes[j - 1] > sizes[j]; j--) {
		t = sizes[j]; sizes[j] = sizes[j - 1]; sizes[j - 1] = t }
	cell(0, 0, "Size [B]")
	for (c = 1; c <= nk; c++) cell(0, c, kn[c])
	for (i = 1; i <= n; i++) {
		cell(i, 0, thousands(sizes[i]))
		for (c = 1; c <= nk; c++)
			cell(i, c, (sizes[i], kn[c]) in v ? v[sizes[i], kn[c]] : "--")
	}
	table_both()
}

# Without barriers (report.sh's hidden.no-barriers.tsv) when it left
# any out: then a row of their own after "(all)", the whole table's
# "(all)" less this one's.
function s_hidden(    n, r, rr, nb, all, br, bh, bt) {
	nb = bar_list() != "" && exists(OUT "/communication/hidden.no-barriers.tsv")
	if (nb && (n = load(OUT "/communication/hidden.tsv")) >= 2)
		for (r = 2; r <= n; r++) { row(r); if (f("Collective") == "(all)") { all = 1; br = f("Rows"); bh = f("HiddenMs"); bt = f("TotalMs") } }
	if ((n = load(OUT "/communication/hidden" (nb ? ".no-barriers" : "") ".tsv")) < 2) return
	title("Communication hidden behind compute")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Collective"); align(0, "l"); cell(0, 1, "Thunks"); cell(0, 2, "Hidden [ms]")
			cell(0, 3, "Total [ms]"); cell(0, 4, "Hidden") }
		rr = R - 1; cell(rr, 0, f("Collective")); cell(rr, 1, f("Rows")); cell(rr, 2, grouped(fixed(f("HiddenMs"), 3)))
		cell(rr, 3, grouped(fixed(f("TotalMs"), 3))); cell(rr, 4, pct(f("HiddenToTotal"), 2))
		if (f("Collective") == "(all)") { br -= f("Rows"); bh -= f("HiddenMs"); bt -= f("TotalMs") }
	}
	if (nb && all) {
		rr = n; cell(rr, 0, "(barrier" (index(bar_list(), "), ") ? "s " : " ") bar_list() ", left out)"); cell(rr, 1, br)
		cell(rr, 2, grouped(fixed(bh, 3))); cell(rr, 3, grouped(fixed(bt, 3))); cell(rr, 4, bt > 0 ? pct(bh / bt, 2) : "--")
	}
	table_both()
	if (nb) bar_line(sprintf("%s, %s ms of communication, not in \"(all)\"", bar_list(), grouped(fixed(bt, 3))))
}

function s_corrections(    n, r, rr) {
	if ((n = load(OUT "/corrections.tsv")) < 2) return
	title("Clock corrections per device (subtracted from its GPU times)")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Device"); cell(0, 1, "Correction [ms]"); cell(0, 2, "Instances")
			cell(0, 3, "Spread [ms]") }
		rr = R - 1; cell(rr, 0, f("Device")); cell(rr, 1, grouped(fixed(f("CorrectionMs"), 6)))
		cell(rr, 2, f("Instances")); cell(rr, 3, grouped(fixed(f("SpreadMs"), 6)))
	}
	table_both()
}

# Which device makes the others wait, and by how much per step
# (variability/late.tsv, nsysjax-stats(1) "late"): its own slow work
# against its peers', the wait it causes them, its biases, "+" late.
function s_stragglers(    n, r, rr, k, one, left) {
	if ((n = load(OUT "/variability/late.tsv")) < 2) return
	title("Which device makes the others wait, per module: per step, + is late (slower or later than its peers)")
	rr = 0
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Module"); align(0, "l"); cell(0, 1, "Device"); cell(0, 2, "Late per step [ms]")
			cell(0, 3, "Peers' wait per step [ms]"); cell(0, 4, "Start bias [ms]"); cell(0, 5, "Thunk bias [ms]")
			cell(0, 6, "Outlier score per step [ms]") }
		if (R == 2) facts()
		if (is_bar(f("ProgramId"))) { left++; continue }
		# A module on one device has no other device to be behind.
		if (rr < 10) { rr++; k = f("ProgramId"); one = (k in fdev) && fdev[k] == 1
			cell(rr, 0, f("Name") " (" sid(k) ")"); cell(rr, 1, f("Device"))
			cell(rr, 2, one ? "--" : signed3(f("LateMs"))); cell(rr, 3, one ? "--" : grouped(fixed(f("WaitCausedMs"), 3)))
			cell(rr, 4, one ? "--" : signed3(f("StartBiasMs"))); cell(rr, 5, one ? "--" : signed3(f("ThunkBiasMs")))
			cell(rr, 6, one ? "--" : grouped(fixed(f("OutlierScoreMs"), 3))) }
	}
	table_both()
	if (left) bar_line(sprintf("the %d row(s) (module, device) of %s", left, bar_list()))
	dg_wait_line()
}
# V to 3 decimals with its sign: "+" late, "-" early (0 unsigned).
function signed3(v,    t) {
	t = grouped(fixed(v, 3))
	if (t ~ /^-0\.000$/) t = "0.000"
	return (v + 0 > 0 && t != "0.000") ? "+" t : t
}

# The total (every phase's own time, summed over the processes: each
# compiles its programs), then the notebook's line and its phases.
function p_compile(    n, r, total, top) {
	if ((n = load(OUT "/summary/compile-summary.tsv")) < 2) return
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) total = f("FracNonChild") > 0 ? f("DurNonChildMs") / f("FracNonChild") : 0
		if (R <= 11) top += f("FracNonChild")
	}
	if (total > 0) pr(sprintf("Compilation: %s s in total, summed over %d process(es) (each compiles its own programs); the phases below are the top %.1f%% of %s s compilation time.\n", \
	    grouped(fixed(total / 1000, 1)), NPROFILES, 100 * top, grouped(fixed(total / 1000, 1))))
	para_out()
}
# A profile without compilation (its compile frame has no XLA range:
# the programs were compiled before the capture, or in a cache) says
# so, rather than a compile time of 0.
function p_no_compile() {
	if (load(OUT "/summary/compile-summary.tsv") >= 2) return 0
	pr("Compilation: not in the profile (it holds no XLA compilation range).\n")
	para_out()
	return 1
}

function s_compile(    n, r, rr, line, x, pid, nm, mod, what, deco, k, kv, i) {
	if ((n = load(OUT "/summary/compile-summary.tsv")) < 2) return
	title("Compilation: the largest phases (own time)")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Phase"); align(0, "l"); cell(0, 1, "Module"); align(1, "l"); cell(0, 2, "Time [ms]"); cell(0, 3, "Share")
			# XLA numeric program_id -> module name(s), from the compile frame.
			while ((getline line < PIDS) > 0) { split(line, x, "\t"); pid[x[1]] = x[2] }
			close(PIDS) }
		if (R <= 11) { rr = R - 1; nm = f("Name"); mod = ""; what = ""
			# XLA decorates a phase name: "XlaPass:#name=priority-fusion,program_id=19#".
			if (match(nm, /:#.*#$/)) {
				deco = substr(nm, RSTART + 2, RLENGTH - 3); nm = substr(nm, 1, RSTART - 1)
				k = split(deco, kv, ",")
				for (i = 1; i <= k; i++) {
					if (kv[i] ~ /^name=/) what = substr(kv[i], 6)
					else if (kv[i] ~ /^module=/) mod = substr(kv[i], 8)
					else if (kv[i] ~ /^program_id=/ && mod == "") mod = substr(kv[i], 12) in pid ? pid[substr(kv[i], 12)] : ""
				}
			}
			if (what != "") nm = nm " " what
			if (mod != "") PHASEMOD[mod] = 1
			if (length(nm) > 60) nm = substr(nm, 1, 57) "..."
			cell(rr, 0, nm); cell(rr, 1, mod == "" ? "--" : mod); cell(rr, 2, grouped(fixed(f("DurNonChildMs"), 1))); cell(rr, 3, pct(f("FracNonChild"), 2)) }
	}
	table_both()
}

# The modules of the steady state (facts.tsv), each with its compile
# time, or "not in the profile" when no range of the compile frame is
# its (CompiledBy empty); then the modules the phase table names
# (PHASEMOD, from s_compile) that are not among them, with the reason.
function s_compile_modules(    n, r, rr, have, x, i, k, miss, nm) {
	if ((n = load(FACTS)) < 2) return
	title("Compilation time per module (its compilations, summed over processes)")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Module (ProgramId)"); align(0, "l"); cell(0, 1, "Compile [ms]"); cell(0, 2, "Processes that compiled it"); align(2, "l") }
		rr = R - 1; cell(rr, 0, f("Name") " (" sid(f("ProgramId")) ")")
		cell(rr, 1, f("CompiledBy") == "" ? "not in the profile" : grouped(fixed(f("CompileMs"), 1)))
		cell(rr, 2, f("CompiledBy") == "" ? "--" : f("CompiledBy"))
		have[f("Name")] = 1
	}
	table_both()
	# A phase's module may be several names (XLA's program_id is per
	# process): "a,b".
	for (k in PHASEMOD) {
		n = split(k, x, ",")
		for (i = 1; i <= n; i++) if (!(x[i] in have)) miss[x[i]] = 1
	}
	n = 0
	for (k in miss) x[++n] = k
	if (n == 0) return
	split("", TOTS); msort(x, n)
	for (i = 1; i <= n; i++) pr(sprintf("%s (in the phases above) is not in this table, which holds the modules of the steady state: %s.\n", x[i], absent_why(x[i])))
	para_out()
}
# absent_why(NAME): why module NAME, compiled, has no steady execution:
# from the frames' module.tsv (every execution, before the warm-up
# split) and report.sh's -m/-x list ($W/programs).
function absent_why(name,    file, line, x, c, i, ran, kept, ids) {
	file = FR "/module.tsv"
	if ((getline line < file) > 0) {
		split(line, x, "\t"); for (i in x) c[x[i]] = i
		while ((getline line < file) > 0) {
			split(line, x, "\t")
			if (x[c["Name"]] == name) { ran++; ids[x[c["ProgramId"]]] = 1 }
		}
	}
	close(file)
	if (!ran) return "it never ran in the profile"
	file = W "/programs"
	if (exists(file)) {
		while ((getline line < file) > 0) if (line in ids) kept = 1
		close(file)
		if (!kept) return "-m/-x left it out"
	}
	return sprintf("it ran only in the warm-up, which the steady state leaves out (%d execution(s), counted per device)", ran)
}

function s_peaks(    n, r, rr) {
	if ((n = load(OUT "/memory/peaks.tsv")) < 2) return
	title("Peak of XLA's temporaries per module (its heap simulator, in the buffer assignment)")
	for (r = 2; r <= n; r++) {
		row(r)
		if (R == 2) { cell(0, 0, "Module (ProgramId)"); align(0, "l"); cell(0, 1, "Peak temporaries")
			cell(0, 2, "Peak [B]"); cell(0, 3, "At instruction"); align(3, "l") }
		rr = R - 1; cell(rr, 0, f("Name") " (" sid(f("ProgramId")) ")")
		cell(rr, 1, bytes(f("PeakHeapBytes"))); cell(rr, 2, thousands(f("PeakHeapBytes")))
		cell(rr, 3, f("PeakInstruction"))
	}
	table_both()
	# What lib/profile/heap.c counts: the buffers of the heap simulator's
	# traces, which XLA runs on the temporaries alone; the entry
	# parameters, constants and outputs (maybe-live-out) have allocations
	# of their own, outside the traces.
	pr("A peak counts the temporaries only: the most bytes of the buffers XLA's heap simulator places at once. " \
	    "The module's parameters, constants and outputs have buffers of their own and are not in it: " \
	    "a module that makes large outputs from small inputs can peak at a few bytes.\n")
	para_out()
}

# -- the plots

# inline_svg(FILE, CAPTION): FILE's <svg> element (its XML prolog and
# doctype dropped) in a <figure>, when FILE is not empty; without its
# scripts, comments and event handlers (flamegraph.pl's zoom and search:
# the page runs no script, its Content-Security-Policy would refuse
# them), its ids and its style sheet made the figure's own.
function inline_svg(file, caption,    line, on, skip, sty) {
	if (!nonempty(file))
		return
	SVGN++
	printf "<figure id=\"svg%d\">\n", SVGN > HTML
	while ((getline line < file) > 0) {
		if (!on && line ~ /<svg/)
			on = 1
		if (!on)
			continue
		if (line ~ /<\/style/)
			sty = 0
		line = sty ? scoped_css(line) : scoped(inert(line))
		if (line ~ /<style/ && line !~ /<\/style/)
			sty = 1
		# A script element or a comment, over one line or many, left
		# out whole: skip holds what ends the one being skipped.
		while (line != "") {
			if (skip != "") {
				if (!match(line, skip)) { line = ""; break }
				line = substr(line, RSTART + RLENGTH); skip = ""
			} else if (match(line, /<script|<!--/)) {
				if (RSTART > 1) printf "%s", substr(line, 1, RSTART - 1) > HTML
				line = substr(line, RSTART)
				skip = line ~ /^<!--/ ? "-->" : "</script[ \t]*>"
				if (skip != "-->" && match(line, /^<script[^>]*\/>/)) { line = substr(line, RLENGTH + 1); skip = "" }
				else line = substr(line, skip == "-->" ? 5 : 8)
			} else {
				print line > HTML
				line = ""
			}
		}
	}
	close(file)
	printf "<figcaption>%s</figcaption>\n</figure>\n", html(caption) > HTML
}
# scoped(LINE): LINE with its ids and in-document references (url(#id),
# href="#id") prefixed by the figure's number: the page holds several
# SVGs whose ids repeat (flamegraph.pl's "background", gnuplot's
# "gpPt1"), and an id must be unique in a page.  A url() of anything
# but an id (it would load a resource) is dropped.
function scoped(line,    p) {
	p = "svg" SVGN "-"
	gsub(/[ \t]id="/, "&" p, line)
	gsub(/[ \t]id='/, "&" p, line)
	gsub(/url\(#/, "&" p, line)
	gsub(/url\([^#)][^)]*\)/, "none", line)
	gsub(/href="#/, "&" p, line)
	gsub(/href='#/, "&" p, line)
	return line
}
# scoped_css(LINE): a rule of an inlined SVG's style sheet, one per line
# as flamegraph.pl writes them, made to apply to its figure only: its
# selectors prefixed by the figure's id, its ids by the figure's number
# (as scoped() renames them).  An inlined <style> would otherwise style
# the whole page (flamegraph.pl's "text { font-family:Verdana }").
function scoped_css(line,    sel, n, i, out, s) {
	if (!match(line, /\{/))
		return line
	n = split(substr(line, 1, RSTART - 1), sel, ",")
	for (i = 1; i <= n; i++) {
		s = sel[i]
		gsub(/^[ \t]+|[ \t]+$/, "", s)
		gsub(/#/, "#svg" SVGN "-", s)
		out = out (i > 1 ? ", " : "\t") "#svg" SVGN " " s
	}
	return out " " substr(line, RSTART)
}
# inert(LINE): LINE without event handlers (on...="..." attributes,
# flamegraph.pl's onload, onclick, onmouseover) nor javascript: links:
# an inlined SVG is a picture, the interactive one is its file, linked.
function inert(line) {
	gsub(/[ \t\n]on[A-Za-z]+[ \t]*=[ \t]*"[^"]*"/, "", line)
	gsub(/[ \t\n]on[A-Za-z]+[ \t]*=[ \t]*'[^']*'/, "", line)
	gsub(/javascript:/, "", line)
	return line
}

# html_plots(PART): the plots that belong to section PART.
function html_plots(pt,    p, k, n, i, any) {
	p = OUT "/plots"
	if (pt == "thunks") {
		inline_svg(p "/variability.svg", "Duration spread of the most variable thunks: mean, minimum and maximum over executions and devices")
		inline_svg(p "/variability-scatter.svg", "Every compute thunk: mean duration against relative standard deviation (data: plots/variability-scatter.tsv)")
	} else if (pt == "communication") {
		inline_svg(p "/bandwidth.svg", "Bus bandwidth by message size (nccl-tests definition, GB/s = 1e9 B/s)")
		inline_svg(p "/waits.svg", "Wait per collective instance: the spread of its exposed time over devices")
		inline_svg(p "/wait-size.svg", "Wait against message size, per collective")
	} else if (pt == "alignment") {
		inline_svg(p "/skews.svg", "End-time skew of each device per complete collective instance")
		inline_svg(p "/skews-distribution.svg", "Distribution of the end-time skews, per device (data: plots/skews-by-device.tsv)")
		inline_svg(p "/stragglers.svg", "Start bias of each device per module: how far it runs behind (+) or ahead (-)")
		module_plots("stragglers", "Straggler bias over the module (each device against the mean over devices, per thunk; circles: collectives)")
	} else if (pt == "memory") {
		# One plot per top module; the largest peak's alone when
		# there are none (an earlier layout of plots/).
		n = plot_keys("heap", k)
		for (i = 1; i <= n; i++)
			if (exists(p "/heap-" k[i] ".svg"))
				any = 1
		if (any)
			module_plots("heap", "Heap usage over program order")
		else
			inline_svg(p "/heap.svg", "Heap usage over program order, the module with the largest peak")
	}
}

# plot_keys(KIND, K): the K (ProgramId:12) of the module plots KIND
# (plots/KIND-K.tsv) in K[1..], in the order of their names; their
# number.  From plots.awk's plotidx.
function plot_keys(kind, k,    line, x, n, seen, i, j, t) {
	n = 0
	if (!PLOTS)
		return 0
	while ((getline line < (W "/plotidx")) > 0) {
		split(line, x, "\t")
		if (x[1] == kind && !((x[2] "") in seen)) { seen[x[2] ""] = 1; k[++n] = x[2] "" }
	}
	close(W "/plotidx")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && k[j - 1] > k[j]; j--) {
		t = k[j]; k[j] = k[j - 1]; k[j - 1] = t }
	return n
}

# module_plots(KIND, CAPTION): each plots/KIND-<ProgramId:12>.svg inline,
# captioned with its module, and linked with its data (.tsv).
function module_plots(kind, caption,    k, n, i, b, m, nm, r, x) {
	n = plot_keys(kind, k)
	if (!n)
		return
	nm = load(OUT "/summary/modules.tsv")
	for (i = 1; i <= n; i++) {
		b = kind "-" k[i]
		m = ""
		for (r = 2; r <= nm; r++) {
			split(L[r], x, "\t")
			if (index(x[1], k[i]) == 1) { m = x[2]; break }
		}
		inline_svg(OUT "/plots/" b ".svg", caption ": " m " (" k[i] ")")
		printf "<p class=\"note\">%s (%s): <a href=\"plots/%s.svg\">plots/%s.svg</a>, data <a href=\"plots/%s.tsv\">plots/%s.tsv</a></p>\n", \
		    html(m), k[i], b, b, b, b > HTML
	}
}

# plot_index_txt: the module plots (plots.awk's plotidx) as a table for
# report.txt, nothing when there are none.
function plot_index_txt(    line, x, n, svg) {
	n = 0
	while ((getline line < (W "/plotidx")) > 0) {
		split(line, x, "\t")
		if (!n++) {
			cell(0, 0, "Plot"); cell(0, 1, "Data"); cell(0, 2, "Module (ProgramId)"); cell(0, 3, "What")
		}
		svg = nonempty(OUT "/plots/" x[1] "-" x[2] ".svg") ? "plots/" x[1] "-" x[2] ".svg" : "--"
		cell(n, 0, svg); cell(n, 1, "plots/" x[1] "-" x[2] ".tsv"); cell(n, 2, x[3] " (" x[2] ")"); cell(n, 3, x[4])
	}
	close(W "/plotidx")
	if (!n)
		return
	align(0, "l"); align(1, "l"); align(2, "l"); align(3, "l")
	printf "\nPlots per top module (the data of each beside it)\n\n" > TXT
	table_print("  ", TXT)
	table_clear()
}

# -- the flame graphs

# html_flamegraphs: the whole run's graphs inline (their idle frames
# included) and linked, and one per top module linked
# (flamegraphs/modules.tsv): opened as files, flamegraph.pl's SVGs zoom
# and search, which this page's Content-Security-Policy stops.  Without a
# renderer, the folded files and how to render or open them.
function html_flamegraphs(    fg, i, k, n, r, x, nf, bar, work, ord, no, nm, id, fl, e, j) {
	printf "</section>\n<section id=\"flamegraphs\">\n<h2>Flame graphs</h2>\n" > HTML
	fg = OUT "/flamegraphs"
	split("source op_name", x, " ")
	# The modules' own first, the module that does the work leading and
	# barriers (their time is collective wait) last, as links: the
	# whole run's are mostly idle time between module executions.
	if ((nf = load(FACTS)) >= 2)
		for (r = 2; r <= nf; r++) { row(r); if (f("Barrier") == 1) bar[f("ProgramId")] = 1; if (f("WorkModule") == 1) work = f("ProgramId") }
	if (nonempty(fg "/modules.tsv")) {
		n = load(fg "/modules.tsv")
		no = 0
		for (r = 2; r <= n; r++) { read_tab(L[r]); if (RF[1] == work) { ord[++no] = r; id[r] = RF[1]; nm[r] = RF[2]; fl[r] = RF[4] } }
		for (r = 2; r <= n; r++) { read_tab(L[r]); if (RF[1] != work && !(RF[1] in bar)) { ord[++no] = r; id[r] = RF[1]; nm[r] = RF[2]; fl[r] = RF[4] } }
		for (r = 2; r <= n; r++) { read_tab(L[r]); if (RF[1] in bar) { ord[++no] = r; id[r] = RF[1]; nm[r] = RF[2]; fl[r] = RF[4] } }
		printf "<h3>Per module (steady state, its own thunks: no idle time)</h3>\n" > HTML
		for (i = 1; i <= no; i++) {
			r = ord[i]
			printf "<p>%s (%s)%s:", html(nm[r]), sid(id[r]), id[r] == work ? ", the module that does the work" : id[r] in bar ? ", a barrier" : "" > HTML
			for (j = 1; j <= 2; j++) {
				k = x[j]
				e = nonempty(fg "/" fl[r] "." k ".svg") ? "svg" : "folded"
				printf " <a href=\"flamegraphs/%s.%s.%s\">%s</a>", fl[r], k, e, k > HTML
			}
			printf "%s</p>\n", e == "svg" ? " (open a file to zoom and search)" : "" > HTML
			if (id[r] in bar) continue
			for (j = 1; j <= 2; j++)
				inline_svg(fg "/" fl[r] "." x[j] ".svg", sprintf("%s (%s), steady state, by %s (folded stacks in flamegraphs/%s.%s.folded)", nm[r], sid(id[r]), x[j], fl[r], x[j]))
		}
	}
	for (i = 1; i <= 2; i++) {
		k = x[i]
		if (nonempty(fg "/" k ".svg"))
			printf "<p>The whole run by %s, idle time between module executions included: <a href=\"flamegraphs/%s.svg\">flamegraphs/%s.svg</a> (folded stacks in <a href=\"flamegraphs/%s.folded\">flamegraphs/%s.folded</a>).</p>\n", k, k, k, k, k > HTML
		else
			printf "<p>GPU time by %s, the whole run: <a href=\"flamegraphs/%s.folded\">flamegraphs/%s.folded</a>; render it with <code>flamegraph.pl --hash --countname=us flamegraphs/%s.folded &gt; %s.svg</code> (no renderer was on PATH).</p>\n", \
			    k, k, k, k, k > HTML
	}
	if (!nonempty(fg "/source.svg"))
		printf "<p class=\"note\">flamegraph.pl is not packaged in Debian: get it from github.com/brendangregg/FlameGraph (or inferno-flamegraph: cargo install inferno) and put it on PATH before the report. The .folded files also open as they are in speedscope (speedscope.app, or npm install -g speedscope).</p>\n" > HTML
	printf "</section>\n" > HTML
}

# read_tab(LINE): RF[1..4] as `IFS=TAB read -r a b c d` sets them: tabs
# are white space to read (runs are one separator, none at either end),
# the last takes the rest.
function read_tab(line,    i) {
	split("", RF)
	sub(/^\t+/, "", line); sub(/\t+$/, "", line)
	for (i = 1; i < 4; i++) {
		if (match(line, /\t+/)) {
			RF[i] = substr(line, 1, RSTART - 1); line = substr(line, RSTART + RLENGTH)
		} else {
			RF[i] = line; line = ""
		}
	}
	RF[4] = line
}

# reading(): "How to read the report", a paragraph per term the report
# uses without defining it where it appears, and what to do about each
# (the same text as nsysjax-report(1), "HOW TO READ THE REPORT").
function reading() {
	printf "<section id=\"reading\">\n<h2>How to read the report</h2>\n" > HTML
	printf "<p><b>Step time.</b> The aligned span of one module execution over its devices: from the first device's start to the last device's end, on the corrected clocks. The module table's Mean is per device and execution; the critical path's StepMs and the roofline's steps are step times; the comparison's sums of thunk time are GPU-busy time, not step time.</p>\n" > HTML
	printf "<p><b>One step, several ProgramIds.</b> Processes that compiled the step apart (another autotuning of a kernel gives another fingerprint, so another ProgramId) still run one SPMD step. ProgramIds with the same module name, the same collectives in the same order and disjoint devices are joined: the headline, the critical path, the waits, the stragglers and the timeline's flows see one step over all the devices, and a note names the ProgramIds joined. The module table keeps a row per ProgramId, as nsys-jax does. To do: autotune once and share the results (the capture check says how), so that the processes run the same kernels.</p>\n" > HTML
	printf "<p><b>Barrier.</b> A module whose time is almost all collective wait (a <code>jit__psum</code> that synchronises the processes, say): its devices wait for the slowest to arrive, they do no work. Its steady executions may spread over the initialisation, so counted as work it would make the run look idle. The headline utilisation, the tables (GPU time by HLO operation, top thunks, hidden communication, where they get a row of their own, stragglers), the what-if scenarios, the step drawn and the inline flame graphs leave barriers out and say so, as does the comparison (pipelines/diff.sh) in its total and gate; the Runtime totals, the section TSV files and the whole-run folded files keep them; <code>-B</code> keeps them everywhere the report leaves them out. To do: nothing when it is a one-off synchronisation (start, checkpoint); inside the training loop, find the late device (Alignment and stragglers) and why it is late. <code>-m NAME</code> reports the barrier alone.</p>\n" > HTML
	printf "<p><b>Host-bound.</b> An execution whose critical path is more than half gaps: no thunk of the path runs, the GPU waits for the host (kernel launches, Python, the input pipeline, a synchronisation such as a device-to-host copy). GPU what-ifs are optimistic there: faster kernels do not shorten gaps. To do: look at the host side of the step (the timeline shows the gaps between thunks); command buffers (<code>--xla_gpu_enable_command_buffer</code>) cut launch overhead; larger steps amortise it.</p>\n" > HTML
	printf "<p><b>Wait share above 100%%.</b> A module's wait is, per execution, the sum over its collectives of the longest minus the shortest duration over the devices; the share divides it by the mean duration. Above 100%% the devices wait longer than an execution lasts on average: uneven arrivals at a barrier, not slow communication. To do: treat the module as a barrier (above); the skews and stragglers say which device arrives late.</p>\n" > HTML
	printf "<p><b>Step MFU and GPU-busy MFU.</b> Both are the model FLOPs (matmuls) of an execution over the dense peak of the GPU and a time: the step time for step MFU, the time the GPU ran the module's thunks for GPU-busy MFU. A step MFU well below its GPU-busy MFU means idle time inside the step (host-bound, waits); a low GPU-busy MFU means the kernels themselves are slow (the roofline's bound says memory or compute).</p>\n" > HTML
	printf "<p><b>What-if assumptions.</b> Each scenario changes durations in the graph measured on the aligned clocks and predicts the step: dependencies are inferred from times (a thunk waits for the one before it on its stream and for the last arrival at a collective), and gaps are kept as measured except in no-gaps. A gain is an estimate, an upper bound where gaps dominate; a negative gain means the scenario's median durations or starts (no-straggler) are slower than the measured ones. To do: take the largest gains as the places to try, then measure the change and compare the two runs (<code>pipelines/diff.sh</code>).</p>\n" > HTML
	printf "</section>\n" > HTML
}

# sid(ID): a ProgramId for people: a fingerprint (hex digits) by its
# first 12, as everywhere in the report; any other id whole (such as
# nsysjax-extract's "<hash>-missing-hlo" for a module without a dump,
# shown whole so that it says what it is).
function sid(id) {
	return id ~ /^[0-9a-f]+$/ && length(id) > 12 ? substr(id, 1, 12) : id
}
