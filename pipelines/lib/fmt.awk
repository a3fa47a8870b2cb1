# fmt.awk: numbers and tables for people (report.txt, report.html), used
# with tsv.awk-free programs: `awk -f fmt.awk -f report.awk`.  Nothing
# here is for machines: the TSV files stay the record.

# unc(M, S): M with its uncertainty S in the reference's notation
# (Python uncertainties, "value(uncertainty)"): S rounded to two
# significant digits when its three leading digits are 100-354, else to
# one (954-999 round up to 1000, two digits: the Particle Data Group's
# rule), M rounded to the same last digit, S written in units of that
# digit ("126.5(7)", "127.13(13)") or, when it spans the decimal point,
# with it ("53.4(1.9)").  Where the reference would switch to exponent
# notation it stays plain ("700(1200)").  An empty or NaN S gives M alone.
function unc(m, s,    e, lead, nd, q, unit, su, dec) {
	if (m == "")
		return "--"
	if (s == "" || s != s + 0 || tolower(s) ~ /nan/)
		return plain(m)
	s = s < 0 ? -s : s
	if (s == 0)
		return plain(m)
	e = floor10(s)
	lead = int(s / 10 ^ (e - 2) + 1e-9)
	if (lead <= 354)
		nd = 2
	else if (lead <= 949)
		nd = 1
	else {
		e++
		nd = 2
		s = 10 ^ e
	}
	q = e - nd + 1
	unit = 10 ^ q
	su = sprintf("%.0f", s / unit) + 0
	if (q >= 0)
		return sprintf("%.0f(%.0f)", sprintf("%.0f", m / unit) * unit, su * unit)
	dec = -q
	m = sprintf("%." dec "f", m)
	if (su * unit >= 1)
		return sprintf("%s(%." dec "f)", m, su * unit)
	return sprintf("%s(%d)", m, su)
}

# floor10(X): the exponent of X's leading digit (X > 0).
function floor10(x,    e) {
	e = 0
	while (x >= 10) { x /= 10; e++ }
	while (x < 1) { x *= 10; e-- }
	return e
}

# plain(X): X in at most 6 significant digits, never in exponent notation.
function plain(x,    e, d) {
	if (x == "" || x == 0)
		return x == "" ? "--" : "0"
	e = floor10(x < 0 ? -x : x)
	d = 5 - e
	if (d < 0)
		d = 0
	x = sprintf("%." d "f", x)
	if (x ~ /\./)
		sub(/\.?0+$/, "", x)
	return x
}

# fixed(X, D): X with D decimals; "--" for an empty field.
function fixed(x, d) { return x == "" ? "--" : sprintf("%." d "f", x) }

# pct(F, D): the fraction F as a percentage with D decimals.
function pct(f, d) { return f == "" ? "--" : sprintf("%." d "f%%", 100 * f) }

# thousands(N): an integer with thousands separators ("3,244,032").
function thousands(n,    s, out) {
	s = sprintf("%.0f", n)
	out = ""
	while (length(s) > 3) {
		out = "," substr(s, length(s) - 2) out
		s = substr(s, 1, length(s) - 3)
	}
	return s out
}

# grouped(S): the decimal S (as fixed() writes it) with thousands
# separators in its integer part ("344,725.01"); "--" for an empty field.
function grouped(s,    neg, i, w, fr) {
	if (s == "" || s == "--")
		return "--"
	neg = sub(/^-/, "", s)
	i = index(s, ".")
	w = i ? substr(s, 1, i - 1) : s
	fr = i ? substr(s, i) : ""
	return (neg ? "-" : "") thousands(w) fr
}

# facts(): report.sh's table of module facts (modules/facts.tsv, the file
# FACTS; nothing when unset or absent) read once, by ProgramId: fname
# (Name), fdev (Devices), fproc (Processes), fby (CompiledBy), fbar (set
# for a barrier module), fcms (CompileMs).
function facts(    line, n, x, h, i, k) {
	if (FACTS == "" || FACTS_READ)
		return
	FACTS_READ = 1
	while ((getline line < FACTS) > 0) {
		n = split(line, x, "\t")
		if (!FH) { for (i = 1; i <= n; i++) FC[x[i]] = i; FH = 1; continue }
		k = x[FC["ProgramId"]]
		fname[k] = x[FC["Name"]]; fdev[k] = x[FC["Devices"]]; fproc[k] = x[FC["Processes"]]
		fby[k] = x[FC["CompiledBy"]]; fcms[k] = x[FC["CompileMs"]]
		if (x[FC["Barrier"]] == 1) fbar[k] = 1
	}
	close(FACTS)
}

# bytes(N): a size in B, KiB, MiB or GiB with 3 significant digits.
function bytes(n,    u, i) {
	split("B KiB MiB GiB TiB", u, " ")
	for (i = 1; n >= 1024 && i < 5; i++)
		n /= 1024
	return i == 1 ? sprintf("%d B", n) : sprintf("%.3g %s", n, u[i])
}

# A table: cell(R, C, TEXT) fills it (row 0 is the header), align(C, "l")
# makes column C left-aligned (numbers are right-aligned by default),
# table_print(INDENT, FILE) writes it to FILE with two spaces between
# columns and a rule under the header, table_html(FILE) as HTML, and
# table_clear() empties it.
function cell(r, c, text) {
	T[r, c] = text
	if (r + 1 > TR) TR = r + 1
	if (c + 1 > TC) TC = c + 1
}
function align(c, how) { TA[c] = how }
function table_print(indent, file,    r, c, w, line, s, pad) {
	for (c = 0; c < TC; c++) {
		w[c] = 0
		for (r = 0; r < TR; r++)
			if (length(T[r, c]) > w[c]) w[c] = length(T[r, c])
	}
	for (r = 0; r < TR; r++) {
		line = indent
		for (c = 0; c < TC; c++) {
			s = T[r, c]
			pad = sprintf("%" (w[c] - length(s)) "s", "")
			if (TA[c] == "l")
				s = c == TC - 1 ? s : s pad
			else
				s = pad s
			line = line (c ? "  " : "") s
		}
		print line > file
		if (r == 0) {
			line = indent
			for (c = 0; c < TC; c++)
				line = line (c ? "  " : "") sprintf("%" w[c] "s", "") 
			gsub(/ /, "-", line)
			print indent substr(line, length(indent) + 1) > file
		}
	}
}
function table_clear() {
	split("", T); split("", TA); TR = TC = 0
}

# html(S): S with &, < and > escaped, for a page.
function html(s) {
	gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
	return s
}

# table_html(FILE): the table as an HTML <table> to FILE, the header row
# as <th>, right-aligned columns in class "n".
function table_html(file,    r, c, tag, cls) {
	print "<table>" > file
	for (r = 0; r < TR; r++) {
		tag = r == 0 ? "th" : "td"
		printf "<tr>" > file
		for (c = 0; c < TC; c++) {
			cls = TA[c] == "l" ? "" : " class=\"n\""
			printf "<%s%s>%s</%s>", tag, cls, html(T[r, c]), tag > file
		}
		print "</tr>" > file
	}
	print "</table>" > file
}
