/* base/: the error vocabulary's corner cases (a prefix before any
 * message, review #7); opt's list and file helpers. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/opt.h"
#include "unit.h"

/* A prefix before any message: "unknown error" is prefixed (the old
 * code copied 4095 bytes from that 14-byte literal: ASan reported a
 * global-buffer-overflow). */
static void
prefix_first(void)
{
	CHECK_INT(err_prefix("ctx"), -1);
	CHECK_STR(err_msg(), "ctx: unknown error");
	CHECK_INT(err_prefix("outer"), -1);
	CHECK_STR(err_msg(), "outer: ctx: unknown error");
}

static const struct opt_tool tool = { "usage: base_test", "" };

/* The index of "ops", "modules", "steps", or -1. */
static int
table_of(const char *name)
{
	static const char *const names[] = { "ops", "modules", "steps" };
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* FN(ARG) in a child with stderr closed: its exit status, -1 when it
 * returned or died of a signal. */
static int
status_of(void (*fn)(const char *), const char *arg)
{
	pid_t pid;
	int st, fd;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 2);
		fn(arg);
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 99 ? -1 : WEXITSTATUS(st);
}

static void
bits_of(const char *arg)
{
	(void)opt_bits(&tool, "table", arg, table_of);
}

static void
read_of(const char *path)
{
	opt_read(path, NULL, NULL);
}

/* The -t lists: a bit per name, repeats and empty items harmless;
 * an unknown name or no name is a usage error (exit 2). */
static void
bits(void)
{
	CHECK_INT(opt_bits(&tool, "table", "ops", table_of), 1);
	CHECK_INT(opt_bits(&tool, "table", "steps,ops", table_of), 5);
	CHECK_INT(opt_bits(&tool, "table", ",modules,,modules,", table_of), 2);
	CHECK_INT(opt_bits(&tool, "table", "ops,modules,steps", table_of), 7);
	CHECK_INT(status_of(bits_of, "ops,nope"), 2);
	CHECK_INT(status_of(bits_of, ",,"), 2);
	CHECK_INT(status_of(bits_of, ""), 2);
}

static int
count_lines(FILE *fp, const char *path, void *arg)
{
	int c;

	(void)path;
	while ((c = getc(fp)) != EOF)
		*(int *)arg += c == '\n';
	return 0;
}

static int
refuse(FILE *fp, const char *path, void *arg)
{
	(void)fp;
	(void)arg;
	return err_fail("%s: refused", path);
}

static void
refuse_of(const char *path)
{
	opt_read(path, refuse, NULL);
}

/* A file an option names: read by the callback; a file that cannot be
 * opened or a reader that fails ends the run (exit 1). */
static void
reads(void)
{
	char path[] = "/tmp/base_test.XXXXXX";
	int fd = mkstemp(path), n = 0;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INT((int)write(fd, "a\nb\nc\n", 6), 6);
	close(fd);
	opt_read(path, count_lines, &n);
	CHECK_INT(n, 3);
	CHECK_INT(status_of(refuse_of, path), 1);
	unlink(path);
	CHECK_INT(status_of(read_of, path), 1);
}

int
main(void)
{
	prefix_first();
	bits();
	reads();
	return unit_done("base");
}
