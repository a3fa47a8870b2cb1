# The module table of pipelines/summary.sh, unsorted: one row per
# ProgramId of the steady module frame (first file) with the waits of the
# steady communication frame (second file).  -v TOP=FILE names the top
# modules, one ProgramId per line.
#
# Executions, NumThunks and ProjDurMs are over the module frame's rows
# (one per execution and device), as analyses/summary.py.  Wait is its
# "wait time": for each instance of a communication thunk (ProgramId,
# ProgramExecution, Name, ThunkExecution), the largest minus the smallest
# exposed ProjDurMs over devices, added up per module execution; mean and
# standard deviation over executions; percent of the mean ProjDurMs.
# StartSpreadFraction is the notebook's wait: per module execution the
# latest minus the earliest ProjStartMs over devices, added up over
# executions, over the total ProjDurMs; for modules with communication.
BEGIN {
	while ((getline line < TOP) > 0) top[line] = 1
	close(TOP)
	print "ProgramId", "Name", "Executions", "NumThunksMean", "NumThunksStd", "ProjDurMs",
	    "ProjDurMeanMs", "ProjDurStdMs", "ProjDurPercent", "WaitMeanMs", "WaitStdMs",
	    "WaitPercent", "StartSpreadFraction", "TopModule"
}
FNR == 1 {
	header(); file++
	id = need("ProgramId"); ex = need("ProgramExecution")
	if (file == 1) { nm = need("Name"); th = need("NumThunks"); st = need("ProjStartMs") }
	else { nm = need("Name"); te = need("ThunkExecution") }
	dur = need("ProjDurMs")
	next
}
file == 1 {
	p = $id
	if (!(p in name)) name[p] = $nm
	add("d" SUBSEP p, $dur); t = ns($dur); total[p] += t; all += t
	add("t" SUBSEP p, $th)
	e = p SUBSEP $ex; t = ns($st)
	if (!(e in first) || t < first[e]) first[e] = t
	if (!(e in last) || t > last[e]) last[e] = t
	next
}
{
	k = $id SUBSEP $ex SUBSEP $nm SUBSEP $te
	t = ns($dur)
	if (!(k in lo) || t < lo[k]) lo[k] = t
	if (!(k in hi) || t > hi[k]) hi[k] = t
	comm[$id] = 1
}
END {
	if (failed) exit 1
	for (k in lo) { split(k, f, SUBSEP); wait[f[1] SUBSEP f[2]] += hi[k] - lo[k] }
	for (e in wait) { split(e, f, SUBSEP); add("w" SUBSEP f[1], wait[e] / 1e6) }
	for (e in first) { split(e, f, SUBSEP); spread[f[1]] += last[e] - first[e] }
	for (p in name) {
		d = "d" SUBSEP p; t = "t" SUBSEP p; w = "w" SUBSEP p
		if (p in comm && n[w])
			wf = num(avg(w)) OFS sd(w) OFS num(avg(d) ? 100 * avg(w) / avg(d) : 0)
		else
			wf = OFS OFS
		print p, name[p], n[d], num(avg(t)), sd(t), ms(total[p]), num(avg(d)), sd(d),
		    num(all ? 100 * total[p] / all : 0), wf,
		    (p in comm) ? num(total[p] ? spread[p] / total[p] : 0) : "", (p in top) ? 1 : 0
	}
}
