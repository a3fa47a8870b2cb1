#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/tempfile.h"
#include "profile/nsysrep.h"

extern char **environ;

#ifndef NSYSJAX_EXPORT_TABLES
#error "NSYSJAX_EXPORT_TABLES: the tables of nsys export, from the Makefile"
#endif

static const char suffix[] = ".nsys-rep";

int
nsysrep_is_report(const char *path)
{
	size_t n = strlen(path), k = sizeof(suffix) - 1;

	return n > k && strcmp(path + n - k, suffix) == 0;
}

/* DIR exists (made now, mode 0700, if not) and is a directory of ours
 * that no one else may write: 0, or -1 with a message. */
static int
private_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return err_fail("%s: cannot create the cache directory: %s",
		    dir, strerror(errno));
	if (lstat(dir, &st) != 0)
		return err_fail("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0)
		return err_fail("%s: not a private cache directory (a "
		    "directory of ours that others cannot write)", dir);
	return 0;
}

/* The per-user cache directory (see nsysrep.h), made if need be; a new
 * string, or NULL with a message. */
static char *
cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	char *d;

	if (x && *x == '/') {
		d = mem_alloc(strlen(x) + sizeof("/nsysjax"));
		sprintf(d, "%s/nsysjax", x);
		/* $XDG_CACHE_HOME itself may be missing: made 0700. */
		if (mkdir(x, 0700) != 0 && errno != EEXIST)
			return err_fail("%s: cannot create: %s", x,
			    strerror(errno)), free(d), NULL;
	} else if (h && *h == '/') {
		d = mem_alloc(strlen(h) + sizeof("/.cache/nsysjax"));
		sprintf(d, "%s/.cache", h);
		if (mkdir(d, 0700) != 0 && errno != EEXIST)
			return err_fail("%s: cannot create: %s", d,
			    strerror(errno)), free(d), NULL;
		strcat(d, "/nsysjax");
	} else {
		return err_fail("no cache directory for the SQLite export: "
		    "set XDG_CACHE_HOME or HOME"), NULL;
	}
	if (private_dir(d) != 0) {
		free(d);
		return NULL;
	}
	return d;
}

/* Where the export of REP (whose status is RS) is cached: its name and
 * its (device, inode, size, mtime), so that a report replaced or
 * changed in any way gets a new export. */
static char *
cache_path(const char *dir, const char *rep, const struct stat *rs)
{
	const char *slash = strrchr(rep, '/');
	const char *name = slash ? slash + 1 : rep;
	int nlen = (int)(strlen(name) - (sizeof(suffix) - 1));
	size_t len = strlen(dir) + strlen(name) + 128;
	char *p = mem_alloc(len);

	snprintf(p, len, "%s/%.*s-%llx-%llx-%lld-%lld.%09ld.sqlite", dir,
	    nlen, name, (unsigned long long)rs->st_dev,
	    (unsigned long long)rs->st_ino, (long long)rs->st_size,
	    (long long)rs->st_mtim.tv_sec, (long)rs->st_mtim.tv_nsec);
	return p;
}

/* Run nsys export of REP into OUT; 0, or -1 with a message. */
static int
run_export(const char *rep, const char *out)
{
	char *outopt = mem_alloc(strlen(out) + sizeof("--output="));
	char *argv[] = { "nsys", "export", "--type=sqlite",
	    "--force-overwrite=true", "--tables=" NSYSJAX_EXPORT_TABLES,
	    outopt, (char *)rep, NULL };
	pid_t pid;
	int rc, st;

	sprintf(outopt, "--output=%s", out);
	rc = posix_spawnp(&pid, "nsys", NULL, NULL, argv, environ);
	free(outopt);
	if (rc == ENOENT)
		return err_fail("%s: nsys is not on PATH: export it with `nsys "
		    "export --type=sqlite --output=X.sqlite %s` and give "
		    "X.sqlite", rep, rep);
	if (rc != 0)
		return err_fail("%s: cannot run nsys: %s", rep, strerror(rc));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return err_fail("%s: nsys export: %s", rep,
			    strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return err_fail("%s: nsys export failed (%s %d)", rep,
		    WIFEXITED(st) ? "exit status" : "signal",
		    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return 0;
}

char *
nsysrep_export(const char *rep)
{
	struct stat rs, cs;
	const char *tmp;
	char *dir, *cache;
	int fd;

	if (stat(rep, &rs) != 0)
		return err_fail("%s: cannot open: %s", rep, strerror(errno)),
		    NULL;
	if ((dir = cache_dir()) == NULL)
		return err_prefix("%s", rep), NULL;
	cache = cache_path(dir, rep, &rs);
	free(dir);
	/* Ours, in a directory only we can write: trusted. */
	if (lstat(cache, &cs) == 0 && S_ISREG(cs.st_mode) &&
	    cs.st_uid == geteuid())
		return cache;
	if ((fd = tempfile_create(cache, ".sqlite", &tmp)) < 0) {
		free(cache);
		return err_prefix("%s", rep), NULL;
	}
	close(fd);
	if (run_export(rep, tmp) != 0) {
		tempfile_remove(tmp);
		free(cache);
		return NULL;
	}
	if (tempfile_commit(tmp, cache) != 0) {
		err_prefix("%s", rep);
		free(cache);
		return NULL;
	}
	return cache;
}
