# Wait time per collective instance, for report.sh's wait-time plot: for
# each instance (ProgramId, ProgramExecution, Name, ThunkExecution) of a
# steady communication frame, the spread (max - min over devices) of the
# exposed time ProjDurMs, the wait of the reference's summary.py.
# Output: Collective, WaitMs, one row per instance seen on 2+ devices.
FNR == 1 {
	header()
	d = need("ProjDurMs"); coll = need("Collective")
	k1 = need("ProgramId"); k2 = need("ProgramExecution")
	k3 = need("Name"); k4 = need("ThunkExecution")
	next
}
{
	k = $k1 SUBSEP $k2 SUBSEP $k3 SUBSEP $k4
	if (!(k in lo) || $d + 0 < lo[k]) lo[k] = $d + 0
	if (!(k in hi) || $d + 0 > hi[k]) hi[k] = $d + 0
	cnt[k]++; kind[k] = $coll
}
END {
	if (failed) exit 1
	print "Collective", "WaitMs"
	for (k in cnt) if (cnt[k] > 1) print kind[k], num(hi[k] - lo[k])
}
