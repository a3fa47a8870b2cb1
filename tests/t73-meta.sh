#!/bin/sh
# nsysjax-extract -f meta: the run's metadata per profile,
# checked against what sqlite3, unzip and xz read from the same files
# (never our own output), against values planted in a copy of the
# example, and a missing or corrupt source as empty values and a note.
set -u
. tests/lib.sh
X=$BIN/nsysjax-extract
EX=${EXAMPLE:-build/example/profile}
SQ=$SHARED/data/nsys-sqlite

# meta FILE PROFILE KEY: the Value of KEY for PROFILE in meta frame FILE.
meta() { awk -F'\t' -v p="$2" -v k="$3" '$1 == p && $2 == k { print $3 }' "$1"; }
# same WHAT GOT WANT
same() { [ "$2" = "$3" ] && ok || notok "$1: '$2', want '$3'"; }

# The example records its GPU in XLA's gpu_target_config alone (truth.tsv):
# those keys from it, the rest empty; every key of each profile (19, the
# last CudaGraphTrace), exit 0,
# no note.
truth() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$EX/truth.tsv"; }
if [ -d "$EX/rank0" ]; then
	"$X" -f meta "$EX/rank0" "$EX/rank1" > "$T/ex.tsv" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/e" ] && [ "$(head -n 1 "$T/ex.tsv")" = "$(printf 'ProfileName\tKey\tValue\tSource')" ] &&
	    [ "$(awk -F'\t' 'NR > 1 { n[$1]++ } END { print n["rank0"] + 0, n["rank1"] + 0 }' "$T/ex.tsv")" = "19 19" ] &&
	    ok || notok "example meta: exit $rc, $(cat "$T/e")"
	for r in rank0 rank1; do
		same "example $r GpuName" "$(meta "$T/ex.tsv" $r GpuName)" "$(truth gpu.name)"
		same "example $r SmCount" "$(meta "$T/ex.tsv" $r SmCount)" "$(truth gpu.sms)"
		same "example $r unknowns" "$(meta "$T/ex.tsv" $r Driver)|$(meta "$T/ex.tsv" $r Nsys)|$(meta "$T/ex.tsv" $r Jax)|$(meta "$T/ex.tsv" $r Xla)" "|||"
	done
	# -n names the profiles.
	"$X" -n a,b -f meta "$EX/rank0" "$EX/rank1" | awk -F'\t' 'NR > 1 { print $1 }' | sort -u | tr '\n' ' ' > "$T/n"
	same "-n a,b" "$(cat "$T/n")" "a b "
	# -o writes the meta frame beside the frames (a report made from them
	# has the run's metadata), the same bytes as -f meta; --merge joins
	# the parts' in part order, to -o's directory and to -f meta.
	"$X" -o "$T/fr" "$EX/rank0" "$EX/rank1" 2> /dev/null && [ -s "$T/fr/thunk.tsv" ] && cmp -s "$T/fr/meta.tsv" "$T/ex.tsv" && ok || notok "-o: meta.tsv is not -f meta's"
	"$X" -o "$T/p0fr" "$EX/rank0" 2> /dev/null && "$X" -o "$T/p1fr" "$EX/rank1" 2> /dev/null &&
	    "$X" --merge -o "$T/mfr" "$T/p0fr" "$T/p1fr" && cmp -s "$T/mfr/meta.tsv" "$T/ex.tsv" &&
	    "$X" --merge -f meta "$T/p0fr" "$T/p1fr" | cmp -s - "$T/ex.tsv" && ok || notok "--merge: meta.tsv is not the run's"
	rm "$T/p1fr/meta.tsv"
	"$X" --merge -o "$T/mfr2" "$T/p0fr" "$T/p1fr" 2> "$T/e" && [ ! -e "$T/mfr2/meta.tsv" ] && [ -s "$T/mfr2/thunk.tsv" ] &&
	    grep -q '1 of the 2 parts have a meta.tsv' "$T/e" && ok || notok "--merge with one part's meta.tsv: $(cat "$T/e")"
	rm "$T/p0fr/meta.tsv"
	expect_error 1 'no meta.tsv to merge' "$X" --merge -f meta "$T/p0fr" "$T/p1fr"

	# Planted: an XLA gpu_target_config (values made up here) in a copy.
	cp -R "$EX/rank0" "$T/p0"
	rm -f "$T/p0"/dump/*.gpu_target_config.pbtxt*
	printf 'gpu_device_info {\n  core_count: 132\n  device_memory_size: 85000000000\n  cuda_compute_capability {\n    major: 9\n  }\n}\nplatform_name: "CUDA"\ndnn_version_info {\n  major: 9\n  minor: 3\n  patch: 2\n}\ndevice_description_str: "Planted GPU X1"\n' |
	    xz > "$T/p0/dump/module_0007.jit_train_step.gpu_target_config.pbtxt.xz"
	"$X" -f meta "$T/p0" > "$T/p.tsv" 2> "$T/e"
	same "planted GpuName" "$(meta "$T/p.tsv" p0 GpuName)" "Planted GPU X1"
	same "planted ComputeCapability (proto3: minor 0 unwritten)" "$(meta "$T/p.tsv" p0 ComputeCapability)" "9.0"
	same "planted SmCount" "$(meta "$T/p.tsv" p0 SmCount)" 132
	same "planted GpuMemoryBytes" "$(meta "$T/p.tsv" p0 GpuMemoryBytes)" 85000000000
	same "planted Cudnn" "$(meta "$T/p.tsv" p0 Cudnn)" 9.3.2
	same "planted source" "$(awk -F'\t' '$2 == "GpuName" { print $4 }' "$T/p.tsv")" gpu_target_config
	# A corrupt device-metadata.parquet: its keys empty, one note naming
	# it, the other sources still read, exit 0.
	echo 'not parquet' > "$T/p0/device-metadata.parquet"
	"$X" -f meta "$T/p0" > "$T/c.tsv" 2> "$T/e"; rc=$?
	[ $rc -eq 0 ] && [ "$(wc -l < "$T/e")" -eq 1 ] && grep -q 'device-metadata.parquet' "$T/e" &&
	    [ "$(meta "$T/c.tsv" p0 GpuName)" = "Planted GPU X1" ] && ok || notok "corrupt parquet: exit $rc, $(cat "$T/e")"
	# Not a profile at all: one message, exit 1.
	: > "$T/empty.zip"
	expect_error 1 "empty.zip" "$X" -f meta "$T/empty.zip"
else
	skip "example profile: not built (make example)"
fi

# nsys SQLite exports: every key that sqlite3 finds, the same value.
if [ -d "$SQ" ] && need sqlite3; then
	for db in "$SQ"/*.sqlite; do
		p=$(basename "$db" .sqlite)
		"$X" -f meta "$db" > "$T/m.tsv" 2> "$T/e" || { notok "$p: $(cat "$T/e")"; continue; }
		q() { sqlite3 "$db" "$1" 2> /dev/null; }
		has() { [ -n "$(q "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '$1'")" ]; }
		gpu='' n='' ver=''
		if has TARGET_INFO_GPU; then
			gpu=$(q 'SELECT name FROM TARGET_INFO_GPU ORDER BY id LIMIT 1')
			n=$(q 'SELECT count(*) FROM TARGET_INFO_GPU')
		fi
		for t in META_DATA_EXPORT EXPORT_META_DATA; do
			has $t && { ver=$(q "SELECT value FROM $t WHERE name = 'EXPORT_PRODUCT_VERSION'"); break; }
		done
		senv() { has TARGET_INFO_SYSTEM_ENV && q "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = '$1'"; }
		same "$p GpuName" "$(meta "$T/m.tsv" "$p" GpuName)" "$gpu"
		same "$p Gpus" "$(meta "$T/m.tsv" "$p" Gpus)" "$n"
		same "$p Nsys" "$(meta "$T/m.tsv" "$p" Nsys)" "$ver"
		same "$p Driver" "$(meta "$T/m.tsv" "$p" Driver)" "$(senv NvDriverVersion)"
		same "$p Hostname" "$(meta "$T/m.tsv" "$p" Hostname)" "$(senv Hostname)"
		same "$p Os" "$(meta "$T/m.tsv" "$p" Os)" "$(senv OsDescription)"
		# CUDA's encoding, 1000 x major + 10 x minor.
		cd=$(senv CudaDriverVersion | awk '$1 >= 1000 { printf "%d.%d", int($1 / 1000), int($1 % 1000 / 10) }')
		same "$p CudaDriver" "$(meta "$T/m.tsv" "$p" CudaDriver)" "$cd"
	done
	# SOURCES.md's word: cloverleaf's node has four A100-SXM4-80GB.
	"$X" -f meta "$SQ/perlmutter-cloverleaf-cuda.sqlite" > "$T/m.tsv" 2> /dev/null
	same "cloverleaf GPUs" "$(meta "$T/m.tsv" perlmutter-cloverleaf-cuda Gpus) $(meta "$T/m.tsv" perlmutter-cloverleaf-cuda GpuName)" "4 NVIDIA A100-SXM4-80GB"
else
	skip "nsys SQLite exports: $SQ not found"
fi

# The nsys-jax archives of the 4-process run: the GPU as XLA's
# gpu_target_config names it, the nsys of the capture as its install
# directory in system-metadata.parquet, the driver among its strings.
if have_data && need unzip xz; then
	"$X" -f meta "$DATA"/pax_fsdp4_4proc_proc[0-3].zip > "$T/d.tsv" 2> "$T/e"
	[ "$(tail -n +2 "$T/d.tsv" | cut -f 1 | sort -u | wc -l)" -eq 4 ] && [ ! -s "$T/e" ] && ok || notok "4 archives: $(cat "$T/e")"
	for i in 0 1 2 3; do
		z=$DATA/pax_fsdp4_4proc_proc$i.zip p=pax_fsdp4_4proc_proc$i
		cfg=$(unzip -Z1 "$z" | grep 'gpu_target_config\.pbtxt\.xz$' | sort | head -n 1)
		unzip -p "$z" "$cfg" | xz -dc > "$T/cfg"
		same "$p GpuName" "$(meta "$T/d.tsv" $p GpuName)" "$(sed -n 's/^device_description_str: "\(.*\)"$/\1/p' "$T/cfg")"
		same "$p SmCount" "$(meta "$T/d.tsv" $p SmCount)" "$(sed -n 's/^ *core_count: //p' "$T/cfg")"
		same "$p ComputeCapability" "$(meta "$T/d.tsv" $p ComputeCapability)" \
		    "$(awk '/cuda_compute_capability/ { i = 1; mi = 0 } i && /major:/ { ma = $2 } i && /minor:/ { mi = $2 } i && /}/ { print ma "." mi; exit }' "$T/cfg")"
		unzip -p "$z" system-metadata.parquet > "$T/sys.parquet"
		same "$p Nsys" "$(meta "$T/d.tsv" $p Nsys)" \
		    "$(grep -ao 'nsight-systems-cli/[0-9][0-9.]*/target-' "$T/sys.parquet" | head -n 1 | cut -d / -f 2)"
		drv=$(meta "$T/d.tsv" $p Driver)
		[ -n "$drv" ] && grep -aqF "$drv" "$T/sys.parquet" && ok || notok "$p Driver '$drv' not in system-metadata.parquet"
	done
else
	skip "pax_fsdp4_4proc archives: $DATA not found"
fi
done_testing t73-meta
