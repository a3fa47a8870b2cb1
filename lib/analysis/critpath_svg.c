/*
 * critpath: the picture of a module execution (critpath_svg in
 * critpath.h), from the graph's last eval and its critical path.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath.h"
#include "analysis/critpath_impl.h"
#include "base/mem.h"
#include "base/sort.h"

/* ---- the picture ---- */

#define SVG_LEFT	96
#define SVG_WIDTH	960
#define SVG_LANE	22
#define SVG_TOP		34
#define SVG_MAXLANES	8

static const char *const colour[] = { "#4c78a8", "#f58518", "#e45756",
	"#bbbbbb" };

/* A lane's run of one colour, merged while the next starts within half
 * a pixel: the picture's size grows with its pixels, not its thunks. */
struct run {
	double x0, x1;
	int lab;
	int open;
};

static void
run_flush(FILE *fp, struct run *u, double y, double op)
{
	if (u->open)
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
		    "height=\"%d\" fill=\"%s\" stroke=\"#fff\" "
		    "stroke-width=\"0.4\"%s/>\n", u->x0, y,
		    u->x1 - u->x0 < 0.3 ? 0.3 : u->x1 - u->x0, SVG_LANE - 6,
		    colour[u->lab], op < 1 ? " fill-opacity=\"0.45\"" : "");
	u->open = 0;
}

static void
run_add(FILE *fp, struct run *u, double x0, double x1, int lab, double y,
    double op)
{
	if (x1 <= x0)
		return;
	/* Only slivers merge: a thunk of 2 px or more keeps its own box. */
	if (u->open && u->lab == lab && x0 <= u->x1 + 0.5 &&
	    (x1 - x0 < 2 && u->x1 - u->x0 < 2)) {
		if (x1 > u->x1)
			u->x1 = x1;
		return;
	}
	run_flush(fp, u, y, op);
	*u = (struct run){ x0, x1, lab, 1 };
}

static double
svg_x(const struct critpath_graph *g, int64_t t)
{
	double span = (double)(g->tend - g->t0);

	return SVG_LEFT + (span > 0 ? (double)(t - g->t0) / span : 0) *
	    SVG_WIDTH;
}

static void
svg_text(FILE *fp, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: putc(*s, fp);
		}
}

/* The index of device DEV in G's sorted devices (it is there). */
static size_t
dev_index(const struct critpath_graph *g, int64_t dev)
{
	size_t lo = 0, hi = g->ndv;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (g->dv[mid].dev <= dev)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The lanes: LANE[device index] = its lane; returns the count.  Up to
 * SVG_MAXLANES devices: one each; beyond, the devices of the critical
 * path (up to SVG_MAXLANES - 1) and one lane for all the others. */
static size_t
svg_lanes(struct critpath_graph *g, size_t *lane, int *agg)
{
	const struct critpath_seg *s;
	size_t n, i, k, nl = 0;

	*agg = 0;
	if (g->ndv <= SVG_MAXLANES) {
		for (i = 0; i < g->ndv; i++)
			lane[i] = i;
		return g->ndv;
	}
	for (i = 0; i < g->ndv; i++)
		lane[i] = SIZE_MAX;
	n = critpath_path(g, &s);
	for (k = 0; k < n && nl < SVG_MAXLANES - 1; k++)
		if (lane[i = dev_index(g, s[k].dev)] == SIZE_MAX)
			lane[i] = nl++;
	/* Lanes in device order. */
	for (i = 0, k = 0; i < g->ndv; i++)
		if (lane[i] != SIZE_MAX)
			lane[i] = k++;
	for (i = 0; i < g->ndv; i++)
		if (lane[i] == SIZE_MAX)
			lane[i] = nl;
	*agg = 1;
	return nl + 1;
}

static int
cmp_lane_start(const void *a, const void *b, const void *ctx)
{
	struct critpath_graph *sort_g = (struct critpath_graph *)ctx;
	const struct opx *x = &sort_g->op[*(const size_t *)a];
	const struct opx *y = &sort_g->op[*(const size_t *)b];
	int c = cmp_i64((int64_t)sort_g->tmp[sort_g->nop + x->di],
	    (int64_t)sort_g->tmp[sort_g->nop + y->di]);

	return c ? c : cmp_i64(x->in.start_ns, y->in.start_ns);
}

static void
svg_ops(struct critpath_graph *g, FILE *fp, const size_t *lane, size_t nl,
    int agg)
{
	size_t *ix, i, l = SIZE_MAX;
	struct run u = { 0, 0, 0, 0 };
	double y = 0, op = 1;

	mem_grow(&g->tmp, &g->captmp, g->nop + g->ndv, sizeof(*g->tmp));
	for (i = 0; i < g->ndv; i++)
		g->tmp[g->nop + i] = lane[i];
	ix = mem_calloc(g->nop + 1, sizeof(*ix));
	for (i = 0; i < g->nop; i++)
		ix[i] = i;
	sort_stable(ix, g->nop, sizeof(*ix), cmp_lane_start, g);
	for (i = 0; i < g->nop; i++) {
		const struct opx *o = &g->op[ix[i]];
		double x0 = svg_x(g, o->in.start_ns), x1 = svg_x(g, op_end(o));
		double xw = svg_x(g, o->in.start_ns + (o->bar >= 0 ? o->wait : 0));

		if (lane[o->di] != l) {
			run_flush(fp, &u, y, op);
			l = lane[o->di];
			y = SVG_TOP + (double)l * SVG_LANE + 3;
			op = agg && l == nl - 1 ? 0.45 : 1;
		}
		run_add(fp, &u, x0, xw, CRITPATH_WAIT, y, op);
		run_add(fp, &u, xw, x1, o->in.comm ? CRITPATH_COMM :
		    CRITPATH_COMPUTE, y, op);
	}
	run_flush(fp, &u, y, op);
	free(ix);
}

static void
svg_barriers(struct critpath_graph *g, FILE *fp, const size_t *lane)
{
	size_t b, i, *lo, *hi;

	lo = mem_calloc(g->nbar + 1, sizeof(*lo));
	hi = mem_calloc(g->nbar + 1, sizeof(*hi));
	for (b = 0; b < g->nbar; b++)
		lo[b] = SIZE_MAX;
	for (i = 0; i < g->nop; i++) {
		long bb = g->op[i].bar;

		if (bb < 0)
			continue;
		if (lane[g->op[i].di] < lo[bb])
			lo[bb] = lane[g->op[i].di];
		if (lane[g->op[i].di] > hi[bb])
			hi[bb] = lane[g->op[i].di];
	}
	for (b = 0; b < g->nbar; b++) {
		double x = svg_x(g, g->t[N_B(g, b)] + g->t0);

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#222\" stroke-width=\"0.8\" "
		    "stroke-dasharray=\"2,2\"/>\n", x,
		    SVG_TOP + (double)lo[b] * SVG_LANE, x,
		    SVG_TOP + (double)(hi[b] + 1) * SVG_LANE);
	}
	free(lo);
	free(hi);
}

/* The points of the critical path: a horizontal stretch per segment on
 * its device's lane, a vertical one where the device changes. */
static void
svg_points(struct critpath_graph *g, FILE *fp, const size_t *lane)
{
	const struct critpath_seg *s;
	size_t n = critpath_path(g, &s), k, i;
	double py = -1;

	for (k = 0; k < n; k++) {
		double y, x0, x1;

		i = dev_index(g, s[k].dev);
		y = SVG_TOP + ((double)lane[i] + 0.5) * SVG_LANE;
		x0 = svg_x(g, s[k].start_ns);
		x1 = svg_x(g, s[k].start_ns + s[k].dur_ns);
		if (py >= 0 && py != y)
			fprintf(fp, "%.1f,%.1f ", x0, py);
		fprintf(fp, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		py = y;
	}
}

/* The path twice: a white halo, then the black line, visible over any
 * colour. */
static void
svg_path(struct critpath_graph *g, FILE *fp, const size_t *lane)
{
	static const char *const stroke[] = { "stroke=\"#fff\" "
	    "stroke-width=\"5\"", "stroke=\"#000\" stroke-width=\"2\"" };
	int k;

	for (k = 0; k < 2; k++) {
		fprintf(fp, "<polyline fill=\"none\" %s stroke-linejoin=\"round\" "
		    "points=\"", stroke[k]);
		svg_points(g, fp, lane);
		fputs("\"/>\n", fp);
	}
}

static void
svg_axis(const struct critpath_graph *g, FILE *fp, double ybase)
{
	double span = (double)(g->tend - g->t0) / 1e6, step, t;

	/* 1, 2 or 5 times a power of ten: at most 10 ticks. */
	step = span > 0 ? pow(10, floor(log10(span / 10))) : 1;
	if (span / step > 10)
		step *= 2;
	if (span / step > 10)
		step *= 2.5;
	if (span / step > 10)
		step *= 2;
	for (t = 0; t <= span * (1 + 1e-9); t += step) {
		double x = SVG_LEFT + (span > 0 ? t / span : 0) * SVG_WIDTH;

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#888\"/><text x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"10\" text-anchor=\"middle\">%.6g</text>\n", x,
		    ybase, x, ybase + 4, x, ybase + 15, t);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" "
	    "text-anchor=\"middle\">ms from the step start</text>\n",
	    SVG_LEFT + SVG_WIDTH / 2, ybase + 28);
}

static void
svg_legend(FILE *fp, double y)
{
	static const char *const what[] = { "compute", "communication",
		"peer wait", "gap (empty)" };
	int k;
	double x = SVG_LEFT;

	for (k = 0; k < 3; k++) {
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
		    "height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"11\">%s</text>\n", x, y, colour[k], x + 16,
		    y + 9, what[k]);
		x += 120;
	}
	fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	    "stroke=\"#000\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" "
	    "font-size=\"11\">critical path</text>\n", x, y + 5, x + 14,
	    y + 5, x + 18, y + 9);
	x += 120;
	fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	    "stroke=\"#222\" stroke-dasharray=\"2,2\"/><text x=\"%.1f\" "
	    "y=\"%.1f\" font-size=\"11\">collective barrier (last arrival)"
	    "</text>\n", x + 5, y, x + 5, y + 10, x + 12, y + 9);
}

int
critpath_svg(struct critpath_graph *g, FILE *fp, const char *title)
{
	size_t *lane = mem_calloc(g->ndv + 1, sizeof(*lane)), nl, i;
	int agg;
	double h;

	nl = svg_lanes(g, lane, &agg);
	h = SVG_TOP + (double)nl * SVG_LANE + 70;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
	    "<text x=\"%d\" y=\"18\" font-size=\"13\">", SVG_LEFT + SVG_WIDTH +
	    20, h, SVG_LEFT + SVG_WIDTH + 20, h, SVG_LEFT);
	svg_text(fp, title);
	fputs("</text>\n", fp);
	for (i = 0; i < nl; i++) {
		size_t d, cnt = 0;
		int64_t dev = 0;

		for (d = 0; d < g->ndv; d++)
			if (lane[d] == i) {
				dev = g->dv[d].dev;
				cnt++;
			}
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
		    "text-anchor=\"end\">", SVG_LEFT - 6,
		    SVG_TOP + ((double)i + 0.5) * SVG_LANE + 4);
		if (agg && i == nl - 1)
			fprintf(fp, "%zu other devices", cnt);
		else
			fprintf(fp, "device %" PRId64, dev);
		fputs("</text>\n", fp);
	}
	svg_ops(g, fp, lane, nl, agg);
	svg_barriers(g, fp, lane);
	svg_path(g, fp, lane);
	svg_axis(g, fp, SVG_TOP + (double)nl * SVG_LANE + 2);
	svg_legend(fp, SVG_TOP + (double)nl * SVG_LANE + 40);
	fputs("</svg>\n", fp);
	free(lane);
	return ferror(fp) ? -1 : 0;
}
