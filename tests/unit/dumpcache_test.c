/*
 * Tests of lib/profile/dumpcache: the plan (dumps that two profiles or
 * more hold, by size and CRC-32 in zips, by size alone in directories),
 * the preload (each planned dump decoded once, a bad one left out), and
 * which dumps dumpcache_release keeps (planned ones always, others only
 * while the last profile used them).
 *
 * The inputs are four profiles made here, as directories and as zips,
 * each with nvtx_gpu_proj_trace/trace.parquet holding its name (all
 * input_open reads of it) and after-optimizations dumps:
 *   program 1 "jit_main": the same bytes in p0..p3
 *   program 2 "jit_b" in p0 and p2, "jit_B" (other bytes, same size) in
 *             p1 and p3
 *   program 3 "jit_c": in p3 alone
 *   program 4: garbage (not an HLO module), the same bytes in p0 and p1
 *   program 5: a module larger than DUMPCACHE_PLAN_BYTES, the same bytes
 *             in p0 and p1 (beyond the plan's budget)
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "base/mem.h"
#include "formats/hlo.h"
#include "profile/dumpcache.h"
#include "hlo.pb-c.h"
#include "unit.h"

static char dir[] = "/tmp/dumpcache_test.XXXXXX";

/* A packed HloModuleProto named NAME (one computation, one parameter);
 * its length in *LEN. */
static uint8_t *
module(const char *name, size_t *len)
{
	Xla__HloModuleProto m;
	Xla__HloComputationProto c, *cp = &c;
	Xla__HloInstructionProto in, *ip = &in;
	Xla__ShapeProto sh;
	uint8_t *buf;

	xla__shape_proto__init(&sh);
	sh.element_type = 11;	/* F32, a scalar */
	xla__hlo_instruction_proto__init(&in);
	in.name = "p";
	in.opcode = "parameter";
	in.id = 1;
	in.shape = &sh;
	xla__hlo_computation_proto__init(&c);
	c.name = "main";
	c.id = 1;
	c.n_instructions = 1;
	c.instructions = &ip;
	xla__hlo_module_proto__init(&m);
	m.name = (char *)name;
	m.id = 1;
	m.n_computations = 1;
	m.computations = &cp;
	*len = xla__hlo_module_proto__get_packed_size(&m);
	buf = mem_alloc(*len);
	xla__hlo_module_proto__pack(&m, buf);
	return buf;
}

static void
put(const char *path, const void *data, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL || fwrite(data, 1, n, fp) != n || fclose(fp) != 0)
		abort();
}

/* The dump member of program ID named NAME. */
static void
member(char *buf, size_t cap, int id, const char *name)
{
	snprintf(buf, cap, "dump/module_%04d.%s.sm_8.0_gpu_after_optimizations"
	    ".hlo.pb", id, name);
}

/* Profile K's members: names and bytes, N of them. */
struct mem {
	char name[128];
	uint8_t *data;
	size_t len;
};

static size_t
members(int k, struct mem *v)
{
	static const char garbage[] = "not an HLO module at all";
	size_t n = 0;

	snprintf(v[n].name, sizeof(v[n].name),
	    "nvtx_gpu_proj_trace/trace.parquet");
	v[n].len = 2;
	v[n].data = mem_alloc(3);
	snprintf((char *)v[n++].data, 3, "p%d", k);
	member(v[n].name, sizeof(v[n].name), 1, "jit_main");
	v[n].data = module("jit_main", &v[n].len);
	n++;
	member(v[n].name, sizeof(v[n].name), 2, "jit_b");
	v[n].data = module(k % 2 ? "jit_B" : "jit_b", &v[n].len);
	n++;
	if (k == 3) {
		member(v[n].name, sizeof(v[n].name), 3, "jit_c");
		v[n].data = module("jit_c", &v[n].len);
		n++;
	}
	if (k < 2) {
		static char *big;

		if (big == NULL) {
			big = mem_alloc(DUMPCACHE_PLAN_BYTES + 2);
			memset(big, 'x', DUMPCACHE_PLAN_BYTES + 1);
			big[DUMPCACHE_PLAN_BYTES + 1] = '\0';
		}
		member(v[n].name, sizeof(v[n].name), 5, "big");
		v[n].data = module(big, &v[n].len);
		n++;
		member(v[n].name, sizeof(v[n].name), 4, "bad");
		v[n].len = sizeof(garbage) - 1;
		v[n].data = mem_alloc(v[n].len);
		memcpy(v[n].data, garbage, v[n].len);
		n++;
	}
	return n;
}

/* Profile K as the directory DIR/dK and the zip DIR/zK.zip. */
static void
make_profile(int k)
{
	struct mem v[8];
	char path[2048];
	size_t i, n = members(k, v);
	zip_t *z;

	snprintf(path, sizeof(path), "%s/z%d.zip", dir, k);
	if ((z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, NULL)) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		zip_source_t *s = zip_source_buffer(z, v[i].data, v[i].len, 0);

		if (s == NULL || zip_file_add(z, v[i].name, s, 0) < 0)
			abort();
	}
	snprintf(path, sizeof(path), "%s/d%d", dir, k);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/d%d/nvtx_gpu_proj_trace", dir, k);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/d%d/dump", dir, k);
	mkdir(path, 0755);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/d%d/%s", dir, k, v[i].name);
		put(path, v[i].data, v[i].len);
	}
	if (zip_close(z) != 0)	/* reads the buffers */
		abort();
	for (i = 0; i < n; i++)
		free(v[i].data);
}

/* The dump of C named NAME, or NULL. */
static const struct dumpcache_dump *
named(const struct dumpcache *c, const char *name)
{
	size_t i;

	for (i = 0; i < dumpcache_count(c); i++)
		if (strcmp(hlo_name(dumpcache_at(c, i)->m), name) == 0)
			return dumpcache_at(c, i);
	return NULL;
}

/* Add the dump of module NAME to C as a profile's reader would. */
static struct dumpcache_dump *
add(struct dumpcache *c, const char *name)
{
	size_t len;
	uint8_t *raw = module(name, &len);
	struct dumpcache_dump *d = dumpcache_find(c, raw, len,
	    mem_digest(raw, len));

	if (d != NULL) {
		free(raw);
		return d;
	}
	return dumpcache_add(c, raw, len, mem_digest(raw, len), NULL, 0, 0);
}

/* The paths of the four profiles, as zips (ZIP) or directories. */
static void
paths(int zip, char **p)
{
	int k;

	for (k = 0; k < 4; k++) {
		p[k] = mem_alloc(strlen(dir) + 16);
		sprintf(p[k], zip ? "%s/z%d.zip" : "%s/d%d", dir, k);
	}
}

static void
test_zips(void)
{
	char *p[5];
	struct dumpcache *c = dumpcache_new();
	struct dumpcache_dump *d;
	size_t len;
	int k;

	paths(1, p);
	p[4] = "/nonexistent/profile";	/* left out of the plan */
	dumpcache_plan(c, (const char *const *)p, 5, NULL);
	/* jit_main (4 profiles), jit_b and jit_B (2 each, told apart by their
	 * CRCs); not jit_c (1 profile) nor big (beyond the budget), and the
	 * garbage does not decode. */
	CHECK_INT(dumpcache_preload(c, 2, 0), 3);
	CHECK_INT(dumpcache_count(c), 3);
	/* What each input decodes for itself: p0 and p1 big (beyond the
	 * budget), p2 nothing, p3 jit_c; nothing for the input that does
	 * not open, nor beyond the inputs. */
	free(module("jit_c", &len));
	CHECK(dumpcache_own_bytes(c, 0) > DUMPCACHE_PLAN_BYTES);
	CHECK(dumpcache_own_bytes(c, 1) == dumpcache_own_bytes(c, 0));
	CHECK_INT(dumpcache_own_bytes(c, 2), 0);
	CHECK_INT(dumpcache_own_bytes(c, 3), len);
	CHECK_INT(dumpcache_own_bytes(c, 4), 0);
	CHECK_INT(dumpcache_own_bytes(c, 5), 0);
	CHECK(named(c, "jit_main") && named(c, "jit_main")->planned);
	CHECK(named(c, "jit_b") && named(c, "jit_b")->planned);
	CHECK(named(c, "jit_B") && named(c, "jit_B")->planned);
	CHECK(named(c, "jit_c") == NULL);
	/* Preloading again adds nothing. */
	CHECK_INT(dumpcache_preload(c, 2, 0), 0);
	/* A profile's reader finds them, not decoding them again. */
	d = add(c, "jit_main");
	CHECK(d == named(c, "jit_main"));
	d->used = 1;
	/* jit_c is decoded, used by this profile: kept for the next. */
	d = add(c, "jit_c");
	CHECK(d != NULL && !d->planned);
	d->used = 1;
	CHECK_INT(dumpcache_count(c), 4);
	dumpcache_release(c);
	CHECK_INT(dumpcache_count(c), 4);
	CHECK(named(c, "jit_c") && !named(c, "jit_c")->used);
	/* The next profile does not use it: freed; planned ones stay. */
	dumpcache_release(c);
	CHECK_INT(dumpcache_count(c), 3);
	CHECK(named(c, "jit_c") == NULL && named(c, "jit_B") != NULL);
	dumpcache_free(c);

	/* Planned but not preloaded (-j 0, one worker): kept once met.
	 * jit_main, decoded before the plan, is marked by it. */
	c = dumpcache_new();
	d = add(c, "jit_main");
	CHECK(d != NULL && !d->planned);
	d->used = 1;
	dumpcache_plan(c, (const char *const *)p, 4, NULL);
	CHECK_INT(dumpcache_count(c), 1);
	CHECK(d->planned);
	d = add(c, "jit_B");
	CHECK(d != NULL && d->planned);
	d = add(c, "jit_c");
	CHECK(d != NULL && !d->planned);
	dumpcache_release(c);
	dumpcache_release(c);
	CHECK_INT(dumpcache_count(c), 2);
	CHECK(named(c, "jit_B") != NULL && named(c, "jit_main") != NULL);
	/* The preload then decodes only jit_b. */
	CHECK_INT(dumpcache_preload(c, 1, 0), 1);
	CHECK(named(c, "jit_b") && named(c, "jit_b")->planned);
	/* A plan of p3 alone (nothing shared) replaces it: unused, the
	 * dumps go at the next release. */
	dumpcache_plan(c, (const char *const *)p + 3, 1, NULL);
	CHECK(!named(c, "jit_b")->planned && !named(c, "jit_main")->planned);
	CHECK_INT(dumpcache_preload(c, 1, 0), 0);
	dumpcache_release(c);
	CHECK_INT(dumpcache_count(c), 0);
	dumpcache_free(c);
	for (k = 0; k < 4; k++)
		free(p[k]);
}

static void
test_dirs(void)
{
	char *p[4];
	struct dumpcache *c = dumpcache_new();
	struct dumpcache_dump *d;
	int k;

	paths(0, p);
	/* By sizes alone jit_b and jit_B are one entry (4 profiles): one
	 * of them is planned, the first met, p0's. */
	dumpcache_plan(c, (const char *const *)p, 4, NULL);
	CHECK_INT(dumpcache_preload(c, 3, 0), 2);
	/* jit_c has the size of jit_b: one entry, planned, so that p3
	 * decodes nothing of its own; p0 big. */
	CHECK_INT(dumpcache_own_bytes(c, 2), 0);
	CHECK_INT(dumpcache_own_bytes(c, 3), 0);
	CHECK(dumpcache_own_bytes(c, 0) > DUMPCACHE_PLAN_BYTES);
	CHECK(named(c, "jit_main") && named(c, "jit_main")->planned);
	CHECK(named(c, "jit_b") && named(c, "jit_b")->planned);
	/* jit_B has the size of a planned dump, but one dump per entry:
	 * not planned, freed when unused. */
	d = add(c, "jit_B");
	CHECK(d != NULL && !d->planned);
	dumpcache_release(c);
	CHECK_INT(dumpcache_count(c), 2);
	CHECK(named(c, "jit_B") == NULL);
	dumpcache_free(c);
	for (k = 0; k < 4; k++)
		free(p[k]);
}

int
main(void)
{
	char cmd[128];
	int k;

	if (mkdtemp(dir) == NULL)
		abort();
	for (k = 0; k < 4; k++)
		make_profile(k);
	test_zips();
	test_dirs();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		abort();
	return unit_done("dumpcache");
}
