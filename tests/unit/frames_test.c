/*
 * Unit tests of lib/nvtx and lib/frames on small hand-made traces, one
 * rule of load_profiler_data per case (REFERENCE.md §1.3).
 */
#include <stdlib.h>

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

int
main(void)
{
	names();
	rules();
	hidden_union();
	main_thread();
	odd_thunks();
	bad();
	return unit_done("frames");
}
