/*
 * tempfile: a temporary file's mode is 0666 less the umask and its name
 * ".NAME.XXXXXX" with the X's replaced, and making it never sets the
 * umask: the umask of a process is read only by setting it (umask(2)),
 * and in a process with threads a file another thread created while it
 * was set to 0 for the read got mode 0666.  umask is defined here, in
 * the program, so that the library's calls come here and are counted.
 * And outfile_split: a spool split into parts, each a temporary file.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/tempfile.h"
#include "unit.h"

static int calls;

mode_t
umask(mode_t mask)
{
	calls++;
	return (mode_t)syscall(SYS_umask, mask);
}

/* outfile_split's part of a record: its first byte mod 3; 9: left out. */
static size_t
part_of(const void *rec, const void *ctx)
{
	unsigned char c = *(const unsigned char *)rec;

	(void)ctx;
	return c == 9 ? 9 : c % 3;
}

/* A spool of records (3 bytes: i, i + 1, i + 2) split into 3 parts: each
 * part has its records in order, once, and the left-out ones nowhere. */
static void
split_test(void)
{
	FILE *in = outfile_anon("split-test"), *out[3];
	unsigned char r[3];
	int i, k, next[3] = { 0, 1, 2 }, n = 0;

	CHECK(in != NULL);
	for (i = 0; i < 30; i++) {
		r[0] = (unsigned char)i, r[1] = (unsigned char)(i + 1);
		r[2] = (unsigned char)(i + 2);
		CHECK(fwrite(r, 3, 1, in) == 1);
	}
	CHECK(outfile_split(in, 3, 3, part_of, NULL, "split-test", out) == 0);
	for (k = 0; k < 3; k++) {
		while (fread(r, 3, 1, out[k]) == 1) {
			if (next[k] == 9)
				next[k] += 3;
			CHECK_INT(r[0], next[k]);
			CHECK_INT(r[2], next[k] + 2);
			next[k] += 3;
			n++;
		}
		fclose(out[k]);
	}
	CHECK_INT(n, 29);
	CHECK(outfile_split(in, 3, OUTFILE_SPLIT_MAX + 1, part_of, NULL,
	    "split-test", out) != 0);
	fclose(in);
}

int
main(void)
{
	char dir[] = "/tmp/nsysjax-tempfile-test.XXXXXX";
	char target[80], want[80];
	const char *path;
	struct stat st;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	umask(027);
	calls = 0;
	snprintf(target, sizeof(target), "%s/frame.tsv", dir);
	snprintf(want, sizeof(want), "%s/.frame.tsv.", dir);
	fd = tempfile_create(target, NULL, &path);
	CHECK(fd >= 0);
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK(strncmp(path, want, strlen(want)) == 0 &&
	    strlen(path) == strlen(want) + 6 &&
	    strcmp(path + strlen(want), "XXXXXX") != 0);
	close(fd);
	tempfile_remove(path);
	/* With a suffix, the X's are those before it. */
	fd = tempfile_create(target, ".sqlite", &path);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK(strlen(path) == strlen(want) + 6 + 7 &&
	    strcmp(path + strlen(path) - 7, ".sqlite") == 0 &&
	    strncmp(path + strlen(want), "XXXXXX", 6) != 0);
	close(fd);
	tempfile_remove(path);
	CHECK_INT(calls, 0);
	CHECK(access(path, F_OK) != 0);
	CHECK(rmdir(dir) == 0);
	split_test();
	return unit_done("tempfile");
}
