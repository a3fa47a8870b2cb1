# Compare two TSV frames as sets of rows keyed by the columns named in
# KEYS (comma separated): the reference's golden output (first file) and
# ours (second).  Columns are matched by name; every golden column must
# exist in ours.  Numbers agree within 1e-9 relative or ABS (default
# 1e-6, i.e. 1 ns in ms).  Golden booleans True/False equal 1/0 and
# golden "nan" equals an empty field.  Prints each difference (at most
# 20) and a summary line; exit status 1 if anything differs.
#
# Golden columns named in SKIP (comma separated) are not compared; those
# in REL are compared by relative error only (for values far below ABS).
#
#	awk -v KEYS=ProgramId,Name -f tests/cmpframe.awk golden.tsv ours.tsv
BEGIN {
	FS = "\t"; if (ABS == "") ABS = 1e-6; nk = split(KEYS, key, ",")
	ns = split(SKIP, s, ","); for (i = 1; i <= ns; i++) skip[s[i]] = 1
	nr = split(REL, s, ","); for (i = 1; i <= nr; i++) rel[s[i]] = 1
}
FNR == 1 {
	file++
	for (i = 1; i <= NF; i++) col[file, $i] = i
	ncol[file] = NF
	for (i = 1; i <= NF; i++) name[file, i] = $i
	if (file == 2)
		for (i = 1; i <= ncol[1]; i++)
			if (!((2, name[1, i]) in col) && !(name[1, i] in skip)) {
				print "missing column " name[1, i]; bad++
			}
	next
}
function norm(v) {
	if (v == "True") return 1
	if (v == "False") return 0
	if (v == "nan") return ""
	return v
}
function rowkey(f,   k, i) {
	k = ""
	for (i = 1; i <= nk; i++) k = k SUBSEP norm($(col[f, key[i]]))
	return k
}
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function differ(a, b, relonly,   d, m) {
	a = norm(a); b = norm(b)
	if (a == b) return 0
	if (!isnum(a) || !isnum(b)) return 1
	d = a - b; if (d < 0) d = -d
	m = a < 0 ? -a : a
	return (relonly || d > ABS) && d > 1e-9 * m
}
file == 1 {
	k = rowkey(1)
	if (k in gold) { dupg++ }
	gold[k] = $0; ngold++
	next
}
{
	k = rowkey(2); nours++
	if (!(k in gold)) { if (shown++ < 20) print "extra row: " $0; bad++; next }
	if (k in seen) { if (shown++ < 20) print "duplicate row: " $0; bad++; next }
	seen[k] = 1
	split(gold[k], g, "\t")
	for (i = 1; i <= ncol[1]; i++) {
		c = col[2, name[1, i]]
		if (c && !(name[1, i] in skip) && differ(g[i], $c, name[1, i] in rel)) {
			if (shown++ < 20)
				print "differs: " name[1, i] ": golden " g[i] ", ours " $c " in " gold[k]
			bad++
		}
	}
}
END {
	for (k in gold) if (!(k in seen)) { if (shown++ < 20) print "missing row: " gold[k]; bad++ }
	if (dupg) { print dupg " duplicate golden keys"; bad++ }
	printf "compared %d golden rows with %d rows: %d differences\n", ngold, nours, bad
	exit bad > 0
}
