/*
 * outfile: files that a tool writes whole or not at all, so that a failed
 * run leaves no file that looks complete (and no temporary file either).
 * The data goes to a new temporary file next to the target,
 * ".NAME.XXXXXX", created with O_EXCL (base/tempfile.h: no planted file or
 * symlink is followed, two runs never share one, a signal or an exit
 * removes it), which outfile_commit renames over the target and
 * outfile_discard removes.
 * A target that exists and is not a regular file (/dev/stdout, a FIFO, a
 * terminal) is written in place: renaming over it would replace it.
 */
#ifndef NSYSJAX_OUTFILE_H
#define NSYSJAX_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *fp;		/* write here */
	char *path;		/* the target, for messages */
	const char *tmp;	/* the temporary file, NULL when in place
				   (owned by base/tempfile.c) */
};

/*
 * Open target PATH for writing into O->fp.  Returns 0, or -1 with an err
 * message "PATH: cannot create: <strerror>" (O is then empty).
 */
int outfile_open(struct outfile *o, const char *path);

/*
 * Close O->fp once everything is written.  Returns 0, or -1 with an err
 * message "PATH: write error: <strerror>"; either way O still needs
 * outfile_commit or outfile_discard.
 */
int outfile_close(struct outfile *o);

/*
 * Rename the closed temporary file over the target and release O.
 * Returns 0, or -1 with an err message "PATH: cannot rename: ..." (the
 * temporary file is then removed).
 */
int outfile_commit(struct outfile *o);

/* Close O->fp if still open, remove the temporary file and release O. */
void outfile_discard(struct outfile *o);

struct tsv_writer;

/*
 * The TSV file PATH written whole or not at all: opened with
 * outfile_open, WRITE(W, ARG) called with a TSV writer W on it, then
 * closed and committed; when WRITE or any step fails, the file is
 * discarded (no file, and no temporary file, is left).  Returns 0, or -1
 * with the err message of the step that failed (WRITE's own, or "PATH:
 * cannot create: ...", "PATH: write error: ...").
 */
int outfile_tsv(const char *path, int (*write)(struct tsv_writer *w,
    void *arg), void *arg);

/*
 * outfile_tsv of DIR/NAME.tsv: a tool's table NAME written into the
 * directory of its -o (which must exist: outfile_mkdirs).  Returns as
 * outfile_tsv.
 */
int outfile_table(const char *dir, const char *name,
    int (*write)(struct tsv_writer *w, void *arg), void *arg);

/*
 * A tool's tables, the one way every tool writes several: for each T
 * below N whose bit (1u << T) is set in TABLES, in order of T, WRITE(ARG,
 * T, W) writes table T (the shape of an analysis's own writer, which is
 * passed as it is: stats_write, roofline_write).  With DIR, DIR is made (outfile_mkdirs) and each
 * table goes to DIR/PREFIX NAME(T).tsv, written whole or not at all
 * (outfile_table); a table that fails stops the rest, those written stay.
 * Without DIR every table goes to standard output, one after the other.
 * Returns 0, or -1 with the err message of the step that failed.
 */
int outfile_tables(const char *dir, const char *prefix, unsigned tables,
    int n, const char *(*name)(int t),
    int (*write)(void *arg, int t, struct tsv_writer *w), void *arg);

/*
 * Create directory DIR and any missing parents, as `mkdir -p` (mode 0777
 * less the umask).  The directories it creates are registered with
 * tempfile_made_dir: a run that fails (or is killed by a signal) and
 * leaves them empty leaves nothing; directories that existed before are
 * never removed.  Returns 0, or -1 with an err message naming the
 * component: "D: cannot create directory: <strerror>", or "D: not a
 * directory" when a component exists as something else (a file).
 */
int outfile_mkdirs(const char *dir);

/*
 * An anonymous temporary file for a second pass (a spool), open for
 * reading and writing: in $TMPDIR when set (tmpfile() would ignore it, and
 * /tmp may be a small tmpfs), created with O_EXCL (tempfile_create) and
 * unlinked at once, so that nothing is left behind even on a crash.  TAG
 * names it while it exists (".TAG.XXXXXX").  Returns NULL with an err message "cannot create a
 * temporary file: <strerror>".
 */
FILE *outfile_anon(const char *tag);

/* The most parts outfile_split writes at once (files open). */
#define OUTFILE_SPLIT_MAX 64

/*
 * Split the records of the spool IN (SIZE bytes each, read from its
 * start) into N (at most OUTFILE_SPLIT_MAX) anonymous temporary files
 * (outfile_anon, TAG) by PART(record, CTX): a part in [0, N), or N and
 * more for a record left out.  Each part keeps the records in the order
 * read; the files, rewound, go to OUT[0..N), to be closed by the caller.
 * One pass over IN, so that a second pass that reads the spool in parts
 * reads each record once, not once per part.  Returns 0, or -1 with an
 * err message "temporary file: ..." (no file then left open).
 */
int outfile_split(FILE *in, size_t size, size_t n,
    size_t (*part)(const void *rec, const void *ctx), const void *ctx,
    const char *tag, FILE **out);

#endif
