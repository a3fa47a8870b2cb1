#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/archive.h"
#include "base/err.h"
#include "profile/input.h"
#include "base/mem.h"

#define TRACE "nvtx_gpu_proj_trace/trace.parquet"

char *
input_name(const char *path)
{
	static const char *const ext[] = {
		".zip", ".xz", ".csv", ".parquet", NULL
	};
	size_t n = strlen(path), i, e;
	const char *b;
	char *s;

	if (strcmp(path, "-") == 0)
		return mem_strdup("stdin");
	while (n > 1 && path[n - 1] == '/')
		n--;
	s = mem_strndup(path, n);
	b = strrchr(s, '/');
	b = b ? b + 1 : s;
	memmove(s, b, strlen(b) + 1);
	for (i = 0; ext[i]; i++) {
		n = strlen(s);
		e = strlen(ext[i]);
		if (n > e && strcmp(s + n - e, ext[i]) == 0)
			s[n - e] = '\0';
	}
	return s;
}

static void
add_profile(struct input_set *s, struct archive *a, const char *path,
    char *name)
{
	s->p = mem_realloc(s->p, s->n + 1, sizeof(*s->p));
	s->p[s->n].name = name;
	s->p[s->n].key = mem_strdup(name);
	s->p[s->n].ar = a;
	s->p[s->n].path = path;
	s->n++;
}

static int
find_profiles(struct input_set *s, struct archive *a, const char *path)
{
	size_t i, before = s->n, plen = strlen(TRACE "/");

	if (archive_has(a, TRACE)) {
		add_profile(s, a, path, input_name(path));
		return 0;
	}
	for (i = 0; i < archive_count(a); i++) {
		const char *m = archive_name(a, i);

		if (strncmp(m, TRACE "/", plen) == 0 && m[plen] != '\0' &&
		    strchr(m + plen, '/') == NULL)
			add_profile(s, a, path, mem_strdup(m + plen));
	}
	if (s->n == before)
		return err_fail("%s: no %s: not an nsys-jax archive", path,
		    TRACE);
	return 0;
}

int
input_open(const char *const *paths, size_t n, struct input_set *s)
{
	size_t i, j;

	memset(s, 0, sizeof(*s));
	s->ar = mem_calloc(n + 1, sizeof(*s->ar));
	for (i = 0; i < n; i++) {
		struct archive *a = archive_open(paths[i]);

		if (a == NULL)
			return err_prefix("%s", paths[i]);
		s->ar[s->nar++] = a;
		if (find_profiles(s, a, paths[i]) != 0)
			return -1;
	}
	for (i = 0; i < s->n; i++)
		for (j = i + 1; j < s->n; j++)
			if (strcmp(s->p[i].name, s->p[j].name) == 0)
				return err_fail("%s and %s both hold a profile "
				    "named %s", s->p[i].path, s->p[j].path,
				    s->p[i].name);
	return 0;
}

void
input_close(struct input_set *s)
{
	size_t i;

	for (i = 0; i < s->nar; i++)
		archive_close(s->ar[i]);
	for (i = 0; i < s->n; i++) {
		free(s->p[i].name);
		free(s->p[i].key);
	}
	free(s->ar);
	free(s->p);
	memset(s, 0, sizeof(*s));
}

char *
input_member(const struct input_profile *p, const char *base)
{
	char *m;

	if (archive_has(p->ar, base))
		return mem_strdup(base);
	m = mem_alloc(strlen(base) + strlen(p->key) + 2);
	sprintf(m, "%s/%s", base, p->key);
	if (archive_has(p->ar, m))
		return m;
	free(m);
	return NULL;
}

char *
input_member_any(const struct input_profile *p, const char *const *bases)
{
	char *m = NULL;

	for (; *bases && m == NULL; bases++)
		m = input_member(p, *bases);
	return m;
}

/* Whether NAME is PREFIX + "<anything>" + SUFFIX [+ "/" + PROFILE]. */
static int
dump_match(const char *name, const char *prefix, const char *suffix,
    const char *profile)
{
	size_t n = strlen(name), np = strlen(prefix), ns = strlen(suffix);
	size_t nprof = strlen(profile);

	if (strncmp(name, prefix, np) != 0)
		return 0;
	if (n > np + ns && strcmp(name + n - ns, suffix) == 0)
		return 1;
	return n > np + ns + nprof + 1 && name[n - nprof - 1] == '/' &&
	    strcmp(name + n - nprof, profile) == 0 &&
	    strncmp(name + n - nprof - 1 - ns, suffix, ns) == 0;
}

char *
input_dump(const struct input_profile *p, int64_t program_id,
    const char *suffix)
{
	char prefix[64];
	size_t i;

	snprintf(prefix, sizeof(prefix), "dump/module_%04lld.",
	    (long long)program_id);
	for (i = 0; i < archive_count(p->ar); i++) {
		const char *m = archive_name(p->ar, i);

		if (dump_match(m, prefix, suffix, p->key))
			return mem_strdup(m);
	}
	return NULL;
}
