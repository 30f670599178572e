"""Import HLO text as a :class:`~workbench.ir.Graph`.

Before optimisation, ``call(..., to_apply=f)`` is inlined. After optimisation, each
``fusion(..., kind=kLoop, calls=f)`` is flattened into the graph: the fusion computation's
instructions become nodes of the graph, and every such node is tagged with the fusion it came
from (``meta['xla_fusion']``, ``meta['xla_fusion_kind']``), so that XLA's own grouping is
available as a reference plan over the same nodes. Tuples and get-tuple-element on them are
resolved away. Reductions whose ``to_apply`` is one binary op get ``reducer=``; ops the registry
does not know (custom-call, gather, sort, scatter, while, ...) become ``opaque`` nodes with their
declared type and ``hlo_opcode=``.

Node ids are the HLO instruction names. An instruction inlined from a computation whose name is
already taken is renamed ``<call site>/<name>``; the node that produces an inlined call's or a
fusion's value keeps its own name, and the call or fusion instruction's users read it directly.
"""

from __future__ import annotations

import difflib
import re

from workbench.errors import AttributeError_, GraphError, ParseError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.ops import REGISTRY, get_op
from workbench.ir.ops.reduction import REDUCERS
from workbench.ir.types import TensorType, TupleType
from workbench.ir.verify import check_node
from workbench.importers.hlo_text import (HloComputation, HloInstruction, HloModule,
                                          parse_hlo_module)

#: HLO opcodes whose workbench op has another name
OPCODE_ALIASES = {"batch-norm-inference": "batch_norm_inference"}

#: every opcode XLA's HLO has (xla/hlo/ir/hlo_opcode.h); one the registry lacks imports as an
#: opaque node, anything else is a syntax error (most likely a typo)
XLA_OPCODES = frozenset("""
abs add add-dependency after-all all-gather all-gather-done all-gather-start all-reduce
all-reduce-done all-reduce-start all-to-all and async-done async-start async-update atan2
batch-norm-grad batch-norm-inference batch-norm-training bitcast bitcast-convert broadcast call
cbrt ceil cholesky clamp clz collective-broadcast collective-permute collective-permute-done
collective-permute-start compare complex concatenate conditional constant convert convolution
copy copy-done copy-start cosine custom-call divide domain dot dynamic-reshape dynamic-slice
dynamic-update-slice erf exponential exponential-minus-one fft floor fusion gather
get-dimension-size get-tuple-element imag infeed iota is-finite log log-plus-one logistic map
maximum minimum multiply negate not optimization-barrier or outfeed pad parameter partition-id
popcnt power ragged-all-to-all ragged-dot real recv recv-done reduce reduce-precision
reduce-scatter reduce-window remainder replica-id reshape reverse rng rng-bit-generator
rng-get-and-update-state round-nearest-afz round-nearest-even rsqrt scatter select
select-and-scatter send send-done set-dimension-size shift-left shift-right-arithmetic
shift-right-logical sign sine slice sort sqrt stochastic-convert subtract tan tanh topk transpose
triangular-solve tuple while xor
""".split())

#: opcodes that are part of the text's structure, handled by the importer itself
_STRUCTURAL = {"parameter", "tuple", "get-tuple-element", "call", "fusion"}


class _Unsupported(Exception):
    """An op whose attributes the workbench cannot represent: it becomes opaque."""


_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan|infinity)$",
                     re.IGNORECASE)


def _ints(text: str) -> tuple[int, ...]:
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    return tuple(int(x) for x in body.split(",") if x.strip())


def _parse_literal(text: str, ins: HloInstruction, file: str):
    """The numbers of a constant literal such as ``0.5``, ``-inf``, ``{1, 2}``, ``{{1,2},{3,4}}``."""
    body = text.strip()
    if body.startswith("(") or "{" in body and ":" in body:
        raise ParseError(f"constant {ins.name!r}: unsupported literal form {body[:30]!r}",
                         file=file, line=ins.line, column=ins.column)
    tokens = [t for t in re.split(r"[\s,{}]+", body) if t]
    values = []
    for tok in tokens:
        low = tok.lower()
        if low in ("true", "false"):
            values.append(low == "true")
        elif _NUMBER.match(tok):
            if low.lstrip("+-") in ("inf", "infinity", "nan"):
                values.append(("-" if low.startswith("-") else "") + low.lstrip("+-")[:3])
            else:
                f = float(tok)
                values.append(int(f) if re.fullmatch(r"[-+]?\d+", tok) else f)
        else:
            raise ParseError(f"constant {ins.name!r}: {tok!r} is not a number", file=file,
                             line=ins.line, column=ins.column)
    if not values:
        raise ParseError(f"constant {ins.name!r} has no value", file=file, line=ins.line,
                         column=ins.column)
    return values[0] if len(values) == 1 else tuple(values)


def _window(text: str) -> dict:
    """``{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=..}`` as a dict of tuples."""
    body = text.strip().strip("{}")
    out = {}
    for item in body.split():
        key, _, value = item.partition("=")
        if key == "pad":
            out[key] = tuple(tuple(int(v) for v in p.split("_")) for p in value.split("x"))
        else:
            out[key] = tuple(int(v) for v in value.split("x"))
    return out


def _slice_attr(text: str):
    parts = re.findall(r"\[([^\]]*)\]", text)
    start, limit, strides = [], [], []
    for p in parts:
        nums = [int(v) for v in p.split(":")]
        start.append(nums[0])
        limit.append(nums[1])
        strides.append(nums[2] if len(nums) > 2 else 1)
    return dict(start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(strides))


def _padding_attr(text: str):
    triples = []
    for dim in text.strip().split("x"):
        nums = [int(v) for v in dim.split("_")]
        if len(nums) == 2:
            nums.append(0)
        triples.append(tuple(nums))
    return tuple(triples)


def _is_default_layout(layout, rank) -> bool:
    return layout is None or tuple(layout) == tuple(range(rank - 1, -1, -1))


class _Importer:
    def __init__(self, module: HloModule, stage: str | None):
        self.m = module
        self.file = module.file
        self.nodes: list[Node] = []
        self.types: dict[str, object] = {}
        self.layouts: dict[str, tuple | None] = {}
        self.stage = stage
        self._tuple_nodes = 0
        self.active: list[str] = []          # computations being inlined (recursion guard)

    # ----- helpers ---------------------------------------------------------------------------

    def error(self, cls, msg, ins: HloInstruction, attr: str | None = None):
        col = ins.attr_columns.get(attr, ins.column) if attr else ins.column
        return cls(msg, file=self.file, line=ins.line, column=col, node=ins.name)

    def fresh_id(self, name: str, site: str | None) -> str:
        if name not in self.types:
            return name
        base = f"{site}/{name}" if site else name
        cand, k = base, 1
        while cand in self.types:
            k += 1
            cand = f"{base}#{k}"
        return cand

    def add(self, node: Node, ins: HloInstruction) -> str:
        try:
            t = check_node(Graph(self.m.name, (), (), Attrs(source=self.file)), node, self.types)
        except GraphError as exc:
            raise type(exc)(exc.message, file=self.file, line=ins.line, column=ins.column,
                            node=ins.name) from None
        self.nodes.append(node)
        self.types[node.id] = t
        self.layouts[node.id] = ins.layout
        return node.id

    def materialize(self, ref, ins: HloInstruction, site) -> str:
        """A node id for a value ref (a tuple of refs becomes a ``tuple`` node)."""
        if isinstance(ref, str):
            return ref
        elems = [self.materialize(r, ins, site) for r in ref]
        self._tuple_nodes += 1
        nid = self.fresh_id(f"{ins.name}.tuple", site)
        t = TupleType(tuple(self.types[e] for e in elems))
        node = Node(nid, "tuple", tuple(elems), t, Attrs(), Attrs(line=ins.line))
        self.nodes.append(node)
        self.types[nid] = t
        self.layouts[nid] = None
        return nid

    # ----- reducers --------------------------------------------------------------------------

    def reducer(self, ins: HloInstruction) -> str:
        name = ins.attrs.get("to_apply", "").lstrip("%")
        comp = self.m.computations.get(name)
        if comp is None:
            raise self.error(ParseError, f"to_apply={name!r} names no computation", ins,
                             "to_apply")
        params = [i for i in comp.instructions if i.opcode == "parameter"]
        root = comp.root
        if (len(params) == 2 and len(comp.instructions) == 3 and root.opcode in REDUCERS
                and sorted(root.operands) == sorted(p.name for p in params)):
            return root.opcode
        raise _Unsupported(f"its to_apply computation {name!r} is not a single "
                           f"{'/'.join(REDUCERS)} of its two parameters")

    # ----- attributes ------------------------------------------------------------------------

    def attrs_for(self, ins: HloInstruction, op: str, operand_ids) -> dict:
        a = ins.attrs
        t = ins.type
        try:
            if op in ("broadcast",):
                return dict(shape=t.shape, dimensions=_ints(a.get("dimensions", "{}")))
            if op in ("reshape",):
                return dict(shape=t.shape)
            if op == "bitcast":
                out = dict(shape=t.shape)
                src = self.layouts.get(operand_ids[0])
                src_rank = self.types[operand_ids[0]].rank
                if not (_is_default_layout(src, src_rank) and _is_default_layout(
                        ins.layout, t.rank)):
                    out["operand_layout"] = src or tuple(range(src_rank - 1, -1, -1))
                    out["layout"] = ins.layout or tuple(range(t.rank - 1, -1, -1))
                return out
            if op in ("transpose", "reverse"):
                return dict(dimensions=_ints(a["dimensions"]))
            if op == "concatenate":
                dims = _ints(a["dimensions"])
                return dict(dimension=dims[0])
            if op == "slice":
                return _slice_attr(a["slice"])
            if op == "pad":
                return dict(padding=_padding_attr(a["padding"]))
            if op == "iota":
                return dict(shape=t.shape, dtype=t.dtype,
                            iota_dimension=int(a.get("iota_dimension", "0")))
            if op == "convert":
                return dict(dtype=t.dtype)
            if op == "compare":
                return dict(direction=a["direction"].strip())
            if op == "get-tuple-element":
                return dict(index=int(a["index"]))
            if op == "reduce":
                return dict(dimensions=_ints(a["dimensions"]), reducer=self.reducer(ins))
            if op == "reduce-window":
                w = _window(a["window"])
                rank = t.rank
                out = dict(window_size=w["size"], window_stride=w.get("stride", (1,) * rank),
                           window_padding=w.get("pad", ((0, 0),) * rank),
                           reducer=self.reducer(ins))
                if any(v != 1 for v in w.get("lhs_dilate", ())) or any(
                        v != 1 for v in w.get("rhs_dilate", ())):
                    raise _Unsupported("window dilation is not supported")
                return out
            if op == "dot":
                out = {}
                for key in ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                            "rhs_contracting_dims"):
                    if key in a:
                        out[key] = _ints(a[key])
                return out
            if op == "convolution":
                w = _window(a.get("window", "{}"))
                n = t.rank - 2
                if int(a.get("batch_group_count", "1")) != 1:
                    raise _Unsupported("batch_group_count > 1 is not supported")
                return dict(dim_labels=a["dim_labels"].strip(),
                            window_size=w.get("size", ()),
                            window_stride=w.get("stride", (1,) * n),
                            window_padding=w.get("pad", ((0, 0),) * n),
                            lhs_dilation=w.get("lhs_dilate", (1,) * n),
                            rhs_dilation=w.get("rhs_dilate", (1,) * n),
                            feature_group_count=int(a.get("feature_group_count", "1")))
            if op == "batch_norm_inference":
                return dict(epsilon=float(a["epsilon"]), feature_index=int(a["feature_index"]))
        except KeyError as exc:
            raise self.error(AttributeError_, f"{ins.opcode} needs the attribute "
                             f"{exc.args[0]}=", ins) from None
        except (ValueError, IndexError) as exc:
            raise self.error(ParseError, f"cannot read the attributes of {ins.opcode}: {exc}",
                             ins) from None
        return {}

    # ----- computations ----------------------------------------------------------------------

    def emit(self, comp: HloComputation, args, site: str | None, tags: dict):
        """Add the nodes of ``comp``; return the ref (node id or tuple of refs) of its root."""
        if comp.name in self.active:
            chain = " -> ".join(self.active + [comp.name])
            raise ParseError(f"computation {comp.name!r} calls itself ({chain}); recursion "
                             "cannot be inlined", file=self.file, line=comp.line, column=1)
        self.active.append(comp.name)
        env: dict[str, object] = {}
        for ins in comp.instructions:
            env[ins.name] = self.emit_instruction(ins, env, comp, args, site, tags)
        self.active.pop()
        return env[comp.root.name]

    def emit_instruction(self, ins: HloInstruction, env, comp, args, site, tags):
        op = ins.opcode
        for o in ins.operands:
            if o not in env:
                raise self.error(ParseError, f"operand {o!r} is not defined before use in "
                                 f"computation {comp.name!r}", ins)
        refs = [env[o] for o in ins.operands]
        meta = dict(tags, line=ins.line)
        if site is not None and ins.name != comp.root.name:
            meta["hlo_name"] = ins.name
        scope = _op_name(ins)
        if scope:
            meta["scope"] = scope
        if op == "parameter":
            try:
                index = int(ins.operand_text)
            except ValueError:
                raise self.error(ParseError, f"parameter index {ins.operand_text!r} is not a "
                                 "number", ins) from None
            if args is not None:
                if not 0 <= index < len(args):
                    raise self.error(ParseError, f"parameter({index}) of computation "
                                     f"{comp.name!r}: the call site passes {len(args)} operands",
                                     ins)
                return args[index]
            if not isinstance(ins.type, TensorType):
                raise self.error(ParseError, "tuple-typed entry parameters are not supported",
                                 ins)
            node = Node(ins.name, "parameter", (), ins.type, Attrs(index=index),
                        Attrs(line=ins.line))
            return self.add(node, ins)
        if op == "tuple":
            return tuple(refs)
        if op == "get-tuple-element":
            index = int(ins.attrs.get("index", "-1"))
            if isinstance(refs[0], tuple):
                if not 0 <= index < len(refs[0]):
                    raise self.error(ParseError, f"get-tuple-element index {index} out of range",
                                     ins, "index")
                return refs[0][index]
        if op in ("call", "fusion"):
            key = "to_apply" if op == "call" else "calls"
            callee = ins.attrs.get(key, "").lstrip("%")
            if callee not in self.m.computations:
                raise self.error(ParseError, f"{key}={callee!r} names no computation", ins, key)
            inner_tags = dict(tags)
            if op == "fusion" and "xla_fusion" not in tags:
                inner_tags["xla_fusion"] = ins.name
                inner_tags["xla_fusion_kind"] = ins.attrs.get("kind", "kLoop").strip()
            return self.emit(self.m.computations[callee], refs, ins.name, inner_tags)
        operand_ids = [self.materialize(r, ins, site) for r in refs]
        nid = self.fresh_id(ins.name, site)
        name = OPCODE_ALIASES.get(op, op)
        if name in REGISTRY and name not in _STRUCTURAL | {"opaque"} or op == "get-tuple-element":
            if name == "constant":
                attrs = dict(value=_parse_literal(ins.operand_text, ins, self.file))
                return self.add(Node(nid, "constant", (), ins.type, Attrs(attrs), Attrs(meta)),
                                ins)
            try:
                attrs = self.attrs_for(ins, name, operand_ids)
                return self.add(Node(nid, name, tuple(operand_ids), ins.type, Attrs(attrs),
                                     Attrs(meta)), ins)
            except _Unsupported as why:
                meta["opaque_reason"] = f"{op}: {why}"
        else:
            if op not in XLA_OPCODES:
                near = difflib.get_close_matches(op, sorted(XLA_OPCODES), n=2)
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                raise self.error(ParseError, f"unknown HLO opcode {op!r}{hint}", ins)
            meta["opaque_reason"] = f"the workbench has no op {op!r}"
        attrs = {"hlo_opcode": op}
        target = ins.attrs.get("custom_call_target")
        if target:
            attrs["custom_call_target"] = target.strip('"')[:100]
        return self.add(Node(nid, "opaque", tuple(operand_ids), ins.type, Attrs(attrs),
                             Attrs(meta)), ins)

    def run(self) -> Graph:
        entry = self.m.computations[self.m.entry]
        root = self.emit(entry, None, None, {})
        outputs = []

        def flat(r):
            if isinstance(r, str):
                outputs.append(r)
            else:
                for x in r:
                    flat(x)
        flat(root)
        meta = dict(source=self.file, format="hlo")
        if self.stage:
            meta["hlo_stage"] = self.stage
        if any("xla_fusion" in n.meta for n in self.nodes):
            meta["has_xla_fusions"] = True
        return Graph(self.m.name, tuple(self.nodes), tuple(outputs), Attrs(meta))


_OP_NAME = re.compile(r'op_name="([^"]*)"')


def _op_name(ins: HloInstruction) -> str | None:
    """The name scope of an instruction (``metadata={op_name="jit(f)/dot_general"}``)."""
    md = ins.attrs.get("metadata")
    if not md:
        return None
    m = _OP_NAME.search(md)
    return m.group(1)[:200] if m else None


def hlo_to_graph(module: HloModule) -> Graph:
    """Turn a parsed module into a graph (calls inlined, fusions flattened and tagged).

    Raises
    ------
    ParseError, GraphError
        With file, line and node.
    """
    stage = None
    if re.search(r"\.after(_noynn)?\.hlo$", module.file):
        stage = "after"
    elif module.file.endswith(".before.hlo"):
        stage = "before"
    return _Importer(module, stage).run()


def parse_hlo(text: str, file: str = "<hlo>") -> Graph:
    """Parse HLO module text into a verified graph.

    Parameters
    ----------
    text : str
        HLO text as XLA prints it (before or after optimisation).
    file : str
        The file name used in error messages and recorded as ``graph.meta['source']``.

    Raises
    ------
    ParseError
        For syntax errors (file, line, column).
    GraphError
        For well-formed text that is not a valid graph (shapes, arity), naming the node.
    """
    from workbench.ir.verify import verify

    return verify(hlo_to_graph(parse_hlo_module(text, file)))
