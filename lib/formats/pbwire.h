/*
 * pbwire: the protobuf wire format read field by field, for the few
 * places that cut a message into pieces before protobuf-c decodes each
 * piece (lib/hlo decodes one instruction at a time; lib/heap reads only
 * the buffer assignment).  Not a decoder: values are left as bytes; it
 * checks the wire before protobuf-c recurses into it (pbwire_check) and
 * cuts fields out of a message (pbwire_strip).
 * Wire format: protobuf.dev/programming-guides/encoding.
 */
#ifndef NSYSJAX_PBWIRE_H
#define NSYSJAX_PBWIRE_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

/* One field of a message as it is on the wire. */
struct pbwire_field {
	uint64_t num;		/* field number */
	int wt;			/* wire type */
	const uint8_t *at;	/* its first byte (the key) */
	size_t size;		/* all its bytes */
	const uint8_t *val;	/* wire type 2: the value after the length */
	size_t len;		/* wire type 2: its length */
	int pbc;		/* key and length within protobuf-c's limits */
};

/* Read a varint from *P[0..*N) into *V, advancing; 0, or -1 when it is
 * cut short or longer than 10 bytes. */
int pbwire_varint(const uint8_t **p, size_t *n, uint64_t *v);

/* Write V as a varint at P (room for 10 bytes); returns its length. */
size_t pbwire_put_varint(uint8_t *p, uint64_t v);

/*
 * Read the next field of *P[0..*N) into F, advancing.  Returns 1, 0 at
 * the end, or -1 on malformed data or a group (wire types 3 and 4), which
 * XLA never writes.  protobuf-c reads keys and lengths of at most 5
 * bytes, where this reads 10: F->pbc says whether it would accept them.
 */
int pbwire_next(const uint8_t **p, size_t *n, struct pbwire_field *f);

/*
 * Whether P[0..N) reads as an HloProto (xla/service/hlo.proto): only
 * length-delimited fields 1 (hlo_module) and 3 (buffer_assignment), with
 * at least one hlo_module.  XLA dumps *.hlo.pb as HloProto; a bare
 * HloModuleProto has other fields.
 */
int pbwire_is_hloproto(const uint8_t *p, size_t n);

/* Whether F is field NUM holding a message (or bytes): wire type 2. */
int pbwire_is_msg(const struct pbwire_field *f, uint64_t num);

/*
 * Walk the fields of P[0..N), a message of type D, descending into the
 * fields that D declares as messages.  Returns 0, or -1 with an err
 * message naming WHAT: "corrupt WHAT" on malformed wire data (as
 * pbwire_next), "WHAT nested too deeply" beyond MAXDEPTH levels below P.
 * protobuf-c recurses on the same data: this bounds its depth first.
 */
int pbwire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p,
    size_t n, int maxdepth, const char *what);

/* Whether every key and length of the fields of P[0..N) (not descending)
 * is within protobuf-c's limits (pbwire_field's pbc), up to the end or
 * to malformed data (which pbwire_check reports). */
int pbwire_pbc_ok(const uint8_t *p, size_t n);

/* Message P[0..N) without its fields NUM of wire type 2, written to OUT
 * unless NULL (room for N bytes); returns its length in bytes. */
size_t pbwire_strip(const uint8_t *p, size_t n, uint64_t num, uint8_t *out);

#endif
