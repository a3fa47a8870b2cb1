/*
 * pbtxt: the protobuf text format read line by line, for the few scalar
 * fields nsysjax takes from XLA's text dumps (GpuTargetConfigProto,
 * *.gpu_target_config.pbtxt).  Not a parser of the format: one field per
 * line, "key: value" or "block {" ... "}", as XLA's TextFormat printer
 * writes them; anything else is a line the caller skips.
 */
#ifndef NSYSJAX_PBTXT_H
#define NSYSJAX_PBTXT_H

#include <stddef.h>

/*
 * The next line of the text [*P, END): into *LINE, *LEN without its
 * leading blanks and tabs nor its trailing blanks and CR; *P moves past
 * its newline.  Returns 1, or 0 (nothing set) when *P >= END.
 */
int pbtxt_next(const char **p, const char *end, const char **line,
    size_t *len);

/*
 * Whether line L[0..N) is field KEY ("KEY: value"); if so its value,
 * blanks after the colon skipped and one pair of enclosing double quotes
 * removed (no escapes undone), into *V[0..*VN).
 */
int pbtxt_field(const char *l, size_t n, const char *key, const char **v,
    size_t *vn);

#endif
