/*
 * warmup: the steady-state / initialisation split (see warmup.h).
 *
 * A row is decided as soon as both facts it depends on are known: whether
 * the profile has communication (known up front, or from the first
 * Communication 1 in the input), and whether the fallback is ruled out
 * (some row has been steady).  Until then rows wait in a spool: an
 * unlinked temporary file holding, per row, one class byte and the raw
 * line.  Once decided, the spool is replayed in order and later rows
 * stream straight through, so memory stays constant and a profile whose
 * first steady row comes early spools almost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "analysis/filter.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "analysis/warmup.h"

void
warmup_facts_init(struct warmup_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->communication = WARMUP_COMM_INPUT;
	f->skip = -1;
}

void
warmup_facts_free(struct warmup_facts *f)
{
	strtab_free(&f->compiled);
	strtab_free(&f->progs);
	strtab_free(&f->graph);
	free(f->last);
}

/* "P\tEXEC" in *BUF (*CAP bytes, grown), its length in *LEN. */
static const char *
form_key(char **buf, size_t *cap, const char *p, size_t len, int64_t exec,
    size_t *klen)
{
	mem_grow(buf, cap, len + 24, 1);
	memcpy(*buf, p, len);
	*klen = len + (size_t)snprintf(*buf + len, 24, "\t%lld",
	    (long long)exec);
	return *buf;
}

/* Whether field A of R's row holds the same bytes as field B. */
static int
same_field(const struct tsv_reader *r, size_t a, size_t b)
{
	size_t la, lb;
	const char *x = tsv_rawfield(r, a, &la), *y = tsv_rawfield(r, b, &lb);

	return la > 0 && la == lb && memcmp(x, y, la) == 0;
}

int
warmup_load_forms(struct warmup_facts *f, struct tsv_reader *r)
{
	long pc, ec, nc, cc;
	const char *p, *k;
	char *buf = NULL;
	size_t plen, klen, cap = 0, id, i;
	int64_t exec;
	int rc, added;

	f->forms = 1;
	if ((pc = tsv_require(r, "ProgramId")) < 0 ||
	    (ec = tsv_require(r, "ProgramExecution")) < 0 ||
	    (nc = tsv_require(r, "Name")) < 0)
		return -1;
	cc = tsv_col(r, "CommandBuffer");
	while ((rc = tsv_next(r)) == 1) {
		if (tsv_get_i64(r, (size_t)ec, &exec, 0) != 0) {
			rc = -1;
			break;
		}
		p = tsv_rawfield(r, (size_t)pc, &plen);
		id = strtab_intern(&f->progs, p, plen, &added);
		mem_grow(&f->last, &f->caplast, id + 1, sizeof(*f->last));
		if (added || exec > f->last[id].exec)
			f->last[id].exec = exec;
		if (cc >= 0 && same_field(r, (size_t)cc, (size_t)nc)) {
			k = form_key(&buf, &cap, p, plen, exec, &klen);
			strtab_intern(&f->graph, k, klen, NULL);
		}
	}
	for (i = 0; rc == 0 && i < f->progs.n; i++) {
		k = form_key(&buf, &cap, strtab_get(&f->progs, i),
		    f->progs.len[i], f->last[i].exec, &klen);
		f->last[i].graph = strtab_find(&f->graph, k, klen) !=
		    STRTAB_NONE;
	}
	free(buf);
	return rc < 0 ? -1 : 0;
}

int
warmup_write_forms(const struct warmup_facts *f, struct tsv_writer *w)
{
	static const char *const cols[] = { "ProgramId", "ProgramExecution",
	    "Name", "CommandBuffer", NULL };
	const char *k;
	size_t i, t;
	int rc = tsv_header(w, cols);

	for (i = 0; rc == 0 && i < f->progs.n; i++) {
		if (f->last[i].graph)
			continue;	/* its graph row below says it */
		tsv_raw(w, strtab_get(&f->progs, i), f->progs.len[i]);
		tsv_i64(w, f->last[i].exec);
		tsv_str(w, "-");
		tsv_empty(w);
		rc = tsv_eor(w);
	}
	/* A key is "ProgramId\tProgramExecution" (form_key): the id,
	 * escaped, holds no tab; the execution follows the last one. */
	for (i = 0; rc == 0 && i < f->graph.n; i++) {
		k = strtab_get(&f->graph, i);
		for (t = f->graph.len[i]; t > 0 && k[t - 1] != '\t'; t--)
			;
		if (t == 0)
			continue;
		tsv_raw(w, k, t - 1);
		tsv_raw(w, k + t, f->graph.len[i] - t);
		tsv_str(w, "-");
		tsv_str(w, "-");
		rc = tsv_eor(w);
	}
	return rc;
}

int
warmup_form_differs(const struct warmup_facts *f, const char *p,
    size_t len, int64_t exec)
{
	char *buf = NULL;
	const char *k;
	size_t cap = 0, klen, id;
	int graph;

	if (!f->forms || (id = strtab_find(&f->progs, p, len)) == STRTAB_NONE)
		return 0;
	k = form_key(&buf, &cap, p, len, exec, &klen);
	graph = strtab_find(&f->graph, k, klen) != STRTAB_NONE;
	free(buf);
	return graph != f->last[id].graph;
}

void
warmup_add_compiled(struct warmup_facts *f, const char *p, size_t len)
{
	if (len > 0)
		strtab_intern(&f->compiled, p, len, NULL);
}

int
warmup_load_compiled(struct warmup_facts *f, struct tsv_reader *r)
{
	const char *p;
	size_t len;
	long col;
	int rc;

	if ((col = tsv_require(r, "ProgramId")) < 0)
		return -1;
	while ((rc = tsv_next(r)) == 1) {
		p = tsv_rawfield(r, (size_t)col, &len);
		warmup_add_compiled(f, p, len);
	}
	return rc;
}

/* Field COL of R's row as a 0/1 flag into *ONE.  Empty is unknown (a
 * thunk that is no HLO instruction, or whose dump is missing): not
 * communication, as nsysjax-align reads it. */
static int
get_flag(struct tsv_reader *r, size_t col, int *one)
{
	size_t n;
	const char *s = tsv_rawfield(r, col, &n);

	if (n == 0) {
		*one = 0;
		return 0;
	}
	if (n == 1 && (s[0] == '0' || s[0] == '1')) {
		*one = s[0] == '1';
		return 0;
	}
	if (n > 40)
		n = 40;
	return err_fail("%s:%ld: column %s: not 0 or 1: '%.*s'", tsv_name(r),
	    tsv_lineno(r), tsv_colname(r, col), (int)n, s);
}

int
warmup_load_communication(struct tsv_reader *r, int *yes)
{
	long col = tsv_col(r, "Communication");
	int rc, one = 0;

	/* A communication frame: any row is communication. */
	if (col < 0) {
		if ((rc = tsv_next(r)) < 0)
			return -1;
		*yes = rc == 1;
		return 0;
	}
	while (!one && (rc = tsv_next(r)) == 1)
		if (get_flag(r, (size_t)col, &one) != 0)
			return -1;
	if (rc < 0)
		return -1;
	*yes = one;
	return 0;
}

/* 1: FILE is a regular file whose Communication column says *YES. */
static int
prescan_file(const char *file, int *yes)
{
	struct tsv_reader *r;
	struct stat sb;
	FILE *fp;
	int rc = 0;

	if (strcmp(file, "-") == 0 || stat(file, &sb) != 0 ||
	    !S_ISREG(sb.st_mode) || (fp = fopen(file, "r")) == NULL)
		return 0;	/* the filter will say what is wrong */
	if ((r = tsv_ropen(fp, file)) == NULL)
		rc = -1;
	else if (tsv_col(r, "Communication") >= 0)
		rc = warmup_load_communication(r, yes) == 0 ? 1 : -1;
	tsv_rclose(r);
	fclose(fp);
	return rc;
}

int
warmup_prescan_communication(char *const *files, size_t n, int *yes)
{
	size_t i;
	int rc = 0, one = 0;

	for (i = 0; i < n; i++) {
		if ((rc = prescan_file(files[i], &one)) != 1)
			return rc;
		if (one)
			break;
	}
	*yes = one;
	return n > 0;
}

int
warmup_compiled(const struct warmup_facts *f, const char *p, size_t len)
{
	return len > 0 && strtab_find(&f->compiled, p, len) != STRTAB_NONE;
}

int64_t
warmup_skip(const struct warmup_facts *f, const char *p, size_t len, int comm)
{
	if (f->skip >= 0)
		return f->skip;
	return warmup_compiled(f, p, len) + (comm ? 1 : 0);
}

/* The class of execution EXEC given the compiled flag or a skip count. */
static enum warmup_class
classify(int compiled, int64_t skip, int64_t exec)
{
	if (skip >= 0)
		return exec < skip ? WARMUP_INIT : WARMUP_STEADY;
	if (exec < compiled)
		return WARMUP_INIT;
	return exec == compiled ? WARMUP_EDGE : WARMUP_STEADY;
}

enum warmup_class
warmup_classify(const struct warmup_facts *f, const char *p, size_t len,
    int64_t exec)
{
	return classify(warmup_compiled(f, p, len), f->skip, exec);
}

int
warmup_steady(enum warmup_class c, int comm)
{
	return c == WARMUP_STEADY || (c == WARMUP_EDGE && !comm);
}

int
warmup_fallback(size_t rows, size_t steady)
{
	return rows > 0 && steady == 0;
}

int
warmup_is_compile_frame(const struct tsv_reader *r)
{
	return tsv_col(r, "RangeId") >= 0 && tsv_col(r, "ProgramExecution") < 0;
}

/* ---- the filter ---- */

struct run {
	const struct warmup_facts *f;
	const struct warmup_rewrite *rw;	/* or NULL */
	struct tsv_writer *out;
	enum warmup_mode mode;
	struct warmup_stats *st;
	long pidcol, execcol, commcol;
	int comm;		/* WARMUP_COMM_*, INPUT until a 1 is seen */
	int seen_steady;	/* some row is steady: no fallback */
	char *last;		/* the last ProgramId looked up, */
	size_t lastlen, lastcap;
	int lastcompiled;	/* and whether it was compiled */
	/* The form of the last execution looked up (rows of one execution
	 * come together), and the executions made init by their form that
	 * would be steady: [0] STEADY, [1] EDGE (if no communication). */
	char *fkey, *kbuf;
	size_t fkeylen, fkeycap, kbufcap;
	int fdiff;
	struct strtab excl[2];
	FILE *spool;		/* undecided rows, or NULL */
	char *spoolbuf;		/* its stdio buffer: large, fewer syscalls */
	size_t nsteady, nedge;	/* classes of the rows in the spool */
	char *buf;		/* replay line */
	size_t cap;
};

/* Rows of one program come together: look the set up once per run. */
static int
compiled_cached(struct run *x, const char *p, size_t len)
{
	if (x->last && len == x->lastlen && memcmp(p, x->last, len) == 0)
		return x->lastcompiled;
	mem_grow(&x->last, &x->lastcap, len + 1, 1);
	memcpy(x->last, p, len);
	x->lastlen = len;
	x->lastcompiled = warmup_compiled(x->f, p, len);
	return x->lastcompiled;
}

/* Whether execution EXEC of P is in another form than P's steady one,
 * and if it would be steady otherwise (class C), count it.  The key is
 * built in kbuf and swapped with fkey when new: no allocation per row. */
static int
form_cached(struct run *x, const char *p, size_t len, int64_t exec,
    enum warmup_class c)
{
	size_t klen, t;
	char *tp;

	if (!x->f->forms)
		return 0;
	form_key(&x->kbuf, &x->kbufcap, p, len, exec, &klen);
	if (x->fkey != NULL && klen == x->fkeylen &&
	    memcmp(x->kbuf, x->fkey, klen) == 0)
		return x->fdiff;
	tp = x->fkey, x->fkey = x->kbuf, x->kbuf = tp;
	t = x->fkeycap, x->fkeycap = x->kbufcap, x->kbufcap = t;
	x->fkeylen = klen;
	x->fdiff = warmup_form_differs(x->f, p, len, exec);
	if (x->fdiff && c != WARMUP_INIT)
		strtab_intern(&x->excl[c == WARMUP_EDGE], x->fkey, klen, NULL);
	return x->fdiff;
}

static int
decided(const struct run *x)
{
	return x->comm != WARMUP_COMM_INPUT && x->seen_steady;
}

/* The current row of R as it is written: as read, or as x->rw makes
 * it. */
static int
row_text(struct run *x, struct tsv_reader *r, const char **line,
    size_t *len)
{
	if (x->rw == NULL) {
		*line = tsv_rawline(r, len);
		return 0;
	}
	return x->rw->line(x->rw->arg, r, line, len);
}

/* Write one row as the mode asks. */
static int
emit(struct run *x, const char *line, size_t len, int steady)
{
	if (steady)
		x->st->steady++;
	else
		x->st->init++;
	if (x->mode == WARMUP_OUT_STEADY && !steady)
		return 0;
	if (x->mode == WARMUP_OUT_INIT && steady)
		return 0;
	tsv_raw(x->out, line, len);
	if (x->mode == WARMUP_OUT_MARK)
		tsv_bool(x->out, steady);
	return tsv_eor(x->out);
}

#define SPOOL_BUF (1 << 20)

/* An unlinked temporary file in $TMPDIR: gone when closed, or on exit. */
static FILE *
spool_open(char *buf)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/nsysjax-warmup.XXXXXX",
	    dir) >= sizeof(path)) {
		err_fail("TMPDIR too long");
		return NULL;
	}
	if ((fd = mkstemp(path)) < 0) {
		err_fail("%s: cannot create temporary file: %s", path,
		    strerror(errno));
		return NULL;
	}
	unlink(path);
	if ((fp = fdopen(fd, "w+")) == NULL) {
		err_fail("temporary file: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(fp, buf, _IOFBF, SPOOL_BUF);
	return fp;
}

/* Keep a row of class C (its form differing: DIFF) for later: class
 * byte, raw line, LF. */
static int
spool_put(struct run *x, enum warmup_class c, int diff, const char *line,
    size_t len)
{
	if (x->spool == NULL) {
		if (x->spoolbuf == NULL)
			x->spoolbuf = mem_alloc(SPOOL_BUF);
		if ((x->spool = spool_open(x->spoolbuf)) == NULL)
			return -1;
	}
	putc('0' + (int)c + (diff ? 4 : 0), x->spool);
	fwrite(line, 1, len, x->spool);
	putc('\n', x->spool);
	if (ferror(x->spool))
		return err_fail("temporary file: write error: %s",
		    strerror(errno));
	x->st->spooled++;
	if (c == WARMUP_STEADY && !diff)
		x->nsteady++;
	else if (c == WARMUP_EDGE && !diff)
		x->nedge++;
	return 0;
}

/* Whether the spooled rows hold a steady one, now that comm is known. */
static int
spool_has_steady(const struct run *x)
{
	return x->nsteady > 0 || (x->comm == WARMUP_COMM_NO && x->nedge > 0);
}

/* Write the spooled rows in order, every one steady under FALLBACK. */
static int
spool_replay(struct run *x, int fallback)
{
	ssize_t n;
	int rc = 0;

	if (x->spool == NULL)
		return 0;
	if (fflush(x->spool) != 0 || fseek(x->spool, 0, SEEK_SET) != 0)
		rc = err_fail("temporary file: %s", strerror(errno));
	while (rc == 0 && (n = getline(&x->buf, &x->cap, x->spool)) > 0) {
		enum warmup_class c = (enum warmup_class)((x->buf[0] - '0') & 3);
		int diff = (x->buf[0] - '0') >> 2;

		rc = emit(x, x->buf + 1, (size_t)n - 2,
		    fallback || (!diff && warmup_steady(c, x->comm)));
	}
	if (rc == 0 && ferror(x->spool))
		rc = err_fail("temporary file: read error: %s", strerror(errno));
	fclose(x->spool);
	x->spool = NULL;
	x->nsteady = x->nedge = 0;
	return rc;
}

/* Whether this row's Communication field tells the profile has some. */
static int
see_comm(struct run *x, struct tsv_reader *r)
{
	int one;

	if (get_flag(r, (size_t)x->commcol, &one) != 0)
		return -1;
	if (one)
		x->comm = WARMUP_COMM_YES;
	return 0;
}

static int
row(struct run *x, struct tsv_reader *r)
{
	const char *p, *line;
	size_t plen, llen;
	enum warmup_class c;
	int64_t exec;
	int diff;

	if (tsv_get_i64(r, (size_t)x->execcol, &exec, 0) != 0)
		return -1;
	if (x->comm == WARMUP_COMM_INPUT && see_comm(x, r) != 0)
		return -1;
	p = tsv_rawfield(r, (size_t)x->pidcol, &plen);
	c = classify(x->f->skip >= 0 ? 0 : compiled_cached(x, p, plen),
	    x->f->skip, exec);
	diff = form_cached(x, p, plen, exec, c);
	if (row_text(x, r, &line, &llen) != 0)
		return -1;
	x->st->rows++;
	if (decided(x))
		return emit(x, line, llen, !diff && warmup_steady(c, x->comm));
	if (spool_put(x, c, diff, line, llen) != 0)
		return -1;
	if (x->comm != WARMUP_COMM_INPUT && spool_has_steady(x)) {
		x->seen_steady = 1;
		return spool_replay(x, 0);
	}
	return 0;
}

/* The end of input: communication never seen is none; then the fallback. */
static int
finish(struct run *x)
{
	int fallback = 0;

	if (x->comm == WARMUP_COMM_INPUT)
		x->comm = WARMUP_COMM_NO;
	if (!decided(x))
		fallback = warmup_fallback(x->st->rows, spool_has_steady(x));
	x->st->fallback = fallback;
	x->st->form_excluded = fallback ? 0 : x->excl[0].n +
	    (x->comm == WARMUP_COMM_NO ? x->excl[1].n : 0);
	return spool_replay(x, fallback);
}

static int
header(struct run *x, const struct tsv_reader *r)
{
	size_t i, n = tsv_ncols(r);
	const char **names = mem_calloc(n + 2, sizeof(*names));
	int rc;

	for (i = 0; i < n; i++)
		names[i] = tsv_colname(r, i);
	if (x->mode == WARMUP_OUT_MARK)
		names[n] = WARMUP_MARK_COLUMN;
	rc = tsv_header(x->out, names);
	free(names);
	return rc;
}

/* Find the columns and settle what is known before the first row. */
static int
setup(struct run *x, const struct tsv_reader *r)
{
	if (x->mode == WARMUP_OUT_MARK && tsv_col(r, WARMUP_MARK_COLUMN) >= 0)
		return err_fail("%s: column '%s' exists already", tsv_name(r),
		    WARMUP_MARK_COLUMN);
	if (warmup_is_compile_frame(r)) {
		x->st->compile_frame = 1;
		return 0;
	}
	if ((x->pidcol = tsv_require(r, "ProgramId")) < 0 ||
	    (x->execcol = tsv_require(r, "ProgramExecution")) < 0)
		return -1;
	x->comm = x->f->skip >= 0 ? WARMUP_COMM_NO : x->f->communication;
	if (x->comm == WARMUP_COMM_INPUT &&
	    (x->commcol = tsv_col(r, "Communication")) < 0)
		return err_fail("%s: missing column 'Communication' (whether "
		    "the profile has communication: else give --communication "
		    "or --communication-from)", tsv_name(r));
	return 0;
}

/* The compile frame: no executions, all of it initialisation. */
static int
compile_rows(struct run *x, struct filter *in)
{
	const char *line;
	size_t len;
	int rc;

	while ((rc = filter_next(in)) == 1) {
		if (row_text(x, filter_reader(in), &line, &len) != 0)
			return -1;
		x->st->rows++;
		if (emit(x, line, len, 0) != 0)
			return -1;
	}
	return rc;
}

int
warmup_run(struct filter *in, struct tsv_writer *out,
    const struct warmup_facts *f, enum warmup_mode mode,
    const struct warmup_rewrite *rw, struct warmup_stats *st)
{
	struct run x = { .f = f, .rw = rw, .out = out, .mode = mode,
	    .st = st };
	int rc;

	memset(st, 0, sizeof(*st));
	st->communication = -1;
	if (setup(&x, filter_reader(in)) != 0 ||
	    (rw && rw->start(rw->arg, filter_reader(in)) != 0) ||
	    header(&x, filter_reader(in)) != 0)
		return -1;
	if (st->compile_frame)
		return compile_rows(&x, in) < 0 ? -1 : 0;
	for (;;) {
		if ((rc = filter_next(in)) <= 0 ||
		    (rc = row(&x, filter_reader(in))) != 0)
			break;
	}
	if (rc == 0)
		rc = finish(&x);
	if (f->skip < 0)
		st->communication = x.comm == WARMUP_COMM_YES;
	if (x.spool)
		fclose(x.spool);
	free(x.spoolbuf);
	free(x.last);
	free(x.buf);
	free(x.fkey);
	free(x.kbuf);
	strtab_free(&x.excl[0]);
	strtab_free(&x.excl[1]);
	return rc < 0 ? -1 : 0;
}
