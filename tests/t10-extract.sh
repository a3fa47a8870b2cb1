#!/bin/sh
# nsysjax-extract against the reference's golden frames, and on bad input.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
K5=ProgramId,ProgramExecution,Name,ThunkExecution,Device
K3=ProgramId,ProgramExecution,Device
BW=AlgorithmBandwidthGBPerSec,BusBandwidthGBPerSec
NAMES=proc0,proc1,proc2,proc3

# golden_set DIR GOLDSUFFIX OURDIR: compare the four frames.
golden_set() {
	check "$1 thunk$2" cmpframe "$GOLD/$1/thunk$2.tsv" "$3/thunk.tsv" $K5
	check "$1 module$2" cmpframe "$GOLD/$1/module$2.tsv" "$3/module.tsv" $K3
	check "$1 communication$2" cmpframe "$GOLD/$1/communication$2.tsv" "$3/communication.tsv" $K5 $BW
	check "$1 compile$2" cmpframe "$GOLD/$1/compile$2.tsv" "$3/compile.tsv" ProfileName,RangeId
}

# invariants OURDIR: durations >= 0, hidden <= the thunk's whole time.
invariants() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["ProjDurMs"] < 0 || $c["ProjDurHiddenMs"] < 0 { bad++ }
	    $c["Communication"] == 0 && $c["ProjDurHiddenMs"] != 0 { bad++ }
	    END { exit bad > 0 }' "$1/thunk.tsv"
}

# combine OUT ZIP...: lay out ZIPs as nsys-jax-combine does: a member equal
# in every input once, any other as MEMBER/<input stem>.
combine() {
	out=$1; shift
	for z in "$@"; do
		s=$(basename "$z" .zip); mkdir -p "$T/u/$s"
		abs=$(cd "$(dirname "$z")" && pwd)/$(basename "$z")
		(cd "$T/u/$s" && unzip -qo "$abs")
	done
	(cd "$T/u" && find . -type f | sed 's|^\./[^/]*/||' | sort -u) > "$T/members"
	while read -r m; do
		same=1 first=""
		for z in "$@"; do
			f=$T/u/$(basename "$z" .zip)/$m
			if [ ! -f "$f" ]; then same=0; elif [ -z "$first" ]; then first=$f
			elif ! cmp -s "$f" "$first"; then same=0; fi
		done
		if [ $same -eq 1 ]; then
			mkdir -p "$(dirname "$out/$m")" && cp "$first" "$out/$m"
		else
			for z in "$@"; do
				s=$(basename "$z" .zip)
				[ -f "$T/u/$s/$m" ] || continue
				mkdir -p "$out/$m" && cp "$T/u/$s/$m" "$out/$m/$s"
			done
		fi
	done < "$T/members"
}

# hlo_facts OURDIR: the hlo frame agrees with every golden thunk's
# Communication flag and every golden communication row's MessageSize,
# Collective and CollectiveSize, per (ProgramId, Name).
hlo_facts() {
	awk -F'\t' '
	FILENAME == ARGV[1] && FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	FILENAME == ARGV[1] { k = $h["ProgramId"] SUBSEP $h["Name"]; comm[k] = $h["Communication"]
		coll[k] = $h["Collective"]; size[k] = $h["MessageSize"]; n[k] = $h["CollectiveSize"]; next }
	FNR == 1 { delete g; for (i = 1; i <= NF; i++) g[$i] = i; next }
	{ k = $g["ProgramId"] SUBSEP $g["Name"]
	  if (!(k in comm)) { print "no hlo row: " $g["ProgramId"], $g["Name"]; bad++; next }
	  if ("Communication" in g && comm[k] != ($g["Communication"] == "True")) {
		print "Communication differs: " $g["Name"]; bad++ }
	  if ("MessageSize" in g && (size[k] != $g["MessageSize"] ||
	      coll[k] != $g["Collective"] || n[k] != $g["CollectiveSize"])) {
		print "collective facts differ: " $g["Name"]; bad++ }
	  checked++ }
	END { if (!checked) print "nothing checked"; exit bad > 0 || !checked }
	' "$1/hlo.tsv" "$GOLD/combined4/thunk_clean.tsv" \
	    "$GOLD/combined4/communication_clean.tsv"
}

# stack_tree OURDIR: parents precede their children, every stack id of the
# hlo frame names a frame, and frames have text.
stack_tree() {
	awk -F'\t' '
	FILENAME == ARGV[1] { if (FNR > 1) { n++; if ($2 != "" && $2 + 0 >= $1 + 0) bad++
		if ($3 == "") bad++ }; next }
	FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ m = split($h["StackFrameIds"], ids, " ")
	  for (i = 1; i <= m; i++) { if (ids[i] + 0 >= n) bad++; used++ } }
	END { exit bad > 0 || used == 0 }
	' "$1/stackframes.tsv" "$1/hlo.tsv"
}

if have_data; then
	mkdir -p "$T/p0" "$T/p0k" "$T/c4" "$T/c4k"
	check "extract proc0" $X -n proc0 -o "$T/p0" "$DATA/pax_fsdp4_4proc_proc0.zip"
	golden_set proc0 _clean "$T/p0"
	for f in thunk module communication compile; do
		$X -k -n proc0 -f $f "$DATA/pax_fsdp4_4proc_proc0.zip" > "$T/p0k/$f.tsv" || notok "extract -k $f"
	done
	golden_set proc0 "" "$T/p0k"
	check "extract combined4" $X -n $NAMES -o "$T/c4" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip
	golden_set combined4 _clean "$T/c4"
	for f in thunk module communication compile; do
		$X -k -n $NAMES -f $f "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > "$T/c4k/$f.tsv" || notok "extract -k $f"
	done
	golden_set combined4 "" "$T/c4k"
	check "hlo facts combined4" hlo_facts "$T/c4"
	check "stack frame tree combined4" stack_tree "$T/c4"
	check "invariants proc0" invariants "$T/p0"
	check "invariants combined4" invariants "$T/c4"
	# Two copies of the run share every device: the second's traces
	# differ from the first's in one byte of the writer's name
	# (created_by, which no reader looks at), since the same trace in
	# any container is one profile given twice.  A copy's
	# communication is hidden by its own compute only (frames.h), so
	# each row keeps its hidden time, and ProjDurMs stays >= 0: summed
	# over both copies' compute it was twice the run's, 696 rows
	# negative.  Rows compared without ThunkExecution, which now counts
	# both copies; the workers give -j 0's bytes.
	mkdir "$T/cp"
	for i in 0 1 2 3; do
		cp "$DATA/pax_fsdp4_4proc_proc$i.zip" "$T/cp/c0p$i.zip"
		mkdir "$T/cp/u$i"
		(cd "$T/cp/u$i" && unzip -q "$DATA/pax_fsdp4_4proc_proc$i.zip" &&
		    LC_ALL=C sed -i 's/parquet-cpp-arrow version /parquet-cpp-arrow versioN /' \
		        nvtx_gpu_proj_trace/trace.parquet &&
		    zip -qr "$T/cp/c1p$i.zip" .) || notok "copy $i: unzip, edit, zip"
		rm -rf "$T/cp/u$i"
	done
	$X -j 0 -o "$T/cp0" "$T"/cp/c0p?.zip "$T"/cp/c1p?.zip 2> /dev/null || notok "extract two copies -j 0"
	$X -j 2 -o "$T/cp2" "$T"/cp/c0p?.zip "$T"/cp/c1p?.zip 2> /dev/null || notok "extract two copies -j 2"
	check "two copies: invariants" invariants "$T/cp0"
	hidden_rows() {
		awk -F'\t' -v times="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    { for (k = 0; k < times; k++) print $c["ProgramId"], $c["ProgramExecution"], $c["Name"],
		      $c["Device"], $c["ProjDurMs"], $c["ProjDurHiddenMs"] }' "$1/thunk.tsv" | sort
	}
	hidden_rows "$T/c4" 2 > "$T/cp.want"
	hidden_rows "$T/cp0" 1 > "$T/cp.got"
	check "two copies: each row keeps the run's hidden time" cmp "$T/cp.want" "$T/cp.got"
	bad=''
	for f in thunk module communication hlo stackframes heap; do
		cmp -s "$T/cp0/$f.tsv" "$T/cp2/$f.tsv" || bad="$bad $f"
	done
	[ -z "$bad" ] && ok || notok "two copies, -j 2: differs from -j 0's:$bad"

	# A .zip and its extracted directory give the same bytes.
	mkdir -p "$T/dir/pax_fsdp4_4proc_proc1"
	(cd "$T/dir/pax_fsdp4_4proc_proc1" && unzip -q "$DATA/pax_fsdp4_4proc_proc1.zip")
	for f in thunk module communication compile hlo stackframes; do
		$X -f $f "$DATA/pax_fsdp4_4proc_proc1.zip" > "$T/zip.$f" &&
		$X -f $f "$T/dir/pax_fsdp4_4proc_proc1" > "$T/dir.$f" &&
		cmp -s "$T/zip.$f" "$T/dir.$f" && ok || notok "zip and directory differ: $f"
	done
	# An nsys-jax-combine archive (members that differ per process stored
	# as NAME/<profile>) gives what the four archives give.
	combine "$T/comb" "$DATA"/pax_fsdp4_4proc_proc[0-3].zip
	for f in thunk module communication compile; do
		$X -f $f -n $NAMES "$T/comb" > "$T/comb.$f" &&
		cmp -s "$T/comb.$f" "$T/c4/$f.tsv" && ok || notok "combined archive differs: $f"
	done
	# Same input, same bytes.
	$X -f thunk "$DATA/pax_fsdp4_4proc_proc1.zip" | cmp -s - "$T/zip.thunk" && ok || notok "output not deterministic"
	# The decoded dumps kept from one profile for the next (extract.h,
	# extract_dumpcache): processes 0 and 1 dump the step module alike,
	# 3 its own variant.  In the order 0, 3, 1 the read-ahead of 1 (-j 0,
	# -j 1) skips decompressing the dump it knows from 0, which 3 does
	# not use and so is dropped: 1 decompresses it itself.  Every order
	# and -j gives the same frames (but compile's, in profile order).
	P=$DATA/pax_fsdp4_4proc_proc
	$X -j 0 -o "$T/abn" "${P}0.zip" "${P}1.zip" "${P}3.zip" 2> /dev/null || notok "extract 0 1 3"
	for j in 0 1 2; do
		$X -j $j -o "$T/aba$j" "${P}0.zip" "${P}3.zip" "${P}1.zip" 2> /dev/null || notok "extract 0 3 1 -j $j"
		for f in thunk module communication hlo stackframes heap; do
			cmp -s "$T/abn/$f.tsv" "$T/aba$j/$f.tsv" || { notok "order 0 3 1, -j $j: $f.tsv differs"; continue 2; }
		done
		ok
	done
	# No exponent notation anywhere.
	if awk -F'\t' '{ for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+[eE][-+]?[0-9]+$/) bad++ }
	    END { exit bad > 0 }' "$T/c4/thunk.tsv" "$T/c4/module.tsv" \
	    "$T/c4/communication.tsv" "$T/c4/compile.tsv"; then ok
	else notok "exponent notation in output"; fi
else
	skip "golden comparisons: $DATA not found"
fi

# expect_error STATUS PATTERN CMD...: CMD exits STATUS, prints one stderr
# line matching PATTERN, and writes nothing to stdout.

expect_error 2 usage $X
expect_error 2 "unknown frame" $X -f nosuch x.zip
expect_error 2 usage $X --bogus x.zip
expect_error 1 "nosuch.zip: cannot open" $X "$T/nosuch.zip"
printf 'hello' > "$T/notzip.zip"
expect_error 1 "notzip.zip: not a zip archive" $X "$T/notzip.zip"
mkdir -p "$T/empty"
expect_error 1 "not an nsys-jax archive" $X "$T/empty"
if have_data; then
	Z=$DATA/pax_fsdp4_4proc_proc0.zip
	head -c 1000000 "$Z" > "$T/trunc.zip"
	expect_error 1 "trunc.zip: " $X "$T/trunc.zip"
	# An extracted archive with damaged members.
	B=$T/bad; mkdir -p "$B"; (cd "$B" && unzip -q "$Z")
	cp -R "$B" "$T/xz"
	head -c 100000 "$B/report_nvtx_pushpop_trace.csv.xz" > "$T/xz/report_nvtx_pushpop_trace.csv.xz"
	expect_error 1 "report_nvtx_pushpop_trace.csv.xz: truncated xz data" $X -f compile "$T/xz"
	cp -R "$B" "$T/pq"
	head -c 1000 "$B/nvtx_gpu_proj_trace/trace.parquet" > "$T/pq/nvtx_gpu_proj_trace/trace.parquet"
	expect_error 1 "nvtx_gpu_proj_trace/trace.parquet: " $X "$T/pq"
	cp -R "$B" "$T/pg"
	# Flip bytes inside the first data page (past the 4-byte magic).
	printf '\377\377\377\377\377\377\377\377' | dd of="$T/pg/nvtx_gpu_proj_trace/trace.parquet" bs=1 seek=40 conv=notrunc 2>/dev/null
	expect_error 1 "trace.parquet: " $X "$T/pg"
	cp -R "$B" "$T/nohlo"
	rm "$T/nohlo"/dump/module_0040.*after_optimizations.hlo.pb.xz
	expect_error 1 "no HLO dump for module pjit__wrapped_step_fn (program_id 40) in dump/" $X "$T/nohlo"
	# Its thunks are marked: ProgramId 6747f229-missing-hlo (the
	# FNV-1a 32 of "pjit__wrapped_step_fn", by hand), no Communication.
	if $X -m "$T/nohlo" > "$T/o" 2> "$T/e" &&
	    awk -F'\t' '$1 == "6747f229-missing-hlo" && $13 == "" { n++ }
	        $1 ~ /missing/ && $1 != "6747f229-missing-hlo" { bad++ }
	        END { exit !(n > 0 && !bad) }' "$T/o" &&
	    [ "$(grep -c "6747f229-missing-hlo" "$T/e")" -eq 1 ]; then ok
	else notok "--allow-missing-hlo"; fi
	cp -R "$B" "$T/cut"
	head -c 3000 "$B/thread-metadata.parquet" > "$T/cut/thread-metadata.parquet"
	expect_error 1 "thread-metadata.parquet: " $X "$T/cut"
fi
done_testing t10-extract
