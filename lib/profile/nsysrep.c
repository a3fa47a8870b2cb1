#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
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

/* FNV-1a of S: tells apart reports of one name in TMPDIR. */
static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* Where the export of REP is cached (see nsysrep.h). */
static char *
cache_path(const char *rep)
{
	size_t n = strlen(rep) - (sizeof(suffix) - 1);
	const char *slash = strrchr(rep, '/'), *tmp = getenv("TMPDIR");
	char *dir = slash ? mem_strndup(rep, (size_t)(slash - rep) + 1) :
	    mem_strdup("."), *abs, *p;
	size_t len;

	if (access(dir, W_OK) == 0) {
		free(dir);
		p = mem_alloc(n + sizeof(".sqlite"));
		sprintf(p, "%.*s.sqlite", (int)n, rep);
		return p;
	}
	free(dir);
	abs = realpath(rep, NULL);
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	slash = slash ? slash + 1 : rep;
	len = strlen(tmp) + strlen(slash) + 48;
	p = mem_alloc(len);
	snprintf(p, len, "%s/nsysjax-%.*s-%016llx.sqlite", tmp,
	    (int)(strlen(slash) - (sizeof(suffix) - 1)), slash,
	    (unsigned long long)fnv1a(abs ? abs : rep));
	free(abs);
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
	char *cache, *tmp;

	if (stat(rep, &rs) != 0)
		return err_fail("%s: cannot open: %s", rep, strerror(errno)),
		    NULL;
	cache = cache_path(rep);
	if (stat(cache, &cs) == 0 && S_ISREG(cs.st_mode) &&
	    (cs.st_mtim.tv_sec > rs.st_mtim.tv_sec ||
	    (cs.st_mtim.tv_sec == rs.st_mtim.tv_sec &&
	    cs.st_mtim.tv_nsec > rs.st_mtim.tv_nsec)))
		return cache;
	tmp = mem_alloc(strlen(cache) + 32);
	sprintf(tmp, "%s.%ld.tmp.sqlite", cache, (long)getpid());
	if (run_export(rep, tmp) != 0) {
		unlink(tmp);
		free(tmp);
		free(cache);
		return NULL;
	}
	if (rename(tmp, cache) != 0) {
		err_fail("%s: cannot write %s: %s", rep, cache,
		    strerror(errno));
		unlink(tmp);
		free(tmp);
		free(cache);
		return NULL;
	}
	free(tmp);
	return cache;
}
