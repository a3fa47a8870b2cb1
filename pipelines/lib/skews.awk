# The clock skews behind nsysjax-align's corrections, for report.sh's
# alignment plot: for each complete instance (ProgramId, ProgramExecution,
# Name, ThunkExecution seen on CollectiveSize devices) of the largest
# collectives of a communication frame, each device's end time (start +
# exposed + hidden) minus the instance's mean end.  Output: Device,
# Instance (1, 2, ... in key order), EndTimeSkewMs.  Doubles: for a plot.
FNR == 1 {
	header()
	s = need("ProjStartMs"); d = need("ProjDurMs"); h = need("ProjDurHiddenMs")
	cs = need("CollectiveSize"); dev = need("Device")
	k1 = need("ProgramId"); k2 = need("ProgramExecution")
	k3 = need("Name"); k4 = need("ThunkExecution")
	next
}
{
	size[NR] = $cs; key[NR] = $k1 SUBSEP $k2 SUBSEP $k3 SUBSEP $k4
	end[NR] = $s + $d + $h; device[NR] = $dev
	if ($cs + 0 > max) max = $cs + 0
}
END {
	if (failed) exit 1
	for (i in size) if (size[i] + 0 == max) { cnt[key[i]]++; sum[key[i]] += end[i] }
	print "Device", "Instance", "EndTimeSkewMs"
	for (k in cnt) if (cnt[k] == max) order[++m] = k
	# Instances numbered in key order, so that the output is deterministic.
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	for (i = 1; i <= m; i++) num_of[order[i]] = i
	for (i in size)
		if (size[i] + 0 == max && (key[i] in num_of))
			print device[i], num_of[key[i]], num(end[i] - sum[key[i]] / max)
}
