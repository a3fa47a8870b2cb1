/*
 * input: find the profiles inside nsysjax-extract's inputs and resolve
 * each into what the extractor decodes: its members by role and its HLO
 * dumps by XLA program id.  This is the one place that knows the kinds of
 * input; extract.c only decodes what is resolved here.
 *
 * Kinds of input (several inputs are the processes of one run):
 *  - an nsys-jax archive (.zip or its extracted directory) holding one
 *    profile, or an nsys-jax-combine archive holding several: a member
 *    that differs between processes is stored as "NAME/<profile>" instead
 *    of "NAME" (scripts/nsys_jax_combine.py);
 *  - an nsys SQLite export (a file named *.sqlite, or any file starting
 *    with the SQLite header), its HLO dumps in the directory DUMPDIR, by
 *    default "dump" beside the file;
 *  - a directory or zip holding one *.sqlite (at its top) and dump/: as
 *    an archive, the dumps are its "dump/" members (unless DUMPDIR).
 * A profile is named after its input (the file name without ".zip" or
 * ".sqlite"; a directory's name) or, in a combined archive, after its
 * "<profile>" part.
 */
#ifndef NSYSJAX_INPUT_H
#define NSYSJAX_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct archive;

enum input_kind {
	INPUT_NSYSJAX,		/* nsys-jax archive: the members below */
	INPUT_SQLITE		/* nsys SQLite export */
};

/* The after-optimizations HLO dump of one XLA program. */
struct input_dump {
	int64_t program_id;
	char *member;		/* member of input_profile.dumps */
};

struct input_profile {
	char *name;		/* ProfileName (the key, unless renamed) */
	char *key;		/* "<profile>" of NAME/<profile> members */
	enum input_kind kind;
	struct archive *ar;	/* the input (shared by the profiles of one
				 * input); NULL for a bare .sqlite file */
	const char *path;	/* the input path, for messages */
	/* INPUT_NSYSJAX: members of ar by role; NULL when absent. */
	char *trace;		/* nvtx_gpu_proj_trace/trace.parquet */
	char *threads;		/* thread-metadata.parquet */
	char *pushpop;		/* report_nvtx_pushpop_trace.{parquet,csv*} */
	/* INPUT_SQLITE: the export, a file (sqlite_file) or a member of ar
	 * (sqlite_member, a zip's), exactly one of them set. */
	char *sqlite_file;
	char *sqlite_member;
	/* HLO dumps, sorted by program id; dumps is ar, the dump directory
	 * (owned by the input set), or NULL when there is none. */
	struct archive *dumps;
	struct input_dump *dump;
	size_t ndump;
	/* The trace's identity (input_ident), once known: IDENT 1, or -1
	 * when it cannot be read, 0 not looked at yet. */
	int ident;
	uint64_t ident_bytes;
	uint32_t ident_crc;
};

struct input_set {
	struct archive **ar;
	size_t nar, capar;
	struct input_profile *p;
	size_t n, capp;
};

/*
 * The member of P's archive named BASE, or in a combined archive
 * "BASE/<profile>" (P->key): a new string to free, or NULL when neither
 * exists.  P must have an archive (not a SQLite export).
 */
char *input_member(const struct input_profile *p, const char *base);

/*
 * Open every input in PATHS[0..N) and resolve their profiles, in input
 * order (sorted by name within a combined archive).  DUMPDIR (or NULL:
 * the default above) is where SQLite exports' HLO dumps are.  Returns 0,
 * or -1 with an err message naming the input: unreadable, not a zip, no
 * nvtx_gpu_proj_trace/trace.parquet nor *.sqlite (neither an nsys-jax
 * archive nor an nsys export), several *.sqlite in one directory, a dump
 * directory that cannot be read, two profiles with the same name, one
 * profile given twice (the same file, symbolic links followed, or the
 * same trace in another container or under another name: input_ident's
 * identity, so a directory and a zip of it, or two zips of it, are one
 * profile).
 */
int input_open(const char *const *paths, size_t n, const char *dumpdir,
    struct input_set *s);

/*
 * As input_open, the profiles then named NAMES ("A,B,...", one per
 * profile in input order, as nsysjax-extract -n gives them; NULL: their
 * own names) before names are compared: inputs of one name (d0/report.
 * sqlite, d1/report.sqlite) are distinct profiles under distinct NAMES.
 * More errors: "N profile names for M profiles", "more profile names
 * than the M profiles".
 */
int input_open_named(const char *const *paths, size_t n, const char *dumpdir,
    const char *names, struct input_set *s);

void input_close(struct input_set *s);

/*
 * The ProfileName of the input PATH, as nsys-jax names a profile after its
 * archive: the last component (trailing '/' ignored) without ".zip",
 * ".sqlite" or ".nsys-rep", and for a report file without ".xz", ".csv", ".parquet" in
 * turn ("r/rank0.csv.xz" -> "rank0"); "-" is "stdin".  A new string.
 */
char *input_name(const char *path);

/*
 * The dump of PROGRAM_ID for P: the member "dump/module_NNNN.<module>.
 * <...>after_optimizations.hlo.pb.xz" (NNNN = the id zero-padded to 4
 * digits, as XLA names dumps; the uncompressed ".hlo.pb" when there is
 * no ".xz"; the first by name when several modules share the id), or
 * "<that>/<profile>" in a combined archive; in a dump directory the same
 * without "dump/".  NULL when there is none.
 */
const struct input_dump *input_dump(const struct input_profile *p,
    int64_t program_id);

/*
 * The member of P's dumps holding XLA's thunk metadata of PROGRAM_ID
 * (module name MODULE): "module_NNNN.MODULE.thunk_metadata.pb.xz", else
 * ".pb", in the directory of its HLO dump (+ "/<profile>" in a combined
 * archive), as a new string; NULL when absent or when the program has no
 * HLO dump.
 */
char *input_thunk_metadata(const struct input_profile *p,
    int64_t program_id, const char *module);

/*
 * The identity of a profile, as the parts of separate extractions record
 * it so that their merge (merge.h) refuses a profile given twice as
 * input_open does within one extraction: BYTES and HASH, the size and
 * CRC-32 of the profile's own trace (nvtx_gpu_proj_trace/trace.parquet,
 * its *.sqlite export; archive_digest: the zip directory's values, or
 * computed over a file), whatever container holds it; WITHIN, its key in
 * a combined archive ("" for an input of one profile), for people.  Two
 * profiles are the same when BYTES and HASH are equal: the same trace
 * zipped, re-zipped or copied under another name is found (two
 * different traces share a size and CRC-32 with odds of 2^-32 at most).
 * input_ident fills *ID for profile K of S (WITHIN points into S; the
 * digest is kept in the profile); 0 when the trace cannot be read
 * (stdin), else 1.
 */
struct input_ident {
	int64_t bytes;
	uint64_t hash;
	const char *within;
};
int input_ident(struct input_set *s, size_t k, struct input_ident *id);

/*
 * The identities of profiles [LO, HI) of S as a TSV table to W: header
 * input_ident_columns (Bytes, Hash: the CRC-32 as 16 hex digits, Profile: WITHIN,
 * Input: the input path, for messages), a row per profile whose file can
 * be read, in profile order.  Returns tsv_eor's status.
 */
#define INPUT_IDENT_TABLE "profiles"	/* DIR/profiles.tsv of a part */
extern const char *const input_ident_columns[];
struct tsv_writer;
int input_write_idents(struct input_set *s, size_t lo, size_t hi,
    struct tsv_writer *w);

#endif
