# The total ProjDurMs of each ProgramId of a module frame: "ProgramId TAB
# total" lines, no header, in no particular order.
FNR == 1 { header(); id = need("ProgramId"); dur = need("ProjDurMs"); next }
{ t[$id] += $dur }
END {
	if (failed) exit 1
	for (k in t) print k, num(t[k])
}
