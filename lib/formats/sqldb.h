/*
 * sqldb: read-only access to a SQLite database file (an nsys export) with
 * the sqlite3 library, behind a few safe calls: the 100-byte file header
 * is checked before the library sees the file, so that the common bad
 * inputs get one clear message (not a database, zeroed header of an
 * interrupted export, cut short), and tables and columns can be probed
 * before a query names them.  Knows nothing of nsys.
 *
 * Messages (err.h) never include the path; callers prefix it.
 */
#ifndef NSYSJAX_SQLDB_H
#define NSYSJAX_SQLDB_H

#include <stddef.h>
#include <stdint.h>

struct sqldb;
struct sqldb_stmt;

/*
 * Open the database file PATH read-only (immutable: no lock, no journal,
 * so read-only media work).  Returns NULL with an err message: "cannot
 * open: <strerror>", "empty file", "truncated SQLite file (N bytes)",
 * "zeroed SQLite header (an interrupted export?)", "not a SQLite database",
 * "corrupt SQLite database: <sqlite message>".
 */
struct sqldb *sqldb_open(const char *path);

/*
 * The same for a database held in memory, DATA[0..LEN) (an archive
 * member); the bytes are copied.
 */
struct sqldb *sqldb_open_mem(const uint8_t *data, size_t len);

/* Release everything; NULL is allowed. */
void sqldb_close(struct sqldb *db);

/*
 * Check the 100-byte header of DATA[0..LEN) (the first bytes of a file,
 * LEN < 100 when the file is shorter): 0 when it is a SQLite 3 header,
 * else -1 with the messages of sqldb_open.  LEN_TOTAL is the file size.
 */
int sqldb_check_header(const uint8_t *data, size_t len, uint64_t len_total);

/* Whether table NAME exists (case-insensitive, as SQL names are): 1 or
 * 0; a view of that name does not count (nsys writes tables).  -1 with
 * an err message ("corrupt SQLite database: ...") when the schema
 * cannot be read: callers that take -1 for "present" then fail on the
 * table's own query with that message, never with "no table NAME". */
int sqldb_has_table(struct sqldb *db, const char *name);

/* Whether TABLE exists and has column COL (PRAGMA table_info): 1, 0, or
 * -1 as sqldb_has_table. */
int sqldb_has_column(struct sqldb *db, const char *table, const char *col);

/*
 * Prepare SQL.  Returns NULL with an err message "<sqlite message> in:
 * <sql>" (the SQL cut to 200 bytes).
 */
struct sqldb_stmt *sqldb_prepare(struct sqldb *db, const char *sql);

/*
 * Step ST: 1 when a row is ready, 0 when done, -1 with an err message
 * ("corrupt SQLite database: ..." and the like).
 */
int sqldb_step(struct sqldb_stmt *st);

/* Column I (0-based) of the current row: whether it is NULL, its value
 * as an integer (0 for NULL; text is converted as SQLite does), and as
 * text (NULL for NULL; *LEN bytes, NUL-terminated, valid until the next
 * step). */
int sqldb_isnull(struct sqldb_stmt *st, int i);
int64_t sqldb_i64(struct sqldb_stmt *st, int i);
const char *sqldb_text(struct sqldb_stmt *st, int i, size_t *len);

/* Column I as sqldb_text gives it, *LEN bytes (NULL for NULL), but not
 * NUL-terminated: the bytes where SQLite holds them, not a terminated
 * copy (of a text column of millions of rows, the copies cost as much
 * as the scan).  Valid until the next step. */
const char *sqldb_bytes(struct sqldb_stmt *st, int i, size_t *len);

/* Column I as an integer into *V (as sqldb_i64) unless it is NULL: 1,
 * or 0 for NULL (*V untouched).  One column fetch where sqldb_isnull and
 * sqldb_i64 make two; the readers of million-row tables use it. */
int sqldb_get_i64(struct sqldb_stmt *st, int i, int64_t *v);

/* Finalize ST; NULL is allowed. */
void sqldb_finalize(struct sqldb_stmt *st);

#endif
