# critpath-tables.awk (with sort.awk; -F'\t'): pipelines/critpath.sh's
# tables, in one pass over nsysjax-critpath's breakdown (first file) and
# scenarios (second file).  Writes MODULES: per module its executions,
# the means of the step and of each label, shares, the most time
# (TotalMs as written) first, then by ProgramId; MEANS: per module and
# scenario, in order of appearance, the mean measured and predicted
# step and the gain; TOP: the step to draw, "ProgramId TAB execution":
# the module that does the work, the most compute on its critical path
# summed over its executions (a barrier, whose path is peer wait, holds
# the most time and almost no compute: it is never the step drawn),
# then the most time; and its median execution (by StepMs, then
# execution number); empty without modules.  The three paths come
# in the environment (data, not -v, which reads escape sequences).
BEGIN { MODULES = ENVIRON["MODULES"]; MEANS = ENVIRON["MEANS"]; TOP = ENVIRON["TOP"] }
FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
file == 1 { k = $c["ProgramId"]; if (!(k in n)) { o[++m] = k; name[k] = $c["Module"]; dev[k] = $c["Devices"] }
  n[k]++; st[k] += $c["StepMs"]; cm[k] += $c["ComputeMs"]; co[k] += $c["CommunicationMs"]
  pw[k] += $c["PeerWaitMs"]; gp[k] += $c["GapMs"]; hb[k] += $c["HostBound"]; ow[k] += $c["OffPathWaitMs"]
  # For the median: each execution of each module (columns 1, 2 and 6).
  nx[$1]++; xs[$1, nx[$1]] = $6; xe[$1, nx[$1]] = $2
  next }
{ k = $c["ProgramId"] SUBSEP $c["Scenario"]; if (!(k in sn)) so[++sm] = k
  sn[k]++; me[k] += $c["MeasuredMs"]; pr[k] += $c["PredictedMs"] }
# Orders: modules by TotalMs as written, largest first, then ProgramId
# (sort -k13,13gr -k1,1); executions by StepMs, then number (-k1,1g -k2,2n).
function before(x, y) {
	if (SORTBY == "modules")
		return tot[x] > tot[y] || (tot[x] == tot[y] && (x "") < (y ""))
	return xs[TOPK, x] + 0 < xs[TOPK, y] + 0 || (xs[TOPK, x] + 0 == xs[TOPK, y] + 0 && xe[TOPK, x] + 0 < xe[TOPK, y] + 0)
}
END {
	print "ProgramId\tModule\tDevices\tExecutions\tStepMs\tComputeMs\tCommunicationMs\tPeerWaitMs\tGapMs\tGapShare\tHostBound\tOffPathWaitMs\tTotalMs" > MODULES
	for (i = 1; i <= m; i++) { k = o[i]; tot[k] = sprintf("%.6f", st[k]) + 0; ord[i] = k }
	SORTBY = "modules"; msort(ord, m)
	for (j = 1; j <= m; j++) { k = ord[j]
	  printf "%s\t%s\t%d\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.4f\t%d\t%.6f\t%.6f\n", k, name[k], dev[k], n[k], st[k] / n[k],
	    cm[k] / n[k], co[k] / n[k], pw[k] / n[k], gp[k] / n[k], (st[k] > 0 ? gp[k] / st[k] : 0), hb[k], ow[k] / n[k], st[k] > MODULES }
	print "ProgramId\tScenario\tExecutions\tMeasuredMs\tPredictedMs\tGainMs\tGainPct" > MEANS
	for (i = 1; i <= sm; i++) { k = so[i]; split(k, q, SUBSEP)
	  printf "%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%.2f\n", q[1], q[2], sn[k], me[k] / sn[k], pr[k] / sn[k],
	    (me[k] - pr[k]) / sn[k], (me[k] > 0 ? 100 * (me[k] - pr[k]) / me[k] : 0) > MEANS }
	if (m == 0) { printf "" > TOP; exit }
	TOPK = ord[1]
	for (j = 2; j <= m; j++) if (sprintf("%.6f", cm[ord[j]]) + 0 > sprintf("%.6f", cm[TOPK]) + 0) TOPK = ord[j]
	ne = 0
	for (i = 1; i <= nx[TOPK]; i++) ex[++ne] = i
	SORTBY = "execs"; msort(ex, ne)
	printf "%s\t%s\n", TOPK, ne ? xe[TOPK, ex[int((ne + 1) / 2)]] : "" > TOP
}
