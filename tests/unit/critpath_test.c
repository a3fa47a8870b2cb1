/*
 * critpath: a hand-made execution checked by hand; random small ones
 * (<= 14 operations over <= 3 devices, with collectives) generated from a
 * model of their own here, their times fed to the graph, whose
 * predictions under random scenarios are compared with the longest of
 * every path enumerated in the model; and the metamorphic relations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath.h"
#include "unit.h"

/* ---- by hand ---- */

/*
 * Two devices.  Device 0: A [0, 10), collective C [10, 30), D [32, 40).
 * Device 1 released at 5: X [6, 20), C [20, 30), Y [30, 31); module ends
 * 40 and 35.  C's barrier is 20 (device 1 arrives last): device 0 waits
 * 10 and transfers 10.  Critical path: late start 5 (peer wait) on 1,
 * gap 1, X 14, C's transfer 10 on device 0 (its own start reaches 20
 * too late; the barrier's edge is taken), gap 2, D 8: 40.
 */
static void
by_hand(void)
{
	struct critpath_graph *g = critpath_new();
	struct critpath_op o = { 0 };
	struct critpath_scen sc = critpath_scen_measured();
	struct critpath_info info;
	const struct critpath_seg *s;
	size_t n;

	o.dev = 0, o.start_ns = 0, o.dur_ns = 10, o.key = 1;
	critpath_add(g, &o);				/* 0: A */
	o.start_ns = 10, o.dur_ns = 20, o.key = 2, o.comm = 1, o.csize = 2;
	critpath_add(g, &o);				/* 1: C on 0 */
	o.start_ns = 32, o.dur_ns = 8, o.key = 3, o.comm = 0, o.csize = 0;
	critpath_add(g, &o);				/* 2: D */
	o.dev = 1, o.start_ns = 6, o.dur_ns = 14, o.key = 4;
	critpath_add(g, &o);				/* 3: X */
	o.start_ns = 20, o.dur_ns = 10, o.key = 2, o.comm = 1, o.csize = 2;
	critpath_add(g, &o);				/* 4: C on 1 */
	o.start_ns = 30, o.dur_ns = 1, o.key = 5, o.comm = 0, o.csize = 0;
	critpath_add(g, &o);				/* 5: Y */
	critpath_device(g, 0, 0, 40);
	critpath_device(g, 1, 5, 35);
	critpath_build(g, &info);
	CHECK_INT(info.devices, 2);
	CHECK_INT(info.barriers, 1);
	CHECK_INT(info.streams, 2);
	CHECK_INT(critpath_measured(g), 40);
	CHECK_INT(critpath_eval(g, &sc), 40);
	CHECK_INT(critpath_wait(g, 1), 10);
	CHECK_INT(critpath_transfer(g, 1), 10);
	CHECK_INT(critpath_wait(g, 4), 0);
	CHECK_INT(critpath_slack(g, 0), 10);	/* A: C waits 10 for X */
	CHECK_INT(critpath_slack(g, 3), 0);
	CHECK_INT(critpath_slack(g, 5), 5);	/* Y ends 31, module 35 + 5 */
	CHECK_INT(critpath_barrier_time(g, 0), 20);
	n = critpath_path(g, &s);
	CHECK_INT(n, 6);
	if (n == 6) {
		CHECK_INT(s[0].label, CRITPATH_WAIT);
		CHECK_INT(s[0].dev, 1);
		CHECK_INT(s[0].dur_ns, 5);
		CHECK_INT(s[1].label, CRITPATH_GAP);
		CHECK_INT(s[1].dur_ns, 1);
		CHECK_INT(s[2].label, CRITPATH_COMPUTE);
		CHECK_INT(s[2].op, 3);
		CHECK_INT(s[3].label, CRITPATH_COMM);
		CHECK_INT(s[3].start_ns, 20);
		CHECK_INT(s[3].dur_ns, 10);
		CHECK_INT(s[4].label, CRITPATH_GAP);
		CHECK_INT(s[4].dur_ns, 2);
		CHECK_INT(s[5].op, 2);
	}
	/* comm-free: C takes 0 after the barrier: 40 - 10. */
	sc.comm = 0;
	CHECK_INT(critpath_eval(g, &sc), 30);
	/* no-peer-wait: device 0 runs alone: A, C's 10, gap 2, D = 30;
	 * device 1 from 0: 1 + 14 + 0 + 10 + 1 + 4 = 30. */
	sc = critpath_scen_measured();
	sc.no_barrier = 1;
	CHECK_INT(critpath_eval(g, &sc), 30);
	/* no-gaps: releases and gaps 0: X ends 14, C 24, D 32. */
	sc = critpath_scen_measured();
	sc.gap = 0;
	CHECK_INT(critpath_eval(g, &sc), 32);
	critpath_free(g);
}

/*
 * An async collective K on device 0 beside compute: P [0, 10), K starts
 * 12 and ends 40 (hidden behind Q [11, 30) for its first part), R starts
 * 41 after K (its done).  K follows P (its start), R follows K.
 */
static void
async_pair(void)
{
	struct critpath_graph *g = critpath_new();
	struct critpath_op o = { 0 };
	struct critpath_scen sc = critpath_scen_measured();
	struct critpath_info info;
	double f[4] = { 1, 1, 1, 1 };

	o.dev = 0, o.start_ns = 0, o.dur_ns = 10, o.key = 1;
	critpath_add(g, &o);				/* 0: P */
	o.start_ns = 12, o.dur_ns = 28, o.key = 2, o.comm = 1, o.async = 1;
	critpath_add(g, &o);				/* 1: K */
	o.start_ns = 11, o.dur_ns = 19, o.key = 3, o.comm = 0, o.async = 0;
	critpath_add(g, &o);				/* 2: Q */
	o.start_ns = 41, o.dur_ns = 5, o.key = 4;
	critpath_add(g, &o);				/* 3: R */
	critpath_build(g, &info);
	CHECK_INT(info.streams, 2);
	CHECK_INT(critpath_eval(g, &sc), 46);
	CHECK_INT(critpath_slack(g, 2), 10);	/* Q: R waits for K */
	CHECK_INT(critpath_slack(g, 1), 0);
	/* K 10 longer: R 10 later.  P 5 longer: Q and K 5 later. */
	f[1] = 38.0 / 28;
	sc.opf = f;
	CHECK_INT(critpath_eval(g, &sc), 56);
	f[1] = 1, f[0] = 1.5;
	CHECK_INT(critpath_eval(g, &sc), 51);
	/* comm-free: R after Q (its gap of 1 to K's end kept: 30 + 1). */
	sc = critpath_scen_measured();
	sc.comm = 0;
	CHECK_INT(critpath_eval(g, &sc), 30 + 11 - 0 + 5 - 11 + 1 + 0);
	critpath_free(g);
}

/* ---- the model of random executions ---- */

#define MAXOP	14
#define MAXDEV	3

struct mop {
	int dev, coll;		/* coll: -1 compute, else its collective */
	int64_t gap, dur;	/* dur: compute, or T of a member */
	int64_t s, e;		/* simulated */
};

struct model {
	int nd, nop, ncoll;
	struct mop op[MAXOP];
	int seq[MAXDEV][MAXOP], nseq[MAXDEV];	/* ops per device, in order */
	int64_t rel[MAXDEV], tail[MAXDEV];
	int members[4];				/* per collective */
	int indep;	/* no collective of 2 or more: each device counts
			 * from its own release */
};

static uint64_t rng = 88172645463325252ULL;

static int64_t
rnd(int64_t n)
{
	return (int64_t)(unit_rand(&rng) % (uint64_t)n);
}

/* A random model: each device a sequence of compute operations and the
 * collectives it is in (in collective order). */
static void
gen(struct model *m)
{
	int d, c, k, i, n;
	int inc[4][MAXDEV];

	memset(m, 0, sizeof(*m));
	m->nd = 1 + (int)rnd(MAXDEV);
	m->ncoll = m->nd > 1 ? (int)rnd(4) : 0;
	for (c = 0; c < m->ncoll; c++) {
		do {
			n = 0;
			for (d = 0; d < m->nd; d++)
				n += inc[c][d] = (int)rnd(3) != 0;
		} while (n < 2);
		m->members[c] = n;
	}
	for (d = 0; d < m->nd; d++) {
		m->rel[d] = rnd(4) ? rnd(30) : 0;
		m->tail[d] = rnd(10);
	}
	/* The step starts at the earliest release, the model's time 0. */
	m->rel[rnd(m->nd)] = 0;
	/* Collectives first, then compute operations wherever there is
	 * room, never more than MAXOP in all. */
	for (c = 0; c < m->ncoll; c++)
		for (d = 0; d < m->nd; d++)
			if (inc[c][d] && m->nop < MAXOP) {
				m->op[m->nop] = (struct mop){ d, c, 0, 0, 0, 0 };
				m->seq[d][m->nseq[d]++] = m->nop++;
			}
	for (d = 0; d < m->nd; d++) {
		for (k = (int)rnd(4); k > 0 && m->nop < MAXOP; k--) {
			/* Insert a compute operation at a random place. */
			int at = (int)rnd(m->nseq[d] + 1);

			m->op[m->nop] = (struct mop){ d, -1, 0, 0, 0, 0 };
			for (i = m->nseq[d]; i > at; i--)
				m->seq[d][i] = m->seq[d][i - 1];
			m->seq[d][at] = m->nop++;
			m->nseq[d]++;
		}
	}
	/* A collective cut by MAXOP must not stay with one member. */
	for (i = 0; i < m->nop; i++) {
		m->op[i].gap = rnd(3) ? rnd(8) : 0;
		/* >= 1: two operations of zero length at one instant on
		 * one device would have no order in their times. */
		m->op[i].dur = 1 + rnd(30);
	}
}

/* Simulate: devices run their sequences; a collective ends T after its
 * last member arrives.  Returns 0, or -1 when a collective has too few
 * members (cut by MAXOP) to be one. */
static int
simulate(struct model *m)
{
	int pos[MAXDEV] = { 0 }, d, c, progress = 1, i;
	int64_t now[MAXDEV];
	int arrived[4] = { 0 }, have[4] = { 0 };

	for (i = 0; i < m->nop; i++)
		if (m->op[i].coll >= 0)
			have[m->op[i].coll]++;
	for (c = 0; c < m->ncoll; c++)
		if (have[c] == 1)
			return -1;
	for (d = 0; d < m->nd; d++)
		now[d] = m->rel[d];
	while (progress) {
		progress = 0;
		for (d = 0; d < m->nd; d++)
			while (pos[d] < m->nseq[d]) {
				struct mop *o = &m->op[m->seq[d][pos[d]]];

				if (o->coll < 0) {
					o->s = now[d] + o->gap;
					o->e = o->s + o->dur;
					now[d] = o->e;
					pos[d]++;
					progress = 1;
					continue;
				}
				if (o->s == 0 && o->e == 0) {
					o->s = now[d] + o->gap;
					o->e = -1;	/* arrived */
					arrived[o->coll]++;
					progress = 1;
				}
				if (arrived[o->coll] < have[o->coll])
					break;
				/* Everyone is there: B and the ends. */
				{
					int64_t b = 0;

					for (i = 0; i < m->nop; i++)
						if (m->op[i].coll == o->coll &&
						    m->op[i].s > b)
							b = m->op[i].s;
					o->e = b + o->dur;
				}
				now[d] = o->e;
				pos[d]++;
				progress = 1;
			}
	}
	for (d = 0; d < m->nd; d++)
		if (pos[d] < m->nseq[d])
			return -1;	/* cannot happen: orders agree */
	/* s == 0 was "not arrived": a start at 0 is fine since only
	 * collectives use the marker and their e is set. */
	return 0;
}

/* The scenario of the model: weights as the graph's. */
struct mscen {
	double f[MAXOP], comm, gap;
	int nob;
};

static int64_t
rw(int64_t v, double f)
{
	return (int64_t)llround((double)v * f);
}

static int64_t
mdur(const struct model *m, const struct mscen *s, int i)
{
	double f = s->f[i];

	if (m->op[i].coll >= 0)
		f *= s->comm;
	return rw(m->op[i].dur, f);
}

/*
 * Enumerate every path of the model's graph.  Nodes: 0 source; 1+d
 * release of d; then per op S and E; per collective B; per device Z;
 * sink.  Successors are listed explicitly and every path from NODE to the
 * sink is walked; BEST gets the longest length from the source.
 */
struct menum {
	const struct model *m;
	const struct mscen *s;
	int64_t best;
	int64_t through[MAXOP];		/* longest path through E(i) */
	int onpath[2 * MAXOP + 16];
};

#define MN_R(d)		(1 + (d))
#define MN_S(i)		(1 + MAXDEV + 2 * (i))
#define MN_E(i)		(2 + MAXDEV + 2 * (i))
#define MN_B(c)		(1 + MAXDEV + 2 * MAXOP + (c))
#define MN_Z(d)		(5 + MAXDEV + 2 * MAXOP + (d))
#define MN_SINK		(5 + 2 * MAXDEV + 2 * MAXOP)

/* Position of op I in its device's sequence. */
static int
seqpos(const struct model *m, int i)
{
	int d = m->op[i].dev, k;

	for (k = 0; k < m->nseq[d]; k++)
		if (m->seq[d][k] == i)
			return k;
	return -1;
}

static void walk(struct menum *x, int node, int64_t len, int64_t *path,
    int depth);

static void
step(struct menum *x, int to, int64_t len, int64_t *path, int depth)
{
	path[depth] = to;
	walk(x, to, len, path, depth + 1);
}

static void
walk(struct menum *x, int node, int64_t len, int64_t *path, int depth)
{
	const struct model *m = x->m;
	const struct mscen *s = x->s;
	int i, d, k;

	if (node == MN_SINK) {
		if (len > x->best)
			x->best = len;
		for (k = 0; k < depth; k++)
			for (i = 0; i < m->nop; i++)
				if (path[k] == MN_E(i) && len > x->through[i])
					x->through[i] = len;
		return;
	}
	if (node == 0) {
		for (d = 0; d < m->nd; d++)
			step(x, MN_R(d), len + (s->nob || m->indep ? 0 :
			    rw(m->rel[d], s->gap)), path, depth);
		return;
	}
	if (node >= MN_R(0) && node < MN_R(m->nd)) {
		d = node - MN_R(0);
		if (m->nseq[d] == 0)
			step(x, MN_Z(d), len + rw(m->tail[d], s->gap), path,
			    depth);
		else
			step(x, MN_S(m->seq[d][0]), len +
			    rw(m->op[m->seq[d][0]].gap, s->gap), path, depth);
		return;
	}
	if (node >= MN_Z(0) && node < MN_Z(m->nd)) {
		step(x, MN_SINK, len, path, depth);
		return;
	}
	if (node >= MN_B(0) && node < MN_B(4)) {
		int c = node - MN_B(0);

		if (s->nob)
			return;
		for (i = 0; i < m->nop; i++)
			if (m->op[i].coll == c)
				step(x, MN_E(i), len + mdur(m, s, i), path,
				    depth);
		return;
	}
	i = (node - MN_S(0)) / 2;
	if (node == MN_S(i)) {
		step(x, MN_E(i), len + mdur(m, s, i), path, depth);
		if (m->op[i].coll >= 0)
			step(x, MN_B(m->op[i].coll), len, path, depth);
		return;
	}
	/* E(i): the next on its device, or Z. */
	d = m->op[i].dev;
	k = seqpos(m, i);
	if (k + 1 < m->nseq[d]) {
		int j = m->seq[d][k + 1];

		step(x, MN_S(j), len + rw(m->op[j].gap, s->gap), path, depth);
	} else
		step(x, MN_Z(d), len + rw(m->tail[d], s->gap), path, depth);
}

/* The graph of the model's measured times, as the tool would get it. */
static void
feed(const struct model *m, struct critpath_graph *g)
{
	struct critpath_info info;
	int i, d;

	critpath_reset(g);
	for (i = 0; i < m->nop; i++) {
		struct critpath_op o = { 0 };

		o.dev = m->op[i].dev;
		o.start_ns = m->op[i].s;
		o.dur_ns = m->op[i].e - m->op[i].s;
		o.comm = m->op[i].coll >= 0;
		o.csize = o.comm ? m->members[m->op[i].coll] : 0;
		o.key = o.comm ? (size_t)m->op[i].coll : 100 + (size_t)i;
		critpath_add(g, &o);
	}
	for (d = 0; d < m->nd; d++) {
		int64_t last = m->rel[d];

		if (m->nseq[d])
			last = m->op[m->seq[d][m->nseq[d] - 1]].e;
		critpath_device(g, d, m->rel[d], last + m->tail[d]);
	}
	critpath_build(g, &info);
}

/* The collective sizes: members actually present (MAXOP may cut). */
static void
fix_sizes(struct model *m)
{
	int c, i;

	m->indep = 1;
	for (c = 0; c < m->ncoll; c++) {
		m->members[c] = 0;
		for (i = 0; i < m->nop; i++)
			m->members[c] += m->op[i].coll == c;
		if (m->members[c] > 1)
			m->indep = 0;
	}
}

static int64_t
brute(const struct model *m, const struct mscen *s, int64_t *through)
{
	struct menum x;
	int64_t path[64];
	int i;

	memset(&x, 0, sizeof(x));
	x.m = m;
	x.s = s;
	x.best = INT64_MIN;
	for (i = 0; i < MAXOP; i++)
		x.through[i] = INT64_MIN;
	walk(&x, 0, 0, path, 0);
	if (through)
		memcpy(through, x.through, sizeof(x.through));
	return x.best;
}

static void
to_scen(const struct model *m, const struct mscen *ms, double *opf,
    struct critpath_scen *sc)
{
	int i;

	*sc = critpath_scen_measured();
	for (i = 0; i < m->nop; i++)
		opf[i] = ms->f[i];
	sc->opf = opf;
	sc->comm = ms->comm;
	sc->gap = ms->gap;
	sc->no_barrier = ms->nob;
}

static void
random_graphs(void)
{
	struct critpath_graph *g = critpath_new();
	int iter, i, bad = 0, badslack = 0, badid = 0, badmeta = 0, tried = 0;

	for (iter = 0; iter < 3000; iter++) {
		struct model m;
		struct mscen ms;
		struct critpath_scen sc;
		double opf[MAXOP];
		int64_t got, want, through[MAXOP], measured;
		int d;

		gen(&m);
		fix_sizes(&m);
		if (simulate(&m) != 0)
			continue;
		tried++;
		feed(&m, g);
		/* Replay identity. */
		sc = critpath_scen_measured();
		measured = critpath_eval(g, &sc);
		badid += measured != critpath_measured(g);
		for (i = 0; i < m.nop; i++)
			badid += critpath_start(g, (size_t)i) != m.op[i].s ||
			    critpath_end(g, (size_t)i) != m.op[i].e;
		/* Slack against the longest path through each end. */
		for (i = 0; i < m.nop; i++)
			ms.f[i] = 1;
		ms.comm = 1, ms.gap = 1, ms.nob = 0;
		want = brute(&m, &ms, through);
		badid += want != measured;
		for (i = 0; i < m.nop; i++)
			if (critpath_slack(g, (size_t)i) != want - through[i] &&
			    badslack++ < 2) {
				int q;

				fprintf(stderr, "slack of %d: %lld, want %lld\n",
				    i, (long long)critpath_slack(g, (size_t)i),
				    (long long)(want - through[i]));
				for (q = 0; q < m.nop; q++)
					fprintf(stderr, "  op %d dev %d coll %d "
					    "[%lld, %lld)\n", q, m.op[q].dev,
					    m.op[q].coll, (long long)m.op[q].s,
					    (long long)m.op[q].e);
			}
		/* A random scenario. */
		for (i = 0; i < m.nop; i++)
			ms.f[i] = (double)rnd(9) / 4;
		ms.comm = (double)rnd(5) / 2;
		ms.gap = (double)rnd(3) / 2;
		ms.nob = (int)rnd(3) == 0;
		to_scen(&m, &ms, opf, &sc);
		got = critpath_eval(g, &sc);
		want = brute(&m, &ms, NULL);
		if (got != want && bad++ < 3)
			fprintf(stderr, "random graph %d: got %lld, want %lld\n",
			    iter, (long long)got, (long long)want);
		/* Metamorphic: shortening never lengthens; k scales. */
		sc = critpath_scen_measured();
		for (i = 0; i < m.nop; i++)
			opf[i] = (double)rnd(4) / 4;
		sc.opf = opf;
		badmeta += critpath_eval(g, &sc) > measured;
		for (i = 0; i < m.nop; i++)
			opf[i] = 3;
		sc.gap = 3;
		badmeta += critpath_eval(g, &sc) != 3 * measured;
		/* Lengthening by less than the slack changes nothing, by
		 * one more moves the end by one. */
		sc = critpath_scen_measured();
		sc.opf = opf;
		sc.comm = 1;
		for (i = 0; i < m.nop; i++) {
			int64_t sl, du = m.op[i].e - m.op[i].s, k;

			(void)critpath_eval(g, &(struct critpath_scen){ 1, 1,
			    0, 0, NULL });
			sl = critpath_slack(g, (size_t)i);
			k = critpath_transfer(g, (size_t)i);
			if (k == 0 || sl > 1000)
				continue;
			for (d = 0; d < m.nop; d++)
				opf[d] = 1;
			opf[i] = (double)(k + sl) / (double)k;
			badmeta += critpath_eval(g, &sc) != measured;
			opf[i] = (double)(k + sl + 1) / (double)k;
			badmeta += critpath_eval(g, &sc) != measured + 1;
			(void)du;
		}
		/* comm-free >= the largest per-device compute sum. */
		sc = critpath_scen_measured();
		sc.comm = 0;
		got = critpath_eval(g, &sc);
		for (d = 0; d < m.nd; d++) {
			int64_t sum = 0;

			for (i = 0; i < m.nop; i++)
				if (m.op[i].dev == d && m.op[i].coll < 0)
					sum += m.op[i].dur;
			badmeta += got < sum;
		}
	}
	CHECK(tried > 2000);
	CHECK_INT(bad, 0);
	CHECK_INT(badid, 0);
	CHECK_INT(badslack, 0);
	CHECK_INT(badmeta, 0);
	critpath_free(g);
}

/* Two devices without a collective: each counts from its own start, the
 * step is the longer one's 30, however far apart they were launched. */
static void
independent(void)
{
	struct critpath_graph *g = critpath_new();
	struct critpath_op o = { 0 };
	struct critpath_scen sc = critpath_scen_measured();
	struct critpath_info info;
	const struct critpath_seg *s;

	o.dev = 0, o.start_ns = 100, o.dur_ns = 10, o.key = 1;
	critpath_add(g, &o);
	o.dev = 1, o.start_ns = 5000, o.dur_ns = 30;
	critpath_add(g, &o);
	critpath_build(g, &info);
	CHECK_INT(critpath_measured(g), 30);
	CHECK_INT(critpath_eval(g, &sc), 30);
	CHECK_INT(critpath_start(g, 1), 5000);
	CHECK_INT(critpath_slack(g, 0), 20);
	CHECK_INT(critpath_path(g, &s), 1);
	CHECK_INT(s[0].start_ns, 5000);
	CHECK_INT(s[0].dev, 1);
	critpath_free(g);
}

/*
 * Two collectives in different orders on two devices (device 1's clock
 * 190 ahead): A [0, 10), C [20, 30) on 0; C [100, 110), A [200, 210) on
 * 1.  A's barrier is 200 and device 0's A ended at 10: its end is the
 * barrier's edge, back in time, and E(A@0) -> S(C@0) -> B(C) -> E(C@1)
 * -> S(A@1) -> B(A) -> E(A@0) is a cycle.  The build says so and names
 * a member of one of them; in one order there is none.
 */
static void
cycle(void)
{
	static const int64_t t[2][4] = { { 0, 20, 100, 200 }, { 0, 20, 100, 101 } };
	struct critpath_graph *g = critpath_new();
	struct critpath_info info;
	int k, i;

	for (k = 0; k < 2; k++) {
		critpath_reset(g);
		for (i = 0; i < 4; i++) {
			struct critpath_op o = { 0 };

			o.dev = i / 2;
			o.start_ns = k == 1 && i >= 2 ? (i == 2 ? 100 : 120) :
			    t[0][i];
			o.dur_ns = 10;
			/* A is key 0, C key 1: A C on device 0, C A on 1
			 * (k 0), A C on both (k 1). */
			o.key = k == 0 ? (size_t)(i == 1 || i == 2) :
			    (size_t)(i % 2);
			o.comm = 1;
			o.csize = 2;
			(void)critpath_add(g, &o);
		}
		if (k == 0) {
			CHECK_INT(critpath_build(g, &info), -1);
			CHECK(info.cycle >= 0 && info.cycle < 4);
		} else {
			CHECK_INT(critpath_build(g, &info), 0);
			CHECK_INT(info.cycle, -1);
			CHECK_INT(critpath_eval(g, &(struct critpath_scen){ 1, 1,
			    0, 0, NULL }), 130);
		}
	}
	critpath_free(g);
}

/*
 * The stream rule's tolerance and the path's split, on device 0:
 * A [0, 1000), B [999, 2000) (starts 1 ns before A ends), attention-like
 * L [2000, 5000), collective K [2100, 4800) hidden
 * under L, M [5000, 5500) after both, N [5600, 6000) after a 100 ns idle
 * gap.  Tolerance 2: B follows A (2 streams, not 3), the overlap taken
 * off A on the path (A 999, B 1001).  The path M <- L (K ends before
 * L): L 3000 compute, no communication; gap 100 before N.  Without the
 * tolerance B opens a stream of its own.
 */
static void
overlap(void)
{
	struct critpath_graph *g = critpath_new();
	struct critpath_op o = { 0 };
	struct critpath_scen sc = critpath_scen_measured();
	struct critpath_info info;
	const struct critpath_seg *s;
	size_t n, i;
	int64_t by[CRITPATH_NLABEL] = { 0 };

	o.dev = 0, o.start_ns = 0, o.dur_ns = 1000, o.key = 1;
	critpath_add(g, &o);				/* 0: A */
	o.start_ns = 999, o.dur_ns = 1001, o.key = 2;
	critpath_add(g, &o);				/* 1: B */
	o.start_ns = 2000, o.dur_ns = 3000, o.key = 3;
	critpath_add(g, &o);				/* 2: L */
	o.start_ns = 2100, o.dur_ns = 2700, o.key = 4, o.comm = 1, o.async = 1;
	critpath_add(g, &o);				/* 3: K */
	o.start_ns = 5000, o.dur_ns = 500, o.key = 5, o.comm = 0, o.async = 0;
	critpath_add(g, &o);				/* 4: M */
	o.start_ns = 5600, o.dur_ns = 400, o.key = 6;
	critpath_add(g, &o);				/* 5: N */
	critpath_device(g, 0, 0, 6000);
	critpath_build(g, &info);
	CHECK_INT(info.streams, 3);	/* A and L, B, K */
	critpath_reset(g);
	critpath_set_overlap(g, 2);
	o.start_ns = 0, o.dur_ns = 1000, o.key = 1;
	critpath_add(g, &o);
	o.start_ns = 999, o.dur_ns = 1001, o.key = 2;
	critpath_add(g, &o);
	o.start_ns = 2000, o.dur_ns = 3000, o.key = 3;
	critpath_add(g, &o);
	o.start_ns = 2100, o.dur_ns = 2700, o.key = 4, o.comm = 1, o.async = 1;
	critpath_add(g, &o);
	o.start_ns = 5000, o.dur_ns = 500, o.key = 5, o.comm = 0, o.async = 0;
	critpath_add(g, &o);
	o.start_ns = 5600, o.dur_ns = 400, o.key = 6;
	critpath_add(g, &o);
	critpath_device(g, 0, 0, 6000);
	critpath_build(g, &info);
	CHECK_INT(info.streams, 2);
	CHECK_INT(critpath_eval(g, &sc), 6000);
	CHECK_INT(critpath_start(g, 1), 999);	/* replayed */
	n = critpath_path(g, &s);
	for (i = 0; i < n; i++)
		by[s[i].label] += s[i].dur_ns;
	CHECK_INT(by[CRITPATH_COMPUTE], 5900);
	CHECK_INT(by[CRITPATH_COMM], 0);
	CHECK_INT(by[CRITPATH_GAP], 100);
	if (n >= 2) {
		CHECK_INT(s[0].op, 0);
		CHECK_INT(s[0].dur_ns, 999);
		CHECK_INT(s[1].op, 1);
		CHECK_INT(s[1].start_ns, 999);
	}
	/* no-gaps gains the idle 100 ns and the 1 ns overlap is kept. */
	sc.gap = 0;
	CHECK_INT(critpath_eval(g, &sc), 5900);
	critpath_free(g);
}

int
main(void)
{
	by_hand();
	independent();
	async_pair();
	random_graphs();
	cycle();
	overlap();
	return unit_done("critpath");
}
