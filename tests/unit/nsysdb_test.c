/*
 * Unit tests of the SQLite reader and the projection: sqldb's header
 * checks; nvtxproj's tie rules on hand-made arrays; nsysdb's thread names
 * of the real exports against the golden threads.tsv files
 * (../shared/golden/nsys-sqlite); the ranges' names, of texts and
 * StringIds references, asked for in and out of order.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/tsv.h"
#include "formats/sqldb.h"
#include "profile/nsysdb.h"
#include "profile/nvtxproj.h"
#include "unit.h"

static void
test_header(void)
{
	uint8_t h[100];

	memset(h, 0, sizeof(h));
	CHECK_INT(sqldb_check_header(h, 0, 0), -1);
	CHECK_STR(err_msg(), "empty file");
	CHECK_INT(sqldb_check_header(h, 100, 4096), -1);
	CHECK(strstr(err_msg(), "zeroed SQLite header") != NULL);
	memcpy(h, "SQLite format 3", 16);
	CHECK_INT(sqldb_check_header(h, 50, 50), -1);
	CHECK_STR(err_msg(), "truncated SQLite file (50 bytes)");
	/* Page size 4096 (bytes 16-17), 3 pages (28-31), valid-for = change
	 * counter (92 and 24): 12288 bytes wanted. */
	h[16] = 0x10, h[17] = 0;
	h[31] = 3;
	h[27] = 7, h[95] = 7;
	CHECK_INT(sqldb_check_header(h, 100, 12288), 0);
	CHECK_INT(sqldb_check_header(h, 100, 8192), -1);
	CHECK_STR(err_msg(), "truncated SQLite file (8192 of 12288 bytes)");
	/* A stale page count (valid-for differs) is not trusted. */
	h[95] = 6;
	CHECK_INT(sqldb_check_header(h, 100, 8192), 0);
	h[0] = 'X';
	CHECK_INT(sqldb_check_header(h, 100, 8192), -1);
	CHECK_STR(err_msg(), "not a SQLite database");
}

/* One thread; each call i launches group i (key i). */
static void
test_ties(void)
{
	/* Ranges (start, end, thread, RangeId), sorted: 4 [0,20], 5 [5,25],
	 * 1, 2, 3 [10,20], 6 [30,40].  1's containers 4 and 5 tie at
	 * tightness 10: the later start, 5, is its parent.  Of identical 1,
	 * 2, 3 the lower RangeId is the parent: 1 -> 2 -> 3 (3's containers
	 * 1 and 2 tie at 0 with the same start: the higher RangeId). */
	struct nvtxproj_range r[] = {
		{ 10, 20, 7, 1 }, { 10, 20, 7, 2 }, { 10, 20, 7, 3 },
		{ 0, 20, 7, 4 }, { 5, 25, 7, 5 }, { 30, 40, 7, 6 }
	};
	/* Calls (start, end, thread, key, group): key 0 at [20,20], the end
	 * of 1-4 (inclusive), and again at [12,12]; key 1 at 6's end; key 2
	 * at [21,21], inside 5 only. */
	struct nvtxproj_call c[] = {
		{ 20, 20, 7, 0, 0, 0 }, { 40, 40, 7, 1, 1, 0 },
		{ 12, 12, 7, 0, 0, 0 }, { 21, 21, 7, 2, 2, 0 }
	};
	struct nvtxproj_group g[] = { { 100, 110 }, { 200, 230 }, { 300, 301 } };
	struct nvtxproj p;

	nvtxproj_run(r, 6, c, 4, NULL, g, &p);
	CHECK_INT(p.parent[0], 4);
	CHECK_INT(p.parent[1], 0);	/* identical: the lower id is parent */
	CHECK_INT(p.parent[2], 1);
	CHECK_INT(p.parent[3], -1);
	CHECK_INT(p.parent[4], -1);
	CHECK_INT(p.parent[p.parent[p.parent[2]]], 4);	/* Lvl 3 */
	CHECK_INT(p.parent[4], -1);
	/* Key 0 counted once though two of its calls lie in 1..4. */
	CHECK_INT(p.nops[0], 1);
	CHECK_INT(p.nops[3], 1);
	CHECK_INT(p.pstart[0], 100);
	CHECK_INT(p.pend[0], 110);
	/* 5 [5,25] has key 0 and the call at 21 (key 2). */
	CHECK_INT(p.nops[4], 2);
	CHECK_INT(p.pend[4], 301);
	CHECK_INT(p.nops[5], 1);
	/* Output: by projected start, longer first, then RangeId. */
	CHECK_INT(p.nout, 6);
	CHECK_INT(p.order[0], 4);
	CHECK_INT(p.order[1], 0);
	CHECK_INT(p.order[4], 3);
	CHECK_INT(p.order[5], 5);
	/* The calls' order given (computed ahead): the same projection.
	 * By thread and start: the calls at 12, 20, 21, 40. */
	{
		uint32_t *co = nvtxproj_order_calls(c, 4);
		struct nvtxproj q;
		size_t i, same = 0;

		CHECK_INT(co[0], 2);
		CHECK_INT(co[1], 0);
		CHECK_INT(co[2], 3);
		CHECK_INT(co[3], 1);
		nvtxproj_run(r, 6, c, 4, co, g, &q);
		for (i = 0; i < 6; i++)
			same += q.parent[i] == p.parent[i] &&
			    q.nops[i] == p.nops[i] && q.order[i] == p.order[i] &&
			    (p.nops[i] == 0 || (q.pstart[i] == p.pstart[i] &&
			    q.pend[i] == p.pend[i]));
		CHECK_INT(same, 6);
		nvtxproj_free(&q);
		free(co);
	}
	nvtxproj_free(&p);
}

/* The thread names of EXPORT as "PID\tTID\tName" lines, header first. */
static char *
threads_tsv(const char *path)
{
	struct nsysdb d;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	struct tsv_writer *w = tsv_wopen(fp, "mem");
	static const char *const cols[] = { "PID", "TID", "Name", NULL };

	if (nsysdb_open(&d, path) != 0 || nsysdb_load_threads(&d) != 0) {
		fprintf(stderr, "%s: %s\n", path, err_msg());
		unit_fail++;
	}
	tsv_header(w, cols);
	for (i = 0; i < d.nthreads; i++) {
		tsv_i64(w, d.threads[i].pid);
		tsv_i64(w, d.threads[i].tid);
		tsv_str(w, d.threads[i].name);
		tsv_eor(w);
	}
	tsv_wclose(w);
	fclose(fp);
	nsysdb_free(&d);
	return buf;
}

static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *s;
	long n;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, fp) != (size_t)n)
		s[0] = '\0';
	fclose(fp);
	return s;
}

static void
test_threads(void)
{
	static const char *const ex[] = {
		"saxpy-mpi-cuda_nsys_perlmutter0", "mfu_2gpu_before",
		"h100_2gpu_1s", "perlmutter-cloverleaf-cuda", NULL
	};
	const char *shared = getenv("SHARED");
	char path[512];
	size_t i;

	if (shared == NULL)
		shared = "../shared";
	for (i = 0; ex[i]; i++) {
		char *want, *got;

		snprintf(path, sizeof(path), "%s/golden/nsys-sqlite/%s.threads.tsv",
		    shared, ex[i]);
		if ((want = slurp(path)) == NULL) {
			printf("nsysdb: %s not found, skipped\n", path);
			continue;
		}
		snprintf(path, sizeof(path), "%s/data/nsys-sqlite/%s.sqlite",
		    shared, ex[i]);
		got = threads_tsv(path);
		CHECK(got != NULL && strcmp(got, want) == 0);
		free(want);
		free(got);
	}
}

/* The text planted in range I of test_names (NULL: a StringIds
 * reference to "s<I>"), its length in *LEN. */
static const char *
planted(int i, size_t *len)
{
	static char buf[16];

	switch (i) {
	case 3:	/* the arena's markers as a text's first byte */
		*len = 4;
		return "\001one";
	case 4:
		*len = 4;
		return "\002two";
	case 6:	/* a NUL inside: the name ends there */
		*len = 3;
		return "a\0b";
	case 7:
		*len = 0;
		return "";
	}
	if (i % 5 == 0)
		return NULL;
	*len = (size_t)snprintf(buf, sizeof(buf), "t%d", i);
	return buf;
}

/* A range's name is ":" and its text (domain 0), whatever the order in
 * which the names are asked for (the arena's index and cursors). */
static void
test_names(void)
{
	static const int ask[] = { 19, 0, 5, 17, 8, 9, 10, 3, 4, 6, 7, 1, 2,
	    11, 12, 16, 15, 14, 13, 18, 0, 19 };
	sqlite3 *db;
	sqlite3_stmt *st;
	unsigned char *img;
	sqlite3_int64 n;
	struct nsysdb d;
	size_t k, len;
	int i;

	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "CREATE TABLE StringIds (id INTEGER "
	    "PRIMARY KEY, value TEXT); CREATE TABLE NVTX_EVENTS (start "
	    "INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER, "
	    "textId INTEGER, text TEXT)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_prepare_v2(db, "INSERT INTO NVTX_EVENTS VALUES (?1, ?1 + 5, "
	    "59, 7, ?2, ?3)", -1, &st, NULL);
	for (i = 0; i < 20; i++) {
		const char *t = planted(i, &len);

		sqlite3_bind_int(st, 1, i * 10);
		if (t == NULL) {
			sqlite3_bind_int(st, 2, 100 + i);
			sqlite3_bind_null(st, 3);
		} else {
			sqlite3_bind_null(st, 2);
			sqlite3_bind_text(st, 3, t, (int)len, SQLITE_TRANSIENT);
		}
		CHECK_INT(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, "INSERT INTO StringIds VALUES (?1, 's' || "
	    "(?1 - 100))", -1, &st, NULL);
	for (i = 0; i < 20; i += 5) {
		sqlite3_bind_int(st, 1, 100 + i);
		CHECK_INT(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	img = sqlite3_serialize(db, "main", &n, 0);
	sqlite3_close(db);
	CHECK(img != NULL);
	if (img == NULL)
		return;
	CHECK_INT(nsysdb_open_mem(&d, img, (size_t)n), 0);
	CHECK_INT(nsysdb_load_nvtx(&d), 0);
	CHECK_INT(d.nr, 20);
	for (k = 0; k < sizeof(ask) / sizeof(ask[0]) && d.nr == 20; k++) {
		const char *t = planted(ask[k], &len);
		char want[32];

		if (t == NULL)
			snprintf(want, sizeof(want), ":s%d", ask[k]);
		else
			snprintf(want, sizeof(want), ":%.*s", (int)len, t);
		CHECK_STR(nsysdb_name(&d, (size_t)ask[k]), want);
	}
	nsysdb_free(&d);
	sqlite3_free(img);
}

int
main(void)
{
	test_header();
	test_ties();
	test_threads();
	test_names();
	return unit_done("nsysdb");
}
