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
	[ "$got" = "p3-missing-hlo p7-missing-hlo " ] && ok || notok "placeholders: '$got'"
	p12=$(awk -F'\t' 'NR > 1 { print substr($1, 1, 12) }' "$T/fr/module.tsv" | sort -u | wc -l)
	[ "$p12" -eq 2 ] && ok || notok "placeholders' first 12 characters: $p12 distinct"
	for p in $got; do set -- "$@" -p "$p"; done
	"$BIN/nsysjax-fold" -o "$T/fold" "$@" -H "$T/fr/hlo.tsv" -M "$T/fr/module.tsv" -S "$T/fr/stackframes.tsv" "$T/fr/thunk.tsv" > /dev/null 2> "$T/e" && ok || notok "nsysjax-fold -p both: $(cat "$T/e")"
	set --

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
	for f in "$T/orig"/*.tsv; do cmp -s "$f" "$T/rez/${f##*/}" || { n=$((n + 1)); echo "  differs: ${f##*/}"; }; done
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
done_testing t74-capture
