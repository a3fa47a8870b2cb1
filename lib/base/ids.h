/*
 * ids: the one reader and writer of id lists in a TSV field, the
 * StackFrameIds column of the hlo frame (FrameIds of the stackframes
 * frame).  The grammar is what ids_write writes, nothing more:
 *
 *	list = "" | id *( " " id )	one space between ids, none around
 *	id   = "0" | [1-9] *[0-9]	a decimal below the caller's bound
 *
 * so that every reader (nsysjax-fold, nsysjax-diff, the merge of
 * nsysjax-extract's parts) accepts the same fields and refuses the same.
 */
#ifndef NSYSJAX_IDS_H
#define NSYSJAX_IDS_H

#include <stddef.h>

struct tsv_reader;
struct tsv_writer;

/* An id list as read: V[0..N), in field order; CAP is V's capacity.
 * Zero-initialise before the first read; release with ids_free. */
struct ids {
	size_t *v;
	size_t n, cap;
};

/*
 * Parse S[0..LEN) (the list grammar above) into OUT, replacing what it
 * held (OUT->v grows as needed and is reused across calls).  Every id
 * must be below BOUND (SIZE_MAX: any that fits int64_t).  Returns 0, or
 * -1 with one err message naming the input NAME, its LINE, the column
 * COL and the 1-based character where the field goes wrong:
 *   "NAME:LINE: column COL: not a list of ids separated by single
 *    spaces, at character K: '1  2'"
 *   "NAME:LINE: column COL: no stack frame 9 (character K)"
 * (a field longer than 60 bytes is shown cut, with "...").
 */
int ids_parse(const char *s, size_t len, size_t bound, struct ids *out,
    const char *name, long line, const char *col);

/* ids_parse of field COL of R's current row (digits and spaces need no
 * TSV escapes, so the field is read raw), naming R's input, the row's
 * line and the column's name. */
int ids_read(struct tsv_reader *r, size_t col, size_t bound,
    struct ids *out);

/* Write V[0..N) as one field of W in the grammar above ("" for N = 0). */
void ids_write(struct tsv_writer *w, const size_t *v, size_t n);

/* Release OUT's array; OUT is then empty and may be read into again. */
void ids_free(struct ids *out);

#endif
