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
    "usage: nsysjax-roofline [-h] -H hlo [-M modules] [-t tables] [-o dir]\n"
    "           [-d input | -g gpu] [--peak-{tflops,gbps,link-gbps} N] [file ...]";

static const struct opt_tool tool = { usage_line,
    "  -H, --hlo=FILE         the hlo frame of nsysjax-extract (costs)\n"
    "  -M, --modules=FILE     the steady module frame (the steps table)\n"
    "  -t, --table=LIST       ops (default), modules, steps, separated by\n"
    "                         commas\n"
    "  -o, --output=DIR       write each table to DIR/roofline-TABLE.tsv\n"
    "                         (needed for more than one table; else stdout)\n"
    "  -d, --device=INPUT     take the GPU from INPUT: an nsys-jax archive\n"
    "                         (device-metadata.parquet, the dump's\n"
    "                         gpu_target_config.pbtxt), an nsys SQLite\n"
    "                         export (TARGET_INFO_GPU) or a *.pbtxt[.xz]\n"
    "  -g, --gpu=NAME         the GPU by name (\"H100 SXM\", \"A100-SXM4-80GB\")\n"
    "      --peak-tflops=T    the compute peak, TFLOP/s (every dtype)\n"
    "      --peak-gbps=G      the memory bandwidth, GB/s\n"
    "      --peak-link-gbps=L a link's bandwidth, GB/s per direction (the\n"
    "                         collectives' LinkUtil)\n"
    "      --save-device=FILE write the GPU of -d to FILE, a\n"
    "                         *.gpu_target_config.pbtxt that -d reads\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n" };

enum { O_TFLOPS = 256, O_GBPS, O_SAVE, O_LINK };

struct opts {
	const char *hlo, *modules, *dir, *device, *gpu, *save;
	double tflops, gbps, link;
	unsigned tables;
};

static void
parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "hlo", required_argument, NULL, 'H' },
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
	while ((c = opt_next(argc, argv, ":H:M:d:g:ho:t:V", longopts,
	    &tool)) != -1) {
		switch (c) {
		case 'H':
			o->hlo = optarg;
			break;
		case 'M':
			o->modules = optarg;
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
	if (o.modules && filter_load(o.modules, roofline_load_modules, r) != 0)
		err_die_last();
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
