# topmods.awk (with tsv.awk and sort.awk): the ProgramIds of the top
# modules of a module frame, largest total ProjDurMs first (ties by
# ProgramId), one per line: as the reference's notebook, modules are
# taken while those already taken make less than 99% of the total,
# summed, sorted and taken in one process.
FNR == 1 { header(); id = need("ProgramId"); dur = need("ProjDurMs"); next }
{ t[$id] += $dur }
function before(x, y) {
	return t[x] > t[y] || (t[x] == t[y] && (x "") < (y ""))
}
END {
	if (failed)
		exit 1
	nid = 0
	for (k in t)
		ids[++nid] = k
	msort(ids, nid)
	# The total in the order taken, as it was summed after sort(1).
	for (i = 1; i <= nid; i++)
		tot += t[ids[i]]
	for (i = 1; i <= nid && seen < 0.99; i++) {
		print ids[i]
		seen += t[ids[i]] / tot
	}
}
