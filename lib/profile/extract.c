/* The extraction (extract.h): the profiles of a run read one after the
 * other into the frames, their HLO dumps through dumpcache.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive.h"
#include "base/err.h"
#include "profile/dumpcache.h"
#include "profile/extract.h"
#include "profile/extract_impl.h"
#include "profile/heap.h"
#include "profile/launchers.h"
#include "formats/hlo.h"
#include "formats/xz.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/u64map.h"
#include "profile/nsysdb.h"
#include "profile/nvtx.h"
#include "profile/nvtxproj.h"
#include "profile/prefetch.h"
#include "profile/trace.h"
#include "base/tsv.h"

const char *const extract_frame_names[] = {
	"thunk", "module", "communication", "compile", "hlo", "stackframes",
	"heap", "nvtx", NULL
};

/* The profile being read, for callbacks. */
struct ctx {
	struct extract *x;
	const struct input_profile *p;
};

unsigned
extract_frame_bit(const char *name)
{
	size_t i;

	for (i = 0; extract_frame_names[i]; i++)
		if (strcmp(name, extract_frame_names[i]) == 0)
			return 1u << i;
	return 0;
}


/*
 * Read member MEMBER of archive AR (P's input or its dump directory)
 * whole, decompressing .xz, from what the prefetch thread already read
 * when it can; errors name the archive and member.
 */
/* Whether the prefetch thread reads archive AR of profile P. */
static int
prefetched(const struct extract *x, const struct input_profile *p,
    const struct archive *ar)
{
	return x->pf != NULL && p == &x->in.p[x->pf_profile] && ar == x->pf_ar;
}

static int
fetch(struct extract *x, const struct input_profile *p, struct archive *ar,
    const char *member, uint8_t **data, size_t *len)
{
	if (prefetched(x, p, ar) && prefetch_take(x->pf, member, data, len))
		return 0;
	if (archive_read_plain(ar, member, data, len) != 0)
		return err_prefix_in("%s", ar == p->ar ? p->path :
		    archive_path(ar));
	return 0;
}

/* Start reading profile K's members in the background (prefetch.h):
 * its reports and its dumps, when they are in one archive. */
static struct prefetch *
prefetch_profile(struct extract *x, size_t k, struct archive **ar)
{
	const struct input_profile *p = &x->in.p[k];
	char **m = mem_calloc(p->ndump + 4, sizeof(*m));
	struct prefetch_known *known = NULL;
	struct prefetch *pf;
	size_t i, n = 0, nplain, nknown = 0;

	*ar = p->kind == INPUT_NSYSJAX ? p->ar : p->dumps;
	if (*ar == NULL || (p->kind == INPUT_NSYSJAX && p->dumps != p->ar)) {
		free(m);
		return NULL;
	}
	if (p->kind == INPUT_NSYSJAX) {
		if (p->trace)
			m[n++] = mem_strdup(p->trace);
		if (p->threads)
			m[n++] = mem_strdup(p->threads);
		if ((x->o.frames & EXTRACT_COMPILE) && p->pushpop)
			m[n++] = mem_strdup(p->pushpop);
	}
	nplain = n;
	for (i = 0; i < p->ndump; i++)
		m[n++] = mem_strdup(p->dump[i].member);
	/* The dumps decoded so far (extract.h): in an SPMD run, the same
	 * bytes again, which the thread need not decompress. */
	if (x->dumps != NULL) {
		nknown = dumpcache_count(x->dumps);
		known = mem_calloc(nknown + 1, sizeof(*known));
		for (i = 0; i < nknown; i++) {
			known[i].len = dumpcache_at(x->dumps, i)->rawlen;
			known[i].digest = dumpcache_at(x->dumps, i)->rawdigest;
		}
	}
	pf = prefetch_start(archive_path(*ar), m, n, nplain, known, nknown);
	free(known);
	return pf;
}

struct extract_ahead {
	struct prefetch *pf;
	const char *path;	/* the caller's, to check the match */
	size_t only;
};

struct extract_ahead *
extract_ahead_start(const char *path, const struct extract_opts *o)
{
	struct extract x;
	struct extract_ahead *a = NULL;
	size_t k = o->only > 0 ? o->only - 1 : 0;
	struct archive *ar;

	memset(&x, 0, sizeof(x));
	x.o = *o;
	x.dumps = o->dumps;
	/* The members' names, as extract_load will ask for them; the
	 * thread opens the archive itself, so the set closes at once. */
	if (input_open(&path, 1, o->dumpdir, &x.in) == 0 && k < x.in.n) {
		a = mem_calloc(1, sizeof(*a));
		a->pf = prefetch_profile(&x, k, &ar);
		a->path = path;
		a->only = o->only;
	}
	input_close(&x.in);
	if (a != NULL && a->pf == NULL) {
		free(a);
		a = NULL;
	}
	return a;
}

void
extract_ahead_free(struct extract_ahead *a)
{
	if (a == NULL)
		return;
	prefetch_free(a->pf);
	free(a);
}

/*
 * The HLO module of PROGRAM_ID in profile P, loading its dump once: from
 * the dump cache when an earlier profile's member had the same bytes.
 * Returns 1 and sets *M, 0 when there is no dump, -1 on a bad dump.
 */
static int
hlo_get(struct extract *x, const struct input_profile *p, int64_t program_id,
    struct hlo_module **m)
{
	struct extract_hlo *h = x->hlo;
	const struct input_dump *in = input_dump(p, program_id);
	struct dumpcache_dump *d;
	uint8_t *raw, *data = NULL;
	uint64_t digest;
	size_t i, rawlen, len = 0;

	if (in == NULL)
		return 0;
	for (i = 0; i < h->n; i++)
		if (h->ar[i] == p->dumps && strcmp(h->member[i], in->member) == 0) {
			*m = h->d[i]->m;
			return 1;
		}
	if (!(prefetched(x, p, p->dumps) && prefetch_take_dump(x->pf,
	    in->member, &raw, &rawlen, &data, &len)) &&
	    archive_read(p->dumps, in->member, &raw, &rawlen) != 0)
		return err_prefix_in("%s", p->dumps == p->ar ? p->path :
		    archive_path(p->dumps));
	digest = mem_digest(raw, rawlen);
	if ((d = dumpcache_find(x->dumps, raw, rawlen, digest)) != NULL) {
		free(raw);
		free(data);
	} else if ((d = dumpcache_add(x->dumps, raw, rawlen, digest, data, len,
	    (x->o.frames & EXTRACT_HEAP) != 0)) == NULL) {
		return err_prefix_at("%s:%s", p->dumps == p->ar ? p->path :
		    archive_path(p->dumps), in->member);
	}
	d->used = 1;
	mem_grow(&h->ar, &h->cap, h->n + 1, sizeof(*h->ar));
	h->member = mem_realloc(h->member, h->cap, sizeof(*h->member));
	h->d = mem_realloc(h->d, h->cap, sizeof(*h->d));
	h->heaped = mem_realloc(h->heaped, h->cap, sizeof(*h->heaped));
	h->heaped[h->n] = 0;
	h->ar[h->n] = p->dumps;
	h->member[h->n] = mem_strdup(in->member);
	h->d[h->n++] = d;
	*m = d->m;
	return 1;
}

/* Member MEMBER (resolved by input.c; NULL: absent, named BASE). */
static int
read_required(struct extract *x, const struct input_profile *p,
    const char *member, const char *base, uint8_t **data, size_t *len)
{
	if (member == NULL)
		return err_fail("%s: missing member %s (profile %s)", p->path,
		    base, p->name);
	return fetch(x, p, p->ar, member, data, len);
}

/* ---- thunk and module frames ---- */

static int load_trace_sqlite(struct extract *x, size_t k);

/*
 * Profile K of an archive older than thread-metadata.parquet (before
 * July 2024): the devices of its launcher threads derived from the
 * trace T as the nsys-jax of that time did (launchers.h), with a note.
 * Frees T and TDATA.
 */
static int
load_trace_old(struct extract *x, size_t k, struct trace *t, uint8_t *tdata)
{
	const struct input_profile *p = &x->in.p[k];
	struct proj_thread *th = NULL;
	size_t nth = 0, index = x->o.only ? x->o.only_index : k;
	int rc;

	rc = launchers_derive(t->r, t->n, index, &th, &nth);
	if (rc == 0) {
		err_note(&x->warnings, "%s: no thread-metadata.parquet (nsys-jax "
		    "before July 2024): devices numbered as that nsys-jax did, "
		    "thread id order being local device order in each program, "
		    "Device = %zu (the profile's index) x local devices + local "
		    "device", p->path, index);
		rc = frames_add_profile(&x->fr, k, t->r, t->n, t->has_gpu_ops,
		    t->has_orig, th, nth);
	}
	if (rc != 0)
		err_prefix_at("%s:%s", p->path, p->trace);
	launchers_free(th, nth);
	trace_free(t);
	free(tdata);
	return rc;
}

static int
load_trace(struct extract *x, size_t k)
{
	const struct input_profile *p = &x->in.p[k];
	uint8_t *tdata = NULL, *hdata = NULL;
	size_t tlen, hlen;
	const char *tm = p->trace, *hm = p->threads;
	struct trace t;
	struct threads th;
	int rc;

	if (p->kind == INPUT_SQLITE)
		return load_trace_sqlite(x, k);
	memset(&t, 0, sizeof(t));
	memset(&th, 0, sizeof(th));
	rc = read_required(x, p, tm, "nvtx_gpu_proj_trace/trace.parquet",
	    &tdata, &tlen);
	if (rc == 0 && (rc = trace_read_parquet(tdata, tlen, &t)) != 0)
		err_prefix_at("%s:%s", p->path, tm);
	if (rc == 0 && hm == NULL)
		return load_trace_old(x, k, &t, tdata);
	if (rc == 0)
		rc = read_required(x, p, hm, "thread-metadata.parquet",
		    &hdata, &hlen);
	if (rc == 0 && (rc = threads_read_parquet(hdata, hlen, &th)) != 0)
		err_prefix_at("%s:%s", p->path, hm);
	if (rc == 0 && (rc = frames_add_profile(&x->fr, k, t.r, t.n,
	    t.has_gpu_ops, t.has_orig, th.t, th.n)) != 0)
		err_prefix_at("%s:%s", p->path, tm);
	trace_free(&t);
	threads_free(&th);
	free(tdata);
	free(hdata);
	return rc;
}

/*
 * ProgramId of a module without a dump, marked so that users see it;
 * warned about once per ProgramId: "<h>-missing-hlo", H the FNV-1a (32
 * bits, 8 hex digits) of the module's name.  XLA's program_id is a
 * counter of one process: the same module has other ids in processes or
 * runs that compiled another number of modules before it, and one id
 * names other modules there, so it cannot name a module; its name does,
 * as the SPMD join takes it.  A second program of one name in one
 * process (another program_id) is "<h>-p<program_id>-missing-hlo", and
 * noted.  The hash comes first: the pipelines name a module's files by a
 * ProgramId's first 12 characters (the reference's rule), which then
 * hold the whole hash ("3bf4a0c2-missing-hlo", "3bf4a0c2-p186-missing-hlo").
 */
static const char *
placeholder(struct extract *x, size_t profile, int64_t program_id,
    const char *name)
{
	char buf[64], *key;
	uint32_t h = 2166136261u;
	const unsigned char *c;
	size_t id;
	int added;

	for (c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 16777619u;
	key = mem_alloc(strlen(name) + 24);
	snprintf(key, strlen(name) + 24, "%zu\t%s", profile, name);
	id = strtab_intern(&x->phnames, key, strlen(key), &added);
	free(key);
	if (added) {
		mem_grow(&x->phpid, &x->phcap, id + 1, sizeof(*x->phpid));
		x->phpid[id] = program_id;
	}
	if (x->phpid[id] == program_id)
		snprintf(buf, sizeof(buf), "%08lx-missing-hlo", (unsigned long)h);
	else
		snprintf(buf, sizeof(buf), "%08lx-p%lld-missing-hlo",
		    (unsigned long)h, (long long)program_id);
	return extract_intern(x, buf);
}

static const char *
missing_program(struct extract *x, const struct frames_module *m)
{
	const char *id = placeholder(x, m->profile, m->program_id, m->name);
	int added;

	strtab_intern(&x->missing, id, strlen(id), &added);
	if (!added)
		return id;
	err_note(&x->warnings, "%s: no HLO dump for module %s (program_id "
	    "%lld); its thunks have ProgramId %s, and Communication only for "
	    "the collectives their names reveal (no message sizes, no groups)%s",
	    x->in.p[m->profile].path, m->name, (long long)m->program_id, id,
	    strstr(id, "-p") ? "; another program of this name ran in this "
	    "process first, without its dump: the two are told apart by "
	    "program_id only" : "");
	return id;
}

static int
set_program(struct extract *x, struct frames_module *m)
{
	const struct input_profile *p = &x->in.p[m->profile];
	int rc;

	if (m->program_id < 0) {
		m->program = "unknown";
		return 0;
	}
	rc = hlo_get(x, p, m->program_id, &m->hlo);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		if (!x->o.allow_missing_hlo)
			return err_fail("%s: no HLO dump for module %s "
			    "(program_id %lld) in dump/ (a warm JAX compilation "
			    "cache skips dumps); --allow-missing-hlo continues "
			    "without its metadata", p->path, m->name,
			    (long long)m->program_id);
		m->program = missing_program(x, m);
		return 0;
	}
	if (hlo_program_id(m->hlo) == NULL)
		return err_fail("%s: HLO dump of module %s (program_id %lld) "
		    "has no fingerprint_before_lhs", p->path, m->name,
		    (long long)m->program_id);
	m->program = extract_intern(x, hlo_program_id(m->hlo));
	return 0;
}

/* Copy the facts the communication frame needs from the HLO. */
static int
set_comm(struct extract *x, struct frames_thunk *t,
    const struct frames_module *m, const struct hlo_inst *in)
{
	t->comm = in->comm;
	if (in->comm != 1)
		return 0;
	if (in->collective == NULL && (x->o.frames & EXTRACT_COMMUNICATION))
		return err_fail("%s: module %s: %s: %s",
		    x->in.p[m->profile].path, m->name, t->name,
		    in->err ? in->err : "no collective facts");
	t->collective = in->collective ? extract_intern(x, in->collective) : NULL;
	t->message_size = in->message_size;
	t->collective_size = in->collective_size;
	return 0;
}

/*
 * A thunk of a module without a dump: a collective when its name is a
 * collective opcode's (nvtx_collective), with what the name tells (the
 * Collective, the pairwise size 2) and the rest unknown (-1: empty
 * MessageSize, CollectiveSize); any other name stays unknown (-1), since
 * a name alone cannot tell a fusion that wraps a collective from compute.
 */
static void
by_name(struct frames_thunk *t)
{
	int64_t size;
	const char *c = nvtx_collective(t->name, &size);

	if (c == NULL)
		return;
	t->comm = 1;
	t->collective = c;
	t->message_size = -1;
	t->collective_size = size;
}

/* ---- thunks that are no HLO instruction ---- */

/* Names a note lists at most. */
#define NOHLO_NAMES	4

/*
 * The thunks of one dump whose hlo_op is no instruction of it, counted
 * apart for command buffers ([1], nvtx_command_buffer) and the others
 * ([0]), and those whose unique_hlo_op_id names no instruction or
 * another one than their hlo_op ([2]): executions, and the distinct
 * names in order of first sight.
 */
enum { NOHLO_OTHER, NOHLO_CMDBUF, NOHLO_ID, NOHLO_KINDS };
struct nohlo {
	const struct hlo_module *hlo;
	size_t module;		/* its first module row, for the note */
	size_t nexec[NOHLO_KINDS];
	struct strtab names[NOHLO_KINDS];
};

/* Count thunk NAME of module row M, whose dump HLO has no such
 * instruction, in V[0..*N): as a command buffer when KIND is
 * NOHLO_CMDBUF (the thunk metadata said so) or it has a command buffer's
 * name, as an id that disagrees when KIND is NOHLO_ID. */
static void
nohlo_add(struct nohlo **v, size_t *n, size_t *cap, size_t m,
    const struct hlo_module *hlo, const char *name, int kind)
{
	size_t i;
	int k = kind == NOHLO_ID ? NOHLO_ID : kind == NOHLO_CMDBUF ||
	    nvtx_command_buffer(name, strlen(name)) ? NOHLO_CMDBUF :
	    NOHLO_OTHER;

	for (i = *n; i-- > 0 && (*v)[i].hlo != hlo;)
		;
	if (i == (size_t)-1) {
		mem_grow(v, cap, *n + 1, sizeof(**v));
		i = (*n)++;
		memset(&(*v)[i], 0, sizeof(**v));
		(*v)[i].hlo = hlo;
		(*v)[i].module = m;
	}
	(*v)[i].nexec[k]++;
	strtab_intern(&(*v)[i].names[k], name, strlen(name), NULL);
}

/* "a, b, c" of the first NOHLO_NAMES names of T, ", ..." for more. */
static void
nohlo_list(const struct strtab *t, char *buf, size_t cap)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < t->n && i < NOHLO_NAMES && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%.80s", i ? ", " : "",
		    strtab_get(t, i));
	if (t->n > NOHLO_NAMES && n < cap)
		snprintf(buf + n, cap - n, ", ...");
}

/*
 * One note per dump and kind (none when EMIT is 0: the run failed): the
 * thunks keep their rows, times and devices, with empty HLO metadata
 * (Communication, the communication facts, no hlo row).  Command buffers
 * say how to see inside them.  Frees V.
 */
static void
nohlo_notes(struct extract *x, struct nohlo *v, size_t n, int emit)
{
	char names[512];
	size_t i, e, k;

	for (i = 0; i < n; i++) {
		const struct frames_module *m = &x->fr.modules[v[i].module];
		const char *path = x->in.p[m->profile].path;

		if ((k = v[i].names[1].n) > 0 && emit) {
			e = v[i].nexec[1];
			nohlo_list(&v[i].names[1], names, sizeof(names));
			err_note(&x->warnings, "%s: module %s: %zu execution%s "
			    "of %zu XLA command buffer%s (%s), each run as one "
			    "CUDA graph and no HLO instruction: the whole "
			    "graph's time, no HLO metadata; for the time of "
			    "each operation inside, profile with "
			    "nsysjax-profile, whose SQLite export traces graph "
			    "nodes (nsys --cuda-graph-trace=node)", path,
			    m->name, e, e == 1 ? "" : "s", k, k == 1 ? "" : "s",
			    names);
		}
		if ((k = v[i].names[0].n) > 0 && emit) {
			e = v[i].nexec[0];
			nohlo_list(&v[i].names[0], names, sizeof(names));
			err_note(&x->warnings, "%s: module %s: %zu execution%s "
			    "of %zu thunk%s that %s no HLO instruction of its "
			    "dump (%s): kept without HLO metadata", path,
			    m->name, e, e == 1 ? "" : "s", k, k == 1 ? "" : "s",
			    k == 1 ? "is" : "are", names);
		}
		if ((k = v[i].names[NOHLO_ID].n) > 0 && emit) {
			e = v[i].nexec[NOHLO_ID];
			nohlo_list(&v[i].names[NOHLO_ID], names, sizeof(names));
			err_note(&x->warnings, "%s: module %s: %zu execution%s "
			    "of %zu thunk%s whose unique_hlo_op_id names no "
			    "instruction of its dump or another one than its "
			    "hlo_op (%s): kept without HLO metadata (a dump of "
			    "another compilation?)", path, m->name, e,
			    e == 1 ? "" : "s", k, k == 1 ? "" : "s", names);
		}
		for (k = 0; k < NOHLO_KINDS; k++)
			strtab_free(&v[i].names[k]);
	}
	free(v);
}

/*
 * Whether thunk T's unique_hlo_op_id, if its range has one, is the id of
 * the instruction its hlo_op names in dump H.  Names are unique in a
 * module (hlo_load), so a disagreement means the dump is not the one that
 * ran (another compilation of the module) or the range is damaged: its
 * facts would belong to another instruction.
 */
static int
id_agrees(const struct hlo_module *h, const struct frames_thunk *t)
{
	const struct hlo_inst *in;

	if (!t->has_id)
		return 1;
	in = hlo_find_id(h, t->hlo_id);
	return in != NULL && strcmp(in->name, t->name) == 0;
}

/*
 * frames_holds_fn over the dumps of profile PROFILE (hlo_get): whether
 * program PROGRAM_ID's dump names the instruction OP[0..LEN) with id ID.
 * A dump that cannot be read is no answer here; set_program reports it.
 */
static int
holds_id(void *ctx, size_t profile, int64_t program_id, const char *op,
    size_t len, int64_t id)
{
	struct extract *x = ctx;
	struct hlo_module *m = NULL;
	const struct hlo_inst *in;

	if (program_id < 0 ||
	    hlo_get(x, &x->in.p[profile], program_id, &m) != 1)
		return 0;
	in = hlo_find_id(m, id);
	return in != NULL && strlen(in->name) == len &&
	    memcmp(in->name, op, len) == 0;
}

/*
 * ProgramId and communication facts of modules M0.. and thunks T0..; a
 * thunk that is no instruction of its dump keeps Communication unknown
 * (-1: empty) and is counted for one note per dump.
 */
static int
classify(struct extract *x, size_t m0, size_t t0)
{
	struct nohlo *nohlo = NULL;
	size_t i, nnohlo = 0, capnohlo = 0;

	for (i = m0; i < x->fr.nmodules; i++)
		if (set_program(x, &x->fr.modules[i]) != 0)
			return -1;
	extract_cmdbufs(x, m0, t0);
	for (i = t0; i < x->fr.nthunks; i++) {
		struct frames_thunk *t = &x->fr.thunks[i];
		const struct frames_module *m = &x->fr.modules[t->module];
		const struct hlo_inst *in;

		if (extract_is_cmdbuf_row(t)) {
			/* No HLO instruction: unknown.  A buffer whose
			 * operations were not split off keeps the whole
			 * graph's time: noted with how to see inside. */
			if (!t->cmdbuf_opened && m->program_id >= 0 &&
			    m->hlo != NULL && hlo_find(m->hlo, t->name) == NULL)
				nohlo_add(&nohlo, &nnohlo, &capnohlo,
				    t->module, m->hlo, t->name, NOHLO_CMDBUF);
			continue;
		}
		if (m->program_id < 0) {
			t->comm = 0;	/* autotuning: data_loaders.py */
			continue;
		}
		if (m->hlo == NULL) {
			by_name(t);	/* missing dump */
			continue;
		}
		if ((in = hlo_find(m->hlo, t->name)) == NULL) {
			nohlo_add(&nohlo, &nnohlo, &capnohlo, t->module,
			    m->hlo, t->name, NOHLO_OTHER);
			continue;
		}
		if (!id_agrees(m->hlo, t)) {
			t->id_mismatch = 1;
			nohlo_add(&nohlo, &nnohlo, &capnohlo, t->module,
			    m->hlo, t->name, NOHLO_ID);
			continue;
		}
		if (in->comm < 0 || set_comm(x, t, m, in) != 0) {
			if (in->comm < 0)
				err_fail("%s: module %s: %s: %s",
				    x->in.p[m->profile].path, m->name, t->name,
				    in->err);
			nohlo_notes(x, nohlo, nnohlo, 0);
			return -1;
		}
	}
	nohlo_notes(x, nohlo, nnohlo, 1);
	return 0;
}

/*
 * Done with the profile's HLO modules: the decoded protobuf of one large
 * program is tens of MB, and only the hlo frame needs it after
 * classification.  The dumps the profile used stay in the dump cache
 * for the next profile (in SPMD runs, the same bytes); the others go.
 */
static void
release_hlo(struct extract *x, size_t m0)
{
	struct extract_hlo *h = x->hlo;
	size_t i;

	for (i = m0; i < x->fr.nmodules; i++)
		x->fr.modules[i].hlo = NULL;
	hlocost_free(x->cost_c);
	x->cost_c = NULL;
	x->cost_m = NULL;
	for (i = 0; i < h->n; i++)
		free(h->member[i]);
	h->n = 0;
	dumpcache_release(x->dumps);
}

/* ---- compile frame ---- */

static const char *
compile_fp(void *arg, int64_t program_id, const char *name)
{
	struct ctx *c = arg;
	struct hlo_module *m;
	int rc;

	rc = hlo_get(c->x, c->p, program_id, &m);
	/* Without its dump, the module frame's placeholder: the warm-up
	 * rule then knows it was compiled in the profile, as with dumps. */
	if (rc == 0 && c->x->o.allow_missing_hlo)
		return placeholder(c->x, (size_t)(c->p - c->x->in.p),
		    program_id, name ? name : "");
	if (rc != 1)
		return NULL;
	return hlo_program_id(m);
}

/* ---- nsys SQLite exports ---- */

/* Where profile P's export is, for messages: "PATH" or "ZIP:MEMBER". */
static void
sqlite_prefix(const struct input_profile *p)
{
	if (p->sqlite_member)
		err_prefix_at("%s:%s", p->path, p->sqlite_member);
	else
		err_prefix_at("%s", p->sqlite_file);
}

/*
 * Profile K's export, opened, read and projected once (x->db[k],
 * x->proj[k]); the first time, notes of GPU operations without a launch
 * and of unterminated ranges.
 */
static struct nsysdb *
sqlite_db(struct extract *x, size_t k)
{
	const struct input_profile *p = &x->in.p[k];
	struct nsysdb *d;
	uint8_t *data;
	size_t len;
	int rc;

	if (x->db[k] != NULL)
		return x->db[k];
	d = x->db[k] = mem_calloc(1, sizeof(*d));
	if (p->sqlite_member) {
		if (archive_read(p->ar, p->sqlite_member, &data, &len) != 0) {
			err_prefix_in("%s", p->path);
			return NULL;
		}
		rc = nsysdb_open_mem(d, data, len);
		free(data);
	} else {
		rc = nsysdb_open(d, p->sqlite_file);
	}
	/* The names are read once the sweep's memory is freed; the
	 * projection is prepared while the operations are read. */
	d->defer_names = 1;
	d->prep = x->proj[k] = mem_calloc(1, sizeof(*x->proj[k]));
	if (rc != 0 || nsysdb_load(d) != 0 || nsysdb_load_threads(d) != 0) {
		sqlite_prefix(p);
		return NULL;
	}
	nvtxproj_sweep(d->r, d->nr, d->c, d->nc, d->corder, d->g, x->proj[k]);
	nsysdb_swept(d);
	/* The names' scan on its thread while the output order is made. */
	if (nsysdb_names_start(d) != 0) {
		sqlite_prefix(p);
		return NULL;
	}
	nvtxproj_order(d->r, x->proj[k]);
	if (d->nops_unlaunched > 0)
		err_note(&x->warnings, "%s: %zu of %zu GPU operations have no launching CUDA "
		    "call in CUPTI_ACTIVITY_KIND_RUNTIME (cut from the "
		    "capture?): not projected", p->sqlite_file ? p->sqlite_file
		    : p->path, d->nops_unlaunched, d->nops);
	if (d->nunterminated > 0)
		err_note(&x->warnings, "%s: %zu NVTX ranges never end: they end at the last "
		    "range event, as nsys stats does", p->sqlite_file ?
		    p->sqlite_file : p->path, d->nunterminated);
	return d;
}

/* The thunk and module rows of export K: its projection read as the
 * <= 2024.4 nvtx_gpu_proj_trace layout (NumGPUOps and Orig times). */
static int
load_trace_sqlite(struct extract *x, size_t k)
{
	struct nsysdb *d = sqlite_db(x, k);
	struct proj_range *r;
	char **names;
	size_t n, nnames, i;
	int rc;

	if (d == NULL)
		return -1;
	if (nsysdb_names_finish(d) != 0) {
		sqlite_prefix(&x->in.p[k]);
		return -1;
	}
	nsysdb_proj_ranges(d, x->proj[k], &r, &n, &names, &nnames);
	rc = frames_add_profile(&x->fr, k, r, n, 1, 1, d->threads,
	    d->nthreads);
	if (rc != 0)
		sqlite_prefix(&x->in.p[k]);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(r);
	return rc;
}

static int
load_compile_sqlite(struct extract *x, size_t k)
{
	const struct input_profile *p = &x->in.p[k];
	struct nsysdb *d = sqlite_db(x, k);
	struct ctx c = { x, p };
	struct compile_range *r = NULL;
	size_t n = 0;
	int rc;

	if (d == NULL)
		return -1;
	if (nsysdb_names_finish(d) != 0) {
		sqlite_prefix(p);
		return -1;
	}
	rc = nsysdb_pushpop(d, &r, &n);
	if (rc == 0)
		rc = compile_add_profile(&x->cf, p->name, r, n, compile_fp, &c,
		    x->o.keep_autotuning ? 0 : COMPILE_CLEAN);
	if (rc != 0)
		sqlite_prefix(p);
	compile_ranges_free(r, n);
	return rc;
}

static int
load_compile(struct extract *x, size_t k)
{
	const struct input_profile *p = &x->in.p[k];
	struct ctx c = { x, p };
	struct compile_range *r = NULL;
	size_t n = 0, len;
	uint8_t *data;
	const char *member = p->pushpop;
	int rc;

	if (p->kind == INPUT_SQLITE)
		return load_compile_sqlite(x, k);
	if (member == NULL)
		return err_fail("%s: no report_nvtx_pushpop_trace.parquet, "
		    ".csv.xz or .csv (profile %s)", p->path, p->name);
	rc = fetch(x, p, p->ar, member, &data, &len);
	if (rc == 0) {
		rc = compile_parse_report(member, &data, &len, &r, &n);
		if (rc == 0 && (rc = compile_add_profile(&x->cf, p->name, r,
		    n, compile_fp, &c, x->o.keep_autotuning ? 0 :
		    COMPILE_CLEAN)) != 0)
			err_prefix("%s", member);
		if (rc != 0)
			err_prefix_in("%s", p->path);
		compile_ranges_free(r, n);
		free(data);
	}
	return rc;
}

/*
 * The nvtx frame is the projection of SQLite exports: alone, from an
 * nsys-jax archive, it is an error; among all frames it is kept only when
 * every input is an export.
 */
static int
nvtx_inputs(struct extract *x)
{
	size_t k;

	if (!(x->o.frames & EXTRACT_NVTX))
		return 0;
	for (k = 0; k < x->in.n; k++) {
		if (x->in.p[k].kind == INPUT_SQLITE)
			continue;
		if (x->o.frames == EXTRACT_NVTX)
			return err_fail("%s: the nvtx frame needs an nsys SQLite "
			    "export (nsys export --type sqlite), not an nsys-jax "
			    "archive", x->in.p[k].path);
		x->o.frames &= ~EXTRACT_NVTX;
	}
	return 0;
}

struct extract *
extract_new(void)
{
	return mem_calloc(1, sizeof(struct extract));
}

const struct err_notes *
extract_notes(const struct extract *x)
{
	return &x->warnings;
}

size_t
extract_nwarnings(const struct extract *x)
{
	return x->nwarnings;
}

int
extract_profiles(const char *const *paths, size_t n, struct extract_opts *o,
    struct extract_profile **v, size_t *nv)
{
	struct extract x;
	size_t k, i, j;
	int rc = -1;

	memset(&x, 0, sizeof(x));
	x.o = *o;
	*v = NULL;
	*nv = 0;
	if (input_open_named(paths, n, o->dumpdir, o->names, &x.in) == 0 &&
	    nvtx_inputs(&x) == 0) {
		*v = mem_calloc(x.in.n + 1, sizeof(**v));
		for (k = 0, i = 0, j = 0; k < x.in.n; k++) {
			/* Profiles of one input are consecutive. */
			while (i < n && x.in.p[k].path != paths[i])
				i++, j = 0;
			(*v)[k].input = i;
			(*v)[k].only = ++j;
			(*v)[k].name = mem_strdup(x.in.p[k].name);
		}
		*nv = x.in.n;
		o->frames = x.o.frames;
		rc = 0;
	}
	input_close(&x.in);
	return rc;
}

void
extract_profiles_free(struct extract_profile *v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		free(v[k].name);
	free(v);
}

/* Whether profile P, an export, has GPU work and no NVTX: 1, 0, -1. */
static int
profile_without_nvtx(const struct input_profile *p)
{
	struct nsysdb d;
	uint8_t *data;
	size_t len;
	int rc;

	memset(&d, 0, sizeof(d));
	if (p->sqlite_member) {
		if (archive_read(p->ar, p->sqlite_member, &data, &len) != 0)
			return err_prefix_in("%s", p->path);
		rc = nsysdb_open_mem(&d, data, len);
		free(data);
	} else {
		rc = nsysdb_open(&d, p->sqlite_file);
	}
	if (rc == 0)
		rc = nsysdb_without_nvtx(&d);
	if (rc < 0)
		sqlite_prefix(p);
	nsysdb_free(&d);
	return rc;
}

int
extract_without_nvtx(const char *const *paths, size_t n, const char *dumpdir,
    const char *names, unsigned char *lack, size_t *nprof, size_t *nlack,
    const char **first)
{
	static char name[256];
	struct input_set in;
	size_t k, i = 0, *has = mem_calloc(n + 1, sizeof(*has));
	int rc = 0, w;

	memset(&in, 0, sizeof(in));
	memset(lack, 0, n);
	*nprof = *nlack = 0;
	name[0] = '\0';
	*first = name;
	if (input_open_named(paths, n, dumpdir, names, &in) != 0)
		rc = -1;
	for (k = 0; rc == 0 && k < in.n; k++) {
		/* Profiles of one input are consecutive. */
		while (i < n && in.p[k].path != paths[i])
			i++;
		(*nprof)++;
		w = in.p[k].kind == INPUT_SQLITE ?
		    profile_without_nvtx(&in.p[k]) : 0;
		if (w < 0)
			rc = -1;
		else if (w == 0 && i < n)
			has[i]++;
		else if (w == 1 && (*nlack)++ == 0)
			snprintf(name, sizeof(name), "%s", in.p[k].path);
	}
	for (i = 0; rc == 0 && i < n; i++)
		lack[i] = has[i] == 0;
	free(has);
	input_close(&in);
	return rc;
}

/*
 * Profile K added no XLA module (none since M0): it holds no XlaModule:
 * range over GPU work, so it is no JAX program's, and every frame but
 * the nvtx frame would be a header alone.  The error says so, and what
 * reads such a profile.
 */
static int
no_modules(struct extract *x, size_t k, size_t m0)
{
	if (x->fr.nmodules > m0)
		return 0;
	return err_fail("%s: no XLA module ranges (XlaModule:) over GPU work "
	    "in this profile: not a JAX program (nsysjax-extract -f nvtx "
	    "projects any NVTX ranges of an nsys export)", x->in.p[k].path);
}

int
extract_load(struct extract *x, const char *const *paths, size_t n,
    const struct extract_opts *o)
{
	size_t k, i, lo, hi;

	memset(x, 0, sizeof(*x));
	x->o = *o;
	x->hlo = mem_calloc(1, sizeof(*x->hlo));
	x->dumps = o->dumps ? o->dumps : dumpcache_new();
	x->fr.holds = holds_id;	/* async thunks by unique_hlo_op_id */
	x->fr.holds_ctx = x;
	if (input_open_named(paths, n, o->dumpdir, o->names, &x->in) != 0)
		return -1;
	lo = 0;
	hi = x->in.n;
	if (o->only > 0) {
		if (o->only > x->in.n)
			return err_fail("%s: no profile %zu (of %zu)", paths[0],
			    o->only, x->in.n);
		lo = o->only - 1;
		hi = o->only;
		if (o->only_name) {
			free(x->in.p[lo].name);
			x->in.p[lo].name = mem_strdup(o->only_name);
		}
	}
	/* Keep the dumps shared by several profiles from the first to the
	 * last (in A A B A, A is not decoded twice), decoded first on
	 * every core: met as they come, the prefetch thread decoded the
	 * step and init modules for profile 2 while this thread decoded
	 * them for profile 1 (on the shared run, -j 0 0.95 x the CPU). */
	if (o->dumps == NULL && hi - lo >= 2 &&
	    (x->o.frames & ~EXTRACT_NVTX) != 0) {
		dumpcache_plan(x->dumps, paths, n, o->dumpdir);
		dumpcache_preload(x->dumps, 0,
		    (x->o.frames & EXTRACT_HEAP) != 0);
	}
	x->db = mem_calloc(x->in.n + 1, sizeof(*x->db));
	x->proj = mem_calloc(x->in.n + 1, sizeof(*x->proj));
	if (nvtx_inputs(x) != 0)
		return -1;
	/* Profile LO's members, read ahead by the caller (parts.h). */
	if (o->ahead != NULL && o->ahead->pf != NULL && n == 1 &&
	    o->ahead->path == paths[0] && o->ahead->only == o->only) {
		const struct input_profile *p = &x->in.p[lo];

		x->next = o->ahead->pf;
		x->next_ar = p->kind == INPUT_NSYSJAX ? p->ar : p->dumps;
		o->ahead->pf = NULL;
	}
	/* One profile at a time, so that its HLO dumps can be released
	 * before the next profile's are decoded. */
	for (k = lo; k < hi; k++) {
		size_t m0 = x->fr.nmodules, t0 = x->fr.nthunks;

		/* Profile k's members were read while k-1 was analysed. */
		prefetch_free(x->pf);
		x->pf = x->next;
		x->pf_ar = x->next_ar;
		x->pf_profile = k;
		x->next = k + 1 < hi ? prefetch_profile(x, k + 1,
		    &x->next_ar) : NULL;

		if ((x->o.frames & EXTRACT_NVTX) && sqlite_db(x, k) == NULL)
			return -1;
		if ((x->o.frames & ~(EXTRACT_COMPILE | EXTRACT_NVTX)) &&
		    (load_trace(x, k) != 0 || classify(x, m0, t0) != 0 ||
		    no_modules(x, k, m0) != 0))
			return -1;
		if ((o->frames & EXTRACT_COMPILE) && load_compile(x, k) != 0)
			return -1;
		if ((o->frames & (EXTRACT_HLO | EXTRACT_STACKFRAMES)) &&
		    extract_hlo_rows(x, t0) != 0)
			return -1;
		if (o->frames & EXTRACT_HEAP)
			extract_heap_rows(x, m0);
		release_hlo(x, m0);
	}
	prefetch_free(x->pf);
	x->pf = NULL;
	x->nwarnings = x->warnings.n;
	for (i = 0; i < x->fr.notes.n; i++)
		err_note(&x->warnings, "%s", x->fr.notes.v[i]);
	frames_finish(&x->fr);
	if (!o->keep_autotuning)
		frames_drop_autotuning(&x->fr);
	return 0;
}

void
extract_free(struct extract *x)
{
	size_t i;

	if (x == NULL)
		return;
	hlocost_free(x->cost_c);
	for (i = 0; x->db && i < x->in.n; i++) {
		if (x->db[i])
			nsysdb_free(x->db[i]);
		free(x->db[i]);
		if (x->proj[i])
			nvtxproj_free(x->proj[i]);
		free(x->proj[i]);
	}
	free(x->db);
	free(x->proj);
	if (x->hlo) {
		for (i = 0; i < x->hlo->n; i++)
			free(x->hlo->member[i]);
		free(x->hlo->ar);
		free(x->hlo->member);
		free(x->hlo->d);
		free(x->hlo->heaped);
		free(x->hlo);
	}
	if (x->dumps != x->o.dumps)
		dumpcache_free(x->dumps);
	for (i = 0; i < x->heapkeys.n; i++) {
		heap_free(x->heaps[i].h);
		free(x->heaps[i].origin);
	}
	free(x->heaps);
	strtab_free(&x->heapkeys);
	free(x->cbrows);
	strtab_free(&x->cbkeys);
	for (i = 0; i < x->rowkeys.n; i++)
		extract_hlorow_free(&x->rows[i]);
	free(x->rows);
	strtab_free(&x->rowkeys);
	strtab_free(&x->strings);
	strtab_free(&x->missing);
	strtab_free(&x->phnames);
	free(x->phpid);
	strtab_free(&x->stackframes);
	strtab_free(&x->checked);
	free(x->keybuf);
	prefetch_free(x->pf);
	prefetch_free(x->next);
	err_notes_free(&x->warnings);
	frames_free(&x->fr);
	compile_free(&x->cf);
	input_close(&x->in);
	free(x);
}
