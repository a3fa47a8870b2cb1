/*
 * Unit tests of formats/tevent (the bytes of a Perfetto packet worked out
 * by hand from the protobuf encoding rules; JSON times from integer ns)
 * and of the range lists of analysis/timeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "formats/tevent.h"
#include "unit.h"

/* The bytes a writer on a memory stream wrote. */
struct mem {
	char *p;
	size_t n;
	FILE *fp;
};

static void
perfetto_bytes(void)
{
	/*
	 * Trace.packet (field 1, LEN): 0x0a, length 17, then the packet:
	 * trusted_packet_sequence_id (10, varint) 1: 0x50 0x01;
	 * sequence_flags (13) INCREMENTAL_STATE_CLEARED: 0x68 0x01;
	 * track_descriptor (60, LEN): key 60 << 3 | 2 = 482 = 0xe2 0x03,
	 * length 10: uuid (1) 4096 = 0x08 0x80 0x20; process (3, LEN)
	 * length 5: pid (1) 1 = 0x08 0x01, process_name (6, LEN) "D" =
	 * 0x32 0x01 0x44.
	 */
	static const unsigned char want[] = { 0x0a, 17, 0x50, 0x01, 0x68,
	    0x01, 0xe2, 0x03, 10, 0x08, 0x80, 0x20, 0x1a, 5, 0x08, 0x01,
	    0x32, 0x01, 0x44 };
	struct tev_track t = { 4096, 1, 0, "D", 0 };
	struct mem m = { 0 };
	struct tev_writer *w;

	m.fp = open_memstream(&m.p, &m.n);
	w = tev_open(m.fp, "mem", TEV_PERFETTO, 0);
	CHECK_INT(tev_track(w, &t), 0);
	CHECK_INT(tev_close(w), 0);
	fclose(m.fp);
	CHECK_INT(m.n, sizeof(want));
	CHECK(m.n == sizeof(want) && memcmp(m.p, want, m.n) == 0);
	free(m.p);
}

static void
json_times(void)
{
	struct tev_track p = { 4096, 1, 0, "Device 0", 0 };
	struct tev_track t = { 4097, 1, 4097, "compute", 8192 };
	struct tev_arg a[2] = { { "op", TEV_STR, "a\"b\n", 0, 0 },
	    { "mfu", TEV_DOUBLE, NULL, 0, 0.25 } };
	struct tev_slice s = { &t, -1500, 1, "x", "thunk", a, 2, 0, 0, NULL };
	struct mem m = { 0 };
	struct tev_writer *w;

	m.fp = open_memstream(&m.p, &m.n);
	w = tev_open(m.fp, "mem", TEV_JSON, 0);
	CHECK_INT(tev_track(w, &p), 0);
	CHECK_INT(tev_track(w, &t), 0);
	CHECK_INT(tev_begin(w, &s), 0);
	CHECK_INT(tev_end(w, &s), 0);
	CHECK_INT(tev_close(w), 0);
	fclose(m.fp);
	/* -1500 ns = -1.500 us, 1 ns = 0.001 us: never through a double. */
	CHECK(strstr(m.p, "{\"ph\":\"X\",\"name\":\"x\",\"cat\":\"thunk\","
	    "\"pid\":1,\"tid\":4097,\"ts\":-1.500,\"dur\":0.001,\"args\":"
	    "{\"op\":\"a\\\"b\\u000a\",\"mfu\":0.25}}") != NULL);
	CHECK(strstr(m.p, "\"thread_sort_index\",\"pid\":1,\"tid\":4097,"
	    "\"args\":{\"sort_index\":8192}") != NULL);
	CHECK(m.n > 4 && strcmp(m.p + m.n - 4, "\n]}\n") == 0);
	free(m.p);
}

static void
ranges(void)
{
	static const char *const bad[] = { "", "a", "3-1", "-1", "1,", ",1",
	    "1-2-3", "1 ", "2-" };
	struct tl_ranges r;
	size_t i;

	CHECK_INT(tl_ranges_parse("1,3-5,9", &r), 0);
	CHECK_INT(r.n, 3);
	CHECK(tl_ranges_has(&r, 1) && tl_ranges_has(&r, 3) &&
	    tl_ranges_has(&r, 5) && tl_ranges_has(&r, 9));
	CHECK(!tl_ranges_has(&r, 0) && !tl_ranges_has(&r, 2) &&
	    !tl_ranges_has(&r, 6) && !tl_ranges_has(&r, 10));
	tl_ranges_free(&r);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK_INT(tl_ranges_parse(bad[i], &r), -1);
		CHECK_INT(r.n, 0);
	}
}

int
main(void)
{
	perfetto_bytes();
	json_times();
	ranges();
	return unit_done("timeline");
}
