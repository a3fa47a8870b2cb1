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
done_testing t74-capture
