/* One worker process per profile (parts.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/tempfile.h"
#include "profile/extract.h"
#include "profile/parts.h"

unsigned
parts_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

static char *
join(const char *dir, const char *name)
{
	char *p = mem_alloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Write the text of S and a LF to DIR/NAME; errors are ignored, as the
 * exit status tells the parent anyway. */
static void
put_file(const char *dir, const char *name, const char *s)
{
	char *path = join(dir, name);
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

/* The worker: profile PR alone into DIR; never returns. */
static _Noreturn void
worker(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, const char *dir)
{
	struct extract *x = extract_new();
	struct extract_opts wo = *o;
	const struct err_notes *nn;
	size_t i;
	int rc;

	wo.names = NULL;
	wo.only = pr->only;
	wo.only_name = pr->name;
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
	_exit(rc == 0 ? 0 : 1);
}

/* Read DIR/NAME's lines into NOTES (or, ERROR set, the first line as
 * the err message); 0 when there is no such file. */
static int
get_file(const char *dir, const char *name, struct err_notes *notes,
    int error)
{
	char *path = join(dir, name), *line = NULL;
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
	templ = join(t, "nsysjax-extract.XXXXXX");
	d = tempfile_mkdtemp(templ);
	free(templ);
	if (d == NULL)
		return -1;
	p->tmp = mem_strdup(d);
	return 0;
}

/* What a worker that did not exit 0 reported. */
static int
failed(const struct parts *p, size_t k, const char *name, int status)
{
	if (WIFSIGNALED(status))
		return err_fail("profile %s: worker killed by signal %d", name,
		    WTERMSIG(status));
	if (!get_file(p->dirs[k], "error", NULL, 1))
		return err_fail("profile %s: worker exited with status %d",
		    name, WEXITSTATUS(status));
	return -1;
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
		p->dirs[k] = join(p->tmp, name);
		p->n = k + 1;
		if (mkdir(p->dirs[k], 0700) != 0)
			return err_fail("%s: cannot create: %s", p->dirs[k],
			    strerror(errno));
	}
	return 0;
}

/* The workers of a run: pid[k] while profile k runs, then status[k]. */
struct workers {
	pid_t *pid;
	int *status;
	size_t next;		/* profiles started */
	size_t running;
	size_t lo;		/* no profile before it runs */
	size_t first_failed;	/* the first profile that failed, or np */
};

static int
succeeded(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Wait for one worker to end.  Returns 0, or -1 with an err message. */
static int
reap(struct workers *w)
{
	pid_t pid;
	size_t k;
	int st;

	while ((pid = wait(&st)) < 0)
		if (errno != EINTR)
			return err_fail("waiting for workers: %s",
			    strerror(errno));
	/* Workers end roughly in order: the search starts at the oldest. */
	for (k = w->lo; k < w->next && w->pid[k] != pid; k++)
		;
	if (k == w->next)
		return 0;	/* not ours */
	tempfile_child_done(pid);
	w->status[k] = st;
	w->pid[k] = 0;
	w->running--;
	if (!succeeded(st) && k < w->first_failed)
		w->first_failed = k;
	while (w->lo < w->next && w->pid[w->lo] == 0)
		w->lo++;
	return 0;
}

/* Run the workers of profiles PR[0..NP), JOBS at once.  After a failure
 * only the profiles before it still matter: no later one starts. */
static int
run_workers(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, unsigned jobs,
    const struct parts *p, struct workers *w)
{
	int rc = 0;
	size_t k;

	w->first_failed = np;
	while (rc == 0 && (w->next < w->first_failed || w->running > 0)) {
		if (w->next < w->first_failed && w->running < jobs) {
			sigset_t old;

			fflush(NULL);
			tempfile_block(&old);
			if ((w->pid[w->next] = fork()) < 0) {
				rc = err_fail("cannot start a worker: %s",
				    strerror(errno));
			} else if (w->pid[w->next] == 0) {
				default_signals();
				tempfile_unblock(&old);
				worker(paths, o, &pr[w->next], p->dirs[w->next]);
			} else {
				tempfile_child(w->pid[w->next]);
				w->next++, w->running++;
			}
			tempfile_unblock(&old);
		} else {
			rc = reap(w);
		}
	}
	/* Stop and reap what runs still (after a failure to fork). */
	for (k = w->lo; k < w->next; k++)
		if (w->pid[k] > 0) {
			kill(w->pid[k], SIGTERM);
			while (waitpid(w->pid[k], &w->status[k], 0) < 0 &&
			    errno == EINTR)
				;
			tempfile_child_done(w->pid[k]);
		}
	return rc;
}

int
parts_extract(const char *const *paths, const struct extract_opts *o,
    const struct extract_profile *pr, size_t np, unsigned jobs,
    struct parts *p, struct err_notes *notes)
{
	struct extract_opts wo = *o;
	struct workers w;
	size_t k;
	int rc;

	memset(p, 0, sizeof(*p));
	memset(&w, 0, sizeof(w));
	if (wo.frames & (EXTRACT_THUNK | EXTRACT_COMMUNICATION))
		wo.frames |= EXTRACT_MODULE;
	if (wo.frames & EXTRACT_HLO)
		wo.frames |= EXTRACT_STACKFRAMES;
	p->frames = wo.frames;
	w.pid = mem_calloc(np + 1, sizeof(*w.pid));
	w.status = mem_calloc(np + 1, sizeof(*w.status));
	if ((rc = mktmp(p)) == 0 && (rc = make_dirs(p, np)) == 0)
		rc = run_workers(paths, &wo, pr, np, jobs, p, &w);
	/* The first failure in profile order, as one extraction reports. */
	for (k = 0; k < w.next && rc == 0; k++)
		if (!succeeded(w.status[k]))
			rc = failed(p, k, pr[k].name, w.status[k]);
	/* Every profile's warnings, then the frame builder's notes, as
	 * extract_load orders them. */
	for (k = 0; k < w.next && rc == 0; k++)
		get_file(p->dirs[k], "notes", notes, 0);
	for (k = 0; k < w.next && rc == 0; k++)
		get_file(p->dirs[k], "framenotes", notes, 0);
	free(w.pid);
	free(w.status);
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
