# messages.awk, run by report.sh on the messages of its jobs: each line
# with the new report's directory (ENVIRON["NEW"]) written as the one
# the user named (ENVIRON["FINAL"]), and each work file of a pipeline
# (".../nsysjax-pipeline.XXXXXX/NAME", a path up to a space, colon,
# quote or newline) as "intermediate file NAME".  Literal strings (index, substr):
# the paths may hold any character but NUL.
# Line by line, in time linear in the lines (appending every line to one
# string copies it each time: quadratic).  A NEW that holds K newlines
# spans K + 1 lines: then a window of K + 2 lines is kept, so that an
# occurrence beginning in its first line is seen whole; occurrences are
# replaced left to right, as in the text taken whole.  A work file's
# path ends at a newline: the rewritten text is named line by line.
BEGIN {
	new = ENVIRON["NEW"]; final = ENVIRON["FINAL"]
	rep = new != "" && final != ""
	k = rep ? split(new, _parts, "\n") - 1 : 0
	nb = 0; buf = ""; pend = ""
}
!k { print intermediates(rep ? replace_all($0, new, final) : $0); next }
{
	buf = (nb ? buf "\n" : "") $0
	nb++
	drain(0)
}
END {
	if (!k || NR == 0) exit
	drain(1)
	print intermediates(pend)
}
# drain(ALL): the window's text given to emit while it holds more than
# K + 1 lines (ALL: until it is empty): an occurrence of NEW that begins
# in its first line made FINAL, else that line as it is.
function drain(all,    i, e) {
	while (nb > k + 1 || (all && nb > 0)) {
		i = index(buf, new)
		e = index(buf, "\n")
		if (i > 0 && (e == 0 || i <= e)) {
			emit(substr(buf, 1, i - 1) final)
			buf = substr(buf, i + length(new))
			nb -= k
		} else if (e == 0) {
			emit(buf)
			buf = ""; nb = 0
		} else {
			emit(substr(buf, 1, e))
			buf = substr(buf, e + 1); nb--
		}
	}
}
# emit(S): rewritten text, printed up to its last newline, work files
# named; the rest kept (pend) until its line ends.
function emit(s,    t) {
	pend = pend s
	if (!match(pend, /\n[^\n]*$/))
		return
	t = substr(pend, 1, RSTART - 1)
	pend = substr(pend, RSTART + 1)
	print intermediates(t)
}
# replace_all S FROM TO: S with each FROM, left to right, made TO.
function replace_all(s, from, to,    out, i) {
	out = ""
	while ((i = index(s, from)) > 0) {
		out = out substr(s, 1, i - 1) to
		s = substr(s, i + length(from))
	}
	return out s
}
# intermediates S: each work file of a pipeline in S named as one.
function intermediates(s,    out, m, i, rest, j) {
	out = ""
	while (match(s, /[^ :'"\n]*\/nsysjax-pipeline\.[A-Za-z0-9]*\/[^ :'"\n]*/)) {
		m = substr(s, RSTART, RLENGTH)
		i = index(m, "/nsysjax-pipeline.")
		rest = substr(m, i + length("/nsysjax-pipeline."))
		j = index(rest, "/")
		out = out substr(s, 1, RSTART - 1) "intermediate file " substr(rest, j + 1)
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
