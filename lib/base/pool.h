/*
 * pool: the processors to use, and a pool that runs one function in
 * several threads over a shared queue of jobs (the function takes its
 * jobs from the queue itself, e.g. with an atomic counter), the calling
 * thread among them.
 */
#ifndef NSYSJAX_POOL_H
#define NSYSJAX_POOL_H

#include <stddef.h>

/* The processors online (sysconf _SC_NPROCESSORS_ONLN), from 1 to 1024:
 * 1 when the count is not known. */
unsigned pool_cores(void);

/*
 * Run FN(ARG) in up to N threads at once: N - 1 threads started, FN
 * called in this one too, then every thread joined.  A thread that
 * cannot start is no error: the others, this one at least, take its
 * share of the queue.  N of 0 or 1: FN is called here alone.
 */
void pool_run(size_t n, void *(*fn)(void *), void *arg);

#endif
