/*
 * nsysdb_impl.h: what nsysdb.c (the schema and the readers of an nsys
 * export) shares with nsysdb_out.c (the names, rows and ranges it hands
 * out) alone; everyone else sees nsysdb.h.
 */
#ifndef NSYSJAX_NSYSDB_IMPL_H
#define NSYSJAX_NSYSDB_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "profile/nsysdb.h"

struct sqldb_stmt;

/* NVTX event types (ENUM_NSYS_EVENT_TYPE, nsys's SQLite schema), the
 * order of nsysdb.types. */
enum { T_PUSHPOP, T_STARTEND, T_TPUSHPOP, T_TSTARTEND, T_DOMAIN, NTYPES };

#define MAX_NS		((int64_t)1 << 60)
#define TIDBITS		((int64_t)0xFFFFFF)
#define PIDOF(g)	(((g) >> 24) & TIDBITS)
#define TIDOF(g)	((g) & TIDBITS)

/* The SQL expression for column C of TABLE: C, or NULL if absent. */
const char *nsysdb_col(struct nsysdb *d, const char *table, const char *c);

/* Range I's text from the arena, read from cursor C onwards (names are
 * mostly asked for in range order), else from the nearest indexed
 * entry. */
const char *nsysdb_text_of(const struct nsysdb *d, size_t i,
    struct nsysdb_cursor *c);

/* Append range I's text entry from columns ID (textId) and TEXT of ST. */
void nsysdb_text_entry(struct nsysdb *d, size_t i, struct sqldb_stmt *st,
    int id, int text);

#endif
