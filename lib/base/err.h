/*
 * err: the one error vocabulary of nsysjax.
 *
 * Library code never prints and never exits on bad input.  It records one
 * message with err_fail() and returns -1 (or NULL); each caller that knows
 * more context (the input, the archive member, the line) prepends it with
 * err_prefix() and returns -1 again.  Only cmd/ code prints, with err_die()
 * (exit 1), err_usage() (exit 2) or err_warn(), each line prefixed with the
 * program name:
 *
 *	nsysjax-extract: run.zip:nvtx_gpu_proj_trace/trace.parquet: truncated footer
 *
 * Memory exhaustion is the exception: the mem_* wrappers in mem.h report it
 * and exit 1 at once, since no caller could do better.
 */
#ifndef NSYSJAX_ERR_H
#define NSYSJAX_ERR_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define ERR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ERR_PRINTF(a, b)
#endif

/*
 * Set the name used to prefix every message (argv[0]'s last component).
 * Called first by every tool, it also restores the default action of
 * SIGPIPE: a reader that closes the pipe early (| head) ends the tool
 * quietly, by the signal, never with a "Broken pipe" message.
 */
void err_setprog(const char *argv0);

/* The program name set by err_setprog ("nsysjax" before it is called). */
const char *err_prog(void);

/*
 * Record a message describing a failure, replacing any earlier one.
 * Returns -1 so that library code can write `return err_fail(...)`.
 */
int err_fail(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * Prepend context to the recorded message, giving "CONTEXT: old message".
 * Returns -1.
 */
int err_prefix(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * As err_prefix, for a message that starts with the name of something
 * within CONTEXT (an archive member): joined by a colon alone, giving
 * "run.zip:trace.parquet: what is wrong".
 */
int err_prefix_in(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * As err_prefix, for context that names an input (a file, an archive
 * member): a message starting "line N: " (compile_parse_csv's) becomes
 * "CONTEXT:N: ...", the shape of every message that names a line.
 */
int err_prefix_at(const char *fmt, ...) ERR_PRINTF(1, 2);

/* The recorded message ("unknown error" if none was recorded). */
const char *err_msg(void);

/* Print "prog: MSG" to stderr and exit 1.  A message ending in ':' gets
 * ": strerror(errno)" appended, as sbase's eprintf does. */
_Noreturn void err_die(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Print "prog: <recorded message>" and exit 1. */
_Noreturn void err_die_last(void);

/* Print "prog: MSG" to stderr and carry on. Same ':' rule as err_die. */
void err_warn(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Print "prog: MSG" and the usage line USAGE to stderr, then exit 2. */
_Noreturn void err_usage(const char *usage, const char *fmt, ...) ERR_PRINTF(2, 3);

/*
 * Messages collected for later, in order: what library code notices but
 * does not fail for (a module without a dump under -m, rows dropped by a
 * rule), for its caller to print with err_warn.  A zeroed struct is empty.
 */
struct err_notes {
	char **v;		/* the messages, each without "prog: " */
	size_t n, cap;
};

/* Append one message (cut at 1 KiB) to NOTES. */
void err_note(struct err_notes *notes, const char *fmt, ...) ERR_PRINTF(2, 3);

/* err_warn each message of NOTES, in order. */
void err_notes_print(const struct err_notes *notes);

/* Release NOTES' messages; NOTES is then empty again. */
void err_notes_free(struct err_notes *notes);

#endif
