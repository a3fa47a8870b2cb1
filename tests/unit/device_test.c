/*
 * Tests of lib/profile/device: a GpuTargetConfigProto text with values
 * no GPU has (1e32 cores, a compute capability of 1e59, an infinite
 * clock) leaves those fields unknown instead of converting them (C11
 * 6.3.1.4: a double out of an integer's range is undefined; x86 gave
 * sms = INT64_MIN), and a real one is read as written.
 */
#include <string.h>

#include "profile/device.h"
#include "unit.h"

static struct device_info
parse(const char *s)
{
	struct device_info d;

	(void)device_pbtxt(s, strlen(s), &d);
	return d;
}

int
main(void)
{
	struct device_info d;

	d = parse("gpu_device_info {\n  core_count: 108\n"
	    "  clock_rate_ghz: 1.41\n  memory_bandwidth: 1555200000000\n"
	    "  cuda_compute_capability {\n    major: 8\n    minor: 0\n  }\n}\n"
	    "device_description_str: \"NVIDIA A100-SXM4-40GB\"\n");
	CHECK_INT(d.sms, 108);
	CHECK_INT(d.major, 8);
	CHECK_INT(d.minor, 0);
	CHECK(d.clock_hz == 1.41e9);
	CHECK(d.bw == 1555200000000.0);
	CHECK_STR(d.name, "NVIDIA A100-SXM4-40GB");

	d = parse("core_count: 100000000000000000000000000000000\n"
	    "device_description_str: \"x\"\n");
	CHECK_INT(d.sms, 0);
	d = parse("core_count: -5\ndevice_description_str: \"x\"\n");
	CHECK_INT(d.sms, 0);
	d = parse("cuda_compute_capability {\nmajor: 1.22222e+59\n"
	    "minor: -1e300\n}\ncore_count: 1e400\nclock_rate_ghz: 1e308\n"
	    "memory_bandwidth: 1e999\ndevice_description_str: \"x\"\n");
	CHECK_INT(d.major, -1);
	CHECK_INT(d.minor, -1);
	CHECK_INT(d.sms, 0);
	CHECK(d.clock_hz == 0);
	CHECK(d.bw == 0);
	return unit_done("device_test");
}
