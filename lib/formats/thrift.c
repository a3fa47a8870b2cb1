#include <stdarg.h>
#include <stdio.h>

#include "base/err.h"
#include "formats/thrift.h"

void
thrift_init(struct thrift *t, const uint8_t *buf, size_t len)
{
	t->p = buf;
	t->end = buf ? buf + len : buf;
	t->bad = 0;
}

void
thrift_fail(struct thrift *t, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (t->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_fail("%s", msg);
	t->bad = 1;
	t->p = t->end;
}

static size_t
left(const struct thrift *t)
{
	return (size_t)(t->end - t->p);
}

static int
byte(struct thrift *t)
{
	if (t->p == t->end) {
		thrift_fail(t, "truncated thrift data");
		return 0;
	}
	return *t->p++;
}

uint64_t
thrift_varint(struct thrift *t)
{
	uint64_t v = 0;
	int shift, b;

	for (shift = 0; shift < 64; shift += 7) {
		if (t->p == t->end) {
			thrift_fail(t, "truncated thrift data");
			return 0;
		}
		b = *t->p++;
		/* The tenth byte may only carry bit 63. */
		if (shift == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	thrift_fail(t, "thrift varint too long");
	return 0;
}

int64_t
thrift_i64(struct thrift *t)
{
	uint64_t u = thrift_varint(t);

	/* Zigzag: 0, -1, 1, -2 ... are coded 0, 1, 2, 3 ... */
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int32_t
thrift_i32(struct thrift *t)
{
	int64_t v = thrift_i64(t);

	if (v < INT32_MIN || v > INT32_MAX) {
		thrift_fail(t, "thrift i32 out of range");
		return 0;
	}
	return (int32_t)v;
}

int
thrift_field(struct thrift *t, int *last, int *id)
{
	int b, type, delta;
	int32_t v;

	*id = 0;
	b = byte(t);
	type = b & 0x0f;
	if (t->bad || type == THRIFT_STOP)
		return THRIFT_STOP;
	if (type > THRIFT_STRUCT) {
		thrift_fail(t, "bad thrift type %d", type);
		return THRIFT_STOP;
	}
	delta = b >> 4;
	if (delta) {
		*id = *last + delta;
	} else {
		/* Long form: the id follows as a zigzag i16. */
		v = thrift_i32(t);
		if (t->bad || v < INT16_MIN || v > INT16_MAX) {
			thrift_fail(t, "thrift field id out of range");
			return THRIFT_STOP;
		}
		*id = v;
	}
	if (*id > INT16_MAX) {
		thrift_fail(t, "thrift field id out of range");
		return THRIFT_STOP;
	}
	*last = *id;
	return type;
}

const uint8_t *
thrift_binary(struct thrift *t, size_t *len)
{
	uint64_t n = thrift_varint(t);
	const uint8_t *s;

	*len = 0;
	if (t->bad)
		return NULL;
	if (n > left(t)) {
		thrift_fail(t, "truncated thrift data");
		return NULL;
	}
	s = t->p;
	t->p += n;
	*len = (size_t)n;
	return s;
}

size_t
thrift_list(struct thrift *t, int *etype)
{
	int b = byte(t);
	uint64_t n;

	*etype = b & 0x0f;
	n = (unsigned)b >> 4;
	if (n == 15)
		n = thrift_varint(t);
	if (t->bad)
		return 0;
	if (*etype == THRIFT_STOP || *etype > THRIFT_STRUCT) {
		thrift_fail(t, "bad thrift list element type %d", *etype);
		return 0;
	}
	if (n > left(t)) {
		thrift_fail(t, "thrift list of %llu elements exceeds its data",
		    (unsigned long long)n);
		return 0;
	}
	return (size_t)n;
}

static void skip(struct thrift *, int, int, int);

static void
skip_struct(struct thrift *t, int depth)
{
	int last = 0, id, type;

	while ((type = thrift_field(t, &last, &id)) != THRIFT_STOP)
		skip(t, type, 1, depth + 1);
}

static void
skip_list(struct thrift *t, int depth)
{
	size_t n;
	int etype;

	n = thrift_list(t, &etype);
	while (n-- > 0 && !t->bad)
		skip(t, etype, 0, depth + 1);
}

static void
skip_map(struct thrift *t, int depth)
{
	uint64_t n = thrift_varint(t);
	int b, kt, vt;

	if (n == 0 || t->bad)
		return;
	b = byte(t);
	kt = b >> 4;
	vt = b & 0x0f;
	if (t->bad)
		return;
	if (kt == THRIFT_STOP || kt > THRIFT_STRUCT || vt == THRIFT_STOP ||
	    vt > THRIFT_STRUCT) {
		thrift_fail(t, "bad thrift map types %d, %d", kt, vt);
		return;
	}
	if (n > left(t) / 2) {
		thrift_fail(t, "thrift map of %llu entries exceeds its data",
		    (unsigned long long)n);
		return;
	}
	while (n-- > 0 && !t->bad) {
		skip(t, kt, 0, depth + 1);
		skip(t, vt, 0, depth + 1);
	}
}

/* FIELD: a bool field keeps its value in the header, an element a byte. */
static void
skip(struct thrift *t, int type, int field, int depth)
{
	size_t n;

	if (depth > THRIFT_MAX_DEPTH) {
		thrift_fail(t, "thrift data nested deeper than %d",
		    THRIFT_MAX_DEPTH);
		return;
	}
	switch (type) {
	case THRIFT_TRUE:
	case THRIFT_FALSE:
		if (!field)
			byte(t);
		break;
	case THRIFT_BYTE:
		byte(t);
		break;
	case THRIFT_I16:
	case THRIFT_I32:
	case THRIFT_I64:
		thrift_varint(t);
		break;
	case THRIFT_DOUBLE:
		if (left(t) < 8)
			thrift_fail(t, "truncated thrift data");
		else
			t->p += 8;
		break;
	case THRIFT_BINARY:
		thrift_binary(t, &n);
		break;
	case THRIFT_LIST:
	case THRIFT_SET:
		skip_list(t, depth);
		break;
	case THRIFT_MAP:
		skip_map(t, depth);
		break;
	case THRIFT_STRUCT:
		skip_struct(t, depth);
		break;
	default:
		thrift_fail(t, "bad thrift type %d", type);
	}
}

void
thrift_skip(struct thrift *t, int type)
{
	skip(t, type, 1, 1);
}

void
thrift_skip_elem(struct thrift *t, int type)
{
	skip(t, type, 0, 1);
}
