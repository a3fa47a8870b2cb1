#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/sqldb.h"

struct sqldb {
	sqlite3 *db;
	int utf8;		/* text stored as UTF-8 (PRAGMA encoding) */
};

struct sqldb_stmt {
	sqlite3_stmt *st;
	sqlite3 *db;
	int utf8;
};

static const char magic[16] = "SQLite format 3";	/* and its NUL */

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

int
sqldb_check_header(const uint8_t *data, size_t len, uint64_t len_total)
{
	uint64_t pagesize, npages;
	size_t i;

	if (len_total == 0)
		return err_fail("empty file");
	for (i = 0; i < len && data[i] == 0; i++)
		;
	if (i == len && len >= 16)
		return err_fail("zeroed SQLite header (an interrupted export? "
		    "export the report again)");
	if (len < 16 || memcmp(data, magic, 16) != 0)
		return err_fail("not a SQLite database");
	if (len < 100)
		return err_fail("truncated SQLite file (%llu bytes)",
		    (unsigned long long)len_total);
	/* Header fields (sqlite.org/fileformat2.html §1.3): page size at
	 * 16 (1 means 65536), page count at 28, valid when the "version
	 * valid for" number at 92 equals the change counter at 24. */
	pagesize = (uint64_t)data[16] << 8 | data[17];
	if (pagesize == 1)
		pagesize = 65536;
	npages = be32(data + 28);
	if (pagesize >= 512 && (pagesize & (pagesize - 1)) == 0 &&
	    be32(data + 92) == be32(data + 24) && npages > 0 &&
	    pagesize * npages > len_total)
		return err_fail("truncated SQLite file (%llu of %llu bytes)",
		    (unsigned long long)len_total,
		    (unsigned long long)(pagesize * npages));
	return 0;
}

/* "corrupt SQLite database: ..." for the codes that mean a bad file. */
static int
fail_db(sqlite3 *db, int rc)
{
	const char *m = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	rc &= 0xff;
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		return err_fail("corrupt SQLite database: %s", m);
	return err_fail("%s", m);
}

/*
 * A first read of the schema: sqlite3_open does not read the file.  The
 * file is input, not code: its schema may not call functions
 * (trusted_schema off) and the connection is defensive.
 */
static struct sqldb *
finish_open(sqlite3 *db)
{
	struct sqldb *s;
	sqlite3_stmt *st = NULL;
	int rc;

	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1,
	    &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_OK && rc != SQLITE_ROW) {
		fail_db(db, rc);
		sqlite3_finalize(st);
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_finalize(st);
	s = mem_alloc(sizeof(*s));
	s->db = db;
	s->utf8 = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA encoding", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *e = sqlite3_column_text(st, 0);

		s->utf8 = e != NULL && strcmp((const char *)e, "UTF-8") == 0;
	}
	sqlite3_finalize(st);
	return s;
}

/* PATH as a file: URI (sqlite.org/uri.html): '%', '?', '#' escaped. */
static char *
uri(const char *path)
{
	char *u = mem_alloc(strlen(path) * 3 + 32), *p = u;

	p += sprintf(p, "file:");
	for (; *path; path++)
		if (*path == '%' || *path == '?' || *path == '#')
			p += sprintf(p, "%%%02X", (unsigned char)*path);
		else
			*p++ = *path;
	strcpy(p, "?immutable=1");
	return u;
}

struct sqldb *
sqldb_open(const char *path)
{
	uint8_t hdr[100];
	struct stat sb;
	sqlite3 *db = NULL;
	size_t got;
	FILE *fp;
	char *u;
	int rc;

	if ((fp = fopen(path, "rb")) == NULL) {
		err_fail("cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		fclose(fp);
		err_fail("not a regular file");
		return NULL;
	}
	got = fread(hdr, 1, sizeof(hdr), fp);
	fclose(fp);
	if (sqldb_check_header(hdr, got, (uint64_t)sb.st_size) != 0)
		return NULL;
	u = uri(path);
	/* NOMUTEX: a connection is only ever used by one thread at a time
	 * (nsysdb reads ranges and operations over two connections), so
	 * SQLite's per-call locking is pure cost: 9% of -f nvtx's CPU. */
	rc = sqlite3_open_v2(u, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
	    SQLITE_OPEN_NOMUTEX, NULL);
	free(u);
	if (rc != SQLITE_OK) {
		fail_db(db, rc);
		sqlite3_close(db);
		return NULL;
	}
	return finish_open(db);
}

struct sqldb *
sqldb_open_mem(const uint8_t *data, size_t len)
{
	sqlite3 *db = NULL;
	unsigned char *copy;
	int rc;

	if (sqldb_check_header(data, len < 100 ? len : 100, len) != 0)
		return NULL;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		fail_db(db, SQLITE_ERROR);
		sqlite3_close(db);
		return NULL;
	}
	if ((copy = sqlite3_malloc64(len)) == NULL) {
		sqlite3_close(db);
		err_fail("out of memory for a %zu-byte database", len);
		return NULL;
	}
	memcpy(copy, data, len);
	rc = sqlite3_deserialize(db, "main", copy, (sqlite3_int64)len,
	    (sqlite3_int64)len, SQLITE_DESERIALIZE_FREEONCLOSE |
	    SQLITE_DESERIALIZE_READONLY);
	if (rc != SQLITE_OK) {
		fail_db(db, rc);
		sqlite3_close(db);
		return NULL;
	}
	return finish_open(db);
}

void
sqldb_close(struct sqldb *db)
{
	if (db == NULL)
		return;
	sqlite3_close(db->db);
	free(db);
}

/* Whether the prepared question ST (its parameters bound) has a row: 1,
 * 0, or -1 with the database's error (a corrupt schema is no answer
 * "absent": it read as "no table X" before). */
static int
any_row(struct sqldb *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return fail_db(db->db, rc);
}

int
sqldb_has_table(struct sqldb *db, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = sqlite3_prepare_v2(db->db, "SELECT 1 FROM sqlite_master "
	    "WHERE type = 'table' AND name = ?1 COLLATE NOCASE", -1, &st,
	    NULL)) != SQLITE_OK)
		return fail_db(db->db, rc);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	return any_row(db, st);
}

int
sqldb_has_column(struct sqldb *db, const char *table, const char *col)
{
	sqlite3_stmt *st;
	int rc;

	/* The table-valued pragma takes the name as a bound value. */
	if ((rc = sqlite3_prepare_v2(db->db, "SELECT 1 FROM "
	    "pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE", -1, &st,
	    NULL)) != SQLITE_OK)
		return fail_db(db->db, rc);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	return any_row(db, st);
}

struct sqldb_stmt *
sqldb_prepare(struct sqldb *db, const char *sql)
{
	struct sqldb_stmt *s;
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL)) !=
	    SQLITE_OK) {
		fail_db(db->db, rc);
		err_prefix("query %.200s", sql);
		sqlite3_finalize(st);
		return NULL;
	}
	s = mem_alloc(sizeof(*s));
	s->st = st;
	s->db = db->db;
	s->utf8 = db->utf8;
	return s;
}

int
sqldb_step(struct sqldb_stmt *st)
{
	int rc = sqlite3_step(st->st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return fail_db(st->db, rc);
}

int
sqldb_isnull(struct sqldb_stmt *st, int i)
{
	return sqlite3_column_type(st->st, i) == SQLITE_NULL;
}

int64_t
sqldb_i64(struct sqldb_stmt *st, int i)
{
	return sqlite3_column_int64(st->st, i);
}

int
sqldb_get_i64(struct sqldb_stmt *st, int i, int64_t *v)
{
	sqlite3_value *x = sqlite3_column_value(st->st, i);

	if (sqlite3_value_type(x) == SQLITE_NULL)
		return 0;
	*v = sqlite3_value_int64(x);
	return 1;
}

const char *
sqldb_text(struct sqldb_stmt *st, int i, size_t *len)
{
	const char *s = (const char *)sqlite3_column_text(st->st, i);

	*len = s ? (size_t)sqlite3_column_bytes(st->st, i) : 0;
	return s;
}

const char *
sqldb_bytes(struct sqldb_stmt *st, int i, size_t *len)
{
	const char *s;

	if (!st->utf8)
		return sqldb_text(st, i, len);
	if (sqlite3_column_type(st->st, i) == SQLITE_NULL) {
		*len = 0;
		return NULL;
	}
	/* The value's bytes where they are: a text's in UTF-8, as
	 * sqldb_text's, but not copied to be NUL-terminated. */
	s = sqlite3_column_blob(st->st, i);
	*len = (size_t)sqlite3_column_bytes(st->st, i);
	return s ? s : "";
}

void
sqldb_finalize(struct sqldb_stmt *st)
{
	if (st == NULL)
		return;
	sqlite3_finalize(st->st);
	free(st);
}
