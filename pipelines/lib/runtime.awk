# The thunk table of pipelines/summary.sh, unsorted, and (-v TOTALS=FILE)
# the notebook's three runtime totals, over the top modules (-v TOP=FILE,
# one ProgramId per line): the steady thunk frame (first file) and module
# frame (second file).
#
# all_thunks_active_ms: the thunks' exposed ProjDurMs added up;
# all_modules_active_ms: the modules' ProjDurMs added up;
# all_modules_wall_ms: per device, the end of its last module minus the
# start of its first, added up over devices.
BEGIN {
	while ((getline line < TOP) > 0) top[line] = 1
	close(TOP)
	print "ProgramId", "Name", "Executions", "ProjDurMs"
}
FNR == 1 {
	header(); file++
	id = need("ProgramId"); nm = need("Name"); dur = need("ProjDurMs")
	if (file == 2) { dev = need("Device"); st = need("ProjStartMs") }
	next
}
!($id in top) { next }
file == 1 {
	k = $id SUBSEP $nm
	t = ns($dur); rows[k]++; sum[k] += t; thunks += t
	next
}
{
	t = ns($dur); modules += t
	s = ns($st); e = s + t
	if (!($dev in lo) || s < lo[$dev]) lo[$dev] = s
	if (!($dev in hi) || e > hi[$dev]) hi[$dev] = e
}
END {
	if (failed) exit 1
	for (k in rows) { split(k, f, SUBSEP); print f[1], f[2], rows[k], ms(sum[k]) }
	for (d in lo) wall += hi[d] - lo[d]
	print "Quantity", "Value" > TOTALS
	print "all_thunks_active_ms", ms(thunks) > TOTALS
	print "all_modules_active_ms", ms(modules) > TOTALS
	print "all_modules_wall_ms", ms(wall) > TOTALS
}
