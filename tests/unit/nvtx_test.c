/*
 * Unit tests of nvtx_parse_thunk_id: the thunk range names of XLA up to
 * mid-2026 ("hlo_op=OP#") and since ("hlo_op=OP,unique_hlo_op_id=ID#",
 * annotation.cc MakeInstructionTitle), with fields XLA may add later;
 * nvtx_collective, the collectives a thunk's name reveals.
 * Expected values are read off the names by hand.
 */
#include <string.h>

#include "profile/nvtx.h"
#include "unit.h"

/* Whether NAME parses to hlo_op OP and id ID. */
static int
parses(const char *name, const char *op, int64_t id)
{
	const char *m;
	size_t n;
	int64_t got = -2;

	if (nvtx_parse_thunk_id(name, &m, &n, &got) != 0) {
		fprintf(stderr, "refused: %s\n", name);
		return 0;
	}
	if (n != strlen(op) || strncmp(m, op, n) != 0 || got != id) {
		fprintf(stderr, "%s: got '%.*s' id %lld\n", name, (int)n, m,
		    (long long)got);
		return 0;
	}
	return 1;
}

static int
refused(const char *name)
{
	const char *m;
	size_t n;
	int64_t id;

	return nvtx_parse_thunk_id(name, &m, &n, &id) == -1;
}

static void
old_forms(void)
{
	CHECK(parses("TSL:Thunk:#hlo_op=fusion.1#", "fusion.1", -1));
	CHECK(parses("Thunk:#name=jit(f)/mul,hlo_op=loop_fusion#",
	    "loop_fusion", -1));
	/* name= holding ",hlo_op=": the last one is the instruction. */
	CHECK(parses("TSL:Thunk:#name=jit(f)/x,hlo_op=y,hlo_op=fusion.1#",
	    "fusion.1", -1));
	CHECK(parses("Thunk:#name=a/b,c=d,hlo_op=x.2#", "x.2", -1));
	CHECK(refused("Thunk:#name=x#"));
	CHECK(refused("Thunk:#hlo_op=BAD#"));
	CHECK(refused("Thunk:#hlo_op=#"));
	CHECK(refused("Thunk:#hlo_op=a"));
	CHECK(refused("XlaModule:#hlo_module=a#"));
	/* the old parser took "a,b" whole and refused it: still refused */
	CHECK(refused("Thunk:#hlo_op=a,b#"));
}

static void
today(void)
{
	const char *m;
	size_t n;

	CHECK(parses("TSL:Thunk:#hlo_op=all-gather-start.2,"
	    "unique_hlo_op_id=452574#", "all-gather-start.2", 452574));
	CHECK(parses("TSL:Thunk:#name=jit(train)/dot_general,"
	    "hlo_op=gemm_fusion_dot.3,unique_hlo_op_id=17#",
	    "gemm_fusion_dot.3", 17));
	CHECK(parses("Thunk:#hlo_op=a,unique_hlo_op_id=0#", "a", 0));
	/* unknown fields after hlo_op, before or after the id */
	CHECK(parses("Thunk:#hlo_op=a.1,stream=3,unique_hlo_op_id=9#",
	    "a.1", 9));
	CHECK(parses("Thunk:#hlo_op=a.1,unique_hlo_op_id=9,future_key=x y#",
	    "a.1", 9));
	CHECK(parses("Thunk:#hlo_op=a.1,kind=kernel#", "a.1", -1));
	/* name= holding ",hlo_op=X,unique_hlo_op_id=N" before the real one */
	CHECK(parses("Thunk:#name=odd,hlo_op=x,unique_hlo_op_id=1/y,"
	    "hlo_op=z.4,unique_hlo_op_id=2#", "z.4", 2));
	/* a bad id, a repeated id, an empty value, a bad key */
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=12x#"));
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=-1#"));
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=#"));
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=1,"
	    "unique_hlo_op_id=1#"));
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=1,=3#"));
	CHECK(refused("Thunk:#hlo_op=a,Key=3#"));
	CHECK(refused("Thunk:#hlo_op=a,unique_hlo_op_id=1,#"));
	/* nvtx_parse_thunk gives the same name without the id */
	CHECK_INT(nvtx_parse_thunk("Thunk:#hlo_op=b.7,unique_hlo_op_id=3#",
	    &m, &n), 0);
	CHECK(n == 3 && strncmp(m, "b.7", 3) == 0);
	CHECK_INT(nvtx_classify("TSL:Thunk:#hlo_op=b,unique_hlo_op_id=3#"),
	    NVTX_THUNK);
}

/* Whether hlo_op OP is collective COLL (NULL: none) of size SIZE by its
 * name alone. */
static int
names(const char *op, const char *coll, int64_t size)
{
	int64_t got = -7;
	const char *c = nvtx_collective(op, &got);

	if ((c == NULL) != (coll == NULL) || (c && strcmp(c, coll) != 0) ||
	    got != size) {
		fprintf(stderr, "%s: got %s size %lld\n", op, c ? c : "(none)",
		    (long long)got);
		return 0;
	}
	return 1;
}

/* The collectives XLA's names reveal (opcode, -start/-done, .N), read
 * off hlo_opcode.h's opcode strings by hand. */
static void
collectives(void)
{
	CHECK(names("all-reduce-start.3", "all-reduce", -1));
	CHECK(names("all-reduce-done.3", "all-reduce", -1));
	CHECK(names("all-gather-start", "all-gather", -1));
	CHECK(names("reduce-scatter.12", "reduce-scatter", -1));
	CHECK(names("reduce-scatter", "reduce-scatter", -1));
	CHECK(names("all-to-all", "all-to-all", -1));
	CHECK(names("ragged-all-to-all.1", "ragged-all-to-all", -1));
	CHECK(names("collective-broadcast.2", "collective-broadcast", -1));
	/* pairwise: two devices whatever the groups */
	CHECK(names("collective-permute-start.1", "collective-permute", 2));
	CHECK(names("collective-permute-done", "collective-permute", 2));
	CHECK(names("send", "send", 2));
	CHECK(names("recv.4", "recv", 2));
	CHECK(names("send-done.4", "send", 2));
	/* not collectives, or not by this name */
	CHECK(names("fusion.3", NULL, -1));
	CHECK(names("all-gather-fusion", NULL, -1));
	CHECK(names("all-reduce.", NULL, -1));
	CHECK(names("all-reduce.3x", NULL, -1));
	CHECK(names("all-reduce-start-done", NULL, -1));
	CHECK(names("xall-reduce", NULL, -1));
	CHECK(names("-start", NULL, -1));
	CHECK(names(".1", NULL, -1));
	CHECK(names("", NULL, -1));
	CHECK(names("sender", NULL, -1));
	CHECK(names("command_buffer_3", NULL, -1));
}

int
main(void)
{
	old_forms();
	today();
	collectives();
	return unit_done("nvtx");
}
