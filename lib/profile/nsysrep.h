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
 * be.  The export is cached: REP with ".sqlite" for ".nsys-rep" when
 * REP's directory is writable, else "$TMPDIR/nsysjax-<name>-<hash>.sqlite"
 * (/tmp without TMPDIR; <hash> of REP's absolute path, so that reports of
 * the same name do not share one).  A cache newer than REP is used as it
 * is; otherwise
 *
 *	nsys export --type=sqlite --force-overwrite=true
 *	    --tables=<the tables nsysjax reads> --output=<cache>.tmp REP
 *
 * runs (nsys from PATH; its output on stderr) and its file is renamed to
 * the cache, so that no reader sees a half-written export.  Returns a new
 * string, or NULL with an err message naming REP: "cannot open", "nsys
 * is not on PATH: export it with `nsys export --type=sqlite --output=X
 * REP` and give X", "nsys export failed (exit status N)".
 */
char *nsysrep_export(const char *rep);

#endif
