/*
 * sort: qsort with a context argument, stable.  qsort has none, so its
 * comparators read file-scope pointers (set before each call: not
 * reentrant, and the context of a sort is invisible at its call).  Here
 * the context is passed through, and ties keep their input order on
 * every C library (glibc's qsort is a merge sort only while it can
 * allocate; others are not stable at all).  And the binary search of
 * such sorted arrays, with the same comparator type.
 */
#ifndef NSYSJAX_SORT_H
#define NSYSJAX_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A comparator: <0, 0, >0 as A sorts before, with, after B; CTX is the
 * sort's context. */
typedef int (*sort_cmp)(const void *a, const void *b, const void *ctx);

/*
 * Sort the N elements of SIZE bytes at BASE by CMP, passing CTX to every
 * call; equal elements keep their order.  A top-down merge sort that
 * splits N as N/2 + (N - N/2) and takes the left element unless CMP says
 * the right one is smaller, as glibc's msort does, so that outputs stay
 * byte-identical to glibc's qsort (on its merge path) for any comparator.
 * O(N log N) comparisons, N * SIZE bytes of scratch (mem.h: out of memory
 * exits).  BASE may be NULL when N is 0.
 */
void sort_stable(void *base, size_t n, size_t size, sort_cmp cmp,
    const void *ctx);

/*
 * As sort_stable, for a comparator that is a total order (no two
 * elements compare equal: a final tiebreak by index, say), which every
 * correct sort then puts in the same order: BASE already in order is
 * left as it is after N - 1 comparisons (nsysjax-critpath's operations,
 * read by device in time order, sort by stream that way).
 */
void sort_total(void *base, size_t n, size_t size, sort_cmp cmp,
    const void *ctx);

/* A comparator of two indices into the caller's records (CTX). */
typedef int (*sort_idx_cmp)(uint32_t a, uint32_t b, const void *ctx);

/*
 * Sort the indices V[0..N) by CMP, stably: a natural merge sort, which
 * finds the runs already in order and merges them pairwise, so that the
 * nearly ordered indices of a trace (records read in time order) sort in
 * a few linear passes; O(N log N) comparisons at worst.  Sorting indices,
 * not records, keeps the scratch at 4 bytes per element (N * 4 bytes,
 * none when V is already in order; mem.h: out of memory exits).
 */
void sort_idx(uint32_t *v, size_t n, sort_idx_cmp cmp, const void *ctx);

/*
 * The first index i in [0, N) of the N elements of SIZE bytes at BASE
 * for which CMP(BASE + i * SIZE, KEY, CTX) >= 0, or N if there is none:
 * where KEY goes before its equals (C++'s std::lower_bound).  BASE must
 * be in order for CMP: every element it puts before KEY (< 0) comes
 * first.  KEY need not be an element: CMP is always called with an
 * element first and KEY second, so KEY may be a bare key or a struct of
 * the fields CMP reads.  A bisection of [0, N) at lo + (hi - lo) / 2:
 * at most floor(log2 N) + 1 calls of CMP, nothing allocated.  A part
 * [LO, HI) of an array is searched as BASE + LO * SIZE, HI - LO (add LO
 * to the result).  BASE may be NULL when N is 0.
 */
size_t sort_lower_bound(const void *base, size_t n, size_t size,
    const void *key, sort_cmp cmp, const void *ctx);

#endif
