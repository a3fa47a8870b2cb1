# Helpers shared by the pipelines' awk programs (POSIX awk; run with
# -f lib/tsv.awk -f PROGRAM).  Fields are tab separated; the first line of
# every file is its header.

BEGIN { FS = OFS = "\t" }

# header(): call on a file's first line: c[NAME] is the field number of
# column NAME in the current file.
function header(   i) {
	split("", c)
	for (i = 1; i <= NF; i++) c[$i] = i
}

# need(NAME): the field number of column NAME, or an error naming it.
function need(name) {
	if (!(name in c)) {
		printf "%s: missing column '%s'\n", FILENAME, name > "/dev/stderr"
		failed = 1
		exit 1
	}
	return c[name]
}

# num(x): x as the shortest decimal that reads back as x, never in
# exponent notation.
function num(x,   p, s, m, e, d) {
	for (p = 15; p < 17; p++) {
		s = sprintf("%." p "g", x)
		if (s + 0 == x) break
	}
	if (p == 17) s = sprintf("%.17g", x)
	if (s !~ /e/) return s
	m = s; sub(/e.*/, "", m); e = s; sub(/.*e/, "", e); e += 0
	d = index(m, ".") ? length(m) - index(m, ".") : 0
	d -= e
	return sprintf("%." (d > 0 ? d : 0) "f", x)
}

# Mean and sample standard deviation of group k in two passes, as
# pandas: add(k, x) keeps x; then n[k], avg(k) and sd(k) ("" below two
# values).  For small groups: the values stay in memory.
function add(k, x) { v[k, n[k]++] = x; sum[k] += x }
function avg(k) { return sum[k] / n[k] }
function sd(k,   m, i, q) {
	if (n[k] < 2) return ""
	m = sum[k] / n[k]
	for (i = 0; i < n[k]; i++) q += (v[k, i] - m) * (v[k, i] - m)
	return num(sqrt(q / (n[k] - 1)))
}

# ns(s): a time in ms, a decimal with at most six places as the frames
# write them, as an integer number of ns, exactly (below 2^53 ns).
function ns(s,   neg, i, w, f) {
	neg = sub(/^-/, "", s)
	i = index(s, ".")
	if (i) { w = substr(s, 1, i - 1); f = substr(s, i + 1) } else { w = s; f = "" }
	f = substr(f "000000", 1, 6)
	return (neg ? -1 : 1) * (w * 1000000 + f)
}

# ms(t): an integer number of ns t as ms, exactly: at most six places,
# no trailing zeros.
function ms(t,   neg, r, s) {
	neg = t < 0; if (neg) t = -t
	r = t % 1000000
	s = sprintf("%.0f.%06.0f", (t - r) / 1000000, r)
	sub(/0+$/, "", s); sub(/\.$/, "", s)
	return (neg ? "-" : "") s
}
