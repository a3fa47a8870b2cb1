/*
 * json: values found by a path of object keys in a JSON text, without
 * building a tree; enough for XLA's GPU backend_config (a GpuBackendConfig
 * printed by protobuf's JSON printer, xla/service/gpu/backend_configs.proto),
 * of which the cost rules (hlocost.h) read a few arrays of integers.
 *
 * The grammar is RFC 8259's.  Nesting deeper than JSON_MAXDEPTH is refused
 * (the scanner recurses).  Only the values on the way to the one asked
 * for are scanned, so text after it is not checked.
 */
#ifndef NSYSJAX_JSON_H
#define NSYSJAX_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAXDEPTH 64

/* A value: its text P[0..N), leading and trailing blanks excluded. */
struct json_val {
	const char *p;
	size_t n;
};

/*
 * The value at PATH[0..NPATH) (object keys, outermost first) in the JSON
 * text S[0..N) into *OUT.  A key that occurs twice: the first one wins.
 * Keys with escapes never match.  Returns 1 when found, 0 when some key
 * on the path is absent or a value on it is no object, -1 with an err
 * message ("malformed JSON at byte K", "JSON nested too deeply") when the
 * text scanned is not JSON.
 */
int json_find(const char *s, size_t n, const char *const *path, size_t npath,
    struct json_val *out);

/*
 * V as an array of integers, each a JSON number without fraction or
 * exponent or a string holding one (protobuf's JSON form of int64), into
 * OUT[0..*NOUT), at most CAP of them.  Returns 0, or -1 with an err
 * message when V is not such an array or holds more than CAP.
 */
int json_i64_array(struct json_val v, int64_t *out, size_t cap,
    size_t *nout);

#endif
