/*
 * hlo_stack.c: an instruction's stack frames and Python source stacks
 * (protobuf.py HloProto._get_stack_frame, Analysis.ipynb
 * instructions_and_frames): hlo_src of hlo.h, and hlo_walk for hlo.c.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/mem.h"
#include "formats/hlo.h"
#include "formats/hlo_impl.h"
#include "hlo.pb-c.h"

/* ---- stack frames (protobuf.py HloProto._get_stack_frame) ---- */

/*
 * Frame K (1-based) as "file:line[:column][function]", formatted on first
 * use and kept.  Ids are checked here, not at load: the reference only
 * fails when a stack is asked for.  The budget stops a small input whose
 * frames all name one huge file from expanding into gigabytes.
 */
static const char *
frame_str(struct hlo_module *m, int64_t k)
{
	const struct sfi *x = &m->sfi;
	const struct loc *loc;
	const struct sframe *f;
	char col[16] = "", *s;
	const char *file, *func;
	size_t n;

	if (k < 1 || (uint64_t)k > x->nframe) {
		err_fail("stack frame id %" PRId64 " out of range", k);
		return NULL;
	}
	if (m->frame[k - 1])
		return m->frame[k - 1];
	f = &x->frame[k - 1];
	if (f->loc < 1 || (size_t)f->loc > x->nloc) {
		err_fail("stack frame id %" PRId64 ": file location out of "
		    "range", k);
		return NULL;
	}
	loc = &x->loc[f->loc - 1];
	if (loc->file < 1 || (size_t)loc->file > x->nfile ||
	    loc->func < 1 || (size_t)loc->func > x->nfunc) {
		err_fail("stack frame id %" PRId64 ": file or function name "
		    "out of range", k);
		return NULL;
	}
	file = x->file[loc->file - 1];
	func = x->func[loc->func - 1];
	if (loc->column != 0)
		snprintf(col, sizeof(col), ":%" PRId32, loc->column);
	n = strlen(file) + strlen(func) + strlen(col) + 16;
	if (n > FRAME_BUDGET - m->frame_bytes) {
		err_fail("stack frame strings too large");
		return NULL;
	}
	m->frame_bytes += n;
	s = arena_take(&m->pool, n, 1);
	snprintf(s, n, "%s:%" PRId32 "%s[%s]", file, loc->line, col, func);
	return m->frame[k - 1] = s;
}

/* ---- source stacks (Analysis.ipynb instructions_and_frames) ---- */

/*
 * The frames from FRAME_ID up through its parents, outermost first, plus
 * OP_NAME when not empty (protobuf.py get_stack_frames).  An id <= 0 ends
 * the walk, and so does an id beyond the index, as in XLA (an empty
 * frame, StackFrames::GetStackFrame): the frames below it are kept, and
 * an instruction whose own id is beyond has no stack.  More steps than
 * there are frames means a cycle.
 */
#define IN_INDEX(m, k)	((k) > 0 && (uint64_t)(k) <= (m)->sfi.nframe)

int
hlo_walk(struct hlo_module *m, int64_t frame_id, const char *op_name,
    struct hlo_stack *st)
{
	int64_t k;
	size_t n = 0, i;

	st->nframe = 0;
	st->frame = NULL;
	for (k = frame_id; IN_INDEX(m, k); k = m->sfi.frame[k - 1].parent) {
		if (frame_str(m, k) == NULL)
			return -1;
		if (++n > m->sfi.nframe)
			return err_fail("cycle in stack frames at id %" PRId64,
			    frame_id);
	}
	if (n == 0)
		return 0;
	st->frame = mem_calloc(n + 1, sizeof(*st->frame));
	i = n;
	for (k = frame_id; IN_INDEX(m, k); k = m->sfi.frame[k - 1].parent)
		st->frame[--i] = m->frame[k - 1];
	st->nframe = n;
	if (*op_name)
		st->frame[st->nframe++] = op_name;
	return 0;
}

static int
same_stack(const struct hlo_stack *a, const struct hlo_stack *b)
{
	size_t i;

	if (a->nframe != b->nframe)
		return 0;
	for (i = 0; i < a->nframe; i++)
		if (a->frame[i] != b->frame[i] &&
		    strcmp(a->frame[i], b->frame[i]) != 0)
			return 0;
	return 1;
}

struct src_build {
	struct hlo_src *out;
	size_t stackcap, namecap;
};

/* Add one instruction's stack and op_name, if new. */
static int
add_src(struct hlo_module *m, const struct inst *in, struct src_build *b)
{
	struct hlo_src *s = b->out;
	const char *op_name = in->pub.op_name;
	struct hlo_stack st;
	size_t i;

	if (hlo_walk(m, in->frame, op_name, &st) < 0)
		return -1;
	for (i = 0; i < s->nstack && st.nframe; i++)
		if (same_stack(&s->stack[i], &st))
			break;
	if (st.nframe && i == s->nstack) {
		mem_grow(&s->stack, &b->stackcap, s->nstack + 1,
		    sizeof(*s->stack));
		s->stack[s->nstack++] = st;
	} else
		free(st.frame);
	if (*op_name == '\0')
		return 0;
	/* Interned at load: equal op_names are one pointer. */
	for (i = 0; i < s->nop_name; i++)
		if (s->op_name[i] == op_name)
			return 0;
	mem_grow(&s->op_name, &b->namecap, s->nop_name + 1,
	    sizeof(*s->op_name));
	s->op_name[s->nop_name++] = op_name;
	return 0;
}

int
hlo_src(struct hlo_module *m, const struct hlo_inst *in, struct hlo_src *out)
{
	const struct inst *p = (const struct inst *)in;
	const struct comp *c;
	struct src_build b = { out, 0, 0 };
	int64_t id;
	size_t j, k;

	memset(out, 0, sizeof(*out));
	if (add_src(m, p, &b) < 0)
		return -1;
	for (j = 0; j < p->ncalled; j++) {
		id = m->called[p->called + j];
		if ((c = find_comp(m, id)) == NULL)
			return err_fail("%s: no HLO computation with id %"
			    PRId64, in->name, id);
		for (k = 0; k < c->n; k++)
			if (add_src(m, &m->inst[c->first + k], &b) < 0)
				return -1;
	}
	return 0;
}

void
hlo_src_free(struct hlo_src *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nstack; i++)
		free(s->stack[i].frame);
	free(s->stack);
	free(s->op_name);
	memset(s, 0, sizeof(*s));
}
