/*
 * mem: allocation that cannot fail.  On exhaustion (or a size that
 * overflows size_t) each function prints "prog: out of memory" and exits 1:
 * no caller could recover, and checking everywhere hides the real logic.
 */
#ifndef NSYSJAX_MEM_H
#define NSYSJAX_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A 64-bit digest of the N bytes at P, 8 at a time (FNV-1a's constants,
 * a shift mixing each word): to tell megabyte dumps apart quickly, as a
 * key before comparing them whole.  Not cryptographic: safe against
 * accidents, not against a pair made to collide.
 */
uint64_t mem_digest(const void *p, size_t n);

/* malloc(n); n == 0 returns a valid unique pointer. */
void *mem_alloc(size_t n);

/* calloc(nmemb, size): zeroed, overflow-checked. */
void *mem_calloc(size_t nmemb, size_t size);

/* realloc(p, nmemb * size), overflow-checked. */
void *mem_realloc(void *p, size_t nmemb, size_t size);

/*
 * Transparent huge pages for malloc's heap.  glibc (2.35 on) backs its
 * heaps and large blocks with THP when the tunable glibc.malloc.hugetlb=1
 * is set (glibc manual, "Memory Allocation Tunables"); where the kernel's
 * THP mode is "madvise" (Debian's default) nothing else does, and every
 * 4 KiB page of a fresh heap costs a fault: nsysjax-extract on the
 * shared 4-process run took 31 k faults without the tunable, 4.6 k with
 * it, and 0.78 x the time (on a virtual machine, 10-17 us a fault).
 *
 * Tunables are read at start-up only: mem_huge_pages(ARGV) executes the
 * program again (/proc/self/exe, the same ARGV: main's) with the tunable
 * added to GLIBC_TUNABLES, once.  Call it first in main, before any file,
 * thread or output.  It returns, doing nothing, when
 * mem_hugetlb_tunables says so, in a sanitizer build (its allocator is
 * not glibc's) or before glibc 2.35; a failed exec leaves the
 * environment and the program as they were.
 */
void mem_huge_pages(char *argv[]);

/*
 * The GLIBC_TUNABLES value that mem_huge_pages sets, from OLD (the
 * variable's value, NULL: unset) and THP (the text of
 * /sys/kernel/mm/transparent_hugepage/enabled, e.g. "always [madvise]
 * never\n"; NULL: unreadable): OLD with "glibc.malloc.hugetlb=1" added
 * (after a ':' when OLD is not empty), a new string (free it); or NULL,
 * nothing to change, when OLD names glibc.malloc.hugetlb already (the
 * user's choice, =0 too, or the program executed again) or THP is not
 * "[madvise]" ("[always]": huge already; "[never]": none to have).
 */
char *mem_hugetlb_tunables(const char *old, const char *thp);

/* strdup(s). */
char *mem_strdup(const char *s);

/* A copy of the n bytes at s, NUL-terminated. */
char *mem_strndup(const char *s, size_t n);

/* The path "DIR/NAME", allocated (free it): an archive member under its
 * directory, a file in a work directory. */
char *mem_path(const char *dir, const char *name);

/*
 * All of FP from where it stands to its end, in a new buffer *DATA of
 * *LEN bytes and a NUL after them (text may be read as a string): 0, or
 * -1 on a read error (ferror(FP); errno as fread left it), *DATA and
 * *LEN then untouched and nothing held.  The buffer grows by doubling
 * (at most twice the input's size, 64 KiB at least).  The caller names
 * the stream in its message; out of memory exits.
 */
int mem_read_all(FILE *fp, uint8_t **data, size_t *len);

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
