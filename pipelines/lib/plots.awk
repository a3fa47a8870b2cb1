# plots.awk (with sort.awk), run by report.sh: the data of the
# notebook's plots and one gnuplot program that draws them all, in one
# process (each process start is dear).  OUT, ST and W are paths in the
# environment (ENVIRON).  Reads the report's tables in
# OUT, the steady module frame in ST and, in W/stats, the sums over the
# steady thunk frame (nsysjax-stats -t scatter,offsets, run by report.sh
# before this program); writes the plots' data beside them
# (OUT/plots/*.tsv), the split data of multi-series plots into W
# (NAME.<k>.tsv: files named by number, never by a data value), and into
# W: plot.<n>.gp, the program of plot n, a file of its own so that a
# plot that fails can be skipped and the rest drawn; plots.list, "n TAB
# NAME" per plot (NAME.svg in OUT/plots); plotidx, "KIND TAB K TAB
# MODULE TAB WHAT" per module plot (K: the ProgramId's first 12
# characters).  gnuplot runs with the plots directory as ARG1 and W as
# ARG2 (arguments, never program text); it sees no path of ours and no
# data value in its program text except as a quoted string (gq).
#
# Each plot's program begins with `reset session` (the state of a fresh
# gnuplot: options, variables, init files) and the terminal; the plot is
# then what it was drawn alone.  Series are N, D1.. (data files) and
# T1.. (titles): as the earlier one-process-per-plot programs read
# ARGC and ARG1.. of `gnuplot -c`, at most 9 series.
#
# PART: empty, every plot; "skews", the two plots of the alignment skews
# alone (most of the time at scale: 2.2 s of 2.3 at 256 devices), which
# report.sh draws up as soon as nsysjax-align -s has written them,
# beside the sections, their programs in W/plot.NAME.gp; "rest", the
# others, the skews' programs taken in their place (adopt): the same
# plots, numbered as one run numbers them.
BEGIN {
	FS = "\t"
	# The paths from the environment: -v would read escape sequences.
	OUT = ENVIRON["OUT"]; W = ENVIRON["W"]; ST = ENVIRON["ST"]
	PL = OUT "/plots"
	KEYMAX = 16	# series named in a plot's key (plot_series)
	SKD_MAX = 2000	# skews of a device drawn one point each (skews_distribution)
	SKD_BINS = 200	# beyond: its curve at SKD_BINS + 1 points
	SKD_STEPS = 200	# skews of every device at most: curves drawn as steps
	# The key outside the frame, never over a point: at the right for
	# short names, below for long ones (at the right a long key left the
	# title no room: it ran off the page).
	KEYRIGHT = "set key outside right top"
	KEYBELOW = "set key outside below"
	# A device axis: a tick at each device only, half a device of margin
	# on both sides, so no device is drawn on the frame.
	DEVAXIS = "set xtics 1; set mxtics 1; set offsets 0.5, 0.5, 0, 0; set autoscale xfix"
	if (PART == "skews") {
		skews()
		skews_distribution()
		exit
	}
	printf "" > (W "/plots.list")
	multi()
	heap()
	modules()
	if (PART == "rest") adopt("skews"); else skews()
	variability()
	stragglers()
	if (PART == "rest") adopt("skews-distribution"); else skews_distribution()
	scatter()
	wait_size()
	close(W "/plots.list")
	close(W "/plotidx")
	exit
}

# load(FILE, A): the lines of FILE in A[1..], their number (0: no file).
function load(file, a,    n, line) {
	split("", a)
	n = 0
	while ((getline line < file) > 0)
		a[++n] = line
	close(file)
	return n
}

# cutf(LINE, N): field N of LINE as cut -f N gives it (a line without a
# tab whole).
function cutf(line, n,    x, k) {
	if (index(line, "\t") == 0)
		return line
	k = split(line, x, "\t")
	return n <= k ? x[n] : ""
}

# gq(S): S as a gnuplot string literal (single quotes: no escapes, no
# substitution; a quote doubled).
function gq(s) {
	gsub(/'/, "''", s)
	return "'" s "'"
}

# put(FILE, A, N): A[1..N] written to FILE.
function put(file, a, n,    i) {
	printf "" > file
	for (i = 1; i <= n; i++)
		print a[i] > file
	close(file)
}

# by_column(A, N, COL, OUT): the rows of A[1..N] (A[1] the header) split
# by the value of column COL, in order of appearance, into W/OUT.<k>.tsv
# (header kept); their number; in G[1..] the file names and in GF[1..]
# their first row.
function by_column(a, n, col, out,    i, c, x, k, key, seen, ng, f) {
	split(a[1], x, "\t")
	c = 0
	for (i = 1; i in x; i++)
		if (x[i] == col)
			c = i
	split("", G); split("", GF)
	ng = 0
	for (i = 2; i <= n; i++) {
		key = c ? tabfield(a[i], c) : a[i]
		if (!(key in seen)) {
			seen[key] = ++ng
			G[ng] = out "." ng ".tsv"; GF[ng] = a[i]
			print a[1] > (W "/" G[ng])
		}
		print a[i] > (W "/" G[seen[key]])
	}
	for (k = 1; k <= ng; k++)
		close(W "/" G[k])
	return ng
}

# tabfield(LINE, N): field N of LINE (fields split at tabs; "" when it has
# fewer), as split(LINE, X, "\t") gives X[N], without an array (the
# cost when N is small).
function tabfield(line, n,    k) {
	while (--n > 0) {
		if (!(k = index(line, "\t")))
			return ""
		line = substr(line, k + 1)
	}
	return (k = index(line, "\t")) ? substr(line, 1, k - 1) : line
}

# plot_begin(NAME): a new plot, OUT/plots/NAME.svg, its program open in
# PF; plot_series(FIRST, N, FIELD, PREFIX): its series D<FIRST>.. the
# first N of G[], titled PREFIX and field FIELD of their first row: all of
# them drawn (a device past the ninth was once left out, when series came
# as `gnuplot -c` arguments), the key naming the first KEYMAX, beyond
# which it would cover the plot (an empty title is no key entry).
function plot_begin(name) {
	if (PART == "skews")
		PF = W "/plot." name ".gp"
	else {
		PF = W "/plot." ++NP ".gp"
		print NP "\t" name > (W "/plots.list")
	}
	printf "reset session\n" > PF
	# noenhanced: names are shown as written (no _ subscripts); SI
	# prefixes on log axes rather than exponent notation.
	printf "set encoding utf8; set terminal svg size 900,540 dynamic noenhanced background rgb 'white'; set output ARG1.%s\n", gq("/" name ".svg") > PF
	printf "%s", linetypes() > PF
}
# linetypes(): gnuplot commands that give its linetypes 1.. the colours
# of colour()'s palette, so that a plot of one series, or of series
# coloured by order, draws in the report's one palette too.
function linetypes(    i, t) {
	palette()
	for (i = 1; i <= NPAL; i++)
		t = t sprintf("set linetype %d lc rgb '%s'\n", i, PAL[i])
	return t
}
function plot_series(first, n, field, prefix,    i, k) {
	printf "N = %d\n", first - 1 + n > PF
	for (i = 1; i <= n; i++) {
		k = first - 1 + i
		printf "D%d = ARG2.%s; T%d = %s; C%d = %s\n", k, gq("/" G[i]), k, gq(k <= KEYMAX ? prefix cutf(GF[i], field) : ""), \
		    k, gq(colour(cutf(GF[i], field))) > PF
	}
}
# colour(NAME): the colour of a series named NAME, the same in every plot
# of the report (a collective is one colour in the bandwidth, the waits
# and wait against size): the known collectives in a fixed order, any
# other name the next colour as first met; a device (a name that is a
# number) the colour of its number, so that device 2 is one colour in the
# skews' distribution and in every module's straggler plot; the
# Okabe-Ito palette (told apart with colour-blindness), then four of
# Paul Tol's muted scheme.
function colour(name) {
	palette()
	if (name ~ /^[0-9]+$/) return PAL[(name % NPAL) + 1]
	if (!(name in COLOUR)) COLOUR[name] = PAL[(NCOL++ % NPAL) + 1]
	return COLOUR[name]
}
# palette(): the report's colours, PAL[1..NPAL], and the known
# collectives' in COLOUR[], once.
function palette(    k, i) {
	if (NPAL)
		return
	NPAL = split("#0072b2 #e69f00 #009e73 #cc79a7 #56b4e9 #d55e00 #000000 #f0e442 #882255 #44aa99 #999933 #661100", PAL, " ")
	k = split("all-reduce all-gather reduce-scatter all-to-all collective-permute send recv collective-broadcast", KNOWNC, " ")
	for (i = 1; i <= k; i++) COLOUR[KNOWNC[i]] = PAL[i]
	NCOL = k
}
function plot_end(text) {
	printf "%s", text > PF
	close(PF)
}
# adopt(NAME): plot NAME as PART "skews" wrote it (W/plot.NAME.gp), if
# it did, as the next plot.
function adopt(name,    f, line) {
	f = W "/plot." name ".gp"
	if ((getline line < f) <= 0)
		return
	PF = W "/plot." ++NP ".gp"
	print NP "\t" name > (W "/plots.list")
	do print line > PF; while ((getline line < f) > 0)
	close(f)
	close(PF)
}

# The bandwidth and the waits per collective (the waits' series kept
# for wait-size).
function multi(    a, n, i, ng) {
	n = load(OUT "/communication/bandwidth.tsv", a)
	if ((ng = by_column(a, n, "Collective", "bw"))) {
		plot_begin("bandwidth")
		plot_series(1, ng, 1, "")
		plot_end("set title \"Bus bandwidth of the steady state (fastest device per instance)\"\n" \
		    "set xlabel \"Message size\"; set ylabel \"Bus bandwidth [GB/s]\"\n" \
		    "set logscale x; set format x \"%.0s %cB\"; " KEYRIGHT "; set grid\n" \
		    "plot for [i = 1:N] value(\"D\".i) using 2:4:5 skip 1 with yerrorbars pointsize 0.8 lc rgb value(\"C\".i) \\\n" \
		    "    title value(\"T\".i)\n")
	}
	n = load(OUT "/waits.tsv", a)
	NWAIT = by_column(a, n, "Collective", "wait")
	for (i = 1; i <= NWAIT; i++) { WG[i] = G[i]; WGF[i] = GF[i] }
	if (NWAIT) {
		plot_begin("waits")
		plot_series(1, NWAIT, 1, "")
		plot_end("set title \"Wait per collective instance: spread of the exposed time over devices\"\n" \
		    "set xlabel \"Wait\"; set ylabel \"Instances (cumulative share)\"\n" \
		    "set logscale x; set format x \"%.0s %cs\"; " KEYRIGHT "; set grid\n" \
		    "plot for [i = 1:N] value(\"D\".i) using ($2 > 0 ? $2 / 1000 : NaN):(1) skip 1 smooth cnormal lc rgb value(\"C\".i) \\\n" \
		    "    title value(\"T\".i)\n")
	}
}

# The heap of the module with the largest peak (plots/heap.tsv, the
# module of memory/peaks.tsv's first row); memory/series.tsv's lines in
# SERIES[1..NSERIES], their ProgramId in SF and Trace in STR (read once
# here, split by awk, for every module's heap).
function heap(    file, n, i, c, top, f) {
	n = load(OUT "/memory/peaks.tsv", PEAKS)
	NPEAKS = n
	top = n >= 2 ? cutf(PEAKS[2], 1) : ""
	file = OUT "/memory/series.tsv"
	NSERIES = 0
	while ((getline < file) > 0) {
		SERIES[++NSERIES] = $0
		if (NSERIES == 1)
			for (i = 1; i <= NF; i++)
				if ($i == "Trace")
					c = i
		SF[NSERIES] = $1
		STR[NSERIES] = c ? $c : $0
	}
	close(file)
	f = PL "/heap.tsv"
	printf "" > f
	for (i = 1; i <= NSERIES; i++)
		if (i == 1 || SF[i] == top)
			print SERIES[i] > f
	close(f)
	if (top != "") {
		plot_begin("heap")
		printf "D1 = ARG1.'/heap.tsv'\n" > PF
		plot_end("set title \"Heap usage over program order, the module with the largest peak\"\n" \
		    "set xlabel \"Heap simulator event\"; set ylabel \"Heap [GiB]\"; set grid\n" \
		    "plot D1 using 3:($4 / 1073741824) skip 1 with steps notitle\n")
	}
}

# top_ids(A, N, IDS, NAMES): the ProgramIds of the rows of A (a table)
# with TopModule 1, in order, once each, with their Name; their number.
function top_ids(a, n, ids, names,    i, c, x, k, seen, nt) {
	split(a[1], x, "\t")
	for (i = 1; i in x; i++)
		c[x[i]] = i
	nt = 0
	for (i = 2; i <= n; i++) {
		split(a[i], x, "\t")
		if (x[c["TopModule"]] == 1 && !seen[x[c["ProgramId"]]]++) {
			ids[++nt] = x[c["ProgramId"]]
			names[nt] = x[c["Name"]]
		}
	}
	return nt
}

# index_row(KIND, K, MODULE, WHAT): a module plot for report.txt's index
# and report.html.
function index_row(kind, k, mname, what) {
	print kind "\t" k "\t" mname "\t" what > (W "/plotidx")
}

# series_out(ID, FILE, OUT): the header and the lines of module ID of
# memory/series.tsv (heap()) written to FILE, and split by Trace as
# by_column splits them: into W/OUT.<k>.tsv, their number; G[], GF[].
function series_out(id, file, out,    i, t, seen, ng, k) {
	split("", G); split("", GF)
	ng = 0
	printf "" > file
	for (i = 1; i <= NSERIES; i++) {
		if (i > 1 && SF[i] != id)
			continue
		print SERIES[i] > file
		if (i == 1)
			continue
		if (!((t = STR[i]) in seen)) {
			seen[t] = ++ng
			G[ng] = out "." ng ".tsv"; GF[ng] = SERIES[i]
			print SERIES[1] > (W "/" G[ng])
		}
		print SERIES[i] > (W "/" G[seen[t]])
	}
	close(file)
	for (k = 1; k <= ng; k++)
		close(W "/" G[k])
	return ng
}

# The module plots: for every top module with heap simulator traces,
# its heap over program order (a line per trace), plots/heap-K.svg, its
# data (memory/series.tsv's rows of the module) beside it as .tsv; for
# every top module that ran on more than one device, the straggler bias
# over the module (straggler_table), plots/stragglers-K.svg and .tsv.
function modules(    ids, names, nt, j, k, a, n, ng) {
	printf "" > (W "/plotidx")
	if (NPEAKS) {
		nt = top_ids(PEAKS, NPEAKS, ids, names)
		for (j = 1; j <= nt; j++) {
			k = substr(ids[j], 1, 12)
			if ((ng = series_out(ids[j], PL "/heap-" k ".tsv", "heapm." j))) {
				plot_begin("heap-" k)
				plot_series(1, ng, 2, "trace ")
				plot_end("set datafile separator \"\\t\"\n" \
				    "set title \"Heap usage over program order\\n\" . " gq(names[j] " (" k ")") "\n" \
				    "set xlabel \"Heap simulator event\"; set ylabel \"Heap [GiB]\"; set grid; " KEYRIGHT "\n" \
				    "plot for [i = 1:N] value(\"D\".i) using 3:($4 / 1073741824) skip 1 with steps \\\n" \
				    "    title value(\"T\".i)\n")
			}
			index_row("heap", k, names[j], "heap over program order")
		}
	}
	n = load(OUT "/summary/modules.tsv", a)
	NTOP = top_ids(a, n, TOPID, TOPNAME)
	for (j = 1; j <= NTOP; j++)
		ISTOP[TOPID[j]] = j
	steady_pass()
	for (j = 1; j <= NTOP; j++) {
		if ((ng = straggler_table(j)) < 0)
			continue
		k = substr(TOPID[j], 1, 12)
		plot_begin("stragglers-" k)
		printf "D1 = ARG2.%s\n", gq("/strc." j ".tsv") > PF
		plot_series(2, ng, 4, "device ")
		plot_end("set datafile separator \"\\t\"\n" \
		    "set title \"Straggler bias over the module, each device against the mean over devices\\n\" . " gq(TOPNAME[j] " (" k ")") "\n" \
		    "set xlabel \"Thunk start within the module execution (mean over devices) [ms]\"\n" \
		    "set ylabel \"Start bias against the mean over devices [ms]\"; set grid; " KEYBELOW "\n" \
		    "plot for [i = 2:N] value(\"D\".i) using 6:7 skip 1 with lines lc rgb value(\"C\".i) \\\n" \
		    "    title value(\"T\".i), \\\n" \
		    "    D1 using 6:7 skip 1 with points pointtype 6 pointsize 1.2 lc rgb \"black\" title \"collective\"\n")
		index_row("stragglers", k, TOPNAME[j], "straggler bias over the module, per device")
	}
}

# steady_pass: the devices of each top module (ND[m], from the steady
# module frame), and the lines of the offsets table of nsysjax-stats
# (W/stats/offsets.tsv, made by report.sh's stats job from the steady
# frames: per top module on two devices or more, a line per device and
# thunk, by device, then thunk) in OFFL[m, 1..OFFN[m]].  The sums over
# the thunk frame (31,000 rows on the shared run) were this program's
# and most of its time; nsysjax-stats computes them as this pass did,
# to the last bit.
function steady_pass(    file, c, cp, cd, m, line) {
	file = ST "/module.tsv"
	c_columns(file, c)
	cp = c["ProgramId"]; cd = c["Device"]
	while ((getline < file) > 0) {
		if (!($cp in ISTOP))
			continue
		m = ISTOP[$cp]
		if (!((m, $cd) in DEV)) { DEV[m, $cd] = 1; ND[m]++ }
	}
	close(file)
	file = W "/stats/offsets.tsv"
	if ((getline line < file) > 0)
		while ((getline line < file) > 0) {
			m = substr(line, 1, index(line, "\t") - 1)
			if (m in ISTOP) { m = ISTOP[m]; OFFL[m, ++OFFN[m]] = line }
		}
	close(file)
}

# c_columns(FILE, C): FILE opened and its header read; C, column number
# by name.
function c_columns(file, c,    i) {
	split("", c)
	if ((getline < file) > 0)
		for (i = 1; i <= NF; i++)
			c[$i] = i
}

# straggler_table(J): the straggler table of top module J written; the
# number of its device series (0: no instance that every device ran), -1
# (nothing written) when it ran on fewer than two devices.  The table,
# PL/stragglers-K.tsv: a header, then the module's lines of the offsets
# table (steady_pass) as they are: by Device, then by OffsetMs, Name and
# ThunkExecution.  Only the instances that every device of the module ran
# count; per thunk its place in the module (its mean start less the
# module execution's mean start) and each device's start bias, averaged
# over the executions (nsysjax-stats(1), offsets).  The lines of each
# device also go to W/strd.J.<k>.tsv (G[k], GF[k] its first line, as
# by_column(table, "Device") gives them), the collectives'
# (Communication 1) to W/strc.J.tsv, each file with the header.
function straggler_table(j,    nd, i, x, line, d, ld, fd, f, fc, h) {
	nd = ND[j]
	if (nd < 2)
		return -1
	h = "ProgramId\tName\tThunkExecution\tDevice\tExecutions\tOffsetMs\tStartBiasMs\tCommunication\tCollective"
	f = PL "/stragglers-" substr(TOPID[j], 1, 12) ".tsv"
	fc = W "/strc." j ".tsv"
	print h > f
	print h > fc
	split("", G); split("", GF)
	d = 0; ld = SUBSEP
	for (i = 1; i <= OFFN[j]; i++) {
		line = OFFL[j, i]
		split(line, x, "\t")
		if (x[4] != ld) {
			if (d)
				close(fd)
			ld = x[4]
			G[++d] = "strd." j "." d ".tsv"
			GF[d] = line
			fd = W "/" G[d]
			print h > fd
		}
		print line > f
		print line > fd
		if (x[8] == 1)
			print line > fc
	}
	if (d)
		close(fd)
	close(f)
	close(fc)
	return OFFN[j] ? nd : 0
}

# The orders of sort(1) that the plots' tables had, SORTBY: skews (-n),
# strag (-k1,1 -k3,3n) and skd (-k1,1n -s), from the keys K1, K2 (numbers
# or strings, as the key is) and the line KL; the whole line last, as
# sort(1) breaks ties (but -s).
function before(x, y) {
	if (K1[x] != K1[y]) return K1[x] < K1[y]
	if (SORTBY == "skd") return 0
	if (SORTBY != "skews" && K2[x] != K2[y]) return K2[x] < K2[y]
	return KL[x] < KL[y]
}

# Per device the mean, min and max collective end-time skew
# (plots/skews.tsv): a point per instance would grow with devices x
# steps (megabytes of SVG at 16 devices).  The header first, then the
# devices in order.  The same pass leaves skews_distribution, per device
# (as a number), its skews' count, least, greatest and mean in SKDN,
# SKDLO, SKDHI and SKDM; in SKD_ORDER whether the rows are by Device
# already (as nsysjax-align -s writes them, "by increasing Device, then
# Instance", nsysjax-align(1)); in SKD_THIN whether a device has more
# than SKD_MAX; in SKD_NMAX the most skews of a device.
function skews(    file, d, v, s, r, rows, prev) {
	file = SKEWS_FILE = OUT "/alignment_skews.tsv"
	SKD_ORDER = 1; SKD_THIN = 0; SKD_NMAX = 0
	# Streamed, each line split as $0 (FS): 768,000 lines at 256
	# devices, which an array of lines split again held and slowed.
	for (NSKEWS = 0; (getline < file) > 0;) {
		if (++NSKEWS == 1)
			continue
		d = $1 + 0; v = $3 + 0
		if (NSKEWS > 2 && d < prev) SKD_ORDER = 0
		prev = d
		if (!(d in SKDN)) { SKDN[d] = 0; SKDLO[d] = v; SKDHI[d] = v }
		if (++SKDN[d] > SKD_MAX) SKD_THIN = 1
		if (SKDN[d] > SKD_NMAX) SKD_NMAX = SKDN[d]
		s[d] += v; if (v < SKDLO[d]) SKDLO[d] = v; if (v > SKDHI[d]) SKDHI[d] = v
	}
	close(file)
	r = 0
	for (d in SKDN) {
		rows[++r] = sprintf("%d\t%.6f\t%.6f\t%.6f", d, SKDM[d] = s[d] / SKDN[d], SKDLO[d], SKDHI[d])
		K1[r] = sprintf("%d", d) + 0; KL[r] = rows[r]
	}
	SORTBY = "skews"
	sorted_out(PL "/skews.tsv", "Device\tMeanMs\tMinMs\tMaxMs", rows, r)
	if (r) {
		plot_begin("skews")
		printf "D1 = ARG1.'/skews.tsv'\n" > PF
		plot_end("set title \"Collective end-time skew per device (complete instances): mean, min and max\"\n" \
		    "set xlabel \"Device\"; set ylabel \"End time - instance mean [ms]\"; set grid\n" \
		    DEVAXIS "\n" \
		    "plot D1 using 1:2:3:4 skip 1 with yerrorbars pointtype 7 pointsize 0.6 notitle\n")
	}
}

# The notebook's thunk variability: the ten most variable thunks, mean
# with the range over executions and devices.
function variability(    a, n, i, x, c, out, m) {
	n = load(OUT "/variability/thunks.tsv", a)
	m = 0
	if (n) {
		split(a[1], x, "\t")
		for (i = 1; i in x; i++)
			c[x[i]] = i
		out[++m] = "Label\tMeanMs\tMinMs\tMaxMs"
	}
	for (i = 2; i <= n && i <= 11; i++) {
		split(a[i], x, "\t")
		out[++m] = x[c["Name"]] " (" substr(x[c["ProgramId"]], 1, 6) ")\t" x[c["MeanMs"]] "\t" x[c["MinMs"]] "\t" x[c["MaxMs"]]
	}
	put(PL "/variability.tsv", out, m)
	if (m >= 2) {
		plot_begin("variability")
		printf "D1 = ARG1.'/variability.tsv'\n" > PF
		plot_end("set datafile separator \"\\t\"\n" \
		    "set title \"The most variable thunks: mean, min and max duration over executions and devices\"\n" \
		    "set ylabel \"Duration [ms]\"; set grid ytics; set xtics rotate by -35 left font \",9\"\n" \
		    "set bmargin 9; set xrange [-0.6:*]; set yrange [0:*]\n" \
		    "plot D1 using 0:2:3:4:xtic(1) skip 1 with yerrorbars pointtype 7 pointsize 0.8 notitle\n")
	}
}

# sorted_out(FILE, HEADER, ROWS, R): HEADER (none: an empty line, as
# `read h; printf h` gave for an empty table) then the rows by before().
function sorted_out(file, header, rows, r,    i, ix, out, in_order) {
	in_order = 1
	for (i = 1; i <= r; i++) {
		ix[i] = i
		if (i > 1 && before(i, i - 1))
			in_order = 0
	}
	# Rows already in order (nsysjax-align -s writes its skews by
	# Device) are the stable sort's output as they are: 766,000 of them
	# at 256 devices took mawk 9 s to sort.
	if (!in_order)
		msort(ix, r)
	out[1] = header
	for (i = 1; i <= r; i++)
		out[i + 1] = rows[ix[i]]
	put(file, out, r + 1)
}

# Per-device straggler bias per module: how far each device starts
# behind (+) or ahead (-) of the others; points, since devices 0, 1, 2,
# 3 are no series to join by lines.  By Key, then Device.
function stragglers(    a, n, i, x, c, rows, r, s, m, ng) {
	n = load(OUT "/variability/stragglers.tsv", a)
	if (n) {
		split(a[1], x, "\t")
		for (i = 1; i in x; i++)
			c[x[i]] = i
	}
	r = 0
	for (i = 2; i <= n; i++) {
		split(a[i], x, "\t")
		rows[++r] = substr(x[c["ProgramId"]], 1, 12) "\t" x[c["Name"]] " (" substr(x[c["ProgramId"]], 1, 6) ")\t" x[c["Device"]] "\t" x[c["StartBiasMs"]]
		K1[r] = substr(x[c["ProgramId"]], 1, 12) ""; K2[r] = x[c["Device"]] + 0; KL[r] = rows[r]
	}
	SORTBY = "strag"
	sorted_out(PL "/stragglers.tsv", n ? "Key\tModule\tDevice\tStartBiasMs" : "", rows, r)
	m = load(PL "/stragglers.tsv", s)
	if ((ng = by_column(s, m, "Key", "strag"))) {
		plot_begin("stragglers")
		plot_series(1, ng, 2, "")
		plot_end("set datafile separator \"\\t\"\n" \
		    "set title \"Straggler bias per device and module (start time against the other devices)\"\n" \
		    "set xlabel \"Device\"; set ylabel \"Start bias [ms]\"; set grid; " DEVAXIS "; " KEYBELOW "\n" \
		    "plot for [i = 1:N] value(\"D\".i) using 3:4 skip 1 with points pointtype 7 pointsize 1.2 \\\n" \
		    "    title value(\"T\".i)\n")
	}
}

# The distribution of each device's alignment skews (cumulative, one
# curve per device; plots/skews-by-device.tsv, by Device, stable), each
# about the device's mean: the means are the skews plot's, and on one
# axis with them (hundreds of ms apart, the clocks' offsets) each
# device's spread (microseconds) was a vertical line.  A device's curve
# is its empirical distribution from share 0 to 1 (skews_steps), drawn
# as steps while every device has at most SKD_STEPS skews (a few
# distinct skews are a few steps, not a line from the first share up),
# binned (skews_binned) when a device has more than SKD_MAX skews, as a
# point per skew made the plot of 256 devices and 1,000 steps an 11.7 MB
# SVG and 2.3 s of gnuplot.
function skews_distribution(    i, x, rows, r, s, m, ng, thin, style) {
	thin = SKD_THIN
	if (SKD_ORDER)
		ng = skews_by_device(thin)
	else {
		load(SKEWS_FILE, SKEWS)
		r = 0
		for (i = 2; i <= NSKEWS; i++) {
			split(SKEWS[i], x, "\t")
			rows[++r] = x[1] "\t" x[3]
			K1[r] = x[1] + 0
		}
		SORTBY = "skd"
		sorted_out(PL "/skews-by-device.tsv", NSKEWS ? "Device\tEndTimeSkewMs" : "", rows, r)
		m = load(PL "/skews-by-device.tsv", s)
		ng = by_column(s, m, "Device", "skd")
	}
	if (ng) {
		if (thin)
			skews_binned(ng, SKD_ORDER)
		else
			skews_steps(ng)
		# Steps while they are few; past SKD_STEPS skews on a device the
		# same points joined (at 900 pixels the same curve, half the
		# SVG's points).
		style = !thin && SKD_NMAX <= SKD_STEPS ? "steps" : "lines"
		plot_begin("skews-distribution")
		plot_series(1, ng, 1, "device ")
		plot_end("set datafile separator \"\\t\"\n" \
		    "set title \"Distribution of the collective end-time skew per device, about the device's mean skew\"\n" \
		    "set xlabel \"End-time skew less the device's mean skew [µs]\"; set ylabel \"Instances (cumulative share)\"\n" \
		    "set grid; set yrange [0:1]; set offsets graph 0.03, graph 0.03, 0, 0; " KEYRIGHT "\n" \
		    "plot for [i = 1:N] value(\"D\".i) using ($4 * 1000):3 skip 1 with " style " lc rgb value(\"C\".i) \\\n" \
		    "    title value(\"T\".i)\n")
	}
}

# skews_steps(NG): each series of skews_distribution (W/G[k], a device's
# skews, at most SKD_MAX) rewritten as its empirical distribution,
# "Device TAB EndTimeSkewMs TAB Share TAB FromMeanMs": its least skew at
# share 0, then each distinct skew, by value, at the share of skews at or
# below it; FromMeanMs, the skew less the device's mean (SKDM).  Drawn
# with steps, a rise at each skew, flat between (or these corners joined
# by lines).  The skews by device and value from one sort(1) of the
# skews file (an awk merge sort per device made this pass 19.6 s against
# 3.6 at 256 devices of 2,000 skews), streamed: one device's last skew
# held at a time.  The file's path reaches the shell through the
# environment, never the command's text.
function skews_steps(ng,    k, cmd, d, cur, f, v, sv, pv, psv, i, n, m) {
	for (k = 1; k <= ng; k++)
		DEVK[cutf(GF[k], 1) + 0] = k
	cmd = "tail -n +2 \"$OUT/alignment_skews.tsv\" | LC_ALL=C sort -t \"$(printf '\\t')\" -k1,1n -k3,3n"
	cur = ""
	while ((cmd | getline) > 0) {
		d = $1 + 0; sv = $3; v = $3 + 0
		if (cur == "" || d != cur) {
			if (cur != "")
				skd_step_end(f, cur, psv, pv, i / n, m)
			cur = d; n = SKDN[d]; m = SKDM[d]; i = 0
			f = W "/" G[DEVK[d]]
			printf "Device\tEndTimeSkewMs\tShare\tFromMeanMs\n" > f
			printf "%s\t%s\t%.6f\t%.9f\n", d, sv, 0, v - m > f
		} else if (v != pv)
			printf "%s\t%s\t%.6f\t%.9f\n", d, psv, i / n, pv - m > f
		i++; pv = v; psv = sv
	}
	close(cmd)
	if (cur != "")
		skd_step_end(f, cur, psv, pv, i / n, m)
}
function skd_step_end(f, d, sv, v, share, m) {
	printf "%s\t%s\t%.6f\t%.9f\n", d, sv, share, v - m > f
	close(f)
}

# The series of skews_distribution binned: per device (G[k], whose first
# row GF[k] names it), its SKD_BINS equal bins from its least to its
# greatest skew, and at each of their SKD_BINS + 1 edges the share of its
# skews below the edge (the last edge: all of them), "%.6f": W/G[k] as
# "Device TAB EndTimeSkewMs TAB Share", drawn with lines (the cumulative
# distribution, exact at the edges; at 900 pixels, as the curve of every
# point).  A device whose skews are all equal: two points, 0 and 1.
# FromMeanMs, a fourth column: the edge less the device's mean (SKDM).
# The bins' counts are SKDBIN's, made by skews_by_device when COUNTED,
# else here.
function skews_binned(ng, counted,    i, k, x, d, j, w, below, f) {
	for (i = 2; i <= NSKEWS && !counted; i++) {
		split(SKEWS[i], x, "\t")
		skd_bin(x[1] + 0, x[3] + 0)
	}
	for (k = 1; k <= ng; k++) {
		d = cutf(GF[k], 1) + 0; f = W "/" G[k]
		w = SKDHI[d] - SKDLO[d]
		printf "Device\tEndTimeSkewMs\tShare\tFromMeanMs\n" > f
		if (w <= 0) {
			printf "%s\t%.6f\t%.6f\t%.9f\n%s\t%.6f\t%.6f\t%.9f\n", d, SKDLO[d], 0, SKDLO[d] - SKDM[d], d, SKDLO[d], 1, SKDLO[d] - SKDM[d] > f
		} else {
			below = 0
			for (j = 0; j <= SKD_BINS; j++) {
				printf "%s\t%.6f\t%.6f\t%.9f\n", d, SKDLO[d] + j * w / SKD_BINS, below / SKDN[d], SKDLO[d] + j * w / SKD_BINS - SKDM[d] > f
				below += SKDBIN[d * SKD_BINS + j]
			}
		}
		close(f)
	}
}

# skd_bin(D, V): skew V of device D counted in its bin j, SKDBIN[D x
# SKD_BINS + j] (a number: a key D SUBSEP j, a string, cost mawk 0.3 s
# of 0.7 at 256 devices).
function skd_bin(d, v,    w, j) {
	w = SKDHI[d] - SKDLO[d]
	j = w > 0 ? int((v - SKDLO[d]) * SKD_BINS / w) : 0
	if (j >= SKD_BINS) j = SKD_BINS - 1
	SKDBIN[d * SKD_BINS + j]++
}

# skews_distribution's files from SKEWS in order: PL/skews-by-device.tsv
# ("Device TAB EndTimeSkewMs") and, as by_column(.., "Device", "skd")
# would name them, G[] and GF[] of the series W/skd.<k>.tsv, which
# skews_steps writes (or, when THIN, skews_binned, each skew counted in
# its bin here); the number of devices.
function skews_by_device(thin,    f, hdr, i, d, dn, v, w, j, row, seen, ng) {
	f = PL "/skews-by-device.tsv"
	hdr = NSKEWS ? "Device\tEndTimeSkewMs" : ""
	printf "" > f
	print hdr > f
	split("", G); split("", GF)
	ng = 0
	for (i = 1; (getline < SKEWS_FILE) > 0;) {
		if (++i == 2)
			continue
		d = $1
		v = $3
		row = d "\t" v
		print row > f
		if (thin) {	# skd_bin(d + 0, v + 0), inline: a call per
				# skew was half this loop's time
			w = SKDHI[dn = d + 0] - SKDLO[dn]
			j = w > 0 ? int((v - SKDLO[dn]) * SKD_BINS / w) : 0
			if (j >= SKD_BINS) j = SKD_BINS - 1
			SKDBIN[dn * SKD_BINS + j]++
		}
		if (!(d in seen)) {
			seen[d] = ++ng
			G[ng] = "skd." ng ".tsv"; GF[ng] = row
		}
	}
	close(SKEWS_FILE)
	close(f)
	return ng
}

# Every compute thunk of the steady state: mean duration against its
# relative standard deviation (plots/variability-scatter.tsv: the
# scatter table of nsysjax-stats, W/stats/scatter.tsv, by ProgramId,
# then Name).
function scatter(    a, n) {
	n = load(W "/stats/scatter.tsv", a)
	put(PL "/variability-scatter.tsv", a, n)
	if (n > 1) {
		plot_begin("variability-scatter")
		printf "D1 = ARG1.'/variability-scatter.tsv'\n" > PF
		plot_end("set datafile separator \"\\t\"\n" \
		    "set title \"Every compute thunk: mean duration against its relative standard deviation\"\n" \
		    "set xlabel \"Mean duration\"; set ylabel \"Standard deviation / mean\"; set grid\n" \
		    "set logscale x; set format x \"%.0s %cs\"\n" \
		    "plot D1 using ($4 / 1000):5 skip 1 with points pointtype 7 pointsize 0.5 notitle\n")
	}
}

# Wait against message size per collective (the waits' series).
function wait_size(    i) {
	if (!NWAIT)
		return
	for (i = 1; i <= NWAIT; i++) { G[i] = WG[i]; GF[i] = WGF[i] }
	plot_begin("wait-size")
	plot_series(1, NWAIT, 1, "")
	plot_end("set title \"Wait per collective instance against its message size\"\n" \
	    "set xlabel \"Message size\"; set ylabel \"Wait\"\n" \
	    "set logscale xy; set format x \"%.0s %cB\"; set format y \"%.0s %cs\"; " KEYRIGHT "; set grid\n" \
	    "plot for [i = 1:N] value(\"D\".i) using 3:($2 > 0 ? $2 / 1000 : NaN) skip 1 with points pointtype 7 pointsize 0.6 lc rgb value(\"C\".i) \\\n" \
	    "    title value(\"T\".i)\n")
}
