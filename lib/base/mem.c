#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"

static _Noreturn void
oom(void)
{
	err_die("out of memory");
}

uint64_t
mem_digest(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ULL ^ n, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

void *
mem_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
mem_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
mem_realloc(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom();
	p = realloc(p, nmemb && size ? nmemb * size : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
mem_strdup(const char *s)
{
	return mem_strndup(s, strlen(s));
}

char *
mem_strndup(const char *s, size_t n)
{
	char *d = mem_alloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *
mem_path(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = mem_alloc(a + b + 2);

	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}

size_t
mem_push_(void *p, size_t *n, size_t *cap, size_t size)
{
	mem_grow(p, cap, *n + 1, size);
	memset(*(char **)p + *n * size, 0, size);
	return (*n)++;
}

int
mem_read_all(FILE *fp, uint8_t **data, size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;
	int e;

	do {
		mem_grow(&buf, &cap, n + 65536 + 1, 1);
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got > 0);
	if (ferror(fp)) {
		e = errno;	/* for the caller's message, past free */
		free(buf);
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

void
mem_grow(void *p, size_t *cap, size_t need, size_t size)
{
	void **pp = p;
	size_t n = *cap ? *cap : MEM_GROW_MIN;

	if (need <= *cap)
		return;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom();
		n *= 2;
	}
	*pp = mem_realloc(*pp, n, size);
	*cap = n;
}

#define HUGETLB	"glibc.malloc.hugetlb"

char *
mem_hugetlb_tunables(const char *old, const char *thp)
{
	char *v;

	if (old != NULL && strstr(old, HUGETLB) != NULL)
		return NULL;
	if (thp == NULL || strstr(thp, "[madvise]") == NULL)
		return NULL;
	if (old == NULL)
		old = "";
	v = mem_alloc(strlen(old) + sizeof(HUGETLB) + 3);
	sprintf(v, "%s%s" HUGETLB "=1", old, *old ? ":" : "");
	return v;
}

/* A build whose malloc is a sanitizer's (GCC's macro, clang's feature). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

void
mem_huge_pages(char *argv[])
{
#if defined(__GLIBC__) && !defined(SANITIZED) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
	const char *old = getenv("GLIBC_TUNABLES");
	char thp[128], *v, *keep;
	FILE *fp;
	size_t n = 0;

	if (old != NULL && strstr(old, HUGETLB) != NULL)
		return;		/* before any file is opened */
	if ((fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled",
	    "r")) != NULL) {
		n = fread(thp, 1, sizeof(thp) - 1, fp);
		fclose(fp);
	}
	thp[n] = '\0';
	if ((v = mem_hugetlb_tunables(old, n > 0 ? thp : NULL)) == NULL)
		return;
	keep = old != NULL ? mem_strdup(old) : NULL;
	/* The same binary (not ARGV[0], which PATH or a relative path
	 * could resolve elsewhere); descriptors and the signal mask carry
	 * over, and nothing has been read yet. */
	if (setenv("GLIBC_TUNABLES", v, 1) == 0) {
		execv("/proc/self/exe", argv);
		if (keep != NULL)
			(void)setenv("GLIBC_TUNABLES", keep, 1);
		else
			(void)unsetenv("GLIBC_TUNABLES");
	}
	free(keep);
	free(v);
#else
	(void)argv;
#endif
}
