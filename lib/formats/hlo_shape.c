/*
 * hlo_shape.c: opcodes, shapes and replica groups of HLO instructions, as
 * nsys-jax's protobuf.py and analysis.py read them (hlo.h has the rules
 * and their sources; hlo_impl.h the functions hlo.c calls).
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

/* ---- opcodes, shapes and replica groups (protobuf.py, analysis.py) ---- */

static int
in_set(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

/* protobuf.py HloInstruction.__init__: comm_opcodes, comm_start_opcodes. */
static const char *const comm_ops[] = {
	"all-gather", "all-reduce", "all-to-all", "collective-broadcast",
	"collective-permute", "reduce-scatter", NULL
};

static const char *const comm_start_ops[] = {
	"all-gather-start", "all-reduce-start", "collective-permute-start",
	NULL
};

enum kind
hlo_op_kind(const char *op)
{
	/* Most opcodes (fusion aside) start with none of these letters. */
	if (strchr("acdfr", op[0]) == NULL || op[0] == '\0')
		return K_OTHER;
	if (in_set(op, comm_ops))
		return K_COMM;
	if (in_set(op, comm_start_ops))
		return K_COMM_START;
	if (strcmp(op, "async-start") == 0 || strcmp(op, "fusion") == 0)
		return K_WRAPPER;
	if (strcmp(op, "dynamic-slice") == 0)
		return K_DS;
	if (strcmp(op, "dynamic-update-slice") == 0)
		return K_DUS;
	return K_OTHER;
}

/* Pairwise send/recv: its group size is 2 whatever the groups say. */
int
hlo_is_permute(const char *op)
{
	return strcmp(op, "collective-permute") == 0 ||
	    strcmp(op, "collective-permute-start") == 0;
}

int
hlo_on_host(const Xla__HloInstructionProto *p)
{
	return p->shape && p->shape->layout &&
	    p->shape->layout->memory_space == HOST_MEMORY_SPACE;
}

/*
 * Element width in bits from the PrimitiveType name
 * (analysis.py element_type_width): PRED and F8E* are 8; otherwise the
 * digits after BF, C, F, S or U.  F4E2M1FN, which the reference fails to
 * parse, is given its 4 bits.  -1 for types without a width (TUPLE,
 * TOKEN, ...).
 */
int
hlo_width_bits(int t)
{
	switch (t) {
	case XLA__PRIMITIVE_TYPE__S1: case XLA__PRIMITIVE_TYPE__U1:
		return 1;
	case XLA__PRIMITIVE_TYPE__S2: case XLA__PRIMITIVE_TYPE__U2:
		return 2;
	case XLA__PRIMITIVE_TYPE__S4: case XLA__PRIMITIVE_TYPE__U4:
	case XLA__PRIMITIVE_TYPE__F4E2M1FN:
		return 4;
	case XLA__PRIMITIVE_TYPE__PRED:
	case XLA__PRIMITIVE_TYPE__S8: case XLA__PRIMITIVE_TYPE__U8:
	case XLA__PRIMITIVE_TYPE__F8E5M2: case XLA__PRIMITIVE_TYPE__F8E4M3:
	case XLA__PRIMITIVE_TYPE__F8E4M3FN:
	case XLA__PRIMITIVE_TYPE__F8E4M3B11FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E3M4:
	case XLA__PRIMITIVE_TYPE__F8E5M2FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E4M3FNUZ:
	case XLA__PRIMITIVE_TYPE__F8E8M0FNU:
		return 8;
	case XLA__PRIMITIVE_TYPE__S16: case XLA__PRIMITIVE_TYPE__U16:
	case XLA__PRIMITIVE_TYPE__F16: case XLA__PRIMITIVE_TYPE__BF16:
		return 16;
	case XLA__PRIMITIVE_TYPE__S32: case XLA__PRIMITIVE_TYPE__U32:
	case XLA__PRIMITIVE_TYPE__F32:
		return 32;
	case XLA__PRIMITIVE_TYPE__S64: case XLA__PRIMITIVE_TYPE__U64:
	case XLA__PRIMITIVE_TYPE__F64: case XLA__PRIMITIVE_TYPE__C64:
		return 64;
	case XLA__PRIMITIVE_TYPE__C128:
		return 128;
	default:
		return -1;
	}
}

const char *
hlo_type_name(int t)
{
	const ProtobufCEnumValue *v;

	v = protobuf_c_enum_descriptor_get_value(
	    &xla__primitive_type__descriptor, t);
	return v ? v->name : "unknown type";
}

/* *R = A * B for A, B >= 0; -1 on overflow. */
static int
mul(int64_t a, int64_t b, int64_t *r)
{
	if (a != 0 && b > INT64_MAX / a)
		return -1;
	*r = a * b;
	return 0;
}

/* _byte_size: product(dimensions) * width / 8, a whole number of bytes. */
int
hlo_shape_size(const Xla__ShapeProto *s, int64_t *bytes)
{
	int64_t bits;
	size_t i;

	if (s == NULL || (bits = hlo_width_bits((int)s->element_type)) < 0)
		return SZ_TYPE;
	for (i = 0; i < s->n_dimensions; i++) {
		if (s->dimensions[i] < 0)
			return SZ_NEGATIVE;
		if (mul(bits, s->dimensions[i], &bits) < 0)
			return SZ_OVERFLOW;
	}
	if (bits % 8 != 0)
		return SZ_FRACTION;
	*bytes = bits / 8;
	return SZ_OK;
}

/* All replica groups must have one size (the reference asserts). */
static int
group_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    Xla__ReplicaGroup *const *g, size_t ng, int64_t *n, const char **err)
{
	size_t i;

	for (i = 1; i < ng; i++)
		if (g[i]->n_replica_ids != g[0]->n_replica_ids) {
			*err = merr(m, "%s: replica groups of different sizes",
			    str(c->name));
			return -1;
		}
	*n = (int64_t)g[0]->n_replica_ids;
	return 0;
}

/* Mesh axes: product of the listed axes' sizes; no sub-axes. */
static int
mesh_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    const Xla__MeshAxesReplicaGroupListProto *ma, int64_t *n,
    const char **err)
{
	const Xla__AxisRefProto *ax;
	int64_t k;
	size_t i;

	*n = 1;
	for (i = 0; i < ma->n_axes; i++) {
		ax = ma->axes[i];
		if (ax->sub_axis_info) {
			*err = merr(m, "%s: mesh sub-axes are not supported",
			    str(c->name));
			return -1;
		}
		k = ax->mesh_axis_index;
		if (ma->mesh == NULL || k < 0 || (uint64_t)k >=
		    ma->mesh->n_axes) {
			*err = merr(m, "%s: mesh axis %" PRId64 " out of range",
			    str(c->name), k);
			return -1;
		}
		if (ma->mesh->axes[k]->size < 0 ||
		    mul(*n, ma->mesh->axes[k]->size, n) < 0) {
			*err = merr(m, "%s: bad mesh axis size", str(c->name));
			return -1;
		}
	}
	return 0;
}

/*
 * Group size from the first replica-group encoding present, in the order
 * the reference tries them (see hlo.h).
 */
int
hlo_collective_size(struct hlo_module *m, const Xla__HloInstructionProto *c,
    int64_t *n, const char **err)
{
	const Xla__CollectiveDeviceListProto *dl = c->collective_device_list;
	const Xla__MeshAxesReplicaGroupListProto *ma;

	*n = 0;
	if (dl && dl->n_replica_groups > 0) {
		if (group_size(m, c, dl->replica_groups, dl->n_replica_groups,
		    n, err) < 0)
			return -1;
	} else if (c->n_replica_groups > 0) {
		if (group_size(m, c, c->replica_groups, c->n_replica_groups,
		    n, err) < 0)
			return -1;
	} else if (dl && dl->iota_replica_group_list &&
	    dl->iota_replica_group_list->num_devices_per_group > 0)
		*n = dl->iota_replica_group_list->num_devices_per_group;
	else if (c->iota_collective_device_list &&
	    c->iota_collective_device_list->num_devices_per_group > 0)
		*n = c->iota_collective_device_list->num_devices_per_group;
	else if ((ma = c->mesh_axes_replica_group_list) && ma->n_axes > 0) {
		if (mesh_size(m, c, ma, n, err) < 0)
			return -1;
	}
	if (*n <= 0) {
		*err = merr(m, "%s: cannot extract collective size",
		    str(c->name));
		return -1;
	}
	return 0;
}

/* The opcode without "-start" (opcode.removesuffix("-start")). */
const char *
hlo_collective_name(const char *opc)
{
	static const char *const base[] = {
		"all-gather", "all-reduce", "collective-permute"
	};
	size_t i;

	for (i = 0; comm_start_ops[i]; i++)
		if (strcmp(opc, comm_start_ops[i]) == 0)
			return base[i];
	return opc;
}
