/*
 * tevent: Perfetto TrackEvent protobuf and Chrome Trace Event JSON
 * writers (tevent.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "base/tsv.h"
#include "formats/pbwire.h"
#include "formats/tevent.h"

/*
 * Field numbers (Perfetto protos, see tevent.h).  Trace: packet 1.
 * TracePacket: timestamp 8, trusted_packet_sequence_id 10, track_event
 * 11, interned_data 12, sequence_flags 13, track_descriptor 60.
 */
enum {
	F_TRACE_PACKET = 1,
	F_PKT_TIMESTAMP = 8, F_PKT_SEQID = 10, F_PKT_TRACK_EVENT = 11,
	F_PKT_INTERNED = 12, F_PKT_SEQFLAGS = 13, F_PKT_TRACK_DESC = 60,
	/* TrackDescriptor: uuid 1, name 2, process 3, thread 4, parent 5. */
	F_TD_UUID = 1, F_TD_NAME = 2, F_TD_PROCESS = 3, F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	/* ProcessDescriptor: pid 1, process_name 6. */
	F_PD_PID = 1, F_PD_NAME = 6,
	/* ThreadDescriptor: pid 1, tid 2, thread_name 5. */
	F_THD_PID = 1, F_THD_TID = 2, F_THD_NAME = 5,
	/* TrackEvent: category_iids 3, debug_annotations 4, type 9,
	 * name_iid 10, track_uuid 11, flow_ids 47 (fixed64). */
	F_TE_CAT_IIDS = 3, F_TE_ANNOT = 4, F_TE_TYPE = 9, F_TE_NAME_IID = 10,
	F_TE_TRACK = 11, F_TE_FLOW = 47,
	/* DebugAnnotation: name_iid 1, uint_value 3, double_value 5,
	 * string_value_iid 17. */
	F_DA_NAME_IID = 1, F_DA_UINT = 3, F_DA_DOUBLE = 5, F_DA_STR_IID = 17,
	/* InternedData: event_categories 1, event_names 2,
	 * debug_annotation_names 3, debug_annotation_string_values 29; each
	 * entry {iid 1, name (or str) 2}. */
	F_ID_CATS = 1, F_ID_NAMES = 2, F_ID_ANNOT_NAMES = 3,
	F_ID_ANNOT_STRS = 29, F_IE_IID = 1, F_IE_NAME = 2,
	/* TrackEvent.Type; sequence_flags. */
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2,
	SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
	SEQ_ID = 1
};

/* Wire types. */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* A growing byte buffer, for one packet being built. */
struct buf {
	uint8_t *p;
	size_t n, cap;
};

/* The four interning tables of InternedData, and their field numbers. */
enum { IT_CAT, IT_NAME, IT_ANAME, IT_ASTR, IT_N };
static const int it_field[IT_N] = {
	F_ID_CATS, F_ID_NAMES, F_ID_ANNOT_NAMES, F_ID_ANNOT_STRS
};

struct tev_writer {
	FILE *fp;
	const char *name;
	enum tev_format fmt;
	int64_t offset;
	uint64_t bytes;
	int failed;
	int first;		/* no packet or event written yet */
	struct buf pkt;		/* the packet being built */
	struct buf in;		/* its InternedData */
	struct strtab it[IT_N];
};

static void
buf_room(struct buf *b, size_t more)
{
	if (b->cap - b->n < more)
		mem_grow(&b->p, &b->cap, b->n + more, 1);
}

static void
buf_put(struct buf *b, const void *s, size_t n)
{
	buf_room(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
pb_varint(struct buf *b, uint64_t v)
{
	buf_room(b, 10);
	b->n += pbwire_put_varint(b->p + b->n, v);
}

static void
pb_tag(struct buf *b, int field, int wt)
{
	pb_varint(b, (uint64_t)field << 3 | (uint64_t)wt);
}

static void
pb_uint(struct buf *b, int field, uint64_t v)
{
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

/* A 64-bit little-endian value (fixed64, double). */
static void
pb_i64(struct buf *b, int field, uint64_t v)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	pb_tag(b, field, WT_I64);
	buf_put(b, le, 8);
}

/*
 * UTF-8 (RFC 3629, Table 3-7 of the Unicode Standard): the length of the
 * sequence at P (before END) into *LEN; returns 1 when it is well formed,
 * else 0 with *LEN the bytes of its maximal subpart (at least 1), which
 * one U+FFFD replaces (the Unicode Standard's recommended practice, 3.9).
 * Names come from frames whose reader does not check their encoding,
 * and both formats require UTF-8 (RFC 8259; protobuf's string fields).
 */
static int
utf8_next(const unsigned char *p, const unsigned char *end, size_t *len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	*len = 1;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 1;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 2;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 3;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;		/* no overlong 3-byte form */
	else if (p[0] == 0xed)
		hi = 0x9f;		/* no surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90;		/* no overlong 4-byte form */
	else if (p[0] == 0xf4)
		hi = 0x8f;		/* nothing above U+10FFFF */
	for (i = 1; i <= need; i++, lo = 0x80, hi = 0xbf) {
		if (p + i >= end || p[i] < lo || p[i] > hi)
			return 0;
		*len = i + 1;
	}
	return 1;
}

static const char replacement[3] = "\xef\xbf\xbd";	/* U+FFFD */

/* The length of S[0..N) once each ill-formed sequence is U+FFFD. */
static size_t
utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len, out = 0;

	for (; p < end; p += len)
		out += utf8_next(p, end, &len) ? len : sizeof(replacement);
	return out;
}

/* Append S[0..N) to B, each ill-formed sequence as U+FFFD. */
static void
utf8_put(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len;

	for (; p < end; p += len)
		if (utf8_next(p, end, &len))
			buf_put(b, p, len);
		else
			buf_put(b, replacement, sizeof(replacement));
}

/* A string field: S[0..N) as UTF-8. */
static void
pb_str(struct buf *b, int field, const char *s, size_t n)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, utf8_len(s, n));
	utf8_put(b, s, n);
}

/* Start a nested message: its key now, its length at pb_close. */
static size_t
pb_open(struct buf *b, int field)
{
	pb_tag(b, field, WT_LEN);
	return b->n;
}

/* End the nested message whose body starts at AT: the varint length is
 * inserted before the body (bodies here are small). */
static void
pb_close(struct buf *b, size_t at)
{
	uint8_t v[10];
	size_t len = b->n - at, k = pbwire_put_varint(v, len);

	buf_room(b, k);
	memmove(b->p + at + k, b->p + at, len);
	memcpy(b->p + at, v, k);
	b->n += k;
}

/* ---- output ---- */

static int
out(struct tev_writer *w, const void *s, size_t n)
{
	if (w->failed)
		return -1;
	errno = 0;
	if (n > 0 && fwrite(s, 1, n, w->fp) != n) {
		w->failed = errno ? errno : EIO;
		return err_fail("%s: write error: %s", w->name,
		    strerror(w->failed));
	}
	w->bytes += n;
	return 0;
}

static int
outs(struct tev_writer *w, const char *s)
{
	return out(w, s, strlen(s));
}

struct tev_writer *
tev_open(FILE *fp, const char *name, enum tev_format fmt, int64_t offset_ns)
{
	struct tev_writer *w = mem_calloc(1, sizeof(*w));

	w->fp = fp;
	w->name = name;
	w->fmt = fmt;
	w->offset = offset_ns;
	w->first = 1;
	if (fmt == TEV_JSON)
		(void)outs(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return w;
}

uint64_t
tev_bytes(const struct tev_writer *w)
{
	return w->bytes;
}

/* ---- Perfetto ---- */

/* Start a packet: sequence id, and the flags of incremental state. */
static void
pkt_start(struct tev_writer *w, int needs_state)
{
	w->pkt.n = 0;
	w->in.n = 0;
	pb_uint(&w->pkt, F_PKT_SEQID, SEQ_ID);
	if (w->first)
		pb_uint(&w->pkt, F_PKT_SEQFLAGS, SEQ_INCREMENTAL_STATE_CLEARED |
		    (needs_state ? SEQ_NEEDS_INCREMENTAL_STATE : 0));
	else if (needs_state)
		pb_uint(&w->pkt, F_PKT_SEQFLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	w->first = 0;
}

/* Write the packet built, as one Trace.packet field. */
static int
pkt_flush(struct tev_writer *w)
{
	uint8_t hdr[11];
	size_t k;

	if (w->in.n > 0) {
		pb_tag(&w->pkt, F_PKT_INTERNED, WT_LEN);
		pb_varint(&w->pkt, w->in.n);
		buf_put(&w->pkt, w->in.p, w->in.n);
	}
	hdr[0] = F_TRACE_PACKET << 3 | WT_LEN;
	k = 1 + pbwire_put_varint(hdr + 1, w->pkt.n);
	if (out(w, hdr, k) != 0)
		return -1;
	return out(w, w->pkt.p, w->pkt.n);
}

/* The iid of S in table T (ids from 1), added to this packet's
 * InternedData the first time. */
static uint64_t
intern(struct tev_writer *w, int t, const char *s)
{
	size_t n = strlen(s), at;
	int added;
	size_t id = strtab_intern(&w->it[t], s, n, &added);

	if (added) {
		at = pb_open(&w->in, it_field[t]);
		pb_uint(&w->in, F_IE_IID, id + 1);
		pb_str(&w->in, F_IE_NAME, s, n);
		pb_close(&w->in, at);
	}
	return id + 1;
}

static int
pf_track(struct tev_writer *w, const struct tev_track *t)
{
	size_t td, sub;

	pkt_start(w, 0);
	td = pb_open(&w->pkt, F_PKT_TRACK_DESC);
	pb_uint(&w->pkt, F_TD_UUID, t->uuid);
	if (t->tid == 0) {
		sub = pb_open(&w->pkt, F_TD_PROCESS);
		pb_uint(&w->pkt, F_PD_PID, (uint64_t)t->pid);
		pb_str(&w->pkt, F_PD_NAME, t->name, strlen(t->name));
	} else {
		/* The parent is the process track: uuid of TID 0. */
		sub = pb_open(&w->pkt, F_TD_THREAD);
		pb_uint(&w->pkt, F_THD_PID, (uint64_t)t->pid);
		pb_uint(&w->pkt, F_THD_TID, (uint64_t)t->tid);
		pb_str(&w->pkt, F_THD_NAME, t->name, strlen(t->name));
	}
	pb_close(&w->pkt, sub);
	pb_close(&w->pkt, td);
	return pkt_flush(w);
}

static void
pf_arg(struct tev_writer *w, const struct tev_arg *a)
{
	uint64_t name = intern(w, IT_ANAME, a->name), sv = 0, bits;
	size_t at;

	if (a->type == TEV_DOUBLE && !isfinite(a->d))
		return;
	if (a->type == TEV_STR)
		sv = intern(w, IT_ASTR, a->s);
	at = pb_open(&w->pkt, F_TE_ANNOT);
	pb_uint(&w->pkt, F_DA_NAME_IID, name);
	switch (a->type) {
	case TEV_STR:
		pb_uint(&w->pkt, F_DA_STR_IID, sv);
		break;
	case TEV_UINT:
		pb_uint(&w->pkt, F_DA_UINT, a->u);
		break;
	case TEV_DOUBLE:
		memcpy(&bits, &a->d, 8);
		pb_i64(&w->pkt, F_DA_DOUBLE, bits);
		break;
	}
	pb_close(&w->pkt, at);
}

static int
pf_begin(struct tev_writer *w, const struct tev_slice *s)
{
	size_t te, i;

	pkt_start(w, 1);
	pb_uint(&w->pkt, F_PKT_TIMESTAMP, (uint64_t)(s->ts + w->offset));
	te = pb_open(&w->pkt, F_PKT_TRACK_EVENT);
	pb_uint(&w->pkt, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(&w->pkt, F_TE_TRACK, s->track->uuid);
	pb_uint(&w->pkt, F_TE_NAME_IID, intern(w, IT_NAME, s->name));
	if (s->cat != NULL)
		pb_uint(&w->pkt, F_TE_CAT_IIDS, intern(w, IT_CAT, s->cat));
	for (i = 0; i < s->nargs; i++)
		pf_arg(w, &s->args[i]);
	if (s->flow != 0)
		pb_i64(&w->pkt, F_TE_FLOW, s->flow);
	pb_close(&w->pkt, te);
	return pkt_flush(w);
}

static int
pf_end(struct tev_writer *w, const struct tev_slice *s)
{
	size_t te;

	pkt_start(w, 0);
	pb_uint(&w->pkt, F_PKT_TIMESTAMP,
	    (uint64_t)(s->ts + s->dur + w->offset));
	te = pb_open(&w->pkt, F_PKT_TRACK_EVENT);
	pb_uint(&w->pkt, F_TE_TYPE, TYPE_SLICE_END);
	pb_uint(&w->pkt, F_TE_TRACK, s->track->uuid);
	pb_close(&w->pkt, te);
	return pkt_flush(w);
}

/* ---- JSON ---- */

/* S as a JSON string, quotes included: UTF-8, each ill-formed sequence
 * as U+FFFD (utf8_next). */
static void
js_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p, *end = (const unsigned char *)s + strlen(s);
	char e[6] = { '\\', 'u', '0', '0', 0, 0 };
	size_t len;

	buf_put(b, "\"", 1);
	for (p = (const unsigned char *)s; p < end; p += len) {
		len = 1;
		if (*p == '"' || *p == '\\') {
			buf_put(b, "\\", 1);
			buf_put(b, p, 1);
		} else if (*p < 0x20) {
			e[4] = hex[*p >> 4];
			e[5] = hex[*p & 15];
			buf_put(b, e, 6);
		} else if (utf8_next(p, end, &len)) {
			buf_put(b, p, len);
		} else {
			buf_put(b, replacement, sizeof(replacement));
		}
	}
	buf_put(b, "\"", 1);
}

static void
js_raw(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void
js_i64(struct buf *b, int64_t v)
{
	char t[32];

	buf_put(b, t, (size_t)snprintf(t, sizeof(t), "%" PRId64, v));
}

/* NS nanoseconds as microseconds with exactly three decimals. */
static void
js_us(struct buf *b, int64_t ns)
{
	char t[48];
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	buf_put(b, t, (size_t)snprintf(t, sizeof(t), "%s%" PRIu64 ".%03u",
	    ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000)));
}

/* One event: the text in w->pkt, preceded by a comma after the first. */
static int
js_flush(struct tev_writer *w)
{
	if (out(w, w->first ? "\n" : ",\n", w->first ? 1 : 2) != 0)
		return -1;
	w->first = 0;
	return out(w, w->pkt.p, w->pkt.n);
}

/* A metadata event NAME (process_name, thread_sort_index, ...) of T. */
static int
js_meta(struct tev_writer *w, const struct tev_track *t, const char *name,
    const char *str, int64_t num)
{
	struct buf *b = &w->pkt;

	b->n = 0;
	js_raw(b, "{\"ph\":\"M\",\"name\":\"");
	js_raw(b, name);
	js_raw(b, "\",\"pid\":");
	js_i64(b, t->pid);
	if (t->tid != 0) {
		js_raw(b, ",\"tid\":");
		js_i64(b, t->tid);
	}
	js_raw(b, ",\"args\":{");
	if (str != NULL) {
		js_raw(b, "\"name\":");
		js_str(b, str);
	} else {
		js_raw(b, "\"sort_index\":");
		js_i64(b, num);
	}
	js_raw(b, "}}");
	return js_flush(w);
}

static int
js_track(struct tev_writer *w, const struct tev_track *t)
{
	int thr = t->tid != 0;

	if (js_meta(w, t, thr ? "thread_name" : "process_name", t->name, 0))
		return -1;
	return js_meta(w, t, thr ? "thread_sort_index" :
	    "process_sort_index", NULL, t->sort);
}

static void
js_arg(struct buf *b, const struct tev_arg *a, int *n)
{
	char t[400];

	if (a->type == TEV_DOUBLE && !isfinite(a->d))
		return;
	if ((*n)++ > 0)
		js_raw(b, ",");
	js_str(b, a->name);
	js_raw(b, ":");
	switch (a->type) {
	case TEV_STR:
		js_str(b, a->s);
		break;
	case TEV_UINT:
		buf_put(b, t, (size_t)snprintf(t, sizeof(t), "%" PRIu64, a->u));
		break;
	case TEV_DOUBLE:
		buf_put(b, t, tsv_fmt_f64(t, a->d));
		break;
	}
}

static void
js_where(struct buf *b, const struct tev_slice *s)
{
	js_raw(b, ",\"pid\":");
	js_i64(b, s->track->pid);
	js_raw(b, ",\"tid\":");
	js_i64(b, s->track->tid);
	js_raw(b, ",\"ts\":");
	js_us(b, s->ts);
}

/* The flow event of S: at its start, bound to it ("bp":"e"). */
static int
js_flow(struct tev_writer *w, const struct tev_slice *s)
{
	struct buf *b = &w->pkt;
	char ph[2] = { (char)s->flowph, 0 };

	b->n = 0;
	js_raw(b, "{\"ph\":\"");
	js_raw(b, ph);
	js_raw(b, "\",\"id\":");
	js_i64(b, (int64_t)s->flow);
	js_raw(b, ",\"name\":");
	js_str(b, s->flowcat ? s->flowcat : "flow");
	js_raw(b, ",\"cat\":");
	js_str(b, s->flowcat ? s->flowcat : "flow");
	js_where(b, s);
	js_raw(b, ",\"bp\":\"e\"}");
	return js_flush(w);
}

static int
js_begin(struct tev_writer *w, const struct tev_slice *s)
{
	struct buf *b = &w->pkt;
	size_t i;
	int n = 0;

	b->n = 0;
	js_raw(b, "{\"ph\":\"X\",\"name\":");
	js_str(b, s->name);
	if (s->cat != NULL) {
		js_raw(b, ",\"cat\":");
		js_str(b, s->cat);
	}
	js_where(b, s);
	js_raw(b, ",\"dur\":");
	js_us(b, s->dur);
	if (s->nargs > 0) {
		js_raw(b, ",\"args\":{");
		for (i = 0; i < s->nargs; i++)
			js_arg(b, &s->args[i], &n);
		js_raw(b, "}");
	}
	js_raw(b, "}");
	if (js_flush(w) != 0)
		return -1;
	return s->flow != 0 && s->flowph != 0 ? js_flow(w, s) : 0;
}

/* ---- the interface ---- */

int
tev_track(struct tev_writer *w, const struct tev_track *t)
{
	return w->fmt == TEV_JSON ? js_track(w, t) : pf_track(w, t);
}

int
tev_begin(struct tev_writer *w, const struct tev_slice *s)
{
	return w->fmt == TEV_JSON ? js_begin(w, s) : pf_begin(w, s);
}

int
tev_end(struct tev_writer *w, const struct tev_slice *s)
{
	return w->fmt == TEV_JSON ? (w->failed ? -1 : 0) : pf_end(w, s);
}

void
tev_free(struct tev_writer *w)
{
	int i;

	if (w == NULL)
		return;
	for (i = 0; i < IT_N; i++)
		strtab_free(&w->it[i]);
	free(w->pkt.p);
	free(w->in.p);
	free(w);
}

int
tev_close(struct tev_writer *w)
{
	int rc = 0;

	if (w->fmt == TEV_JSON && outs(w, "\n]}\n") != 0)
		rc = -1;
	if (rc == 0 && !w->failed && fflush(w->fp) != 0)
		rc = err_fail("%s: write error: %s", w->name, strerror(errno));
	if (w->failed)
		rc = -1;
	tev_free(w);
	return rc;
}
