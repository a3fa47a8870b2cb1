#!/bin/sh
# The decompression floor of nsysjax-extract: read and decompress the
# members it reads from each archive given, and nothing else.
set -eu
for z in "$@"; do
	unzip -p "$z" nvtx_gpu_proj_trace/trace.parquet thread-metadata.parquet > /dev/null
	unzip -p "$z" report_nvtx_pushpop_trace.csv.xz | xz -dc > /dev/null
	unzip -p "$z" 'dump/*after_optimizations.hlo.pb.xz' | xz -dc > /dev/null
done
