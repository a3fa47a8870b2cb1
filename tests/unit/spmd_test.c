/*
 * spmd: the join rule on hand-made ProgramIds: the same module name,
 * signature and count on disjoint devices join, under the widest; any
 * difference, or a shared device, keeps them apart.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/spmd.h"
#include "base/err.h"
#include "unit.h"

/* Feed program P's execution E on device D: collectives NAMES (a space
 * between, CollectiveSize 4, ThunkExecution 0) starting at 10, 20, ...,
 * fed in reverse order (the scanner sorts by start), and a compute row. */
static void
feed(struct spmd_scan *s, const char *p, int64_t e, int64_t d,
    const char *names)
{
	char buf[64], *v[8];
	size_t n = 0, i;
	struct spmd_row r;

	strcpy(buf, names);
	for (v[n] = strtok(buf, " "); v[n] != NULL && n < 7; v[++n] = strtok(NULL, " "))
		;
	memset(&r, 0, sizeof(r));
	r.prog = p;
	r.exec = e;
	r.dev = d;
	r.name = "fusion";
	spmd_scan_row(s, &r);
	for (i = n; i-- > 0;) {
		r.name = v[i];
		r.coll = 1;
		r.csize = 4;
		r.start_ns = 10 * (int64_t)(i + 1);
		spmd_scan_row(s, &r);
	}
}

/* The scanner: A (devices 0-2) and B (device 3) of module "step" run
 * ag rs in the same order: B joins A.  C (4) and D (5) of "step2" in
 * another order, E (6) and F (6) of "step3" on one device, G of "solo"
 * (no other ProgramId of its module): none joins. */
static void
scanner(void)
{
	struct spmd_scan *s = spmd_scan_new();
	struct err_notes notes = { 0 };
	static const char *const mods[][2] = { { "A", "step" }, { "B", "step" },
	    { "C", "step2" }, { "D", "step2" }, { "E", "step3" },
	    { "F", "step3" }, { "G", "solo" } };
	const char *b = "B";
	size_t i;
	int64_t e, d;

	for (i = 0; i < 7; i++)
		spmd_scan_module(s, mods[i][0], mods[i][1]);
	CHECK(spmd_scan_candidate(s, "A") && spmd_scan_candidate(s, "F"));
	CHECK(!spmd_scan_candidate(s, "G") && !spmd_scan_candidate(s, "X"));
	for (e = 0; e < 2; e++) {
		for (d = 0; d < 3; d++)
			feed(s, "A", e, d, "ag rs");
		feed(s, "B", e, 3, "ag rs");
		feed(s, "C", e, 4, "ag rs");
		feed(s, "D", e, 5, "rs ag");
		feed(s, "E", e, 6, "ag rs");
		feed(s, "F", e, 6, "ag rs");
		feed(s, "G", e, 7, "ag rs");
	}
	CHECK_INT(spmd_scan_end(s, &notes), 1);
	CHECK_STR(spmd_scan_rep(s, b), "A");
	CHECK(spmd_scan_rep(s, "A") != NULL && strcmp(spmd_scan_rep(s, "A"), "A") == 0);
	for (i = 2; i < 7; i++)
		CHECK_STR(spmd_scan_rep(s, mods[i][0]), mods[i][0]);
	CHECK_INT(notes.n, 1);
	if (notes.n == 1)
		CHECK_STR(notes.v[0], "module step: ProgramId B joined to A (the "
		    "same 2 collectives per execution, in the same order, on other "
		    "devices: one SPMD step)");
	err_notes_free(&notes);
	spmd_scan_free(s);

	/* One execution of B runs another sequence; or its rows come
	 * apart (execution 0 again after 1): B joins none. */
	for (i = 0; i < 2; i++) {
		s = spmd_scan_new();
		spmd_scan_module(s, "A", "step");
		spmd_scan_module(s, "B", "step");
		for (e = 0; e < 2; e++)
			feed(s, "A", e, 0, "ag rs");
		feed(s, "B", 0, 3, "ag rs");
		feed(s, "B", 1, 3, i == 0 ? "ag ag" : "ag rs");
		if (i == 1)
			feed(s, "B", 0, 3, "ag rs");
		CHECK_INT(spmd_scan_end(s, &notes), 0);
		CHECK_STR(spmd_scan_rep(s, "B"), "B");
		CHECK_INT(notes.n, i);
		err_notes_free(&notes);
		spmd_scan_free(s);
	}
	/* Two devices of one execution of B with other sequences. */
	s = spmd_scan_new();
	spmd_scan_module(s, "A", "step");
	spmd_scan_module(s, "B", "step");
	feed(s, "A", 0, 0, "ag rs");
	feed(s, "B", 0, 3, "ag rs");
	feed(s, "B", 0, 4, "ag");
	CHECK_INT(spmd_scan_end(s, &notes), 0);
	spmd_scan_free(s);
}

int
main(void)
{
	static const int64_t d3[] = { 3 }, d012[] = { 0, 1, 2 }, d45[] = { 4, 5 },
	    d2[] = { 2 };
	uint64_t a = spmd_sig_add(spmd_sig_add(SPMD_SIG_EMPTY, "ag", 2, 0, 4),
	    "rs", 2, 0, 4);
	uint64_t b = spmd_sig_add(spmd_sig_add(SPMD_SIG_EMPTY, "rs", 2, 0, 4),
	    "ag", 2, 0, 4);
	uint64_t c = spmd_sig_add(spmd_sig_add(SPMD_SIG_EMPTY, "ag", 2, 0, 4),
	    "rs", 2, 0, 2);
	struct spmd_prog p[5] = {
		{ 7, a, 2, d3, 1 },	/* process 3's step */
		{ 7, a, 2, d012, 3 },	/* the others' */
		{ 7, b, 2, d45, 2 },	/* another order */
		{ 8, a, 2, d45, 2 },	/* another module */
		{ 7, a, 2, d2, 1 },	/* a device of the step again */
	};
	size_t rep[5];

	CHECK(a != b && a != c && b != c);
	CHECK_INT(spmd_join(p, 5, rep), 1);
	CHECK_INT(rep[0], 1);
	CHECK_INT(rep[1], 1);
	CHECK_INT(rep[2], 2);
	CHECK_INT(rep[3], 3);
	CHECK_INT(rep[4], 4);
	/* Another CollectiveSize, or no collective: never joined. */
	p[4].sig = c;
	p[4].dev = d45;
	p[0].ncoll = 0;
	CHECK_INT(spmd_join(p, 5, rep), 0);
	CHECK_INT(rep[0], 0);
	scanner();
	return unit_done("spmd");
}
