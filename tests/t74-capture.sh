#!/bin/sh
# Captures as users make them: nsys SQLite exports without XLA dumps (a
# warm JAX compilation cache), reported through make run, report.sh and
# nsysjax-report; the frames' metadata beside them.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
R=pipelines/report.sh
export NSYSJAX_BIN=$BIN
EX=${EXAMPLE:-build/example/profile}
SQ=${EX%/profile}/sqlite

if [ -f "$SQ/rank0/rank0.sqlite" ]; then
	# The example's exports without their dump/ directories.
	mkdir -p "$T/nd"
	cp "$SQ/rank0/rank0.sqlite" "$SQ/rank1/rank1.sqlite" "$T/nd/"
	# The modules the run has, from the dump files' names
	# (module_NNNN.NAME.*): their program_ids.
	ids=$(ls "$EX/rank0/dump" | sed -n 's/^module_0*\([0-9][0-9]*\)\..*/\1/p' | sort -un | tr '\n' ' ')
	[ "$ids" = "3 7 " ] && ok || notok "example program_ids: '$ids'"
	# Placeholders, one per module, distinct in their first 12 characters
	# (which name a module's files in the pipelines).
	"$X" -m -o "$T/fr" "$T/nd/rank0.sqlite" "$T/nd/rank1.sqlite" 2> "$T/e" && ok || notok "-m: $(cat "$T/e")"
	got=$(awk -F'\t' 'NR > 1 { print $1 }' "$T/fr/module.tsv" | sort -u | tr '\n' ' ')
	# <FNV-1a 32 of the module's name>-missing-hlo: jit_init's
	# 8b5dcff3, jit_train_step's a0aad680 (computed by hand).
	[ "$got" = "8b5dcff3-missing-hlo a0aad680-missing-hlo " ] && ok || notok "placeholders: '$got'"
	# A process that compiled the two in the other order (program_ids 3
	# and 7 exchanged in its export) gives the frames of the original:
	# XLA's per-process counter does not name a module, its name does.
	# Its clocks then align on the same instances (the planted
	# corrections of truth.tsv).
	if need sqlite3; then
		cp "$T/nd/rank1.sqlite" "$T/nd/swap1.sqlite"
		sqlite3 "$T/nd/swap1.sqlite" "UPDATE StringIds SET value = replace(replace(replace(value,
		    'program_id=3#', 'program_id=X#'), 'program_id=7#', 'program_id=3#'), 'program_id=X#', 'program_id=7#');"
		"$X" -m -o "$T/frs" "$T/nd/rank0.sqlite" "$T/nd/swap1.sqlite" 2> "$T/e" && ok || notok "-m, swapped: $(cat "$T/e")"
		for f in module thunk communication; do
			cmp -s "$T/fr/$f.tsv" "$T/frs/$f.tsv" && ok || notok "swapped program_ids: $f.tsv differs: $(diff "$T/fr/$f.tsv" "$T/frs/$f.tsv" | head -3)"
		done
		want=$(awk -F'\t' '$1 == "correction_ms.0" { a = $2 } $1 == "correction_ms.1" { b = $2 } END { print "0 " a "|1 " b "|" }' "$EX/truth.tsv")
		got=$("$BIN/nsysjax-align" -o "$T/corrs" "$T/frs/communication.tsv" > /dev/null 2>&1; awk -F'\t' 'NR > 1 { printf "%s %s|", $1, $2 }' "$T/corrs" 2> /dev/null)
		[ "$got" = "$want" ] && ok || notok "swapped program_ids: alignment '$got', want '$want'"
		# nsysjax-diff matches placeholders by module name, not by id.
		"$BIN/nsysjax-diff" -q -s -b "$T/fr/module.tsv" -a "$T/frs/module.tsv" "$T/fr/thunk.tsv" "$T/frs/thunk.tsv" 2> /dev/null |
		    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		    $1 != "(all)" { n++; if ($c["Match"] != "name" || $c["ChangePercent"] != 0) bad = 1 } END { exit bad || n != 2 }' &&
		    ok || notok "diff of identical runs without dumps: not 2 modules matched by name at 0%"
	fi
	p12=$(awk -F'\t' 'NR > 1 { print substr($1, 1, 12) }' "$T/fr/module.tsv" | sort -u | wc -l)
	[ "$p12" -eq 2 ] && ok || notok "placeholders' first 12 characters: $p12 distinct"
	for p in $got; do set -- "$@" -p "$p"; done
	"$BIN/nsysjax-fold" -o "$T/fold" "$@" -H "$T/fr/hlo.tsv" -M "$T/fr/module.tsv" -S "$T/fr/stackframes.tsv" "$T/fr/thunk.tsv" > /dev/null 2> "$T/e" && ok || notok "nsysjax-fold -p both: $(cat "$T/e")"
	set --
	# Collectives by their names: each thunk the dumps call communication
	# (the same exports with dump/) is communication without them, with
	# the dump's Collective and no sizes (unknown, empty); every other
	# thunk, compute by its dump, is unknown (empty) without it.
	"$X" -o "$T/frd" "$SQ/rank0" "$SQ/rank1" 2> /dev/null
	# key (ProgramExecution, Name, ThunkExecution, Device) and the four
	# communication columns, by name from the header.
	comm_cols() { awk -F'\t' -v derive="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    { k = $c["ProgramExecution"] "|" $c["Name"] "|" $c["ThunkExecution"] "|" $c["Device"]
	      v = $c["Communication"] "|" $c["Collective"] "|" $c["MessageSize"] "|" $c["CollectiveSize"]
	      if (derive) v = ($c["Communication"] == 1) ? "1|" $c["Collective"] "||" : "|||"
	      print k, v }' "$1" | sort; }
	comm_cols "$T/frd/thunk.tsv" 1 > "$T/cexp"
	comm_cols "$T/fr/thunk.tsv" 0 > "$T/cgot"
	n=$(grep -c ' 1|' "$T/cexp")
	[ "$n" -gt 0 ] && cmp -s "$T/cexp" "$T/cgot" && ok || notok "collectives by name: $n with dumps; $(diff "$T/cexp" "$T/cgot" | head -3)"
	[ "$(($(wc -l < "$T/fr/communication.tsv") - 1))" -eq "$n" ] && ok || notok "communication frame without dumps: not the $n collectives"
	# They align the clocks without dumps: the generator's planted
	# corrections (truth.tsv), from the same instances.
	"$BIN/nsysjax-align" -o "$T/corr" "$T/fr/communication.tsv" > /dev/null 2> "$T/e"
	want=$(awk -F'\t' '$1 == "correction_ms.0" { a = $2 } $1 == "correction_ms.1" { b = $2 } $1 == "correction_instances" { n = $2 }
	    END { print "0 " a " " n "|1 " b " " n "|" }' "$EX/truth.tsv")
	got=$(awk -F'\t' 'NR > 1 { printf "%s %s %s|", $1, $2, $3 }' "$T/corr" 2> /dev/null)
	[ "$got" = "$want" ] && ok || notok "alignment without dumps: '$got', want '$want' $(cat "$T/e")"
	# Their times without sizes: the hidden time per collective is the
	# one with dumps; no bandwidth (no size), and waits without one.
	"$BIN/nsysjax-collectives" -s hidden "$T/frd/communication.tsv" > "$T/hid.want" 2> /dev/null
	"$BIN/nsysjax-collectives" -s hidden "$T/fr/communication.tsv" > "$T/hid.got" 2> "$T/e" &&
	    [ "$(wc -l < "$T/hid.want")" -eq 5 ] && cmp -s "$T/hid.want" "$T/hid.got" && ok || notok "hidden time without dumps: $(cat "$T/e"; diff "$T/hid.want" "$T/hid.got" | head -3)"
	"$BIN/nsysjax-collectives" -s bandwidth "$T/fr/communication.tsv" 2> /dev/null | awk 'END { exit NR != 1 }' && ok || notok "bandwidth without sizes: not the header alone"
	"$BIN/nsysjax-collectives" -s waits "$T/fr/communication.tsv" 2> "$T/e" | awk -F'\t' 'NR > 1 && $3 != "" { bad = 1 } END { exit bad || NR < 2 }' && ok || notok "waits without sizes: a MessageSize, or no rows"
	# An unknown CollectiveSize is no size: no instance is short of it.
	! grep -q 'fewer devices than their CollectiveSize' "$T/e" && ok || notok "waits without sizes: $(cat "$T/e")"
	# The compile frame names a module without a dump by its placeholder,
	# so the warm-up rule skips its compilation and first communicating
	# execution as with dumps: the steady executions of jit_train_step are
	# truth.tsv's executions less its init executions, per device.
	"$BIN/nsysjax-warmup" -c "$T/fr/compile.tsv" --communication-from "$T/fr/communication.tsv" "$T/fr/module.tsv" > "$T/steady" 2> "$T/e"
	want=$(awk -F'\t' '$1 == "executions.jit_train_step" { e = $2 } $1 == "init_executions.jit_train_step" { i = $2 } $1 == "devices" { d = $2 }
	    END { print d * (e - i) " " i }' "$EX/truth.tsv")
	got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; m = -1; next }
	    $c["Name"] == "jit_train_step" { n++; if (m < 0 || $c["ProgramExecution"] < m) m = $c["ProgramExecution"] }
	    END { print n + 0 " " m }' "$T/steady")
	[ "$got" = "$want" ] && ok || notok "steady executions without dumps: '$got', want '$want' $(cat "$T/e")"
	# The critical path without dumps: a collective known by its name
	# spans every device (its group is in the dump only), here both, as
	# the dumps' CollectiveSize 2 says: each execution's breakdown
	# (StepMs .. HostBound) is the one with dumps, peer wait included.
	"$BIN/nsysjax-align" -o "$T/corrd" "$T/frd/communication.tsv" > /dev/null 2>&1
	bd() { "$BIN/nsysjax-critpath" -b -c "$2" -m "$1/module.tsv" -H "$1/hlo.tsv" "$1/thunk.tsv" 2> /dev/null | cut -f2- ; }
	bd "$T/frd" "$T/corrd" > "$T/bd.want"; bd "$T/fr" "$T/corr" > "$T/bd.got"
	pw=$(awk -F'\t' 'NR > 1 { s += $8 } END { print (s > 0) }' "$T/bd.want")
	[ "$pw" = 1 ] && cmp -s "$T/bd.want" "$T/bd.got" && ok || notok "critical path without dumps: $(diff "$T/bd.want" "$T/bd.got" | head -3)"

	# report.sh: complete (exit 0) without dumps, missing dumps a note.
	sh $R -q -o "$T/out" "$T/nd/rank0.sqlite" "$T/nd/rank1.sqlite" > "$T/rep" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ -s "$T/out/report.txt" ] && [ -s "$T/out/report.html" ] && ok || notok "report.sh without dumps: exit $rc: $(head -3 "$T/e")"
	grep -q 'no HLO dump for module jit_train_step' "$T/e" && ok || notok "report.sh: no note of the missing dump"
	# Its frames carry the metadata, and a report made from them shows it.
	[ -s "$T/out/frames/meta.tsv" ] && ok || notok "report: no frames/meta.tsv"
	sh $R -q -o "$T/out2" "$T/out/frames" > "$T/rep2" 2> /dev/null &&
	    grep -q 'Run metadata' "$T/rep2" && grep -q 'mkexport' "$T/rep2" && ok || notok "report of the frames: no metadata"
	# -X passes options to nsysjax-extract: -X -d DIR gives the dumps back,
	# and the real ProgramIds (the fingerprints of truth.tsv) with them.
	sh $R -q -X -d -X "$SQ/rank0/dump" -o "$T/out3" "$T/nd/rank0.sqlite" > /dev/null 2> "$T/e" &&
	    grep -q "$(awk -F'\t' '$1 == "fingerprint.jit_train_step" { print $2 }' "$EX/truth.tsv")" "$T/out3/frames/module.tsv" &&
	    ! grep -q 'missing-hlo' "$T/out3/frames/module.tsv" && ok || notok "-X -d: $(head -3 "$T/e")"
	sh $R -X -o -X x -o "$T/out4" "$T/nd/rank0.sqlite" > /dev/null 2> "$T/e"; [ $? -eq 2 ] && ok || notok "-X -o: not a usage error"
	# The installed script, the same options.
	"$BIN/nsysjax-report" -q -o "$T/out5" "$T/nd/rank0.sqlite" "$T/nd/rank1.sqlite" > /dev/null 2> "$T/e" &&
	    [ -s "$T/out5/report.txt" ] && ok || notok "nsysjax-report without dumps: $(head -3 "$T/e")"
	"$BIN/nsysjax-report" --help | grep -q -- '-X' && ok || notok "nsysjax-report --help: no -X"
	# make run: EXTRACT_OPTS, each word one -X.
	make -s -n -o all run INPUTS=a.sqlite EXTRACT_OPTS='-k --hlo-dump=d' > "$T/mk" 2>&1
	grep -q 'report.sh -X -k -X --hlo-dump=d -o out a.sqlite$' "$T/mk" && ok || notok "make run EXTRACT_OPTS: $(cat "$T/mk")"
else
	skip "no example exports ($SQ): make example"
fi
# A zip re-made on macOS (Finder's Compress): the profile under a top
# folder, __MACOSX/ resource forks, .DS_Store files, data descriptors with
# the compressed size (only) in the local headers, which libzip's
# consistency check refused.  Made here from the shared archive with zip
# (streamed: data descriptors) and the sizes written in by hand; the
# frames must be the original's, byte for byte.
# le N OFF FILE: the N-byte little-endian unsigned at OFF of FILE.
le() { od -An -tu1 -j "$2" -N "$1" "$3" | awk '{ for (i = NF; i >= 1; i--) v = v * 256 + $i } END { printf "%d\n", v }'; }
# members ZIP: a line per central directory entry: its local header's
# offset, flags, the compressed size's 4 bytes, its name (the end record
# found in the last 22 bytes: no archive comment).
members() {
	_e=$(($(wc -c < "$1") - 22))
	[ "$(le 4 $_e "$1")" -eq 101010256 ] || return 1
	od -An -tu1 -v -j "$(le 4 $((_e + 16)) "$1")" -N "$(le 4 $((_e + 12)) "$1")" "$1" |
	awk 'function u(o, n,  v, i) { v = 0; for (i = n - 1; i >= 0; i--) v = v * 256 + b[o + i]; return v }
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	END { for (o = 0; o + 46 <= n && u(o, 4) == 33639248; o += 46 + u(o + 28, 2) + u(o + 30, 2) + u(o + 32, 2)) {
		name = ""; for (i = 0; i < u(o + 28, 2); i++) name = name sprintf("%c", b[o + 46 + i])
		printf "%d %d %d %d %d %d %s\n", u(o + 42, 4), u(o + 8, 2), b[o + 20], b[o + 21], b[o + 22], b[o + 23], name } }'
}
# macos_sizes ZIP: each member with a data descriptor (flag bit 3) gets
# its compressed size from the central directory in its local header
# (offset 18), CRC and size left 0, as macOS's Archive Utility writes.
macos_sizes() {
	members "$1" > "$T/members" || return 1
	while read -r _lh _fl _b0 _b1 _b2 _b3 _name; do
		[ $((_fl & 8)) -ne 0 ] || continue
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' "$_b0" "$_b1" "$_b2" "$_b3")" |
		    dd of="$1" bs=1 seek=$((_lh + 18)) conv=notrunc 2> /dev/null || return 1
	done < "$T/members"
}
Z=$DATA/pax_fsdp4_4proc_proc0.zip
if [ -f "$Z" ] && need zip unzip od dd; then
	P=pax_fsdp4_4proc_proc0
	mkdir -p "$T/mac/$P" "$T/mac/__MACOSX/$P/dump" "$T/macz" "$T/macd"
	(cd "$T/mac/$P" && unzip -q "$Z") && printf 'Bud1' > "$T/mac/$P/.DS_Store" && printf 'Bud1' > "$T/mac/$P/dump/.DS_Store" &&
	    printf 'Mac OS X' > "$T/mac/__MACOSX/$P/._.DS_Store" && printf 'Mac OS X' > "$T/mac/__MACOSX/$P/dump/._x.hlo.pb.xz" &&
	    (cd "$T/mac" && zip -q -r - "$P" __MACOSX) | cat > "$T/macz/$P.zip" && macos_sizes "$T/macz/$P.zip" &&
	    unzip -tq "$T/macz/$P.zip" > /dev/null && ok || notok "macOS re-zip: not made"
	# The patch took: the trace's local header has bit 3 and the
	# compressed size the central directory gives (read by hand here).
	set -- $(members "$T/macz/$P.zip" | awk '$7 ~ /nvtx_gpu_proj_trace\/trace.parquet$/')
	[ $# -eq 7 ] && [ $(($2 & 8)) -ne 0 ] && [ "$(le 4 $(($1 + 18)) "$T/macz/$P.zip")" -eq $(($3 + 256 * ($4 + 256 * ($5 + 256 * $6)))) ] &&
	    [ "$(le 4 $(($1 + 14)) "$T/macz/$P.zip")" -eq 0 ] && ok || notok "macOS re-zip: the trace's local header is not as macOS writes it"
	TRACE_LH=${1:-0}
	set --
	"$X" -o "$T/orig" "$Z" 2> /dev/null
	"$X" -o "$T/rez" "$T/macz/$P.zip" 2> "$T/e" && ok || notok "macOS re-zip refused: $(cat "$T/e")"
	n=0
	# profiles.tsv names the file that holds each profile (its size and
	# hash: the re-zip is another file), so it is no frame to compare.
	for f in "$T/orig"/*.tsv; do
		[ "${f##*/}" != profiles.tsv ] || continue
		cmp -s "$f" "$T/rez/${f##*/}" || { n=$((n + 1)); echo "  differs: ${f##*/}"; }
	done
	[ $n -eq 0 ] && [ "$(ls "$T/orig" | wc -l)" -eq "$(ls "$T/rez" | wc -l)" ] && ok || notok "macOS re-zip: $n frames differ"
	# Unzipped by the user (top folder and all): a directory reads the same.
	(cd "$T/macd" && unzip -q "$T/macz/$P.zip")
	"$X" -f thunk "$T/macd" 2> /dev/null | cmp -s - "$T/orig/thunk.tsv" && ok || notok "unzipped macOS re-zip: thunk frame differs"
	# A zip cut short is called truncated, not "not a zip".
	head -c 1000000 "$Z" > "$T/cut.zip"
	expect_error 1 "cut.zip: truncated zip archive" "$X" "$T/cut.zip"
	# A member whose bytes are damaged is named: 16 bytes of the trace's
	# data overwritten (its data after the 30-byte local header, name and
	# extra field).
	cp "$T/macz/$P.zip" "$T/dmg.zip"
	off=$((TRACE_LH + 30 + $(le 2 $((TRACE_LH + 26)) "$T/dmg.zip") + $(le 2 $((TRACE_LH + 28)) "$T/dmg.zip") + 200))
	printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' | dd of="$T/dmg.zip" bs=1 seek=$off conv=notrunc 2> /dev/null
	expect_error 1 "dmg.zip:nvtx_gpu_proj_trace/trace.parquet: truncated or corrupt member" "$X" "$T/dmg.zip"
else
	skip "no shared archive or no zip"
fi
# The GNU parallel recipe (one -o per process, then --merge) carries the
# run's metadata: the same bytes as -f meta of all the processes.
if [ -d "$EX/rank0" ] && need parallel; then
	sh pipelines/extract-parallel.sh -j 2 -o "$T/par" "$EX/rank0" "$EX/rank1" > /dev/null 2>&1
	"$X" -f meta "$EX/rank0" "$EX/rank1" | cmp -s - "$T/par/meta.tsv" && ok || notok "extract-parallel.sh: no meta.tsv of the run"
fi

# The capture check (nsysjax-extract --check): each finding on a generated
# input that has that defect, nothing on the example's clean run.
C="$X --check"
# line N TEXT FILE: FILE has a line of the list holding TEXT (fixed).
has_line() { grep -q -- "$1" "$2"; }
if [ -d "$EX/rank0" ]; then
	$C "$EX/rank0" "$EX/rank1" > "$T/ck" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/ck" ] && ok || notok "clean example: exit $rc, list '$(cat "$T/ck")'"
	# The report of the clean run has no list.
	sh $R -q -o "$T/rex" "$EX/rank0" "$EX/rank1" > /dev/null 2>&1
	! grep -q 'What this capture cannot show' "$T/rex/report.txt" && ok || notok "clean example report: a capture list"
	# One process of two: its collectives span the example's 2 devices.
	$C "$EX/rank0" > "$T/ck" 2> /dev/null
	has_line "processes missing: collectives span $(awk -F'\t' '$1 == "devices" { print $2 }' "$EX/truth.tsv") devices but the profiles hold 1" "$T/ck" &&
	    ok || notok "one process: '$(cat "$T/ck")'"
fi
# nocoll IN OUT: a copy of export IN whose collectives' thunks are named
# as no XLA collective (hlo_op=x_all_gather_start, ...): without dumps,
# nothing says they are collectives.
nocoll() {
	cp "$1" "$2" && sqlite3 "$2" "UPDATE StringIds SET value = replace(replace(value, 'hlo_op=all-', 'hlo_op=x_all_'), 'hlo_op=reduce-scatter', 'hlo_op=x_reduce_scatter');"
}
if [ -f "$T/nd/rank0.sqlite" ]; then
	# No dumps at all: the collectives their names reveal align the
	# clocks, so that is no finding.
	$C "$T/nd/rank0.sqlite" "$T/nd/rank1.sqlite" > "$T/ck" 2> /dev/null
	has_line "no HLO dumps for all 2 of 2 modules (jit_init, jit_train_step)" "$T/ck" && has_line "xla_dump_to" "$T/ck" && ok || notok "no dumps: '$(cat "$T/ck")'"
	! has_line "no collectives to align clocks" "$T/ck" && ok || notok "no dumps, collectives by name: '$(cat "$T/ck")'"
	# ... unless their names are not XLA's collectives'.
	if need sqlite3; then
		mkdir -p "$T/nc"
		nocoll "$T/nd/rank0.sqlite" "$T/nc/rank0.sqlite" && nocoll "$T/nd/rank1.sqlite" "$T/nc/rank1.sqlite"
		$C "$T/nc/rank0.sqlite" "$T/nc/rank1.sqlite" > "$T/ck" 2> /dev/null
		has_line "no collectives to align clocks: the 2 devices'" "$T/ck" && ok || notok "no collectives: '$(cat "$T/ck")'"
	fi
	# The report says so at its top (after the diagnosis, before the
	# sections), once.
	awk '/^What this capture cannot show \(nsysjax-extract --check\)$/ { c = NR } /^Times of the steady state/ { t = NR } END { exit !(c && c < t) }' "$T/out/report.txt" &&
	    [ "$(grep -c 'no HLO dumps for' "$T/out/report.txt")" -eq 1 ] && grep -q '<li>no HLO dumps for' "$T/out/report.html" &&
	    ok || notok "report without dumps: no capture list at its top"
	# Dumps for some modules: jit_init's removed.
	mkdir -p "$T/sd0" "$T/sd1"
	for r in 0 1; do cp "$SQ/rank$r/rank$r.sqlite" "$T/sd$r/" && cp -R "$SQ/rank$r/dump" "$T/sd$r/" && rm -f "$T/sd$r"/dump/module_0003.*; done
	$C "$T/sd0" "$T/sd1" > "$T/ck" 2> /dev/null
	has_line "no HLO dumps for 1 of 2 modules (jit_init)" "$T/ck" && ok || notok "some dumps: '$(cat "$T/ck")'"
fi
if [ -d "$EX/rank0" ] && [ -f "$DATA/pax_fsdp4_4proc_proc0.zip" ]; then
	# Mixed runs: the example (its GPU in truth.tsv) and a PAX process.
	$C "$EX/rank0" "$DATA/pax_fsdp4_4proc_proc0.zip" > "$T/ck" 2> /dev/null
	has_line "mixed runs: the profiles come from 2 GPU models ($(awk -F'\t' '$1 == "gpu.name" { print $2 }' "$EX/truth.tsv")" "$T/ck" && ok || notok "mixed GPUs: '$(cat "$T/ck")'"
	has_line "mixed runs: no module ran in all 2 processes" "$T/ck" && ok || notok "mixed programs: '$(cat "$T/ck")'"
fi
if have_data && need unzip xz; then
	# The shared run compiled its step differently on one process: the
	# fingerprints in the dumps of pjit__wrapped_step_fn (read here).
	for i in 0 1 2 3; do
		z=$DATA/pax_fsdp4_4proc_proc$i.zip
		unzip -p "$z" "$(unzip -Z1 "$z" | grep 'pjit__wrapped_step_fn.*after_optimizations.hlo.pb.xz$')" | xz -dc |
		    grep -ao 'fingerprint_before_lhs.\{0,40\}' | tr -dc '[:print:]' | grep -o '[0-9a-f]\{32\}'
	done | sort -u | wc -l > "$T/nfp"
	$C "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > "$T/ck" 2> /dev/null
	if [ "$(cat "$T/nfp")" -gt 1 ]; then
		has_line "processes compiled the step differently: 1 module (pjit__wrapped_step_fn)" "$T/ck" && ok || notok "autotuning split: '$(cat "$T/ck")'"
	else
		! has_line "compiled the step differently" "$T/ck" && ok || notok "no split, but: '$(cat "$T/ck")'"
	fi
fi
MK=${MKEXPORT:-${BIN%/bin}/sqlite/mkexport}
if [ -x "$MK" ]; then
	# A command buffer traced per graph beside an ordinary thunk: 610 ns
	# of graph against 390 ns of kernel, 61.0% of GPU time; with its
	# dump (an instruction loop_add_fusion.1).  Traced per node, its
	# kernels open it: no finding.
	for k in graph node; do
		mkdir -p "$T/cb$k"
		{ sed '/^graph\|^kernel\|^memset/d' "tests/sqlite/seeds/cmdbuf-$k.spec"
		  echo "nvtx 4 59 0x1000064000064 2000 2100 - 1 Thunk:#hlo_op=loop_add_fusion.1#"
		  echo "call 0x1000064000064 2010 2020 3 0"
		  echo "kernel 11000 11390 3 0x1000064000000 0 7 - loop_add_fusion_1"
		  echo "hlo 5 jit_f loop_add_fusion.1:fusion"
		  grep '^graph\|^kernel\|^memset' "tests/sqlite/seeds/cmdbuf-$k.spec"; } > "$T/cb$k/s.spec"
		"$MK" spec "$T/cb$k/s.spec" "$T/cb$k/x.sqlite" || notok "mkexport $k"
	done
	$C "$T/cbgraph/x.sqlite" > "$T/ck" 2> /dev/null
	has_line "CUDA graphs traced per graph: no per-operation time inside 1 command buffer holding 61.0% of GPU time. Fix: nsys profile --cuda-graph-trace=node" "$T/ck" &&
	    ok || notok "per graph: '$(cat "$T/ck")'"
	$C "$T/cbnode/x.sqlite" > "$T/ck" 2> /dev/null
	! has_line "traced per graph" "$T/ck" && ok || notok "per node: '$(cat "$T/ck")'"
else
	skip "no mkexport ($MK)"
fi
if [ -x "$MK" ]; then
	# No NVTX (nsys -t cuda): a launch and its kernel, no NVTX_EVENTS
	# table; extraction refuses it, the check names it first, with the
	# fix, and checks the other inputs as they are.
	printf 'thread 0x1000064000064 main\ncall 0x1000064000064 300 310 1 0\nkernel 2000 2100 1 0x1000064000000 0 7 -\nomit NVTX\n' |
	    "$MK" spec - "$T/nonvtx.sqlite" || notok "mkexport nonvtx"
	$C "$T/nonvtx.sqlite" > "$T/ck" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ "$(wc -l < "$T/ck")" -eq 1 ] &&
	    has_line "^1. no NVTX: all 1 of 1 profiles ($T/nonvtx.sqlite) hold GPU work but no NVTX ranges (nsys ran without -t nvtx): no thunks and no XLA modules, so no per-operation or per-module times. Fix: nsys profile -t cuda,nvtx" "$T/ck" &&
	    ok || notok "no NVTX: exit $rc, '$(cat "$T/ck" "$T/e")'"
	expect_error 1 "nonvtx.sqlite: GPU work but no NVTX ranges (no NVTX_EVENTS rows): nsys ran without -t nvtx, so there are no XLA thunks or modules" "$X" -o "$T/nonvtx.d" "$T/nonvtx.sqlite"
	if [ -f "$T/nd/rank0.sqlite" ]; then
		$C "$T/nonvtx.sqlite" "$T/nd/rank0.sqlite" "$T/nd/rank1.sqlite" > "$T/ck" 2> /dev/null
		has_line "^1. no NVTX: 1 of 3 profiles" "$T/ck" && has_line "^2. no HLO dumps for all 2 of 2 modules" "$T/ck" &&
		    ok || notok "no NVTX beside others: '$(cat "$T/ck")'"
	fi
fi
# A real capture without -t nvtx (an MPI+CUDA code: kernels, no
# NVTX_EVENTS table, as sqlite3 says).
S=$SHARED/data/nsys-sqlite/perlmutter-cloverleaf-cuda.sqlite
if [ -f "$S" ] && need sqlite3; then
	[ "$(sqlite3 "$S" "SELECT count(*) FROM sqlite_master WHERE name = 'NVTX_EVENTS'; SELECT count(*) > 0 FROM CUPTI_ACTIVITY_KIND_KERNEL;" | tr '\n' ' ')" = "0 1 " ] &&
	    $C "$S" | has_line "^1. no NVTX: all 1 of 1 profiles" - && ok || notok "perlmutter export: no NVTX not named"
fi
# Frames made by hand (the check reads frames: what no generator writes).
# Command buffers in warm-up only: module P's command buffer runs in its
# execution 0, which the warm-up rule drops (the run has communication:
# skip 1); a window that cuts steps: Q's last execution has 3 thunks of 5.
H=$T/hand; mkdir -p "$H"
printf 'ProgramId\tProgramExecution\tDevice\tName\tNumThunks\tProcess\n' > "$H/module.tsv"
printf 'P\t0\t0\tjit_p\t2\t0\nP\t1\t0\tjit_p\t2\t0\nQ\t0\t0\tjit_q\t5\t0\nQ\t1\t0\tjit_q\t5\t0\nQ\t2\t0\tjit_q\t3\t0\n' >> "$H/module.tsv"
printf 'ProgramId\tProgramExecution\tName\tProjDurMs\tCommunication\tCollectiveSize\tCommandBuffer\n' > "$H/thunk.tsv"
printf 'P\t0\tcommand_buffer_1\t1\t\t\tcommand_buffer_1\nP\t0\tall-reduce-start\t1\t1\t1\t\nP\t1\tall-reduce-start\t1\t1\t1\t\nP\t1\tfusion\t1\t0\t\t\n' >> "$H/thunk.tsv"
$C "$H" > "$T/ck" 2> "$T/e"
has_line "command buffers in warm-up executions only: 1 module (jit_p)" "$T/ck" && ok || notok "warm-up only: '$(cat "$T/ck") $(cat "$T/e")'"
has_line "the capture window cuts steps: 1 first or last module execution (jit_q)" "$T/ck" && ok || notok "cut steps: '$(cat "$T/ck")'"
# The order is the rank: per graph (4) before warm-up (7) before cut (8).
awk '/traced per graph/ { a = NR } /warm-up executions only/ { b = NR } /cuts steps/ { c = NR } END { exit !(a && a < b && b < c) }' "$T/ck" &&
    ok || notok "ranking: '$(cat "$T/ck")'"
expect_error 2 "--check: no frames to write" "$X" --check -o "$T/x" "$H"
# Metadata that is there: the nsys of a capture whose install directory
# names it "NsightSystems-cli-2026.3.1" (no exporter version), and the CPU
# of a Grace host, which nsys calls "unknown" but whose architecture and
# cores it records: planted in a copy of the example's export.
if [ -f "$T/nd/rank0.sqlite" ] && need sqlite3; then
	cp "$T/nd/rank0.sqlite" "$T/gb.sqlite"
	sqlite3 "$T/gb.sqlite" "DELETE FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION';
	    CREATE TABLE IF NOT EXISTS TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
	    INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'x', 'TargetInstallDir', 0, '/opt/nvidia/NsightSystems-cli-2026.3.1/target-linux-sbsa-armv8'),
	        (0, 'x', 'CpuDescription', 0, 'unknown'), (0, 'x', 'CpuArchitecture', 0, 'aarch64'), (0, 'x', 'CpuCores', 0, '72'),
	        (0, 'x', 'Hostname', 0, 'gb200-n1');" && ok || notok "planting the Grace metadata"
	"$X" -f meta "$T/gb.sqlite" > "$T/gb.tsv" 2> /dev/null
	v=$(awk -F'\t' '$2 == "Nsys" { print $3 "|" $4 } $2 == "Cpu" { c = $3 } END { print c }' "$T/gb.tsv" | tr '\n' '|')
	[ "$v" = "2026.3.1|TARGET_INFO_SYSTEM_ENV|aarch64, 72 cores|" ] && ok || notok "Grace metadata: '$v'"
	# Two hosts, no collectives known (no dumps, names of none): each
	# host's own clock.
	nocoll "$T/gb.sqlite" "$T/gb0.sqlite"
	nocoll "$T/nd/rank1.sqlite" "$T/gb1.sqlite"
	sqlite3 "$T/gb1.sqlite" "CREATE TABLE IF NOT EXISTS TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
	    INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'x', 'Hostname', 0, 'gb200-n2');"
	$C "$T/gb0.sqlite" "$T/gb1.sqlite" > "$T/ck" 2> /dev/null
	has_line "no collectives to align clocks: the 2 devices on 2 hosts keep each host's own clock" "$T/ck" && ok || notok "two hosts: '$(cat "$T/ck")'"
fi
# One module name, several ProgramIds (frames by hand, each a capture
# of the steps only: every device ran jit_step's execution 0).
# hand DIR: module.tsv and thunk.tsv from the rows on stdin, "m" rows
# ProgramId Exec Device Name NumThunks Process, "t" rows ProgramId Exec
# Name ThunkExecution Device ProjStartMs ProjDurMs Communication
# CollectiveSize ("-": empty).
hand() {
	mkdir -p "$1"
	printf 'ProgramId\tProgramExecution\tDevice\tName\tNumThunks\tProcess\n' > "$1/module.tsv"
	printf 'ProgramId\tProgramExecution\tName\tThunkExecution\tDevice\tProjStartMs\tProjDurMs\tCommunication\tCollectiveSize\n' > "$1/thunk.tsv"
	awk -v d="$1" 'BEGIN { OFS = "\t" } { for (i = 2; i <= NF; i++) if ($i == "-") $i = "" }
	    $1 == "m" { $1 = ""; print substr($0, 2) >> (d "/module.tsv") }
	    $1 == "t" { $1 = ""; print substr($0, 2) >> (d "/thunk.tsv") }'
}
# spmd_step DIR BPROC BCOLL: ProgramId A on devices 0 and 1 (processes 0
# and 1), B on device 2 (process BPROC), three executions of jit_step
# each; A runs an all-reduce over 3 devices then a fusion, B the
# collective BCOLL.
spmd_step() {
	for e in 0 1 2; do
		printf 'm A %s 0 jit_step 2 0\nm A %s 1 jit_step 2 1\nm B %s 2 jit_step 2 %s\n' $e $e $e "$2"
		for d in 0 1; do
			printf 't A %s all-reduce-start 0 %s %s 1 1 3\nt A %s fusion 0 %s %s 1 0 -\n' $e $d $((10 * e)) $e $d $((10 * e + 1))
		done
		printf 't B %s %s 0 2 %s 1 1 3\nt B %s fusion 0 2 %s 1 0 -\n' $e "$3" $((10 * e)) $e $((10 * e + 1))
	done | hand "$1"
}
# The SPMD pair (one step, its ProgramIds on disjoint devices of other
# processes, the same collectives): compiled differently, one run.
spmd_step "$T/sp" 2 all-reduce-start
$C "$T/sp" > "$T/ck" 2> "$T/e"
[ "$(wc -l < "$T/ck")" -eq 1 ] && has_line "^1. processes compiled the step differently: 1 module (jit_step) with several fingerprints" "$T/ck" &&
    ok || notok "SPMD pair: '$(cat "$T/ck" "$T/e")'"
# The same frames without Device, ThunkExecution and ProjStartMs (each
# device's rows of an execution in turn): the same finding alone.
cut -f1-3,7- "$T/sp/thunk.tsv" | awk -F'\t' 'BEGIN { OFS = "\t" } { $0 = $0; print }' > "$T/sp/t2" && mv "$T/sp/t2" "$T/sp/thunk.tsv"
head -n 1 "$T/sp/thunk.tsv" | grep -q 'Device' && notok "frame without Device: not made"
$C "$T/sp" > "$T/ck" 2> "$T/e"
[ "$(wc -l < "$T/ck")" -eq 1 ] && has_line "^1. processes compiled the step differently: 1 module (jit_step)" "$T/ck" &&
    ok || notok "SPMD pair without Device: '$(cat "$T/ck" "$T/e")'"
# B runs another collective: two programs, not one step; no module of
# all the devices, so mixed runs, and no split.
spmd_step "$T/sp2" 2 all-gather-start
$C "$T/sp2" > "$T/ck" 2> /dev/null
has_line "^1. mixed runs: no module ran in all 3 processes and devices" "$T/ck" && ! has_line "compiled the step differently" "$T/ck" &&
    ok || notok "other collectives: '$(cat "$T/ck")'"
# Two programs of one name on one process (another shape, another jit):
# jit_add on devices 0 and 1 of process 0, no collective, beside the
# step that both devices run: no finding.
{ for e in 0 1 2; do
	printf 'm S %s 0 jit_step 1 0\nm S %s 1 jit_step 1 0\nm X %s 0 jit_add 1 0\nm Y %s 1 jit_add 1 0\n' $e $e $e $e
	printf 't S %s all-reduce-start 0 %s %s 1 1 2\n' $e 0 $((10 * e)) $e 1 $((10 * e))
	printf 't X %s fusion 0 0 %s 1 0 -\nt Y %s fusion 0 1 %s 1 0 -\n' $e $((10 * e + 2)) $e $((10 * e + 2))
  done; } | hand "$T/add"
$C "$T/add" > "$T/ck" 2> "$T/e"
[ ! -s "$T/ck" ] && ok || notok "two jit_add on one process: '$(cat "$T/ck" "$T/e")'"
# The cut rule compares an end with its neighbour: a first execution cut
# (2 thunks of 5, the next has 5) is found; the last is not when it has
# as many as the one before.
{ for e in 0 1 2 3; do printf 'm F %s 0 jit_f %s 0\n' $e $([ $e -eq 0 ] && echo 2 || echo 5); printf 't F %s fusion 0 0 %s 1 0 -\n' $e $e; done; } | hand "$T/first"
$C "$T/first" > "$T/ck" 2> /dev/null
has_line "^1. the capture window cuts steps: 1 first or last module execution (jit_f)" "$T/ck" && ok || notok "first execution cut: '$(cat "$T/ck")'"
if [ -x "$MK" ]; then
	# A command buffer traced per graph in a whole capture: execution 0
	# (XLA's warm-up) runs its 3 operations one by one, executions 1-3
	# launch the graph (one row each): traced per graph, no cut step.
	{ echo 'thread 0x1000064000064 XlaLauncher:#global=0,local=0,process=0,slice=0#'
	  echo 'domain 1 0x1000064000064 1 0 TSL'
	  echo 'hlo 5 jit_g fusion.1:fusion fusion.2:fusion fusion.3:fusion'
	  echo 'nvtx 2 59 0x1000064000064 1000 2000 - 1 XlaModule:#hlo_module=jit_g,program_id=5#'
	  echo 'nvtx 3 59 0x1000064000064 1050 1950 - 1 Thunk:#hlo_op=command_buffer_2#'
	  for i in 1 2 3; do
		echo "nvtx $((3 + i)) 59 0x1000064000064 $((1000 + 200 * i)) $((1100 + 200 * i)) - 1 Thunk:#hlo_op=fusion.$i#"
		echo "call 0x1000064000064 $((1010 + 200 * i)) $((1020 + 200 * i)) $i 0"
		echo "kernel $((10000 + 200 * i)) $((10100 + 200 * i)) $i 0x1000064000000 0 7 - fusion_$i"
	  done
	  for x in 1 2 3; do
		b=$((10000 * (x + 1)))
		echo "nvtx $((10 * x + 10)) 59 0x1000064000064 $((b - 7000)) $((b - 6000)) - 1 XlaModule:#hlo_module=jit_g,program_id=5#"
		echo "nvtx $((10 * x + 11)) 59 0x1000064000064 $((b - 6900)) $((b - 6100)) - 1 Thunk:#hlo_op=command_buffer_2#"
		echo "call 0x1000064000064 $((b - 6500)) $((b - 6490)) $((10 + x)) 0"
		echo "graph $b $((b + 300)) $((10 + x)) 0x1000064000000 0 7 1"
	  done; } > "$T/cs.spec"
	"$MK" spec "$T/cs.spec" "$T/cs.sqlite" || notok "mkexport cut-steps"
	"$X" -f module "$T/cs.sqlite" 2> /dev/null | awk -F'\t' 'NR > 1 { printf "%s:%s ", $2, $NF }' > "$T/nth"
	[ "$(cat "$T/nth")" = "0:3 1:1 2:1 3:1 " ] && ok || notok "graph replays: NumThunks '$(cat "$T/nth")'"
	$C "$T/cs.sqlite" > "$T/ck" 2> /dev/null
	# 3 x 300 ns of graph against 3 x 100 ns of kernels: 75.0%.
	[ "$(wc -l < "$T/ck")" -eq 1 ] && has_line "^1. CUDA graphs traced per graph: no per-operation time inside 1 command buffer holding 75.0% of GPU time" "$T/ck" &&
	    ok || notok "graph replays: '$(cat "$T/ck")'"
	# An export without dumps, graphs traced whole (its rows of graph
	# launches; meta.tsv CudaGraphTrace): named, 61.0% as above.  Traced
	# per node, its operations stay on the buffer's rows without a dump
	# too, but node tracing is on: not named.
	for k in graph node; do
		mkdir -p "$T/nh$k"
		grep -v '^hlo ' "$T/cb$k/s.spec" > "$T/nh$k/s.spec"
		"$MK" spec "$T/nh$k/s.spec" "$T/nh$k/x.sqlite" || notok "mkexport no dump $k"
	done
	$C "$T/nhgraph/x.sqlite" > "$T/ck" 2> /dev/null
	has_line "^2. CUDA graphs traced per graph: no per-operation time inside 1 command buffer holding 61.0% of GPU time. Fix: nsys profile --cuda-graph-trace=node" "$T/ck" &&
	    ok || notok "per graph without dumps: '$(cat "$T/ck")'"
	"$X" -f meta "$T/nhgraph/x.sqlite" 2> /dev/null | grep -q "	CudaGraphTrace	graph	CUPTI_ACTIVITY_KIND_GRAPH_TRACE$" && ok || notok "meta: no CudaGraphTrace graph"
	$C "$T/nhnode/x.sqlite" > "$T/ck" 2> /dev/null
	has_line "no HLO dumps" "$T/ck" && ! has_line "traced per graph" "$T/ck" && ok || notok "per node without dumps: '$(cat "$T/ck")'"
	# The report of it says so at its top.
	sh $R -q -o "$T/nhrep" "$T/nhgraph/x.sqlite" > /dev/null 2>&1
	grep -q 'CUDA graphs traced per graph' "$T/nhrep/report.txt" && ok || notok "report without dumps, per graph: no finding"
fi
# The example's exports (with dumps) are a clean run too.
if [ -d "$SQ/rank0" ]; then
	$C "$SQ/rank0" "$SQ/rank1" > "$T/ck" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/ck" ] && ok || notok "clean example exports: exit $rc, '$(cat "$T/ck")'"
fi
done_testing t74-capture
