/*
 * compile_impl.h: what the two readers of compile.h (compile_csv.c,
 * compile_parquet.c) share alone: the columns of nsys' nvtx_pushpop_trace
 * report they take; everyone else sees compile.h.
 */
#ifndef NSYSJAX_COMPILE_IMPL_H
#define NSYSJAX_COMPILE_IMPL_H

/* The columns a reader needs, by role. */
enum {
	C_START, C_END, C_DUR, C_DCHILD, C_DNONCHILD, C_NAME, C_TID,
	C_NUMCHILD, C_RANGEID, C_PARENTID, C_STACK, NCOL
};

/* Their names as the CSV report heads them (times "(ns)"), by role
 * (compile.c). */
extern const char *const compile_colname[NCOL];

#endif
