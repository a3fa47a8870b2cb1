/* XLA's thunk metadata dump (thunkmeta.h), read with pbwire. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/pbwire.h"
#include "formats/thunkmeta.h"

/* A varint field's value into *V; -1 for another wire type. */
static int
varint_of(const struct pbwire_field *f, int64_t *v)
{
	const uint8_t *p = f->at;
	size_t n = f->size;
	uint64_t key, u;

	if (f->wt != 0 || pbwire_varint(&p, &n, &key) != 0 ||
	    pbwire_varint(&p, &n, &u) != 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

/* ThunkInfoProto: profile_annotation (1), thunk_id (3). */
static int
read_info(const uint8_t *p, size_t n, struct thunkmeta_entry *e)
{
	struct pbwire_field f;
	int r;

	while ((r = pbwire_next(&p, &n, &f)) > 0) {
		if (f.num == 1) {
			if (f.wt != 2)
				return err_fail("thunk_info.profile_annotation: "
				    "not a string");
			free(e->name);
			e->name = mem_strndup((const char *)f.val, f.len);
		} else if (f.num == 3) {
			if (varint_of(&f, &e->id) != 0)
				return err_fail("thunk_info.thunk_id: not an "
				    "integer");
		}
	}
	return r < 0 ? err_fail("thunk_info: malformed") : 0;
}

/* ThunkMetadataProto: thunk_info (1), thunk_kind (2). */
static int
read_entry(const uint8_t *p, size_t n, struct thunkmeta_entry *e)
{
	struct pbwire_field f;
	int r;

	while ((r = pbwire_next(&p, &n, &f)) > 0) {
		if (f.num == 1) {
			if (f.wt != 2)
				return err_fail("thunk_info: not a message");
			if (read_info(f.val, f.len, e) != 0)
				return -1;
		} else if (f.num == 2) {
			if (f.wt != 2)
				return err_fail("thunk_kind: not a string");
			free(e->kind);
			e->kind = mem_strndup((const char *)f.val, f.len);
		}
	}
	return r < 0 ? err_fail("malformed") : 0;
}

int
thunkmeta_read(const uint8_t *data, size_t len, struct thunkmeta *t)
{
	struct pbwire_field f;
	size_t cap = 0;
	int r;

	memset(t, 0, sizeof(*t));
	while ((r = pbwire_next(&data, &len, &f)) > 0) {
		struct thunkmeta_entry *e;

		if (f.num != 1)
			continue;
		if (f.wt != 2) {
			thunkmeta_free(t);
			return err_fail("thunk metadata: field 1 is no message "
			    "(not a ThunkMetadataListProto)");
		}
		mem_grow(&t->v, &cap, t->n + 1, sizeof(*t->v));
		e = &t->v[t->n++];
		memset(e, 0, sizeof(*e));
		if (read_entry(f.val, f.len, e) != 0) {
			err_prefix("thunk metadata: entry %zu", t->n - 1);
			thunkmeta_free(t);
			return -1;
		}
		if (e->name == NULL)
			e->name = mem_strdup("");
		if (e->kind == NULL)
			e->kind = mem_strdup("");
	}
	if (r < 0) {
		thunkmeta_free(t);
		return err_fail("thunk metadata: malformed protobuf (not a "
		    "ThunkMetadataListProto)");
	}
	return 0;
}

int
thunkmeta_is_cmdbuf_kind(const char *kind)
{
	return strcmp(kind, "kCommandBuffer") == 0;
}

long
thunkmeta_find(const struct thunkmeta *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return (long)i;
	return -1;
}

void
thunkmeta_free(struct thunkmeta *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].kind);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
