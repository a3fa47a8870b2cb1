/*
 * replay: run a fuzz target over files, without libFuzzer.  Each argument
 * is a file or a directory whose files (not subdirectories) are fed to
 * LLVMFuzzerTestOneInput one at a time, each in a buffer of exactly its
 * size so that a sanitizer sees any read past the end.  Built with any
 * compiler, this makes every corpus a regression test (make check).
 * Prints "NAME: N inputs" and exits 0, or 1 if a file cannot be read; a
 * crash is the target's to report.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
run_file(const char *path)
{
	FILE *fp;
	uint8_t *buf;
	struct stat st;
	size_t n;

	if ((fp = fopen(path, "rb")) == NULL || fstat(fileno(fp), &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	n = (size_t)st.st_size;
	if ((buf = malloc(n ? n : 1)) == NULL || fread(buf, 1, n, fp) != n) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct dirent *e;
	struct stat st;
	size_t count = 0;
	char *path;
	DIR *d;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			count++;
			continue;
		}
		if ((d = opendir(argv[i])) == NULL) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			return 1;
		}
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			if ((path = malloc(strlen(argv[i]) +
			    strlen(e->d_name) + 2)) == NULL)
				return 1;
			sprintf(path, "%s/%s", argv[i], e->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				rc |= run_file(path);
				count++;
			}
			free(path);
		}
		closedir(d);
	}
	printf("%s: %zu inputs\n", argv[0], count);
	return rc != 0;
}
