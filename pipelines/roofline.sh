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
# the GPU with the frames so); none: rates without MFU.  See README.md,
# "pipelines/roofline.sh".
set -eu
USAGE='pipelines/roofline.sh [-o dir] [-t table] [-s dir] [-d device [-D file]] [-n count] input ...'
TABLES='ops modules steps'
. "$(dirname -- "$0")/lib/common.sh"

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
[ -z "$OUT" ] || mkdir -p "$OUT"

frames "$@"
steady thunk module
[ -n "$dev" ] || [ "$F" = "$1" ] || dev=$1
[ -n "$dev" ] || [ ! -f "$F/device.gpu_target_config.pbtxt" ] || dev=$F/device.gpu_target_config.pbtxt
set -- -H "$F/hlo.tsv" -M "$W/module.tsv" -t ops,modules,steps -o "$W"
[ -z "$dev" ] || set -- "$@" -d "$dev"
[ -z "$dev" ] || [ -z "$save" ] || set -- "$@" --save-device "$save"
nsysjax-roofline "$@" "$W/thunk.tsv"
for t in ops modules steps; do put "$t" "$W/roofline-$t.tsv"; done
[ -n "$OUT" ] || exit 0

# summary FORMAT: the step MFU of the top module (the most matmul
# FLOPs) and the COUNT longest
# operations, as text (txt) or an HTML fragment (html).
summary() {
	awk -F'\t' -v FORMAT="$1" -v N="$count" '
	function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
	FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; file++; next }
	# The top module: the most matmul FLOPs (the training step, where
	# the longest may be a collective that waits).
	file == 1 { mod[$c["ProgramId"]] = $c["Name"]; next }
	file == 2 && (top == "" || $c["MatmulFlops"] + 0 > best) { top = $c["ProgramId"]; best = $c["MatmulFlops"] + 0; modmfu = $c["MFU"]; next }
	file == 2 { next }
	file == 3 && $c["ProgramId"] == top && $c["MFU"] != "" {
		v = $c["MFU"] + 0; ns++; s += v
		if (ns == 1 || v < lo) lo = v; if (ns == 1 || v > hi) hi = v; next }
	file == 4 && nops < N {
		nops++; name[nops] = $c["Name"]; op[nops] = $c["Opcode"]; t[nops] = $c["TimeMs"]
		tf[nops] = $c["TFLOPs"]; pk[nops] = $c["PeakTFLOPs"]; cu[nops] = $c["ComputeUtil"]
		gb[nops] = $c["GBps"]; mu[nops] = $c["MemoryUtil"]; b[nops] = $c["Bound"]; mfu[nops] = $c["MFU"] }
	function num(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
	END {
		if (ns) line = sprintf("Step MFU of the module with the most matmul FLOPs, %s (%s): %.3f, mean of %d steps (min %.3f, max %.3f); GPU-busy MFU %s", \
		    mod[top], substr(top, 1, 12), s / ns, ns, lo, hi, num(modmfu, 3))
		else line = "Step MFU: no peak known for this GPU (give the archive, or --gpu / --peak-tflops to nsysjax-roofline)"
		if (FORMAT == "html") {
			printf "<section id=\"roofline\">\n<h2>Roofline</h2>\n<p>%s.</p>\n", esc(line)
			printf "<table>\n<tr><th>Operation</th><th>Opcode</th><th class=\"n\">Time [ms]</th><th class=\"n\">TFLOP/s</th><th class=\"n\">Peak [TFLOP/s]</th><th class=\"n\">Fraction of peak</th><th class=\"n\">MFU</th><th class=\"n\">GB/s</th><th class=\"n\">Fraction of bandwidth</th><th>Bound</th></tr>\n"
			for (i = 1; i <= nops; i++)
				printf "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td></tr>\n", \
				    esc(name[i]), esc(op[i]), num(t[i], 3), num(tf[i], 2), num(pk[i], 1), num(cu[i], 3), num(mfu[i], 3), num(gb[i], 1), num(mu[i], 3), b[i]
			printf "</table>\n"
			exit
		}
		printf "\nRoofline\n\n%s.\nTop operations by time (TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s; fractions of the peaks):\n\n", line
		printf "%-34s %-16s %10s %9s %6s %6s %6s %9s %6s  %s\n", "Operation", "Opcode", "Time [ms]", "TFLOP/s", "Peak", "Frac", "MFU", "GB/s", "Frac", "Bound"
		for (i = 1; i <= nops; i++)
			printf "%-34s %-16s %10s %9s %6s %6s %6s %9s %6s  %s\n", substr(name[i], 1, 34), substr(op[i], 1, 16), \
			    num(t[i], 3), num(tf[i], 2), num(pk[i], 0), num(cu[i], 3), num(mfu[i], 3), num(gb[i], 1), num(mu[i], 3), b[i]
	}' "$W/module.tsv" "$W/roofline-modules.tsv" "$W/roofline-steps.tsv" "$W/roofline-ops.tsv"
}
summary txt > "$OUT/summary.txt"

# The plot's data: intensity and TFLOP/s of the heavy operations (the 50
# longest with a rate), and the roofs (the largest matmul peak, the FP32
# peak, the bandwidth: GBps / MemoryUtil).
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "Intensity\tTFLOPs\tMatmul"; next }
	$c["Intensity"] > 0 && $c["TFLOPs"] > 0 && n < 50 { n++; print $c["Intensity"] "\t" $c["TFLOPs"] "\t" ($c["MatmulFlops"] > 0) }' \
	"$W/roofline-ops.tsv" > "$W/points.tsv"
roofs=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["PeakTFLOPs"] != "" { p = $c["PeakTFLOPs"] + 0; if ($c["MatmulFlops"] > 0 && p > mm) mm = p; if ($c["MatmulFlops"] == 0) v = p }
	$c["MemoryUtil"] > 0 && bw == "" { bw = $c["GBps"] / $c["MemoryUtil"] }
	END { printf "%s %s %s", mm + 0, v + 0, bw + 0 }' "$W/roofline-ops.tsv")
if command -v gnuplot > /dev/null && [ "$(wc -l < "$W/points.tsv")" -gt 1 ]; then
	# shellcheck disable=SC2086 # three numbers
	set -- $roofs
	# The output path reaches gnuplot through the environment, never
	# spliced into its program text (a path may hold quotes).
	NSYSJAX_PLOT=$OUT/roofline.svg gnuplot -e "set encoding utf8; set terminal svg size 900,540 dynamic noenhanced background rgb 'white'; set output system('printf %s \"\$NSYSJAX_PLOT\"')" \
	    -c /dev/stdin "$W/points.tsv" "$1" "$2" "$3" 2> "$W/gp.err" <<'GP' ||
set title "Roofline of the steady state: the 50 longest operations (rates below 1 GFLOP/s not shown)"
set xlabel "Arithmetic intensity [FLOP/B]"; set ylabel "Achieved [TFLOP/s]"
set logscale xy; set grid; set key bottom right; set yrange [0.001:*]; set format y "%g"; set format x "%g"
P = real(ARG2); V = real(ARG3); B = real(ARG4)
roof(x, p) = (B > 0 && p > 0) ? (x * B / 1000 < p ? x * B / 1000 : p) : NaN
set samples 400; set xrange [*:*]
plot ARG1 using 1:($3 == 1 ? $2 : NaN) skip 1 with points pointtype 7 pointsize 0.8 title "matmul operations", \
     ARG1 using 1:($3 == 0 ? $2 : NaN) skip 1 with points pointtype 6 pointsize 0.8 title "other operations", \
     roof(x, P) with lines linewidth 2 title sprintf("matmul roof (%g TFLOP/s, %g GB/s)", P, B), \
     roof(x, V) with lines dashtype 2 title sprintf("FP32 roof (%g TFLOP/s)", V)
GP
		printf '%s: plot roofline: %s\n' "$PROG" "$(head -n 1 "$W/gp.err")" >&2
fi
{
	summary html
	if [ -s "$OUT/roofline.svg" ]; then
		printf '<figure>\n'
		sed -n '/<svg/,$p' "$OUT/roofline.svg"
		printf '<figcaption>Roofline: arithmetic intensity against achieved TFLOP/s of the longest operations, under the compute and memory roofs</figcaption>\n</figure>\n'
	fi
	printf '</section>\n'
} > "$OUT/section.html"
