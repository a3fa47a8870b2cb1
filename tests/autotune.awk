# The compile frame of a run whose autotuner pass had the name OLD
# (XlaPass:#name=OLD,...#: triton-autotuner, gemm-fusion-autotuner), as
# the reference folds the pass of XLA of 2026 (XlaPass:#name=autotuner,
# JAX-Toolbox e00e463b remove_autotuning_detail): the pass's row named
# XlaAutotunerCompilation, NumChild 0, DurChildMs 0, DurNonChildMs its
# DurMs, and the rows below it (RangeStack prefix, same profile) dropped.
# Reads the frame twice:
#	awk -v old=triton-autotuner -f tests/autotune.awk compile.tsv compile.tsv
BEGIN { FS = OFS = "\t" }
FNR == 1 {
	for (i = 1; i <= NF; i++)
		c[$i] = i
	if (NR != FNR)
		print
	next
}
function pass(n) {
	return index(n, "XlaPass:#name=" old ",") == 1 ||
	    index(n, "XlaPass:#name=" old "#") == 1
}
NR == FNR {
	if (pass($c["Name"]))
		fold[$c["ProfileName"], $c["RangeStack"]] = 1
	next
}
{
	s = $c["RangeStack"]
	for (k = length(s); k > 1; k--)
		if (substr(s, k, 1) == ":" &&
		    (($c["ProfileName"], substr(s, 1, k - 1)) in fold))
			next
	if (pass($c["Name"])) {
		$c["Name"] = "XlaAutotunerCompilation"
		$c["NumChild"] = 0
		$c["DurChildMs"] = 0
		$c["DurNonChildMs"] = $c["DurMs"]
	}
	print
}
