/* One worker process per profile (parts.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/sort.h"
#include "base/strtab.h"
#include "base/tempfile.h"
#include "base/u64map.h"
#include "formats/archive.h"
#include "profile/dumpcache.h"
#include "profile/extract.h"
#include "profile/input.h"
#include "profile/nvtx.h"
#include "profile/parts.h"
#include "profile/trace.h"

/* Write the text of S and a LF to DIR/NAME; errors are ignored, as the
 * exit status tells the parent anyway. */
static void
put_file(const char *dir, const char *name, const char *s)
{
	char *path = mem_path(dir, name);
	FILE *fp = fopen(path, "a");

	if (fp) {
		fputs(s, fp);
		fputc('\n', fp);
		fclose(fp);
	}
	free(path);
}

/* ---- signals ----
 *
 * The parts directory and the workers are registered with base/tempfile:
 * on SIGINT, SIGTERM or SIGHUP its one handler stops the workers, waits
 * for them, then removes the parts, and the program ends by the signal.
 * The signals are blocked around fork, so that none runs a handler in a
 * child that has not set its own dispositions yet.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* In a new worker: the default dispositions (the parent cleans up). */
static void
default_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

/*
 * What the workers share with the parent and with each other (mmap): the
 * order they take the profiles in and the next one no worker has taken,
 * each profile's state and worker, and the first profile that failed,
 * after which no profile starts (only the profiles before it still
 * matter: the error reported is the first in profile order, as one
 * extraction's).
 */
enum { PROFILE_NOT_RUN, PROFILE_DONE, PROFILE_FAILED };

struct shared_profile {
	unsigned char state;	/* PROFILE_* */
	size_t worker;		/* the worker that took it */
};

struct shared {
	size_t first_failed;	/* np while none failed */
	const size_t *order;	/* the profiles in the order taken (the
				 * parent's, inherited) */
	size_t next;		/* the next of ORDER to take */
	struct shared_profile p[];
};

/* The next profile for worker W to extract (NP: none left), taken by
 * whichever worker is free first. */
static size_t
take(struct shared *sh, size_t np, size_t w)
{
	size_t i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED), k;

	if (i >= np)
		return np;
	k = sh->order[i];
	sh->p[k].worker = w;
	return k;
}

/* Whether profile K comes after one that failed (and need not run). */
static int
past_failure(struct shared *sh, size_t k)
{
	return k > __atomic_load_n(&sh->first_failed, __ATOMIC_RELAXED);
}

/* Profile K failed: the first failure becomes K if K is before it. */
static void
set_failed(struct shared *sh, size_t k)
{
	size_t f = __atomic_load_n(&sh->first_failed, __ATOMIC_RELAXED);

	while (k < f && !__atomic_compare_exchange_n(&sh->first_failed, &f, k,
	    0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Profile PR (INDEX among the run's) alone into DIR, its members read
 * ahead in AHEAD (or NULL):
 * 0, or -1 with DIR/error written. */
static int
one_profile(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t index, const char *dir,
    struct extract_ahead *ahead, struct extract_seen *seen_rows,
    struct dumpcache *dumps)
{
	struct extract *x = extract_new();
	struct extract_opts wo = *o;
	const struct err_notes *nn;
	size_t i;
	int rc;

	wo.names = NULL;
	wo.only = pr->only;
	wo.only_name = pr->name;
	wo.only_index = index;
	wo.ahead = ahead;
	wo.seen_rows = seen_rows;
	wo.dumps = dumps;
	rc = extract_load(x, paths + pr->input, 1, &wo);
	nn = extract_notes(x);
	for (i = 0; i < nn->n; i++)
		put_file(dir, i < extract_nwarnings(x) ? "notes" : "framenotes",
		    nn->v[i]);
	if (rc == 0)
		rc = extract_write_dir(x, dir);
	if (rc == 0 && (wo.frames & EXTRACT_HEAP))
		rc = extract_write_heapsums(x, dir);
	if (rc != 0)
		put_file(dir, "error", err_msg());
	extract_free(x);
	return rc;
}

/* The rows part K holds (extract_seen_save), in DIR/rowkeys for the
 * other workers; none when it cannot be written (they build them). */
static void
save_rows(const char *dir, const struct extract_seen *seen, size_t k)
{
	char *path = mem_path(dir, "rowkeys");
	FILE *fp = fopen(path, "w");
	int rc;

	if (fp != NULL) {
		rc = extract_seen_save(seen, k, fp);
		if (fclose(fp) != 0 || rc != 0)
			(void)unlink(path);
	}
	free(path);
}

/*
 * Before part K: the rows of the parts below K that other workers have
 * finished (their rowkeys), which part K then leaves out as if this
 * worker had extracted them (on the shared run, the worker that took
 * the dear profile built the shared step module's rows again for its
 * second one: 60 ms, the end of the extraction).  LOADED[j]: part j's
 * rows are in SEEN (this worker's own parts are); parts below *LO all
 * are, so each call looks only at parts still being extracted.
 */
static void
load_rows(const struct parts *p, struct shared *sh, size_t k,
    struct extract_seen *seen, unsigned char *loaded, size_t *lo)
{
	size_t j;

	for (j = *lo; j < k; j++) {
		char *path;
		FILE *fp;

		if (loaded[j] || __atomic_load_n(&sh->p[j].state,
		    __ATOMIC_ACQUIRE) != PROFILE_DONE)
			continue;
		loaded[j] = 1;
		path = mem_path(p->dirs[j], "rowkeys");
		if ((fp = fopen(path, "r")) != NULL) {
			(void)extract_seen_load(seen, j, fp);
			fclose(fp);
		}
		free(path);
	}
	while (*lo < k && loaded[*lo])
		(*lo)++;
}

/* The read-ahead of profile PR (extract_ahead_start), as one_profile
 * will extract it. */
static struct extract_ahead *
ahead_of(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, struct dumpcache *dumps)
{
	struct extract_opts wo = *o;

	wo.names = NULL;
	wo.dumps = dumps;	/* not decompressed again */
	wo.only = pr->only;
	wo.only_name = pr->name;
	return extract_ahead_start(paths[pr->input], &wo);
}

/*
 * Worker W of JOBS: the profiles of PR[0..NP) it takes (take: the next
 * one when it is free, the dearest first, so that no worker is left
 * with a dear profile at the end: on the shared run, one profile has a
 * step module of its own to decode, and its worker ended 180 ms after
 * the other when every worker had every JOBS-th profile), one after the
 * other in this one process, each into its own directory, and with fewer
 * workers than cores the next one's members are read and decompressed
 * in a thread meanwhile (extract_ahead), as -j 0 overlaps them; a
 * process per profile paid the page faults of a fresh heap each time,
 * and read nothing ahead.
 * Each profile is extracted alone and freed before the next starts, so
 * memory stays that of one profile (and the next one's members) and the
 * HLO dumps of DUMPS (dumpcache.h: those the parent decoded before
 * forking, shared with it until written, and the last part's).  A
 * profile after one that failed (here or elsewhere) is not extracted;
 * those before it still are, so that the error reported is the first in
 * profile order.  Never returns.
 */
static _Noreturn void
worker(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, size_t w, size_t jobs,
    const struct parts *p, struct shared *sh, struct dumpcache *dumps)
{
	struct extract_ahead *cur, *next = NULL;
	struct extract_seen seen_rows;
	unsigned char *loaded = mem_calloc(np + 1, 1);
	size_t k, after = np, lo = 0;
	int ahead = jobs < pool_cores(), failed = 0;

	/* The hlo rows of the lower parts this worker or (load_rows) a
	 * finished other one extracted, left out of higher ones
	 * (extract_opts.seen_rows): decoding each row's stacks again in
	 * every process was a tenth of the workers' CPU. */
	memset(&seen_rows, 0, sizeof(seen_rows));

	for (k = take(sh, np, w); k < np;
	    k = ahead ? after : take(sh, np, w)) {
		cur = next;
		next = NULL;
		/* Read ahead only onto a core no worker uses: with a
		 * worker per core it would win no time and hold a second
		 * profile's members (memory is one profile's, as before).
		 * The profile read ahead is taken now. */
		if (ahead) {
			after = take(sh, np, w);
			if (after < np && !past_failure(sh, after))
				next = ahead_of(paths, o, &pr[after], dumps);
		}
		if (past_failure(sh, k)) {
			extract_ahead_free(cur);
			continue;
		}
		seen_rows.cur = k;
		if (jobs > 1)
			load_rows(p, sh, k, &seen_rows, loaded, &lo);
		loaded[k] = 1;
		if (one_profile(paths, o, &pr[k], k, p->dirs[k], cur,
		    &seen_rows, dumps) == 0) {
			if (jobs > 1)
				save_rows(p->dirs[k], &seen_rows, k);
			__atomic_store_n(&sh->p[k].state, PROFILE_DONE,
			    __ATOMIC_RELEASE);
		} else {
			sh->p[k].state = PROFILE_FAILED;
			set_failed(sh, k);
			failed = 1;
		}
		extract_ahead_free(cur);
	}
	extract_ahead_free(next);
	extract_seen_free(&seen_rows);
	free(loaded);
	/* DUMPS is left to _exit: freeing what the parent decoded would
	 * copy its pages into this process first. */
	_exit(failed);
}

/* Read DIR/NAME's lines into NOTES (or, ERROR set, the first line as
 * the err message); 0 when there is no such file. */
static int
get_file(const char *dir, const char *name, struct err_notes *notes,
    int error)
{
	char *path = mem_path(dir, name), *line = NULL;
	FILE *fp = fopen(path, "r");
	size_t cap = 0;
	ssize_t len;
	int found = fp != NULL;

	while (fp && (len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (error) {
			err_fail("%s", line);
			break;
		}
		err_note(notes, "%s", line);
	}
	if (fp)
		fclose(fp);
	free(line);
	free(path);
	return found;
}

/* The parts' directory, registered (base/tempfile.h): removed with
 * what is in it on a signal or an exit that comes before parts_remove. */
static int
mktmp(struct parts *p)
{
	const char *t = getenv("TMPDIR"), *d;
	char *templ;

	if (t == NULL || *t == '\0')
		t = "/tmp";
	templ = mem_path(t, "nsysjax-extract.XXXXXX");
	d = tempfile_mkdtemp(templ);
	free(templ);
	if (d == NULL)
		return -1;
	p->tmp = mem_strdup(d);
	return 0;
}

/* Why profile K (state STATE) is not done: its DIR/error, or the end of
 * its worker (STATUS). */
static int
failed(const struct parts *p, size_t k, const char *name, int state,
    int status)
{
	if (state == PROFILE_FAILED && get_file(p->dirs[k], "error", NULL, 1))
		return -1;
	if (WIFSIGNALED(status))
		return err_fail("profile %s: worker killed by signal %d", name,
		    WTERMSIG(status));
	return err_fail("profile %s: worker exited with status %d", name,
	    WEXITSTATUS(status));
}

/* P's directory part-K for each of NP profiles. */
static int
make_dirs(struct parts *p, size_t np)
{
	char name[32];
	size_t k;

	p->dirs = mem_calloc(np + 1, sizeof(*p->dirs));
	for (k = 0; k < np; k++) {
		snprintf(name, sizeof(name), "part-%zu", k);
		p->dirs[k] = mem_path(p->tmp, name);
		p->n = k + 1;
		if (mkdir(p->dirs[k], 0700) != 0)
			return err_fail("%s: cannot create: %s", p->dirs[k],
			    strerror(errno));
	}
	return 0;
}

/* Wait for the workers PID[0..N) (0: ended), their ends in STATUS. */
static int
reap(pid_t *pid, int *status, size_t n)
{
	size_t left = 0, k;
	pid_t got;
	int st;

	for (k = 0; k < n; k++)
		left += pid[k] > 0;
	while (left > 0) {
		if ((got = wait(&st)) < 0) {
			if (errno == EINTR)
				continue;
			return err_fail("waiting for workers: %s",
			    strerror(errno));
		}
		for (k = 0; k < n && pid[k] != got; k++)
			;
		if (k == n)
			continue;	/* not ours */
		tempfile_child_done(got);
		status[k] = st;
		pid[k] = 0;
		left--;
	}
	return 0;
}

/* Start NW workers over profiles PR[0..NP) and wait for them; after a
 * failure to start one, stop those started. */
static int
run_workers(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, size_t nw,
    const struct parts *p, struct shared *sh, struct dumpcache *dumps,
    pid_t *pid, int *status)
{
	int rc = 0;
	size_t k;

	for (k = 0; k < nw && rc == 0; k++) {
		sigset_t old;

		fflush(NULL);
		tempfile_block(&old);
		if ((pid[k] = fork()) < 0) {
			pid[k] = 0;
			rc = err_fail("cannot start a worker: %s",
			    strerror(errno));
		} else if (pid[k] == 0) {
			default_signals();
			tempfile_unblock(&old);
			worker(paths, o, pr, np, k, nw, p, sh, dumps);
		} else {
			tempfile_child(pid[k]);
		}
		tempfile_unblock(&old);
	}
	if (rc != 0)
		for (k = 0; k < nw; k++)
			if (pid[k] > 0)
				kill(pid[k], SIGTERM);
	if (reap(pid, status, nw) != 0 && rc == 0)
		rc = -1;
	return rc;
}

/*
 * The HLO dumps the workers start with (dumpcache.h): planned over the
 * inputs of PR[0..NP), and those that two profiles or more hold decoded
 * here, one thread per core, before the workers are forked: each worker
 * would decode them again (on the shared 4-process run, the step module
 * and the init module in both workers: a tenth of their CPU), and one
 * worker would decode them one after the other.  On one core they are
 * kept as the worker meets them, as -j 0 does.
 */
static struct dumpcache *
shared_dumps(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np)
{
	struct dumpcache *c = dumpcache_new();
	size_t k, n = 0;

	if (!(o->frames & ~EXTRACT_NVTX))
		return c;	/* no frame of an archive: no dump read */
	for (k = 0; k < np; k++)
		if (pr[k].input + 1 > n)
			n = pr[k].input + 1;
	dumpcache_plan(c, paths, n, o->dumpdir);
	dumpcache_preload(c, 0, (o->frames & EXTRACT_HEAP) != 0);
	return c;
}

/* Profiles by their own dumps' bytes, larger first (dumpcache.h). */
static int
cmp_cost(const void *a, const void *b, const void *ctx)
{
	const uint64_t *cost = ctx;
	uint64_t x = cost[*(const size_t *)a], y = cost[*(const size_t *)b];

	return x > y ? -1 : x < y;
}

/*
 * The order the workers take the profiles PR[0..NP) in (a new array):
 * the dearest first, by the bytes of the dumps its input decodes for
 * itself (those DUMPS's plan leaves out: dumpcache_own_bytes), ties in
 * profile order.  Longest first is the classic rule for jobs on parallel
 * machines (Graham 1969, "Bounds on multiprocessing timing anomalies":
 * within 4/3 of the best end); a dear profile met last would leave the
 * other workers idle meanwhile.  With one worker (NW) there is nothing
 * to balance: profile order, in which a part leaves out every hlo row an
 * earlier one holds (struct extract_seen; out of order, some twice).
 */
static size_t *
dearest_first(const struct extract_profile *pr, size_t np, size_t nw,
    const struct dumpcache *dumps)
{
	size_t *order = mem_calloc(np + 1, sizeof(*order)), k;
	uint64_t *cost = mem_calloc(np + 1, sizeof(*cost));

	for (k = 0; k < np; k++) {
		order[k] = k;
		cost[k] = dumpcache_own_bytes(dumps, pr[k].input);
	}
	if (nw > 1)
		sort_stable(order, np, sizeof(*order), cmp_cost, cost);
	free(cost);
	return order;
}

int
parts_extract(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, unsigned jobs,
    struct parts *p, struct err_notes *notes)
{
	struct extract_opts wo = *o;
	struct shared *sh = MAP_FAILED;
	struct dumpcache *dumps = NULL;
	size_t k, nw = jobs < np ? jobs : np, shsize, *order = NULL;
	pid_t *pid;
	int *status, rc;

	memset(p, 0, sizeof(*p));
	if (nw == 0)
		nw = 1;
	if (wo.frames & (EXTRACT_THUNK | EXTRACT_COMMUNICATION))
		wo.frames |= EXTRACT_MODULE;
	if (wo.frames & EXTRACT_HLO)
		wo.frames |= EXTRACT_STACKFRAMES;
	wo.ahead = NULL;
	p->frames = wo.frames;
	pid = mem_calloc(nw + 1, sizeof(*pid));
	status = mem_calloc(nw + 1, sizeof(*status));
	shsize = sizeof(*sh) + (np + 1) * sizeof(sh->p[0]);
	if ((rc = mktmp(p)) == 0 && (rc = make_dirs(p, np)) == 0) {
		sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED)
			rc = err_fail("cannot map memory for the workers: %s",
			    strerror(errno));
	}
	if (rc == 0) {
		sh->first_failed = np;
		dumps = shared_dumps(paths, &wo, pr, np);
		order = dearest_first(pr, np, nw, dumps);
		sh->order = order;
		rc = run_workers(paths, &wo, pr, np, nw, p, sh, dumps, pid,
		    status);
	}
	/* The first failure in profile order, as one extraction reports. */
	for (k = 0; k < np && rc == 0; k++)
		if (sh->p[k].state != PROFILE_DONE)
			rc = failed(p, k, pr[k].name, sh->p[k].state,
			    status[sh->p[k].worker]);
	/* Every profile's warnings, then the frame builder's notes, as
	 * extract_load orders them. */
	for (k = 0; k < np && rc == 0; k++)
		get_file(p->dirs[k], "notes", notes, 0);
	for (k = 0; k < np && rc == 0; k++)
		get_file(p->dirs[k], "framenotes", notes, 0);
	if (sh != MAP_FAILED)
		munmap(sh, shsize);
	dumpcache_free(dumps);
	free(order);
	free(pid);
	free(status);
	if (rc != 0)
		parts_remove(p);
	return rc;
}

void
parts_remove(struct parts *p)
{
	size_t k;

	if (p->tmp)
		tempfile_remove(p->tmp);	/* the parts with it */
	for (k = 0; k < p->n; k++)
		free(p->dirs[k]);
	free(p->dirs);
	free(p->tmp);
	memset(p, 0, sizeof(*p));
}

/* Add the devices of profile P's launcher threads to DEV (device ->
 * the index K of the profile that has it): 1 when another profile had
 * one of them, 0 when not, -1 when its thread table cannot be read. */
static int
profile_devices(const struct input_profile *p, size_t k, struct u64map *dev)
{
	struct threads t;
	uint8_t *data;
	size_t len, i, j;
	int32_t id[4];
	int shared = 0;

	if (p->kind != INPUT_NSYSJAX || p->threads == NULL)
		return 0;
	if (archive_read_plain(p->ar, p->threads, &data, &len) != 0)
		return -1;
	memset(&t, 0, sizeof(t));
	if (threads_read_parquet(data, len, &t) != 0)
		shared = -1;
	for (i = 0; shared == 0 && i < t.n; i++) {
		if (t.t[i].name == NULL ||
		    nvtx_parse_launcher(t.t[i].name, id) != 0)
			continue;
		j = u64map_get(dev, (uint64_t)(uint32_t)id[0]);
		if (j == U64MAP_NONE)
			u64map_add(dev, (uint64_t)(uint32_t)id[0], k);
		else if (j != k)
			shared = 1;
	}
	threads_free(&t);
	free(data);
	return shared;
}

int
parts_devices_shared(const char *const *paths, size_t n, const char *dumpdir)
{
	struct u64map dev;
	size_t i, j, k = 0;
	int shared = 0;

	memset(&dev, 0, sizeof(dev));
	for (i = 0; i < n && shared == 0; i++) {
		struct input_set in;

		memset(&in, 0, sizeof(in));
		if (input_open(&paths[i], 1, dumpdir, &in) != 0)
			shared = -1;
		for (j = 0; shared == 0 && j < in.n; j++)
			shared = profile_devices(&in.p[j], k++, &dev);
		input_close(&in);
	}
	u64map_free(&dev);
	return shared == 1;
}
