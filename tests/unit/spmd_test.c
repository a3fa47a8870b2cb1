/*
 * spmd: the join rule on hand-made ProgramIds: the same module name,
 * signature and count on disjoint devices join, under the widest; any
 * difference, or a shared device, keeps them apart.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/spmd.h"
#include "unit.h"

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
	return unit_done("spmd");
}
