"""HLO instruction attributes -> the workbench's op attributes.

:func:`op_attrs` reads the raw attribute strings of one instruction (``dimensions={1}``,
``window={size=3x3 stride=2x2}``, ``to_apply=%region_0``) into the attributes of the
registry op that stands for it. Computations an op calls (a sort's comparator, a while's
body, a general reducer) are asked of the importer (``ctx.computation``), which builds them as
nested graphs. An attribute the workbench cannot represent raises :class:`Unsupported`, and the
importer keeps the instruction as an opaque node with the reason.
"""

from __future__ import annotations

import re

from workbench.errors import AttributeError_, ParseError
from workbench.ir.ops.computation import simple_binary
from workbench.ir.ops.reduction import REDUCERS
from workbench.importers.hlo_text import HloInstruction


class Unsupported(Exception):
    """An op whose attributes the workbench cannot represent: it becomes opaque."""


_ASCII_INT = re.compile(r"[-+]?[0-9]{1,19}", re.ASCII)


def ints(text: str) -> tuple[int, ...]:
    """``{1,0}`` or ``1,0`` as a tuple of ints (ASCII digits only).

    Raises
    ------
    ValueError
        For anything that is not a list of whole numbers.
    """
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    return tuple(to_int(x) for x in body.split(",") if x.strip())


def to_int(text: str) -> int:
    """A whole number written in ASCII digits (``int()`` would take ``٣`` and ``1_0``).

    Raises
    ------
    ValueError
    """
    t = text.strip()
    if not _ASCII_INT.fullmatch(t):
        raise ValueError(f"{t[:30]!r} is not a whole number")
    return int(t)


def window(text: str) -> dict:
    """``{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=..}`` as a dict of tuples."""
    body = text.strip().strip("{}")
    out = {}
    for item in body.split():
        key, _, value = item.partition("=")
        if key == "pad":
            out[key] = tuple(tuple(to_int(v) for v in p.split("_")) for p in value.split("x"))
        elif key in ("lhs_reversal", "rhs_reversal"):
            out[key] = tuple(to_int(v) for v in value.split("x"))
        else:
            out[key] = tuple(to_int(v) for v in value.split("x"))
    return out


def slice_attr(text: str) -> dict:
    """``{[0:4], [1:8:2]}`` as start, limit and stride tuples."""
    parts = re.findall(r"\[([^\]]*)\]", text)
    start, limit, strides = [], [], []
    for p in parts:
        nums = [to_int(v) for v in p.split(":")]
        start.append(nums[0])
        limit.append(nums[1])
        strides.append(nums[2] if len(nums) > 2 else 1)
    return dict(start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(strides))


def padding_attr(text: str) -> tuple:
    """``1_2_0x0_0_1`` as (low, high, interior) per dimension."""
    triples = []
    for dim in text.strip().split("x"):
        nums = [to_int(v) for v in dim.split("_")]
        if len(nums) == 2:
            nums.append(0)
        triples.append(tuple(nums))
    return tuple(triples)


def is_default_layout(layout, rank) -> bool:
    """True for no layout or the row-major one (``{rank-1, ..., 0}``)."""
    return layout is None or tuple(layout) == tuple(range(rank - 1, -1, -1))


def _names(text: str) -> list[str]:
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    return [n.strip().lstrip("%") for n in body.split(",") if n.strip()]


def _window_attrs(w: dict, rank: int) -> dict:
    if any(v for v in w.get("lhs_reversal", ())) or any(v for v in w.get("rhs_reversal", ())):
        raise Unsupported("window reversal is not supported")
    out = dict(window_size=w["size"], window_stride=w.get("stride", (1,) * rank),
               window_padding=w.get("pad", ((0, 0),) * rank))
    if any(v != 1 for v in w.get("lhs_dilate", ())):
        out["base_dilation"] = w["lhs_dilate"]
    if any(v != 1 for v in w.get("rhs_dilate", ())):
        out["window_dilation"] = w["rhs_dilate"]
    return out


def _reducer_or_computation(ctx, ins, key="to_apply") -> dict:
    comp = ctx.computation(ins, key)
    r = simple_binary(comp)
    if r in REDUCERS:
        return dict(reducer=r)
    return dict(computation=comp)


def _dtype_if_other(t, operand_types) -> dict:
    """``preferred_element_type=`` when a dot/convolution's result dtype is not its lhs'."""
    if operand_types and t.dtype != operand_types[0].dtype:
        return dict(preferred_element_type=t.dtype)
    return {}


def op_attrs(ctx, ins: HloInstruction, op: str, operand_ids) -> dict:
    """The registry op's attributes for one instruction.

    Parameters
    ----------
    ctx : the importer
        Gives ``computation(ins, key)`` (a nested graph), ``types`` and ``layouts`` (of the
        graph's values by id), and ``error``.
    ins : HloInstruction
    op : str
        The registry op the instruction becomes.
    operand_ids : list of str

    Raises
    ------
    Unsupported
        When the op's attributes cannot be represented (the instruction becomes opaque).
    AttributeError_, ParseError
        For a missing or malformed attribute (naming the instruction).
    """
    a = ins.attrs
    t = ins.type
    try:
        return _op_attrs(ctx, ins, op, operand_ids, a, t)
    except KeyError as exc:
        raise ctx.error(AttributeError_, f"{ins.opcode} needs the attribute {exc.args[0]}=",
                        ins) from None
    except (ValueError, IndexError) as exc:
        raise ctx.error(ParseError, f"cannot read the attributes of {ins.opcode}: {exc}",
                        ins) from None


def _op_attrs(ctx, ins, op, operand_ids, a, t):  # noqa: C901 - one branch per opcode
    in_types = [ctx.types[o] for o in operand_ids]
    if op == "broadcast":
        return dict(shape=t.shape, dimensions=ints(a.get("dimensions", "{}")))
    if op == "reshape":
        return dict(shape=t.shape)
    if op == "bitcast":
        out = dict(shape=t.shape)
        src = ctx.layouts.get(operand_ids[0])
        src_rank = in_types[0].rank
        if not (is_default_layout(src, src_rank) and is_default_layout(ins.layout, t.rank)):
            out["operand_layout"] = src or tuple(range(src_rank - 1, -1, -1))
            out["layout"] = ins.layout or tuple(range(t.rank - 1, -1, -1))
        if t.dtype != in_types[0].dtype:
            out["dtype"] = t.dtype
        return out
    if op in ("transpose", "reverse"):
        return dict(dimensions=ints(a["dimensions"]))
    if op == "concatenate":
        return dict(dimension=ints(a["dimensions"])[0])
    if op == "slice":
        return slice_attr(a["slice"])
    if op == "pad":
        return dict(padding=padding_attr(a["padding"]))
    if op == "iota":
        return dict(shape=t.shape, dtype=t.dtype, iota_dimension=to_int(a.get("iota_dimension", "0")))
    if op in ("convert", "bitcast-convert"):
        return dict(dtype=t.dtype)
    if op == "compare":
        out = dict(direction=a["direction"].strip())
        ct = a.get("type", "").strip()
        if ct == "TOTALORDER":
            out["compare_type"] = ct
        return out
    if op == "get-tuple-element":
        return dict(index=to_int(a["index"]))
    if op == "reduce":
        return dict(dimensions=ints(a["dimensions"]), **_reducer_or_computation(ctx, ins))
    if op == "reduce-window":
        return dict(_window_attrs(window(a["window"]), in_types[0].rank),
                    **_reducer_or_computation(ctx, ins))
    if op == "select-and-scatter":
        out = _window_attrs(window(a["window"]), in_types[0].rank)
        out["select"] = ctx.computation(ins, "select")
        sc = ctx.computation(ins, "scatter")
        r = simple_binary(sc)
        out.update(reducer=r) if r in REDUCERS else out.update(scatter=sc)
        return out
    if op == "dot":
        out = {}
        for key in ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                    "rhs_contracting_dims"):
            if key in a:
                out[key] = ints(a[key])
        return dict(out, **_dtype_if_other(t, in_types))
    if op == "convolution":
        w = window(a.get("window", "{}"))
        n = t.rank - 2
        if to_int(a.get("batch_group_count", "1")) != 1:
            raise Unsupported("batch_group_count > 1 is not supported")
        if any(w.get("lhs_reversal", ())) or any(w.get("rhs_reversal", ())):
            raise Unsupported("window reversal is not supported")
        return dict(dim_labels=a["dim_labels"].strip(), window_size=w.get("size", ()),
                    window_stride=w.get("stride", (1,) * n),
                    window_padding=w.get("pad", ((0, 0),) * n),
                    lhs_dilation=w.get("lhs_dilate", (1,) * n),
                    rhs_dilation=w.get("rhs_dilate", (1,) * n),
                    feature_group_count=to_int(a.get("feature_group_count", "1")),
                    **_dtype_if_other(t, in_types))
    if op == "batch_norm_inference":
        return dict(epsilon=float(a["epsilon"]), feature_index=to_int(a["feature_index"]))
    if op == "gather":
        out = dict(offset_dims=ints(a.get("offset_dims", "{}")),
                   collapsed_slice_dims=ints(a.get("collapsed_slice_dims", "{}")),
                   start_index_map=ints(a["start_index_map"]),
                   index_vector_dim=to_int(a["index_vector_dim"]),
                   slice_sizes=ints(a["slice_sizes"]))
        for key in ("operand_batching_dims", "start_indices_batching_dims"):
            if ints(a.get(key, "{}")):
                out[key] = ints(a[key])
        return out
    if op == "scatter":
        out = dict(update_window_dims=ints(a.get("update_window_dims", "{}")),
                   inserted_window_dims=ints(a.get("inserted_window_dims", "{}")),
                   scatter_dims_to_operand_dims=ints(a["scatter_dims_to_operand_dims"]),
                   index_vector_dim=to_int(a["index_vector_dim"]))
        for key in ("input_batching_dims", "scatter_indices_batching_dims"):
            if ints(a.get(key, "{}")):
                out[key] = ints(a[key])
        comp = ctx.computation(ins, "to_apply")
        r = simple_binary(comp)
        n = len(operand_ids) // 2
        if n == 1 and r in ("add", "multiply", "maximum", "minimum", "and", "or", "assign"):
            out["combiner"] = r
        else:
            out["computation"] = comp
        return out
    if op == "dynamic-slice":
        return dict(slice_sizes=ints(a["dynamic_slice_sizes"]))
    if op == "sort":
        return dict(dimension=ints(a["dimensions"])[0],
                    is_stable=a.get("is_stable", "false").strip() == "true",
                    comparator=ctx.computation(ins, "to_apply"))
    if op == "topk":
        return dict(k=to_int(a["k"]), largest=a.get("largest", "true").strip() == "true")
    if op == "map":
        return dict(computation=ctx.computation(ins, "to_apply"))
    if op == "rng-bit-generator":
        data = t.elements[1]
        return dict(algorithm=a.get("algorithm", "rng_default").strip(), shape=data.shape,
                    dtype=data.dtype)
    if op == "reduce-precision":
        return dict(exponent_bits=to_int(a["exponent_bits"]), mantissa_bits=to_int(a["mantissa_bits"]))
    return {}


def computation_names(text: str) -> list[str]:
    """Computation names in ``{%a, %b}`` or ``%a``."""
    return _names(text)
