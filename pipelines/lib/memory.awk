# The tables of pipelines/memory.sh, unsorted, from the heap frame (first
# file) and the module frame (second file): one row per heap simulator
# trace of each ProgramId with its peak (stdout), and (SERIES=FILE in the
# environment: paths are data, -v would read escape sequences) the
# notebook's plotted series of the top modules (TOP=FILE, one ProgramId
# per line): per trace the empty heap (Point 0), then each event that
# moved to a new Point.  Byte counts are copied as written, never
# recomputed (awk's doubles would print large ones in exponent notation).
BEGIN {
	TOP = ENVIRON["TOP"]; SERIES = ENVIRON["SERIES"]
	while ((getline line < TOP) > 0) top[line] = 1
	close(TOP)
	print "ProgramId", "Name", "Trace", "Events", "PeakHeapBytes", "PeakEvent",
	    "PeakInstruction", "TopModule"
	print "ProgramId", "Trace", "Point", "HeapBytes", "Event", "Instruction" > SERIES
}
FNR == 1 {
	header(); file++
	id = need("ProgramId")
	if (file == 1) {
		tr = need("Trace"); ev = need("Event"); hb = need("HeapBytes")
		pt = need("Point"); ins = need("Instruction")
	} else
		nm = need("Name")
	next
}
file == 1 {
	k = $id SUBSEP $tr
	if (!(k in events)) { order[++ntraces] = k; peak[k] = -1 }
	events[k]++
	if ($hb + 0 > peak[k] + 0) { peak[k] = $hb; at[k] = $ev; inst[k] = $ins }
	if (!($id in top)) next
	if (!(k in last)) { print $id, $tr, 0, 0, "", "" > SERIES; last[k] = 0 }
	if ($pt != last[k]) { print $id, $tr, $pt, $hb, $ev, $ins > SERIES; last[k] = $pt }
	next
}
!($id in name) { name[$id] = $nm }
END {
	if (failed) exit 1
	for (i = 1; i <= ntraces; i++) {
		split(order[i], f, SUBSEP)
		print f[1], name[f[1]], f[2], events[order[i]], peak[order[i]], at[order[i]],
		    inst[order[i]], (f[1] in top) ? 1 : 0
	}
}
