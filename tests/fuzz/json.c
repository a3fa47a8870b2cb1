/*
 * Fuzz target: XLA's backend_config JSON as the cost rules read it
 * (hlocost.c, through jansson): the input is the backend_config of a
 * cuBLAS gemm, a cuDNN attention and a TransformerEngine attention FFI
 * custom call (its MLIR attribute text) in a small module, costed; and the GpuTargetConfigProto text reader (device_pbtxt) on the
 * same bytes, and the run metadata's reader of that text (meta_pbtxt).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "costcheck.h"
#include "hlo.pb-c.h"
#include "profile/device.h"
#include "profile/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Parameters a, b, c of shape bf16[8,4,4,2] and three custom calls of
 * them, a gemm and two attentions, each with the backend_config DATA[0..N);
 * the caller points MOD at its computation. */
static void
module(Xla__HloModuleProto *mod, Xla__HloComputationProto *comp,
    Xla__HloInstructionProto *in, Xla__HloInstructionProto **pin,
    Xla__ShapeProto *sh, Xla__LayoutProto *lay, int64_t *dims,
    int64_t *ops, const uint8_t *data, size_t n)
{
	static const char *const name[] = { "a", "b", "c", "gemm", "attn",
	    "te" };
	size_t k;

	xla__hlo_module_proto__init(mod);
	mod->name = "fuzz";
	mod->id = 1;
	xla__hlo_computation_proto__init(comp);
	comp->name = "c";
	comp->id = 1;
	comp->root_id = 6;
	comp->n_instructions = 6;
	comp->instructions = pin;
	mod->n_computations = 1;
	xla__layout_proto__init(lay);
	xla__shape_proto__init(sh);
	sh->element_type = 16;		/* bf16 */
	sh->n_dimensions = 4;
	sh->dimensions = dims;
	sh->layout = lay;
	for (k = 0; k < 6; k++) {
		xla__hlo_instruction_proto__init(&in[k]);
		in[k].name = (char *)name[k];
		in[k].id = (int64_t)k + 1;
		in[k].shape = sh;
		in[k].opcode = k < 3 ? "parameter" : "custom-call";
		pin[k] = &in[k];
	}
	for (k = 3; k < 6; k++) {
		in[k].n_operand_ids = 3;
		in[k].operand_ids = ops;
		in[k].backend_config.data = (uint8_t *)data;
		in[k].backend_config.len = n;
	}
	in[3].custom_call_target = "__cublas$lt$matmul";
	in[4].custom_call_target = "__cudnn$fmhaSoftmax";
	in[5].custom_call_target = "te_fused_attn_forward_ffi";
}

static void
cost_of(const uint8_t *data, size_t n)
{
	Xla__HloModuleProto mod;
	Xla__HloComputationProto comp, *pcomp = &comp;
	Xla__HloInstructionProto in[6], *pin[6];
	Xla__ShapeProto sh;
	Xla__LayoutProto lay;
	int64_t dims[4] = { 8, 4, 4, 2 }, ops[3] = { 1, 2, 3 };
	struct hlo_module *m;
	uint8_t *buf;
	size_t len;

	module(&mod, &comp, in, pin, &sh, &lay, dims, ops, data, n);
	mod.computations = &pcomp;
	len = xla__hlo_module_proto__get_packed_size(&mod);
	if ((buf = malloc(len)) == NULL)
		abort();
	xla__hlo_module_proto__pack(&mod, buf);
	m = hlo_load(buf, len);
	free(buf);
	if (m == NULL)
		abort();	/* the module itself is always valid */
	fuzz_check_costs(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct device_info d;
	char *mv[META_NKEYS] = { NULL };
	const char *ms[META_NKEYS] = { NULL };
	size_t k;

	cost_of(data, n);
	(void)device_pbtxt((const char *)data, n, &d);
	if (d.name[sizeof(d.name) - 1] != '\0')
		abort();
	meta_pbtxt((const char *)data, n, mv, ms);
	for (k = 0; k < META_NKEYS; k++) {
		/* A value has its source, and lies in no more than the text. */
		if ((mv[k] == NULL) != (ms[k] == NULL) ||
		    (mv[k] && strlen(mv[k]) > n + 40))
			abort();
		free(mv[k]);
	}
	return 0;
}
