/* base/: the error vocabulary's corner cases (a prefix before any
 * message); opt's list and file helpers; mem_digest, mem_path and
 * mem_read_all. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
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

/* err_prefix_at: "line N: " becomes "NAME:N: "; anything else is
 * prefixed as err_prefix does (its line number read by num.h). */
static void
prefix_at(void)
{
	err_fail("line 12: bad field");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv:12: bad field");
	err_fail("line x: bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line x: bad");
	err_fail("line 99999999999999999999: bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line 99999999999999999999: bad");
	err_fail("line 7 bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line 7 bad");
}

/* CHECK_STR on a new string (or NULL), freed. */
static void
check_tunables(const char *old, const char *thp, const char *want)
{
	char *v = mem_hugetlb_tunables(old, thp);

	if (want == NULL)
		CHECK(v == NULL);
	else
		CHECK_STR(v, want);
	free(v);
}

/* The GLIBC_TUNABLES that mem_huge_pages executes the program with:
 * only where THP is madvise'd, never over the user's own choice. */
static void
tunables(void)
{
	const char *mad = "always [madvise] never\n";

	check_tunables(NULL, mad, "glibc.malloc.hugetlb=1");
	check_tunables("", mad, "glibc.malloc.hugetlb=1");
	check_tunables("glibc.malloc.perturb=0", mad,
	    "glibc.malloc.perturb=0:glibc.malloc.hugetlb=1");
	/* Named already: by the user (0 kept) or by the first run. */
	check_tunables("glibc.malloc.hugetlb=0", mad, NULL);
	check_tunables("glibc.malloc.check=0:glibc.malloc.hugetlb=1", mad,
	    NULL);
	/* THP everywhere already, nowhere, or unknown. */
	check_tunables(NULL, "[always] madvise never\n", NULL);
	check_tunables(NULL, "always madvise [never]\n", NULL);
	check_tunables(NULL, NULL, NULL);
}

/* mem_digest: the same for the same bytes wherever they are; another
 * for any one bit flipped (in the 8-byte words and in the tail) and for
 * another length. */
static void
digest(void)
{
	unsigned char a[37], b[64];
	size_t i, same = 0, bit;
	uint64_t d;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 7 + 1);
	d = mem_digest(a, sizeof(a));
	memcpy(b + 3, a, sizeof(a));
	CHECK(mem_digest(b + 3, sizeof(a)) == d);
	for (i = 0; i < sizeof(a); i++)
		for (bit = 0; bit < 8; bit++) {
			a[i] ^= (unsigned char)(1u << bit);
			same += mem_digest(a, sizeof(a)) == d;
			a[i] ^= (unsigned char)(1u << bit);
		}
	CHECK_INT(same, 0);
	CHECK(mem_digest(a, sizeof(a) - 1) != d);
	CHECK(mem_digest(a, 0) != mem_digest(a, 1));
}

/* mem_path: DIR, a slash, NAME. */
static void
path(void)
{
	char *p = mem_path("a/b", "c.tsv");

	CHECK_STR(p, "a/b/c.tsv");
	free(p);
	p = mem_path("", "x");
	CHECK_STR(p, "/x");
	free(p);
}

/* mem_read_all: every byte of streams of 0 to 200000 bytes (either side
 * of its 64 KiB steps), from where the stream stands, a NUL after them;
 * a stream that cannot be read (opened for writing only) gives -1 and
 * leaves *DATA and *LEN as they were. */
static void
read_all(void)
{
	static const size_t sizes[] = { 0, 1, 65535, 65536, 65537, 200000 };
	uint8_t *d, *keep = (uint8_t *)"x";
	size_t s, i, len, bad;
	FILE *fp;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		if ((fp = tmpfile()) == NULL) {
			CHECK(fp != NULL);
			return;
		}
		for (i = 0; i < sizes[s]; i++)
			putc((int)(i * 7 % 251), fp);
		rewind(fp);
		if (sizes[s] > 0)
			getc(fp);	/* from the second byte on */
		d = NULL;
		CHECK_INT(mem_read_all(fp, &d, &len), 0);
		CHECK_INT(len, sizes[s] > 0 ? sizes[s] - 1 : 0);
		for (bad = 0, i = 0; i < len; i++)
			bad += d[i] != (uint8_t)((i + 1) * 7 % 251);
		CHECK_INT(bad, 0);
		CHECK_INT(d[len], 0);
		free(d);
		fclose(fp);
	}
	if ((fp = fopen("/dev/null", "w")) == NULL) {
		CHECK(fp != NULL);
		return;
	}
	d = keep;
	len = 42;
	CHECK_INT(mem_read_all(fp, &d, &len), -1);
	CHECK(d == keep);
	CHECK_INT(len, 42);
	fclose(fp);
}

int
main(void)
{
	digest();
	path();
	read_all();
	prefix_first();
	bits();
	reads();
	prefix_at();
	tunables();
	return unit_done("base");
}
