/*
 * tempfile: a temporary file's mode is 0666 less the umask and its name
 * ".NAME.XXXXXX" with the X's replaced, and making it never sets the
 * umask: the umask of a process is read only by setting it (umask(2)),
 * and in a process with threads a file another thread created while it
 * was set to 0 for the read got mode 0666.  umask is defined here, in
 * the program, so that the library's calls come here and are counted.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/tempfile.h"
#include "unit.h"

static int calls;

mode_t
umask(mode_t mask)
{
	calls++;
	return (mode_t)syscall(SYS_umask, mask);
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
	return unit_done("tempfile");
}
