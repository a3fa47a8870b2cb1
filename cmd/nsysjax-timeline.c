/*
 * nsysjax-timeline writes the frames of a run (a directory of
 * nsysjax-extract -o) as one timeline, every device on one clock: a
 * Perfetto protobuf trace, or Chrome Trace Event JSON.  The model is
 * lib/analysis/timeline.h; the encoders lib/formats/tevent.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/align.h"
#include "analysis/filter.h"
#include "analysis/timeline.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/opt.h"
#include "base/tsv.h"
#include "formats/tevent.h"

static const char usage_line[] =
    "usage: nsysjax-timeline [-hv] [-c corrections] [-f perfetto|json]\n"
    "           [-s steps] [-d devices] [-m ms] [-p critpath] [-P tflops]"
    " frames-dir";

static const struct opt_tool tool = { usage_line,
    "  -c, --corrections=FILE  the clock corrections of nsysjax-align -o\n"
    "  -f, --format=FORMAT     perfetto (protobuf, default) or json\n"
    "                          (Chrome Trace Event)\n"
    "  -s, --steps=LIST        ProgramExecution numbers kept: 5,7-9\n"
    "  -d, --devices=LIST      devices kept: 0-7,64\n"
    "  -m, --min-dur=MS        leave out thunks shorter than MS ms\n"
    "  -p, --critpath=FILE     a critical path (nsysjax-critpath rows)\n"
    "  -P, --peak-tflops=TF    the peak TFLOP/s of MFU\n"
    "  -v, --verbose           the size of the trace written, on stderr\n"
    "  -h, --help              this text\n"
    "  -V, --version           the version\n" };

struct opts {
	const char *corr, *critpath, *dir;
	enum tev_format fmt;
	struct tl_ranges steps, devices;
	int has_steps, has_devices, verbose;
	struct tl_opts to;
};

static void
ranges(const char *name, const char *arg, struct tl_ranges *r, int *has)
{
	if (tl_ranges_parse(arg, r) != 0)
		opt_usage(&tool, "%s %s", name, err_msg());
	*has = 1;
}

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "corrections", required_argument, NULL, 'c' },
		{ "critpath", required_argument, NULL, 'p' },
		{ "devices", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "min-dur", required_argument, NULL, 'm' },
		{ "peak-tflops", required_argument, NULL, 'P' },
		{ "steps", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = opt_next(argc, argv, ":P:c:d:f:hm:p:s:vV", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'P':
			o->to.peak_tflops = opt_f64(&tool, "--peak-tflops",
			    optarg, 0, 1e9);
			break;
		case 'c':
			o->corr = optarg;
			break;
		case 'd':
			ranges("--devices", optarg, &o->devices,
			    &o->has_devices);
			break;
		case 'f':
			if (strcmp(optarg, "perfetto") == 0)
				o->fmt = TEV_PERFETTO;
			else if (strcmp(optarg, "json") == 0)
				o->fmt = TEV_JSON;
			else
				opt_usage(&tool, "--format '%s': not perfetto "
				    "or json", optarg);
			break;
		case 'm':
			/* ms to ns, rounded to the nearest ns. */
			o->to.min_dur_ns = (int64_t)(opt_f64(&tool,
			    "--min-dur", optarg, 0, 1e9) * 1e6 + 0.5);
			break;
		case 'p':
			o->critpath = optarg;
			break;
		case 's':
			ranges("--steps", optarg, &o->steps, &o->has_steps);
			break;
		case 'v':
			o->verbose = 1;
			break;
		}
	}
	if (argc - optind != 1)
		opt_usage(&tool, argc == optind ? "no frames directory" :
		    "one frames directory only");
	o->dir = argv[optind];
}

/* Read PATH with FN; a missing file is an error when REQUIRED, else
 * skipped. */
static void
load_file(struct timeline *t, const char *path, int required,
    int (*fn)(struct timeline *, struct tsv_reader *))
{
	struct tsv_reader *r;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL) {
		if (!required && errno == ENOENT)
			return;
		err_die("%s:", path);
	}
	if ((r = tsv_ropen(fp, path)) == NULL || fn(t, r) != 0)
		err_die_last();
	tsv_rclose(r);
	fclose(fp);
}

/* load_file of DIR/NAME.tsv. */
static void
load(struct timeline *t, const char *dir, const char *name, int required,
    int (*fn)(struct timeline *, struct tsv_reader *))
{
	char *path = mem_alloc(strlen(dir) + strlen(name) + 6);

	sprintf(path, "%s/%s.tsv", dir, name);
	load_file(t, path, required, fn);
	free(path);
}

/* align_table_read for opt_read. */
static int
read_table(FILE *fp, const char *path, void *t)
{
	return align_table_read(fp, path, t);
}

/* ---- the sink: timeline.h's tracks and slices to tevent.h ---- */

/* What was written, for -v. */
static uint64_t nprocs, nthreads, nslices;

static void
track_of(const struct tl_track *a, struct tev_track *b)
{
	b->uuid = a->uuid;
	b->pid = a->pid;
	b->tid = a->tid;
	b->name = a->name;
	b->sort = a->sort;
}

static int
sink_track(void *w, const struct tl_track *tr)
{
	struct tev_track t;

	if (tr->tid == 0)
		nprocs++;
	else
		nthreads++;
	track_of(tr, &t);
	return tev_track(w, &t);
}

/* S as a tev_slice into *B, its arguments into ARGS (24 at most). */
static void
slice_of(const struct tl_slice *s, struct tev_slice *b, struct tev_track *t,
    struct tev_arg *args)
{
	size_t i;

	track_of(s->track, t);
	b->track = t;
	b->ts = s->ts;
	b->dur = s->dur;
	b->name = s->name;
	b->cat = s->cat;
	b->flow = s->flow;
	b->flowph = s->flowph;
	b->flowcat = s->flowcat;
	b->nargs = s->nargs;
	b->args = args;
	for (i = 0; i < s->nargs; i++) {
		args[i].name = s->args[i].name;
		args[i].type = s->args[i].type == TL_STR ? TEV_STR :
		    s->args[i].type == TL_UINT ? TEV_UINT : TEV_DOUBLE;
		args[i].s = s->args[i].s;
		args[i].u = s->args[i].u;
		args[i].d = s->args[i].d;
	}
}

static int
sink_begin(void *w, const struct tl_slice *s)
{
	struct tev_slice b;
	struct tev_track t;
	struct tev_arg args[24];

	nslices++;
	slice_of(s, &b, &t, args);
	return tev_begin(w, &b);
}

static int
sink_end(void *w, const struct tl_slice *s)
{
	struct tev_slice b;
	struct tev_track t;
	struct tev_arg args[24];

	slice_of(s, &b, &t, args);
	return tev_end(w, &b);
}

int
main(int argc, char *argv[])
{
	static char obuf[1 << 16];
	struct opts o;
	struct align_table corr = { 0 };
	struct timeline *t;
	struct tev_writer *w;
	struct tl_sink sink;
	int64_t offset = 0;
	uint64_t bytes;

	memset(&o, 0, sizeof(o));
	parse(argc, argv, &o);
	if (o.fmt == TEV_PERFETTO && isatty(STDOUT_FILENO))
		err_die("refusing to write a binary trace to a terminal: "
		    "redirect it (> run.perfetto-trace) or use -f json");
	if (o.corr) {
		opt_read(o.corr, read_table, &corr);
		o.to.corr = &corr;
	}
	o.to.steps = o.has_steps ? &o.steps : NULL;
	o.to.devices = o.has_devices ? &o.devices : NULL;
	t = tl_new(&o.to);
	/* Pass one: every input read and checked before any output. */
	load(t, o.dir, "stackframes", 0, tl_load_stackframes);
	load(t, o.dir, "hlo", 0, tl_load_hlo);
	load(t, o.dir, "module", 1, tl_read_modules);
	load(t, o.dir, "thunk", 1, tl_read_thunks);
	if (o.critpath)
		load_file(t, o.critpath, 1, tl_read_critpath);
	err_notes_print(tl_notes(t));
	if (o.fmt == TEV_PERFETTO && tl_min_start(t) < 0) {
		/* Perfetto's timestamps are unsigned. */
		offset = -tl_min_start(t);
		err_warn("the trace starts at %" PRId64 " ns, before 0: every "
		    "time is shifted by +%" PRId64 " ns", -offset, offset);
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	w = tev_open(stdout, "<stdout>", o.fmt, offset);
	sink.arg = w;
	sink.track = sink_track;
	sink.begin = sink_begin;
	sink.end = sink_end;
	if (tl_write(t, &sink) != 0) {
		char *msg = mem_strdup(err_msg());

		tev_free(w);
		err_die("%s", msg);
	}
	bytes = tev_bytes(w);
	if (tev_close(w) != 0)
		err_die_last();
	if (o.verbose)
		err_warn("%" PRIu64 " slices on %" PRIu64 " tracks of %" PRIu64
		    " devices, %" PRIu64 " bytes (%.1f bytes per slice)",
		    nslices, nthreads, nprocs, bytes,
		    nslices ? (double)bytes / (double)nslices : 0.0);
	tl_free(t);
	tl_ranges_free(&o.steps);
	tl_ranges_free(&o.devices);
	align_table_free(&corr);
	return 0;
}
