/*
 * mem: allocation that cannot fail.  On exhaustion (or a size that
 * overflows size_t) each function prints "prog: out of memory" and exits 1:
 * no caller could recover, and checking everywhere hides the real logic.
 */
#ifndef NSYSJAX_MEM_H
#define NSYSJAX_MEM_H

#include <stddef.h>

/* malloc(n); n == 0 returns a valid unique pointer. */
void *mem_alloc(size_t n);

/* calloc(nmemb, size): zeroed, overflow-checked. */
void *mem_calloc(size_t nmemb, size_t size);

/* realloc(p, nmemb * size), overflow-checked. */
void *mem_realloc(void *p, size_t nmemb, size_t size);

/* strdup(s). */
char *mem_strdup(const char *s);

/* A copy of the n bytes at s, NUL-terminated. */
char *mem_strndup(const char *s, size_t n);

/*
 * Grow the array *p of *cap elements of `size` bytes so that it holds at
 * least `need` elements, doubling to keep appends amortised O(1).
 */
void mem_grow(void *p, size_t *cap, size_t need, size_t size);

/*
 * The first capacity mem_grow gives.  A test build with -DMEM_GROW_MIN=1
 * (make check-grow) grows at every other append, so that code keeping
 * an element pointer across an append fails under ASan at once (review
 * #1: fold.c's new_var did, past 16 rows).
 */
#ifndef MEM_GROW_MIN
#define MEM_GROW_MIN 16
#endif

/*
 * Growth by index: append one zeroed element to the array P of N
 * elements (capacity CAP, all lvalues of the caller) and give its index,
 * never a pointer (which the next append could leave dangling).  The
 * element size comes from P's type, as git's ALLOC_GROW:
 *
 *	size_t i = MEM_PUSH(v, nv, capv);
 *	v[i].x = 1;
 */
#define MEM_PUSH(p, n, cap) mem_push_(&(p), &(n), &(cap), sizeof(*(p)))
size_t mem_push_(void *p, size_t *n, size_t *cap, size_t size);

#endif
