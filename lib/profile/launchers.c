#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "profile/launchers.h"
#include "profile/nvtx.h"

/* A (program, thread) pair of some thunk. */
struct use {
	int64_t program, pid, tid;
};

struct byid {
	int64_t id;
	size_t i;
};

static int
cmp_byid(const void *a, const void *b)
{
	const struct byid *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int
cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;

	if (x->program != y->program)
		return x->program < y->program ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The program_id of the nearest XlaModule ancestor of R[I], or -1. */
static int64_t
program_of(const struct proj_range *r, const struct byid *ids, size_t n,
    size_t i)
{
	size_t steps;

	for (steps = 0; steps < n; steps++) {
		struct byid k, *f;
		const char *m;
		size_t len;
		int64_t pid;

		if (nvtx_classify(r[i].name) == NVTX_MODULE)
			return nvtx_parse_module(r[i].name, &m, &len, &pid) == 0 ?
			    pid : -1;
		if (r[i].parent < 0)
			return -1;
		k.id = r[i].parent;
		if ((f = bsearch(&k, ids, n, sizeof(*ids), cmp_byid)) == NULL)
			return -1;
		i = f->i;
	}
	return -1;
}

/* Find or add thread TID (PID) in OUT; returns its index. */
static size_t
thread_slot(struct proj_thread **out, size_t *nout, int64_t pid, int64_t tid,
    int64_t *local)
{
	size_t i;

	for (i = 0; i < *nout; i++)
		if ((*out)[i].tid == tid && (*out)[i].pid == pid)
			return i;
	*out = mem_realloc(*out, *nout + 1, sizeof(**out));
	(*out)[*nout].pid = pid;
	(*out)[*nout].tid = tid;
	(*out)[*nout].name = NULL;
	local[*nout] = -1;
	return (*nout)++;
}

int
launchers_derive(const struct proj_range *r, size_t n, size_t profile,
    struct proj_thread **out, size_t *nout)
{
	struct byid *ids = mem_calloc(n + 1, sizeof(*ids));
	struct use *u = mem_calloc(n + 1, sizeof(*u));
	int64_t *local = mem_calloc(n + 1, sizeof(*local)), nlocal = 0;
	size_t i, nu = 0, ordinal = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < n; i++)
		ids[i].id = r[i].id, ids[i].i = i;
	qsort(ids, n, sizeof(*ids), cmp_byid);
	for (i = 0; i < n; i++) {
		int64_t prog;

		if (nvtx_classify(r[i].name) != NVTX_THUNK ||
		    (prog = program_of(r, ids, n, i)) < 0)
			continue;
		u[nu].program = prog, u[nu].pid = r[i].pid;
		u[nu++].tid = r[i].tid;
	}
	qsort(u, nu, sizeof(*u), cmp_use);
	for (i = 0; i < nu && rc == 0; i++) {
		size_t t;

		if (i > 0 && u[i].program == u[i - 1].program &&
		    u[i].tid == u[i - 1].tid)
			continue;
		if (i == 0 || u[i].program != u[i - 1].program)
			ordinal = 0;
		t = thread_slot(out, nout, u[i].pid, u[i].tid, local);
		if (local[t] >= 0 && local[t] != (int64_t)ordinal)
			rc = err_fail("cannot number the devices as nsys-jax did "
			    "without thread-metadata.parquet: thread %lld is local "
			    "device %lld for one program and %zu for program %lld",
			    (long long)u[i].tid, (long long)local[t], ordinal,
			    (long long)u[i].program);
		local[t] = (int64_t)ordinal++;
		if ((int64_t)ordinal > nlocal)
			nlocal = (int64_t)ordinal;
	}
	for (i = 0; i < *nout; i++) {
		char buf[160];

		snprintf(buf, sizeof(buf), "XlaLauncher:#global=%lld,local=%lld,"
		    "process=%zu,slice=0#", (long long)((int64_t)profile *
		    nlocal + local[i]), (long long)local[i], profile);
		(*out)[i].name = mem_strdup(buf);
	}
	free(ids);
	free(u);
	free(local);
	if (rc != 0) {
		launchers_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
	return rc;
}

void
launchers_free(struct proj_thread *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)t[i].name);
	free(t);
}
