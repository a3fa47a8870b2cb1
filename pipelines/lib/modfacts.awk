# modfacts.awk (with tsv.awk): what the report says of each module of the
# steady state beyond the reference's module table, for report.sh's
# "modules" section.  Files: the steady module frame, the steady thunk
# frame, the compile frame (all initialisation).  Writes, per ProgramId,
# largest ProjDurMs first:
#   Devices, Processes (the distinct Process values, comma-separated),
#   Executions (rows of the module frame), ProjDurMs (their sum),
#   ComputeMs (compute thunks' ProjDurMs), CommunicationMs (communication
#   thunks' ProjDurMs + ProjDurHiddenMs: their whole duration),
#   HiddenMs (their ProjDurHiddenMs), HiddenShare (HiddenMs /
#   CommunicationMs, empty without communication), CollectiveWaitMs (per
#   collective instance, a ProgramExecution's ThunkExecution of one
#   thunk, each device's duration less the shortest device's: the time it
#   waited for its peers), WaitShare (CollectiveWaitMs / ProjDurMs, empty
#   on one device: no peer to wait for), Barrier (1: more than half of its
#   time is collective wait), WorkModule (1 for the module with the most
#   ComputeMs, the one that does the work), CompiledBy (the ProfileNames
#   whose compile ranges name it), CompileMs (the DurMs of its outermost
#   compile ranges, summed over processes: the time of its compilations;
#   own times would count parallel compilation threads twice).  Times are summed exactly, in integer ns.
# Rows sorted by ProjDurMs, largest first, then ProgramId (with
# sort.awk).  The same pass over the compile frame writes, when set, PIDS:
# XLA's numeric program_id (in compile range names; per process, so one
# may name several modules) to the modules it names, for the compile
# table: XlaProgramId, Modules (comma-separated), by XlaProgramId; and
# PROFILES: the ProfileNames of the compile frame, in order of
# appearance, each followed by a space (the processes whose compilation
# it holds).
FNR == 1 {
	header(); file++
	if (file == 1) { id = need("ProgramId"); nm = need("Name"); dv = need("Device"); pr = need("Process"); du = need("ProjDurMs") }
	if (file == 2) { tid = need("ProgramId"); tex = need("ProgramExecution"); tnm = need("Name"); tte = need("ThunkExecution")
		tdu = need("ProjDurMs"); thi = need("ProjDurHiddenMs"); tco = need("Communication") }
	if (file == 3) { cpf = need("ProfileName"); cid = need("ProgramId"); cdu = need("DurMs"); cpa = need("ParentId") }
	next
}
file == 1 {
	k = $id; name[k] = $nm; execs[k]++; dur[k] += ns($du)
	# Every sum of the module set to a number now: gawk 5.2.1 (Debian 12's)
	# spoils an array element never assigned once it is passed to a
	# function (ms): a later read of it (WaitShare) gave another denormal
	# on each run, or a double free.  (BEGIN { f(a["k"]); print a["k"] / 5 }
	# with f(t) { return t % 10 } shows it.)
	comp[k] += 0; comm[k] += 0; hid[k] += 0; wait[k] += 0; cms[k] += 0
	if (!((k, $dv) in seendev)) { seendev[k, $dv] = 1; ndev[k]++ }
	if (!((k, $pr) in seenproc)) { seenproc[k, $pr] = 1; procs[k] = procs[k] (procs[k] == "" ? "" : ",") $pr }
	next
}
file == 2 {
	k = $tid
	if ($tco != 1) { comp[k] += ns($tdu); next }
	d = ns($tdu) + ns($thi)
	comm[k] += d; hid[k] += ns($thi)
	i = k SUBSEP $tex SUBSEP $tnm SUBSEP $tte
	if (!(i in cnt) || d < lo[i]) lo[i] = d
	cnt[i]++; tot[i] += d
	next
}
file == 3 {
	if (!($cpf in sprof)) { sprof[$cpf] = 1; profs = profs $cpf " " }
	if (match($c["Name"], /program_id=[0-9]+/) && $c["ProgramName"] != "") {
		x = substr($c["Name"], RSTART + 11, RLENGTH - 11); m = $c["ProgramName"]
		if (!((x, m) in pseen)) { pseen[x, m] = 1; if (!(x in mods)) xid[++nx] = x; mods[x] = mods[x] (mods[x] == "" ? "" : ",") m }
	}
	k = $cid
	if (k == "") next
	if ($cpa == "") cms[k] += ns($cdu)
	if (!((k, $cpf) in seencomp)) { seencomp[k, $cpf] = 1; by[k] = by[k] (by[k] == "" ? "" : ",") $cpf }
	next
}
# Orders: the modules by ProjDurMs (exact, in ns), largest first, then
# ProgramId (sort -k6,6gr -k1,1 of the rows); XLA's program ids by number.
function before(x, y) {
	if (SORTBY == "pids")
		return x + 0 < y + 0
	return dur[x] > dur[y] || (dur[x] == dur[y] && (x "") < (y ""))
}
END {
	if (failed) exit 1
	for (i in cnt) { split(i, f, SUBSEP); wait[f[1]] += tot[i] - cnt[i] * lo[i] }
	work = ""
	for (k in name) if (work == "" || comp[k] > comp[work] || (comp[k] == comp[work] && k < work)) work = k
	print "ProgramId\tName\tDevices\tProcesses\tExecutions\tProjDurMs\tComputeMs\tCommunicationMs\tHiddenMs\tHiddenShare\tCollectiveWaitMs\tWaitShare\tBarrier\tWorkModule\tCompiledBy\tCompileMs"
	nk = 0
	for (k in name) ord[++nk] = k
	msort(ord, nk)
	for (j = 1; j <= nk; j++) {
		k = ord[j]
		hs = comm[k] > 0 ? num(hid[k] / comm[k]) : ""
		wt = ndev[k] > 1 ? ms(wait[k]) : ""
		ws = ndev[k] > 1 && dur[k] > 0 ? num(wait[k] / dur[k]) : ""
		bar = ws != "" && ws + 0 > 0.5
		printf "%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", k, name[k], ndev[k], procs[k], execs[k],
		    ms(dur[k]), ms(comp[k]), ms(comm[k]), ms(hid[k]), hs, wt, ws, bar, k == work, by[k], ms(cms[k])
	}
	if (PROFILES != "")
		printf "%s", profs > PROFILES
	if (PIDS != "") {
		SORTBY = "pids"; msort(xid, nx)
		print "XlaProgramId\tModules" > PIDS
		for (j = 1; j <= nx; j++) print xid[j] "\t" mods[xid[j]] > PIDS
	}
}
