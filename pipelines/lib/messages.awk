# messages.awk, run by report.sh on the messages of its jobs: each line
# with the new report's directory (ENVIRON["NEW"]) written as the one
# the user named (ENVIRON["FINAL"]), and each work file of a pipeline
# (".../nsysjax-pipeline.XXXXXX/NAME", a path up to a space, colon,
# quote or newline) as "intermediate file NAME".  Literal strings (index, substr):
# the paths may hold any character but NUL.
# The lines are taken whole, then rewritten: a path may hold a newline.
BEGIN { new = ENVIRON["NEW"]; final = ENVIRON["FINAL"] }
{ all = all sep $0; sep = "\n" }
END {
	if (NR == 0) exit
	if (new != "" && final != "") all = replace_all(all, new, final)
	print intermediates(all)
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
