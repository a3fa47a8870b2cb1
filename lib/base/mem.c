#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"

static _Noreturn void
oom(void)
{
	err_die("out of memory");
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

size_t
mem_push_(void *p, size_t *n, size_t *cap, size_t size)
{
	mem_grow(p, cap, *n + 1, size);
	memset(*(char **)p + *n * size, 0, size);
	return (*n)++;
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
