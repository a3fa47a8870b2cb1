#include <string.h>

#include "base/err.h"
#include "formats/pbwire.h"

int
pbwire_varint(const uint8_t **p, size_t *n, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if (*n == 0)
			return -1;
		*v |= (uint64_t)(**p & 0x7f) << shift;
		(*n)--;
		if ((*(*p)++ & 0x80) == 0)
			return 0;
	}
	return -1;
}

size_t
pbwire_put_varint(uint8_t *p, uint64_t v)
{
	size_t k = 0;

	for (; v >= 0x80; v >>= 7)
		p[k++] = (uint8_t)(v | 0x80);
	p[k++] = (uint8_t)v;
	return k;
}

int
pbwire_next(const uint8_t **p, size_t *n, struct pbwire_field *f)
{
	const uint8_t *q;
	uint64_t key, v;

	if (*n == 0)
		return 0;
	f->at = *p;
	if (pbwire_varint(p, n, &key) < 0 || key >> 3 == 0 ||
	    key >> 3 > 536870911)
		return -1;
	f->num = key >> 3;
	f->wt = (int)(key & 7);
	f->pbc = *p - f->at <= 5;
	switch (f->wt) {
	case 0:
		if (pbwire_varint(p, n, &v) < 0)
			return -1;
		break;
	case 1:
	case 5:
		v = f->wt == 1 ? 8 : 4;
		if (*n < v)
			return -1;
		*p += v, *n -= v;
		break;
	case 2:
		q = *p;
		if (pbwire_varint(p, n, &v) < 0 || v > *n)
			return -1;
		f->pbc = f->pbc && *p - q <= 5;
		f->val = *p;
		f->len = (size_t)v;
		*p += v, *n -= v;
		break;
	default:
		return -1;
	}
	f->size = (size_t)(*p - f->at);
	return 1;
}

int
pbwire_is_hloproto(const uint8_t *p, size_t n)
{
	struct pbwire_field f;
	int r, mod = 0;

	while ((r = pbwire_next(&p, &n, &f)) > 0) {
		if (f.wt != 2 || (f.num != 1 && f.num != 3))
			return 0;
		mod |= f.num == 1;
	}
	return r == 0 && mod;
}

int
pbwire_is_msg(const struct pbwire_field *f, uint64_t num)
{
	return f->num == num && f->wt == 2;
}

static int
check(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n,
    int depth, int maxdepth, const char *what)
{
	const ProtobufCFieldDescriptor *fd;
	struct pbwire_field f;
	int r;

	if (depth > maxdepth)
		return err_fail("%s nested too deeply", what);
	while ((r = pbwire_next(&p, &n, &f)) > 0) {
		if (f.wt != 2)
			continue;
		fd = protobuf_c_message_descriptor_get_field(d,
		    (unsigned)f.num);
		if (fd != NULL && fd->type == PROTOBUF_C_TYPE_MESSAGE &&
		    check(fd->descriptor, f.val, f.len, depth + 1, maxdepth,
		    what) < 0)
			return -1;
	}
	return r < 0 ? err_fail("corrupt %s", what) : 0;
}

int
pbwire_check(const ProtobufCMessageDescriptor *d, const uint8_t *p,
    size_t n, int maxdepth, const char *what)
{
	return check(d, p, n, 0, maxdepth, what);
}

int
pbwire_pbc_ok(const uint8_t *p, size_t n)
{
	struct pbwire_field f;

	while (pbwire_next(&p, &n, &f) > 0)
		if (!f.pbc)
			return 0;
	return 1;
}

size_t
pbwire_strip(const uint8_t *p, size_t n, uint64_t num, uint8_t *out)
{
	struct pbwire_field f;
	size_t k = 0;

	while (pbwire_next(&p, &n, &f) > 0)
		if (!pbwire_is_msg(&f, num)) {
			if (out)
				memcpy(out + k, f.at, f.size);
			k += f.size;
		}
	return k;
}
