/*
 * nsysrep: an Nsight Systems report (.nsys-rep) read through its SQLite
 * export, which `nsys export` writes; nsysjax reads the export, never the
 * report's own format.
 */
#ifndef NSYSJAX_NSYSREP_H
#define NSYSJAX_NSYSREP_H

/* Whether PATH names a report: it ends in ".nsys-rep". */
int nsysrep_is_report(const char *path);

/*
 * The path of the SQLite export of the report REP, exported now if need
 * be.  The export is cached per user, never beside the report nor in a
 * shared /tmp: in $XDG_CACHE_HOME/nsysjax (else $HOME/.cache/nsysjax),
 * made with mode 0700 and refused unless it is a directory of ours that
 * no one else can write, as
 * "<name>-<dev>-<inode>-<size>-<mtime>.sqlite": keyed by REP's (device,
 * inode, size, mtime), so that a report replaced or changed gets a new
 * export.  A cache file of ours with that key is used as it is (old keys
 * are not removed); otherwise
 *
 *	nsys export --type=sqlite --force-overwrite=true
 *	    --tables=<the tables nsysjax reads> --output=<temporary> REP
 *
 * runs (nsys from PATH; its output on stderr) into a new temporary file
 * of the cache directory (base/tempfile.h: O_EXCL, removed on a signal),
 * renamed to the cache, so that no reader sees a half-written export.
 * Returns a new string, or NULL with an err message naming REP: "cannot
 * open", "DIR: not a private cache directory ...", "nsys is not on PATH:
 * export it with `nsys export --type=sqlite --output=X REP` and give X",
 * "nsys export failed (exit status N)".
 */
char *nsysrep_export(const char *rep);

#endif
