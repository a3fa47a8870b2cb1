/*
 * timeline: frames -> tracks and slices (timeline.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "analysis/collectives.h"
#include "analysis/spmd.h"
#include "analysis/timeline.h"
#include "base/err.h"
#include "base/ids.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/outfile.h"
#include "base/strtab.h"
#include "base/tsv.h"

#define NONE UINT32_MAX
/* The largest Device: pid = Device + 1 and tid = pid * 4096 + track
 * stay within int32 (Perfetto's ThreadDescriptor). */
#define MAX_DEVICE 500000
#define MAX_TRACKS 4095

/* Track classes, in the order of a device's tracks; a stream s is
 * CLS_STREAM + s. */
enum { CLS_MODULE, CLS_CRIT, CLS_COMPUTE, CLS_COMM, CLS_STREAM };
/* Record kinds, in the order of slices that start together. */
enum { K_MODULE, K_THUNK, K_INNER, K_CRIT };

/* One slice of pass one, spooled as is (memset first: no stray bytes). */
struct rec {
	int64_t start, dur, hidden;	/* ns */
	int64_t dev, cls, exec, texec;	/* texec: ThunkExecution */
	int64_t own;			/* a command buffer's own time, ns;
					   -1: not one */
	int64_t msgsize, collsize;	/* -1: none */
	uint64_t seq;			/* order read: the last tie-break */
	uint64_t flow;
	uint32_t name, prog, coll, cbuf, label;	/* strings, NONE */
	int32_t hlo;			/* hlo entry, -1 */
	uint8_t kind, flowph;
	uint8_t comm;			/* Communication 1 */
};

/* What the hlo frame says of one instruction. */
struct hinfo {
	uint32_t opcode, opname, source, dtype;
	int64_t flops, bytes, mmflops;	/* -1: unknown */
};

/* The id of the string a column held on the previous row: rows of one
 * program (and of one instruction on every device) come together, so
 * that most lookups are a comparison. */
struct lastid {
	char *s;
	size_t n, cap;
	uint32_t id;
	int set;
};

/* One device: its track names, and its records in the spool. */
struct dev {
	int64_t dev, process, local;
	uint64_t nrec;
};

struct timeline {
	struct tl_opts o;
	struct strtab str;		/* every string of the records */
	int32_t *devidx;		/* Device -> devs[] + 1, 0: none */
	size_t ndevidx;
	struct dev *devs;
	size_t ndev, ndevcap;
	struct lastid lprog, lname;	/* the previous row's ids */
	int32_t lhlo;
	struct strtab hkey;		/* "ProgramId\tName" -> hl[] */
	struct hinfo *hl;
	size_t nhl, hlcap;		/* hl[0..nhl): the rows read whole */
	int64_t *fparent;		/* stack frames by id: parent, -2 none */
	uint32_t *fname;
	size_t nframe, fcap;
	struct ids ids;			/* a StackFrameIds field, read */
	FILE *spool;
	uint64_t nrec, nflow;
	int64_t minstart;
	struct rec *grp;		/* the collective instance being read */
	size_t ngrp, grpcap;
	/* The SPMD join (spmd.h): the scanner, fed every thunk row; the
	 * communication rows of its candidates, held in a second spool in
	 * segments (one per execution, as they come) until the end of the
	 * thunk frame, then linked across the ProgramIds joined. */
	struct spmd_scan *scan;
	struct lastid lscan;		/* the previous row's ProgramId */
	int lcand;			/* ... is a candidate */
	FILE *held;
	struct hseg *seg;
	size_t nseg, capseg;
	uint64_t nheld;
	struct err_notes notes;
};

/* A segment of the held spool: records [off, off + n) of one execution. */
struct hseg {
	uint32_t prog, rep;		/* rep: its step's ProgramId */
	int64_t exec;
	uint64_t off, n;
};

/* ---- set-up ---- */

struct timeline *
tl_new(const struct tl_opts *o)
{
	struct timeline *t = mem_calloc(1, sizeof(*t));

	t->o = *o;
	if (t->o.batch == 0)
		t->o.batch = TL_BATCH;
	t->scan = spmd_scan_new();
	return t;
}

void
tl_free(struct timeline *t)
{
	if (t == NULL)
		return;
	strtab_free(&t->str);
	free(t->devidx);
	free(t->lprog.s);
	free(t->lname.s);
	strtab_free(&t->hkey);
	free(t->devs);
	free(t->hl);
	free(t->fparent);
	free(t->fname);
	ids_free(&t->ids);
	free(t->grp);
	if (t->spool)
		fclose(t->spool);
	spmd_scan_free(t->scan);
	free(t->lscan.s);
	if (t->held)
		fclose(t->held);
	free(t->seg);
	err_notes_free(&t->notes);
	free(t);
}

uint64_t
tl_nslices(const struct timeline *t)
{
	return t->nrec;
}

int64_t
tl_min_start(const struct timeline *t)
{
	return t->nrec ? t->minstart : 0;
}

static uint32_t
str_id(struct timeline *t, const char *s)
{
	return (uint32_t)strtab_intern(&t->str, s, strlen(s), NULL);
}

/* STR_ID of S, through the previous row's L; *CHANGED when it differs. */
static uint32_t
last_id(struct timeline *t, struct lastid *l, const char *s, int *changed)
{
	size_t n = strlen(s);

	*changed = !l->set || n != l->n || memcmp(s, l->s, n) != 0;
	if (*changed) {
		mem_grow(&l->s, &l->cap, n + 1, 1);
		memcpy(l->s, s, n + 1);
		l->n = n;
		l->id = str_id(t, s);
		l->set = 1;
	}
	return l->id;
}

static const char *
str_of(const struct timeline *t, uint32_t id)
{
	return id == NONE ? NULL : strtab_get(&t->str, id);
}

/* The failing row's place: "NAME:LINE: column X: " before the message. */
static int
bad(struct tsv_reader *r, long col, const char *what)
{
	return err_fail("%s:%ld: column %s: %s", tsv_name(r), tsv_lineno(r),
	    tsv_colname(r, (size_t)col), what);
}

/* ---- stack frames and hlo ---- */

int
tl_load_stackframes(struct timeline *t, struct tsv_reader *r)
{
	static const char *const names[] = { "FrameId", "ParentFrameId",
	    "Frame" };
	long c[3];
	int64_t id, parent;
	int rc;

	if (tsv_columns(r, names, 3, 0, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		parent = -1;
		if (tsv_get_i64(r, (size_t)c[0], &id, 0) != 0 ||
		    tsv_get_i64(r, (size_t)c[1], &parent, 1) < 0)
			return -1;
		/* Ids are dense as nsysjax-extract writes them; a gap of
		 * 4096 is allowed, a wild id would only cost memory. */
		if (id < 0 || (size_t)id > t->nframe + 4096)
			return bad(r, c[0], "not an id within 4096 of the "
			    "largest before");
		if (parent >= id || parent < -1)
			return bad(r, c[1], "not an id below the frame's");
		if ((size_t)id >= t->nframe) {
			size_t c2 = t->fcap, i;
			mem_grow(&t->fparent, &t->fcap, (size_t)id + 1,
			    sizeof(int64_t));
			mem_grow(&t->fname, &c2, (size_t)id + 1,
			    sizeof(uint32_t));
			for (i = t->nframe; i <= (size_t)id; i++)
				t->fparent[i] = -2;
			t->nframe = (size_t)id + 1;
		}
		if (t->fparent[id] != -2)
			return bad(r, c[0], "id repeated");
		t->fparent[id] = parent;
		t->fname[id] = str_id(t, tsv_field(r, (size_t)c[2]));
	}
	return rc;
}

/*
 * The source line of an instruction: from the innermost frame of its
 * first stack (the first id of IDS), the first frame that is not its
 * op_name (JAX ends each stack with the op_name).  NONE without stack.
 */
static int
source_of(struct timeline *t, struct tsv_reader *r, long col,
    const char *opname, uint32_t *src)
{
	int64_t id;

	*src = NONE;
	/* The one grammar of StackFrameIds (base/ids.h). */
	if (ids_read(r, (size_t)col, t->nframe, &t->ids) != 0)
		return -1;
	if (t->ids.n == 0)
		return 0;
	id = (int64_t)t->ids.v[0];
	if (t->fparent[id] == -2)
		return bad(r, col, "not ids of the stackframes frame");
	/* A parent never listed (ids may have gaps) ends the walk. */
	while (id >= 0 && t->fparent[id] != -2 && opname != NULL &&
	    strcmp(strtab_get(&t->str, t->fname[id]), opname) == 0)
		id = t->fparent[id];
	if (id >= 0 && t->fparent[id] != -2)
		*src = t->fname[id];
	return 0;
}

/* An optional integer column (-1 when absent or empty). */
static int
opt_i64(struct tsv_reader *r, long col, int64_t *v)
{
	*v = -1;
	if (col < 0)
		return 0;
	if (tsv_get_i64(r, (size_t)col, v, 1) < 0)
		return -1;
	if (*v < -1)
		return bad(r, col, "negative");
	return 0;
}

/* An optional string column (NONE when absent or empty). */
static uint32_t
opt_str(struct timeline *t, struct tsv_reader *r, long col)
{
	const char *s;

	if (col < 0)
		return NONE;
	s = tsv_field(r, (size_t)col);
	return *s ? str_id(t, s) : NONE;
}

int
tl_load_hlo(struct timeline *t, struct tsv_reader *r)
{
	static const char *const names[] = { "ProgramId", "Name", "Opcode",
	    "OpName", "StackFrameIds", "Flops", "BytesAccessed",
	    "MatmulFlops", "Dtype" };
	long c[9];
	struct hinfo h;
	size_t id;
	int added, rc;
	char *key;

	if (tsv_columns(r, names, 9, ~(uint64_t)3, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		const char *p = tsv_field(r, (size_t)c[0]);
		const char *n = tsv_field(r, (size_t)c[1]);
		size_t lp = strlen(p), ln = strlen(n);

		key = mem_alloc(lp + ln + 2);
		memcpy(key, p, lp);
		key[lp] = '\t';
		memcpy(key + lp + 1, n, ln + 1);
		id = strtab_intern(&t->hkey, key, lp + ln + 1, &added);
		free(key);
		if (!added)
			continue;
		memset(&h, 0, sizeof(h));
		h.opcode = opt_str(t, r, c[2]);
		h.opname = opt_str(t, r, c[3]);
		h.dtype = opt_str(t, r, c[8]);
		h.source = NONE;
		if ((c[4] >= 0 && t->nframe > 0 && source_of(t, r, c[4], str_of(t, h.opname),
		    &h.source) != 0) || opt_i64(r, c[5], &h.flops) != 0 ||
		    opt_i64(r, c[6], &h.bytes) != 0 ||
		    opt_i64(r, c[7], &h.mmflops) != 0)
			return -1;
		mem_grow(&t->hl, &t->hlcap, id + 1, sizeof(*t->hl));
		t->hl[id] = h;
		t->nhl = id + 1;
	}
	return rc;
}

/* The hlo entry of (PROG, NAME), or -1. */
static int32_t
hlo_of(const struct timeline *t, const char *prog, const char *name)
{
	size_t lp = strlen(prog), ln = strlen(name), id;
	char *key = mem_alloc(lp + ln + 2);

	memcpy(key, prog, lp);
	key[lp] = '\t';
	memcpy(key + lp + 1, name, ln + 1);
	id = strtab_find(&t->hkey, key, lp + ln + 1);
	free(key);
	/* A key of a row that failed has no entry. */
	return id == STRTAB_NONE || id >= t->nhl ? -1 : (int32_t)id;
}

/* ---- pass one ---- */

/* The device entry of DEV, made on first sight with PROCESS and LOCAL. */
static struct dev *
dev_of(struct timeline *t, int64_t dev, int64_t process, int64_t local)
{
	size_t i, n;

	if ((size_t)dev >= t->ndevidx) {
		n = t->ndevidx;
		mem_grow(&t->devidx, &t->ndevidx, (size_t)dev + 1,
		    sizeof(*t->devidx));
		memset(t->devidx + n, 0, (t->ndevidx - n) * sizeof(*t->devidx));
	}
	if (t->devidx[dev] == 0) {
		i = t->ndev++;
		mem_grow(&t->devs, &t->ndevcap, i + 1, sizeof(*t->devs));
		t->devs[i].dev = dev;
		t->devs[i].process = process;
		t->devs[i].local = local;
		t->devs[i].nrec = 0;
		t->devidx[dev] = (int32_t)i + 1;
	}
	return &t->devs[t->devidx[dev] - 1];
}

static int
spool(struct timeline *t, struct rec *x)
{
	if (t->spool == NULL &&
	    (t->spool = outfile_anon("nsysjax-timeline")) == NULL)
		return -1;
	x->seq = t->nrec;
	if (t->nrec == 0 || x->start < t->minstart)
		t->minstart = x->start;
	t->nrec++;
	if (fwrite(x, sizeof(*x), 1, t->spool) != 1)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	return 0;
}

/* Device, Process, LocalDevice of a row: the device entry, or NULL for
 * a device not kept (*SKIP) or an error. */
static struct dev *
row_dev(struct timeline *t, struct tsv_reader *r, long cdev, long cproc,
    long cloc, int *skip)
{
	int64_t dev, proc = -1, loc = -1;

	*skip = 0;
	if (tsv_get_i64(r, (size_t)cdev, &dev, 0) != 0)
		return NULL;
	if (dev < 0 || dev > MAX_DEVICE) {
		bad(r, cdev, "not a device from 0 to 500000");
		return NULL;
	}
	if (t->o.devices && !tl_ranges_has(t->o.devices, dev)) {
		*skip = 1;
		return NULL;
	}
	if (opt_i64(r, cproc, &proc) != 0 || opt_i64(r, cloc, &loc) != 0)
		return NULL;
	return dev_of(t, dev, proc, loc);
}

/* ProjStartMs (corrected) and ProjDurMs (+ hidden) into X. */
static int
row_times(struct timeline *t, struct tsv_reader *r, long cstart, long cdur,
    long chid, struct rec *x)
{
	const struct align_corr *c;

	x->hidden = 0;
	if (tsv_get_ms(r, (size_t)cstart, &x->start, 0) != 0 ||
	    tsv_get_ms(r, (size_t)cdur, &x->dur, 0) != 0 ||
	    (chid >= 0 && tsv_get_ms(r, (size_t)chid, &x->hidden, 1) < 0))
		return -1;
	if (x->dur < 0)
		return bad(r, cdur, "negative duration");
	if (x->hidden < 0)
		return bad(r, chid, "negative duration");
	x->dur += x->hidden;
	if (t->o.corr && (c = align_table_find(t->o.corr, x->dev)) != NULL)
		x->start -= c->corr_ns;
	return 0;
}

/* The start of a row of the module or critpath frame: X zeroed, without
 * collective, command buffer, label, HLO instruction or sizes, its
 * ProgramExecution (column CEXEC) and device (CDEV, CPROC, CLOC as
 * row_dev) into X and *D.  1: the row is kept; 0: -s or -d leave it
 * out; -1: bad row (err_msg). */
static int
row_head(struct timeline *t, struct tsv_reader *r, long cexec, long cdev,
    long cproc, long cloc, struct rec *x, struct dev **d)
{
	int skip;

	memset(x, 0, sizeof(*x));
	x->coll = x->cbuf = x->label = NONE;
	x->hlo = -1;
	x->msgsize = x->collsize = -1;
	if (tsv_get_i64(r, (size_t)cexec, &x->exec, 0) != 0)
		return -1;
	if (t->o.steps && !tl_ranges_has(t->o.steps, x->exec))
		return 0;
	if ((*d = row_dev(t, r, cdev, cproc, cloc, &skip)) == NULL)
		return skip ? 0 : -1;
	x->dev = (*d)->dev;
	return 1;
}

int
tl_read_modules(struct timeline *t, struct tsv_reader *r)
{
	static const char *const names[] = { "ProgramId", "ProgramExecution",
	    "Device", "Name", "ProjStartMs", "ProjDurMs", "Process",
	    "LocalDevice" };
	long c[8];
	struct rec x;
	struct dev *d;
	int rc, keep;

	if (tsv_columns(r, names, 8, 3u << 6, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		spmd_scan_module(t->scan, tsv_field(r, (size_t)c[0]),
		    tsv_field(r, (size_t)c[3]));
		if ((keep = row_head(t, r, c[1], c[2], c[6], c[7], &x, &d)) < 0)
			return -1;
		if (!keep)
			continue;
		if (row_times(t, r, c[4], c[5], -1, &x) != 0)
			return -1;
		x.cls = CLS_MODULE;
		x.kind = K_MODULE;
		x.prog = str_id(t, tsv_field(r, (size_t)c[0]));
		x.name = str_id(t, tsv_field(r, (size_t)c[3]));
		d->nrec++;
		if (spool(t, &x) != 0)
			return -1;
	}
	return rc;
}

static int
cmp_start_dev(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Spool the group of rows held (one collective instance, or one row),
 * linked by a flow when there are two or more. */
static int
grp_flush(struct timeline *t)
{
	size_t i;
	uint64_t flow = 0;

	if (t->ngrp > 1) {
		for (i = 0; i < t->ngrp; i++)
			t->grp[i].seq = i;
		qsort(t->grp, t->ngrp, sizeof(*t->grp), cmp_start_dev);
		flow = ++t->nflow;
	}
	for (i = 0; i < t->ngrp; i++) {
		t->grp[i].flow = flow;
		t->grp[i].flowph = flow == 0 ? 0 : i == 0 ? 's' :
		    i + 1 == t->ngrp ? 'f' : 't';
		if (spool(t, &t->grp[i]) != 0)
			return -1;
	}
	t->ngrp = 0;
	return 0;
}

/* Whether X belongs to the instance of the rows held. */
static int
same_instance(const struct timeline *t, const struct rec *x, int64_t texec,
    int64_t gtexec)
{
	const struct rec *g = t->grp;

	return t->ngrp > 0 && g->comm && x->comm &&
	    g->prog == x->prog && g->exec == x->exec && g->name == x->name &&
	    gtexec == texec;
}

/* The track class of a thunk row: its Stream, else compute or
 * communication (a command buffer and its operations: compute). */
static int
thunk_class(struct tsv_reader *r, long cstream, long ccomm, struct rec *x)
{
	int64_t v = 0;
	const char *s;

	if (ccomm >= 0 && tsv_get_i64(r, (size_t)ccomm, &v, 1) < 0)
		return -1;
	x->comm = v == 1;
	if (cstream >= 0 && *(s = tsv_field(r, (size_t)cstream)) != '\0') {
		if (tsv_get_i64(r, (size_t)cstream, &v, 0) != 0)
			return -1;
		if (v < 0 || v > 1000000)
			return bad(r, cstream, "not a stream from 0 to 1000000");
		x->cls = CLS_STREAM + v;
		return 0;
	}
	x->cls = x->comm && x->cbuf == NONE ? CLS_COMM : CLS_COMPUTE;
	return 0;
}

enum { T_PROG, T_EXEC, T_NAME, T_TEXEC, T_DEV, T_START, T_DUR, T_HID,
	T_COMM, T_MSG, T_COLL, T_CSIZE, T_PROC, T_LOC, T_CBUF, T_STREAM, T_N };

/* The fields of one thunk row into X; *SKIP when a filter drops it. */
static int
thunk_row(struct timeline *t, struct tsv_reader *r, const long *c,
    struct rec *x, int64_t *texec, int *skip)
{
	struct dev *d;
	const char *name, *prog;
	int ch1, ch2;

	memset(x, 0, sizeof(*x));
	if (tsv_get_i64(r, (size_t)c[T_EXEC], &x->exec, 0) != 0 ||
	    tsv_get_i64(r, (size_t)c[T_TEXEC], texec, 0) != 0)
		return -1;
	if (t->o.steps && !tl_ranges_has(t->o.steps, x->exec)) {
		*skip = 1;
		return 0;
	}
	if ((d = row_dev(t, r, c[T_DEV], c[T_PROC], c[T_LOC], skip)) == NULL)
		return *skip ? 0 : -1;
	x->dev = d->dev;
	x->texec = *texec;
	x->own = -1;
	if (row_times(t, r, c[T_START], c[T_DUR], c[T_HID], x) != 0)
		return -1;
	if (x->dur < t->o.min_dur_ns) {
		*skip = 1;
		return 0;
	}
	prog = tsv_field(r, (size_t)c[T_PROG]);
	x->prog = last_id(t, &t->lprog, prog, &ch1);
	name = tsv_field(r, (size_t)c[T_NAME]);
	x->name = last_id(t, &t->lname, name, &ch2);
	if (ch1 || ch2)
		t->lhlo = hlo_of(t, prog, name);
	x->hlo = t->lhlo;
	x->coll = opt_str(t, r, c[T_COLL]);
	x->cbuf = opt_str(t, r, c[T_CBUF]);
	x->label = NONE;
	x->kind = K_THUNK;
	if (x->cbuf != NONE && x->cbuf != x->name)
		x->kind = K_INNER;
	if (opt_i64(r, c[T_MSG], &x->msgsize) != 0 ||
	    opt_i64(r, c[T_CSIZE], &x->collsize) != 0 ||
	    thunk_class(r, c[T_STREAM], c[T_COMM], x) != 0)
		return -1;
	d->nrec++;
	return 0;
}

/* The current thunk row into the join's scanner, when its ProgramId is
 * a candidate (t->lcand says so for the rows that follow). */
static int
scan_row(struct timeline *t, struct tsv_reader *r, const long *c)
{
	struct spmd_row sr;
	int64_t comm = 0;
	int ch;

	memset(&sr, 0, sizeof(sr));
	sr.prog = tsv_field(r, (size_t)c[T_PROG]);
	(void)last_id(t, &t->lscan, sr.prog, &ch);
	if (ch)
		t->lcand = spmd_scan_candidate(t->scan, sr.prog);
	if (!t->lcand)
		return 0;
	if (tsv_get_i64(r, (size_t)c[T_EXEC], &sr.exec, 0) != 0 ||
	    tsv_get_i64(r, (size_t)c[T_TEXEC], &sr.texec, 0) != 0 ||
	    tsv_get_i64(r, (size_t)c[T_DEV], &sr.dev, 0) != 0 ||
	    (c[T_COMM] >= 0 && tsv_get_i64(r, (size_t)c[T_COMM], &comm, 1) < 0) ||
	    opt_i64(r, c[T_CSIZE], &sr.csize) != 0)
		return -1;
	sr.coll = comm == 1 && sr.csize > 1;
	if (sr.coll && tsv_get_ms(r, (size_t)c[T_START], &sr.start_ns, 0) != 0)
		return -1;
	sr.name = tsv_field(r, (size_t)c[T_NAME]);
	spmd_scan_row(t->scan, &sr);
	return 0;
}

/* Keep the communication row X of a candidate in the held spool. */
static int
hold(struct timeline *t, const struct rec *x)
{
	struct hseg *g = t->nseg ? &t->seg[t->nseg - 1] : NULL;

	if (t->held == NULL &&
	    (t->held = outfile_anon("nsysjax-timeline")) == NULL)
		return -1;
	if (g == NULL || g->prog != x->prog || g->exec != x->exec) {
		mem_grow(&t->seg, &t->capseg, t->nseg + 1, sizeof(*t->seg));
		g = &t->seg[t->nseg++];
		g->prog = g->rep = x->prog;
		g->exec = x->exec;
		g->off = t->nheld;
		g->n = 0;
	}
	if (fwrite(x, sizeof(*x), 1, t->held) != 1)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	g->n++;
	t->nheld++;
	return 0;
}

/* Segments by their step's ProgramId, execution, order held. */
static int
cmp_seg(const void *a, const void *b)
{
	const struct hseg *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Records of one step's execution by instance (Name, ThunkExecution),
 * then order held. */
static int
cmp_inst(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->texec != y->texec)
		return x->texec < y->texec ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Spool the records H[0..N) of one step's execution, an instance at a
 * time (grp_flush: a flow over its devices). */
static int
flush_step(struct timeline *t, struct rec *h, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		h[i].seq = i;
	qsort(h, n, sizeof(*h), cmp_inst);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && h[j].name == h[i].name &&
		    h[j].texec == h[i].texec; j++)
			;
		mem_grow(&t->grp, &t->grpcap, j - i, sizeof(*t->grp));
		memcpy(t->grp, h + i, (j - i) * sizeof(*h));
		t->ngrp = j - i;
		if (grp_flush(t) != 0)
			return -1;
	}
	return 0;
}

/*
 * The end of the thunk frame: the join (spmd_scan_end, its note kept for
 * tl_notes), then the held rows spooled, one step's execution at a time:
 * the segments of the ProgramIds joined in it read back together, so
 * that an instance links its devices across them.  Memory: one step's
 * collective rows.
 */
static int
held_flush(struct timeline *t)
{
	struct rec *h = NULL;
	size_t i, j, k, n, cap = 0;
	int rc = 0;

	(void)spmd_scan_end(t->scan, &t->notes);
	if (t->nseg == 0)
		return 0;
	for (i = 0; i < t->nseg; i++) {
		const char *p = strtab_get(&t->str, t->seg[i].prog);

		t->seg[i].rep = str_id(t, spmd_scan_rep(t->scan, p));
	}
	qsort(t->seg, t->nseg, sizeof(*t->seg), cmp_seg);
	if (fflush(t->held) != 0)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	for (i = 0; rc == 0 && i < t->nseg; i = j) {
		for (j = i, n = 0; j < t->nseg && t->seg[j].rep ==
		    t->seg[i].rep && t->seg[j].exec == t->seg[i].exec; j++)
			n += (size_t)t->seg[j].n;
		mem_grow(&h, &cap, n, sizeof(*h));
		for (k = i, n = 0; rc == 0 && k < j; k++) {
			if (fseeko(t->held, (off_t)(t->seg[k].off *
			    sizeof(*h)), SEEK_SET) != 0 ||
			    fread(h + n, sizeof(*h), (size_t)t->seg[k].n,
			    t->held) != t->seg[k].n)
				rc = err_fail("temporary file: read error");
			n += (size_t)t->seg[k].n;
		}
		if (rc == 0)
			rc = flush_step(t, h, n);
	}
	free(h);
	fclose(t->held);
	t->held = NULL;
	t->nseg = 0;
	t->nheld = 0;
	return rc;
}

const struct err_notes *
tl_notes(const struct timeline *t)
{
	return &t->notes;
}

int
tl_read_thunks(struct timeline *t, struct tsv_reader *r)
{
	static const char *const names[T_N] = { "ProgramId",
	    "ProgramExecution", "Name", "ThunkExecution", "Device",
	    "ProjStartMs", "ProjDurMs", "ProjDurHiddenMs", "Communication",
	    "MessageSize", "Collective", "CollectiveSize", "Process",
	    "LocalDevice", "CommandBuffer", "Stream" };
	long c[T_N];
	struct rec x;
	int64_t texec, gtexec = -1;
	int rc, skip;

	if (tsv_columns(r, names, T_N, ~(uint64_t)0x7f, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		skip = 0;
		if (scan_row(t, r, c) != 0 ||
		    thunk_row(t, r, c, &x, &texec, &skip) != 0)
			return -1;
		if (skip)
			continue;
		if (x.comm && t->lcand) {
			if (hold(t, &x) != 0)
				return -1;
			continue;
		}
		if (!same_instance(t, &x, texec, gtexec) && grp_flush(t) != 0)
			return -1;
		mem_grow(&t->grp, &t->grpcap, t->ngrp + 1, sizeof(*t->grp));
		t->grp[t->ngrp++] = x;
		gtexec = texec;
	}
	if (rc == 0 && (grp_flush(t) != 0 || held_flush(t) != 0))
		return -1;
	return rc;
}

static int
cmp_crit(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? -1 : 1;
	return cmp_start_dev(a, b);
}

/* The critical path held in t->grp: one flow chain per module
 * execution, in order of start. */
static int
crit_flush(struct timeline *t)
{
	size_t i, j, k;

	qsort(t->grp, t->ngrp, sizeof(*t->grp), cmp_crit);
	for (i = 0; i < t->ngrp; i = j) {
		for (j = i + 1; j < t->ngrp && t->grp[j].prog ==
		    t->grp[i].prog && t->grp[j].exec == t->grp[i].exec; j++)
			;
		if (j - i > 1)
			++t->nflow;
		for (k = i; k < j; k++) {
			t->grp[k].flow = j - i > 1 ? t->nflow : 0;
			t->grp[k].flowph = j - i < 2 ? 0 : k == i ? 's' :
			    k + 1 == j ? 'f' : 't';
			if (spool(t, &t->grp[k]) != 0)
				return -1;
		}
	}
	t->ngrp = 0;
	return 0;
}

int
tl_read_critpath(struct timeline *t, struct tsv_reader *r)
{
	static const char *const names[] = { "ProgramId", "ProgramExecution",
	    "Device", "Name", "Label", "StartMs", "DurMs" };
	long c[7];
	struct rec x;
	struct dev *d;
	int rc, keep;
	uint64_t seq = 0;

	if (tsv_columns(r, names, 7, 0, c) != 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		if ((keep = row_head(t, r, c[1], c[2], -1, -1, &x, &d)) < 0)
			return -1;
		if (!keep)
			continue;
		if (tsv_get_ms(r, (size_t)c[5], &x.start, 0) != 0 ||
		    tsv_get_ms(r, (size_t)c[6], &x.dur, 0) != 0)
			return -1;
		if (x.dur < 0)
			return bad(r, c[6], "negative duration");
		x.cls = CLS_CRIT;
		x.kind = K_CRIT;
		x.prog = str_id(t, tsv_field(r, (size_t)c[0]));
		x.name = opt_str(t, r, c[3]);
		x.label = opt_str(t, r, c[4]);
		if (x.name == NONE)
			x.name = x.label != NONE ? x.label : str_id(t, "?");
		x.seq = seq++;
		d->nrec++;
		mem_grow(&t->grp, &t->grpcap, t->ngrp + 1, sizeof(*t->grp));
		t->grp[t->ngrp++] = x;
	}
	if (rc == 0 && crit_flush(t) != 0)
		return -1;
	return rc;
}

/* ---- pass two ---- */

/* A track of a device being written: its slices open, innermost last. */
struct lane {
	struct tl_track tr;
	char name[64];
	struct rec **open;
	size_t nopen, cap;
};

struct wctx {
	struct timeline *t;
	const struct tl_sink *s;
	struct tl_track proc;
	char pname[96];
	int64_t ntracks;		/* thread tracks of the device */
	struct lane *lanes;		/* of the class being written */
	size_t nlanes, lanecap;
	struct tl_arg args[24];
	char buf[4][400];
};

/* qsort's order of records, through pointers (records are large). */
static int
cmp_rec(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a;
	const struct rec *y = *(struct rec *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether X comes before Y on a track (cmp_rec without dev and cls). */
static int
before(const struct rec *x, const struct rec *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->dur != y->dur)
		return x->dur > y->dur;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	return x->seq < y->seq;
}

static void
arg_str(struct wctx *w, size_t *n, const char *name, const char *s)
{
	if (s == NULL)
		return;
	w->args[*n].name = name;
	w->args[*n].type = TL_STR;
	w->args[(*n)++].s = s;
}

static void
arg_uint(struct wctx *w, size_t *n, const char *name, int64_t v)
{
	if (v < 0)
		return;
	w->args[*n].name = name;
	w->args[*n].type = TL_UINT;
	w->args[(*n)++].u = (uint64_t)v;
}

static void
arg_dbl(struct wctx *w, size_t *n, const char *name, double d)
{
	w->args[*n].name = name;
	w->args[*n].type = TL_DOUBLE;
	w->args[(*n)++].d = d;
}

/* The arguments of a thunk: hlo metadata, communication, roofline. */
static size_t
thunk_args(struct wctx *w, const struct rec *x)
{
	const struct timeline *t = w->t;
	const struct hinfo *h = x->hlo >= 0 ? &t->hl[x->hlo] : NULL;
	const char *coll = str_of(t, x->coll);
	double alg, bus;
	size_t n = 0;

	if (h != NULL) {
		arg_str(w, &n, "op_name", str_of(t, h->opname));
		arg_str(w, &n, "source_line", str_of(t, h->source));
		arg_str(w, &n, "opcode", str_of(t, h->opcode));
	}
	if (x->kind == K_INNER)
		arg_str(w, &n, "command_buffer", str_of(t, x->cbuf));
	if (x->kind == K_THUNK && x->cbuf != NONE && x->own >= 0)
		arg_uint(w, &n, "unattributed_ns", x->own);
	if (x->comm || coll != NULL) {
		arg_str(w, &n, "collective", coll);
		arg_uint(w, &n, "message_size_bytes", x->msgsize);
		arg_uint(w, &n, "collective_size", x->collsize);
		arg_uint(w, &n, "hidden_ns", x->hidden);
		if (coll && x->msgsize >= 0 && x->collsize >= 1 &&
		    coll_bandwidth(coll, x->collsize, x->msgsize,
		    x->dur - x->hidden, x->hidden, &alg, &bus) == 0)
			arg_dbl(w, &n, "busbw_GBps", bus);
	}
	if (h != NULL && h->flops >= 0) {
		arg_uint(w, &n, "flops", h->flops);
		arg_uint(w, &n, "matmul_flops", h->mmflops);
		arg_uint(w, &n, "bytes_accessed", h->bytes);
		arg_str(w, &n, "dtype", str_of(t, h->dtype));
		if (x->dur > 0) {
			/* flop/ns = GFLOP/s; / 1000 = TFLOP/s. */
			arg_dbl(w, &n, "TFLOPs", (double)h->flops /
			    (double)x->dur / 1e3);
			if (t->o.peak_tflops > 0 && h->mmflops >= 0)
				arg_dbl(w, &n, "mfu", (double)h->mmflops /
				    (double)x->dur / 1e3 / t->o.peak_tflops);
		}
	}
	return n;
}

static size_t
rec_args(struct wctx *w, const struct rec *x)
{
	size_t n = 0;

	switch (x->kind) {
	case K_MODULE:
		arg_str(w, &n, "program_id", str_of(w->t, x->prog));
		arg_uint(w, &n, "execution", x->exec);
		return n;
	case K_CRIT:
		arg_str(w, &n, "label", str_of(w->t, x->label));
		arg_str(w, &n, "program_id", str_of(w->t, x->prog));
		arg_uint(w, &n, "execution", x->exec);
		return n;
	default:
		/* The execution is the module's, its parent. */
		return thunk_args(w, x);
	}
}

static const char *
rec_cat(const struct rec *x)
{
	static const char *const cats[] = { "module", "thunk",
	    "command-buffer", "critical-path" };

	if (x->kind == K_THUNK && x->comm)
		return "communication";
	return cats[x->kind];
}

static void
slice_of(struct wctx *w, const struct lane *l, const struct rec *x,
    struct tl_slice *s)
{
	memset(s, 0, sizeof(*s));
	s->track = &l->tr;
	s->ts = x->start;
	s->dur = x->dur;
	s->name = str_of(w->t, x->name);
	s->cat = rec_cat(x);
	s->flow = x->flow;
	s->flowph = x->flowph;
	s->flowcat = x->kind == K_CRIT ? "critical-path" : "collective";
}

/* End the open slices of lane L that end by TS (all with TS = INT64_MAX). */
static int
lane_pop(struct wctx *w, struct lane *l, int64_t ts)
{
	struct tl_slice s;
	struct rec *x;

	while (l->nopen > 0) {
		x = l->open[l->nopen - 1];
		if (ts != INT64_MAX && x->start + x->dur > ts)
			break;
		slice_of(w, l, x, &s);
		if (w->s->end(w->s->arg, &s) != 0)
			return -1;
		l->nopen--;
	}
	return 0;
}

static const char *
class_name(int64_t cls, char *buf, size_t n)
{
	switch (cls) {
	case CLS_CRIT:
		return "critical path";
	case CLS_COMPUTE:
		return "compute";
	case CLS_COMM:
		return "communication";
	default:
		snprintf(buf, n, "stream %" PRId64, cls - CLS_STREAM);
		return buf;
	}
}

/* A new lane (thread track) for class CLS, declared to the sink. */
static int
lane_new(struct wctx *w, int64_t cls)
{
	struct lane *l;
	char sb[32];
	const char *cn = class_name(cls, sb, sizeof(sb));

	if (w->ntracks == MAX_TRACKS)
		return err_fail("device %" PRId64 ": more than %d tracks "
		    "(streams)", w->proc.pid - 1, MAX_TRACKS);
	mem_grow(&w->lanes, &w->lanecap, w->nlanes + 1, sizeof(*w->lanes));
	l = &w->lanes[w->nlanes];
	memset(l, 0, sizeof(*l));
	if (w->nlanes == 0)
		snprintf(l->name, sizeof(l->name), "%s", cn);
	else
		snprintf(l->name, sizeof(l->name), "%s (overlap %zu)", cn,
		    w->nlanes);
	w->ntracks++;
	l->tr.pid = w->proc.pid;
	l->tr.tid = w->proc.pid * 4096 + w->ntracks;
	l->tr.uuid = (uint64_t)l->tr.tid;
	l->tr.name = l->name;
	l->tr.sort = cls * 4096 + (int64_t)w->nlanes;
	w->nlanes++;
	return w->s->track(w->s->arg, &l->tr);
}

/*
 * Slice X on the first lane where it nests or follows.  When the device
 * has no track left (MAX_TRACKS: tids are pid * 4096 + track), X goes on
 * the class's last lane instead, cut to end with the slice open there
 * (which it overlaps: it starts before that one ends), so that the
 * track still nests; the slice is marked with overflow_cut_ns, the ns
 * cut (0 when it nested whole), and the rest of the trace is kept.
 */
static int
place(struct wctx *w, int64_t cls, struct rec *x)
{
	struct tl_slice s;
	struct lane *l;
	struct rec *top;
	size_t k;
	int64_t cut = -1;

	for (k = 0;; k++) {
		if (k == w->nlanes && w->ntracks == MAX_TRACKS && k > 0) {
			l = &w->lanes[k - 1];	/* popped to X's start */
			top = l->nopen ? l->open[l->nopen - 1] : NULL;
			cut = top == NULL ? 0 : x->start + x->dur -
			    (top->start + top->dur);
			cut = cut > 0 ? cut : 0;
			x->dur -= cut;
			break;
		}
		if (k == w->nlanes && lane_new(w, cls) != 0)
			return -1;
		l = &w->lanes[k];
		if (lane_pop(w, l, x->start) != 0)
			return -1;
		top = l->nopen ? l->open[l->nopen - 1] : NULL;
		if (top == NULL || top->start + top->dur >= x->start + x->dur)
			break;
	}
	mem_grow(&l->open, &l->cap, l->nopen + 1, sizeof(*l->open));
	l->open[l->nopen++] = x;
	slice_of(w, l, x, &s);
	s.args = w->args;
	s.nargs = rec_args(w, x);
	if (cut >= 0)
		arg_uint(w, &s.nargs, "overflow_cut_ns", cut);
	return w->s->begin(w->s->arg, &s);
}

/* The tracks of class CLS: the modules M[0..NM) merged with the class's
 * records C[0..NC), both in track order. */
static int
write_class(struct wctx *w, int64_t cls, struct rec **m, size_t nm,
    struct rec **c, size_t nc)
{
	size_t i = 0, j = 0, k;
	int rc = 0;

	w->nlanes = 0;
	while (rc == 0 && (i < nm || j < nc)) {
		if (j == nc || (i < nm && before(m[i], c[j])))
			rc = place(w, cls, m[i++]);
		else
			rc = place(w, cls, c[j++]);
	}
	for (k = 0; k < w->nlanes; k++) {
		if (rc == 0)
			rc = lane_pop(w, &w->lanes[k], INT64_MAX);
		free(w->lanes[k].open);
	}
	w->nlanes = 0;
	return rc;
}

/* Device D's tracks from its records X[0..N), sorted by cmp_rec. */
static int
write_device(struct wctx *w, const struct dev *d, struct rec **x, size_t n)
{
	size_t nm, i, j;
	int any = 0;

	w->proc.pid = d->dev + 1;
	w->proc.tid = 0;
	/* Thread tracks' uuids are their tids, pid * 4096 + 1..4095. */
	w->proc.uuid = (uint64_t)w->proc.pid * 4096;
	w->proc.sort = d->dev;
	if (d->process >= 0 && d->local >= 0)
		snprintf(w->pname, sizeof(w->pname), "Device %" PRId64
		    " (process %" PRId64 ", local device %" PRId64 ")",
		    d->dev, d->process, d->local);
	else
		snprintf(w->pname, sizeof(w->pname), "Device %" PRId64,
		    d->dev);
	w->proc.name = w->pname;
	w->ntracks = 0;
	if (w->s->track(w->s->arg, &w->proc) != 0)
		return -1;
	for (nm = 0; nm < n && x[nm]->cls == CLS_MODULE; nm++)
		;
	for (i = nm; i < n; i = j) {
		for (j = i + 1; j < n && x[j]->cls == x[i]->cls; j++)
			;
		if (x[i]->cls != CLS_CRIT)
			any = 1;
		if (write_class(w, x[i]->cls, x, x[i]->cls == CLS_CRIT ? 0 :
		    nm, x + i, j - i) != 0)
			return -1;
	}
	/* Modules without thunks still get a track. */
	if (!any && nm > 0)
		return write_class(w, CLS_COMPUTE, x, nm, NULL, 0);
	return 0;
}

static int
cmp_dev(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* A batch of records being written: the records, and pointers to them
 * in track order. */
struct batch {
	struct rec *x;
	struct rec **p;
	size_t n, cap, pcap;
};

/* The order that brings a command buffer (K_THUNK named as its
 * CommandBuffer) and its inner operations together, the buffer first. */
static int
cmp_cmdbuf(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a;
	const struct rec *y = *(struct rec *const *)b;
	uint32_t cx = x->cbuf == NONE ? 0 : x->cbuf + 1;
	uint32_t cy = y->cbuf == NONE ? 0 : y->cbuf + 1;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? -1 : 1;
	if (x->texec != y->texec)
		return x->texec < y->texec ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A command buffer's row holds the time of its graph that no inner
 * operation took (the extraction's attribution), from the graph's start; its
 * operations have rows of their own.  So that they nest in it, its slice
 * spans its whole graph: from the earliest to the latest end of the row
 * and its operations (same device, program, execution and
 * ThunkExecution), its own time kept in OWN.
 */
static void
cmdbuf_spans(struct batch *b)
{
	struct rec *cb = NULL, *x;
	int64_t end;
	size_t i;

	qsort(b->p, b->n, sizeof(*b->p), cmp_cmdbuf);
	for (i = 0; i < b->n; i++) {
		x = b->p[i];
		if (x->cbuf == NONE)
			continue;
		if (x->kind == K_THUNK) {
			cb = x;
			continue;
		}
		if (cb == NULL || cb->dev != x->dev || cb->cbuf != x->cbuf ||
		    cb->prog != x->prog || cb->exec != x->exec ||
		    cb->texec != x->texec)
			continue;
		if (cb->own < 0)
			cb->own = cb->dur;
		end = cb->start + cb->dur;
		if (x->start + x->dur > end)
			end = x->start + x->dur;
		if (x->start < cb->start)
			cb->start = x->start;
		cb->dur = end - cb->start;
	}
}

/* Read the records of devices D[0..ND) from FP (the spool, or the part
 * of it that holds them) into B (sorted). */
static int
read_batch(FILE *fp, const struct dev *d, size_t nd, struct batch *b)
{
	struct rec r;
	int64_t lo = d[0].dev, hi = d[nd - 1].dev;
	size_t i;
	int inner = 0;

	b->n = 0;
	if (fseek(fp, 0, SEEK_SET) != 0)
		return err_fail("temporary file: %s", strerror(errno));
	while (fread(&r, sizeof(r), 1, fp) == 1) {
		if (r.dev < lo || r.dev > hi)
			continue;
		if (b->n == b->cap)
			mem_grow(&b->x, &b->cap, b->n + 1, sizeof(*b->x));
		b->x[b->n++] = r;
	}
	if (ferror(fp))
		return err_fail("temporary file: read error");
	mem_grow(&b->p, &b->pcap, b->n, sizeof(*b->p));
	for (i = 0; i < b->n; i++) {
		b->p[i] = &b->x[i];
		inner |= b->x[i].kind == K_INNER;
	}
	if (inner)
		cmdbuf_spans(b);
	qsort(b->p, b->n, sizeof(*b->p), cmp_rec);
	return 0;
}

/* Batches FIRST[BASE..) of devices by their first Device, for
 * outfile_split: a record's part. */
struct parts {
	const int64_t *first;
	size_t n, base;
};

static size_t
rec_part(const void *rec, const void *ctx)
{
	const struct parts *p = ctx;
	size_t lo = 0, hi = p->n, mid;
	int64_t dev;

	memcpy(&dev, (const char *)rec + offsetof(struct rec, dev),
	    sizeof(dev));
	while (hi - lo > 1)
		if (p->first[mid = lo + (hi - lo) / 2] <= dev)
			lo = mid;
		else
			hi = mid;
	return lo >= p->base ? lo - p->base : (size_t)-1;
}

/* Write devices devs[I..J), read from FP, through B. */
static int
write_batch(struct wctx *w, size_t i, size_t j, FILE *fp, struct batch *b)
{
	struct dev *d = w->t->devs;
	size_t k, at;
	uint64_t sum = 0;
	int rc;

	for (k = i; k < j; k++)
		sum += d[k].nrec;
	if ((rc = read_batch(fp, d + i, j - i, b)) != 0)
		return rc;
	if (b->n != sum)
		return err_fail("temporary file: %zu records, %" PRIu64
		    " expected", b->n, sum);
	for (k = i, at = 0; rc == 0 && k < j; k++) {
		rc = write_device(w, &d[k], b->p + at, (size_t)d[k].nrec);
		at += (size_t)d[k].nrec;
	}
	return rc;
}

/*
 * Pass two, a batch of devices at a time (at most o.batch records, or one
 * device's).  With more than one batch the spool is first split by batch
 * (outfile_split, OUTFILE_SPLIT_MAX batches a pass), so that each record
 * is read twice in all, not once per batch: the whole spool once per
 * batch made the pass quadratic in the devices (128 processes: 7 reads
 * of 230 MB).
 */
int
tl_write(struct timeline *t, const struct tl_sink *s)
{
	struct wctx w;
	struct batch b = { 0 };
	size_t nd = t->ndev, i, j, nb = 0, r, m, k, *bi;
	int64_t *first;
	FILE *fp[OUTFILE_SPLIT_MAX];
	uint64_t sum;
	int rc = 0;

	if (t->spool == NULL || nd == 0)
		return 0;
	if (fflush(t->spool) != 0)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	memset(&w, 0, sizeof(w));
	w.t = t;
	w.s = s;
	qsort(t->devs, nd, sizeof(*t->devs), cmp_dev);
	bi = mem_calloc(nd + 1, sizeof(*bi));
	first = mem_calloc(nd, sizeof(*first));
	for (i = 0; i < nd; i = j, nb++) {
		sum = t->devs[i].nrec;
		for (j = i + 1; j < nd && sum + t->devs[j].nrec <= t->o.batch;
		    j++)
			sum += t->devs[j].nrec;
		bi[nb] = i;
		first[nb] = t->devs[i].dev;
	}
	bi[nb] = nd;
	for (r = 0; rc == 0 && r < nb; r += m) {
		struct parts p = { first, nb, r };

		m = nb - r < OUTFILE_SPLIT_MAX ? nb - r : OUTFILE_SPLIT_MAX;
		if (nb > 1 && (rc = outfile_split(t->spool, sizeof(struct rec),
		    m, rec_part, &p, "nsysjax-timeline", fp)) != 0)
			break;
		for (k = 0; k < m; k++) {
			if (rc == 0)
				rc = write_batch(&w, bi[r + k], bi[r + k + 1],
				    nb > 1 ? fp[k] : t->spool, &b);
			if (nb > 1)
				fclose(fp[k]);
		}
	}
	free(bi);
	free(first);
	free(b.x);
	free(b.p);
	free(w.lanes);
	/* The device table is sorted now: a later dev_of would be wrong. */
	free(t->devidx);
	t->devidx = NULL;
	t->ndevidx = 0;
	return rc;
}
