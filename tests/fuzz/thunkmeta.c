/*
 * Fuzz target: XLA's thunk metadata dump (formats/thunkmeta.h), and what
 * cmdbuf.h builds on it: every command buffer's members, and the
 * matching of made-up operations named after the entries (kernel names
 * as XLA spells them) with a check that every assignment names a member
 * and that a split keeps on the buffer's row the unmatched operations'
 * time, its rows within the buffer's span.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/thunkmeta.h"
#include "profile/cmdbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
never(void *arg, const char *name)
{
	(void)arg;
	return name[0] == 'z';
}

static void
buffer(const struct thunkmeta *t, size_t b)
{
	struct cmdbuf_members m;
	struct cmdbuf_op *ops;
	struct cmdbuf_stats st;
	struct frames f;
	struct cmdbuf_assign *a;
	size_t i, n = t->n;
	int64_t sum = 0, unmatched = 0;

	memset(&m, 0, sizeof(m));
	cmdbuf_members_meta(&m, t, b, never, NULL);
	ops = calloc(n + 1, sizeof(*ops));
	a = calloc(n + 1, sizeof(*a));
	for (i = 0; i < n; i++) {
		ops[i].start = (int64_t)i * 10;
		ops[i].end = (int64_t)i * 10 + (int64_t)(i % 3) * 5;
		ops[i].name = t->v[i].name;
	}
	cmdbuf_match(ops, n, &m, a);
	for (i = 0; i < n; i++) {
		if (a[i].member < -1 || (a[i].member >= 0 &&
		    (size_t)a[i].member >= m.n))
			abort();
		if (a[i].member < 0)
			unmatched += ops[i].end - ops[i].start;
	}
	memset(&f, 0, sizeof(f));
	memset(&st, 0, sizeof(st));
	f.thunks = calloc(1, sizeof(*f.thunks));
	f.nthunks = f.capthunks = 1;
	f.thunks[0].name = strdup("command_buffer_1");
	f.thunks[0].dur = (int64_t)n * 10;
	cmdbuf_split(&f, 0, "command_buffer_1", ops, n, a, &m, &st);
	/* The operations do not overlap: the unmatched ones' union is
	 * their sum, and the rows take disjoint parts of the span. */
	for (i = 0; i < f.nthunks; i++) {
		if (f.thunks[i].dur < 0 || f.thunks[i].start < 0 ||
		    (i > 0 && f.thunks[i].start + f.thunks[i].dur >
		    (int64_t)n * 10))
			abort();
		sum += f.thunks[i].dur;
	}
	if (sum > (int64_t)n * 10 || f.thunks[0].dur != unmatched)
		abort();
	frames_free(&f);
	free(ops);
	free(a);
	cmdbuf_members_free(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct thunkmeta t;
	size_t i;

	if (thunkmeta_read(data, n, &t) != 0)
		return 0;
	for (i = 0; i < t.n; i++) {
		if (t.v[i].name == NULL || t.v[i].kind == NULL)
			abort();
		(void)cmdbuf_name_is(t.v[i].name);
		if (thunkmeta_is_cmdbuf_kind(t.v[i].kind))
			buffer(&t, i);
	}
	(void)thunkmeta_find(&t, "fusion.1");
	thunkmeta_free(&t);
	return 0;
}
