#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "profile/nvtx.h"

static int
prefixed(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *
nvtx_strip_tsl(const char *name)
{
	return prefixed(name, "TSL:") ? name + 4 : name;
}

enum nvtx_kind
nvtx_classify(const char *name)
{
	const char *t = nvtx_strip_tsl(name);

	if (prefixed(t, "Thunk:#"))
		return NVTX_THUNK;
	if (prefixed(t, "XlaModule:#"))
		return NVTX_MODULE;
	if (prefixed(t, "XlaCompile:#module="))
		return NVTX_COMPILE;
	if (prefixed(name, "NCCL:") || prefixed(name, "nccl"))
		return NVTX_NCCL;
	return NVTX_OTHER;
}

/* XLA's hlo_module and hlo_op names: [a-z0-9._-]+ (data_loaders.py). */
static int
hlo_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* Parse decimal digits [s, s+n) into *v; 0 or -1. */
static int
digits(const char *s, size_t n, int64_t *v)
{
	int64_t x = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return 0;
}

int
nvtx_parse_module(const char *name, const char **m, size_t *mlen,
    int64_t *program_id)
{
	const char *t = nvtx_strip_tsl(name), *body, *end, *hm, *pid;
	size_t n;

	if (!prefixed(t, "XlaModule:#"))
		return err_fail("not an XlaModule range: %s", name);
	body = t + strlen("XlaModule:#");
	n = strlen(body);
	if (n == 0 || body[n - 1] != '#')
		return err_fail("malformed XlaModule range: %s", name);
	end = body + n - 1;
	/* hlo_module=... starts the body, or follows "prefix=P,". */
	hm = prefixed(body, "hlo_module=") ? body : strstr(body, ",hlo_module=");
	if (hm == NULL)
		return err_fail("XlaModule range without hlo_module: %s", name);
	hm += hm == body ? strlen("hlo_module=") : strlen(",hlo_module=");
	pid = strstr(hm, ",program_id=");
	*program_id = -1;
	if (pid != NULL && pid < end) {
		if (digits(pid + 12, (size_t)(end - pid - 12), program_id) != 0)
			return err_fail("malformed program_id in %s", name);
		end = pid;
	}
	if (!hlo_name_ok(hm, (size_t)(end - hm)))
		return err_fail("malformed hlo_module in %s", name);
	*m = hm;
	*mlen = (size_t)(end - hm);
	return 0;
}

/*
 * Whether [s, end) is a run of ",key=value" fields: KEY of [a-z0-9_],
 * VALUE non-empty without ',' or '#'.  Stores the unique_hlo_op_id value
 * in *ID (-1 when absent); a malformed or repeated one fails.
 */
static int
thunk_tail(const char *s, const char *end, int64_t *id)
{
	*id = -1;
	while (s < end) {
		const char *k, *v;

		if (*s++ != ',')
			return -1;
		for (k = s; s < end && ((*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'); s++)
			;
		if (s == k || s == end || *s != '=')
			return -1;
		for (v = ++s; s < end && *s != ',' && *s != '#'; s++)
			;
		if (s == v)
			return -1;
		if ((size_t)(v - 1 - k) == strlen("unique_hlo_op_id") &&
		    strncmp(k, "unique_hlo_op_id", (size_t)(v - 1 - k)) == 0 &&
		    (*id != -1 || digits(v, (size_t)(s - v), id) != 0))
			return -1;
	}
	return 0;
}

int
nvtx_parse_thunk_id(const char *name, const char **op, size_t *oplen,
    int64_t *id)
{
	const char *t = nvtx_strip_tsl(name), *body, *end, *p, *e, *q;
	int64_t v;
	size_t n;

	if (!prefixed(t, "Thunk:#"))
		return err_fail("not a Thunk range: %s", name);
	body = t + strlen("Thunk:#");
	n = strlen(body);
	if (n < 2 || body[n - 1] != '#')
		return err_fail("malformed Thunk range: %s", name);
	end = body + n - 1;
	/* The last "hlo_op=" that starts the body or follows a comma and
	 * is followed by a name and well-formed fields only: name= before
	 * it may hold anything, even ",hlo_op=". */
	p = NULL;
	for (q = body; (q = strstr(q, "hlo_op=")) != NULL && q < end; q++) {
		if (q != body && q[-1] != ',')
			continue;
		for (e = q + 7; e < end && *e != ','; e++)
			;
		if (hlo_name_ok(q + 7, (size_t)(e - q - 7)) &&
		    thunk_tail(e, end, &v) == 0) {
			p = q;
			*oplen = (size_t)(e - q - 7);
			if (id != NULL)
				*id = v;
		}
	}
	if (p == NULL)
		return err_fail("malformed Thunk range: %s", name);
	*op = p + 7;
	return 0;
}

int
nvtx_parse_thunk(const char *name, const char **op, size_t *oplen)
{
	return nvtx_parse_thunk_id(name, op, oplen, NULL);
}

int
nvtx_command_buffer(const char *op, size_t len)
{
	static const char prefix[] = "command_buffer_";
	size_t i, n = sizeof(prefix) - 1;

	if (len <= n || strncmp(op, prefix, n) != 0)
		return 0;
	for (i = n; i < len; i++)
		if (op[i] < '0' || op[i] > '9')
			return 0;
	return 1;
}

/* XLA's collective opcodes (openxla/xla xla/hlo/ir/hlo_opcode.h,
 * HLO_OPCODE_LIST), without their -start/-done forms; pairwise ones
 * exchange between two devices whatever the groups say (the reference's
 * rule for collective-permute, analysis.py _get_message_size). */
static const struct {
	const char *op;
	int pairwise;
} collective_ops[] = {
	{ "all-gather", 0 }, { "all-reduce", 0 }, { "all-to-all", 0 },
	{ "collective-broadcast", 0 }, { "collective-permute", 1 },
	{ "ragged-all-to-all", 0 }, { "recv", 1 }, { "reduce-scatter", 0 },
	{ "send", 1 },
};

/* LEN less a ".N" suffix (N decimal digits) of S[0..LEN), if any. */
static size_t
strip_unique(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	return i < len && i > 0 && s[i - 1] == '.' ? i - 1 : len;
}

/* LEN less SUFFIX at the end of S[0..LEN), if there. */
static size_t
strip_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0 ? len - n : len;
}

const char *
nvtx_collective(const char *op, int64_t *size)
{
	size_t len = strip_unique(op, strlen(op)), n, i;

	n = strip_suffix(op, len, "-start");
	if (n == len)
		n = strip_suffix(op, len, "-done");
	for (i = 0; i < sizeof(collective_ops) / sizeof(collective_ops[0]);
	    i++)
		if (strlen(collective_ops[i].op) == n &&
		    memcmp(op, collective_ops[i].op, n) == 0) {
			*size = collective_ops[i].pairwise ? 2 : -1;
			return collective_ops[i].op;
		}
	*size = -1;
	return NULL;
}

int
nvtx_parse_launcher(const char *name, int32_t out[4])
{
	static const char *const keys[] = { "global=", "local=", "process=" };
	const char *p = name;
	size_t i;

	if (!prefixed(p, "XlaLauncher:#"))
		return -1;
	p += strlen("XlaLauncher:#");
	for (i = 0; i < 4; i++) {
		const char *key = i < 3 ? keys[i] : prefixed(p, "slice=") ?
		    "slice=" : "partition=";
		const char *endp;
		int64_t v;

		if (!prefixed(p, key))
			return -1;
		p += strlen(key);
		for (endp = p; *endp >= '0' && *endp <= '9'; endp++)
			;
		if (num_i64(p, (size_t)(endp - p), &v) != 0 || v > INT32_MAX ||
		    *endp != (i < 3 ? ',' : '#'))
			return -1;
		out[i] = (int32_t)v;
		p = endp + 1;
	}
	return *p == '\0' ? 0 : -1;
}
