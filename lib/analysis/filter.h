/*
 * filter: the input side shared by the TSV filters (nsysjax-collectives,
 * -align, -warmup, ...).  A filter reads the files named on its command
 * line one after another, or standard input when there are none ("-" is
 * standard input too); every file must have the same header, which the
 * filter writes once.
 */
#ifndef NSYSJAX_FILTER_H
#define NSYSJAX_FILTER_H

#include <stddef.h>

struct tsv_reader;
struct filter;

/*
 * Open FILES[0..N) (standard input when N is 0) and read the first
 * header.  Returns NULL with an err message naming the file ("cannot
 * open", "no header line").
 */
struct filter *filter_open(char *const *files, size_t n);

/* The reader of the current file: column lookups, fields of the row. */
struct tsv_reader *filter_reader(const struct filter *f);

/*
 * The next row, moving on to the next file at the end of one.  Returns 1,
 * 0 at the end of the last file, or -1 with an err message (a bad row, or
 * a file whose header differs from the first: "FILE: header differs from
 * FIRST's").  Column indices found on the first header stay valid.
 */
int filter_next(struct filter *f);

/*
 * Read the side table PATH (a TSV file named by an option, such as a
 * compile frame or the hlo table) with FN, which gets its reader and ARG
 * and returns 0 or -1 with an err message.  Returns FN's result, or -1
 * with "PATH: cannot open: ..." or a header error.
 */
int filter_load(const char *path, int (*fn)(struct tsv_reader *, void *),
    void *arg);

/* Close every file opened; NULL is allowed. */
void filter_close(struct filter *f);

#endif
