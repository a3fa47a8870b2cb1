# The notebook's detailed view of pipelines/variability.sh, unsorted: per
# compute thunk (ProgramId, Name; Communication 0) of the steady thunk
# frame, the mean and sample standard deviation of ProjDurMs over every
# execution on every device (repeated executions within a module count
# too), for those whose std/mean exceeds -v RATIO.  The frame is read
# twice (pass=1 and pass=2 operands before each): means, then deviations.
BEGIN {
	print "ProgramId", "Name", "Executions", "MeanMs", "StdMs", "RelStd", "MinMs", "MaxMs"
}
FNR == 1 {
	header()
	id = need("ProgramId"); nm = need("Name"); dur = need("ProjDurMs"); cm = need("Communication")
	next
}
$cm == 1 { next }
pass == 1 {
	k = $id SUBSEP $nm; x = $dur + 0
	s[k] += x; n[k]++
	if (!(k in lo) || x < lo[k]) lo[k] = x
	if (!(k in hi) || x > hi[k]) hi[k] = x
	next
}
{ k = $id SUBSEP $nm; d = $dur - s[k] / n[k]; q[k] += d * d }
END {
	if (failed) exit 1
	for (k in n) {
		m = s[k] / n[k]
		if (n[k] < 2 || m <= 0) continue
		sdv = sqrt(q[k] / (n[k] - 1))
		if (sdv / m <= RATIO) continue
		split(k, f, SUBSEP)
		print f[1], f[2], n[k], num(m), num(sdv), num(sdv / m), num(lo[k]), num(hi[k])
	}
}
