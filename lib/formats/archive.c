#define _XOPEN_SOURCE 700
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

#include "formats/archive.h"
#include "base/err.h"
#include "base/mem.h"
#include "formats/xz.h"

struct archive {
	char *path;
	char *top;		/* the top folder taken off the names, or NULL */
	zip_t *zip;		/* NULL for a directory */
	uint64_t bytes;		/* the zip file's size */
	char **names;		/* sorted */
	zip_int64_t *index;	/* zip entry index of names[i] */
	size_t n, cap;
};

/*
 * Whether NAME is what macOS adds to an archive it makes (Finder's
 * Compress, ditto -c -k --sequesterRsrc): the resource forks and
 * extended attributes under a top __MACOSX/, and Finder's .DS_Store
 * files.  No member of a profile has such a name.
 */
static int
mac_junk(const char *name)
{
	const char *base = strrchr(name, '/');

	if (strncmp(name, "__MACOSX/", 9) == 0)
		return 1;
	return strcmp(base ? base + 1 : name, ".DS_Store") == 0;
}

/* NAME as a member (taken), unless mac_junk. */
static void
add_name(struct archive *a, char *name, zip_int64_t idx)
{
	size_t cap = a->cap;

	if (mac_junk(name)) {
		free(name);
		return;
	}
	mem_grow(&a->names, &a->cap, a->n + 1, sizeof(*a->names));
	mem_grow(&a->index, &cap, a->n + 1, sizeof(*a->index));
	a->names[a->n] = name;
	a->index[a->n] = idx;
	a->n++;
}

/*
 * Directories an archive may nest: an nsys-jax archive has two levels
 * (dump/, nvtx_gpu_proj_trace/); the bound stops a walk through a
 * symlink that points up the tree.
 */
#define WALK_DEPTH 16

/* The (device, inode) of the directories from the top to the one
 * being walked: a directory met again is a loop, and skipped. */
struct walk {
	dev_t dev[WALK_DEPTH + 1];
	ino_t ino[WALK_DEPTH + 1];
	int depth;
};

static int walk_dir(struct archive *a, const char *rel, struct walk *w);

/*
 * One entry of a directory: SUB its name in the archive, PATH on disk.
 * Symlinks are followed (users link big members from other
 * filesystems); a dangling one stays a member, so that reading it names
 * it.  Takes SUB.
 */
static int
walk_entry(struct archive *a, char *sub, const char *path, struct walk *w)
{
	struct stat st;
	int i, rc = 0;

	if (stat(path, &st) != 0) {
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			add_name(a, sub, -1);
		else
			free(sub);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		add_name(a, sub, -1);
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		for (i = 0; i <= w->depth; i++)
			if (w->dev[i] == st.st_dev && w->ino[i] == st.st_ino)
				break;
		if (i > w->depth && w->depth == WALK_DEPTH)
			rc = err_fail("%s: directories nested more than %d "
			    "deep", path, WALK_DEPTH);
		else if (i > w->depth) {
			w->depth++;
			w->dev[w->depth] = st.st_dev;
			w->ino[w->depth] = st.st_ino;
			rc = walk_dir(a, sub, w);
			w->depth--;
		}
	}
	free(sub);
	return rc;
}

static int
walk_dir(struct archive *a, const char *rel, struct walk *w)
{
	char *full;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	full = mem_alloc(strlen(a->path) + strlen(rel) + 2);
	sprintf(full, "%s%s%s", a->path, *rel ? "/" : "", rel);
	if ((d = opendir(full)) == NULL) {
		rc = err_fail("%s: cannot open directory: %s", full,
		    strerror(errno));
		free(full);
		return rc;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *sub, *path;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = mem_alloc(strlen(rel) + strlen(e->d_name) + 2);
		sprintf(sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		path = mem_path(full, e->d_name);
		rc = walk_entry(a, sub, path, w);
		free(path);
	}
	closedir(d);
	free(full);
	return rc;
}

/* Whether the file PATH begins as a zip does (a local file header): a
 * file that does but has no end of central directory was cut short. */
static int
zip_start(const char *path)
{
	unsigned char b[4];
	FILE *fp = fopen(path, "rb");
	int yes;

	if (fp == NULL)
		return 0;
	yes = fread(b, 1, 4, fp) == 4 && memcmp(b, "PK\3\4", 4) == 0;
	fclose(fp);
	return yes;
}

/*
 * The zip's directory, read as unzip reads it: the central directory
 * says where each member is and what it holds, and a local header that
 * disagrees in fields unzip ignores (macOS's Archive Utility writes the
 * compressed size into headers of members with data descriptors) costs
 * nothing.  libzip's ZIP_CHECKCONS refused those archives.  A member
 * whose bytes really cannot be read is named when it is read.
 */
static int
open_zip(struct archive *a)
{
	int zerr = 0;
	zip_int64_t i, n;
	struct stat sb;

	a->bytes = stat(a->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	a->zip = zip_open(a->path, ZIP_RDONLY, &zerr);
	if (a->zip == NULL) {
		if (zerr == ZIP_ER_NOZIP && zip_start(a->path))
			return err_fail("truncated zip archive (it begins as "
			    "one but has no central directory at its end: "
			    "cut short in a copy?)");
		if (zerr == ZIP_ER_NOZIP)
			return err_fail("not a zip archive");
		if (zerr == ZIP_ER_INCONS || zerr == ZIP_ER_EOF)
			return err_fail("truncated or damaged zip archive");
		if (zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ)
			return err_fail("cannot read: %s", strerror(errno));
		return err_fail("cannot open zip archive (libzip error %d)",
		    zerr);
	}
	n = zip_get_num_entries(a->zip, 0);
	for (i = 0; i < n; i++) {
		const char *name = zip_get_name(a->zip, (zip_uint64_t)i, 0);
		size_t len;

		if (name == NULL)
			return err_fail("damaged zip directory entry %lld",
			    (long long)i);
		len = strlen(name);
		if (len == 0 || name[len - 1] == '/')
			continue;
		add_name(a, mem_strdup(name), i);
	}
	return 0;
}

static int
cmp_names(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sort names and their zip indices together (pairs, to keep them tied). */
static void
sort_members(struct archive *a)
{
	struct pair { char *name; zip_int64_t idx; } *p;
	size_t i;

	p = mem_calloc(a->n, sizeof(*p));
	for (i = 0; i < a->n; i++) {
		p[i].name = a->names[i];
		p[i].idx = a->index[i];
	}
	qsort(p, a->n, sizeof(*p), cmp_names);
	for (i = 0; i < a->n; i++) {
		a->names[i] = p[i].name;
		a->index[i] = p[i].idx;
	}
	free(p);
}

/*
 * Two members of one name (a zip's central directory may list a name
 * twice; libzip refuses it only with ZIP_CHECKCONS, which open_zip
 * leaves off): which one a reader gets is an accident (unzip and
 * Python's zipfile take the last, a binary search either), so such an
 * archive is refused.  After sort_members equal names are neighbours.
 */
static int
check_unique(const struct archive *a)
{
	size_t i;

	for (i = 0; i + 1 < a->n; i++)
		if (strcmp(a->names[i], a->names[i + 1]) == 0)
			return err_fail("two members named %s: readers would "
			    "disagree on which one is the profile's "
			    "(re-create the archive)", a->names[i]);
	return 0;
}

/*
 * A zip made of a folder (macOS's Compress, `zip -r x.zip proc0`) holds
 * the profile under one top folder: when no member is at the top and
 * every one is under the same folder, that folder is taken off their
 * names (and kept in A->top for a directory's paths).  Not the folders
 * of a profile's own members, "dump" and "nvtx_gpu_proj_trace": a
 * profile may hold nothing else (the XLA dumps alone, as -d names them;
 * a profile of only its trace).
 */
static void
strip_top(struct archive *a)
{
	static const char *const own[] = { "dump/", "nvtx_gpu_proj_trace/" };
	const char *slash;
	size_t i, k;

	if (a->n == 0 || (slash = strchr(a->names[0], '/')) == NULL)
		return;
	k = (size_t)(slash - a->names[0]) + 1;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (k == strlen(own[i]) && strncmp(a->names[0], own[i], k) == 0)
			return;
	for (i = 1; i < a->n; i++)
		if (strncmp(a->names[i], a->names[0], k) != 0)
			return;
	a->top = mem_alloc(k);
	memcpy(a->top, a->names[0], k - 1);
	a->top[k - 1] = '\0';
	for (i = 0; i < a->n; i++)
		memmove(a->names[i], a->names[i] + k, strlen(a->names[i] + k) + 1);
}

/* The file of member I of a directory on disk. */
static char *
disk_path(const struct archive *a, long i)
{
	char *top, *full;

	if (a->top == NULL)
		return mem_path(a->path, a->names[i]);
	top = mem_path(a->path, a->top);
	full = mem_path(top, a->names[i]);
	free(top);
	return full;
}

void
archive_quiet_tz(void)
{
	if (getenv("TZ") == NULL)
		(void)setenv("TZ", ":/etc/localtime", 0);
}

struct archive *
archive_open(const char *path)
{
	struct archive *a;
	struct stat st;
	int rc;

	if (stat(path, &st) != 0) {
		err_fail("cannot open: %s", strerror(errno));
		return NULL;
	}
	a = mem_calloc(1, sizeof(*a));
	a->path = mem_strdup(path);
	if (S_ISDIR(st.st_mode)) {
		struct walk w;

		memset(&w, 0, sizeof(w));
		w.dev[0] = st.st_dev;
		w.ino[0] = st.st_ino;
		rc = walk_dir(a, "", &w);
	} else
		rc = open_zip(a);
	if (rc != 0) {
		archive_close(a);
		return NULL;
	}
	strip_top(a);
	sort_members(a);
	if (check_unique(a) != 0) {
		archive_close(a);
		return NULL;
	}
	return a;
}

void
archive_close(struct archive *a)
{
	size_t i;

	if (a == NULL)
		return;
	if (a->zip)
		zip_discard(a->zip);
	for (i = 0; i < a->n; i++)
		free(a->names[i]);
	free(a->names);
	free(a->index);
	free(a->path);
	free(a->top);
	free(a);
}

const char *
archive_path(const struct archive *a)
{
	return a->path;
}

size_t
archive_count(const struct archive *a)
{
	return a->n;
}

const char *
archive_name(const struct archive *a, size_t i)
{
	return i < a->n ? a->names[i] : NULL;
}

static long
find(const struct archive *a, const char *name)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(a->names[mid], name);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int
archive_has(const struct archive *a, const char *name)
{
	return find(a, name) >= 0;
}

/*
 * Read in steps up to one read past the end: memory follows the bytes
 * really there, not the size the directory claims, and libzip checks the
 * CRC only when a read reaches the end of the member.
 */
static int
read_zip(struct archive *a, long i, uint8_t **data, size_t *len)
{
	zip_stat_t st;
	zip_file_t *f;
	zip_int64_t got;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (zip_stat_index(a->zip, (zip_uint64_t)a->index[i], 0, &st) != 0 ||
	    !(st.valid & ZIP_STAT_SIZE))
		return err_fail("%s: cannot stat member", a->names[i]);
	if ((f = zip_fopen_index(a->zip, (zip_uint64_t)a->index[i], 0)) == NULL)
		return err_fail("%s: cannot open member: %s", a->names[i],
		    zip_strerror(a->zip));
	/* The member's size from the directory, allocated once when the
	 * compressed size bounds it (deflate expands at most 1032 times)
	 * and the file holds that compressed size (a directory's claim
	 * alone would allocate what is not there): a doubling buffer
	 * copied a member's bytes twice over on average. */
	if ((st.valid & ZIP_STAT_COMP_SIZE) && st.size < ((zip_uint64_t)1 << 32) &&
	    st.comp_size <= a->bytes && st.size <= st.comp_size * 1032 + 65536) {
		cap = (size_t)st.size + 1;
		buf = mem_alloc(cap);
	} else
		mem_grow(&buf, &cap, 1, 1);
	for (;;) {
		size_t room;

		/* At the stated size, a read must find the end (which
		 * checks the CRC): a byte more is a wrong size. */
		if (n == st.size) {
			uint8_t more;

			if ((got = zip_fread(f, &more, 1)) > 0)
				n++;
			break;
		}
		if (n + 1 >= cap)
			mem_grow(&buf, &cap, n + 65536 + 1, 1);
		room = cap - n - 1;
		if (room > st.size - n)
			room = (size_t)(st.size - n);
		if ((got = zip_fread(f, buf + n, room)) <= 0)
			break;
		n += (size_t)got;
	}
	if (got < 0 || n != st.size) {
		err_fail("%s: truncated or corrupt member (%s)", a->names[i],
		    got < 0 ? zip_file_strerror(f) : "wrong size");
		zip_fclose(f);
		free(buf);
		return -1;
	}
	if (zip_fclose(f) != 0) {
		free(buf);
		return err_fail("%s: truncated or corrupt member (bad CRC)",
		    a->names[i]);
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static int
read_file(struct archive *a, long i, uint8_t **data, size_t *len)
{
	char *full = disk_path(a, i);
	FILE *fp;
	int rc;

	fp = fopen(full, "rb");
	free(full);
	if (fp == NULL)
		return err_fail("%s: cannot open: %s", a->names[i],
		    strerror(errno));
	rc = mem_read_all(fp, data, len);
	fclose(fp);
	if (rc != 0)
		return err_fail("%s: read error", a->names[i]);
	return 0;
}

int
archive_read(struct archive *a, const char *name, uint8_t **data, size_t *len)
{
	long i = find(a, name);

	if (i < 0)
		return err_fail("%s: missing member", name);
	return a->zip ? read_zip(a, i, data, len) : read_file(a, i, data, len);
}

int
archive_read_plain(struct archive *a, const char *name, uint8_t **data,
    size_t *len)
{
	uint8_t *raw;
	size_t rawlen;
	int rc;

	if (archive_read(a, name, &raw, &rawlen) != 0)
		return -1;
	/* By content, not name: a combined archive stores "X.xz/<profile>". */
	if (!xz_is_xz_data(raw, rawlen)) {
		*data = raw;
		*len = rawlen;
		return 0;
	}
	rc = xz_decode(raw, rawlen, data, len);
	free(raw);
	if (rc != 0)
		return err_prefix("%s", name);
	return 0;
}

int
archive_stat(struct archive *a, const char *name, uint64_t *size,
    uint32_t *crc)
{
	long i = find(a, name);
	zip_stat_t zs;
	struct stat st;
	char *full;
	int rc;

	if (i < 0)
		return err_fail("%s: missing member", name);
	*crc = 0;
	if (a->zip) {
		if (zip_stat_index(a->zip, (zip_uint64_t)a->index[i], 0,
		    &zs) != 0 || !(zs.valid & ZIP_STAT_SIZE))
			return err_fail("%s: cannot stat member", name);
		*size = zs.size;
		if (!(zs.valid & ZIP_STAT_CRC))
			return 0;
		*crc = zs.crc;
		return 1;
	}
	full = disk_path(a, i);
	rc = stat(full, &st);
	free(full);
	if (rc != 0)
		return err_fail("%s: cannot stat member: %s", name,
		    strerror(errno));
	*size = (uint64_t)st.st_size;
	return 0;
}

/* CRC-32 and size of the stream FP (a file, or NULL with a zip member F)
 * into *SIZE, *CRC: 0, or -1 on a read error. */
static int
crc_stream(FILE *fp, zip_file_t *f, uint64_t *size, uint32_t *crc)
{
	static unsigned char buf[1 << 16];
	uLong c = crc32(0L, Z_NULL, 0);
	uint64_t n = 0;

	for (;;) {
		zip_int64_t got = fp ? (zip_int64_t)fread(buf, 1, sizeof(buf),
		    fp) : zip_fread(f, buf, sizeof(buf));

		if (got < 0 || (fp && got == 0 && ferror(fp)))
			return -1;
		if (got == 0)
			break;
		c = crc32(c, buf, (uInt)got);
		n += (uint64_t)got;
	}
	*size = n;
	*crc = (uint32_t)c;
	return 0;
}

int
archive_file_digest(const char *path, uint64_t *size, uint32_t *crc)
{
	FILE *fp = fopen(path, "rb");
	int rc;

	if (fp == NULL)
		return err_fail("%s: cannot open: %s", path, strerror(errno));
	rc = crc_stream(fp, NULL, size, crc);
	fclose(fp);
	return rc == 0 ? 0 : err_fail("%s: read error", path);
}

int
archive_digest(struct archive *a, const char *name, uint64_t *size,
    uint32_t *crc)
{
	long i = find(a, name);
	zip_file_t *f;
	char *full;
	int rc;

	if (i < 0)
		return err_fail("%s: missing member", name);
	if (a->zip == NULL) {
		full = disk_path(a, i);
		rc = archive_file_digest(full, size, crc);
		free(full);
		return rc == 0 ? 0 : err_prefix("%s", name);
	}
	if (archive_stat(a, name, size, crc) == 1)
		return 0;	/* the central directory's */
	if ((f = zip_fopen_index(a->zip, (zip_uint64_t)a->index[i], 0)) == NULL)
		return err_fail("%s: cannot open member: %s", name,
		    zip_strerror(a->zip));
	rc = crc_stream(NULL, f, size, crc);
	if (zip_fclose(f) != 0 || rc != 0)
		return err_fail("%s: truncated or corrupt member", name);
	return 0;
}
