/*
 * nsysjax-roofline reads the thunk rows of a steady state with the hlo
 * frame's costs (and the module frame for step MFU) and writes how far
 * each operation runs from the GPU's peaks: achieved TFLOP/s and GB/s,
 * intensity, MFU, the bound and the roofline time (lib/analysis/
 * roofline.h has the rules, lib/formats/hlocost.h the costs, lib/profile/
 * device.h where the GPU comes from).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/roofline.h"
#include "formats/archive.h"
#include "base/err.h"
#include "base/opt.h"
#include "base/outfile.h"
#include "base/tsv.h"
#include "profile/device.h"

static const char usage_line[] =
    "usage: nsysjax-roofline [-h] -H hlo [-M modules [--meta meta]] [-C cmdbufs]\n"
    "           [-t tables] [-o dir] [-d input | -g gpu] [--peak-{tflops,gbps,link-gbps} N] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -H, --hlo=FILE         the hlo frame of nsysjax-extract (costs)\n"
    "  -M, --modules=FILE     the steady module frame (the steps table)\n"
    "  -C, --cmdbufs=FILE     the cmdbufs side table of nsysjax-extract: the\n"
    "                         operations of each command buffer, whose FLOPs\n"
    "                         count in the MFU of its module and steps\n"
    "  -t, --table=LIST       ops (default), modules, steps, separated by\n"
    "                         commas\n"
    "  -o, --output=DIR       write each table to DIR/roofline-TABLE.tsv\n"
    "                         (needed for more than one table; else stdout)\n"
    "  -d, --device=INPUT     take the GPU from INPUT: an nsys-jax archive\n"
    "                         (device-metadata.parquet, the dump's\n"
    "                         gpu_target_config.pbtxt), an nsys SQLite\n"
    "                         export (TARGET_INFO_GPU) or a *.pbtxt[.xz]\n"
    "  -g, --gpu=NAME         the GPU by name (\"H100 SXM\", \"A100-SXM4-80GB\")\n"
    "      --meta=FILE        the meta frame of nsysjax-extract: each\n"
    "                         process's GPU (the profiles in order, one per\n"
    "                         process; needs -M)\n"
    "      --peak-tflops=T    the compute peak, TFLOP/s (every dtype)\n"
    "      --peak-gbps=G      the memory bandwidth, GB/s\n"
    "      --peak-link-gbps=L a link's bandwidth, GB/s per direction (the\n"
    "                         collectives' LinkUtil)\n"
    "      --save-device=FILE write the GPU of -d to FILE, a\n"
    "                         *.gpu_target_config.pbtxt that -d reads\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

enum { O_TFLOPS = 256, O_GBPS, O_SAVE, O_LINK, O_META };

struct opts {
	const char *hlo, *modules, *dir, *device, *gpu, *save, *cmdbufs, *meta;
	double tflops, gbps, link;
	unsigned tables;
};

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "cmdbufs", required_argument, NULL, 'C' },
		{ "device", required_argument, NULL, 'd' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "hlo", required_argument, NULL, 'H' },
		{ "meta", required_argument, NULL, O_META },
		{ "modules", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "peak-gbps", required_argument, NULL, O_GBPS },
		{ "peak-link-gbps", required_argument, NULL, O_LINK },
		{ "peak-tflops", required_argument, NULL, O_TFLOPS },
		{ "save-device", required_argument, NULL, O_SAVE },
		{ "table", required_argument, NULL, 't' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	archive_quiet_tz();	/* before any thread */
	while ((c = opt_next(argc, argv, ":C:H:M:d:g:ho:t:V", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'H':
			o->hlo = optarg;
			break;
		case 'M':
			o->modules = optarg;
			break;
		case 'C':
			o->cmdbufs = optarg;
			break;
		case O_META:
			o->meta = optarg;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'g':
			o->gpu = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 't':
			o->tables |= opt_bits(&tool, "table", optarg,
			    roofline_table_parse);
			break;
		case O_TFLOPS:
			o->tflops = opt_f64(&tool, "--peak-tflops", optarg, 1e-9,
			    1e9);
			break;
		case O_SAVE:
			o->save = optarg;
			break;
		case O_GBPS:
			o->gbps = opt_f64(&tool, "--peak-gbps", optarg, 1e-9,
			    1e12);
			break;
		case O_LINK:
			o->link = opt_f64(&tool, "--peak-link-gbps", optarg,
			    1e-9, 1e12);
			break;
		}
	}
	if (o->hlo == NULL)
		opt_usage(&tool, "the costs need the hlo frame: -H file");
	if (o->device && o->gpu)
		opt_usage(&tool, "--device and --gpu are exclusive");
	if (o->meta && o->modules == NULL)
		opt_usage(&tool, "--meta needs the module frame: -M file");
	if (o->save && o->device == NULL)
		opt_usage(&tool, "--save-device needs --device");
	if (o->tables == 0)
		o->tables = 1u << ROOFLINE_OPS;
	if ((o->tables & (1u << ROOFLINE_STEPS)) && o->modules == NULL)
		opt_usage(&tool, "the steps table needs the module frame: "
		    "-M file");
	if ((o->tables & (o->tables - 1)) != 0 && o->dir == NULL)
		opt_usage(&tool, "more than one table: -o dir");
}

/* The peaks: the device's or the named GPU's, then the overrides. */
static void
peaks(const struct opts *o, struct roofline_peaks *p)
{
	struct device_info d;
	int c, r = 0;

	memset(p, 0, sizeof(*p));
	if (o->device) {
		if ((r = device_read(o->device, &d)) < 0)
			err_die_last();
		if (r == 0)
			err_warn("%s: no device description: no peaks",
			    o->device);
		else if (o->save && device_write_pbtxt(&d, o->save) != 0)
			err_die_last();
		else if (!roofline_peaks_of(d.name, d.sms, d.clock_hz,
		    d.major, d.minor, d.bw, p))
			err_warn("%s: GPU '%s' (sm_%d.%d) has no known peak",
			    o->device, d.name, d.major, d.minor);
	} else if (o->gpu && !roofline_peaks_of(o->gpu, 0, 0, -1, -1, 0, p))
		err_warn("GPU '%s' has no known peak", o->gpu);
	if (o->tflops > 0)
		for (c = 0; c < ROOFLINE_NCLASS; c++)
			p->flops[c] = o->tflops * 1e12;
	if (o->gbps > 0)
		p->bw = o->gbps * 1e9;
	if (o->link > 0)
		p->link = o->link * 1e9;
}

static int
load_cmdbufs(struct tsv_reader *r, void *arg)
{
	return roofline_load_cmdbufs(arg, r);
}

/* The meta frame's GPUs, the overrides of the options on top. */
struct meta_arg {
	struct roofline *r;
	struct roofline_peaks ov;
};

static int
load_meta(struct tsv_reader *r, void *arg)
{
	struct meta_arg *m = arg;

	return roofline_load_meta(m->r, r, &m->ov);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct roofline_peaks p;
	struct roofline *r;
	struct filter *in;
	char note[256];
	size_t n;

	memset(&o, 0, sizeof(o));
	parse(argc, argv, &o);
	peaks(&o, &p);
	r = roofline_new(&p);
	if (filter_load(o.hlo, roofline_load_hlo, r) != 0)
		err_die_last();
	if (o.cmdbufs && filter_load(o.cmdbufs, load_cmdbufs, r) != 0)
		err_die_last();
	if (o.modules && filter_load(o.modules, roofline_load_modules, r) != 0)
		err_die_last();
	if (o.meta) {
		struct meta_arg m;
		int c;

		memset(&m, 0, sizeof(m));
		m.r = r;
		for (c = 0; c < ROOFLINE_NCLASS; c++)
			m.ov.flops[c] = o.tflops * 1e12;
		m.ov.bw = o.gbps * 1e9;
		m.ov.link = o.link * 1e9;
		if (filter_load(o.meta, load_meta, &m) != 0)
			err_die_last();
		if (roofline_map_profiles(r, note, sizeof(note)) != 0)
			err_warn("%s: %s: every process scored against the "
			    "peaks of --device or --gpu", o.meta, note);
	}
	if ((in = filter_open(argv + optind, (size_t)(argc - optind))) == NULL)
		err_die_last();
	if (roofline_read(r, in) != 0)
		err_die_last();
	filter_close(in);
	if (o.modules && (n = roofline_unaligned(r, note, sizeof(note))) > 0)
		err_warn("%s: %zu step%s of several processes span more than "
		    "their devices ran (first: %s): clocks not aligned, step "
		    "MFU too low; align the frames first (nsysjax-align)",
		    o.modules, n, n == 1 ? "" : "s", note);
	if (outfile_tables(o.dir, "roofline-", o.tables, ROOFLINE_NTABLES,
	    roofline_table_name, roofline_write, r) != 0)
		err_die_last();
	roofline_free(r);
	return 0;
}
