# cmdbuf.awk (with tsv.awk): the XLA command buffers (CUDA graphs) of a
# thunk frame and their share of its GPU time.  A command buffer row is
# one whose CommandBuffer column equals its Name; without that column
# (frames of an older nsysjax), one named command_buffer_N.  Rows whose
# CommandBuffer names another thunk are the operations inside a command
# buffer (node-level SQLite exports): their time counts for it, as
# InnerMs.  Output: ProgramId, Name, Executions (of the command buffer),
# ProjDurMs (its rows and its inner rows), InnerMs, Fraction (of all the
# frame's thunk time), largest first; times exact, summed in ns
# (tsv.awk's ns and ms).

FNR == 1 { header(); cn = need("Name"); cp = need("ProgramId"); cd = need("ProjDurMs")
	   cc = ("CommandBuffer" in c) ? c["CommandBuffer"] : 0; next }
{
	t = ns($cd); total += t
	cb = cc ? $cc : ($cn ~ /^command_buffer_[0-9]+$/ ? $cn : "")
	if (cb == "") next
	k = $cp SUBSEP cb
	if (!(k in tot)) { keys[++nk] = k; prog[k] = $cp; name[k] = cb }
	tot[k] += t
	if (cb == $cn) execs[k]++
	else inner[k] += t
}
END {
	if (failed) exit 1
	# Largest first (insertion sort: a handful of command buffers).
	for (i = 2; i <= nk; i++)
		for (j = i; j > 1 && (tot[keys[j - 1]] < tot[keys[j]] ||
		    (tot[keys[j - 1]] == tot[keys[j]] && keys[j - 1] > keys[j])); j--) {
			x = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = x }
	print "ProgramId", "Name", "Executions", "ProjDurMs", "InnerMs", "Fraction"
	for (i = 1; i <= nk; i++) {
		k = keys[i]
		print prog[k], name[k], execs[k] + 0, ms(tot[k]), ms(inner[k] + 0),
		    num(total > 0 ? tot[k] / total : 0)
	}
}
