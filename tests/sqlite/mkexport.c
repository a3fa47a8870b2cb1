/*
 * mkexport: write nsys SQLite exports for the tests, with the tables and
 * columns nsys writes (NSYS-SQLITE.md §2: NVTX_EVENTS, StringIds,
 * ThreadNames, CUPTI_ACTIVITY_KIND_{RUNTIME,KERNEL,MEMCPY,MEMSET},
 * CUDA_GRAPH_NODE_EVENTS, ENUM_NSYS_EVENT_TYPE, META_DATA_EXPORT).  Test
 * code only: nothing here is read by the tools.
 *
 *	mkexport spec SPEC OUT.sqlite
 *	mkexport archive [-g MODULE:NAME:FIRST:LAST]... DIR OUT.sqlite
 *	mkexport archive-2026 DIR OUT.sqlite
 *	mkexport synth NRANGES NCALLS NOPS NTHREADS OUT.sqlite
 *
 * "spec" writes the small hand-made export described by the text file
 * SPEC (or "-", stdin), one row per line, fields separated by blanks, "-"
 * for NULL, "#" comments; TEXT is the rest of the line, "@TEXT" a
 * registered string (textId):
 *
 *	thread GTID NAME			ThreadNames
 *	domain ROWID GTID DOMAINID START NAME	NvtxDomainCreate (75)
 *	nvtx ROWID TYPE GTID START END ENDGTID DOMAINID TEXT
 *						a range (TYPE 59, 60, 70, 71)
 *	call GTID START END CORR CLASS		CUPTI_ACTIVITY_KIND_RUNTIME
 *	kernel|memcpy|memset START END CORR GPID DEVICE STREAM NODE
 *	node GTID START END NODEID ORIGID	CUDA_GRAPH_NODE_EVENTS
 *	omit TABLE				do not create TABLE
 *
 * and, for XLA command buffers:
 *
 *	kernel ... NODE NAME			a kernel with its shortName
 *	graph START END CORR GPID DEVICE STREAM GRAPHID
 *					CUPTI_ACTIVITY_KIND_GRAPH_TRACE (a
 *					graph launch; the table exists only
 *					in a spec with such lines)
 *	hlo ID MODULE NAME:OPCODE ...		dump/module_NNNN.MODULE.sm_9.0_
 *					gpu_after_optimizations.hlo.pb beside
 *					OUT: those instructions in the entry
 *					computation, f32[] each, with ids
 *					(HloInstructionProto.id) 1, 2, ...
 *					in order
 *	thunkmeta ID MODULE NAME:KIND ...	dump/module_NNNN.MODULE.thunk_
 *					metadata.pb: XLA's thunk metadata
 *					(xla.gpu.ThunkMetadataListProto), in
 *					that order; NAME "-" for none
 *
 * "archive" converts an extracted nsys-jax archive DIR (one process:
 * nvtx_gpu_proj_trace/trace.parquet in the <= 2024.4 layout,
 * thread-metadata.parquet, report_nvtx_pushpop_trace.csv[.xz]) into the
 * export nsys would have written for it: every push/pop range of the
 * report and every projected range of the trace as an NVTX_EVENTS row
 * (rowid = RangeId, "domain:text" split into a domain and a registered
 * string), and for each projected range as many launch calls and kernels
 * of its own as its NumGPUOps exceeds its children's, placed on its
 * thread in a gap of its CPU interval that no nested range covers, whose
 * GPU times make its projected interval.  A range whose projection
 * cannot be reproduced so is reported and the exit status is 1.
 *
 * "archive-2026" does the same and names the thunks as XLA does since
 * mid-2026, "Thunk:#[name=N,]hlo_op=OP,unique_hlo_op_id=ID#", ID the id
 * of instruction OP in the module's dump in DIR (name_2026), and the
 * autotuner pass "XlaPass:#name=autotuner,...#" (pass_2026).
 *
 * -g writes the same run with an XLA command buffer NAME, traced per
 * graph node (nsys --cuda-graph-trace=node), in place of the consecutive
 * thunks FIRST..LAST of each execution of MODULE: a range
 * Thunk:#hlo_op=NAME# over theirs.  As XLA does, the first execution is
 * the warm-up (the thunks' ranges and launches as they were, nested in
 * the buffer's); every later one launches the graph: no thunk ranges,
 * one call in the buffer's range, and each thunk's kernel (at its GPU
 * times; one kernel per thunk) with that call's correlation id, a graph
 * node id and XLA's kernel name (the instruction's, '.' and '-' as '_').
 * The second execution creates the nodes (CUDA_GRAPH_NODE_EVENTS:
 * originals in its buffer's range, and the clones the kernels carry).
 *
 * "synth" writes a large export for make bench, shaped like the PyTorch
 * trace of nsys-ai's largest reported case (16 M NVTX ranges, 7 M runtime
 * calls, 2.2 M kernels, 5 threads): on each thread, chains of 4 nested
 * push/pop ranges with unique names ("aten::op_N, op_id = N"), the calls
 * spread over the innermost ranges, a kernel for NOPS of the NCALLS
 * calls (spread evenly), one process.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/archive.h"
#include "formats/hlo.h"
#include "formats/pbwire.h"
#include "hlo.pb-c.h"
#include "profile/compile.h"
#include "profile/nvtx.h"
#include "profile/trace.h"

#define VM	((int64_t)1 << 48)	/* the VM byte nsys sets (§2.4) */

static sqlite3 *db;
static int omit_runtime, omit_kernel, omit_nvtx, omit_enum, omit_memcpy;
static int has_graph_trace;	/* a spec with "graph" lines */
static const char *out_path;	/* the export being written */

static void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mkexport: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void
exec(const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		die("%s: %s", sql, msg);
}

static sqlite3_stmt *
prep(const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die("%s: %s", sql, sqlite3_errmsg(db));
	return st;
}

static void
run(sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		die("insert: %s", sqlite3_errmsg(db));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Bind "-" as NULL, else an integer. */
static void
bind_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (strcmp(v, "-") == 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, strtoll(v, NULL, 0));
}

static sqlite3_stmt *ins_str, *ins_nvtx, *ins_thread, *ins_call, *ins_node;
static sqlite3_stmt *ins_graph;
static sqlite3_stmt *ins_op[3];

static int64_t string_id(const char *s);
static void write_hlo(int64_t id, const char *name, char *list);
static void write_thunkmeta(int64_t id, const char *name, char *list);

/* A GPU operation; NAME (a kernel's shortName) may be NULL. */
static void
op_row_named(int kind, int64_t start, int64_t end, const char *corr,
    int64_t gpid, int64_t dev, int64_t stream, const char *node,
    const char *name)
{
	sqlite3_stmt *st = ins_op[kind];

	if (st == NULL)
		return;
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	sqlite3_bind_int64(st, 3, dev);
	sqlite3_bind_int64(st, 4, stream);
	bind_opt(st, 5, corr);
	sqlite3_bind_int64(st, 6, gpid);
	bind_opt(st, 7, node);
	if (name)
		sqlite3_bind_int64(st, 8, string_id(name));
	run(st);
}
static int64_t next_string = 1;

/* The schema of nsys 2026.2 (schema 3.25.0), cut to the columns read. */
static void
create(void)
{
	static const char *const ops[3] = { "KERNEL", "MEMCPY", "MEMSET" };
	char sql[512];
	int i;

	exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, "
	    "value TEXT NOT NULL)");
	exec("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)");
	exec("INSERT INTO META_DATA_EXPORT VALUES "
	    "('EXPORT_SCHEMA_VERSION', '3.25.0'), "
	    "('EXPORT_PRODUCT_VERSION', 'mkexport')");
	if (!omit_enum) {
		exec("CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER, name TEXT, "
		    "label TEXT)");
		exec("INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES "
		    "(34, 'NvtxMark', ''), (59, 'NvtxPushPopRange', ''), "
		    "(60, 'NvtxStartEndRange', ''), (70, 'NvtxtPushPopRange', ''), "
		    "(71, 'NvtxtStartEndRange', ''), (75, 'NvtxDomainCreate', '')");
	}
	if (!omit_nvtx)
		exec("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end "
		    "INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, "
		    "category INTEGER, color INTEGER, text TEXT, globalTid "
		    "INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId "
		    "INTEGER, jsonText TEXT)");
	exec("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority "
	    "INTEGER, globalTid INTEGER)");
	if (!omit_runtime)
		exec("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT "
		    "NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
		    "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT "
		    "NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)");
	for (i = 0; i < 3; i++) {
		if ((i == 0 && omit_kernel) || (i == 1 && omit_memcpy))
			continue;
		snprintf(sql, sizeof(sql), "CREATE TABLE "
		    "CUPTI_ACTIVITY_KIND_%s (start INTEGER NOT NULL, end INTEGER "
		    "NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT "
		    "NULL, streamId INTEGER NOT NULL, correlationId INTEGER, "
		    "globalPid INTEGER, graphNodeId INTEGER, shortName INTEGER)",
		    ops[i]);
		exec(sql);
		snprintf(sql, sizeof(sql), "INSERT INTO CUPTI_ACTIVITY_KIND_%s "
		    "VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8)", ops[i]);
		ins_op[i] = prep(sql);
	}
	if (has_graph_trace) {
		exec("CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER "
		    "NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
		    "contextId INTEGER NOT NULL, greenContextId INTEGER, streamId "
		    "INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
		    "graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL)");
		ins_graph = prep("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
		    "VALUES (?1, ?2, ?3, 1, NULL, ?4, ?5, ?6, ?7, ?7)");
	}
	exec("CREATE TABLE CUDA_GRAPH_NODE_EVENTS (start INTEGER NOT NULL, end "
	    "INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, "
	    "nameId INTEGER, graphNodeId INTEGER NOT NULL, originalGraphNodeId "
	    "INTEGER)");
	ins_str = prep("INSERT INTO StringIds VALUES (?1, ?2)");
	if (!omit_nvtx)
		ins_nvtx = prep("INSERT INTO NVTX_EVENTS (rowid, start, end, "
		    "eventType, globalTid, endGlobalTid, domainId, textId, text) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
	ins_thread = prep("INSERT INTO ThreadNames VALUES (?1, 0, ?2)");
	if (!omit_runtime)
		ins_call = prep("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES "
		    "(?1, ?2, ?3, ?4, ?5, 1, 0, NULL)");
	ins_node = prep("INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES "
	    "(?1, ?2, 77, ?3, NULL, ?4, ?5)");
	exec("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000')");
	next_string = 2;
}

/* A registered string: a new StringIds row (duplicates are harmless). */
static int64_t
string_id(const char *s)
{
	sqlite3_bind_int64(ins_str, 1, next_string);
	sqlite3_bind_text(ins_str, 2, s, -1, SQLITE_TRANSIENT);
	run(ins_str);
	return next_string++;
}

/* An NVTX row; TEXT "@x" is registered, NULL none. */
static void
nvtx_row(int64_t rowid, int64_t type, int64_t gtid, int64_t start,
    const char *end, const char *endgtid, const char *domain,
    const char *text)
{
	if (ins_nvtx == NULL)
		return;
	sqlite3_bind_int64(ins_nvtx, 1, rowid);
	sqlite3_bind_int64(ins_nvtx, 2, start);
	bind_opt(ins_nvtx, 3, end);
	sqlite3_bind_int64(ins_nvtx, 4, type);
	sqlite3_bind_int64(ins_nvtx, 5, gtid);
	bind_opt(ins_nvtx, 6, endgtid);
	bind_opt(ins_nvtx, 7, domain);
	if (text && text[0] == '@')
		sqlite3_bind_int64(ins_nvtx, 8, string_id(text + 1));
	else if (text)
		sqlite3_bind_text(ins_nvtx, 9, text, -1, SQLITE_TRANSIENT);
	run(ins_nvtx);
}

static void
thread_row(int64_t gtid, const char *name)
{
	sqlite3_bind_int64(ins_thread, 1, string_id(name));
	sqlite3_bind_int64(ins_thread, 2, gtid);
	run(ins_thread);
}

static void
call_row(int64_t gtid, int64_t start, int64_t end, int64_t corr, int cls)
{
	if (ins_call == NULL)
		return;
	sqlite3_bind_int64(ins_call, 1, start);
	sqlite3_bind_int64(ins_call, 2, end);
	sqlite3_bind_int64(ins_call, 3, cls);
	sqlite3_bind_int64(ins_call, 4, gtid);
	sqlite3_bind_int64(ins_call, 5, corr);
	run(ins_call);
}

static void
op_row(int kind, int64_t start, int64_t end, const char *corr, int64_t gpid,
    int64_t dev, int64_t stream, const char *node)
{
	op_row_named(kind, start, end, corr, gpid, dev, stream, node, NULL);
}

/* ---- spec ---- */

/* Split LINE into at most MAX blank-separated fields; the last takes
 * the rest of the line. */
static int
fields(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '\0' || *line == '\n')
			break;
		f[n++] = line;
		if (n == max) {
			line[strcspn(line, "\n")] = '\0';
			break;
		}
		line += strcspn(line, " \t\n");
		if (*line)
			*line++ = '\0';
	}
	return n;
}

static int64_t
num(const char *s)
{
	return strtoll(s, NULL, 0);
}

/* The fields of each kind of spec line (the last takes the rest). */
static int
nfields(const char *line)
{
	static const struct { const char *w; int n; } v[] = {
		{ "thread", 3 }, { "domain", 6 }, { "nvtx", 9 }, { "call", 6 },
		{ "kernel", 9 }, { "memcpy", 8 }, { "memset", 8 }, { "node", 6 },
		{ "graph", 8 }, { "hlo", 4 }, { "thunkmeta", 4 }
	};
	size_t i, len = strcspn(line, " \t\n");

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (strlen(v[i].w) == len && strncmp(line, v[i].w, len) == 0)
			return v[i].n;
	return 1;
}

static void
spec_line(char *line, int lineno)
{
	char *f[12];
	int n, k;

	while (*line == ' ' || *line == '\t')
		line++;
	n = fields(line, f, nfields(line));
	if (n == 0 || f[0][0] == '#')
		return;
	if (strcmp(f[0], "thread") == 0 && n >= 3) {
		thread_row(num(f[1]), f[2]);
	} else if (strcmp(f[0], "domain") == 0 && n >= 6) {
		nvtx_row(num(f[1]), 75, num(f[2]), num(f[4]), "-", "-", f[3],
		    f[5]);
	} else if (strcmp(f[0], "nvtx") == 0 && n >= 8) {
		nvtx_row(num(f[1]), num(f[2]), num(f[3]), num(f[4]), f[5], f[6],
		    f[7], n > 8 ? f[8] : NULL);
	} else if (strcmp(f[0], "call") == 0 && n >= 6) {
		call_row(num(f[1]), num(f[2]), num(f[3]), num(f[4]),
		    (int)num(f[5]));
	} else if ((k = strcmp(f[0], "kernel") == 0 ? 0 :
	    strcmp(f[0], "memcpy") == 0 ? 1 : strcmp(f[0], "memset") == 0 ?
	    2 : -1) >= 0 && n >= 8) {
		op_row_named(k, num(f[1]), num(f[2]), f[3], num(f[4]),
		    num(f[5]), num(f[6]), f[7], n > 8 ? f[8] : NULL);
	} else if (strcmp(f[0], "graph") == 0 && n >= 8) {
		sqlite3_bind_int64(ins_graph, 1, num(f[1]));
		sqlite3_bind_int64(ins_graph, 2, num(f[2]));
		sqlite3_bind_int64(ins_graph, 3, num(f[5]));
		sqlite3_bind_int64(ins_graph, 4, num(f[6]));
		bind_opt(ins_graph, 5, f[3]);
		sqlite3_bind_int64(ins_graph, 6, num(f[4]));
		sqlite3_bind_int64(ins_graph, 7, num(f[7]));
		run(ins_graph);
	} else if ((strcmp(f[0], "hlo") == 0 || strcmp(f[0], "thunkmeta") ==
	    0) && n >= 3) {
		char *rest = n > 3 ? f[3] : (char *)"";

		if (f[0][0] == 'h')
			write_hlo(num(f[1]), f[2], rest);
		else
			write_thunkmeta(num(f[1]), f[2], rest);
	} else if (strcmp(f[0], "node") == 0 && n >= 6) {
		sqlite3_bind_int64(ins_node, 1, num(f[2]));
		sqlite3_bind_int64(ins_node, 2, num(f[3]));
		sqlite3_bind_int64(ins_node, 3, num(f[1]));
		sqlite3_bind_int64(ins_node, 4, num(f[4]));
		bind_opt(ins_node, 5, f[5]);
		run(ins_node);
	} else {
		die("spec line %d: cannot read '%s'", lineno, f[0]);
	}
}

/* ---- XLA dumps for the command-buffer specs ---- */

/* PATH ("dump/NAME" beside the export) written whole from P[0..N). */
static void
write_dump(const char *name, const void *p, size_t n)
{
	const char *slash = strrchr(out_path, '/');
	size_t dl = slash ? (size_t)(slash + 1 - out_path) : 0;
	char *path = mem_calloc(dl + strlen(name) + 8, 1);
	FILE *fp;

	memcpy(path, out_path, dl);
	strcat(path, "dump");
	mkdir(path, 0777);
	strcat(path, "/");
	strcat(path, name);
	if ((fp = fopen(path, "wb")) == NULL || fwrite(p, 1, n, fp) != n ||
	    fclose(fp) != 0)
		die("%s: cannot write", path);
	free(path);
}

/* Split the blank-separated LIST "a:b c:d" in place into pairs. */
static size_t
pairs(char *list, char **a, char **b, size_t max)
{
	size_t n = 0;
	char *tok;

	for (tok = strtok(list, " \t\n"); tok && n < max;
	    tok = strtok(NULL, " \t\n")) {
		char *c = strchr(tok, ':');

		if (c == NULL)
			die("'%s': want NAME:VALUE", tok);
		*c = '\0';
		a[n] = tok, b[n++] = c + 1;
	}
	return n;
}

/* An HloProto: module NAME (id ID), its entry computation holding the
 * instructions LIST ("name:opcode ..."), f32[] each. */
static void
write_hlo(int64_t id, const char *name, char *list)
{
	Xla__HloProto w = XLA__HLO_PROTO__INIT;
	Xla__HloModuleProto m = XLA__HLO_MODULE_PROTO__INIT;
	Xla__HloComputationProto c = XLA__HLO_COMPUTATION_PROTO__INIT, *cp = &c;
	Xla__FrontendAttributes fa = XLA__FRONTEND_ATTRIBUTES__INIT;
	Xla__FrontendAttributes__MapEntry fp =
	    XLA__FRONTEND_ATTRIBUTES__MAP_ENTRY__INIT, *fpp = &fp;
	Xla__ShapeProto sh = XLA__SHAPE_PROTO__INIT;
	Xla__HloInstructionProto in[64], *inp[64];
	char *a[64], *b[64], fname[512], fpv[600];
	size_t n = pairs(list, a, b, 64), i, len;
	uint8_t *buf;

	sh.element_type = XLA__PRIMITIVE_TYPE__F32;
	for (i = 0; i < n; i++) {
		xla__hlo_instruction_proto__init(&in[i]);
		in[i].name = a[i];
		in[i].opcode = b[i];
		in[i].shape = &sh;
		in[i].id = (int64_t)i + 1;
		inp[i] = &in[i];
	}
	c.name = (char *)"main";
	c.id = 1;
	c.n_instructions = n;
	c.instructions = inp;
	m.name = (char *)name;
	m.id = id;
	m.n_computations = 1;
	m.computations = &cp;
	snprintf(fpv, sizeof(fpv), "fp-%s", name);
	fp.key = (char *)"fingerprint_before_lhs";
	fp.value = fpv;
	fa.n_map = 1;
	fa.map = &fpp;
	m.frontend_attributes = &fa;
	w.hlo_module = &m;
	len = xla__hlo_proto__get_packed_size(&w);
	buf = mem_calloc(len + 1, 1);
	xla__hlo_proto__pack(&w, buf);
	snprintf(fname, sizeof(fname), "module_%04lld.%s.sm_9.0_gpu_after_"
	    "optimizations.hlo.pb", (long long)id, name);
	write_dump(fname, buf, len);
	free(buf);
}

/* Append a length-delimited field NUM holding P[0..N) to *OUT. */
static void
pb_bytes(uint8_t **out, size_t *len, size_t *cap, int num, const void *p,
    size_t n)
{
	mem_grow(out, cap, *len + n + 20, 1);
	*len += pbwire_put_varint(*out + *len, (uint64_t)num << 3 | 2);
	*len += pbwire_put_varint(*out + *len, n);
	memcpy(*out + *len, p, n);
	*len += n;
}

/* XLA's thunk metadata of module NAME (id ID): LIST "name:kind ...",
 * thunk ids 1, 2, ... in order. */
static void
write_thunkmeta(int64_t id, const char *name, char *list)
{
	char *a[64], *b[64], fname[512];
	size_t n = pairs(list, a, b, 64), i, len = 0, cap = 0;
	uint8_t *out = NULL;

	for (i = 0; i < n; i++) {
		uint8_t *info = NULL, *e = NULL;
		size_t il = 0, ic = 0, el = 0, ec = 0;

		if (strcmp(a[i], "-") != 0)
			pb_bytes(&info, &il, &ic, 1, a[i], strlen(a[i]));
		mem_grow(&info, &ic, il + 12, 1);
		info[il++] = 3 << 3;	/* thunk_id, a varint */
		il += pbwire_put_varint(info + il, i + 1);
		pb_bytes(&e, &el, &ec, 1, info, il);
		pb_bytes(&e, &el, &ec, 2, b[i], strlen(b[i]));
		pb_bytes(&out, &len, &cap, 1, e, el);
		free(info);
		free(e);
	}
	snprintf(fname, sizeof(fname), "module_%04lld.%s.thunk_metadata.pb",
	    (long long)id, name);
	write_dump(fname, out ? (void *)out : (void *)"", len);
	free(out);
}

/* "omit" lines first: they decide the schema. */
static char **
read_spec(const char *path, size_t *n)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char buf[4096], **v = NULL;
	size_t cap = 0;

	if (fp == NULL)
		die("%s: cannot open", path);
	*n = 0;
	while (fgets(buf, sizeof(buf), fp)) {
		char *f[2];
		char copy[4096];

		memcpy(copy, buf, sizeof(buf));
		if (fields(copy, f, 2) == 2 && strcmp(f[0], "omit") == 0) {
			omit_runtime |= strncmp(f[1], "RUNTIME", 7) == 0;
			omit_kernel |= strncmp(f[1], "KERNEL", 6) == 0;
			omit_memcpy |= strncmp(f[1], "MEMCPY", 6) == 0;
			omit_nvtx |= strncmp(f[1], "NVTX", 4) == 0;
			omit_enum |= strncmp(f[1], "ENUM", 4) == 0;
			continue;
		}
		if (fields(copy, f, 2) >= 1 && strcmp(f[0], "graph") == 0)
			has_graph_trace = 1;
		mem_grow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = mem_strdup(buf);
	}
	if (fp != stdin)
		fclose(fp);
	return v;
}

/* ---- archive ---- */

struct node {
	const struct proj_range *t;	/* its projected row, or NULL */
	int64_t id, start, end, tid;
	const char *name;
	char *own;		/* NAME, when archive-2026 made it */
	long parent;
	long *kids;
	size_t nkids, capkids;
	/* -g: a command buffer's range holds the GPU operations GOPS of the
	 * thunks it stands for, over [GS, GE); GRAPH 1 when it launches them
	 * as a graph (they are GONE), 2 when it also creates the nodes. */
	int64_t gops, gs, ge;
	int graph, gone;
	size_t spec;		/* its -g */
};

/* -g MODULE:NAME:FIRST:LAST */
struct gspec {
	char *module, *name, *first, *last;
	char *range;		/* its range's name */
	int64_t nexec;
};
static struct gspec gspecs[8];
static size_t ngspecs;

static struct node *nodes;
static size_t nnodes, capnodes;
static int64_t pid, corr = 1;
static int bad;

static int
cmp_node(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static long
find(int64_t id)
{
	struct node k;
	struct node *n;

	k.id = id;
	n = bsearch(&k, nodes, nnodes, sizeof(*nodes), cmp_node);
	return n ? n - nodes : -1;
}

static void
add_node(int64_t id, int64_t start, int64_t end, int64_t tid,
    const char *name)
{
	mem_grow(&nodes, &capnodes, nnodes + 1, sizeof(*nodes));
	memset(&nodes[nnodes], 0, sizeof(*nodes));
	nodes[nnodes].id = id;
	nodes[nnodes].start = start;
	nodes[nnodes].end = end;
	nodes[nnodes].tid = tid;
	nodes[nnodes].name = name;
	nodes[nnodes++].parent = -1;
}

/* The domain id of NAME's "domain:" part (0 for none), created once. */
static int64_t
domain_of(const char *name, int64_t gtid, int64_t *rowid)
{
	static char *doms[16];
	static int ndoms;
	size_t len = strcspn(name, ":");
	char id[24];
	int i;

	if (len == 0 || name[len] != ':')
		return 0;
	for (i = 0; i < ndoms; i++)
		if (strlen(doms[i]) == len && strncmp(doms[i], name, len) == 0)
			return i + 1;
	if (ndoms == 16)
		die("too many domains");
	doms[ndoms] = mem_strndup(name, len);
	snprintf(id, sizeof(id), "%d", ndoms + 1);
	nvtx_row((*rowid)++, 75, gtid, 0, "-", "-", id, doms[ndoms]);
	return ++ndoms;
}

/* A point of N's CPU interval that no child covers, or -1 <- none. */
static int
gap(const struct node *n, int64_t *at)
{
	int64_t p = n->start;
	size_t i;

	/* Children are disjoint and sorted by start (push/pop nesting). */
	for (i = 0; i < n->nkids; i++) {
		const struct node *k = &nodes[n->kids[i]];

		if (p < k->start) {
			*at = p;
			return 0;
		}
		if (k->end + 1 > p)
			p = k->end + 1;
	}
	if (p <= n->end) {
		*at = p;
		return 0;
	}
	return -1;
}

static int
cmp_kid(const void *a, const void *b)
{
	const struct node *x = &nodes[*(const long *)a];
	const struct node *y = &nodes[*(const long *)b];

	return (x->start > y->start) - (x->start < y->start);
}

/* Launches of projected node N, beyond those of its projected children. */
static void
launches(struct node *n)
{
	const struct proj_range *t = n->t;
	int64_t own = t->num_gpu_ops, lo = INT64_MAX, hi = INT64_MIN, at, k;
	int64_t gtid = VM | pid << 24 | n->tid;
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		const struct node *k = &nodes[n->kids[i]];
		const struct proj_range *c = k->t;
		int64_t ks = c ? c->start : k->gs, ke = c ? c->start + c->dur :
		    k->ge;

		if (c == NULL && k->gops == 0)
			continue;
		own -= c ? c->num_gpu_ops : k->gops;
		if (ks < lo)
			lo = ks;
		if (ke > hi)
			hi = ke;
	}
	if (own < 0 || (own == 0 && (lo != t->start ||
	    hi != t->start + t->dur))) {
		fprintf(stderr, "mkexport: RangeId %lld: its projection is not "
		    "its children's\n", (long long)n->id);
		bad = 1;
		return;
	}
	if (own > 0 && gap(n, &at) != 0) {
		fprintf(stderr, "mkexport: RangeId %lld: no room for a launch\n",
		    (long long)n->id);
		bad = 1;
		return;
	}
	for (k = 0; k < own; k++) {
		char c[24];

		snprintf(c, sizeof(c), "%lld", (long long)corr);
		call_row(gtid, at, at, corr++, 0);
		/* The first op spans the projection, the others are points. */
		op_row(0, t->start, k == 0 ? t->start + t->dur : t->start, c,
		    VM | pid << 24, 0, 7, "-");
	}
}

/* ---- archive-2026: today's thunk names ---- */

/*
 * The dump of program PROGRAM in archive A (dump/module_NNNN.*after_
 * optimizations.hlo.pb[.xz], NNNN the program id), decoded; NULL when
 * there is none.  One at a time is kept: ranges come in module order.
 */
static struct hlo_module *
dump_of(struct archive *a, int64_t program)
{
	static struct hlo_module *m;
	static int64_t at = -1;
	char prefix[48];
	size_t i, len;
	uint8_t *d;

	if (program == at)
		return m;
	hlo_free(m);
	m = NULL;
	if ((at = program) == -2)	/* the end: hand it back to free */
		return NULL;
	snprintf(prefix, sizeof(prefix), "dump/module_%04lld.",
	    (long long)program);
	for (i = 0; i < archive_count(a); i++) {
		const char *n = archive_name(a, i);

		if (strncmp(n, prefix, strlen(prefix)) != 0 ||
		    strstr(n, "after_optimizations.hlo.pb") == NULL)
			continue;
		if (archive_read_plain(a, n, &d, &len) != 0 ||
		    (m = hlo_load(d, len)) == NULL)
			die("%s: %s", n, err_msg());
		free(d);
		break;
	}
	return m;
}

/*
 * The autotuner pass NAME as XLA of 2026 names it (AutotunerPass::name()
 * "autotuner"): "XlaPass:#name=triton-autotuner,..." and
 * "...=gemm-fusion-autotuner,..." become "XlaPass:#name=autotuner,...".
 * A new string, or NULL for any other name.
 */
static char *
pass_2026(const char *name)
{
	static const char *const old[] = { "triton-autotuner,",
	    "gemm-fusion-autotuner," };
	static const char pass[] = "XlaPass:#name=";
	const char *p = strstr(name, pass);
	size_t i, k;
	char *s;

	if (p == NULL)
		return NULL;
	p += sizeof(pass) - 1;
	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		if (strncmp(p, old[i], strlen(old[i])) != 0)
			continue;
		k = (size_t)(p - name);
		s = mem_alloc(strlen(name) + 16);
		memcpy(s, name, k);
		strcpy(s + k, "autotuner,");
		strcat(s, p + strlen(old[i]));
		return s;
	}
	return NULL;
}

/*
 * NAME as XLA writes it since mid-2026 (annotation.cc
 * MakeInstructionTitle): a Thunk range of a module whose dump holds its
 * hlo_op gets ",unique_hlo_op_id=ID" before the final '#', ID the
 * instruction's HloInstructionProto.id.  Other names, and thunks whose
 * instruction the dump does not hold (which no metadata reaches either
 * way), stay as they are.  A new string, or NAME.
 */
static const char *
name_2026(struct archive *a, const struct node *n)
{
	const struct node *p = n;
	const struct hlo_inst *in;
	struct hlo_module *m;
	const char *op, *mod;
	size_t len, mlen;
	int64_t program;
	char *s, *name;

	if ((s = pass_2026(n->name)) != NULL)
		return s;
	if (nvtx_classify(n->name) != NVTX_THUNK ||
	    nvtx_parse_thunk(n->name, &op, &len) != 0)
		return n->name;
	while (p->parent >= 0 && nvtx_classify(p->name) != NVTX_MODULE)
		p = &nodes[p->parent];
	if (nvtx_classify(p->name) != NVTX_MODULE ||
	    nvtx_parse_module(p->name, &mod, &mlen, &program) != 0 ||
	    program < 0 || (m = dump_of(a, program)) == NULL)
		return n->name;
	name = mem_strndup(op, len);
	in = hlo_find(m, name);
	free(name);
	if (in == NULL)
		return n->name;
	len = strlen(n->name);
	s = mem_alloc(len + 48);
	memcpy(s, n->name, len - 1);
	sprintf(s + len - 1, ",unique_hlo_op_id=%lld#", (long long)in->id);
	return s;
}


/* G from "MODULE:NAME:FIRST:LAST" (one allocation, in module). */
static void
gspec_parse(struct gspec *g, const char *arg)
{
	char *s = mem_strdup(arg);

	g->module = s;
	if ((s = strchr(s, ':')) == NULL || (*s++ = '\0', g->name = s,
	    s = strchr(s, ':')) == NULL || (*s++ = '\0', g->first = s,
	    s = strchr(s, ':')) == NULL)
		die("-g %s: not MODULE:NAME:FIRST:LAST", arg);
	*s++ = '\0';
	g->last = s;
	g->range = mem_alloc(strlen(g->name) + 32);
	sprintf(g->range, "TSL:Thunk:#hlo_op=%s#", g->name);
}

/* Whether range NAME is a thunk of instruction OP ("...hlo_op=OP#"). */
static int
is_op(const char *name, const char *op)
{
	const char *s = strstr(name, "hlo_op=");
	size_t n = strlen(op);

	return strncmp(name, "TSL:Thunk:#", 11) == 0 && s != NULL &&
	    strncmp(s + 7, op, n) == 0 && strcmp(s + 7 + n, "#") == 0;
}

/* Whether range NAME is an execution of module M. */
static int
is_module(const char *name, const char *m)
{
	const char *s = strstr(name, "XlaModule:#hlo_module=");
	size_t n = strlen(m);

	return s != NULL && strncmp(s + 22, m, n) == 0 && s[22 + n] == ',';
}

/*
 * -g: the buffer G in each execution of its module, module node M's
 * kids FIRST..LAST (sorted by start) moved under a new node.  ROWID: the
 * next free range id.  Nodes may move: indexes only.
 */
static void
wrap(size_t gi, long m, int64_t *rowid)
{
	struct gspec *g = &gspecs[gi];
	struct node *b;
	size_t i, j, k, nk = nodes[m].nkids;
	long bi;

	for (i = 0; i < nk && !is_op(nodes[nodes[m].kids[i]].name, g->first);
	    i++)
		;
	for (j = i; j < nk && !is_op(nodes[nodes[m].kids[j]].name, g->last);
	    j++)
		;
	if (j >= nk)
		die("-g %s: no %s..%s in RangeId %lld", g->name, g->first,
		    g->last, (long long)nodes[m].id);
	add_node((*rowid)++, nodes[nodes[m].kids[i]].start - 1,
	    nodes[nodes[m].kids[j]].end + 1, nodes[m].tid, g->range);
	bi = (long)nnodes - 1;
	b = &nodes[bi];
	b->parent = m;
	b->spec = gi;
	b->graph = g->nexec == 0 ? 0 : g->nexec == 1 ? 2 : 1;
	b->gs = INT64_MAX;
	b->ge = INT64_MIN;
	if ((i > 0 && nodes[nodes[m].kids[i - 1]].end >= b->start) ||
	    (j + 1 < nk && nodes[nodes[m].kids[j + 1]].start <= b->end))
		die("-g %s: no room for the buffer's range", g->name);
	for (k = i; k <= j; k++) {
		struct node *t = &nodes[nodes[m].kids[k]];

		if (t->t == NULL || t->nkids > 0 || t->t->num_gpu_ops != 1)
			die("-g %s: %s: not a thunk with one GPU operation",
			    g->name, t->name);
		t->parent = bi;
		t->gone = b->graph != 0;
		b->gops++;
		if (t->t->start < b->gs)
			b->gs = t->t->start;
		if (t->t->start + t->t->dur > b->ge)
			b->ge = t->t->start + t->t->dur;
		mem_grow(&b->kids, &b->capkids, b->nkids + 1, sizeof(*b->kids));
		b->kids[b->nkids++] = nodes[m].kids[k];
	}
	nodes[m].kids[i] = bi;
	memmove(&nodes[m].kids[i + 1], &nodes[m].kids[j + 1],
	    (nk - j - 1) * sizeof(*nodes[m].kids));
	nodes[m].nkids = nk - (j - i);
	g->nexec++;
}

/* XLA's kernel name of instruction OP: '.' and '-' as '_'. */
static char *
kernel_name(const char *op)
{
	char *s = mem_strdup(op), *p;

	for (p = s; *p; p++)
		if (*p == '.' || *p == '-')
			*p = '_';
	return s;
}

/* The graph launch of buffer node B: one call, its thunks' kernels
 * (graph nodes 1000 * (spec + 1) + k, clones of 1000 * (spec + 1) + 500
 * + k), the nodes' creation when B->graph is 2. */
static void
graph_launch(const struct node *b)
{
	int64_t gtid = VM | pid << 24 | b->tid, node, c = corr++;
	char cs[24], ns[24];
	size_t k;

	snprintf(cs, sizeof(cs), "%lld", (long long)c);
	call_row(gtid, b->start + 1, b->start + 1, c, 0);
	for (k = 0; k < b->nkids; k++) {
		const struct node *t = &nodes[b->kids[k]];
		char *op = strstr(t->name, "hlo_op=") + 7, *kn;

		node = 1000 * ((int64_t)b->spec + 1) + (int64_t)k;
		snprintf(ns, sizeof(ns), "%lld", (long long)node);
		kn = kernel_name(op);
		kn[strlen(kn) - 1] = '\0';	/* the closing '#' */
		op_row_named(0, t->t->start, t->t->start + t->t->dur, cs,
		    VM | pid << 24, 0, 7, ns, kn);
		free(kn);
		if (b->graph == 2) {
			sqlite3_bind_int64(ins_node, 1, b->start + 1);
			sqlite3_bind_int64(ins_node, 2, b->start + 1);
			sqlite3_bind_int64(ins_node, 3, gtid);
			sqlite3_bind_int64(ins_node, 4, node + 500);
			sqlite3_bind_null(ins_node, 5);
			run(ins_node);
			sqlite3_bind_int64(ins_node, 1, b->start + 1);
			sqlite3_bind_int64(ins_node, 2, b->start + 1);
			sqlite3_bind_int64(ins_node, 3, gtid);
			sqlite3_bind_int64(ins_node, 4, node);
			sqlite3_bind_int64(ins_node, 5, node + 500);
			run(ins_node);
		}
	}
}

static uint8_t *
member(struct archive *a, const char *name, size_t *len)
{
	uint8_t *d;

	if (archive_read_plain(a, name, &d, len) != 0)
		die("%s", err_msg());
	return d;
}

static void
convert(const char *dir, int today)
{
	struct archive *a = archive_open(dir);
	struct compile_range *cr = NULL;
	struct trace t;
	struct threads th;
	uint8_t *data;
	size_t len, ncr = 0, i, n0, g;
	int64_t rowid = 0;

	if (a == NULL)
		die("%s: %s", dir, err_msg());
	memset(&t, 0, sizeof(t));
	memset(&th, 0, sizeof(th));
	data = member(a, "nvtx_gpu_proj_trace/trace.parquet", &len);
	if (trace_read_parquet(data, len, &t) != 0 || !t.has_gpu_ops ||
	    !t.has_orig)
		die("%s: trace: not the <= 2024.4 layout (%s)", dir, err_msg());
	free(data);
	data = member(a, "thread-metadata.parquet", &len);
	if (threads_read_parquet(data, len, &th) != 0)
		die("%s: threads: %s", dir, err_msg());
	free(data);
	data = member(a, archive_has(a, "report_nvtx_pushpop_trace.csv.xz") ?
	    "report_nvtx_pushpop_trace.csv.xz" :
	    "report_nvtx_pushpop_trace.csv", &len);
	if (compile_parse_csv((const char *)data, len, &cr, &ncr) != 0)
		die("%s: push/pop: %s", dir, err_msg());
	free(data);
	if (t.n == 0)
		die("%s: no projected range", dir);
	pid = t.r[0].pid;
	for (i = 0; i < th.n; i++)
		thread_row(VM | th.t[i].pid << 24 | th.t[i].tid, th.t[i].name);
	for (i = 0; i < ncr; i++)
		add_node(cr[i].range_id, cr[i].start_ns, cr[i].end_ns, cr[i].tid,
		    cr[i].name);
	if (nnodes > 0)
		qsort(nodes, nnodes, sizeof(*nodes), cmp_node);
	for (i = 0; i < t.n; i++) {
		const struct proj_range *r = &t.r[i];
		long k = find(r->id);

		if (r->pid != pid)
			die("%s: several processes", dir);
		if (k < 0) {
			add_node(r->id, r->orig_start, r->orig_start +
			    r->orig_dur, r->tid, r->name);
			qsort(nodes, nnodes, sizeof(*nodes), cmp_node);
			k = find(r->id);
		} else if (nodes[k].start != r->orig_start ||
		    nodes[k].end != r->orig_start + r->orig_dur ||
		    strcmp(nodes[k].name, r->name) != 0) {
			die("%s: RangeId %lld differs between the trace and the "
			    "push/pop report", dir, (long long)r->id);
		}
		nodes[k].t = r;
	}
	for (i = 0; i < ncr; i++)
		if (cr[i].parent_id >= 0 && find(cr[i].range_id) >= 0)
			nodes[find(cr[i].range_id)].parent = find(cr[i].parent_id);
	for (i = 0; i < t.n; i++)
		if (t.r[i].parent >= 0)
			nodes[find(t.r[i].id)].parent = find(t.r[i].parent);
	for (i = 0; i < nnodes; i++) {
		struct node *p;

		if (nodes[i].parent < 0)
			continue;
		p = &nodes[nodes[i].parent];
		mem_grow(&p->kids, &p->capkids, p->nkids + 1, sizeof(*p->kids));
		p->kids[p->nkids++] = (long)i;
	}
	rowid = nodes[nnodes - 1].id + 1;
	for (i = 0; i < nnodes; i++)
		if (nodes[i].nkids > 0)
			qsort(nodes[i].kids, nodes[i].nkids,
			    sizeof(*nodes[i].kids), cmp_kid);
	for (n0 = nnodes, i = 0; i < n0; i++)
		for (g = 0; g < ngspecs; g++)
			if (is_module(nodes[i].name, gspecs[g].module))
				wrap(g, (long)i, &rowid);
	for (i = 0; today && i < nnodes; i++) {
		const char *nm = name_2026(a, &nodes[i]);

		if (nm != nodes[i].name)
			nodes[i].name = nodes[i].own = (char *)nm;
	}
	for (i = 0; i < nnodes; i++) {
		struct node *n = &nodes[i];
		int64_t gtid = VM | pid << 24 | n->tid;
		int64_t dom = domain_of(n->name, gtid, &rowid);
		const char *text = dom ? n->name + strcspn(n->name, ":") + 1 :
		    n->name + (n->name[0] == ':');
		char *reg = mem_alloc(strlen(text) + 2), end[24], d[24];

		sprintf(reg, "@%s", text);
		snprintf(end, sizeof(end), "%lld", (long long)n->end);
		snprintf(d, sizeof(d), "%lld", (long long)dom);
		if (!n->gone)
			nvtx_row(n->id, 59, gtid, n->start, end, "-", d, reg);
		free(reg);
	}
	for (i = 0; i < nnodes; i++)
		if (nodes[i].graph)
			graph_launch(&nodes[i]);
		else if (nodes[i].t && !nodes[i].gone)
			launches(&nodes[i]);
	for (i = 0; i < nnodes; i++) {
		free(nodes[i].kids);
		free(nodes[i].own);
	}
	free(nodes);
	hlo_free(dump_of(NULL, -2));
	compile_ranges_free(cr, ncr);
	trace_free(&t);
	threads_free(&th);
	archive_close(a);
}

/* ---- synth ---- */

static void
synth(int64_t nr, int64_t nc, int64_t nk, int64_t nt)
{
	int64_t t, done_r = 0, done_c = 0, done_k = 0, corr = 1;
	char text[64], c[24];

	for (t = 0; t < nt; t++) {
		int64_t gtid = VM | (int64_t)1000 << 24 | (1000 + t);
		int64_t now = 1000000000, r_end = nr * (t + 1) / nt;

		thread_row(gtid, "python");
		while (done_r + 4 <= r_end) {
			int64_t calls = nc * (done_r + 4) / nr - done_c, k;
			int64_t s0 = now, leaf = now + 3000, end;

			/* The leaf holds CALLS calls of 2 us, 1 us apart. */
			for (k = 0; k < calls; k++) {
				int64_t cs = leaf + 1000 + k * 3000;

				call_row(gtid, cs, cs + 2000, corr, 0);
				done_c++;
				if (nk * done_c / nc > done_k) {
					snprintf(c, sizeof(c), "%lld",
					    (long long)corr);
					op_row(0, cs + 5000, cs + 8000, c,
					    VM | (int64_t)1000 << 24, 0, 7, "-");
					done_k++;
				}
				corr++;
			}
			end = leaf + 1000 + calls * 3000 + 1000;
			for (k = 0; k < 4; k++) {
				char e[24];

				snprintf(text, sizeof(text), "aten::op_%lld, op_id = "
				    "%lld", (long long)k, (long long)done_r);
				snprintf(e, sizeof(e), "%lld",
				    (long long)(end + (3 - k) * 1000));
				nvtx_row(++done_r, 59, gtid, s0 + k * 1000, e, "-",
				    "0", text);
			}
			now = end + 5000;
		}
	}
}

int
main(int argc, char *argv[])
{
	int synthetic = argc == 7 && strcmp(argv[1], "synth") == 0;
	const char *out = argv[argc - 1];
	size_t g;

	/* archive's -g options: out of the way of the count */
	while (argc > 4 && strcmp(argv[1], "archive") == 0 &&
	    strcmp(argv[2], "-g") == 0) {
		if (ngspecs == sizeof(gspecs) / sizeof(gspecs[0]))
			die("too many -g");
		gspec_parse(&gspecs[ngspecs++], argv[3]);
		memmove(&argv[2], &argv[4], (size_t)(argc - 4) *
		    sizeof(*argv));
		argc -= 2;
	}
	if (!synthetic && (argc != 4 || (strcmp(argv[1], "spec") != 0 &&
	    strcmp(argv[1], "archive") != 0 &&
	    strcmp(argv[1], "archive-2026") != 0)))
		die("usage: mkexport spec SPEC OUT.sqlite | archive "
		    "[-g MODULE:NAME:FIRST:LAST]... DIR OUT.sqlite | "
		    "archive-2026 DIR OUT.sqlite | synth NRANGES NCALLS NOPS "
		    "NTHREADS OUT.sqlite");
	remove(out);
	out_path = out;
	if (sqlite3_open(out, &db) != SQLITE_OK)
		die("%s: %s", out, sqlite3_errmsg(db));
	/* Small pages: the fuzz seeds are exports too. */
	if (!synthetic)
		exec("PRAGMA page_size = 512");
	exec("PRAGMA journal_mode = OFF");
	exec("PRAGMA synchronous = OFF");
	if (strcmp(argv[1], "spec") == 0) {
		size_t n, i;
		char **lines = read_spec(argv[2], &n);

		create();
		exec("BEGIN");
		for (i = 0; i < n; i++) {
			spec_line(lines[i], (int)i + 1);
			free(lines[i]);
		}
		free(lines);
	} else if (synthetic) {
		create();
		exec("BEGIN");
		synth(strtoll(argv[2], NULL, 10), strtoll(argv[3], NULL, 10),
		    strtoll(argv[4], NULL, 10), strtoll(argv[5], NULL, 10));
	} else {
		create();
		exec("BEGIN");
		convert(argv[2], strcmp(argv[1], "archive-2026") == 0);
	}
	exec("COMMIT");
	sqlite3_finalize(ins_str);
	sqlite3_finalize(ins_nvtx);
	sqlite3_finalize(ins_thread);
	sqlite3_finalize(ins_call);
	sqlite3_finalize(ins_node);
	sqlite3_finalize(ins_graph);
	sqlite3_finalize(ins_op[0]);
	sqlite3_finalize(ins_op[1]);
	sqlite3_finalize(ins_op[2]);
	if (sqlite3_close(db) != SQLITE_OK)
		die("%s: close", out);
	for (g = 0; g < ngspecs; g++) {
		if (gspecs[g].nexec == 0)
			die("-g %s: module %s has no execution", gspecs[g].name,
			    gspecs[g].module);
		free(gspecs[g].module);
		free(gspecs[g].range);
	}
	return bad;
}
