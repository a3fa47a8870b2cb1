/*
 * Unit tests of lib/nvtx and lib/frames on small hand-made traces, one
 * rule of load_profiler_data per case (REFERENCE.md §1.3).
 */
#include <stdlib.h>
#include <string.h>

#include "profile/frames.h"
#include "profile/nvtx.h"
#include "unit.h"

#define MOD(id, start, dur, ops) { "TSL:XlaModule:#hlo_module=jit_f,program_id=3#", \
	start, dur, start - 5, dur + 5, 1, 10, ops, id, -1 }
#define THK(id, parent, name, start, dur) { "TSL:Thunk:#name=a/b,c=d,hlo_op=" name "#", \
	start, dur, start, dur, 1, 10, 1, id, parent }

static void
names(void)
{
	const char *m;
	size_t n;
	int64_t pid;
	int32_t d[4];

	CHECK_INT(nvtx_parse_module("TSL:XlaModule:#prefix=p,q,hlo_module=jit_g,program_id=42#",
	    &m, &n, &pid), 0);
	CHECK_INT(n, 5);
	CHECK(strncmp(m, "jit_g", 5) == 0);
	CHECK_INT(pid, 42);
	CHECK_INT(nvtx_parse_module("XlaModule:#hlo_module=gemm_fusion_dot.5#",
	    &m, &n, &pid), 0);
	CHECK_INT(pid, -1);
	CHECK_INT(n, strlen("gemm_fusion_dot.5"));
	CHECK_INT(nvtx_parse_module("TSL:XlaModule:#hlo_module=BAD#", &m, &n, &pid), -1);
	CHECK_INT(nvtx_parse_thunk("TSL:Thunk:#name=jit(f)/x,hlo_op=y,hlo_op=fusion.1#",
	    &m, &n), 0);
	CHECK(n == 8 && strncmp(m, "fusion.1", 8) == 0);
	CHECK_INT(nvtx_parse_thunk("Thunk:#hlo_op=a#", &m, &n), 0);
	CHECK_INT(nvtx_parse_thunk("Thunk:#name=x#", &m, &n), -1);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=7,local=3,process=1,slice=2#", d), 0);
	CHECK(d[0] == 7 && d[1] == 3 && d[2] == 1 && d[3] == 2);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=7,local=3,process=1,partition=0#", d), 0);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=7,local=3,process=1#", d), -1);
	/* Numbers: digits only, at most INT32_MAX. */
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=2147483647,local=3,process=1,slice=2#", d), 0);
	CHECK_INT(d[0], 2147483647);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=2147483648,local=3,process=1,slice=2#", d), -1);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=99999999999999999999,local=3,process=1,slice=2#", d), -1);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=,local=3,process=1,slice=2#", d), -1);
	CHECK_INT(nvtx_parse_launcher("XlaLauncher:#global=+7,local=3,process=1,slice=2#", d), -1);
	CHECK_INT(nvtx_classify("NCCL:ncclAllReduce"), NVTX_NCCL);
	CHECK_INT(nvtx_classify("TSL:XlaCompile:#module=jit_f,program_id=1#"), NVTX_COMPILE);
	CHECK_INT(nvtx_classify("XlaCompileBackend:#module=a#"), NVTX_OTHER);
}

static const struct proj_thread threads[] = {
	{ 1, 99, "python3" },
	{ 1, 10, "XlaLauncher:#global=2,local=0,process=2,slice=0#" },
};

/* Set ProgramId and the communication flag ("all-" names) as an HLO
 * lookup would. */
static void
classify(struct frames *f)
{
	size_t i;

	for (i = 0; i < f->nmodules; i++)
		f->modules[i].program = "fp3";
	for (i = 0; i < f->nthunks; i++)
		f->thunks[i].comm = strncmp(f->thunks[i].name, "all-", 4) == 0;
}

static void
rules(void)
{
	struct proj_range r[] = {
		THK(1, -1, "early", 50, 10),		/* before any module */
		MOD(2, 100, 100, 4),
		THK(3, 2, "fusion", 110, 20),		/* compute 110-130 */
		THK(4, 2, "graph", 135, 30),		/* has a child: dropped */
		THK(5, 4, "fusion.2", 140, 10),		/* compute 140-150 */
		{ "NCCL:ncclAllGather", 100, 50, 100, 50, 1, 10, 1, 6, 2 },
		THK(7, 6, "all-gather-start", 120, 40),	/* comm 120-160 */
		MOD(8, 300, 100, 4),
		THK(9, 8, "fusion", 310, 20),
		THK(10, 8, "fusion", 330, 20),		/* while loop: 2nd exec */
		MOD(11, 500, 10, 1),			/* partial: 1 < 4 - 0 */
		THK(12, 11, "fusion", 500, 5),
	};
	struct frames f = { 0 };
	size_t i;

	CHECK_INT(frames_add_profile(&f, 0, r, sizeof(r) / sizeof(r[0]), 1, 1,
	    threads, 2), 0);
	CHECK_INT(f.nmodules, 2);
	CHECK_INT(f.nthunks, 5);	/* 3, 5, 7, 9, 10 */
	CHECK_INT(f.notes.n, 2);	/* early thunk, partial module */
	classify(&f);
	frames_finish(&f);
	/* Order: fp3 exec 0 {all-gather-start, fusion, fusion.2}, exec 1
	 * {fusion x2}. */
	CHECK_STR(f.thunks[0].name, "all-gather-start");
	CHECK_INT(f.thunks[0].hidden, 10 + 10);	/* 120-130 and 140-150 */
	CHECK_INT(f.thunks[0].dur, 40 - 20);
	CHECK_INT(f.thunks[0].dev.device, 2);
	CHECK_STR(f.thunks[1].name, "fusion");
	CHECK_INT(f.thunks[1].hidden, 0);
	CHECK_INT(f.thunks[1].dur, 20);
	CHECK_STR(f.thunks[2].name, "fusion.2");
	CHECK_INT(f.modules[f.thunks[3].module].execution, 1);
	CHECK_INT(f.thunks[3].execution, 0);
	CHECK_INT(f.thunks[4].execution, 1);
	CHECK_INT(f.thunks[4].start, 330);
	CHECK_INT(f.modules[0].num_thunks, 3);
	CHECK_INT(f.modules[1].num_thunks, 2);
	CHECK_INT(f.modules[0].execution, 0);
	CHECK_INT(f.modules[0].orig_start, 95);
	for (i = 0; i < f.nthunks; i++)
		CHECK(f.thunks[i].dur >= 0 && f.thunks[i].hidden <= 40);
	frames_free(&f);
}

/* Hidden time: the union of the compute that overlaps a communication
 * thunk (compute on two streams hides a moment once), and a profile's
 * own compute only (two profiles on one device: copies of one run). */
static void
hidden_union(void)
{
	struct proj_range a[] = {
		MOD(1, 100, 100, 3),
		THK(2, 1, "all-reduce-start", 120, 40),	/* comm 120-160 */
		THK(3, 1, "fusion", 110, 30),		/* compute 110-140 */
		THK(4, 1, "fusion.2", 130, 20),		/* compute 130-150 */
	};
	struct proj_range b[] = {
		MOD(1, 100, 100, 3),
		THK(2, 1, "all-reduce-start", 120, 40),
		THK(3, 1, "fusion", 170, 10),		/* after it */
		THK(4, 1, "fusion.2", 185, 10),
	};
	struct frames f = { 0 };
	size_t i, n = 0;

	CHECK_INT(frames_add_profile(&f, 0, a, 4, 1, 1, threads, 2), 0);
	CHECK_INT(frames_add_profile(&f, 1, b, 4, 1, 1, threads, 2), 0);
	classify(&f);
	frames_finish(&f);
	for (i = 0; i < f.nthunks; i++) {
		const struct frames_thunk *t = &f.thunks[i];

		if (!t->comm) {
			CHECK_INT(t->hidden, 0);
			continue;
		}
		n++;
		CHECK_INT(t->dev.device, 2);
		if (f.modules[t->module].profile == 0) {
			CHECK_INT(t->hidden, 30);	/* [120, 150), not 20 + 20 */
			CHECK_INT(t->dur, 10);
		} else {
			CHECK_INT(t->hidden, 0);	/* a's compute is not b's */
			CHECK_INT(t->dur, 40);
		}
	}
	CHECK_INT(n, 2);
	frames_free(&f);
}

/* One program on one thread that is no launcher: the main thread, which
 * takes the first launcher's device. */
static void
main_thread(void)
{
	struct proj_range r[] = {
		{ "TSL:XlaModule:#hlo_module=jit_g,program_id=1#", 0, 10, 0, 10, 1, 99, 1, 1, -1 },
		{ "TSL:Thunk:#hlo_op=copy#", 1, 2, 1, 2, 1, 99, 1, 2, 1 },
		{ "TSL:XlaModule:#hlo_module=gemm_fusion#", 20, 10, 20, 10, 1, 5, 1, 3, -1 },
		{ "TSL:Thunk:#hlo_op=gemm#", 21, 2, 21, 2, 1, 5, 1, 4, 3 },
		{ "TSL:Thunk:#hlo_op=gemm#", 22, 2, 21, 2, 1, 6, 1, 5, 3 },
	};
	struct frames f = { 0 };

	/* Program -1 runs on tids 5 and 6: not single-threaded; program 1
	 * only on tid 99, the main thread.  Thread 5 and 6 have no device:
	 * dropped with a note. */
	CHECK_INT(frames_add_profile(&f, 0, r, 5, 0, 1, threads, 2), 0);
	CHECK_INT(f.nmodules, 1);
	CHECK_INT(f.nthunks, 1);
	CHECK_INT(f.thunks[0].dev.device, 2);
	CHECK_INT(f.thunks[0].dev.process, 2);
	frames_free(&f);
}

static void
bad(void)
{
	struct proj_range dup[] = { MOD(1, 0, 10, 1), MOD(1, 20, 10, 1) };
	struct proj_range cyc[] = {
		MOD(1, 0, 100, 1), THK(2, 3, "a", 10, 1), THK(3, 2, "b", 10, 1),
	};
	struct frames f = { 0 };

	CHECK_INT(frames_add_profile(&f, 0, dup, 2, 1, 1, threads, 2), -1);
	frames_free(&f);
	CHECK_INT(frames_add_profile(&f, 0, cyc, 3, 1, 1, threads, 2), -1);
	frames_free(&f);
}

/* A Thunk range without a well-formed hlo_op keeps its whole
 * name (no thunk name fails the run); command buffers by name. */
static void
odd_thunks(void)
{
	struct proj_range r[] = {
		MOD(1, 100, 100, 3),
		{ "TSL:Thunk:#name=x#", 110, 10, 110, 10, 1, 10, 1, 2, 1 },
		{ "TSL:Thunk:#hlo_op=Fusion.1#", 130, 10, 130, 10, 1, 10, 1,
		    3, 1 },
		THK(4, 1, "command_buffer_9", 150, 30),
	};
	struct frames f = { 0 };

	CHECK_INT(frames_add_profile(&f, 0, r, sizeof(r) / sizeof(r[0]), 1, 1,
	    threads, 2), 0);
	CHECK_INT(f.nthunks, 3);
	if (f.nthunks == 3) {
		CHECK_STR(f.thunks[0].name, "TSL:Thunk:#name=x#");
		CHECK_STR(f.thunks[1].name, "TSL:Thunk:#hlo_op=Fusion.1#");
		CHECK_STR(f.thunks[2].name, "command_buffer_9");
		CHECK_INT(f.thunks[0].comm, -1);
		CHECK_INT(f.thunks[2].dur, 30);
	}
	frames_free(&f);
	CHECK_INT(nvtx_command_buffer("command_buffer_9", 16), 1);
	CHECK_INT(nvtx_command_buffer("command_buffer_12", 17), 1);
	CHECK_INT(nvtx_command_buffer("command_buffer_", 15), 0);
	CHECK_INT(nvtx_command_buffer("command_buffer_9x", 17), 0);
	CHECK_INT(nvtx_command_buffer("command_buffer_9x", 16), 1);
	CHECK_INT(nvtx_command_buffer("fusion.1", 8), 0);
}

static const struct proj_thread threads2[] = {
	{ 1, 10, "XlaLauncher:#global=2,local=0,process=2,slice=0#" },
	{ 1, 11, "XlaLauncher:#global=3,local=1,process=2,slice=0#" },
};

/* The dump of program 5 alone holds all-reduce-start with id 7. */
static int
holds5(void *ctx, size_t profile, int64_t program_id, const char *op,
    size_t len, int64_t id)
{
	(void)ctx, (void)profile;
	return program_id == 5 && id == 7 && len == 16 &&
	    strncmp(op, "all-reduce-start", 16) == 0;
}

/* Thunks without an XlaModule parent (XLA of 2026's async thunks on a
 * thread of their own, 50, which has no device): the module execution
 * of their process containing them in time, its device. */
static void
async_thunks(void)
{
	struct proj_range r[] = {
		/* name, GPU start, dur, CPU start, dur, pid, tid, ops, id, parent */
		{ "TSL:XlaModule:#hlo_module=jit_f,program_id=3#", 100, 100,
		    95, 105, 1, 10, 4, 1, -1 },
		{ "TSL:Thunk:#hlo_op=fusion#", 110, 20, 110, 5, 1, 10, 1, 2, 1 },
		/* CPU 150 in [95, 200]: module 1; GPU to 240, beyond it. */
		{ "TSL:Thunk:#hlo_op=all-gather-start,unique_hlo_op_id=4#",
		    190, 50, 150, 10, 1, 50, 2, 3, -1 },
		/* An async-start whose nested thunk is kept, at CPU 170. */
		{ "TSL:Thunk:#hlo_op=async-start#", 175, 10, 168, 10, 1, 50, 1,
		    4, -1 },
		{ "TSL:Thunk:#hlo_op=all-to-all#", 175, 10, 170, 5, 1, 50, 1,
		    5, 4 },
		/* In no module's time: dropped. */
		{ "TSL:Thunk:#hlo_op=lost#", 900, 10, 900, 5, 1, 50, 1, 6, -1 },
	};
	struct proj_range two[] = {
		{ "TSL:XlaModule:#hlo_module=jit_f,program_id=3#", 100, 100,
		    95, 105, 1, 10, 1, 1, -1 },
		{ "TSL:Thunk:#hlo_op=fusion#", 110, 20, 110, 5, 1, 10, 1, 2, 1 },
		{ "TSL:XlaModule:#hlo_module=jit_g,program_id=5#", 100, 100,
		    96, 105, 1, 11, 1, 3, -1 },
		{ "TSL:Thunk:#hlo_op=fusion#", 110, 20, 110, 5, 1, 11, 1, 4, 3 },
		{ "TSL:Thunk:#hlo_op=all-reduce-start,unique_hlo_op_id=7#",
		    150, 10, 150, 10, 1, 50, 1, 5, -1 },
		/* Each program on both threads: neither is the main thread. */
		{ "TSL:XlaModule:#hlo_module=jit_g,program_id=5#", 300, 100,
		    295, 105, 1, 10, 1, 6, -1 },
		{ "TSL:Thunk:#hlo_op=fusion#", 310, 20, 310, 5, 1, 10, 1, 7, 6 },
		{ "TSL:XlaModule:#hlo_module=jit_f,program_id=3#", 300, 100,
		    296, 105, 1, 11, 1, 8, -1 },
		{ "TSL:Thunk:#hlo_op=fusion#", 310, 20, 310, 5, 1, 11, 1, 9, 8 },
	};
	struct frames f = { 0 };
	size_t i, nc = 0;

	CHECK_INT(frames_add_profile(&f, 0, r, 6, 1, 1, threads, 2), 0);
	CHECK_INT(f.nmodules, 1);
	CHECK_INT(f.nthunks, 3);	/* fusion, all-gather-start, all-to-all */
	for (i = 0; i < f.nthunks; i++) {
		CHECK_INT(f.thunks[i].module, 0);
		CHECK_INT(f.thunks[i].dev.device, 2);
	}
	/* The module's projection: [100, 200] widened by [190, 240]. */
	CHECK_INT(f.modules[0].start, 100);
	CHECK_INT(f.modules[0].dur, 140);
	CHECK_INT(f.notes.n, 2);	/* attributed (CPU), one dropped */
	if (f.notes.n == 2) {
		CHECK(strstr(f.notes.v[0], "2 thunks without an XlaModule "
		    "parent") != NULL && strstr(f.notes.v[0], "CPU") != NULL);
		CHECK(strstr(f.notes.v[1], "dropping 1 thunks") != NULL);
	}
	frames_free(&f);

	/* No CPU times: the projected GPU interval decides. */
	CHECK_INT(frames_add_profile(&f, 0, r, 6, 1, 0, threads, 2), 0);
	CHECK_INT(f.nthunks, 3);
	if (f.notes.n > 0)
		CHECK(strstr(f.notes.v[0], "GPU interval") != NULL);
	frames_free(&f);

	/* Two launcher threads' modules contain it: without dumps no single
	 * one (dropped); the dump of program 5 holds its id: that one. */
	CHECK_INT(frames_add_profile(&f, 0, two, 9, 0, 1, threads2, 2), 0);
	CHECK_INT(f.nthunks, 4);
	frames_free(&f);
	f.holds = holds5;
	CHECK_INT(frames_add_profile(&f, 0, two, 9, 0, 1, threads2, 2), 0);
	CHECK_INT(f.nthunks, 5);
	for (i = 0; i < f.nthunks; i++)
		if (strcmp(f.thunks[i].name, "all-reduce-start") == 0) {
			nc++;
			CHECK_INT(f.modules[f.thunks[i].module].program_id, 5);
			CHECK_INT(f.thunks[i].dev.device, 3);
		}
	CHECK_INT(nc, 1);
	if (f.notes.n > 0)
		CHECK(strstr(f.notes.v[0], "by unique_hlo_op_id") != NULL);
	frames_free(&f);
}

/* A module execution without thunk ranges keeps its row, NumThunks 0;
 * an autotuner module (no program_id) without thunks does not. */
static void
thunkless_modules(void)
{
	struct proj_range r[] = {
		MOD(1, 100, 100, 2),
		THK(2, 1, "fusion", 110, 20),
		MOD(3, 300, 100, 2),			/* no thunk */
		{ "TSL:XlaModule:#hlo_module=gemm_fusion#", 500, 10, 500, 10,
		    1, 10, 2, 4, -1 },
	};
	struct frames f = { 0 };

	CHECK_INT(frames_add_profile(&f, 0, r, 4, 1, 1, threads, 2), 0);
	CHECK_INT(f.nmodules, 2);
	classify(&f);
	frames_finish(&f);
	if (f.nmodules == 2) {
		CHECK_INT(f.modules[0].num_thunks, 1);
		CHECK_INT(f.modules[1].num_thunks, 0);
		CHECK_INT(f.modules[1].execution, 1);
		CHECK_INT(f.modules[1].start, 300);
		CHECK_INT(f.modules[1].dev.device, 2);
	}
	frames_free(&f);
}

int
main(void)
{
	async_thunks();
	thunkless_modules();
	names();
	rules();
	hidden_union();
	main_thread();
	odd_thunks();
	bad();
	return unit_done("frames");
}
