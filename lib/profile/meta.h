/*
 * meta: the run's metadata as each profile records it (the
 * notebook's machine and software facts), for the meta frame
 * (nsysjax-extract -f meta): per profile the GPU, its driver, CUDA,
 * cuDNN, NCCL, nsys, the JAX and XLA versions, the operating system,
 * CPU and host, and whether CUDA graphs were traced whole.  Sources, the first that gives a key winning:
 *  - an nsys-jax archive: device-metadata.parquet (nsys-jax's
 *    TARGET_INFO_GPU, columns "('TARGET_INFO_GPU', 'name')", ...),
 *    system-metadata.parquet (TARGET_INFO_SYSTEM_ENV: name, value),
 *    the first dump/\*.gpu_target_config.pbtxt[.xz] (XLA's
 *    GpuTargetConfigProto text: device_description_str,
 *    cuda_compute_capability, core_count, device_memory_size,
 *    dnn_version_info);
 *  - an nsys SQLite export: META_DATA_EXPORT (2024.5 and later) or
 *    EXPORT_META_DATA (EXPORT_PRODUCT_VERSION: the nsys that exported),
 *    TARGET_INFO_GPU, TARGET_INFO_SYSTEM_ENV; CudaGraphTrace "graph" when
 *    CUPTI_ACTIVITY_KIND_GRAPH_TRACE has rows (whole-graph launches:
 *    nsys --cuda-graph-trace=graph, its default), else empty.
 * In TARGET_INFO_SYSTEM_ENV: NvDriverVersion (as written: 470.141.03, or
 * 52510517 from nsys 2022.2), CudaDriverVersion (CUDA's 1000 x major +
 * 10 x minor: 12040 is 12.4), OsDescription, SoftwareReleaseVersion (the
 * kernel), CpuDescription (when "unknown", as on Grace hosts:
 * CpuArchitecture and CpuCores, "aarch64, 72 cores"), Hostname,
 * TargetInstallDir (the capturing nsys's directory: the version its last
 * component ending in one gives, ".../2024.4.1/target-linux-x64",
 * ".../NsightSystems-cli-2026.3.1/target-linux-sbsa-armv8"), and
 * DeviceEnvironment's CUDA_VERSION, NCCL_VERSION, NV_CUDNN_VERSION,
 * XLA_FLAGS, JAX_VERSION and XLA_VERSION (';'-separated NAME=VALUE; no
 * other variable is read: the environment may hold secrets).  Neither
 * nsys-jax nor nsys records JAX's or XLA's version otherwise, so those
 * are usually empty.
 */
#ifndef NSYSJAX_META_H
#define NSYSJAX_META_H

#include <stddef.h>

struct tsv_writer;
struct err_notes;

/* The keys, in the order written; meta_key[META_NKEYS] is NULL. */
enum {
	META_GPU, META_GPUS, META_CC, META_SMS, META_GPUMEM, META_DRIVER,
	META_CUDADRIVER, META_CUDA, META_CUDNN, META_NCCL, META_NSYS,
	META_JAX, META_XLA, META_XLAFLAGS, META_OS, META_KERNEL, META_CPU,
	META_HOST, META_GRAPHTRACE, META_NKEYS
};
extern const char *const meta_key[];

/*
 * The meta frame of PATHS[0..N) (nsysjax-extract's inputs, the processes
 * of one run; DUMPDIR as extract_opts.dumpdir, or NULL) to W, header
 * first: ProfileName, Key, Value, Source; every key of meta_key for every
 * profile in input order, Value and Source empty when no source gives
 * it.  NAMES (or NULL), "A,B,...", renames the profiles as -n does.
 * A source that cannot be read (a corrupt parquet, an export without a
 * table) costs that profile those keys and one note in NOTES.  Returns
 * 0, or -1 with an err message naming the input (input_open's errors,
 * names that do not fit) or the output.
 */
int meta_write(const char *const *paths, size_t n, const char *dumpdir,
    const char *names, struct tsv_writer *w, struct err_notes *notes);

/*
 * The meta frames DIRS[i]/meta.tsv of the parts DIRS[0..N) (directories
 * written by nsysjax-extract -o, in process order) joined to W: one
 * header, then each part's rows in part order, as they are.  Returns 0;
 * 1 when no part has a meta.tsv (nothing written); -1 with an err
 * message when only some have one, or one cannot be read or is no meta
 * frame, or a write fails.
 */
int meta_merge(const char *const *dirs, size_t n, struct tsv_writer *w);

/*
 * Fill V[0..META_NKEYS) (each NULL or a new string) from the
 * GpuTargetConfigProto text S[0..N), where still NULL; SRC[k] set to
 * "gpu_target_config" for each key filled.  For tests and meta.c.
 */
void meta_pbtxt(const char *s, size_t n, char **v, const char **src);

#endif
