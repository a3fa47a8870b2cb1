/* The path lookup of json.h: a recursive scanner over the text. */
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "formats/json.h"

struct scan {
	const char *s, *p, *end;
};

static int
bad(const struct scan *c)
{
	return err_fail("malformed JSON at byte %zu", (size_t)(c->p - c->s));
}

static void
blank(struct scan *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
	    *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static int
is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int
hex(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') ||
	    (ch >= 'A' && ch <= 'F');
}

/* A string at c->p ('"'); *ESC set when it holds an escape. */
static int
string(struct scan *c, int *esc)
{
	int k;

	*esc = 0;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		if ((unsigned char)*c->p < 0x20)
			return bad(c);
		if (*c->p == '\\') {
			*esc = 1;
			if (++c->p == c->end)
				return bad(c);
			if (*c->p == 'u') {
				for (k = 0; k < 4; k++)
					if (++c->p == c->end || !hex(*c->p))
						return bad(c);
			} else if (strchr("\"\\/bfnrt", *c->p) == NULL)
				return bad(c);
		}
		c->p++;
	}
	if (c->p == c->end)
		return bad(c);
	c->p++;
	return 0;
}

static int
digits(struct scan *c)
{
	if (c->p == c->end || !is_digit(*c->p))
		return bad(c);
	while (c->p < c->end && is_digit(*c->p))
		c->p++;
	return 0;
}

static int
number(struct scan *c)
{
	if (*c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (digits(c) < 0)
		return -1;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (digits(c) < 0)
			return -1;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (digits(c) < 0)
			return -1;
	}
	return 0;
}

static int
word(struct scan *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return bad(c);
	c->p += n;
	return 0;
}

static int value(struct scan *, int);

/* The members or elements of an object or array at c->p. */
static int
container(struct scan *c, int depth)
{
	char close = *c->p == '{' ? '}' : ']';
	int esc;

	if (depth >= JSON_MAXDEPTH)
		return err_fail("JSON nested too deeply");
	c->p++;
	blank(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			if (c->p == c->end || *c->p != '"')
				return bad(c);
			if (string(c, &esc) < 0)
				return -1;
			blank(c);
			if (c->p == c->end || *c->p++ != ':')
				return bad(c);
		}
		if (value(c, depth + 1) < 0)
			return -1;
		blank(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			blank(c);
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		return bad(c);
	}
}

/* Skip one value (blanks before it included). */
static int
value(struct scan *c, int depth)
{
	int esc;

	blank(c);
	if (c->p == c->end)
		return bad(c);
	switch (*c->p) {
	case '{': case '[':
		return container(c, depth);
	case '"':
		return string(c, &esc);
	case 't':
		return word(c, "true");
	case 'f':
		return word(c, "false");
	case 'n':
		return word(c, "null");
	default:
		if (*c->p == '-' || is_digit(*c->p))
			return number(c);
		return bad(c);
	}
}

/* In the object at c->p, the value of KEY: 1 with c->p on it, 0 absent. */
static int
member(struct scan *c, const char *key, int depth)
{
	size_t klen = strlen(key);
	const char *k;
	int esc, match;

	if (depth >= JSON_MAXDEPTH)
		return err_fail("JSON nested too deeply");
	c->p++;
	blank(c);
	if (c->p < c->end && *c->p == '}')
		return 0;
	for (;;) {
		if (c->p == c->end || *c->p != '"')
			return bad(c);
		k = c->p + 1;
		if (string(c, &esc) < 0)
			return -1;
		match = !esc && (size_t)(c->p - 1 - k) == klen &&
		    memcmp(k, key, klen) == 0;
		blank(c);
		if (c->p == c->end || *c->p++ != ':')
			return bad(c);
		blank(c);
		if (match)
			return 1;
		if (value(c, depth + 1) < 0)
			return -1;
		blank(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			blank(c);
			continue;
		}
		if (c->p < c->end && *c->p == '}')
			return 0;
		return bad(c);
	}
}

int
json_find(const char *s, size_t n, const char *const *path, size_t npath,
    struct json_val *out)
{
	struct scan c = { s, s, s + n };
	const char *start;
	size_t i;
	int r;

	blank(&c);
	for (i = 0; i < npath; i++) {
		if (c.p == c.end)
			return bad(&c);
		if (*c.p != '{') {
			/* Not an object: the key is absent, once the value
			 * is known to be JSON. */
			return value(&c, (int)i) < 0 ? -1 : 0;
		}
		if ((r = member(&c, path[i], (int)i)) <= 0)
			return r;
	}
	start = c.p;
	if (value(&c, (int)npath) < 0)
		return -1;
	out->p = start;
	out->n = (size_t)(c.p - start);
	return 1;
}

int
json_i64_array(struct json_val v, int64_t *out, size_t cap, size_t *nout)
{
	struct scan c = { v.p, v.p, v.p + v.n };
	const char *a;
	size_t len;
	int esc, quoted;

	*nout = 0;
	if (v.n == 0 || *c.p != '[')
		return err_fail("JSON value is not an array");
	c.p++;
	blank(&c);
	if (c.p < c.end && *c.p == ']')
		return 0;
	for (;;) {
		if (c.p == c.end)
			return bad(&c);
		quoted = *c.p == '"';
		a = c.p + quoted;
		if (quoted ? string(&c, &esc) < 0 : value(&c, 1) < 0)
			return -1;
		len = (size_t)(c.p - a) - (size_t)quoted;
		if (*nout == cap)
			return err_fail("JSON array longer than %zu", cap);
		if (num_i64(a, len, &out[*nout]) < 0)
			return err_fail("JSON array element is not an "
			    "integer");
		(*nout)++;
		blank(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			blank(&c);
			continue;
		}
		if (c.p < c.end && *c.p == ']')
			return 0;
		return bad(&c);
	}
}
