/* The registry of temporary paths (tempfile.h). */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/tempfile.h"
#include "base/u64map.h"

enum kind { T_FILE, T_DIR, T_EMPTYDIR, T_CHILD };

struct entry {
	char *path;		/* T_FILE, T_DIR, T_EMPTYDIR */
	pid_t pid;		/* T_CHILD */
	pid_t owner;		/* the process that registered it */
	int kind;
};

/*
 * The registry.  The handler reads it; it changes only with the
 * handled signals blocked, so the handler never sees a half-made entry
 * or an array being moved.  A removed entry is taken out of the array
 * before its path is freed.
 */
static struct entry *reg;
static size_t nreg, capreg;
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

void
tempfile_block(sigset_t *old)
{
	sigset_t s;
	size_t i;

	sigemptyset(&s);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&s, handled[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

void
tempfile_unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

#ifdef SYS_getdents64
/* The record of the getdents64 system call (glibc has no wrapper
 * before 2.30; the layout is the kernel's). */
struct dirent64_k {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Remove everything in the directory open at FD, DEPTH levels deep at
 * most; async-signal-safe (no opendir, which allocates). */
static void
empty_dir(int fd, int depth)
{
	char buf[4096];
	long n, i;
	int removed;

	/* Pass after pass from the top (removing entries while reading
	 * moves the offsets), until a pass removes nothing. */
	do {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < n;) {
				struct dirent64_k *d = (void *)(buf + i);
				int sub;

				i += d->d_reclen;
				if (strcmp(d->d_name, ".") == 0 ||
				    strcmp(d->d_name, "..") == 0)
					continue;
				if (unlinkat(fd, d->d_name, 0) == 0) {
					removed++;
					continue;
				}
				if (depth == 0 || (sub = openat(fd, d->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) < 0)
					continue;
				empty_dir(sub, depth - 1);
				close(sub);
				if (unlinkat(fd, d->d_name, AT_REMOVEDIR) == 0)
					removed++;
			}
	} while (removed > 0);
}
#endif

static void
remove_tree(const char *path)
{
#ifdef SYS_getdents64
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

	if (fd >= 0) {
		empty_dir(fd, 8);
		close(fd);
	}
#endif
	rmdir(path);
}

/* Stop and reap the registered children, then remove the paths, newest
 * first (a directory after what is in it).  Only this process's. */
static void
cleanup(void)
{
	pid_t self = getpid();
	size_t i;

	for (i = 0; i < nreg; i++)
		if (reg[i].owner == self && reg[i].kind == T_CHILD) {
			kill(reg[i].pid, SIGTERM);
			kill(reg[i].pid, SIGCONT);
		}
	for (i = 0; i < nreg; i++)
		if (reg[i].owner == self && reg[i].kind == T_CHILD)
			while (waitpid(reg[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
	for (i = nreg; i-- > 0;) {
		if (reg[i].owner != self)
			continue;
		if (reg[i].kind == T_FILE)
			unlink(reg[i].path);
		else if (reg[i].kind == T_DIR)
			remove_tree(reg[i].path);
		else if (reg[i].kind == T_EMPTYDIR)
			rmdir(reg[i].path);
	}
}

static void
on_signal(int sig)
{
	struct sigaction sa;
	int e = errno;

	cleanup();
	nreg = 0;	/* once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	errno = e;
	raise(sig);
}

static void
at_exit(void)
{
	sigset_t old;

	tempfile_block(&old);
	cleanup();
	nreg = 0;
	tempfile_unblock(&old);
}

/* Install the handler (for the signals not ignored) and the atexit
 * hook, once. */
static void
install(void)
{
	static int done;
	struct sigaction sa, cur;
	size_t i;

	if (done++)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&sa.sa_mask, handled[i]);
	for (i = 0; i < NHANDLED; i++)
		if (sigaction(handled[i], NULL, &cur) == 0 &&
		    cur.sa_handler != SIG_IGN)
			sigaction(handled[i], &sa, NULL);
	atexit(at_exit);
}

static void
add(int kind, char *path, pid_t pid)
{
	sigset_t old;

	install();
	tempfile_block(&old);
	mem_grow(&reg, &capreg, nreg + 1, sizeof(*reg));
	reg[nreg].path = path;
	reg[nreg].pid = pid;
	reg[nreg].owner = getpid();
	reg[nreg].kind = kind;
	nreg++;
	tempfile_unblock(&old);
}

/* Take out the entry of this process matching PATH (or PID); returns
 * its path for the caller to free, or NULL. */
static char *
take(const char *path, pid_t pid)
{
	pid_t self = getpid();
	sigset_t old;
	char *p = NULL;
	size_t i;

	tempfile_block(&old);
	for (i = nreg; i-- > 0;) {
		if (reg[i].owner != self || (path ? reg[i].path == NULL ||
		    strcmp(reg[i].path, path) != 0 : reg[i].kind != T_CHILD ||
		    reg[i].pid != pid))
			continue;
		p = reg[i].path;
		memmove(reg + i, reg + i + 1, (nreg - i - 1) * sizeof(*reg));
		nreg--;
		break;
	}
	tempfile_unblock(&old);
	return p;
}

/*
 * Create P, whose six characters before its last SLEN are X's, with
 * those X's made random letters and digits, as mkstemps does, but with
 * open(O_CREAT | O_EXCL, 0666): the kernel applies the umask itself.
 * (mkstemps creates mode 0600, and reading the umask to widen that
 * means setting it, umask(2): in a process with threads, a file another
 * thread created in between got mode 0666.)  O_EXCL: no planted file or
 * symlink is followed; a name taken is tried again, up to TRIES times.
 * The fd, or -1 with errno.
 */
static int
create_excl(char *p, size_t slen)
{
	enum { TRIES = 1000 };
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64_t seq;
	char *x = p + strlen(p) - slen - 6;
	struct timespec ts;
	uint64_t r;
	int i, t, fd;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (t = 0; t < TRIES; t++) {
		r = u64map_mix((uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
		    (uint64_t)getpid() << 40 ^ u64map_mix(
		    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)));
		for (i = 0; i < 6; i++, r /= sizeof(set) - 1)
			x[i] = set[r % (sizeof(set) - 1)];
		if ((fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0666)) >= 0 ||
		    errno != EEXIST)
			return fd;
	}
	return -1;
}

int
tempfile_create(const char *target, const char *suffix, const char **path)
{
	const char *base = strrchr(target, '/');
	size_t dirlen = base ? (size_t)(base - target) + 1 : 0;
	size_t slen = suffix ? strlen(suffix) : 0;
	char *p = mem_alloc(strlen(target) + slen + 9);
	int fd;

	sprintf(p, "%.*s.%s.XXXXXX%s", (int)dirlen, target, target + dirlen,
	    suffix ? suffix : "");
	install();
	/* Registered before it exists, so that no signal can leave it. */
	add(T_FILE, p, 0);
	if ((fd = create_excl(p, slen)) < 0) {
		int e = errno;

		free(take(p, 0));
		err_fail("%s: cannot create: %s", target, strerror(e));
		errno = e;
		return -1;
	}
	*path = p;
	return fd;
}

int
tempfile_commit(const char *path, const char *target)
{
	char *p;
	int rc = 0;

	if (rename(path, target) != 0) {
		rc = err_fail("%s: cannot rename: %s", target, strerror(errno));
		unlink(path);
	}
	p = take(path, 0);
	free(p);
	return rc;
}

/* Removed while still registered, then taken out: a signal during a
 * directory's removal (a tree of frames takes a while) has the handler
 * finish it; taken out first, the tree was left half removed (seen in
 * t76's signal checks under load). */
void
tempfile_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		remove_tree(path);
	else
		unlink(path);
	free(take(path, 0));
}

const char *
tempfile_mkdtemp(const char *template)
{
	char *p = mem_strdup(template);

	add(T_DIR, p, 0);
	if (mkdtemp(p) == NULL) {
		err_fail("%s: cannot create a temporary directory: %s",
		    template, strerror(errno));
		free(take(p, 0));
		return NULL;
	}
	return p;
}

void
tempfile_made_dir(const char *dir)
{
	add(T_EMPTYDIR, mem_strdup(dir), 0);
}

void
tempfile_child(pid_t pid)
{
	add(T_CHILD, NULL, pid);
}

void
tempfile_child_done(pid_t pid)
{
	take(NULL, pid);
}
