/*
 * critpath_run: the frame driver of critpath (critpath.h): reads the
 * thunk frame one module execution at a time, with the module and hlo
 * frames as side tables, and writes the tables or the picture.
 */
#include <sys/types.h>

#include <errno.h>

#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/align.h"
#include "analysis/critpath.h"
#include "analysis/filter.h"
#include "analysis/spmd.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/num.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tsv.h"

/* A step whose critical path is more than this share gaps is host-bound. */
#define HOST_BOUND	0.5

struct modrow {
	size_t pid, name;
	int64_t exec, dev, start, end;
};

struct scale {
	char *text;		/* the scenario's name */
	regex_t re;
	int isre;		/* 0: comm-x */
	double f;
};

/* Per operation of the current execution, beside the graph's. */
struct oprow {
	size_t name;		/* in r->names */
	int64_t texec, dev;
	size_t hlo;		/* in r->hlokey, or STRTAB_NONE */
	struct critpath_op op;	/* given to the graph when the execution
				 * is read (its async flag is the name's) */
	unsigned char hint;	/* 1: says its name is async (is_async, or
				 * time hidden under compute) */
};

/* An execution held for the SPMD join (spmd.h): its rows, records
 * first .. first + n of the spool (r->spool: struct oprow, written as
 * they are), their names in r->hnames. */
struct held {
	size_t pid;
	int64_t exec;
	size_t first, n;
};

struct critpath_run {
	enum critpath_mode mode;
	/* where each table goes (NULL: not written), by mode; the SVG's */
	struct tsv_writer *out[CRITPATH_MODE_SVG];
	FILE *svg;
	const struct align_table *corr;
	struct strtab pids;
	struct modrow *mod;
	size_t nmod, capmod;
	struct strtab modnames;
	struct strtab hlokey;		/* "ProgramId\tName" */
	char **opcode, **opname;
	size_t caphlo;
	struct scale *sc;
	size_t nsc, capsc;
	char *want_prog;
	int64_t want_exec;
	int drawn;
	/* the current execution */
	struct critpath_graph *g;
	struct strtab names, keys;
	size_t *namehlo;		/* per name: its hlo row, in hlokey */
	size_t capnamehlo;
	unsigned char *nameasync;	/* per name: async (a row's hint) */
	size_t capnameasync;
	/* the SPMD join: the scanner (spmd.h) that decides it, per
	 * ProgramId (in pids) whether it is a candidate (its executions are
	 * then held to the end of the input: their rows in the spool, an
	 * unlinked temporary file, so that memory holds one step), the
	 * executions held, and the members of the step being analysed
	 * (give_devices) */
	struct spmd_scan *scan;
	unsigned char *cand;
	size_t capcand;
	struct held *held;
	size_t nheld, capheld;
	FILE *spool;
	char *spoolbuf;
	struct oprow *hrow;		/* scratch: one execution's rows */
	size_t nhrow, caphrow;		/* nhrow: records in the spool */
	struct strtab hnames;
	int joining;
	size_t *gpid;
	size_t ngpid, capgpid;
	char *key;			/* scratch for keys */
	size_t capkey;
	int incur;			/* an execution has begun */
	struct oprow *op;
	size_t nop, capop;
	double *opf;
	size_t capf;
	size_t pid;
	int64_t exec;
	struct strtab done;		/* executions finished */
	/* notes */
	size_t skewed, incomplete, cut, hostbound, execs, replayfail;
	int64_t *missing;
	size_t nmissing, capmissing;
};

struct critpath_run *
critpath_run_new(enum critpath_mode mode)
{
	struct critpath_run *r = mem_calloc(1, sizeof(*r));

	r->mode = mode;
	r->g = critpath_new();
	critpath_set_overlap(r->g, CRITPATH_OVERLAP_NS);
	r->scan = spmd_scan_new();
	return r;
}

void
critpath_run_free(struct critpath_run *r)
{
	size_t i;

	if (r == NULL)
		return;
	strtab_free(&r->pids);
	strtab_free(&r->modnames);
	spmd_scan_free(r->scan);
	for (i = 0; i < r->hlokey.n; i++) {
		free(r->opcode[i]);
		free(r->opname[i]);
	}
	free(r->opcode);
	free(r->opname);
	strtab_free(&r->hlokey);
	for (i = 0; i < r->nsc; i++) {
		if (r->sc[i].isre)
			regfree(&r->sc[i].re);
		free(r->sc[i].text);
	}
	free(r->sc);
	free(r->mod);
	free(r->want_prog);
	critpath_free(r->g);
	strtab_free(&r->names);
	strtab_free(&r->keys);
	strtab_free(&r->done);
	free(r->namehlo);
	free(r->nameasync);
	free(r->cand);
	free(r->held);
	free(r->hrow);
	if (r->spool != NULL)
		(void)fclose(r->spool);	/* read only: its data are dropped */
	free(r->spoolbuf);
	strtab_free(&r->hnames);
	free(r->gpid);
	free(r->key);
	free(r->op);
	free(r->opf);
	free(r->missing);
	free(r);
}

void
critpath_set_corrections(struct critpath_run *r, const struct align_table *t)
{
	r->corr = t;
}

static struct scale *
new_scale(struct critpath_run *r)
{
	mem_grow(&r->sc, &r->capsc, r->nsc + 1, sizeof(*r->sc));
	memset(&r->sc[r->nsc], 0, sizeof(*r->sc));
	return &r->sc[r->nsc++];
}

void
critpath_add_comm_scale(struct critpath_run *r, double f, const char *text)
{
	struct scale *s = new_scale(r);
	size_t n = strlen(text) + 8;

	s->text = mem_alloc(n);
	snprintf(s->text, n, "comm-x%s", text);
	s->f = f;
}

int
critpath_add_scale(struct critpath_run *r, const char *spec)
{
	const char *eq = strrchr(spec, '=');
	char *re;
	double f;
	int rc;
	struct scale *s;

	if (eq == NULL || eq == spec)
		return err_fail("--scale '%s': not REGEX=FACTOR", spec);
	if (num_f64(eq + 1, strlen(eq + 1), &f) != 0 || f < 0 || f > 1e6)
		return err_fail("--scale '%s': factor '%s' is not a number "
		    "from 0 to 1000000", spec, eq + 1);
	re = mem_strndup(spec, (size_t)(eq - spec));
	s = new_scale(r);
	if ((rc = regcomp(&s->re, re, REG_EXTENDED | REG_NOSUB)) != 0) {
		char msg[128];

		regerror(rc, &s->re, msg, sizeof(msg));
		r->nsc--;
		free(re);
		return err_fail("--scale '%s': bad regular expression: %s",
		    spec, msg);
	}
	free(re);
	s->isre = 1;
	s->f = f;
	s->text = mem_alloc(strlen(spec) + 8);
	sprintf(s->text, "scale:%s", spec);
	return 0;
}

void
critpath_set_exec(struct critpath_run *r, const char *program, int64_t exec)
{
	free(r->want_prog);
	r->want_prog = program ? mem_strdup(program) : NULL;
	r->want_exec = exec;
}

/* ---- side tables ---- */

static int
cmp_mod(const void *a, const void *b)
{
	const struct modrow *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int64_t
correction(struct critpath_run *r, int64_t dev)
{
	const struct align_corr *c;
	size_t lo, hi;

	if (r->corr == NULL)
		return 0;
	if ((c = align_table_find(r->corr, dev)) != NULL)
		return c->corr_ns;
	/* Listed once, in order (a binary search: rows are many). */
	lo = 0, hi = r->nmissing;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->missing[mid] == dev)
			return 0;
		if (r->missing[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	mem_grow(&r->missing, &r->capmissing, r->nmissing + 1,
	    sizeof(*r->missing));
	memmove(r->missing + lo + 1, r->missing + lo,
	    (r->nmissing - lo) * sizeof(*r->missing));
	r->missing[lo] = dev;
	r->nmissing++;
	return 0;
}

int
critpath_load_module(struct tsv_reader *t, void *arg)
{
	static const char *const names[] = { "ProgramId", "ProgramExecution",
	    "Device", "ProjStartMs", "ProjDurMs", "Name" };
	struct critpath_run *r = arg;
	long c[6];
	int rc;

	if (tsv_columns(t, names, 6, 1u << 5, c) != 0)
		return -1;
	while ((rc = tsv_next(t)) == 1) {
		struct modrow m;
		const char *p;
		int64_t d;

		if (tsv_get_i64(t, (size_t)c[1], &m.exec, 0) != 0 ||
		    tsv_get_i64(t, (size_t)c[2], &m.dev, 0) != 0 ||
		    tsv_get_ms(t, (size_t)c[3], &m.start, 0) != 0 ||
		    tsv_get_ms(t, (size_t)c[4], &d, 0) != 0)
			return -1;
		if (d < 0)
			return err_fail("%s:%ld: column ProjDurMs: negative",
			    tsv_name(t), tsv_lineno(t));
		p = tsv_field(t, (size_t)c[0]);
		m.pid = strtab_intern(&r->pids, p, strlen(p), NULL);
		p = c[5] >= 0 ? tsv_field(t, (size_t)c[5]) : "";
		m.name = strtab_intern(&r->modnames, p, strlen(p), NULL);
		spmd_scan_module(r->scan, strtab_get(&r->pids, m.pid), p);
		m.start -= correction(r, m.dev);
		m.end = m.start + d;
		mem_grow(&r->mod, &r->capmod, r->nmod + 1, sizeof(*r->mod));
		r->mod[r->nmod++] = m;
	}
	if (r->nmod > 0)	/* a header and no rows: mod is NULL */
		qsort(r->mod, r->nmod, sizeof(*r->mod), cmp_mod);
	return rc;
}

int
critpath_load_hlo(struct tsv_reader *t, void *arg)
{
	static const char *const names[] = { "ProgramId", "Name", "Opcode",
	    "OpName" };
	struct critpath_run *r = arg;
	long c[4];
	int rc, added;

	if (tsv_columns(t, names, 4, 3u << 2, c) != 0)
		return -1;
	while ((rc = tsv_next(t)) == 1) {
		char *key, *p = mem_strdup(tsv_field(t, (size_t)c[0]));
		const char *n = tsv_field(t, (size_t)c[1]);
		size_t len = strlen(p) + strlen(n) + 2, id;

		key = mem_alloc(len);
		snprintf(key, len, "%s\t%s", p, n);
		id = strtab_intern(&r->hlokey, key, len - 1, &added);
		free(key);
		free(p);
		if (!added)
			continue;
		mem_grow(&r->opcode, &r->caphlo, id + 1, sizeof(*r->opcode));
		r->opname = mem_realloc(r->opname, r->caphlo, sizeof(*r->opname));
		r->opcode[id] = mem_strdup(c[2] >= 0 ? tsv_field(t,
		    (size_t)c[2]) : "");
		r->opname[id] = mem_strdup(c[3] >= 0 ? tsv_field(t,
		    (size_t)c[3]) : "");
	}
	return rc;
}

/* ---- output per execution ---- */

static const char *
name_of(const struct critpath_run *r, size_t i)
{
	return strtab_get(&r->names, r->op[i].name);
}

static void
keys(struct critpath_run *r, struct tsv_writer *w)
{
	tsv_str(w, strtab_get(&r->pids, r->pid));
	tsv_i64(w, r->exec);
}

static int
write_path(struct critpath_run *r, struct tsv_writer *w)
{
	const struct critpath_seg *s;
	size_t n = critpath_path(r->g, &s), i;

	for (i = 0; i < n; i++) {
		keys(r, w);
		tsv_i64(w, s[i].dev);
		if (s[i].op >= 0) {
			tsv_str(w, name_of(r, (size_t)s[i].op));
			tsv_i64(w, r->op[s[i].op].texec);
		} else {
			tsv_str(w, s[i].start_ns == critpath_t0(r->g) ?
			    "(late start)" : "(module end)");
			tsv_empty(w);
		}
		tsv_str(w, critpath_label_name(s[i].label));
		tsv_ms(w, s[i].start_ns);
		tsv_ms(w, s[i].dur_ns);
		if (tsv_eor(w) != 0)
			return -1;
	}
	return 0;
}

/* The measured path's time by label, into BY[CRITPATH_NLABEL]. */
static void
by_label(struct critpath_run *r, int64_t *by)
{
	const struct critpath_seg *s;
	size_t n = critpath_path(r->g, &s), i;

	memset(by, 0, CRITPATH_NLABEL * sizeof(*by));
	for (i = 0; i < n; i++)
		by[s[i].label] += s[i].dur_ns;
}

static double
share(int64_t part, int64_t whole)
{
	return whole > 0 ? round(1e4 * (double)part / (double)whole) / 1e4 : 0;
}

static int
scen_row(struct critpath_run *r, struct tsv_writer *w, const char *name,
    int64_t measured, int64_t pred, double gapshare)
{
	keys(r, w);
	tsv_str(w, name);
	tsv_ms(w, measured);
	tsv_ms(w, pred);
	tsv_ms(w, measured - pred);
	tsv_f64(w, measured > 0 ? round(1e4 * (double)(measured - pred) /
	    (double)measured) / 1e2 : 0);
	tsv_f64(w, gapshare);
	tsv_bool(w, gapshare > HOST_BOUND);
	return tsv_eor(w);
}

/* Whether operation I matches scenario S: its Name, or its hlo row's
 * OpName or Opcode. */
static int
matches(const struct critpath_run *r, const struct scale *s, size_t i)
{
	size_t h = r->op[i].hlo;

	if (regexec(&s->re, name_of(r, i), 0, NULL, 0) == 0)
		return 1;
	return h != STRTAB_NONE && (regexec(&s->re, r->opname[h], 0, NULL,
	    0) == 0 || regexec(&s->re, r->opcode[h], 0, NULL, 0) == 0);
}

/* One scenario's row: SC evaluated on the current graph. */
static int
scen_eval(struct critpath_run *r, struct tsv_writer *w, const char *name,
    const struct critpath_scen *sc, int64_t measured, double gs)
{
	return scen_row(r, w, name, measured, critpath_eval(r->g, sc), gs);
}

/* The scenarios in the man page's order. */
static int
write_scen(struct critpath_run *r, struct tsv_writer *w, int64_t measured,
    double gs)
{
	const struct critpath_scen id = critpath_scen_measured();
	struct critpath_scen sc = id;
	size_t k, i;

	if (scen_eval(r, w, "measured", &sc, measured, gs) != 0)
		return -1;
	sc.comm = 0;
	if (scen_eval(r, w, "comm-free", &sc, measured, gs) != 0)
		return -1;
	sc = id;
	sc.no_barrier = 1;
	if (scen_eval(r, w, "no-peer-wait", &sc, measured, gs) != 0)
		return -1;
	for (k = 0; k < r->nsc; k++) {
		sc = id;
		sc.comm = r->sc[k].f;
		if (!r->sc[k].isre &&
		    scen_eval(r, w, r->sc[k].text, &sc, measured, gs) != 0)
			return -1;
	}
	sc = id;
	sc.median = 1;
	if (scen_eval(r, w, "no-straggler", &sc, measured, gs) != 0)
		return -1;
	mem_grow(&r->opf, &r->capf, r->nop, sizeof(*r->opf));
	for (k = 0; k < r->nsc; k++) {
		if (!r->sc[k].isre)
			continue;
		for (i = 0; i < r->nop; i++)
			r->opf[i] = matches(r, &r->sc[k], i) ? r->sc[k].f : 1;
		sc = id;
		sc.opf = r->opf;
		if (scen_eval(r, w, r->sc[k].text, &sc, measured, gs) != 0)
			return -1;
	}
	sc = id;
	sc.gap = 0;
	return scen_eval(r, w, "no-gaps", &sc, measured, gs);
}

static int
write_slack(struct critpath_run *r, struct tsv_writer *w)
{
	size_t i;

	for (i = 0; i < r->nop; i++) {
		int64_t sl = critpath_slack(r->g, i);

		keys(r, w);
		tsv_str(w, name_of(r, i));
		tsv_i64(w, r->op[i].texec);
		tsv_i64(w, r->op[i].dev);
		tsv_ms(w, critpath_start(r->g, i));
		tsv_ms(w, critpath_end(r->g, i) - critpath_start(r->g, i));
		tsv_ms(w, critpath_wait(r->g, i));
		tsv_ms(w, critpath_transfer(r->g, i));
		tsv_ms(w, sl);
		tsv_bool(w, sl == 0);
		if (tsv_eor(w) != 0)
			return -1;
	}
	return 0;
}

static int
write_breakdown(struct critpath_run *r, struct tsv_writer *w,
    const struct critpath_info *info, const int64_t *by, int64_t measured,
    size_t mname)
{
	int64_t wait = 0;
	size_t i;

	for (i = 0; i < r->nop; i++)
		wait += critpath_wait(r->g, i);
	keys(r, w);
	tsv_str(w, mname == STRTAB_NONE ? "" : strtab_get(&r->modnames, mname));
	tsv_i64(w, (int64_t)info->devices);
	tsv_i64(w, (int64_t)info->ops);
	tsv_ms(w, measured);
	for (i = 0; i < CRITPATH_NLABEL; i++)
		tsv_ms(w, by[i]);
	tsv_f64(w, share(by[CRITPATH_GAP], measured));
	tsv_bool(w, share(by[CRITPATH_GAP], measured) > HOST_BOUND);
	tsv_ms(w, wait);
	return tsv_eor(w);
}

static int
write_svg(struct critpath_run *r, FILE *fp, int64_t measured)
{
	char title[512];
	int rc;

	snprintf(title, sizeof(title), "%.200s execution %" PRId64
	    ": step %.3f ms", strtab_get(&r->pids, r->pid), r->exec,
	    (double)measured / 1e6);
	rc = critpath_svg(r->g, fp, title);
	if (rc != 0)
		err_fail("<svg output>: write error");
	r->drawn = 1;
	return rc;
}

/* The module rows of the current execution: their devices' ranges. */
static size_t
give_devices_of(struct critpath_run *r, size_t pid)
{
	size_t lo = 0, hi = r->nmod, name = STRTAB_NONE;
	struct modrow key = { pid, 0, r->exec, INT64_MIN, 0, 0 };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_mod(&r->mod[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->nmod && r->mod[lo].pid == pid &&
	    r->mod[lo].exec == r->exec; lo++) {
		critpath_device(r->g, r->mod[lo].dev, r->mod[lo].start,
		    r->mod[lo].end);
		name = r->mod[lo].name;
	}
	return name;
}

/* The module rows of the current step: of each ProgramId joined in it
 * (gpid), or of the current one. */
static size_t
give_devices(struct critpath_run *r)
{
	size_t k, name = STRTAB_NONE, m;

	if (r->ngpid == 0)
		return give_devices_of(r, r->pid);
	for (k = 0; k < r->ngpid; k++)
		if ((m = give_devices_of(r, r->gpid[k])) != STRTAB_NONE)
			name = m;
	return name;
}

/* Whether --svg leaves the current execution alone: one is drawn, or
 * it is not the one asked for.  Its rows are then not even read. */
static int
not_drawn(const struct critpath_run *r)
{
	return r->mode == CRITPATH_MODE_SVG && (r->drawn || (r->want_prog &&
	    (strcmp(r->want_prog, strtab_get(&r->pids, r->pid)) != 0 ||
	    r->want_exec != r->exec)));
}

/*
 * The execution read has a cycle through operation OP's collective: say
 * which collective and devices, and leave it out.  No longest path
 * exists on a cycle; breaking it would drop a measured end (a skewed
 * member's end is its barrier's edge), so no rule can keep the replay.
 */
static void
cycle_note(struct critpath_run *r, struct err_notes *notes, long op)
{
	char devs[160] = "";
	long b = op >= 0 ? critpath_barrier_of(r->g, (size_t)op) : -1;
	size_t i, len = 0;

	for (i = 0; i < r->nop && b >= 0; i++)
		if (critpath_barrier_of(r->g, i) == b && len < sizeof(devs) - 24)
			len += (size_t)snprintf(devs + len, sizeof(devs) - len,
			    " %" PRId64, r->op[i].dev);
	if (op < 0) {
		err_note(notes, "ProgramId %s execution %" PRId64 ": its "
		    "graph has a cycle: left out", strtab_get(&r->pids, r->pid),
		    r->exec);
		return;
	}
	err_note(notes, "ProgramId %s execution %" PRId64 ": collective %s "
	    "(ThunkExecution %" PRId64 ") on devices%s is seen in another "
	    "order than a collective before it on some of these devices (a "
	    "member ends before a peer starts: clocks skewed, align them: -c); "
	    "the execution is left out", strtab_get(&r->pids, r->pid), r->exec,
	    name_of(r, (size_t)op), r->op[op].texec, devs);
}

/* ---- the SPMD join (spmd.h) ---- */

/* cand: the ProgramIds of the module frame that are candidates of the
 * join (spmd_scan_candidate).  Only their executions are held. */
static void
mark_candidates(struct critpath_run *r)
{
	size_t i;

	mem_grow(&r->cand, &r->capcand, r->pids.n + 1, 1);
	memset(r->cand, 0, r->capcand);
	for (i = 0; i < r->pids.n; i++)
		r->cand[i] = (unsigned char)spmd_scan_candidate(r->scan,
		    strtab_get(&r->pids, i));
}

static int
holding(const struct critpath_run *r)
{
	return !r->joining && r->pid < r->capcand && r->cand[r->pid];
}

#define SPOOL_BUF (1 << 20)

/* The spool: an unlinked temporary file in $TMPDIR, gone when closed or
 * on exit.  Returns 0, or -1 with an err message. */
static int
spool_open(struct critpath_run *r)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/nsysjax-critpath.XXXXXX",
	    dir) >= sizeof(path))
		return err_fail("TMPDIR too long");
	if ((fd = mkstemp(path)) < 0)
		return err_fail("%s: cannot create temporary file: %s", path,
		    strerror(errno));
	(void)unlink(path);
	if ((r->spool = fdopen(fd, "w+")) == NULL) {
		(void)close(fd);
		return err_fail("temporary file: %s", strerror(errno));
	}
	r->spoolbuf = mem_alloc(SPOOL_BUF);
	setvbuf(r->spool, r->spoolbuf, _IOFBF, SPOOL_BUF);
	return 0;
}

/* Keep the current execution for the join: its rows to the spool. */
static int
hold(struct critpath_run *r)
{
	struct held *h;
	size_t i;

	if (r->spool == NULL && spool_open(r) != 0)
		return -1;
	mem_grow(&r->held, &r->capheld, r->nheld + 1, sizeof(*r->held));
	h = &r->held[r->nheld++];
	h->pid = r->pid;
	h->exec = r->exec;
	h->first = r->nhrow;
	h->n = r->nop;
	mem_grow(&r->hrow, &r->caphrow, r->nop, sizeof(*r->hrow));
	for (i = 0; i < r->nop; i++) {
		struct oprow o = r->op[i];
		const char *n = name_of(r, i);
		struct spmd_row sr;

		sr.prog = strtab_get(&r->pids, r->pid);
		sr.exec = r->exec;
		sr.dev = o.dev;
		sr.name = n;
		sr.texec = o.texec;
		sr.coll = o.op.comm && (o.op.csize > 1 ||
		    o.op.csize == CRITPATH_CSIZE_ALL);
		sr.csize = o.op.csize;
		sr.start_ns = o.op.start_ns;
		spmd_scan_row(r->scan, &sr);

		o.name = strtab_intern(&r->hnames, n, strlen(n), NULL);
		r->hrow[i] = o;
	}
	if (fwrite(r->hrow, sizeof(*r->hrow), r->nop, r->spool) != r->nop)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	r->nhrow += r->nop;
	return 0;
}

/* Analyse the execution read and write its rows. */
static int
finish_exec(struct critpath_run *r, struct err_notes *notes)
{
	struct critpath_scen sc = critpath_scen_measured();
	struct critpath_info info;
	int64_t by[CRITPATH_NLABEL], measured, pred;
	size_t mname, i;
	double gs;
	int rc = 0;

	if (r->nop == 0)
		return 0;
	if (holding(r)) {
		rc = hold(r);
		goto out;
	}
	if (not_drawn(r))
		goto out;
	/* A name is async when one of its rows says so (on any device). */
	mem_grow(&r->nameasync, &r->capnameasync, r->names.n + 1,
	    sizeof(*r->nameasync));
	memset(r->nameasync, 0, r->names.n);
	for (i = 0; i < r->nop; i++)
		r->nameasync[r->op[i].name] |= r->op[i].hint;
	for (i = 0; i < r->nop; i++) {
		r->op[i].op.async = r->op[i].op.comm &&
		    r->nameasync[r->op[i].name];
		(void)critpath_add(r->g, &r->op[i].op);
	}
	mname = give_devices(r);
	if (critpath_build(r->g, &info) != 0) {
		cycle_note(r, notes, info.cycle);
		goto out;
	}
	r->execs++;
	r->skewed += info.skewed;
	r->incomplete += info.incomplete;
	r->cut += info.cut;
	measured = critpath_measured(r->g);
	pred = critpath_eval(r->g, &sc);
	r->replayfail += pred != measured;
	by_label(r, by);
	gs = share(by[CRITPATH_GAP], measured);
	r->hostbound += gs > HOST_BOUND;
	/* The scenarios last: evaluating them leaves the graph's times
	 * those of the last scenario, not the measured ones the others read. */
	if (r->mode == CRITPATH_MODE_SVG)
		rc = write_svg(r, r->svg, measured);
	if (rc == 0 && r->out[CRITPATH_MODE_PATH])
		rc = write_path(r, r->out[CRITPATH_MODE_PATH]);
	if (rc == 0 && r->out[CRITPATH_MODE_SLACK])
		rc = write_slack(r, r->out[CRITPATH_MODE_SLACK]);
	if (rc == 0 && r->out[CRITPATH_MODE_BREAKDOWN])
		rc = write_breakdown(r, r->out[CRITPATH_MODE_BREAKDOWN], &info,
		    by, measured, mname);
	if (rc == 0 && r->out[CRITPATH_MODE_SCEN])
		rc = write_scen(r, r->out[CRITPATH_MODE_SCEN], measured, gs);
out:
	critpath_reset(r->g);
	strtab_free(&r->names);
	strtab_free(&r->keys);
	r->nop = 0;
	return rc;
}

static const char *const thunk_cols[] = { "ProgramId", "ProgramExecution",
	"Name", "ThunkExecution", "Device", "ProjStartMs", "ProjDurMs",
	"ProjDurHiddenMs", "Communication", "CollectiveSize" };
enum { C_PID, C_EXEC, C_NAME, C_TEXEC, C_DEV, C_START, C_DUR, C_HID, C_COMM,
	C_CSIZE, NCOL };

static const char *const headers[][14] = {
	{ "ProgramId", "ProgramExecution", "Device", "Name", "ThunkExecution",
	  "Label", "StartMs", "DurMs", NULL },
	{ "ProgramId", "ProgramExecution", "Scenario", "MeasuredMs",
	  "PredictedMs", "GainMs", "GainPct", "GapShare", "HostBound", NULL },
	{ "ProgramId", "ProgramExecution", "Name", "ThunkExecution", "Device",
	  "StartMs", "DurMs", "WaitMs", "TransferMs", "SlackMs", "Critical",
	  NULL },
	{ "ProgramId", "ProgramExecution", "Module", "Devices", "Thunks",
	  "StepMs", "ComputeMs", "CommunicationMs", "PeerWaitMs", "GapMs",
	  "GapShare", "HostBound", "OffPathWaitMs", NULL },
};

/* Is the operation named N (of program PID) an async collective? */
static int
is_async(const struct critpath_run *r, size_t h, const char *n)
{
	const char *oc = h != STRTAB_NONE ? r->opcode[h] : n;
	size_t len = strlen(oc);

	if (h != STRTAB_NONE && r->opcode[h][0] != '\0')
		return len >= 6 && strcmp(oc + len - 6, "-start") == 0;
	return strstr(n, "-start") != NULL;
}

/* The hlo row of operation N[0..NLEN) of the current program, or
 * STRTAB_NONE. */
static size_t
hlo_row(struct critpath_run *r, const char *n, size_t nlen)
{
	const char *p = strtab_get(&r->pids, r->pid);
	size_t plen = r->pids.len[r->pid];

	mem_grow(&r->key, &r->capkey, plen + nlen + 2, 1);
	memcpy(r->key, p, plen);
	r->key[plen] = '\t';
	memcpy(r->key + plen + 1, n, nlen);
	return strtab_find(&r->hlokey, r->key, plen + nlen + 1);
}

/* Read the current row into the execution. */
static int
add_row(struct critpath_run *r, struct tsv_reader *t, const long *c)
{
	struct critpath_op op = { 0 };
	struct oprow o;
	int64_t hid = 0, comm = 0, cs = 0;
	int csz = 1;
	const char *n = tsv_field(t, (size_t)c[C_NAME]);
	size_t nlen = strlen(n), len;
	int added;

	if (tsv_get_i64(t, (size_t)c[C_TEXEC], &o.texec, 0) != 0 ||
	    tsv_get_i64(t, (size_t)c[C_DEV], &o.dev, 0) != 0 ||
	    tsv_get_ms(t, (size_t)c[C_START], &op.start_ns, 0) != 0 ||
	    tsv_get_ms(t, (size_t)c[C_DUR], &op.dur_ns, 0) != 0 ||
	    (c[C_HID] >= 0 && tsv_get_ms(t, (size_t)c[C_HID], &hid, 1) < 0) ||
	    (c[C_COMM] >= 0 && tsv_get_i64(t, (size_t)c[C_COMM], &comm, 1) < 0) ||
	    (c[C_CSIZE] >= 0 &&
	    (csz = tsv_get_i64(t, (size_t)c[C_CSIZE], &cs, 1)) < 0))
		return -1;
	if (op.dur_ns < 0 || hid < 0)
		return err_fail("%s:%ld: column %s: negative", tsv_name(t),
		    tsv_lineno(t), op.dur_ns < 0 ? "ProjDurMs" :
		    "ProjDurHiddenMs");
	op.dev = o.dev;
	op.start_ns -= correction(r, o.dev);
	op.dur_ns += hid;
	op.comm = comm != 0;
	op.csize = cs;
	/* A collective known by its name only (a module without its HLO
	 * dump): its group is not known, so it spans every device of the
	 * execution, as nsysjax-align takes it. */
	if (op.comm && csz == 1)
		op.csize = CRITPATH_CSIZE_ALL;
	/* A name's hlo row once per execution: its rows repeat the names
	 * on every device. */
	o.name = strtab_intern(&r->names, n, nlen, &added);
	if (added) {
		mem_grow(&r->namehlo, &r->capnamehlo, o.name + 1,
		    sizeof(*r->namehlo));
		r->namehlo[o.name] = hlo_row(r, n, nlen);
	}
	o.hlo = r->namehlo[o.name];
	/* The key "Name\tThunkExecution". */
	mem_grow(&r->key, &r->capkey, nlen + 24, 1);
	len = (size_t)snprintf(r->key, r->capkey, "%s\t%" PRId64, n,
	    o.texec);
	op.key = strtab_intern(&r->keys, r->key, len, NULL);
	/* Time hidden under compute: it ran beside the compute stream,
	 * whatever its name says (reduce-scatter.N of an async-start). */
	o.hint = (unsigned char)(is_async(r, o.hlo, n) || (op.comm && hid > 0));
	o.op = op;
	mem_grow(&r->op, &r->capop, r->nop + 1, sizeof(*r->op));
	r->op[r->nop++] = o;
	return 0;
}

/* Is the row of another execution than the current one?  Starts the new
 * one; an execution seen before is an error. */
static int
next_exec(struct critpath_run *r, struct tsv_reader *t, const long *c,
    struct err_notes *notes)
{
	const char *p = tsv_field(t, (size_t)c[C_PID]);
	size_t pid = strtab_intern(&r->pids, p, strlen(p), NULL), len;
	int64_t exec;
	int added;

	if (tsv_get_i64(t, (size_t)c[C_EXEC], &exec, 0) != 0)
		return -1;
	if (r->incur && pid == r->pid && exec == r->exec)
		return 0;
	if (finish_exec(r, notes) != 0)
		return -1;
	mem_grow(&r->key, &r->capkey, strlen(p) + 24, 1);
	len = (size_t)snprintf(r->key, r->capkey, "%s\t%" PRId64, p, exec);
	(void)strtab_intern(&r->done, r->key, len, &added);
	if (!added)
		return err_fail("%s:%ld: ProgramId %s execution %" PRId64
		    ": its rows are not together (sort the frame by "
		    "ProgramId and ProgramExecution)", tsv_name(t),
		    tsv_lineno(t), p, exec);
	r->pid = pid;
	r->exec = exec;
	r->incur = 1;
	return 0;
}

/* Held executions by their step's ProgramId, execution, order held. */
static int
cmp_held(const void *a, const void *b, const void *ctx)
{
	const size_t *key = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (key[2 * x] != key[2 * y])
		return key[2 * x] < key[2 * y] ? -1 : 1;
	if (key[2 * x + 1] != key[2 * y + 1])
		return key[2 * x + 1] < key[2 * y + 1] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Load held execution H's rows into the current execution.  Returns 0,
 * or -1 with an err message. */
static int
load_held(struct critpath_run *r, const struct held *h)
{
	size_t i, len;

	mem_grow(&r->op, &r->capop, r->nop + h->n, sizeof(*r->op));
	mem_grow(&r->hrow, &r->caphrow, h->n, sizeof(*r->hrow));
	size_t want = h->n * sizeof(*r->hrow);
	ssize_t got;

	/* pread, not fseek and fread: a seek drops the stdio buffer, and
	 * refilling its megabyte per execution read cost seconds. */
	errno = 0;
	got = pread(fileno(r->spool), r->hrow, want,
	    (off_t)(h->first * sizeof(*r->hrow)));
	if (got < 0 || (size_t)got != want)
		return err_fail("temporary file: read error: %s",
		    got < 0 ? strerror(errno) : "short file");
	for (i = 0; i < h->n; i++) {
		struct oprow o = r->hrow[i];
		const char *n = strtab_get(&r->hnames, o.name);
		size_t nlen = strlen(n);

		o.name = strtab_intern(&r->names, n, nlen, NULL);
		mem_grow(&r->key, &r->capkey, nlen + 24, 1);
		len = (size_t)snprintf(r->key, r->capkey, "%s\t%" PRId64, n,
		    o.texec);
		o.op.key = strtab_intern(&r->keys, r->key, len, NULL);
		r->op[r->nop++] = o;
	}
	return 0;
}

/* The ProgramId (in pids) standing for PID's step (spmd_scan_rep). */
static size_t
rep_of(const struct critpath_run *r, size_t pid)
{
	const char *p = strtab_get(&r->pids, pid);
	const char *q = spmd_scan_rep(r->scan, p);

	return q == p ? pid : strtab_find(&r->pids, q, strlen(q));
}

/*
 * The held executions, at the end of the input: ProgramIds joined by
 * the scanner (spmd.h), then each step (a group's execution k) analysed
 * as one, under the ProgramId of the group's widest member.
 */
static int
join_held(struct critpath_run *r, struct err_notes *notes)
{
	size_t *key, *ix, i, j;
	int rc = 0;

	(void)spmd_scan_end(r->scan, notes);
	if (r->nheld == 0)
		return 0;
	if (fflush(r->spool) != 0)
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	key = mem_calloc(2 * r->nheld, sizeof(*key));
	ix = mem_calloc(r->nheld, sizeof(*ix));
	for (i = 0; i < r->nheld; i++) {
		ix[i] = i;
		key[2 * i] = rep_of(r, r->held[i].pid);
		key[2 * i + 1] = (size_t)r->held[i].exec;
	}
	sort_total(ix, r->nheld, sizeof(*ix), cmp_held, key);
	r->joining = 1;
	for (i = 0; i < r->nheld && rc == 0; i = j) {
		const struct held *h0 = &r->held[ix[i]];

		r->ngpid = 0;
		for (j = i; j < r->nheld && key[2 * ix[j]] == key[2 * ix[i]] &&
		    r->held[ix[j]].exec == h0->exec; j++) {
			mem_grow(&r->gpid, &r->capgpid, r->ngpid + 1,
			    sizeof(*r->gpid));
			r->gpid[r->ngpid++] = r->held[ix[j]].pid;
			if (rc == 0)
				rc = load_held(r, &r->held[ix[j]]);
		}
		r->pid = key[2 * ix[i]];
		r->exec = h0->exec;
		if (rc == 0)
			rc = finish_exec(r, notes);
	}
	r->joining = 0;
	r->ngpid = 0;
	free(key);
	free(ix);
	return rc;
}

static void
notes_of(struct critpath_run *r, struct err_notes *notes)
{
	size_t i;
	char list[256] = "";

	if (r->skewed)
		err_note(notes, "%zu collective rows end before a peer "
		    "starts: clocks skewed (align them: -c)", r->skewed);
	if (r->incomplete)
		err_note(notes, "%zu collective groups have fewer devices "
		    "than their CollectiveSize: barriers over the devices "
		    "present", r->incomplete);
	if (r->cut)
		err_note(notes, "%zu collective instances ran on more "
		    "devices than their CollectiveSize: groups taken in the "
		    "order of their end times", r->cut);
	if (r->hostbound)
		err_note(notes, "%zu of %zu module executions are host-bound "
		    "(gaps are more than half of the critical path): GPU "
		    "what-ifs are optimistic there", r->hostbound, r->execs);
	if (r->replayfail)
		err_note(notes, "%zu module executions do not replay to "
		    "their measured step (a bug: please report)", r->replayfail);
	for (i = 0; i < r->nmissing && strlen(list) < sizeof(list) - 48; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%s%" PRId64, i ? " " : "", r->missing[i]);
	if (r->nmissing)
		err_note(notes, "no correction for device%s %s%s: times "
		    "used as they are", r->nmissing == 1 ? "" : "s", list,
		    i < r->nmissing ? " ..." : "");
	if (r->out[CRITPATH_MODE_SCEN])
		err_note(notes, "scenarios are estimates from the measured "
		    "graph (dependencies inferred from times, gaps kept)");
}

/* The thunk rows of F, an execution at a time, into R's outputs. */
static int
run(struct critpath_run *r, struct filter *f, struct err_notes *notes)
{
	struct tsv_reader *t = filter_reader(f);
	long c[NCOL];
	size_t m;
	int rc;

	if (tsv_columns(t, thunk_cols, NCOL, (1u << C_HID) | (1u << C_COMM) |
	    (1u << C_CSIZE), c) != 0)
		return -1;
	for (m = 0; m < CRITPATH_MODE_SVG; m++)
		if (r->out[m] && tsv_header(r->out[m], headers[m]) != 0)
			return -1;
	mark_candidates(r);
	while ((rc = filter_next(f)) == 1) {
		t = filter_reader(f);
		/* The operations inside a command buffer are thunks like
		 * any: a buffer traced per graph node has a row per
		 * execution of each, and its own row keeps only the busy
		 * time nothing inside explains (often none). */
		if (next_exec(r, t, c, notes) != 0 ||
		    ((holding(r) || !not_drawn(r)) && add_row(r, t, c) != 0))
			return -1;
	}
	if (rc < 0 || finish_exec(r, notes) != 0 || join_held(r, notes) != 0)
		return -1;
	if (r->mode == CRITPATH_MODE_SVG && !r->drawn)
		return err_fail("%s: no module execution %s%s%" PRId64
		    " to draw", tsv_name(t), r->want_prog ? r->want_prog : "",
		    r->want_prog ? ":" : "", r->want_prog ? r->want_exec : 0);
	notes_of(r, notes);
	return 0;
}

int
critpath_run_frames(struct critpath_run *r, struct filter *f,
    struct tsv_writer *w, FILE *svg, struct err_notes *notes)
{
	if (r->mode == CRITPATH_MODE_SVG)
		r->svg = svg;
	else
		r->out[r->mode] = w;
	return run(r, f, notes);
}

int
critpath_run_tables(struct critpath_run *r, struct filter *f,
    struct tsv_writer *const out[CRITPATH_MODE_SVG], struct err_notes *notes)
{
	memcpy(r->out, out, sizeof(r->out));
	return run(r, f, notes);
}
