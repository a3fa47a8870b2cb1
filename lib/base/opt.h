/*
 * opt: the command-line prologue every tool shares: getopt_long with
 * --help and --version answered in one place, one message per bad option
 * (ours, not getopt's), and the parsers of numeric option arguments.
 *
 * A tool describes itself once:
 *
 *	static const struct opt_tool tool = { usage_line, help_text };
 *	static const struct option longopts[] = { ..., OPT_STD_LONG, { 0 } };
 *	while ((c = opt_next(argc, argv, ":f:hV", longopts, &tool)) != -1)
 *
 * and its switch handles only its own options.
 */
#ifndef NSYSJAX_OPT_H
#define NSYSJAX_OPT_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct opt_tool {
	const char *usage;	/* "usage: nsysjax-x [-h] ...", one line */
	const char *help;	/* the option list --help prints after it */
};

/* The long options every tool has; their short forms are -h and -V. */
#define OPT_STD_LONG \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }

/*
 * The next option of ARGV, as getopt_long(ARGC, ARGV, SHORTOPTS,
 * LONGOPTS); SHORTOPTS starts with ':' and holds "hV".  Answers -h
 * (usage line and T->help on stdout, exit 0) and -V ("PROG VERSION",
 * exit 0) itself, and ends the program with err_usage (exit 2) for an
 * unknown option or a missing argument.  On the first call it also calls
 * err_setprog(ARGV[0]).  Returns the option's character, or -1 at the
 * first operand (optind indexes it).
 */
int opt_next(int argc, char *argv[], const char *shortopts,
    const struct option *longopts, const struct opt_tool *t);

/* err_usage with T's usage line: "PROG: MESSAGE", the usage, exit 2. */
_Noreturn void opt_usage(const struct opt_tool *t, const char *fmt, ...)
    ERR_PRINTF(2, 3);

/*
 * ARG, the argument of option NAME, as a number in [LO, HI]; anything
 * else ends the program with opt_usage ("NAME 'ARG': not a number from LO
 * to HI").  num.h's syntax: plain decimals only.
 */
double opt_f64(const struct opt_tool *t, const char *name, const char *arg,
    double lo, double hi);

/* As opt_f64 for an integer in [LO, HI]. */
int64_t opt_i64(const struct opt_tool *t, const char *name, const char *arg,
    int64_t lo, int64_t hi);

/*
 * ARG, a list of names separated by commas ("ops,steps"), as a set of
 * bits: bit PARSE(name) for each name, where PARSE returns a name's index
 * (0 to 31) or -1 for a name it does not know.  Ends the program with
 * opt_usage for an unknown name ("unknown table 'x'") or a list without
 * any ("no table in ','"); NOUN names the kind of item ("table").
 * Returns the bits, never 0.
 */
unsigned opt_bits(const struct opt_tool *t, const char *noun, const char *arg,
    int (*parse)(const char *name));

/* The index of NAME in NAMES[0..N) (the names of a tool's tables or
 * kinds, by index), or -1: what opt_bits's PARSE returns. */
int opt_index(const char *name, const char *const *names, size_t n);

/*
 * Read the file PATH that an option names with READ(FP, PATH, ARG),
 * which returns 0, or nonzero with the message in err_msg().  Ends the
 * program with err_die ("PATH: " and the system's reason) when PATH cannot
 * be opened, with err_die_last() when READ fails.  The file is closed.
 */
void opt_read(const char *path, int (*read)(FILE *fp, const char *path,
    void *arg), void *arg);

#endif
