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

/* err_prefix_at: "line N: " becomes "NAME:N: "; anything else is
 * prefixed as err_prefix does (its line number read by num.h). */
static void
prefix_at(void)
{
	err_fail("line 12: bad field");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv:12: bad field");
	err_fail("line x: bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line x: bad");
	err_fail("line 99999999999999999999: bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line 99999999999999999999: bad");
	err_fail("line 7 bad");
	err_prefix_at("a.csv");
	CHECK_STR(err_msg(), "a.csv: line 7 bad");
}

int
main(void)
{
	prefix_first();
	prefix_at();
	return unit_done("base");
}
