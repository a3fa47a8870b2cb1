/*
 * fuzz: helpers of the fuzz targets, header-only (each target is a
 * program of its own, built with replay.c or with libFuzzer's main).
 * Everything is static inline, so that a target need not use all.
 */
#ifndef NSYSJAX_FUZZ_H
#define NSYSJAX_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NTMP 4

static char fuzz_tmpname[FUZZ_NTMP][64];

static inline void
fuzz_cleanup(void)
{
	size_t i;

	for (i = 0; i < FUZZ_NTMP; i++)
		if (fuzz_tmpname[i][0])
			unlink(fuzz_tmpname[i]);
}

/*
 * The path of temporary file I (< FUZZ_NTMP) holding DATA[0..N), for the
 * readers that take a file name.  The files are made once and removed at
 * exit.
 */
static inline const char *
fuzz_file(size_t i, const uint8_t *data, size_t n)
{
	static int registered;
	const char *dir = getenv("TMPDIR");
	FILE *fp;
	int fd;

	if (fuzz_tmpname[i][0] == '\0') {
		snprintf(fuzz_tmpname[i], sizeof(fuzz_tmpname[i]),
		    "%.40s/nsysjax-fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
		if ((fd = mkstemp(fuzz_tmpname[i])) < 0)
			abort();
		close(fd);
		if (!registered++)
			atexit(fuzz_cleanup);
	}
	if ((fp = fopen(fuzz_tmpname[i], "wb")) == NULL ||
	    (n > 0 && fwrite(data, 1, n, fp) != n) || fclose(fp) != 0)
		abort();
	return fuzz_tmpname[i];
}

/*
 * DATA[0..N) cut at form feeds into the FUZZ_NTMP temporary files of
 * fuzz_file: FILES[i] is the path of the i-th text (empty when DATA has
 * fewer; what follows a FUZZ_NTMP-th form feed is left out).  For the
 * targets whose input is several files.
 */
static inline void
fuzz_files(const uint8_t *data, size_t n, char *files[FUZZ_NTMP])
{
	const uint8_t *p = data, *end = data + n, *ff;
	size_t i;

	for (i = 0; i < FUZZ_NTMP; i++) {
		ff = p < end ? memchr(p, '\f', (size_t)(end - p)) : NULL;
		if (ff == NULL)
			ff = end;
		files[i] = (char *)fuzz_file(i, p, (size_t)(ff - p));
		p = ff < end ? ff + 1 : end;
	}
}

/* Output that goes nowhere, for the writers. */
static inline FILE *
fuzz_null(void)
{
	static FILE *fp;

	if (fp == NULL && (fp = fopen("/dev/null", "w")) == NULL)
		abort();
	return fp;
}

/* DATA[0..N) as a C string in a buffer of exactly N + 1 bytes. */
static inline char *
fuzz_str(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

#endif
