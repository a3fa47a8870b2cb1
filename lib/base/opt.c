#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "base/opt.h"

#ifndef NSYSJAX_VERSION
#define NSYSJAX_VERSION "unknown"	/* the Makefile's VERSION */
#endif

static _Noreturn void
help(const struct opt_tool *t)
{
	if (printf("%s\n\n%s", t->usage, t->help) < 0 || fflush(stdout) != 0)
		err_die("<stdout>: write error:");
	exit(0);
}

static _Noreturn void
version(void)
{
	if (printf("%s %s\n", err_prog(), NSYSJAX_VERSION) < 0 ||
	    fflush(stdout) != 0)
		err_die("<stdout>: write error:");
	exit(0);
}

/*
 * The option getopt_long just refused, as the user wrote it.  Inside a
 * cluster ("-zk") optind has not advanced, so argv[optind - 1] is another
 * word (the program's path): a short option is named by optopt.  A long
 * option ("--nope", "--quiet=x", "--out" without its argument) has ended
 * its word: getopt_long sets optopt to 0 for an unknown one and to the
 * option's value for one it knows (perhaps abbreviated), and that word
 * names it.
 */
static const char *
bad_option(char *argv[], const struct option *longopts)
{
	static char buf[256];
	const char *w = argv[optind - 1];
	size_t n, i;

	if (strncmp(w, "--", 2) == 0 && w[2] != '\0') {
		n = strcspn(w + 2, "=");
		if (optopt == 0)
			return w;
		for (i = 0; longopts && longopts[i].name; i++)
			if (longopts[i].val == optopt &&
			    strncmp(longopts[i].name, w + 2, n) == 0)
				return w;
	}
	if (optopt == 0)
		return w;
	snprintf(buf, sizeof(buf), "-%c", optopt);
	return buf;
}

int
opt_next(int argc, char *argv[], const char *shortopts,
    const struct option *longopts, const struct opt_tool *t)
{
	static int started;
	int c;

	if (!started++) {
		err_setprog(argv[0]);
		opterr = 0;	/* one message per problem: ours */
	}
	switch ((c = getopt_long(argc, argv, shortopts, longopts, NULL))) {
	case 'h':
		help(t);
	case 'V':
		version();
	case ':':
		opt_usage(t, "option '%s' needs an argument",
		    bad_option(argv, longopts));
	case '?':
		opt_usage(t, "unknown option '%s'", bad_option(argv, longopts));
	default:
		return c;
	}
}

void
opt_usage(const struct opt_tool *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_usage(t->usage, "%s", msg);
}

double
opt_f64(const struct opt_tool *t, const char *name, const char *arg,
    double lo, double hi)
{
	double v;

	if (num_f64(arg, strlen(arg), &v) != 0 || !(v >= lo && v <= hi))
		opt_usage(t, "%s '%s': not a number from %g to %g", name, arg,
		    lo, hi);
	return v;
}

int64_t
opt_i64(const struct opt_tool *t, const char *name, const char *arg,
    int64_t lo, int64_t hi)
{
	int64_t v;

	if (num_i64(arg, strlen(arg), &v) == 0 && v >= lo && v <= hi)
		return v;
	if (hi == INT64_MAX)
		opt_usage(t, "%s '%s': not an integer >= %" PRId64, name, arg,
		    lo);
	opt_usage(t, "%s '%s': not an integer from %" PRId64 " to %" PRId64,
	    name, arg, lo, hi);
	return v;
}

unsigned
opt_bits(const struct opt_tool *t, const char *noun, const char *arg,
    int (*parse)(const char *name))
{
	char *list = mem_strdup(arg), *p, *save = NULL;
	unsigned bits = 0;
	int b;

	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if ((b = parse(p)) < 0)
			opt_usage(t, "unknown %s '%s'", noun, p);
		bits |= 1u << b;
	}
	free(list);
	if (bits == 0)
		opt_usage(t, "no %s in '%s'", noun, arg);
	return bits;
}

int
opt_index(const char *name, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

void
opt_read(const char *path, int (*read)(FILE *fp, const char *path,
    void *arg), void *arg)
{
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		err_die("%s:", path);
	if (read(fp, path, arg) != 0)
		err_die_last();
	fclose(fp);
}
