/*
 * tempfile: every temporary path a tool makes, in one registry (the
 * model is git's tempfile.c and lockfile.c).  A temporary file is
 * created with O_CREAT|O_EXCL (as mkstemp, mode 0666 less the umask) in
 * the directory of its target, so that no planted file or symlink is
 * followed and two runs never share one, and is registered; it is
 * committed by rename(2) over its target, or removed.  Whatever is still registered when the process
 * exits (atexit) or is ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT is
 * removed by one handler: files are unlinked, directories made by
 * tempfile_mkdtemp removed with their contents, output directories a
 * tool created (tempfile_made_dir) removed only if empty, and child
 * processes registered with tempfile_child are sent SIGTERM and waited
 * for first, so that nothing they write lands after the removal.
 *
 * The handler uses only async-signal-safe calls (kill, waitpid, unlink,
 * rmdir, open, the getdents64 system call on Linux, sigaction, raise)
 * and entries that stay valid until they leave the registry, with the
 * signals blocked while the registry changes.  An entry belongs to the
 * process that made it: a forked child that exits or is signalled never
 * removes its parent's paths.  Then the signal is raised again with its
 * default action, so the exit status is the signal's.
 */
#ifndef NSYSJAX_TEMPFILE_H
#define NSYSJAX_TEMPFILE_H

#include <sys/types.h>

/*
 * Create and open, mode 0666 less the umask, a new temporary file for
 * TARGET in TARGET's directory: ".NAME.XXXXXX" (NAME TARGET's last
 * component), or with SUFFIX appended to that when SUFFIX is not NULL
 * (a program that insists on an extension).  Registered.  Returns the
 * file descriptor and sets *PATH to the temporary name (owned by the
 * registry until tempfile_commit or tempfile_remove), or -1 with an err
 * message "TARGET: cannot create: <strerror>" and errno set.
 */
int tempfile_create(const char *target, const char *suffix, const char **path);

/*
 * Rename the temporary file PATH (from tempfile_create) over TARGET and
 * unregister it.  Returns 0, or -1 with an err message "TARGET: cannot
 * rename: <strerror>" (the temporary file is then removed).
 */
int tempfile_commit(const char *path, const char *target);

/* Remove the temporary file or directory PATH now and unregister it. */
void tempfile_remove(const char *path);

/*
 * Create a new directory from TEMPLATE (ending in "XXXXXX", as
 * mkdtemp(3)), mode 0700, registered: removed with everything in it
 * unless tempfile_remove'd first.  Returns its path (owned by the
 * registry), or NULL with an err message "TEMPLATE: cannot create a
 * temporary directory: <strerror>".
 */
const char *tempfile_mkdtemp(const char *template);

/*
 * Register DIR, an output directory the tool has just created (it did
 * not exist before): at exit or on a signal it is removed if it is
 * empty, so that a failed run leaves nothing it made, and a directory
 * that held anything before is never touched.  Directories registered
 * later (deeper) are removed first.
 */
void tempfile_made_dir(const char *dir);

/*
 * Register child process PID: on a signal it is sent SIGTERM and waited
 * for before any path is removed.  tempfile_child_done(PID) once it has
 * been reaped.
 */
void tempfile_child(pid_t pid);
void tempfile_child_done(pid_t pid);

/*
 * Around fork(2): tempfile_block() blocks the handled signals and
 * returns the old mask in *OLD; tempfile_unblock(OLD) restores it, in
 * the parent once the child is registered, in the child once it has set
 * its own dispositions (git's run-command.c does the same).
 */
#include <signal.h>
void tempfile_block(sigset_t *old);
void tempfile_unblock(const sigset_t *old);

#endif
