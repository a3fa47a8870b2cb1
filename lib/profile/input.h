/*
 * input: find the profiles inside nsysjax-extract's inputs.
 *
 * An input is an nsys-jax archive (.zip or its extracted directory) holding
 * one profile, or an nsys-jax-combine archive holding several: a member
 * that differs between processes is stored as "NAME/<profile>" instead of
 * "NAME" (scripts/nsys_jax_combine.py).  Several inputs are the processes
 * of one run.  A profile is named after its input (file name without
 * ".zip") or, in a combined archive, after its "<profile>" part.
 */
#ifndef NSYSJAX_INPUT_H
#define NSYSJAX_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct archive;

struct input_profile {
	char *name;		/* ProfileName (the key, unless renamed) */
	char *key;		/* "<profile>" of NAME/<profile> members */
	struct archive *ar;	/* shared by the profiles of one input */
	const char *path;	/* the input path, for messages */
};

struct input_set {
	struct archive **ar;
	size_t nar;
	struct input_profile *p;
	size_t n;
};

/*
 * Open every input in PATHS[0..N) and list their profiles in input order
 * (sorted by name within a combined archive).  Returns 0, or -1 with an err
 * message naming the input: unreadable, not a zip, no
 * nvtx_gpu_proj_trace/trace.parquet (not an nsys-jax archive), two
 * profiles with the same name.
 */
int input_open(const char *const *paths, size_t n, struct input_set *s);

void input_close(struct input_set *s);

/*
 * The ProfileName of the input PATH, as nsys-jax names a profile after its
 * archive: the last component (trailing '/' ignored) without ".zip", and
 * for a report file without ".xz", ".csv", ".parquet" in turn
 * ("r/rank0.csv.xz" -> "rank0"); "-" is "stdin".  A new string.
 */
char *input_name(const char *path);

/*
 * The member holding BASE for profile P: BASE itself, or "BASE/<name>"
 * in a combined archive.  Returns a new string (caller frees), or NULL
 * when neither exists (no err message: callers decide if that is an
 * error).
 */
char *input_member(const struct input_profile *p, const char *base);

/*
 * The first of the NULL-terminated BASES that exists for P, as
 * input_member.  Lets callers accept several formats of one report.
 */
char *input_member_any(const struct input_profile *p,
    const char *const *bases);

/*
 * The HLO dump of program PROGRAM_ID for P: the member
 * "dump/module_NNNN.<module>.<...>SUFFIX" (NNNN = the id zero-padded to
 * 4 digits, as XLA names dumps), or "<that>/<name>" in a combined archive.
 * Returns a new string or NULL.
 */
char *input_dump(const struct input_profile *p, int64_t program_id,
    const char *suffix);

#endif
