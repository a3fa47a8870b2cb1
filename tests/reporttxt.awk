# reporttxt.awk: checks of report.txt (pipelines/lib/report-txt.sh) for
# tests/t78-report.sh.  Mode MODE=tsv: every mean(uncertainty) and plain
# cell of the bandwidth table of report.txt (first file) against
# communication/bandwidth.tsv (second file): the printed mean within half
# a unit of its last digit.  MODE=golden: the bandwidth cells against the
# reference's communication.txt (second file), cell for cell.  Prints what
# differs; exit 1 if anything does.
BEGIN { FS = "\t" }
function strip(s) { gsub(/^ +| +$/, "", s); return s }
# value(U) -> value; the half unit of its last digit in HALF
function val(s,    v, d) {
	v = s; sub(/\(.*$/, "", v)
	d = v; if (d ~ /\./) { sub(/^[^.]*\./, "", d); HALF = 0.5 * 10 ^ -length(d) } else HALF = 0.5
	return v + 0
}
FNR == 1 { file++ }
file == 1 && /^Bus bandwidth/ { inbw = 1; next }
file == 1 && inbw && /^$/ && seen { inbw = 0 }
file == 1 && inbw && /^ +Size/ { s = strip($0); sub(/Size \[B\]/, "Size", s); n = split(s, h, / +/); seen = 1; next }
file == 1 && inbw && seen && /^ +[0-9]/ {
	m = split(strip($0), c, / +/)
	size = c[1]; gsub(/,/, "", size)
	for (i = 2; i <= m; i++) if (c[i] != "--") ours[h[i], size + 0] = c[i]
	next
}
file == 2 && MODE == "tsv" && FNR > 1 {
	k = $1 SUBSEP ($2 + 0)
	if (!(k in ours)) { print "missing in report.txt: " $1 " " $2; bad++; next }
	v = val(ours[k])
	if (v - $4 > HALF * 1.0001 || $4 - v > HALF * 1.0001) { print "bandwidth " $1 " " $2 ": " ours[k] " vs " $4; bad++ }
	checked++
}
file == 2 && MODE == "golden" && FNR == 1 { gsub(/\|/, "\t"); }
file == 2 && MODE == "golden" && /^Size/ {
	n2 = split($0, gh, /\|/); for (i = 2; i <= n2; i++) gh[i] = strip(gh[i]); next
}
file == 2 && MODE == "golden" && /^[0-9]/ {
	m = split($0, gc, /\|/); size = strip(gc[1]); gsub(/,/, "", size)
	for (i = 2; i <= m; i++) {
		g = strip(gc[i]); if (g ~ /^-+$/) continue
		k = gh[i] SUBSEP (size + 0)
		if (!(k in ours)) { print "missing: " gh[i] " " size; bad++ }
		else if (ours[k] != g) { print gh[i] " " size ": " ours[k] " vs the reference's " g; bad++ }
		checked++
	}
}
END { if (!checked) { print "nothing compared"; bad++ } exit bad > 0 }
