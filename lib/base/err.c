#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"

static const char *prog = "nsysjax";
/* Per thread: lib/prefetch reads archives in a second thread. */
static _Thread_local char msg[4096];
static _Thread_local int have_msg;

void
err_setprog(const char *argv0)
{
	const char *slash;

	/* A reader that stops early (| head) ends us quietly, as it ends
	 * every Unix filter, even when the parent ignored SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	if (argv0 == NULL || *argv0 == '\0')
		return;
	slash = strrchr(argv0, '/');
	prog = slash ? slash + 1 : argv0;
}

const char *
err_prog(void)
{
	return prog;
}

int
err_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	have_msg = 1;
	return -1;
}

/* msg = A SEP B, cut to fit: an over-long message is still useful. */
static void
join(const char *a, const char *sep, const char *b)
{
	size_t n = 0, k;

	k = strlen(a);
	if (k > sizeof(msg) - 1)
		k = sizeof(msg) - 1;
	memcpy(msg, a, k);
	n = k;
	if (n + strlen(sep) < sizeof(msg)) {
		memcpy(msg + n, sep, strlen(sep));
		n += strlen(sep);
	}
	k = strlen(b);
	if (k > sizeof(msg) - 1 - n)
		k = sizeof(msg) - 1 - n;
	memcpy(msg + n, b, k);
	msg[n + k] = '\0';
}

/* Prepend CONTEXT (printf FMT, AP) and SEP to the recorded message. */
static void
vprefix(const char *sep, const char *fmt, va_list ap)
{
	char old[sizeof(msg)], pre[sizeof(msg)];

	snprintf(old, sizeof(old), "%s", have_msg ? msg : "unknown error");
	vsnprintf(pre, sizeof(pre), fmt, ap);
	join(pre, sep, old);
	have_msg = 1;
}

int
err_prefix(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprefix(": ", fmt, ap);
	va_end(ap);
	return -1;
}

int
err_prefix_in(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprefix(":", fmt, ap);
	va_end(ap);
	return -1;
}

int
err_prefix_at(const char *fmt, ...)
{
	char name[sizeof(msg)], rest[sizeof(msg)];
	const char *end;
	va_list ap;
	int64_t line;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (have_msg && strncmp(msg, "line ", 5) == 0) {
		for (end = msg + 5; *end >= '0' && *end <= '9'; end++)
			;
		if (num_i64(msg + 5, (size_t)(end - (msg + 5)), &line) == 0 &&
		    strncmp(end, ": ", 2) == 0) {
			snprintf(rest, sizeof(rest), "%s", end + 2);
			return err_fail("%s:%lld: %s", name, (long long)line,
			    rest);
		}
	}
	return err_prefix("%s", name);
}

const char *
err_msg(void)
{
	return have_msg ? msg : "unknown error";
}

static void
vreport(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
err_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(1);
}

void
err_die_last(void)
{
	fprintf(stderr, "%s: %s\n", prog, err_msg());
	exit(1);
}

void
err_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

void
err_usage(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", usage);
	exit(2);
}

void
err_note(struct err_notes *notes, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Not mem.h's wrappers: mem reports through err, not the reverse. */
	if (notes->n == notes->cap) {
		size_t cap = notes->cap ? 2 * notes->cap : 8;
		char **v = realloc(notes->v, cap * sizeof(*v));

		if (v == NULL)
			err_die("out of memory");
		notes->v = v;
		notes->cap = cap;
	}
	if ((notes->v[notes->n] = strdup(buf)) == NULL)
		err_die("out of memory");
	notes->n++;
}

void
err_notes_print(const struct err_notes *notes)
{
	size_t i;

	for (i = 0; i < notes->n; i++)
		err_warn("%s", notes->v[i]);
}

void
err_notes_free(struct err_notes *notes)
{
	size_t i;

	for (i = 0; i < notes->n; i++)
		free(notes->v[i]);
	free(notes->v);
	memset(notes, 0, sizeof(*notes));
}
