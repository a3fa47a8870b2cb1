/*
 * nsysjax-extract reads nsys-jax profiles (.zip archives or their
 * extracted directories) or nsys SQLite exports (a .sqlite, or a directory
 * or zip holding one and dump/); several inputs are the processes of one
 * run.  It writes the frames of the reference's load_profiler_data as
 * TSV, and from exports the NVTX -> GPU projection (nvtx): one frame to
 * standard output, or every frame into a directory; or, with --check,
 * what the capture lacks (analysis/capture.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "analysis/capture.h"
#include "formats/archive.h"
#include "base/err.h"
#include "base/opt.h"
#include "profile/extract.h"
#include "base/mem.h"
#include "base/outfile.h"
#include "base/pool.h"
#include "base/tempfile.h"
#include "base/tsv.h"
#include "profile/merge.h"
#include "profile/meta.h"
#include "profile/parts.h"

static const char usage_line[] =
    "usage: nsysjax-extract [-hkm] [-d dir] [-f frame | -o dir | --check] [-j jobs] [-n names] input ...\n"
    "       nsysjax-extract --merge [-f frame | -o dir] part-dir ...";

static const struct opt_tool tool = { usage_line,
    "  -f, --frame=NAME          frame to write to stdout: thunk (default),\n"
    "                            module, communication, compile, hlo,\n"
    "                            stackframes, heap, nvtx (SQLite exports:\n"
    "                            every projected NVTX range, integer ns),\n"
    "                            meta (GPU, driver, nsys, ... per profile)\n"
    "  -d, --hlo-dump=DIR        XLA dumps of SQLite exports (default: dump/\n"
    "                            beside the file, or in its directory/zip)\n"
    "  -o, --output-dir=DIR      write every frame to DIR/NAME.tsv\n"
    "  -j, --jobs=N              extract N profiles at once, each in a worker\n"
    "                            process of its own (default: the number of\n"
    "                            processors); memory is that of the largest\n"
    "                            profiles, not of their number; 0: all in\n"
    "                            this process (memory grows with them)\n"
    "      --merge               inputs are directories written by -o for\n"
    "                            some of a run's processes, in process order:\n"
    "                            write the frames of one extraction of all\n"
    "      --check               write what the capture lacks (a ranked list,\n"
    "                            each with its consequence and fix) instead of\n"
    "                            frames; nothing when it lacks nothing; the\n"
    "                            input may be a directory written by -o\n"
    "  -k, --keep-autotuning     keep autotuner executions and compile detail\n"
    "  -m, --allow-missing-hlo   a module without HLO dump is a warning\n"
    "  -n, --names=A,B,...       ProfileName of each profile, in input order\n"
    "  -h, --help                this text\n"
    "  -V, --version             the version\n" };

static void
die(const struct err_notes *notes)
{
	err_notes_print(notes);
	err_die_last();
}

/* Every process in this one: memory grows with their number. */
static void
extract_here(const char *const *paths, size_t n, struct extract_opts *o,
    const char *dir)
{
	struct extract *x = extract_new();
	struct tsv_writer *w;
	int rc;

	if (extract_load(x, paths, n, o) != 0)
		die(extract_notes(x));
	err_notes_print(extract_notes(x));
	if (dir) {
		if (extract_write_dir(x, dir) != 0)
			err_die_last();
	} else {
		w = tsv_wopen(stdout, "<stdout>");
		rc = extract_write(x, o->frames, w);
		if (tsv_wclose(w) != 0 || rc != 0)
			err_die_last();
	}
	extract_free(x);
}

/* The meta frame (meta.h) to stdout: not one of the frames of -o, whose
 * files stay those --merge joins. */
static void
meta_out(const char *const *paths, size_t n, const struct extract_opts *o)
{
	struct err_notes notes = { NULL, 0, 0 };
	struct tsv_writer *w = tsv_wopen(stdout, "<stdout>");
	int rc = meta_write(paths, n, o->dumpdir, o->names, w, &notes);

	if (tsv_wclose(w) != 0)
		rc = -1;
	if (rc != 0)
		die(&notes);
	err_notes_print(&notes);
	err_notes_free(&notes);
}

/* meta_write's frame into DIR/meta.tsv beside the frames of -o, so that a
 * report made from them has the run's metadata.  Never fatal: without it
 * the file is left out, with the reason. */
struct meta_args {
	const char *const *paths;
	size_t n;
	const struct extract_opts *o;
	struct err_notes *notes;
	int none;		/* --merge: no part has a meta.tsv */
};

static int
meta_cb(struct tsv_writer *w, void *arg)
{
	const struct meta_args *a = arg;

	return meta_write(a->paths, a->n, a->o->dumpdir, a->o->names, w,
	    a->notes);
}

static void
meta_dir(const char *const *paths, size_t n, const struct extract_opts *o,
    const char *dir)
{
	struct err_notes notes = { NULL, 0, 0 };
	struct meta_args a = { paths, n, o, &notes, 0 };

	if (outfile_table(dir, "meta", meta_cb, &a) != 0)
		err_note(&notes, "no run metadata (%s/meta.tsv): %s", dir,
		    err_msg());
	err_notes_print(&notes);
	err_notes_free(&notes);
}

/* --merge: the parts' meta.tsv joined into DIR/meta.tsv (or to stdout,
 * -f meta), when they have one. */
static int
merge_meta_cb(struct tsv_writer *w, void *arg)
{
	struct meta_args *a = arg;
	int rc = meta_merge(a->paths, a->n, w);

	/* No part has one: failing discards the empty file. */
	a->none = rc == 1;
	return rc == 0 ? 0 : -1;
}

static void
merge_meta(const char *const *dirs, size_t n, const char *dir)
{
	struct err_notes notes = { NULL, 0, 0 };
	struct meta_args a = { dirs, n, NULL, NULL, 0 };
	struct tsv_writer *w;
	int rc;

	if (dir) {
		if (outfile_table(dir, "meta", merge_meta_cb, &a) != 0 &&
		    !a.none)
			err_note(&notes, "no run metadata (%s/meta.tsv): %s",
			    dir, err_msg());
		err_notes_print(&notes);
		err_notes_free(&notes);
		return;
	}
	w = tsv_wopen(stdout, "<stdout>");
	rc = meta_merge(dirs, n, w);
	if (rc == 1)
		err_fail("%s: no meta.tsv to merge", dirs[0]);
	if (tsv_wclose(w) != 0 || rc != 0)
		err_die_last();
}

/* Join DIRS[0..N) (parts) into DIR, or frame BIT to stdout. */
static int
merge_out(const char *const *dirs, size_t n, unsigned bits, unsigned bit,
    const char *dir, struct err_notes *notes, const struct merge_shared *sh)
{
	struct tsv_writer *w;
	int rc;

	if (dir)
		return merge_write_dir(dirs, n, bits, dir, notes, sh);
	w = tsv_wopen(stdout, "<stdout>");
	rc = merge_write(dirs, n, bit, w, notes, sh);
	if (tsv_wclose(w) != 0)
		rc = -1;
	return rc;
}

/* --merge: the parts are directories written by nsysjax-extract -o.
 * Parts that share a device merge as workers' parts do, where they can
 * (merge_shared_begin says why not). */
static void
merge_parts(const char *const *dirs, size_t n, unsigned bit, const char *dir)
{
	struct err_notes notes = { NULL, 0, 0 };
	struct merge_shared *sh = NULL;
	unsigned bits = merge_frames(dirs, n);
	int rc = 0;

	if (bits == 0 || merge_distinct(dirs, n) != 0)
		err_die_last();
	if (!dir && !(bits & bit))
		err_die("%s: no %s.tsv to merge", dirs[0],
		    extract_frame_names[__builtin_ctz(bit)]);
	if (bits & (EXTRACT_THUNK | EXTRACT_COMMUNICATION))
		rc = merge_shared_begin(dirs, n, &sh);
	if (rc != 0 || merge_out(dirs, n, bits, bit, dir, &notes, sh) != 0) {
		merge_shared_free(sh);
		die(&notes);
	}
	merge_shared_free(sh);
	err_notes_print(&notes);
	err_notes_free(&notes);
}

/*
 * One worker process per profile, JOBS at once, their frames merged
 * (parts.h, merge.h).  Profiles that share a device (copies of one run)
 * merge with what their thunk frames tell (merge_shared_begin), in this
 * process alone when they cannot.
 */
static void
extract_parts(const char *const *paths, size_t n, struct extract_opts *o,
    const struct extract_profile *pr, size_t np, unsigned jobs,
    const char *dir)
{
	struct err_notes notes = { NULL, 0, 0 };
	struct extract_opts po = *o;
	struct merge_shared *sh = NULL;
	struct parts p;
	int rc = 0;

	/* The merge of a shared device's communication rows checks the
	 * kinds of its thunks (merge_shared_begin): the parts hold the
	 * thunk frame too when the thread tables say that one is shared. */
	if ((o->frames & EXTRACT_COMMUNICATION) && !(o->frames & EXTRACT_THUNK) &&
	    parts_devices_shared(paths, n, o->dumpdir))
		po.frames |= EXTRACT_THUNK;
	if (parts_extract(paths, &po, pr, np, jobs, &p, &notes) != 0)
		die(&notes);
	if (o->frames & (EXTRACT_THUNK | EXTRACT_COMMUNICATION))
		rc = merge_shared_begin((const char *const *)p.dirs, p.n, &sh);
	if (rc == 1) {
		parts_remove(&p);
		err_notes_free(&notes);
		extract_here(paths, n, o, dir);
		return;
	}
	err_notes_print(&notes);
	err_notes_free(&notes);
	if (rc != 0 || merge_out((const char *const *)p.dirs, p.n,
	    dir ? p.frames & o->frames : 0, o->frames, dir, &notes, sh) != 0) {
		merge_shared_free(sh);
		parts_remove(&p);
		die(&notes);
	}
	merge_shared_free(sh);
	parts_remove(&p);
	err_notes_print(&notes);
	err_notes_free(&notes);
}

/* Whether PATH is a directory of frames (nsysjax-extract -o's). */
static int
is_frames(const char *path)
{
	char *t = mem_path(path, "thunk.tsv");
	struct stat st;
	int yes = stat(t, &st) == 0 && S_ISREG(st.st_mode);

	free(t);
	return yes;
}

static void
check_dir(const char *dir, const struct capture_facts *f)
{
	size_t n;

	if (capture_check(dir, f, stdout, "<stdout>", &n) != 0)
		err_die_last();
}

/*
 * --check: the frames of the inputs (extracted as -o would, a missing
 * dump a note) into a temporary directory, then what they lack; a frames
 * directory is checked as it is.  Inputs whose exports have no NVTX
 * ranges, which extraction refuses, are a finding and left out.
 */
static void
check_inputs(const char *const *all, size_t nall, struct extract_opts *o,
    int64_t jobs)
{
	struct extract_profile *pr;
	struct capture_facts f;
	const char *t = getenv("TMPDIR"), *tmp, **paths;
	unsigned char *lack;
	char *templ;
	size_t np, n = 0, i;

	if (nall == 1 && is_frames(all[0])) {
		check_dir(all[0], NULL);
		return;
	}
	lack = mem_calloc(nall + 1, 1);
	if (extract_without_nvtx(all, nall, o->dumpdir, o->names, lack,
	    &f.profiles, &f.no_nvtx, &f.first) != 0)
		err_die_last();
	paths = mem_calloc(nall + 1, sizeof(*paths));
	for (i = 0; i < nall; i++)
		if (!lack[i])
			paths[n++] = all[i];
	free(lack);
	if (n == 0) {
		check_dir(NULL, &f);
		free(paths);
		return;
	}
	templ = mem_path(t && *t ? t : "/tmp", "nsysjax-check.XXXXXX");
	tmp = tempfile_mkdtemp(templ);
	free(templ);
	if (tmp == NULL)
		err_die_last();
	o->allow_missing_hlo = 1;
	o->frames = (1u << EXTRACT_NFRAMES) - 1;
	if (extract_profiles(paths, n, o, &pr, &np) != 0)
		err_die_last();
	if (np > 1 && jobs > 0)
		extract_parts(paths, n, o, pr, np, (unsigned)jobs, tmp);
	else
		extract_here(paths, n, o, tmp);
	extract_profiles_free(pr, np);
	meta_dir(paths, n, o, tmp);
	check_dir(tmp, &f);
	tempfile_remove(tmp);
	free(paths);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "allow-missing-hlo", no_argument, NULL, 'm' },
		{ "check", no_argument, NULL, 'C' },
		{ "frame", required_argument, NULL, 'f' },
		{ "hlo-dump", required_argument, NULL, 'd' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "keep-autotuning", no_argument, NULL, 'k' },
		{ "merge", no_argument, NULL, 'M' },
		{ "names", required_argument, NULL, 'n' },
		{ "output-dir", required_argument, NULL, 'o' },
		OPT_STD_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct extract_opts o = { .frames = EXTRACT_THUNK };
	const char *dir = NULL;
	const char *const *paths;
	int64_t jobs = pool_cores();
	struct extract_profile *pr;
	size_t n, np;
	int c, merge = 0, meta = 0, check = 0;

	mem_huge_pages(argv);	/* first: it may execute us again */
	archive_quiet_tz();	/* before any thread */
	while ((c = opt_next(argc, argv, ":d:f:hj:kmn:o:V", longopts, &tool)) != -1) {
		switch (c) {
		case 'd':
			o.dumpdir = optarg;
			break;
		case 'f':
			/* The meta frame: the profiles' metadata, not
			 * extract_load's (profile/meta.h). */
			if ((meta = strcmp(optarg, "meta") == 0))
				break;
			if ((o.frames = extract_frame_bit(optarg)) == 0)
				opt_usage(&tool, "unknown frame '%s'", optarg);
			break;
		case 'j':
			jobs = opt_i64(&tool, "-j", optarg, 0, 1024);
			break;
		case 'k':
			o.keep_autotuning = 1;
			break;
		case 'M':
			merge = 1;
			break;
		case 'C':
			check = 1;
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
	paths = (const char *const *)argv + optind;
	n = (size_t)(argc - optind);
	if (check) {
		if (merge || dir || meta)
			opt_usage(&tool, "--check: no frames to write "
			    "(-o, -f, --merge)");
		check_inputs(paths, n, &o, jobs);
		return 0;
	}
	if (dir && outfile_mkdirs(dir) != 0)	/* before the work */
		err_die_last();
	if (merge) {
		if (meta && !dir)
			merge_meta(paths, n, NULL);
		else
			merge_parts(paths, n, o.frames, dir);
		if (dir)
			merge_meta(paths, n, dir);
		return 0;
	}
	if (meta && !dir) {
		meta_out(paths, n, &o);
		return 0;
	}
	if (dir)
		o.frames = (1u << EXTRACT_NFRAMES) - 1;
	if (extract_profiles(paths, n, &o, &pr, &np) != 0)
		err_die_last();
	if (np > 1 && jobs > 0)
		extract_parts(paths, n, &o, pr, np, (unsigned)jobs, dir);
	else
		extract_here(paths, n, &o, dir);
	if (dir)
		meta_dir(paths, n, &o, dir);
	extract_profiles_free(pr, np);
	return 0;
}
