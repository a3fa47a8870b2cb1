/* Processors and a small thread pool (pool.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/pool.h"

unsigned
pool_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

void
pool_run(size_t n, void *(*fn)(void *), void *arg)
{
	pthread_t *th = mem_calloc(n + 1, sizeof(*th));
	size_t i, started = 0;

	for (i = 1; i < n; i++)
		if (pthread_create(&th[started], NULL, fn, arg) == 0)
			started++;
	fn(arg);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}
