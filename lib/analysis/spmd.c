/*
 * spmd: the join of ProgramIds that are one SPMD step (spmd.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/spmd.h"
#include "base/mem.h"

uint64_t
spmd_sig_add(uint64_t sig, const char *name, size_t len, int64_t csize)
{
	const uint64_t prime = UINT64_C(1099511628211);
	uint64_t c = (uint64_t)csize;
	size_t i;

	for (i = 0; i < len; i++)
		sig = (sig ^ (unsigned char)name[i]) * prime;
	sig = (sig ^ 0xff) * prime;	/* no byte of a name: a separator */
	for (i = 0; i < 8; i++, c >>= 8)
		sig = (sig ^ (c & 0xff)) * prime;
	return sig == 0 ? 1 : sig;
}

/* Whether the sorted device lists of A and B share none. */
static int
disjoint(const struct spmd_prog *a, const struct spmd_prog *b)
{
	size_t i = 0, j = 0;

	while (i < a->ndev && j < b->ndev) {
		if (a->dev[i] == b->dev[j])
			return 0;
		if (a->dev[i] < b->dev[j])
			i++;
		else
			j++;
	}
	return 1;
}

static int
joinable(const struct spmd_prog *a, const struct spmd_prog *b)
{
	return a->module == b->module && a->sig != 0 && a->sig == b->sig &&
	    a->ncoll > 0 && a->ncoll == b->ncoll;
}

size_t
spmd_join(const struct spmd_prog *p, size_t n, size_t *rep)
{
	size_t i, j, k, groups = 0, *mem = mem_calloc(n + 1, sizeof(*mem));

	for (i = 0; i < n; i++)
		rep[i] = SIZE_MAX;
	/* Greedy, in index order: a group takes every later ProgramId that
	 * matches its first and shares no device with its members. */
	for (i = 0; i < n; i++) {
		size_t m = 0, best = i;

		if (rep[i] != SIZE_MAX)
			continue;
		mem[m++] = i;
		for (j = i + 1; j < n; j++) {
			int ok = rep[j] == SIZE_MAX && joinable(&p[i], &p[j]);

			for (k = 0; ok && k < m; k++)
				ok = disjoint(&p[mem[k]], &p[j]);
			if (ok)
				mem[m++] = j;
		}
		for (k = 0; k < m; k++)
			if (p[mem[k]].ndev > p[best].ndev)
				best = mem[k];
		for (k = 0; k < m; k++)
			rep[mem[k]] = best;
		groups += m > 1;
	}
	free(mem);
	return groups;
}
