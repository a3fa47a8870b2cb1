# The straggler view of pipelines/variability.sh: how far each device
# runs ahead of or behind the others in the top modules (-v TOP=FILE, one
# ProgramId per line, largest first), from the aligned steady module frame
# (first file) and thunk frame (read twice: -v is set by pass=1 and pass=2
# operands before each).  Rows start with the module's rank, to be sorted.
#
# A device's bias at a point (the start of a module execution, or the
# start or end of a compute thunk instance: ProgramId, ProgramExecution,
# Name, ThunkExecution) is its time minus the mean over the devices at
# that point.  StartBiasMs and DurBiasMs: mean over the module's
# executions of the bias of ProjStartMs and of ProjDurMs; ThunkBiasMs:
# mean bias over every thunk start and end; OutlierScoreMs: the notebook's
# ranking, the largest |bias| over executions of each thunk start and end,
# added up.
BEGIN {
	while ((getline line < TOP) > 0) rank[line] = ++ntop
	close(TOP)
	print "Rank", "ProgramId", "Name", "Device", "Executions", "StartBiasMs", "DurBiasMs",
	    "ThunkBiasMs", "OutlierScoreMs"
}
FNR == 1 {
	header(); file++
	id = need("ProgramId"); ex = need("ProgramExecution"); dev = need("Device")
	st = need("ProjStartMs"); dur = need("ProjDurMs")
	nm = need("Name")
	if (file > 1) { te = need("ThunkExecution"); cm = need("Communication") }
	next
}
!($id in rank) { next }
file == 1 {
	p = $id; name[p] = $nm; e = p SUBSEP $ex
	r = nrow++
	rid[r] = p; rex[r] = e; rdev[r] = $dev; rst[r] = $st + 0; rdur[r] = $dur + 0
	sst[e] += rst[r]; sdur[e] += rdur[r]; sn[e]++
	next
}
$cm == 1 { next }
pass == 1 {
	k = $id SUBSEP $ex SUBSEP $nm SUBSEP $te
	ts[k] += $st; tend[k] += $st + $dur; tc[k]++
	next
}
{
	k = $id SUBSEP $ex SUBSEP $nm SUBSEP $te
	pd = $id SUBSEP $dev
	bs = $st - ts[k] / tc[k]; be = $st + $dur - tend[k] / tc[k]
	tb[pd] += bs + be; tn[pd] += 2
	pt = pd SUBSEP $nm SUBSEP $te
	if (bs < 0) bs = -bs
	if (be < 0) be = -be
	if (!(pt in mxs) || bs > mxs[pt]) mxs[pt] = bs
	if (!(pt in mxe) || be > mxe[pt]) mxe[pt] = be
}
END {
	if (failed) exit 1
	for (pt in mxs) { split(pt, f, SUBSEP); score[f[1] SUBSEP f[2]] += mxs[pt] + mxe[pt] }
	for (i = 0; i < nrow; i++) {
		pd = rid[i] SUBSEP rdev[i]; e = rex[i]
		execs[pd]++
		sb[pd] += rst[i] - sst[e] / sn[e]
		db[pd] += rdur[i] - sdur[e] / sn[e]
	}
	for (pd in execs) {
		split(pd, f, SUBSEP)
		print rank[f[1]], f[1], name[f[1]], f[2], execs[pd], num(sb[pd] / execs[pd]),
		    num(db[pd] / execs[pd]), num(tn[pd] ? tb[pd] / tn[pd] : 0), num(score[pd])
	}
}
