/*
 * launchers: the devices of an nsys-jax archive written before July 2024,
 * which has no thread-metadata.parquet (nsys-jax added it in
 * NVIDIA/JAX-Toolbox 2f1f572a, 2024-07-09), derived as the nsys-jax of
 * that time did (data_loaders.py at 283578bd, 2024-07-03,
 * _load_nvtx_gpu_proj_trace_single): thunks are launched from one thread
 * per device, and thread id order is local device order.  For each
 * ProgramId, the distinct TIDs of its thunks, sorted, are local devices
 * 0, 1, ...; a TID must get the same number in every program.  With N
 * the number of local devices, the global device of local device L in
 * the profile of index P (the profile's position among the inputs; the
 * file order of a combined archive) is P * N + L.
 *
 * The result is written as the XlaLauncher thread names that newer XLA
 * gives launcher threads (nvtx.h nvtx_parse_launcher), so that the frame
 * builder (frames.h) applies its usual rules: Device P * N + L,
 * LocalDevice L, Process P, Slice 0.
 */
#ifndef NSYSJAX_LAUNCHERS_H
#define NSYSJAX_LAUNCHERS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/proj.h"

/*
 * From the projected ranges R[0..N) of the profile of index PROFILE, one
 * thread row (PID, TID, launcher name) per thread that runs thunks, in a
 * new array *OUT of *NOUT rows whose names the caller frees with
 * launchers_free.  A thunk whose ancestors hold no XlaModule range with a
 * program_id is not counted (autotuning, or cut off).  Returns 0, or -1
 * with an err message: "thread TID is local device A for one program and
 * B for another", which the nsys-jax of that time asserted too.
 */
int launchers_derive(const struct proj_range *r, size_t n, size_t profile,
    struct proj_thread **out, size_t *nout);

void launchers_free(struct proj_thread *t, size_t n);

#endif
