# diagnosis.awk (with report.awk and fmt.awk): the report's first
# paragraph, what limits the step, put together from the sections' own
# tables, each clause naming the section it comes from; a clause the
# input cannot support (no critical path, no known peak, one device, no
# dump) is left out.  The values are computed once (dg_*) and shown both
# here and in their sections, so that the two agree to the digit.
#
# The clauses, for the module that does the work (modules/facts.tsv's
# WorkModule, its ProgramIds of one SPMD step joined, report.awk's
# spmd_joins):
#   steps      critpath/breakdown.tsv: its steady steps, their mean,
#              least and greatest StepMs, and its devices (Critical path)
#   MFU        roofline/summary.txt's step and GPU-busy MFU (Roofline)
#   GPU busy   report.awk's steady_busy, the headline's share (Summary)
#   bound      critpath/modules.tsv: the label with the most of the
#              critical time: compute, exposed communication, peer wait
#              (a straggler) or gaps (the host) (Critical path)
#   top        summary/thunks.tsv's first thunk not of a barrier, its
#              op_name (the HLO dump's metadata, the brackets of a
#              primitive's parameters left out) and the innermost frame of
#              its stack (the op_name and source flame graphs' leaves)
#   wait       variability/late.tsv's first row of the module (the
#              device that makes its peers wait most), and dg_wait's
#              collective (Alignment and stragglers)
#   what-if    critpath/scenario-means.tsv's largest gain (What-if)

# dg_work(): DG_ID the ProgramId of the module that does the work (its
# SPMD step's first: the critical path's), DG_NAME its name, DG_IDS[] its
# ProgramIds, DG_DEV its devices (facts' Devices summed over them).  False
# without such a module.
function dg_work(    n, r, k, g) {
	if (DG_WORKED) return DG_ID != ""
	DG_WORKED = 1
	if ((n = load(FACTS)) < 2) return 0
	spmd_joins()
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("WorkModule") == 1 && f("ComputeMs") > 0) {
			k = f("ProgramId"); DG_ID = k in JTO ? JTO[k] : k; DG_NAME = f("Name")
		}
	}
	if (DG_ID == "") return 0
	for (r = 2; r <= n; r++) {
		row(r); k = f("ProgramId"); g = k in JTO ? JTO[k] : k
		if (g == DG_ID) { DG_IDS[k] = 1; DG_DEV += f("Devices") }
	}
	return 1
}

# dg_steps(): DG_NSTEP steady steps of the work module in the critical
# path's breakdown (one row per step over all its devices), DG_STEP their
# mean StepMs, DG_SMIN and DG_SMAX the least and greatest, DG_SDEV its
# devices there; DG_CP[label] the critical time (ms, means over steps)
# of compute, communication, peer wait and gap (critpath/modules.tsv),
# DG_HOST set when some step is host-bound.  DG_NSTEP 0 without a
# critical path.
function dg_steps(    n, r, s) {
	if (DG_STEPPED) return DG_NSTEP
	DG_STEPPED = 1; DG_NSTEP = 0
	if (!dg_work()) return 0
	n = load(OUT "/critpath/breakdown.tsv")
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("ProgramId") != DG_ID) continue
		s = f("StepMs") + 0
		if (!DG_NSTEP++ || s < DG_SMIN) DG_SMIN = s
		if (DG_NSTEP == 1 || s > DG_SMAX) DG_SMAX = s
		DG_SDEV = f("Devices")
	}
	n = load(OUT "/critpath/modules.tsv")
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("ProgramId") != DG_ID) continue
		DG_STEP = f("StepMs") + 0
		DG_CP["compute"] = f("ComputeMs"); DG_CP["communication"] = f("CommunicationMs")
		DG_CP["peer wait"] = f("PeerWaitMs"); DG_CP["gap"] = f("GapMs")
		DG_HOST = f("HostBound") > 0
	}
	if (DG_STEP <= 0) DG_NSTEP = 0
	return DG_NSTEP
}

# dg_cp_share(LABEL): LABEL's share of the work module's critical time,
# in percent to one decimal, as critpath.txt prints it.
function dg_cp_share(label) {
	return sprintf("%.1f%%", DG_STEP > 0 ? 100 * DG_CP[label] / DG_STEP : 0)
}

# dg_bound(): what bounds the step: the label with the most critical
# time (the first in the order compute, communication, peer wait, gap on
# a tie); "" without a critical path.
function dg_bound(    x, i, best) {
	if (!dg_steps()) return ""
	split("compute,communication,peer wait,gap", x, ",")
	best = x[1]
	for (i = 2; i <= 4; i++) if (DG_CP[x[i]] + 0 > DG_CP[best] + 0) best = x[i]
	return best
}

# dg_mfu(): DG_MFU and DG_BMFU the step and GPU-busy MFU of the roofline's
# summary line (pipelines/roofline.sh: the module with the most matmul
# FLOPs), DG_MMOD that module; false when the summary has none (no
# known peak, no costed operation).
function dg_mfu(    file, line) {
	if (DG_MFUED) return DG_MFU != ""
	DG_MFUED = 1
	file = OUT "/roofline/summary.txt"
	while ((getline line < file) > 0) {
		if (line !~ /^Step MFU of the module with the most matmul FLOPs, /) continue
		sub(/^Step MFU of the module with the most matmul FLOPs, /, "", line)
		if (!match(line, /: [0-9.]+, mean of /)) break
		DG_MMOD = substr(line, 1, RSTART - 1)
		DG_MFU = substr(line, RSTART + 2); sub(/,.*/, "", DG_MFU)
		if (match(line, /GPU-busy MFU [0-9.]*[0-9]/)) DG_BMFU = substr(line, RSTART + 13, RLENGTH - 13)
		break
	}
	close(file)
	return DG_MFU != ""
}

# dg_top(): the top thunk of the thunks table (barriers left out, as the
# table leaves them): DG_TOP its name, DG_TOPMS its time (ms, summed over
# executions and devices), DG_TOPEX its executions, DG_TOPID its
# ProgramId; DG_OPNAME its op_name without a primitive's parameters and
# DG_SRC the innermost frame of its stack, from the frames' hlo.tsv and
# stackframes.tsv ("" when the dump has none).  False without thunks.
function dg_top(    n, r, line, x, c, i, fid, up, fr) {
	if (DG_TOPPED) return DG_TOP != ""
	DG_TOPPED = 1
	n = load(OUT "/summary/thunks.tsv")
	for (r = 2; r <= n; r++) {
		row(r)
		if (is_bar(f("ProgramId"))) continue
		DG_TOP = f("Name"); DG_TOPMS = f("ProjDurMs"); DG_TOPEX = f("Executions"); DG_TOPID = f("ProgramId")
		break
	}
	if (DG_TOP == "") return 0
	n = load(FR "/hlo.tsv")
	for (r = 2; r <= n; r++) {
		split(L[r], x, "\t")
		if (x[col["ProgramId"]] != DG_TOPID || x[col["Name"]] != DG_TOP) continue
		DG_OPNAME = x[col["OpName"]]; fid = x[col["StackFrameIds"]]
		break
	}
	# The primitive's parameters (dot_general[dimension_numbers=...])
	# are no name: left out.
	gsub(/\[[^]]*\]/, "", DG_OPNAME)
	sub(/[ ,].*/, "", fid)
	# The innermost frame that is a source line (FILE:LINE[function]):
	# the stack's leaf can be the op_name itself.
	if (fid != "" && (n = load(FR "/stackframes.tsv")) >= 2) {
		for (r = 2; r <= n; r++) {
			split(L[r], x, "\t")
			up[x[col["FrameId"]]] = x[col["ParentFrameId"]]; fr[x[col["FrameId"]]] = x[col["Frame"]]
		}
		for (i = 0; fid != "" && (fid in fr) && i < n; i++) {
			if (fr[fid] ~ /:[0-9]+(\[[^]]*\])?$/) { DG_SRC = fr[fid]; break }
			fid = up[fid]
		}
	}
	return 1
}

# dg_wait(): DG_WDEV the device that makes its peers wait most in the
# work module, DG_WCAUSED that wait per step (ms): variability/late.tsv's
# first row of one of its ProgramIds (the straggler table's order),
# when it causes a wait and the module spans two devices or more; then
# the collective where the peers wait for it (DG_WCOLL, its MessageSize
# DG_WSIZE, DG_WCMS ms per step): over the steady communication rows of
# its ProgramIds, each instance (execution, thunk, thunk execution)
# where DG_WDEV's duration is the shortest (it arrives last, the others
# wait inside the collective for it), the other devices' durations less
# its own summed, per collective thunk; the largest, over the steps.
function dg_wait(    n, r, file, line, x, c, i, k, d, u, key, mn, who, sum, dev, nm, sz, best, own, per) {
	if (DG_WAITED) return DG_WDEV != ""
	DG_WAITED = 1
	if (!dg_work() || DG_DEV < 2) return 0
	n = load(OUT "/variability/late.tsv")
	for (r = 2; r <= n; r++) {
		row(r)
		if (!(f("ProgramId") in DG_IDS)) continue
		if (f("WaitCausedMs") + 0 > 0) { DG_WDEV = f("Device"); DG_WCAUSED = f("WaitCausedMs") }
		break
	}
	if (DG_WDEV == "") return 0
	file = W "/steady/communication.tsv"
	if ((getline line < file) <= 0) return 1
	split(line, x, "\t"); for (i in x) c[x[i]] = i
	while ((getline line < file) > 0) {
		split(line, x, "\t")
		if (!(x[c["ProgramId"]] in DG_IDS)) continue
		key = x[c["ProgramExecution"]] SUBSEP x[c["Name"]] SUBSEP x[c["ThunkExecution"]]
		u = x[c["ProjDurMs"]] + x[c["ProjDurHiddenMs"]]; d = x[c["Device"]]
		sum[key] += u; dev[key]++
		if (!(key in mn) || u < mn[key]) { mn[key] = u; who[key] = d }
		if (d == DG_WDEV) own[key] = u
		nm[key] = x[c["Name"]]; sz[x[c["Name"]]] = x[c["MessageSize"]]
	}
	close(file)
	for (key in who)
		if (who[key] == DG_WDEV && dev[key] > 1) per[nm[key]] += sum[key] - dev[key] * own[key]
	for (k in per) if (best == "" || per[k] > per[best] || (per[k] == per[best] && k < best)) best = k
	if (best != "" && per[best] > 0 && dg_steps()) {
		DG_WCOLL = best; DG_WSIZE = sz[best]; DG_WCMS = per[best] / DG_NSTEP
	}
	return 1
}

# dg_whatif(): DG_WIF the scenario of the largest gain for the work
# module (critpath/scenario-means.tsv; the first on a tie), DG_WIFMS its
# gain (ms) and DG_WIFPCT in percent of the step; "" when none gains.
function dg_whatif(    n, r) {
	if (DG_WIFED) return DG_WIF != ""
	DG_WIFED = 1
	if (!dg_work()) return 0
	n = load(OUT "/critpath/scenario-means.tsv")
	for (r = 2; r <= n; r++) {
		row(r)
		if (f("ProgramId") != DG_ID || f("Scenario") == "measured") continue
		if (f("GainMs") + 0 > 0 && (DG_WIF == "" || f("GainMs") + 0 > DG_WIFMS + 0)) {
			DG_WIF = f("Scenario"); DG_WIFMS = f("GainMs"); DG_WIFPCT = f("GainPct")
		}
	}
	return DG_WIF != ""
}

# The words of a bound, for people.
function dg_bound_words(b) {
	if (b == "compute") return "compute (thunks running on the critical path)"
	if (b == "communication") return "exposed communication (collectives not hidden behind compute)"
	if (b == "peer wait") return "a straggler (devices waiting for a late peer)"
	return "host gaps (no thunk running: launches, the host, the input pipeline)"
}

# diagnosis(): the first paragraph: a sentence per line in report.txt
# under "Diagnosis", one paragraph in report.html's first section; nothing
# when no module does work.
function diagnosis(    s, nl, i, b, u) {
	if (!dg_work()) return
	nl = 0
	if (dg_steps())
		s[++nl] = sprintf("%s (%s): %d steady step%s of %s ms (min %s, max %s) on %d GPU%s (Critical path).", \
		    DG_NAME, sid(DG_ID), DG_NSTEP, DG_NSTEP > 1 ? "s" : "", grouped(fixed(DG_STEP, 3)), \
		    grouped(fixed(DG_SMIN, 3)), grouped(fixed(DG_SMAX, 3)), DG_SDEV, DG_SDEV > 1 ? "s" : "")
	else
		s[++nl] = sprintf("%s (%s) does the work, on %d GPU%s (Summary).", DG_NAME, sid(DG_ID), DG_DEV, DG_DEV > 1 ? "s" : "")
	u = ""
	if (dg_mfu())
		u = sprintf("Step MFU %s%s%s (Roofline)", DG_MFU, DG_BMFU != "" ? ", GPU-busy MFU " DG_BMFU : "", \
		    DG_MMOD != "" && index(DG_MMOD, DG_NAME " ") != 1 ? " of " DG_MMOD : "")
	if (util_calc() && UT_BUSY != "")
		u = u (u == "" ? "GPU busy " : "; GPU busy ") UT_BUSY " of the steady state (Summary)"
	if (u != "") s[++nl] = u "."
	if ((b = dg_bound()) != "")
		s[++nl] = sprintf("The step is bound by %s: %s of its critical path (compute %s, comm %s, peer wait %s, gap %s)%s (Critical path).", \
		    dg_bound_words(b), dg_cp_share(b), dg_cp_share("compute"), dg_cp_share("communication"), \
		    dg_cp_share("peer wait"), dg_cp_share("gap"), DG_HOST ? "; some steps are host-bound" : "")
	if (dg_top())
		s[++nl] = sprintf("The top thunk is %s (%s), %s ms in %d executions (Thunks)%s%s.", DG_TOP, sid(DG_TOPID), \
		    grouped(fixed(DG_TOPMS, 3)), DG_TOPEX, DG_OPNAME != "" ? ", op_name " DG_OPNAME : "", \
		    DG_SRC != "" ? ", source " DG_SRC " (Flame graphs)" : "")
	if (dg_wait())
		s[++nl] = sprintf("Device %s makes the others wait, %s ms per step%s (Alignment and stragglers).", DG_WDEV, \
		    grouped(fixed(DG_WCAUSED, 3)), DG_WCOLL == "" ? "" : sprintf(", most in %s (%s B), %s ms per step", \
		    DG_WCOLL, thousands(DG_WSIZE), grouped(fixed(DG_WCMS, 3))))
	if (dg_whatif())
		s[++nl] = sprintf("The largest what-if is %s: %s ms (%s%%) off the step (What-if).", DG_WIF, \
		    grouped(fixed(DG_WIFMS, 3)), sprintf("%.2f", DG_WIFPCT))
	printf "\nDiagnosis\n\n" > TXT
	for (i = 1; i <= nl; i++) printf "  %s\n", s[i] > TXT
	printf "<section id=\"diagnosis\">\n<h2>Diagnosis</h2>\n<p class=\"lead\">" > HTML
	for (i = 1; i <= nl; i++) printf "%s%s", (i > 1 ? " " : ""), html(s[i]) > HTML
	printf "</p>\n</section>\n" > HTML
}

# dg_wait_line(): under the straggler table, the collective where the
# peers wait for the device that makes them wait (dg_wait), for the
# module that does the work.
function dg_wait_line() {
	if (!dg_wait() || DG_WCOLL == "") return
	pr(sprintf("%s (%s): its peers wait for device %s most in %s (%s B), %s ms per step.\n", DG_NAME, sid(DG_ID), \
	    DG_WDEV, DG_WCOLL, thousands(DG_WSIZE), grouped(fixed(DG_WCMS, 3))))
	para_out()
}
