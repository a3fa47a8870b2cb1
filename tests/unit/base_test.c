/* base/: the error vocabulary's corner cases (a prefix before any
 * message, review #7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "unit.h"

/* A prefix before any message: "unknown error" is prefixed (the old
 * code copied 4095 bytes from that 14-byte literal: ASan reported a
 * global-buffer-overflow). */
static void
prefix_first(void)
{
	CHECK_INT(err_prefix("ctx"), -1);
	CHECK_STR(err_msg(), "ctx: unknown error");
	CHECK_INT(err_prefix("outer"), -1);
	CHECK_STR(err_msg(), "outer: ctx: unknown error");
}

int
main(void)
{
	prefix_first();
	return unit_done("base");
}
