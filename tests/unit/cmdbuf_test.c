/*
 * Unit tests of formats/thunkmeta (XLA's thunk metadata dump, bytes
 * encoded here by hand from thunk.proto's field numbers) and
 * profile/cmdbuf (the command-buffer name rule, matching and splitting;
 * expected values worked out from the planted times in the comments).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "formats/pbwire.h"
#include "formats/thunkmeta.h"
#include "profile/cmdbuf.h"
#include "unit.h"

static uint8_t buf[4096];
static size_t len;

/* Append field NUM (wire type WT: 0 varint V, 2 bytes P[0..N)) to
 * B[*L..]. */
static void
putb(uint8_t *b, size_t *l, int num, int wt, const void *p, size_t n,
    uint64_t v)
{
	*l += pbwire_put_varint(b + *l, (uint64_t)num << 3 | (unsigned)wt);
	if (wt == 0) {
		*l += pbwire_put_varint(b + *l, v);
		return;
	}
	*l += pbwire_put_varint(b + *l, n);
	memcpy(b + *l, p, n);
	*l += n;
}

static void
put(int num, int wt, const void *p, size_t n, uint64_t v)
{
	putb(buf, &len, num, wt, p, n, v);
}

/* One ThunkMetadataProto: thunk_info { profile_annotation, stream 1,
 * thunk_id ID }, thunk_kind, and an unknown field 9. */
static void
entry(const char *name, const char *kind, uint64_t id)
{
	uint8_t info[256], e[512];
	size_t il = 0, el = 0;

	if (name)
		putb(info, &il, 1, 2, name, strlen(name), 0);
	putb(info, &il, 2, 0, NULL, 0, 1);
	putb(info, &il, 3, 0, NULL, 0, id);
	putb(e, &el, 1, 2, info, il, 0);
	putb(e, &el, 2, 2, kind, strlen(kind), 0);
	putb(e, &el, 9, 0, NULL, 0, 7);
	put(1, 2, e, el, 0);
}

static void
test_thunkmeta(void)
{
	struct thunkmeta t;

	len = 0;
	entry(NULL, "kSequential", 1);
	entry("command_buffer_2", "kCommandBuffer", 9);
	entry("fusion.1", "kKernel", 3);
	CHECK_INT(thunkmeta_read(buf, len, &t), 0);
	CHECK_INT(t.n, 3);
	CHECK_STR(t.v[0].name, "");
	CHECK_STR(t.v[0].kind, "kSequential");
	CHECK_STR(t.v[1].name, "command_buffer_2");
	CHECK_INT(t.v[1].id, 9);
	CHECK(thunkmeta_is_cmdbuf_kind(t.v[1].kind));
	CHECK(!thunkmeta_is_cmdbuf_kind(t.v[2].kind));
	CHECK_INT(thunkmeta_find(&t, "fusion.1"), 2);
	CHECK_INT(thunkmeta_find(&t, "fusion.9"), -1);
	thunkmeta_free(&t);
	/* An empty file is an empty list. */
	CHECK_INT(thunkmeta_read(buf, 0, &t), 0);
	CHECK_INT(t.n, 0);
	/* Field 1 as a varint: not this message. */
	len = 0;
	put(1, 0, NULL, 0, 5);
	CHECK_INT(thunkmeta_read(buf, len, &t), -1);
	CHECK(strstr(err_msg(), "not a ThunkMetadataListProto") != NULL);
	/* Cut short. */
	len = 0;
	entry("fusion.1", "kKernel", 3);
	CHECK_INT(thunkmeta_read(buf, len - 2, &t), -1);
	/* thunk_kind as a varint inside an entry. */
	len = 0;
	put(1, 2, "\x10\x01", 2, 0);
	CHECK_INT(thunkmeta_read(buf, len, &t), -1);
	CHECK(strstr(err_msg(), "entry 0: thunk_kind") != NULL);
}

static void
test_names(void)
{
	CHECK(cmdbuf_name_is("command_buffer_9"));
	CHECK(cmdbuf_name_is("command_buffer.12"));
	CHECK(!cmdbuf_name_is("command_buffer"));
	CHECK(!cmdbuf_name_is("command_buffer_"));
	CHECK(!cmdbuf_name_is("command_buffer_x"));
	CHECK(!cmdbuf_name_is("command_buffer_1a"));
	CHECK(!cmdbuf_name_is("my_command_buffer_1"));
}

/* Members a.1 (kernel), gemm.2 (kGemm), b.3, c.4, memset.5 in order. */
static void
members(struct cmdbuf_members *m, int ordered)
{
	memset(m, 0, sizeof(*m));
	cmdbuf_members_add(m, "a.1", ordered ? "kKernel" : NULL);
	cmdbuf_members_add(m, "gemm.2", ordered ? "kGemm" : NULL);
	cmdbuf_members_add(m, "b-3", ordered ? "kKernel" : NULL);
	cmdbuf_members_add(m, "c.4", ordered ? "kKernel" : NULL);
	cmdbuf_members_add(m, "memset.5", ordered ? "kMemset32BitValue" :
	    NULL);
	m->ordered = ordered;
}

static void
test_match(void)
{
	/* GPU ns: a_1 [0,10], two library kernels [10,30] [30,32], b_3_k
	 * [35,45] (name + suffix), x [45,50] (between b.3 and c.4: none),
	 * c_4 [50,60], memset [60,61]. */
	static const struct cmdbuf_op ops[] = {
		{ 0, 10, "a_1" }, { 10, 30, "cutlass_gemm" },
		{ 30, 32, "splitK" }, { 35, 45, "b_3_k" }, { 45, 50, "x" },
		{ 50, 60, "c_4" }, { 60, 61, "" }
	};
	static const long want[] = { 0, 1, 1, 2, -1, 3, 4 };
	static const long want_noorder[] = { 0, -1, -1, 2, -1, 3, -1 };
	static const unsigned char want_by_name[] = { 1, 0, 0, 1, 0, 1, 0 };
	struct cmdbuf_members m;
	struct cmdbuf_stats st;
	struct frames f;
	struct cmdbuf_assign a[7];
	size_t i, n;
	int64_t sum = 0;

	members(&m, 1);
	CHECK_INT(cmdbuf_match(ops, 7, &m, a), 0);
	for (i = 0; i < 7; i++) {
		CHECK_INT(a[i].member, want[i]);
		CHECK_INT(a[i].by_name, want_by_name[i]);
	}
	/* The buffer row: [0, 61] = 61 ns; inner spans 10 + 22 (the two
	 * library kernels: one execution) + 10 + 10 + 1 = 53; it keeps x's
	 * 5 ns, not the idle 32-35: the rows sum to 58, the busy time. */
	memset(&f, 0, sizeof(f));
	memset(&st, 0, sizeof(st));
	f.thunks = calloc(1, sizeof(*f.thunks));
	f.capthunks = f.nthunks = 1;
	f.thunks[0].name = strdup("command_buffer_1");
	f.thunks[0].start = 0;
	f.thunks[0].dur = 61;
	n = cmdbuf_split(&f, 0, "command_buffer_1", ops, 7, a, &m, &st);
	CHECK_INT(n, 5);
	CHECK_INT(f.nthunks, 6);
	CHECK_INT(f.thunks[0].dur, 5);
	CHECK(f.thunks[0].cmdbuf_opened);
	CHECK_STR(f.thunks[0].cmdbuf, "command_buffer_1");
	CHECK_STR(f.thunks[2].name, "gemm.2");
	CHECK_INT(f.thunks[2].start, 10);
	CHECK_INT(f.thunks[2].dur, 22);
	CHECK_STR(f.thunks[5].name, "memset.5");
	CHECK_STR(f.thunks[5].cmdbuf, "command_buffer_1");
	for (i = 0; i < f.nthunks; i++)
		sum += f.thunks[i].dur;
	CHECK_INT(sum, 58);
	CHECK_INT(st.nops, 7);
	CHECK_INT(st.nmatched, 6);
	CHECK_INT(st.ns, 10 + 20 + 2 + 10 + 5 + 10 + 1);
	CHECK_INT(st.ns_matched, 58 - 5);
	frames_free(&f);
	cmdbuf_members_free(&m);
	/* Without order (no metadata): names only. */
	members(&m, 0);
	CHECK_INT(cmdbuf_match(ops, 7, &m, a), 0);
	for (i = 0; i < 7; i++)
		CHECK_INT(a[i].member, want_noorder[i]);
	cmdbuf_members_free(&m);
}

static void
test_order_counts(void)
{
	/* Between a.1 and b-3 lie gemm.2 alone; between c.4 and the end
	 * memset.5 alone.  Members x.1 y.2 (two library thunks) with two
	 * unnamed kernels: one each; with three: none. */
	static const struct cmdbuf_op two[] = {
		{ 0, 1, "k1" }, { 1, 2, "k2" }
	};
	static const struct cmdbuf_op three[] = {
		{ 0, 1, "k1" }, { 1, 2, "k2" }, { 2, 3, "k3" }
	};
	static const struct cmdbuf_op conc[] = {
		{ 0, 10, "x_1" }, { 5, 15, "k" }
	};
	struct cmdbuf_members m;
	struct cmdbuf_assign a[3];

	memset(&m, 0, sizeof(m));
	cmdbuf_members_add(&m, "x.1", "kGemm");
	cmdbuf_members_add(&m, "y.2", "kCudnn");
	cmdbuf_members_add(&m, "seq", "kSequential");
	m.ordered = 1;
	cmdbuf_match(two, 2, &m, a);
	CHECK_INT(a[0].member, 0);
	CHECK_INT(a[1].member, 1);
	cmdbuf_match(three, 3, &m, a);
	CHECK_INT(a[0].member, -1);
	CHECK_INT(a[2].member, -1);
	/* Overlapping operations: concurrent, no order rule. */
	CHECK_INT(cmdbuf_match(conc, 2, &m, a), 1);
	CHECK_INT(a[0].member, 0);
	CHECK_INT(a[1].member, -1);
	cmdbuf_members_free(&m);
}

/* A frame of one command-buffer row [S, E]. */
static void
one_buffer(struct frames *f, int64_t s, int64_t e)
{
	memset(f, 0, sizeof(*f));
	f->thunks = calloc(1, sizeof(*f->thunks));
	f->capthunks = f->nthunks = 1;
	f->thunks[0].name = strdup("command_buffer_1");
	f->thunks[0].start = s;
	f->thunks[0].dur = e - s;
}

static void
test_repeats(void)
{
	/* copy_fusion three times back to back, 1 ns idle between; a
	 * library call's two kernels; copy_fusion again; one kernel more of
	 * the library thunk (after copy_fusion, to the end: by order; the
	 * run between two copy_fusion wraps around the members' end):
	 * copy_fusion [0,2] [3,5] [6,8] [13,15], gemm.1 [9,12] [16,17]. */
	static const struct cmdbuf_op ops[] = {
		{ 0, 2, "copy_fusion" }, { 3, 5, "copy_fusion" },
		{ 6, 8, "copy_fusion" }, { 9, 10, "cutlass" },
		{ 10, 12, "splitK" }, { 13, 15, "copy_fusion" },
		{ 16, 17, "cutlass" }
	};
	static const int64_t want[][2] = {
		{ 0, 2 }, { 3, 2 }, { 6, 2 }, { 9, 3 }, { 13, 2 }, { 16, 1 }
	};
	/* Concurrent: x_1 [0,10], unmatched k [5,15] and k2 [12,20]: the
	 * buffer keeps their union, 15 ns. */
	static const struct cmdbuf_op conc[] = {
		{ 0, 10, "x_1" }, { 5, 15, "k" }, { 12, 20, "k2" }
	};
	struct cmdbuf_members m;
	struct cmdbuf_assign a[7];
	struct cmdbuf_stats st;
	struct frames f;
	size_t i;

	memset(&m, 0, sizeof(m));
	memset(&st, 0, sizeof(st));
	/* A loop's body: its entries run again (the loop itself is a
	 * container: no operation of its own). */
	cmdbuf_members_add(&m, "while.0", "kWhile");
	cmdbuf_members_add(&m, "copy_fusion", "kKernel");
	cmdbuf_members_add(&m, "gemm.1", "kGemm");
	m.ordered = 1;
	CHECK_INT(cmdbuf_match(ops, 7, &m, a), 0);
	one_buffer(&f, 0, 17);
	CHECK_INT(cmdbuf_split(&f, 0, "command_buffer_1", ops, 7, a, &m,
	    &st), 6);
	CHECK_INT(f.thunks[0].dur, 0);
	for (i = 0; i < 6; i++) {
		CHECK_STR(f.thunks[1 + i].name, i == 3 || i == 5 ? "gemm.1" :
		    "copy_fusion");
		CHECK_INT(f.thunks[1 + i].start, want[i][0]);
		CHECK_INT(f.thunks[1 + i].dur, want[i][1]);
	}
	frames_free(&f);
	cmdbuf_members_add(&m, "x.1", "kKernel");
	m.ordered = 0;
	CHECK_INT(cmdbuf_match(conc, 3, &m, a), 1);
	one_buffer(&f, 0, 20);
	CHECK_INT(cmdbuf_split(&f, 0, "command_buffer_1", conc, 3, a, &m,
	    &st), 1);
	CHECK_INT(f.thunks[0].dur, 15);
	frames_free(&f);
	/* Nothing matched, no idle: the row keeps its interval. */
	one_buffer(&f, 5, 20);
	CHECK_INT(cmdbuf_split(&f, 0, "command_buffer_1", conc + 1, 2,
	    a + 1, &m, &st), 0);
	CHECK_INT(f.thunks[0].dur, 15);
	CHECK(!f.thunks[0].cmdbuf_opened);
	frames_free(&f);
	cmdbuf_members_free(&m);
}

/*
 * No loop in the buffer: each metadata entry is one execution per
 * launch, its kernels its parts.  gemm.1, a cuBLAS call, launches its
 * GEMM [0,4] and, after fusion_2's kernel [4,6] (named), its workspace
 * kernel [6,7]; fusion_2's thunk launches two kernels named after it,
 * [4,6] and [8,9].  One execution each: gemm.1 at 0 for 4 + 1 ns (its
 * parts' time), fusion.2 at 4 for 2 + 1 ns; the buffer keeps nothing.
 */
static void
test_once(void)
{
	static const struct cmdbuf_op ops[] = {
		{ 0, 4, "cutlass_gemm" }, { 4, 6, "fusion_2" },
		{ 6, 7, "splitKreduce" }, { 8, 9, "fusion_2" }
	};
	struct cmdbuf_members m;
	struct cmdbuf_assign a[4];
	struct cmdbuf_stats st;
	struct frames f;

	memset(&m, 0, sizeof(m));
	memset(&st, 0, sizeof(st));
	cmdbuf_members_add(&m, "gemm.1", "kGemm");
	cmdbuf_members_add(&m, "fusion.2", "kKernel");
	m.ordered = 1;
	CHECK_INT(cmdbuf_match(ops, 4, &m, a), 0);
	CHECK_INT(a[0].member, 0);
	CHECK_INT(a[2].member, 0);
	one_buffer(&f, 0, 9);
	CHECK_INT(cmdbuf_split(&f, 0, "command_buffer_1", ops, 4, a, &m,
	    &st), 2);
	CHECK_INT(f.nthunks, 3);
	CHECK_STR(f.thunks[1].name, "gemm.1");
	CHECK_INT(f.thunks[1].start, 0);
	CHECK_INT(f.thunks[1].dur, 5);
	CHECK_STR(f.thunks[2].name, "fusion.2");
	CHECK_INT(f.thunks[2].start, 4);
	CHECK_INT(f.thunks[2].dur, 3);
	CHECK_INT(f.thunks[0].dur, 0);
	frames_free(&f);
	cmdbuf_members_free(&m);
}

/* The members of a buffer from the metadata: up to the next buffer, or
 * to a thunk that ran outside (has a range of its own). */
static int
outside(void *arg, const char *name)
{
	(void)arg;
	return strcmp(name, "after.9") == 0;
}

static void
test_members_meta(void)
{
	struct thunkmeta t;
	struct cmdbuf_members m;

	len = 0;
	entry("command_buffer_1", "kCommandBuffer", 1);
	entry(NULL, "kSequential", 2);
	entry("a.1", "kKernel", 3);
	entry("b.2", "kGemm", 4);
	entry("after.9", "kKernel", 5);
	entry("c.3", "kKernel", 6);
	entry("command_buffer_2", "kCommandBuffer", 7);
	entry("d.4", "kKernel", 8);
	CHECK_INT(thunkmeta_read(buf, len, &t), 0);
	memset(&m, 0, sizeof(m));
	cmdbuf_members_meta(&m, &t, 0, outside, NULL);
	CHECK_INT(m.n, 2);
	CHECK_STR(m.v[1].name, "b.2");
	CHECK_STR(m.v[1].kind, "kGemm");
	CHECK(m.ordered);
	cmdbuf_members_free(&m);
	cmdbuf_members_meta(&m, &t, 6, outside, NULL);
	CHECK_INT(m.n, 1);
	CHECK_STR(m.v[0].name, "d.4");
	cmdbuf_members_free(&m);
	thunkmeta_free(&t);
}

/*
 * At scale (review: nothing quadratic).  20000 ordered members: a.0 and
 * z.1 (kernels) around 19998 while loops (containers) and one library
 * thunk lib at the middle; 30000 operations repeating a_0, an unnamed
 * kernel, z_1.  Every unnamed kernel lies between a.0 and z.1, where lib
 * is the one placeable member: it takes them all.  Scanning the members
 * between a.0 and z.1 for each of the 10000 runs (what cmdbuf_match did)
 * makes this 2e8 steps.  Then 20000 operations each named after its own
 * member (in reverse member order) split one buffer into 20000 inner
 * rows in operation order.
 */
#define NMEMB 20000
#define NOPS 30000

static void
test_scale(void)
{
	struct cmdbuf_members m;
	struct cmdbuf_op *ops = calloc(NOPS, sizeof(*ops));
	struct cmdbuf_assign *a = calloc(NOPS, sizeof(*a));
	char (*names)[16] = calloc(NMEMB, sizeof(*names));
	char (*knames)[16] = calloc(NMEMB, sizeof(*knames));
	struct cmdbuf_stats st;
	struct frames f;
	size_t i, bad = 0, n;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < NMEMB; i++) {
		snprintf(names[i], sizeof(*names), "w.%zu", i);
		snprintf(knames[i], sizeof(*knames), "w_%zu", i);
		cmdbuf_members_add(&m, i == 0 ? "a.0" : i == NMEMB - 1 ?
		    "z.1" : i == NMEMB / 2 ? "lib" : names[i],
		    i == 0 || i == NMEMB - 1 ? "kKernel" : i == NMEMB / 2 ?
		    "kGemm" : "kWhile");
	}
	m.ordered = 1;
	for (i = 0; i < NOPS; i++) {
		ops[i].start = 2 * (int64_t)i;
		ops[i].end = 2 * (int64_t)i + 1;
		ops[i].name = i % 3 == 0 ? "a_0" : i % 3 == 1 ? "cublas_k" : "z_1";
	}
	CHECK_INT(cmdbuf_match(ops, NOPS, &m, a), 0);
	for (i = 0; i < NOPS; i++)
		bad += a[i].member != (i % 3 == 0 ? 0 : i % 3 == 1 ? NMEMB / 2 :
		    NMEMB - 1);
	CHECK_INT(bad, 0);
	cmdbuf_members_free(&m);

	/* One operation per member, named after it: w_<i> at [2i, 2i+1]. */
	memset(&m, 0, sizeof(m));
	for (i = 0; i < NMEMB; i++)
		cmdbuf_members_add(&m, names[i], "kKernel");
	m.ordered = 1;
	for (i = 0; i < NMEMB; i++) {
		ops[i].start = 2 * (int64_t)i;
		ops[i].end = 2 * (int64_t)i + 1;
		ops[i].name = knames[NMEMB - 1 - i];	/* reverse order */
	}
	cmdbuf_match(ops, NMEMB, &m, a);
	memset(&f, 0, sizeof(f));
	memset(&st, 0, sizeof(st));
	f.thunks = calloc(1, sizeof(*f.thunks));
	f.capthunks = f.nthunks = 1;
	f.thunks[0].name = strdup("command_buffer_1");
	f.thunks[0].dur = 2 * NMEMB - 1;
	n = cmdbuf_split(&f, 0, "command_buffer_1", ops, NMEMB, a, &m, &st);
	CHECK_INT(n, NMEMB);
	CHECK_INT(f.thunks[0].dur, 0);	/* the gaps are idle */
	for (i = 0, bad = 0; i < NMEMB; i++)
		bad += f.thunks[1 + i].start != 2 * (int64_t)i ||
		    f.thunks[1 + i].dur != 1 ||
		    strcmp(f.thunks[1 + i].name, names[NMEMB - 1 - i]) != 0;
	CHECK_INT(bad, 0);
	frames_free(&f);
	cmdbuf_members_free(&m);
	free(names);
	free(knames);
	free(a);
	free(ops);
}

int
main(void)
{
	test_thunkmeta();
	test_names();
	test_match();
	test_order_counts();
	test_repeats();
	test_once();
	test_members_meta();
	test_scale();
	return unit_done("cmdbuf_test");
}
