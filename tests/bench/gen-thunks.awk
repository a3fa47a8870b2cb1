# gen-thunks.awk: a large thunk frame for `make bench`, made by repeating
# a real one (generated at bench time, never committed).  Copy R of the
# input keeps every column but ProgramExecution + R * (its max + 1),
# ThunkExecution + R * (its max + 1) and OrigStartMs, ProjStartMs + R *
# SPAN (the input's time span plus a second), so that collective
# instances stay distinct and time keeps increasing.  Stops after ROWS
# data rows.  With -v MODULES=FILE -v MOUT=FILE, the module frame FILE of
# the same run is repeated as often, with the same shifts of
# ProgramExecution, OrigStartMs and ProjStartMs, into MOUT: the module
# frame of the large run.
#
#	awk -v ROWS=10000000 -f tests/bench/gen-thunks.awk thunk.tsv > big.tsv
BEGIN {
	FS = OFS = "\t"
	if (ROWS == "")
		ROWS = 10000000
}

# ms as written to integer ns (exact: no float multiplication of the
# decimal part)
function ns(s,   neg, i, f) {
	neg = s ~ /^-/
	sub(/^-/, "", s)
	i = s
	f = ""
	if (index(s, ".")) {
		i = substr(s, 1, index(s, ".") - 1)
		f = substr(s, index(s, ".") + 1)
	}
	f = substr(f "000000", 1, 6)
	return (neg ? -1 : 1) * (i * 1000000 + f)
}

function ms(t,   a) {
	a = t < 0 ? -t : t
	return sprintf("%s%d.%06d", t < 0 ? "-" : "", int(a / 1000000), a % 1000000)
}

# The columns rewritten, in column order (the thunk frame has all
# four): kind "e" (an execution counter, + R * (max + 1)) or "t" (a time,
# + R * SPAN).  One-dimensional arrays below: awk's A[i, j] builds a
# string key per access, which doubled the run time.
function want(name, k) {
	if (!(name in c)) {
		print "gen-thunks.awk: no column " name > "/dev/stderr"
		exit 1
	}
	col[++m] = c[name]
	kind[m] = k
}

NR == 1 {
	for (i = 1; i <= NF; i++)
		c[$i] = i
	want("ProgramExecution", "e")
	want("ThunkExecution", "e")
	want("OrigStartMs", "t")
	want("ProjStartMs", "t")
	for (i = 2; i <= m; i++)	# insertion sort by column
		for (j = i; j > 1 && col[j - 1] > col[j]; j--) {
			t = col[j]; col[j] = col[j - 1]; col[j - 1] = t
			t = kind[j]; kind[j] = kind[j - 1]; kind[j - 1] = t
		}
	print
	next
}

# The text between rewritten fields J and J + 1 (0: the line start;
# M + 1: the line end), TABs included.
function piece(j,   p, i, from, to) {
	from = j > 0 ? col[j] + 1 : 1
	to = j < m ? col[j + 1] : NF + 1
	p = ""
	for (i = from; i < to; i++)
		p = p (i > 1 ? "\t" : "") $i
	return p (j < m && to > 1 ? "\t" : "")
}

function value(j,   v) {
	v = kind[j] == "t" ? ns($col[j]) : $col[j] + 0
	if (kind[j] == "e" && v > max[j])
		max[j] = v
	if (kind[j] == "t" && (!seen || v < lo))
		lo = v
	if (kind[j] == "t" && (!seen || v > hi))
		hi = v
	if (kind[j] == "t")
		seen = 1
	return v
}

# Each row is kept as the text around the rewritten fields (split once
# here, not for each copy) and their values.
{
	row[++n] = $0
	p0[n] = piece(0); p1[n] = piece(1); p2[n] = piece(2)
	p3[n] = piece(3); p4[n] = piece(4)
	v1[n] = value(1); v2[n] = value(2); v3[n] = value(3); v4[n] = value(4)
}

function shift(j, v, r) {
	return kind[j] == "t" ? ms(v + r * span) : v + r * (max[j] + 1)
}

END {
	span = hi - lo + 1000000000
	out = 0
	for (r = 0; out < ROWS && n > 0; r++) {
		for (i = 1; i <= n && out < ROWS; i++) {
			if (r == 0)
				print row[i]
			else
				print p0[i] shift(1, v1[i], r) p1[i] \
				    shift(2, v2[i], r) p2[i] shift(3, v3[i], r) \
				    p3[i] shift(4, v4[i], r) p4[i]
			out++
		}
	}
	if (MODULES != "")
		modules(r)
}

# The module frame, COPIES times.
function modules(copies,   line, f, h, i, j, k, r, e, os, ps, pe) {
	for (j = 1; j <= m; j++)
		if (col[j] == c["ProgramExecution"])
			pe = j
	if ((getline line < MODULES) <= 0) {
		print "gen-thunks.awk: " MODULES ": no header" > "/dev/stderr"
		exit 1
	}
	print line > MOUT
	split(line, f, "\t")
	for (i in f)
		h[f[i]] = i
	e = h["ProgramExecution"]; os = h["OrigStartMs"]; ps = h["ProjStartMs"]
	n = 0
	while ((getline line < MODULES) > 0)
		mrow[++n] = line
	for (r = 0; r < copies; r++)
		for (i = 1; i <= n; i++) {
			split(mrow[i], f, "\t")
			if (r > 0) {
				f[e] += r * (max[pe] + 1)
				f[os] = ms(ns(f[os]) + r * span)
				f[ps] = ms(ns(f[ps]) + r * span)
			}
			line = f[1]
			for (k = 2; k in f; k++)
				line = line "\t" f[k]
			print line > MOUT
		}
}
