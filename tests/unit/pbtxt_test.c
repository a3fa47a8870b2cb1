/*
 * pbtxt: lines of protobuf text as XLA prints them (indented, CRLF, a
 * last line without newline), fields with and without quotes, and lines
 * that are not the field asked for.
 */
#include <string.h>

#include "unit.h"
#include "formats/pbtxt.h"

static void
lines(void)
{
	static const char t[] = "gpu_device_info {\r\n  core_count: 132  \n\n"
	    "\t}\ndevice_description_str: \"NVIDIA H100\"";
	const char *p = t, *end = t + strlen(t), *l, *v;
	size_t n, vn;

	CHECK_INT(pbtxt_next(&p, end, &l, &n), 1);
	CHECK_INT(n == 17 && memcmp(l, "gpu_device_info {", 17) == 0, 1);
	CHECK_INT(pbtxt_next(&p, end, &l, &n), 1);
	CHECK_INT(pbtxt_field(l, n, "core_count", &v, &vn), 1);
	CHECK_INT(vn == 3 && memcmp(v, "132", 3) == 0, 1);
	CHECK_INT(pbtxt_field(l, n, "core", &v, &vn), 0);
	CHECK_INT(pbtxt_next(&p, end, &l, &n), 1);
	CHECK_INT((int)n, 0);				/* an empty line */
	CHECK_INT(pbtxt_next(&p, end, &l, &n), 1);
	CHECK_INT(n == 1 && *l == '}', 1);
	CHECK_INT(pbtxt_next(&p, end, &l, &n), 1);	/* no newline at the end */
	CHECK_INT(pbtxt_field(l, n, "device_description_str", &v, &vn), 1);
	CHECK_INT(vn == 11 && memcmp(v, "NVIDIA H100", 11) == 0, 1);
	CHECK_INT(pbtxt_next(&p, end, &l, &n), 0);
}

int
main(void)
{
	lines();
	return unit_done("pbtxt");
}
