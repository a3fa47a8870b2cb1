/*
 * The nvtx_pushpop_trace report in any of its forms (CSV, xz-compressed
 * CSV, nsys-jax's parquet), told apart by content: the one format
 * dispatch of the compile frame, for nsysjax-extract's archive members
 * and nsysjax-compilestats' report files alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/xz.h"
#include "profile/compile.h"
#include "profile/nsysdb.h"

int
compile_parse_report(const char *name, uint8_t **data, size_t *len,
    struct compile_range **r, size_t *n)
{
	if (xz_is_xz_data(*data, *len)) {
		uint8_t *plain;
		size_t plen;

		if (xz_decode(*data, *len, &plain, &plen) != 0)
			return err_prefix("%s", name);
		free(*data);
		*data = plain;
		*len = plen;
	}
	if (*len >= 4 && memcmp(*data, "PAR1", 4) == 0) {
		if (compile_parse_parquet(*data, *len, r, n) != 0)
			return err_prefix("%s", name);
		return 0;
	}
	if (compile_parse_csv((const char *)*data, *len, r, n) != 0)
		return err_prefix_at("%s", name);
	return 0;
}

/* Whether FP (rewound after) starts like a SQLite database. */
static int
is_export(FILE *fp)
{
	uint8_t hdr[16];
	size_t got = fread(hdr, 1, sizeof(hdr), fp);

	rewind(fp);
	return nsysdb_is_sqlite(hdr, got);
}

/*
 * The push/pop ranges of the nsys SQLite export at PATH, or held in
 * DATA[0..LEN) when DATA is set: what `nsys stats --report
 * nvtx_pushpop_trace` gives for it (nsysdb.h).
 */
static int
export_ranges(const char *path, const uint8_t *data, size_t len,
    struct compile_range **r, size_t *n)
{
	struct nsysdb d;
	int rc;

	rc = data ? nsysdb_open_mem(&d, data, len) : nsysdb_open(&d, path);
	if (rc == 0)
		rc = nsysdb_load_nvtx(&d);
	if (rc == 0)
		rc = nsysdb_pushpop(&d, r, n);
	nsysdb_free(&d);
	return rc != 0 ? err_prefix_at("%s", path) : 0;
}

int
compile_load_report(struct compile_frame *f, const char *path,
    const char *profile, int flags)
{
	int std = strcmp(path, "-") == 0;
	const char *name = std ? "<stdin>" : path;
	struct compile_range *r = NULL;
	uint8_t *data = NULL;
	size_t len = 0, n = 0;
	FILE *fp;
	int rc;

	if ((fp = std ? stdin : fopen(path, "rb")) == NULL)
		return err_fail("%s: cannot open: %s", name, strerror(errno));
	if (!std && (is_export(fp) || (strlen(path) > 7 &&
	    strcmp(path + strlen(path) - 7, ".sqlite") == 0))) {
		fclose(fp);
		rc = export_ranges(path, NULL, 0, &r, &n);
	} else {
		if ((rc = mem_read_all(fp, &data, &len)) != 0)
			err_fail("%s: read error: %s", name, strerror(errno));
		if (!std)
			fclose(fp);
		if (rc == 0 && nsysdb_is_sqlite(data, len))
			rc = export_ranges(name, data, len, &r, &n);
		else if (rc == 0)
			rc = compile_parse_report(name, &data, &len, &r, &n);
	}
	free(data);
	if (rc == 0 && (rc = compile_add_profile(f, profile, r, n, NULL, NULL,
	    flags)) != 0)
		err_prefix("%s", name);
	compile_ranges_free(r, n);
	return rc;
}
