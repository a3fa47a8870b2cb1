/*
 * device: what a profile says of its GPU, for the roofline's peaks
 * (analysis/roofline.h roofline_peaks_of).  Three sources, tried in this
 * order in an nsys-jax archive (zip or directory):
 *  - device-metadata.parquet (nsys-jax: the export's TARGET_INFO_GPU
 *    table as pandas columns "('TARGET_INFO_GPU', 'name')", ...);
 *  - dump/\*.gpu_target_config.pbtxt[.xz] (XLA's GpuTargetConfigProto in
 *    text form: gpu_device_info { core_count, clock_rate_ghz,
 *    memory_bandwidth, cuda_compute_capability { major minor } } and
 *    device_description_str);
 * and in an nsys SQLite export its TARGET_INFO_GPU table (name, smCount,
 * clockRate in Hz, memoryBandwidth in B/s, computeMajor/Minor).  A file
 * named *.pbtxt or *.pbtxt.xz is read as the second source.  The GPU of
 * the lowest id (cuDevice) is taken: a run's devices are alike.
 */
#ifndef NSYSJAX_DEVICE_H
#define NSYSJAX_DEVICE_H

#include <stdint.h>

struct device_info {
	char name[128];		/* "NVIDIA A100-SXM4-40GB"; "" unknown */
	int64_t sms;		/* streaming multiprocessors; 0 unknown */
	double clock_hz;	/* SM clock, Hz; 0 unknown */
	double bw;		/* memory bandwidth, B/s; 0 unknown */
	int major, minor;	/* compute capability; -1 unknown */
	const char *source;	/* which of the sources above */
};

/*
 * Read PATH's device description into *OUT.  Returns 1, 0 when PATH
 * holds none (a note for the caller: "no device description"), or -1
 * with an err message naming PATH (unreadable, not an archive nor an
 * export, a corrupt member).
 */
int device_read(const char *path, struct device_info *out);

/*
 * The device of the GpuTargetConfigProto text S[0..N) into *OUT: 1 when
 * it names a device or gives a core count, else 0.  Unknown fields and
 * malformed lines are skipped (a text format, read for a few numbers).
 */
int device_pbtxt(const char *s, size_t n, struct device_info *out);

#endif
