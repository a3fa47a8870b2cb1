/*
 * nsysjax-extract reads nsys-jax profiles (.zip archives or their
 * extracted directories) or nsys SQLite exports (a .sqlite, or a directory
 * or zip holding one and dump/); several inputs are the processes of one
 * run.  It writes the frames of the reference's load_profiler_data as
 * TSV, and from exports the NVTX -> GPU projection (nvtx): one frame to
 * standard output, or every frame into a directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/opt.h"
#include "profile/extract.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/tsv.h"

static const char usage_line[] =
    "usage: nsysjax-extract [-hkm] [-d dir] [-f frame | -o dir] [-n names] input ...";

static const struct opt_tool tool = { usage_line,
    "  -f, --frame=NAME          frame to write to stdout: thunk (default),\n"
    "                            module, communication, compile, hlo,\n"
    "                            stackframes, heap, nvtx (SQLite exports:\n"
    "                            every projected NVTX range, integer ns)\n"
    "  -d, --hlo-dump=DIR        XLA dumps of SQLite exports (default: dump/\n"
    "                            beside the file, or in its directory/zip)\n"
    "  -o, --output-dir=DIR      write every frame to DIR/NAME.tsv\n"
    "  -k, --keep-autotuning     keep autotuner executions and compile detail\n"
    "  -m, --allow-missing-hlo   a module without HLO dump is a warning\n"
    "  -n, --names=A,B,...       ProfileName of each profile, in input order\n"
    "  -h, --help                this text\n"
    "  -V, --version             the version\n" };

static void
write_stdout(struct extract *x, unsigned bit)
{
	struct tsv_writer *w = tsv_wopen(stdout, "<stdout>");
	int rc = extract_write(x, bit, w);

	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
}

/* Each frame goes to a temporary file, renamed once all are written, so
 * that a failed run leaves no file that looks complete (outfile.h). */
static void
write_dir(struct extract *x, const char *dir)
{
	struct outfile of[EXTRACT_NFRAMES];
	char *path;
	size_t i, k;

	for (i = 0; extract_frame_names[i]; i++) {
		struct tsv_writer *w;
		int rc;

		if (!(extract_frames(x) & (1u << i))) {
			of[i].fp = NULL;
			continue;
		}
		path = mem_alloc(strlen(dir) +
		    strlen(extract_frame_names[i]) + 6);
		sprintf(path, "%s/%s.tsv", dir, extract_frame_names[i]);
		rc = outfile_open(&of[i], path);
		free(path);
		if (rc == 0) {
			w = tsv_wopen(of[i].fp, of[i].path);
			rc = extract_write(x, 1u << i, w);
			if (tsv_wclose(w) != 0)
				rc = -1;
			if (outfile_close(&of[i]) != 0)
				rc = -1;
		}
		if (rc != 0) {
			for (k = 0; k <= i; k++)
				if (extract_frames(x) & (1u << k))
					outfile_discard(&of[k]);
			err_die_last();
		}
	}
	for (i = 0; extract_frame_names[i]; i++)
		if ((extract_frames(x) & (1u << i)) && outfile_commit(&of[i]) != 0)
			err_die_last();
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "allow-missing-hlo", no_argument, NULL, 'm' },
		{ "frame", required_argument, NULL, 'f' },
		{ "hlo-dump", required_argument, NULL, 'd' },
		{ "keep-autotuning", no_argument, NULL, 'k' },
		{ "names", required_argument, NULL, 'n' },
		{ "output-dir", required_argument, NULL, 'o' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct extract_opts o = { .frames = EXTRACT_THUNK };
	struct extract *x = extract_new();
	const char *dir = NULL;
	int c;

	while ((c = opt_next(argc, argv, ":d:f:hkmn:o:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'd':
			o.dumpdir = optarg;
			break;
		case 'f':
			if ((o.frames = extract_frame_bit(optarg)) == 0)
				opt_usage(&tool, "unknown frame '%s'", optarg);
			break;
		case 'k':
			o.keep_autotuning = 1;
			break;
		case 'm':
			o.allow_missing_hlo = 1;
			break;
		case 'n':
			o.names = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		}
	}
	if (optind >= argc)
		opt_usage(&tool, "no input");
	if (dir) {
		o.frames = (1u << EXTRACT_NFRAMES) - 1;
		if (outfile_mkdirs(dir) != 0)	/* before the work */
			err_die_last();
	}
	if (extract_load(x, (const char *const *)argv + optind,
	    (size_t)(argc - optind), &o) != 0) {
		err_notes_print(extract_notes(x));
		err_die_last();
	}
	err_notes_print(extract_notes(x));
	if (dir)
		write_dir(x, dir);
	else
		write_stdout(x, o.frames);
	extract_free(x);
	return 0;
}
