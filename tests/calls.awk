# Two files of one folder that call each other (tests/layers.sh): reads
# C files, and prints a line for each such pair.  A function is defined
# where its name and "(" start a line and the line before, its type,
# does not start with "static" (the BSD style of the tree); a call is a
# name followed by "(".  Comments, strings and character constants are
# left out first.
FNR == 1 { incomment = 0; prev = "" }
{
	line = $0
	out = ""
	while (line != "") {
		if (incomment) {
			i = index(line, "*/")
			if (i == 0) { line = ""; break }
			line = substr(line, i + 2); incomment = 0; continue
		}
		i = index(line, "/*")
		if (i == 0) { out = out line; break }
		out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
	}
	gsub(/"([^"\\]|\\.)*"/, "\"\"", out)
	gsub(/'([^'\\]|\\.)*'/, "0", out)
	sub(/\/\/.*/, "", out)
	if (out ~ /^[A-Za-z_][A-Za-z0-9_]*\(/ && prev !~ /^static/ && prev ~ /^[A-Za-z]/ && prev !~ /[;,{}]$/) {
		name = out; sub(/\(.*/, "", name)
		def[name] = FILENAME
		indef = name
	}
	s = out
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(s, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
		calls[FILENAME SUBSEP name] = 1
		s = substr(s, RSTART + RLENGTH)
	}
	if (out != "") prev = out
}
function dir(f,   d) { d = f; sub(/\/[^\/]*$/, "", d); return d }
END {
	for (k in calls) {
		split(k, p, SUBSEP); f = p[1]; name = p[2]
		if (!(name in def)) continue
		g = def[name]
		if (g == f || dir(g) != dir(f)) continue
		uses[f SUBSEP g] = name
	}
	for (k in uses) {
		split(k, p, SUBSEP); f = p[1]; g = p[2]
		if (f < g && ((g SUBSEP f) in uses))
			printf "%s and %s call each other (%s calls %s, %s calls %s)\n", f, g, f, uses[k], g, uses[g SUBSEP f]
	}
}
