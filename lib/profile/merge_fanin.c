/*
 * merge_fanin.c: how many sources one merge opens at once, from the limit
 * of open files, for the k-way merges (merge.c) and the merge of parts
 * that share a device (merge_shared.c), which both ask it: a piece of its
 * own, so that neither of the two calls back into the other.
 */
#include <sys/resource.h>

#include <stddef.h>

#include "profile/merge.h"
#include "profile/merge_impl.h"

/*
 * The most sources a merge opens at once (merge.h, merge_impl.h):
 * MERGE_FANIN, less
 * when the soft limit of open files, raised up to the hard limit, leaves
 * fewer than MERGE_SPARE_FILES beside them; at least 8.  Computed once.
 */
size_t
merge_fanin(void)
{
	static size_t f;
	const rlim_t want = MERGE_FANIN + MERGE_SPARE_FILES;
	struct rlimit rl;

	if (f != 0)
		return f;
	f = MERGE_FANIN;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return f;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur) {
		struct rlimit up = rl;

		up.rlim_cur = rl.rlim_max != RLIM_INFINITY &&
		    rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl = up;
	}
	if (rl.rlim_cur < want)
		f = rl.rlim_cur > MERGE_SPARE_FILES + 8 ?
		    (size_t)rl.rlim_cur - MERGE_SPARE_FILES : 8;
	return f;
}

