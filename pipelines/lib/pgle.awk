# The costs of pipelines/pgle.sh: from the hlo frame (first file) and the
# steady thunk frame (second), one line per instruction of a module with
# HLO facts, "ProgramId TAB Name TAB costs { ... }", unsorted.
#
# As analyses/pgle_costs.py: an instruction's time is its full
# ProjDurMs + ProjDurHiddenMs; its cost is the largest time over every
# execution on every device for communication (Communication of its first
# row), the smallest for compute; in us, rounded to 0.1 us from the exact
# ns (ties to even).  The name is the instruction's SchedulingName, or
# with -v FALLBACK=1 its Name where that is empty; a '"' in it is escaped
# (TSV escapes, \t \n \r \\, are protobuf text escapes as they are).
FNR == 1 {
	header(); file++
	id = need("ProgramId"); nm = need("Name")
	if (file == 1) sn = need("SchedulingName")
	else { dur = need("ProjDurMs"); hid = need("ProjDurHiddenMs"); cm = need("Communication") }
	next
}
file == 1 {
	k = $id SUBSEP $nm
	if (!(k in sched)) sched[k] = $sn
	next
}
{
	k = $id SUBSEP $nm
	if (!(k in sched)) next
	t = ns($dur) + ns($hid)
	if (!(k in comm)) { comm[k] = $cm == 1; cost[k] = t }
	else if (comm[k] ? t > cost[k] : t < cost[k]) cost[k] = t
}
END {
	if (failed) exit 1
	for (k in cost) {
		split(k, f, SUBSEP)
		s = sched[k]
		if (s == "" && FALLBACK) s = f[2]
		gsub(/"/, "\\\"", s)
		q = (cost[k] - cost[k] % 100) / 100; r = cost[k] % 100
		if (r > 50 || (r == 50 && q % 2)) q++
		printf "%s\t%s\tcosts { name: \"%s\" cost_us: %.0f.%.0f }\n", f[1], f[2], s, (q - q % 10) / 10, q % 10
	}
}
