# Writes the cost lines of `nsysjax-stats -t costs` (second file: columns
# ProgramId, Name, CostLine, sorted by ProgramId then Name) to
# DIR/ProgramId.pbtxt (DIR in the environment: a path is data, -v would
# read escape sequences), and prints, unsorted, one
# index row per module of the steady module frame (first file):
# ProgramId, Name, ProjDurMs (its total), Costs (lines written),
# EmptyNames (lines with an empty name), File (SHOW/ProgramId.pbtxt:
# SHOW, in the environment, is the directory's name once complete; DIR
# when not set).  A module without costs
# gets no file and a note on stderr (-v PROG=name); empty names are
# counted there too, after the index's rows.
BEGIN { DIR = ENVIRON["DIR"]; SHOW = ("SHOW" in ENVIRON) ? ENVIRON["SHOW"] : DIR }
FNR == 1 && ++file == 1 { header(); id = need("ProgramId"); nm = need("Name"); dur = need("ProjDurMs"); next }
FNR == 1 { next }
file == 1 {
	if (!($id in name)) name[$id] = $nm
	total[$id] += ns($dur)
	next
}
$1 != p {
	if (p != "") close(path[p])
	p = $1; path[p] = DIR "/" p ".pbtxt"
	printf "" > path[p]
}
{
	print $3 > path[p]
	lines[p]++
	if (index($3, "name: \"\" ")) empty[p]++
}
END {
	if (failed) exit 1
	if (p != "") close(path[p])
	for (p in name) {
		if (p in path) {
			print p, name[p], ms(total[p]), lines[p], empty[p] + 0, SHOW "/" p ".pbtxt"
			ne += empty[p]; nl += lines[p]; if (empty[p]) nf++
		} else
			printf "%s: %s (%s): no HLO facts or no steady thunk: no file\n", PROG, name[p], p > "/dev/stderr"
	}
	if (ne)
		printf "%s: %d of %d names empty in %d files (-i: the instruction names instead)\n", PROG, ne, nl, nf > "/dev/stderr"
}
