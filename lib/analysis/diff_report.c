/*
 * diff_report: nsysjax-diff's summary for people (analysis/diff.h), apart
 * from the comparison (diff.c): aligned columns with units, p values and
 * percentages never in exponent notation.  It reads the comparison only
 * through diff.h (diff_nmodules, diff_module, diff_total, diff_options).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/sigtest.h"
#include "base/tsv.h"

/* A module label for people: the name (unescaped, at most 29 bytes) and
 * the first 8 characters of its first ProgramId, or the ProgramId. */
static void
plabel(char *buf, size_t cap, const struct diff_module *m)
{
	const char *id = m->program;
	const char *s = m->name ? m->name : id;
	size_t n = strlen(s);

	if (!m->name)
		snprintf(buf, cap, "%.40s", s);
	else if (n > 29)
		snprintf(buf, cap, "%.26s... [%.8s]", s, id);
	else
		snprintf(buf, cap, "%s [%.8s]", s, id);
}

static void
fmt_pct(char *buf, size_t cap, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%+.2f%%", v);
}

static void
fmt_p(char *buf, size_t cap, const struct diff_module *m)
{
	if (!m->tested)
		snprintf(buf, cap, "-");
	else if (m->padj < 0.0001)
		snprintf(buf, cap, "<0.0001");
	else
		snprintf(buf, cap, "%.4f", m->padj);
}

/* A p value for people, never in exponent notation (README): "-" for
 * none, "< 0.000001" below that, else 4 decimals, or 6 below 0.0001. */
static void
fmt_pval(char *buf, size_t cap, double p)
{
	if (isnan(p))
		snprintf(buf, cap, "-");
	else if (p < 0.000001)
		snprintf(buf, cap, "< 0.000001");
	else if (p < 0.0001)
		snprintf(buf, cap, "%.6f", p);
	else
		snprintf(buf, cap, "%.4f", p);
}

/* The line of a family of rank tests without power (WHAT: "item",
 * "module"), ALPHA as given. */
static void
no_power(FILE *fp, const struct diff_power *pw, const char *what,
    const char *alpha, enum sigtest_adjust adj)
{
	fprintf(fp, "no power: %zu execution%s per %s, ", pw->samples,
	    pw->samples == 1 ? "" : "s", what);
	if (pw->need)
		fprintf(fp, "at least %zu needed for p < %s", pw->need, alpha);
	else
		fprintf(fp, "no count suffices for p < %s", alpha);
	fprintf(fp, " (Mann-Whitney U, %s over %zu %s test%s): no %s can "
	    "be significant\n", adj == SIGTEST_HOLM ? "Holm" :
	    "Benjamini-Hochberg", pw->tests, what, pw->tests == 1 ? "" : "s",
	    what);
}

/* The command buffers paired with their operations (at most MAX lines),
 * and once, the buffers of one run whose contents are not known. */
static void
pairings(struct diff *d, FILE *fp, size_t max)
{
	const struct diff_total *t = diff_total(d);
	static const char *const run[] = { "before", "after" };
	struct diff_pairing p;
	struct diff_module m;
	char name[64];
	size_t i, n = diff_npairings(d), u;

	for (i = 0; i < n && i < max; i++) {
		diff_pairing(d, i, &p);
		m.name = p.module;
		m.program = p.program;
		plabel(name, sizeof name, &m);
		fprintf(fp, "%s (%s) holds %zu operation%s", p.buf,
		    run[p.bufrun], p.nmoved, p.nmoved == 1 ? "" : "s");
		if (p.nlisted > p.nmoved)	/* the others: thunks in both */
			fprintf(fp, " (of %zu)", p.nlisted);
		fprintf(fp, " that run%s as thunks %s, in %s: %.3f ms -> "
		    "%.3f ms (%+.3f ms at BEFORE's executions), one item\n",
		    p.nmoved == 1 ? "s" : "", run[!p.bufrun], name,
		    p.sum_ns[0] / 1e6, p.sum_ns[1] / 1e6, p.contrib_ns / 1e6);
	}
	if (n > i)
		fprintf(fp, "... %zu more command buffers paired (-P for "
		    "all)\n", n - i);
	u = t->cb_unknown[0] + t->cb_unknown[1];
	if (u == 0)
		return;
	fprintf(fp, "command buffers: %zu in one run only (%s%s) whose "
	    "operations are not known, not paired: %s\n", u,
	    diff_unknown_buffer(d), u > 1 ? ", ..." : "", (t->cb_unknown[0] && !t->cb_table[0]) ||
	    (t->cb_unknown[1] && !t->cb_table[1]) ? "no cmdbufs.tsv (frames "
	    "of nsysjax-extract -o with XLA's thunk metadata dump)" :
	    "its cmdbufs.tsv does not list them (no thunk metadata dump)");
}

/* The line of the barriers left out of the total: their names and
 * time, and the option that keeps them. */
static void
barriers(struct diff *d, FILE *fp)
{
	const struct diff_total *t = diff_total(d);
	struct diff_module m;
	char name[64];
	size_t i, n = 0, nmod = diff_nmodules(d);

	fprintf(fp, "left out as barrier%s (collective wait, not work): ",
	    t->barriers > 1 ? "s" : "");
	for (i = 0; i < nmod; i++) {
		diff_module(d, i, &m);
		if (!m.barrier)
			continue;
		plabel(name, sizeof name, &m);
		fprintf(fp, "%s%s", n++ ? ", " : "", name);
	}
	fprintf(fp, ", %.3f ms -> %.3f ms, change %.3f ms; -B keeps %s\n",
	    t->barrier_before_ms, t->barrier_after_ms, t->barrier_change_ms,
	    t->barriers > 1 ? "them" : "it");
}

int
diff_report(struct diff *d, FILE *fp, size_t maxmod)
{
	const struct diff_total *t = diff_total(d);
	const struct diff_opts *o = diff_options(d);
	struct diff_module m;
	const size_t *x = m.executions;
	const double *mean = m.mean_ns;
	char name[64], pct[32], p[32], share[400], alpha[400], thr[400];
	size_t i, n, nmod = diff_nmodules(d);

	/* Times are GPU-busy time (the thunks' time summed), not step time
	 * (an execution's span over its devices): named so. */
	fprintf(fp, "%-40s %11s %11s %12s %9s %8s %14s\n", "module",
	    "executions", "busy bef ms", "busy aft ms", "change", "p adj.",
	    "contribution");
	n = nmod < maxmod ? nmod : maxmod;
	for (i = 0; i < n; i++) {
		diff_module(d, i, &m);
		plabel(name, sizeof name, &m);
		fmt_pct(pct, sizeof pct, x[0] && x[1] && mean[0] > 0 ?
		    (mean[1] - mean[0]) / mean[0] * 100 : NAN);
		fmt_p(p, sizeof p, &m);
		if (m.barrier)	/* not tested: left out of the total */
			snprintf(p, sizeof p, "barrier");
		fprintf(fp, "%-40s %5zu/%-5zu %11.3f %12.3f %9s %8s %11.3f ms\n",
		    name, x[0], x[1], x[0] ? mean[0] / 1e6 : 0.0,
		    x[1] ? mean[1] / 1e6 : 0.0, pct, p, m.contrib_ns / 1e6);
	}
	if (nmod > n)
		fprintf(fp, "... %zu more modules (-s for all)\n", nmod - n);
	fmt_pct(pct, sizeof pct, t->change_pct);
	fmt_pval(p, sizeof p, t->p);
	fprintf(fp, "total: GPU-busy time (thunk time summed, not step time) "
	    "%.3f ms -> %.3f ms, change %.3f ms (%s, p %s) "
	    "at BEFORE's executions%s\n", t->before_ms, t->after_ms,
	    t->change_ms, pct, p, t->barriers ? ", barriers left out" : "");
	if (t->barriers)
		barriers(d, fp);
	/* The options as given, without exponent (tsv_fmt_f64). */
	share[tsv_fmt_f64(share, o->min_share)] = '\0';
	alpha[tsv_fmt_f64(alpha, o->alpha)] = '\0';
	thr[tsv_fmt_f64(thr, o->threshold)] = '\0';
	fprintf(fp, "items: %zu (%zu in both runs, %zu added, %zu removed); "
	    "%zu tested (at least %s of the time), significant (adjusted "
	    "p < %s, %s): %zu slower, %zu faster\n", t->items, t->both,
	    t->added, t->removed, t->tested, share, alpha,
	    o->adjust == SIGTEST_HOLM ? "Holm" : "Benjamini-Hochberg",
	    t->slower, t->faster);
	pairings(d, fp, maxmod);
	if (!t->items_power.power)
		no_power(fp, &t->items_power, "item", alpha, o->adjust);
	if (!t->modules_power.power)
		no_power(fp, &t->modules_power, "module", alpha, o->adjust);
	if (!t->total_power)
		fprintf(fp, "no power: total: no matched module has two "
		    "executions in a run (Welch t test): its p is no test\n");
	if (o->threshold >= 0)
		fprintf(fp, "gate (-t %s, -p %s): %s\n", thr, alpha,
		    diff_regressed(d) ? "REGRESSION (exit 3)" :
		    diff_powerless(d) ? "NO POWER (exit 4): too few executions "
		    "for the gate to fail" : "pass");
	return ferror(fp) ? -1 : 0;
}
