#!/bin/sh
# The roofline of the steady state (nsysjax-roofline): per operation its
# TFLOP/s, GB/s, arithmetic intensity, MFU and bound; per module and per
# step the MFU.  With -o DIR, beside the tables: summary.txt (the step
# MFU of the top module and the top operations by time, with their
# TFLOP/s and fraction of peak), section.html (the same for
# report.html) and, when gnuplot is installed, roofline.svg (log-log:
# intensity against TFLOP/s, the roofs, a point per heavy operation).
# The GPU's peaks come from -d INPUT (an archive or export,
# nsysjax-roofline(1)), else from the first input unless it is a frames
# directory, else from the frames directory's
# device.gpu_target_config.pbtxt, which -D FILE writes (report.sh keeps
# the GPU with the frames so); none: rates without MFU.  See doc/pipelines.md,
# "roofline.sh".
set -eu
USAGE='pipelines/roofline.sh [-o dir] [-t table] [-s dir] [-d device [-D file]] [-n count] input ...'
TABLES='ops modules steps'
case $0 in */*) . "${0%/*}/lib/common.sh" ;; *) . ./lib/common.sh ;; esac

dev='' save='' count=15
while getopts o:t:s:d:D:n:h opt; do
	common_opt "$opt" "${OPTARG:-}" || case $opt in
	d) dev=$OPTARG ;;
	D) save=$OPTARG ;;
	n) case $OPTARG in '' | *[!0-9]*) bad_usage "-n: not a count: '$OPTARG'" ;; esac; count=$OPTARG ;;
	*) bad_usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || bad_usage "no input"
[ -z "$OUT" ] || make_out "$OUT"

frames "$@"
steady thunk module
[ -n "$dev" ] || [ "$F" = "$1" ] || dev=$1
[ -n "$dev" ] || [ ! -f "$F/device.gpu_target_config.pbtxt" ] || dev=$F/device.gpu_target_config.pbtxt
set -- -H "$F/hlo.tsv" -M "$SD/module.tsv" -t ops,modules,steps -o "$W"
# Each process's GPU (the meta frame), the command buffers' operations.
[ ! -f "$F/meta.tsv" ] || set -- "$@" --meta "$F/meta.tsv"
[ ! -f "$F/cmdbufs.tsv" ] || set -- "$@" -C "$F/cmdbufs.tsv"
[ -z "$dev" ] || set -- "$@" -d "$dev"
[ -z "$dev" ] || [ -z "$save" ] || set -- "$@" --save-device "$save"
nsysjax-roofline "$@" "$SD/thunk.tsv"
# With -o and no -t the pass below copies the three tables into $OUT.
copy=''
if [ -n "$OUT" ] && [ -z "$ONLY" ]; then copy=$OUT; else
	for t in ops modules steps; do put "$t" "$W/roofline-$t.tsv"; done
fi
[ -n "$OUT" ] || exit 0

# One pass over the tables: summary.txt, the head of section.html (the
# same as HTML), the plot's data and roofs, and (COPY) the tables.
# The summary: the step MFU of the top module (the most matmul FLOPs)
# and the COUNT longest operations, as text and as an HTML fragment.
# The plot's data: intensity and TFLOP/s of the heavy operations (the 50
# longest with a rate), and the roofs (the largest matmul peak, the FP32
# peak, the bandwidth: GBps / MemoryUtil), "P V B" in $W/roofs.
TXT=$OUT/summary.txt HTML=$OUT/section.html POINTS=$W/points.tsv ROOFS=$W/roofs COPY=$copy \
    awk -F'\t' -v N="$count" '
BEGIN { TXT = ENVIRON["TXT"]; HTML = ENVIRON["HTML"]; POINTS = ENVIRON["POINTS"]	# paths as data, not -v
	ROOFS = ENVIRON["ROOFS"]; COPY = ENVIRON["COPY"] }
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
BEGIN { split("modules steps ops", x, " ")
	for (i = 1; i <= 3; i++) { tn[ARGV[i + 1]] = COPY "/" x[i] ".tsv"; if (COPY != "") printf "" > tn[ARGV[i + 1]] } }
FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; file++ }
COPY != "" && FILENAME in tn { print > tn[FILENAME] }
FNR == 1 { if (file == 4) print "Intensity\tTFLOPs\tMatmul" > POINTS; next }
# The top module: the most matmul FLOPs (the training step, where
# the longest may be a collective that waits).
file == 1 { mod[$c["ProgramId"]] = $c["Name"]; next }
file == 2 && (top == "" || $c["MatmulFlops"] + 0 > best) { top = $c["ProgramId"]; best = $c["MatmulFlops"] + 0; modmfu = $c["MFU"]; next }
file == 2 { next }
file == 3 && $c["ProgramId"] == top { busy += $c["TimeMs"]; unc += $c["UncostedMs"] }
file == 3 && $c["ProgramId"] == top && $c["MFU"] != "" {
	v = $c["MFU"] + 0; ns++; s += v
	if (ns == 1 || v < lo) lo = v; if (ns == 1 || v > hi) hi = v; next }
# Collectives are no roofline points (Bound communication): their time
# is summed apart; the uncosted thunks of the top module, longest first.
file == 4 && $c["Bound"] == "communication" { if ($c["ProgramId"] == top) { ncomm++; tcomm += $c["TimeMs"] }; next }
# A command buffer whose operations count their FLOPs (cmdbufs.tsv) is not
# uncosted; one without an hlo row is named as a command buffer.
file == 4 && $c["ProgramId"] == top && $c["Flops"] == "" && $c["Note"] !~ /^command buffer: the FLOPs/ && nunc < 3 {
	nunc++; kind = $c["Opcode"] != "" ? $c["Opcode"] : $c["Note"] ~ /^command buffer/ || $c["Name"] ~ /^command_buffer/ ? "command buffer" : "no HLO instruction"
	uncl = uncl (nunc > 1 ? ", " : "") sprintf("%s (%s, %.3f ms)", $c["Name"], kind, $c["TimeMs"]) }
# Operations above their dense peak: left out of the step MFU, named.
file == 4 && $c["ProgramId"] == top && $c["Note"] ~ /left out of the MFU/ { nout++; if (nout <= 3) outl = outl (nout > 1 ? ", " : "") $c["Name"] }
file == 4 && nops < N {
	nops++; name[nops] = $c["Name"]; op[nops] = $c["Opcode"]; t[nops] = $c["TimeMs"]
	tf[nops] = $c["TFLOPs"]; pk[nops] = $c["PeakTFLOPs"]; cu[nops] = $c["ComputeUtil"]
	gb[nops] = $c["GBps"]; mu[nops] = $c["MemoryUtil"]; b[nops] = $c["Bound"]; mfu[nops] = $c["MFU"]
	# A row above a peak says why (the Note column), as a footnote.
	if ($c["Note"] != "" && $c["Flops"] != "") { if (!($c["Note"] in fn)) { nfn++; fn[$c["Note"]] = nfn; fnt[nfn] = $c["Note"] }; b[nops] = b[nops] " [" fn[$c["Note"]] "]" } }
file == 4 && $c["TFLOPs"] != "" && $c["Flops"] != "" && npts < 50 { npts++; print ($c["Intensity"] + 0) "\t" $c["TFLOPs"] "\t" ($c["MatmulFlops"] > 0) > POINTS }
file == 4 && $c["PeakTFLOPs"] != "" { pr = $c["PeakTFLOPs"] + 0; if ($c["MatmulFlops"] > 0 && pr > mm) mm = pr; if ($c["MatmulFlops"] == 0) vroof = pr }
file == 4 && $c["MemoryUtil"] > 0 && bw == "" { bw = $c["GBps"] / $c["MemoryUtil"] }
function num(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
END {
	printf "%s %s %s\n", mm + 0, vroof + 0, bw + 0 > ROOFS
	if (ns) line = sprintf("Step MFU of the module with the most matmul FLOPs, %s (%s): %.3f, mean of %d steps (min %.3f, max %.3f); GPU-busy MFU %s", \
	    mod[top], substr(top, 1, 12), s / ns, ns, lo, hi, num(modmfu, 3))
	else line = "Step MFU: no peak known for this GPU (give the archive, or --gpu / --peak-tflops to nsysjax-roofline)"
	# What the MFU leaves out: the time of thunks without a cost rule.
	if (busy > 0 && unc > 0) line = line sprintf(". Costed thunks hold %.1f%% of its GPU-busy time; %.1f%% is in thunks without a cost rule: %s", \
	    100 * (busy - unc) / busy, 100 * unc / busy, uncl)
	if (nout) line = line sprintf(". Left out of the MFU, above the dense compute peak (FLOPs counted for work the kernel does not do): %s%s", outl, nout > 3 ? sprintf(" and %d more", nout - 3) : "")
	if (ncomm) line = line sprintf(". Collectives (%d operations, %.3f ms) are not roofline points: their bus bandwidth is in ops.tsv (BusGBps)", ncomm, tcomm)
	printf "<section id=\"roofline\">\n<h2>Roofline</h2>\n<p>%s.</p>\n", esc(line) > HTML
	printf "<table>\n<tr><th>Operation</th><th>Opcode</th><th class=\"n\">Time [ms]</th><th class=\"n\">TFLOP/s</th><th class=\"n\">Peak [TFLOP/s]</th><th class=\"n\">Fraction of peak</th><th class=\"n\">MFU</th><th class=\"n\">GB/s</th><th class=\"n\">Fraction of bandwidth</th><th>Bound</th></tr>\n" > HTML
	for (i = 1; i <= nops; i++)
		printf "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td></tr>\n", \
		    esc(name[i]), esc(op[i]), num(t[i], 3), num(tf[i], 2), num(pk[i], 1), num(cu[i], 3), num(mfu[i], 3), num(gb[i], 1), num(mu[i], 3), b[i] > HTML
	printf "</table>\n" > HTML
	for (i = 1; i <= nfn; i++) printf "<p>[%d] %s.</p>\n", i, esc(fnt[i]) > HTML
	printf "\nRoofline\n\n%s.\nTop operations by time (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s; fractions of the peaks):\n\n", line > TXT
	# The name columns as wide as their longest cell: a name cut short
	# (collective-permu) is one a person cannot recover.
	wn = length("Operation"); wo = length("Opcode")
	for (i = 1; i <= nops; i++) { if (length(name[i]) > wn) wn = length(name[i]); if (length(op[i]) > wo) wo = length(op[i]) }
	fmt = "%-" wn "s %-" wo "s %10s %9s %6s %6s %6s %9s %6s  %s\n"
	printf fmt, "Operation", "Opcode", "Time [ms]", "TFLOP/s", "Peak", "Frac", "MFU", "GB/s", "Frac", "Bound" > TXT
	for (i = 1; i <= nops; i++)
		printf fmt, name[i], op[i], \
		    num(t[i], 3), num(tf[i], 2), num(pk[i], 0), num(cu[i], 3), num(mfu[i], 3), num(gb[i], 1), num(mu[i], 3), b[i] > TXT
	for (i = 1; i <= nfn; i++) printf "[%d] %s.\n", i, fnt[i] > TXT
}' "$SD/module.tsv" "$W/roofline-modules.tsv" "$W/roofline-steps.tsv" "$W/roofline-ops.tsv"

if command -v gnuplot > /dev/null && lines2 "$W/points.tsv"; then
	read -r P V B < "$W/roofs"
	# The x axis from the points inside the range (rates of 1 GFLOP/s
	# and more, the y range; intensity above 0), a factor of 2 either
	# side.  Points outside it (a rate below 1 GFLOP/s, no FLOPs) are
	# drawn at its edge, marked (column 4), and counted in the title.
	PTS=$W/pts.tsv awk -F'\t' 'NR == 1 { next } { x[NR] = $1 + 0; y[NR] = $2 + 0; m[NR] = $3; n = NR }
	    $1 + 0 > 0 && $2 + 0 >= 0.001 { if (lo == "" || $1 + 0 < lo) lo = $1 + 0; if ($1 + 0 > hi) hi = $1 + 0 }
	    $1 + 0 > 0 { if (plo == "" || $1 + 0 < plo) plo = $1 + 0; if ($1 + 0 > phi) phi = $1 + 0 }
	    END { if (lo == "") { lo = plo; hi = phi }; if (lo == "") { lo = 0.01; hi = 100 }
		lo /= 2; hi *= 2
		print "Intensity\tTFLOPs\tMatmul\tClipped" > ENVIRON["PTS"]
		for (i = 2; i <= n; i++) { c = 0; xi = x[i]; yi = y[i]
			if (xi < lo) { xi = lo; c = 1 } else if (xi > hi) { xi = hi; c = 1 }
			if (yi < 0.001) { yi = 0.001; c = 1 }
			nc += c; printf "%.9f\t%.9f\t%s\t%d\n", xi, yi, m[i], c > ENVIRON["PTS"] }
		printf "%.9f %.9f %d\n", lo, hi, nc }' "$W/points.tsv" > "$W/xr"
	read -r XLO XHI NCLIP < "$W/xr"
	# The output path reaches gnuplot as an argument, never spliced into
	# its program text (a path may hold quotes).
	gnuplot -c /dev/stdin "$W/pts.tsv" "$P" "$V" "$B" "$OUT/roofline.svg" "${XLO:-}" "${XHI:-}" "${NCLIP:-0}" 2> "$W/gp.err" <<'GP' ||
set encoding utf8; set terminal svg size 900,540 dynamic noenhanced background rgb 'white'; set output ARG5
N = int(ARG8)
if (N > 0) { set title sprintf("Roofline of the steady state: the 50 longest operations (%d outside the range, below 1 GFLOP/s or without FLOPs, drawn at its edge as triangles)", N) } else { set title "Roofline of the steady state: the 50 longest operations" }
set xlabel "Arithmetic intensity [FLOP/B]"; set ylabel "Achieved [TFLOP/s]"
set logscale xy; set grid; set key outside below; set yrange [0.001:*]; set format y "%g"; set format x "%g"
# The report's palette (pipelines/lib/plots.awk, palette()); the key
# below the frame: inside, at the bottom right, it covered points.
set linetype 1 lc rgb '#0072b2'; set linetype 2 lc rgb '#e69f00'; set linetype 3 lc rgb '#009e73'; set linetype 4 lc rgb '#cc79a7'
P = real(ARG2); V = real(ARG3); B = real(ARG4)
roof(x, p) = (B > 0 && p > 0) ? (x * B / 1000 < p ? x * B / 1000 : p) : NaN
set samples 400; set xrange [*:*]; if (ARG6 ne "" && ARG7 ne "") set xrange [real(ARG6):real(ARG7)]
plot ARG1 using 1:($3 == 1 && $4 == 0 ? $2 : NaN) skip 1 with points pointtype 7 pointsize 0.8 title "matmul operations", \
     ARG1 using 1:($3 == 0 && $4 == 0 ? $2 : NaN) skip 1 with points pointtype 6 pointsize 0.8 title "other operations", \
     ARG1 using 1:($4 == 1 ? $2 : NaN) skip 1 with points pointtype 11 pointsize 1.2 lc rgb '#d55e00' title "outside the range, at its edge", \
     roof(x, P) with lines linewidth 2 title sprintf("matmul roof (%g TFLOP/s, %g GB/s)", P, B), \
     roof(x, V) with lines dashtype 2 title sprintf("FP32 roof (%g TFLOP/s)", V)
GP
		printf '%s: plot roofline: %s\n' "$PROG" "$(head -n 1 "$W/gp.err")" >&2
fi
# The rest of section.html: the plot inline.
{
	if [ -s "$OUT/roofline.svg" ]; then
		printf '<figure>\n'
		sed -n '/<svg/,$p' "$OUT/roofline.svg"
		printf '<figcaption>Roofline: arithmetic intensity against achieved TFLOP/s of the longest operations, under the compute and memory roofs</figcaption>\n</figure>\n'
	fi
	printf '</section>\n'
} >> "$OUT/section.html"
