/*
 * Fuzz target: nsysjax-timeline's readers and writers (analysis/
 * timeline.h, formats/tevent.h).  The input is up to four TSV texts
 * separated by form feeds: the stackframes frame, the hlo frame, the
 * module frame and the thunk frame; the thunk text is also read as a
 * critical path and as a corrections table (each read fails cleanly when
 * the columns are not there).  Each is written in both formats to
 * /dev/null, with small batches so that several passes over the spool
 * run, and with the filters on.  The JSON must be UTF-8 whatever the
 * bytes of the names.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/align.h"
#include "analysis/timeline.h"
#include "base/tsv.h"
#include "formats/tevent.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char *files[FUZZ_NTMP];

static int
read_file(struct timeline *t, const char *path,
    int (*fn)(struct timeline *, struct tsv_reader *))
{
	struct tsv_reader *r;
	FILE *fp;
	int rc = -1;

	if ((fp = fopen(path, "r")) == NULL)
		abort();
	if ((r = tsv_ropen(fp, path)) != NULL)
		rc = fn(t, r);
	tsv_rclose(r);
	fclose(fp);
	return rc;
}

static int
s_track(void *w, const struct tl_track *a)
{
	struct tev_track b = { a->uuid, a->pid, a->tid, a->name, a->sort };

	return tev_track(w, &b);
}

static int
s_slice(void *w, const struct tl_slice *s, int begin)
{
	struct tev_track t = { s->track->uuid, s->track->pid, s->track->tid,
	    s->track->name, s->track->sort };
	struct tev_arg args[24];
	struct tev_slice b;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.track = &t;
	b.ts = s->ts;
	b.dur = s->dur;
	b.name = s->name;
	b.cat = s->cat;
	b.flow = s->flow;
	b.flowph = s->flowph;
	b.flowcat = s->flowcat;
	b.nargs = s->nargs;
	b.args = args;
	for (i = 0; i < s->nargs && i < 24; i++) {
		args[i].name = s->args[i].name;
		args[i].type = (enum tev_argtype)s->args[i].type;
		args[i].s = s->args[i].s;
		args[i].u = s->args[i].u;
		args[i].d = s->args[i].d;
	}
	return begin ? tev_begin(w, &b) : tev_end(w, &b);
}

static int
s_begin(void *w, const struct tl_slice *s)
{
	return s_slice(w, s, 1);
}

static int
s_end(void *w, const struct tl_slice *s)
{
	return s_slice(w, s, 0);
}

/* Whether S[0..N) is UTF-8: each sequence decoded to its code point,
 * which must need that many bytes (no overlong form), and be no
 * surrogate and at most U+10FFFF (RFC 3629). */
static int
utf8(const char *s, size_t n)
{
	static const uint32_t least[] = { 0, 0x80, 0x800, 0x10000 };
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, more;
	uint32_t c;

	while (i < n) {
		c = p[i];
		more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 :
		    (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
		if (more == 4 || more >= n - i)	/* no lead byte, or cut */
			return 0;
		c &= more ? 0x3fu >> more : 0x7f;
		for (k = 1; k <= more; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (p[i + k] & 0x3f);
		}
		if (c < least[more] || (c >= 0xd800 && c <= 0xdfff) ||
		    c > 0x10ffff)
			return 0;
		i += more + 1;
	}
	return 1;
}

static void
run(enum tev_format fmt, int filters)
{
	struct align_table corr = { 0 };
	struct tl_ranges steps = { 0 }, devs = { 0 };
	struct tl_opts o;
	struct timeline *t;
	struct tev_writer *w;
	struct tl_sink sink;
	FILE *fp, *out = NULL;
	char *buf = NULL;
	size_t len = 0;

	memset(&o, 0, sizeof(o));
	o.batch = 3;
	o.peak_tflops = 1;
	if (filters) {
		if (tl_ranges_parse("0,2-4", &steps) != 0 ||
		    tl_ranges_parse("1-3", &devs) != 0)
			abort();
		o.steps = &steps;
		o.devices = &devs;
		o.min_dur_ns = 1000;
		if ((fp = fopen(files[3], "r")) == NULL)
			abort();
		if (align_table_read(fp, files[3], &corr) == 0)
			o.corr = &corr;
		fclose(fp);
	}
	t = tl_new(&o);
	(void)read_file(t, files[0], tl_load_stackframes);
	(void)read_file(t, files[1], tl_load_hlo);
	if (read_file(t, files[2], tl_read_modules) == 0 &&
	    read_file(t, files[3], tl_read_thunks) == 0) {
		(void)read_file(t, files[3], tl_read_critpath);
		/* The JSON in memory, to be checked: UTF-8 (RFC 8259). */
		if (fmt == TEV_JSON && (out = open_memstream(&buf, &len)) == NULL)
			abort();
		w = tev_open(fmt == TEV_JSON ? out : fuzz_null(), "null", fmt,
		    tl_min_start(t) < 0 ? -tl_min_start(t) : 0);
		sink.arg = w;
		sink.track = s_track;
		sink.begin = s_begin;
		sink.end = s_end;
		if (tl_write(t, &sink) == 0)
			(void)tev_close(w);
		else
			tev_free(w);
		if (out != NULL && (fclose(out) != 0 || !utf8(buf, len)))
			abort();
		free(buf);
	}
	tl_free(t);
	tl_ranges_free(&steps);
	tl_ranges_free(&devs);
	align_table_free(&corr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	fuzz_files(data, n, files);
	run(TEV_PERFETTO, 0);
	run(TEV_JSON, 1);
	return 0;
}
