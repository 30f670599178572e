"""The fused module as HLO text: each multi-op group a ``fusion`` instruction calling a fused
computation, as XLA prints an optimised module.

:func:`export_hlo` writes the graph's ops with their HLO opcodes and attributes (shapes in the
default layout; a bitcast that reinterprets a layout keeps its layouts), the reducers of
``reduce`` and ``reduce-window`` as small ``to_apply`` computations, and every group of two or
more ops of the plan as ``fusion(...), kind=kLoop|kInput|kOutput, calls=%fused_<group>``: its
members inside the fused computation, the values it reads from outside as the computation's
parameters, the values it writes as its root (a ``tuple`` for a multi-output fusion, read
outside through ``get-tuple-element``). One-op groups stay plain instructions of the entry
computation. Parameters and constants stay in the entry computation and are passed to the
fusions that read them, so the module names every node once; a duplicated producer is printed
in each fusion that computes it, its extra copies named ``<name>.clone.<k>`` (XLA's convention
for a cloned instruction).

A graph with composites (``softmax``, ``matmul``, ``layer_norm`` ... of the JSON samples) is
written expanded into HLO ops, each group holding its composites' expansions
(:func:`lift_plan`). Re-importing the text (:func:`workbench.importers.parse_hlo`, which flattens fusions and tags
each node with its fusion) gives back the graph and the plan: :func:`round_trip` checks it and
returns the agreement of the re-imported fusions with the plan, pairs of ops counted
(:mod:`workbench.planner.compare`'s measure), which is 1.000 for every plan of every module in
../shared/hlo (tests/exporters/test_hlo_export.py).

Names: a node id that is not an HLO identifier (``[A-Za-z_][\\w.-]*``: ids made by inlining a
call, ``site/name``) is written with its other characters as ``_`` and a suffix that keeps it
unique; :class:`HloExport` carries the map from written names back to node ids. Values of
constants are written as numbers, never as text from the input file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.errors import PlanError
from workbench.ir.graph import Graph
from workbench.ir.types import TensorType, TupleType
from workbench.planner.plan import Plan

_IDENT = re.compile(r"[A-Za-z_][\w.\-]*")
#: fusion kinds as the text names them (xla/hlo/ir/hlo_instruction.h, ``FusionKind``)
KIND_TEXT = {"loop": "kLoop", "input": "kInput", "output": "kOutput",
             "multi-output": "kLoop", "opaque": "kLoop"}
#: workbench op -> HLO opcode, where they differ
OPCODES = {"batch_norm_inference": "batch-norm-inference"}


@dataclass(frozen=True)
class HloExport:
    """An exported module.

    Attributes
    ----------
    text : str
        The HLO module.
    names : dict of str to str
        Written instruction name -> the node id it is (clones of a duplicated producer map to
        the producer).
    fusions : dict of str to str
        Fusion instruction name -> the plan's group id.
    graph, plan : Graph, Plan
        What was written: the input, or, for a graph with composites, its expansion into HLO
        ops with the plan lifted onto it (each group also holds its composites' expansions).
    """

    text: str
    names: dict
    fusions: dict
    graph: Graph
    plan: Plan


def _type_text(t, layout=None) -> str:
    if isinstance(t, TupleType):
        return "(" + ", ".join(_type_text(e) for e in t.elements) + ")"
    dims = ",".join(str(d) for d in t.shape)
    if layout is None:
        layout = tuple(range(len(t.shape) - 1, -1, -1))
    lay = "{" + ",".join(str(d) for d in layout) + "}" if t.shape else ""
    return f"{t.dtype}[{dims}]{lay}"


def _ints(v) -> str:
    return "{" + ",".join(str(int(x)) for x in v) + "}"


def _number(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):          # the importer keeps inf, -inf and nan as words
        if v not in ("inf", "-inf", "nan"):
            raise PlanError(f"constant value {v!r} is not a number")
        return v
    if isinstance(v, int):
        return str(v)
    return repr(float(v))


def _literal(node) -> str:
    v = node.attrs.get("value")
    if isinstance(v, (tuple, list)):
        return "{" + ", ".join(_number(x) for x in v) + "}"
    return _number(v)


def _window(size, stride, pad, lhs=None, rhs=None) -> str:
    if not size:
        return ""
    parts = [f"size={'x'.join(str(s) for s in size)}"]
    if any(s != 1 for s in stride):
        parts.append(f"stride={'x'.join(str(s) for s in stride)}")
    if any(p != (0, 0) for p in map(tuple, pad)):
        parts.append("pad=" + "x".join(f"{lo}_{hi}" for lo, hi in pad))
    if lhs and any(d != 1 for d in lhs):
        parts.append(f"lhs_dilate={'x'.join(str(d) for d in lhs)}")
    if rhs and any(d != 1 for d in rhs):
        parts.append(f"rhs_dilate={'x'.join(str(d) for d in rhs)}")
    return "window={" + " ".join(parts) + "}"


def _attrs(node, reducer_name) -> list[str]:
    """The HLO attributes of ``node`` (the inverse of the importer's ``attrs_for``)."""
    a, op = node.attrs, node.op
    if op == "broadcast" or op in ("transpose", "reverse"):
        return [f"dimensions={_ints(a['dimensions'])}"]
    if op == "concatenate":
        return [f"dimensions={{{int(a['dimension'])}}}"]
    if op == "slice":
        return ["slice={" + ", ".join(f"[{s}:{e}:{k}]" for s, e, k in zip(
            a["start_indices"], a["limit_indices"], a["strides"])) + "}"]
    if op == "pad":
        return ["padding=" + "x".join("_".join(str(int(v)) for v in p) for p in a["padding"])]
    if op == "iota":
        return [f"iota_dimension={int(a['iota_dimension'])}"]
    if op == "compare":
        return [f"direction={a['direction']}"]
    if op == "get-tuple-element":
        return [f"index={int(a['index'])}"]
    if op == "reduce":
        return [f"dimensions={_ints(a['dimensions'])}", f"to_apply=%{reducer_name}"]
    if op == "reduce-window":
        return [_window(a["window_size"], a["window_stride"], a["window_padding"]),
                f"to_apply=%{reducer_name}"]
    if op == "dot":
        return [f"{k}={_ints(a[k])}" for k in ("lhs_batch_dims", "lhs_contracting_dims",
                                                "rhs_batch_dims", "rhs_contracting_dims")
                if k in a]
    if op == "convolution":
        out = [_window(a["window_size"], a["window_stride"], a["window_padding"],
                       a.get("lhs_dilation"), a.get("rhs_dilation")),
               f"dim_labels={a['dim_labels']}"]
        if int(a.get("feature_group_count", 1)) != 1:
            out.append(f"feature_group_count={int(a['feature_group_count'])}")
        return [x for x in out if x]
    if op == "batch_norm_inference":
        return [f"epsilon={float(a['epsilon'])!r}", f"feature_index={int(a['feature_index'])}"]
    if op == "opaque" and a.get("custom_call_target"):
        return [f'custom_call_target="{_safe_target(a["custom_call_target"])}"']
    return []


def _safe_target(text: str) -> str:
    return re.sub(r"[^\w.\-]", "_", str(text))


class _Names:
    """Unique HLO identifiers for node ids and the instructions the exporter adds."""

    def __init__(self, graph: Graph):
        self.used: set[str] = set()
        self.of: dict[str, str] = {}
        self.back: dict[str, str] = {}
        for n in graph.nodes:           # valid ids first, so they keep their names
            if _IDENT.fullmatch(n.id):
                self._take(n.id, n.id)
        for n in graph.nodes:
            if n.id not in self.of:
                self._take(self.fresh(re.sub(r"[^\w.\-]", "_", n.id).lstrip(".-") or "v"),
                           n.id)

    def _take(self, name: str, node: str | None) -> str:
        self.used.add(name)
        if node is not None:
            self.of.setdefault(node, name)
            self.back[name] = node
        return name

    def fresh(self, base: str, node: str | None = None) -> str:
        if not base[0].isalpha() and base[0] != "_":
            base = "v" + base
        name, k = base, 1
        while name in self.used:
            k += 1
            name = f"{base}.{k}"
        return self._take(name, node)


def lift_plan(graph: Graph, plan: Plan) -> tuple[Graph, Plan]:
    """The graph with its composites (``softmax``, ``matmul`` ...) expanded into primitive ops
    (:func:`workbench.ir.expand.expand_composites`), and the plan on it: each group holds its
    members and the ops its composites expanded into (the expansion's result keeps the
    composite's id; the others carry ``meta['expanded_from']``). ``(graph, plan)`` itself when
    there is no composite."""
    from workbench.ir.expand import expand_composites
    from workbench.planner.plan import make_plan

    xgraph = expand_composites(graph)
    if xgraph is graph:
        return graph, plan
    inner: dict[str, list[str]] = {}
    for n in xgraph.nodes:
        src = n.meta.get("expanded_from")
        if src is not None:
            inner.setdefault(src, []).append(n.id)
    sets = [set(g.nodes) | {x for m in g.nodes for x in inner.get(m, ())} for g in plan.groups]
    return xgraph, make_plan(xgraph, sets, policy=plan.policy, device=plan.device,
                             patterns={frozenset(s): g.pattern
                                       for s, g in zip(sets, plan.groups) if g.pattern})


def export_hlo(graph: Graph, plan: Plan) -> HloExport:
    """The module with the plan's fusions (see the module notes).

    Parameters
    ----------
    graph : Graph
        A graph of HLO ops (composites such as ``softmax`` or ``matmul`` have no HLO opcode).
    plan : Plan
        A plan of ``graph``.

    Returns
    -------
    HloExport

    Raises
    ------
    PlanError
        If the plan is for another graph.
    """
    if plan.graph_fingerprint != graph.fingerprint:
        raise PlanError(f"the plan is for graph {plan.graph_name!r}, not {graph.name!r}")
    graph, plan = lift_plan(graph, plan)
    return _Writer(graph, plan).run()


class _Writer:
    def __init__(self, graph: Graph, plan: Plan):
        self.g, self.plan = graph, plan
        self.names = _Names(graph)
        self.reducers: dict[tuple, str] = {}
        self.layouts = self._layouts()
        self.blocks: list[str] = []
        self.fusions: dict[str, str] = {}

    def _layouts(self) -> dict:
        out = {}
        for n in self.g.nodes:
            if n.op == "bitcast" and "layout" in n.attrs:
                out[n.id] = tuple(n.attrs["layout"])
                out.setdefault(n.operands[0], tuple(n.attrs["operand_layout"]))
        return out

    def reducer(self, node) -> str:
        red = node.attrs["reducer"]
        dtype = self.g.node(node.operands[-1]).type.dtype
        key = (red, dtype)
        if key not in self.reducers:
            name = self.names.fresh(f"reducer_{red}_{dtype}")
            t = f"{dtype}[]"
            self.reducers[key] = name
            self.blocks.append(f"%{name} (x: {t}, y: {t}) -> {t} {{\n  %x = {t} parameter(0)\n"
                               f"  %y = {t} parameter(1)\n  ROOT %r = {t} {red}(%x, %y)\n}}\n")
        return self.reducers[key]

    def instruction(self, node, name: str, operands, root: bool = False) -> str:
        opcode = node.attrs["hlo_opcode"] if node.op == "opaque" else OPCODES.get(node.op,
                                                                                  node.op)
        red = self.reducer(node) if node.op in ("reduce", "reduce-window") else None
        body = (_literal(node) if node.op == "constant" else
                str(int(node.attrs["index"])) if node.op == "parameter" else
                ", ".join(f"%{o}" for o in operands))
        attrs = "".join(f", {x}" for x in _attrs(node, red))
        return (f"  {'ROOT ' if root else ''}%{name} = "
                f"{_type_text(node.type, self.layouts.get(node.id))} {opcode}({body}){attrs}")

    def run(self) -> HloExport:
        g, plan = self.g, self.plan
        home = {}
        for grp in plan.groups:
            for o in grp.outputs:
                home.setdefault(o, grp.id)
        for grp in plan.groups:
            for n in grp.nodes:
                home.setdefault(n, grp.id)
        value = {}          # node id -> the entry-computation name that carries it
        entry: list[str] = []
        for p in g.parameters:
            value[p.id] = self.names.of[p.id]
            entry.append(self.instruction(p, value[p.id], ()))
        for n in g.nodes:
            if n.op == "constant":
                value[n.id] = self.names.of[n.id]
                entry.append(self.instruction(n, value[n.id], ()))
        for grp in plan.groups:
            if grp.size == 1:
                n = g.node(grp.nodes[0])
                value[n.id] = self.names.of[n.id]
                entry.append(self.instruction(n, value[n.id],
                                              [value[o] for o in n.operands]))
            else:
                entry += self.fusion(grp, home, value)
        outs = [value[o] for o in g.outputs]
        root_name = self.names.fresh("tuple.result")
        types = ", ".join(_type_text(g.node(o).type) for o in g.outputs)
        entry.append(f"  ROOT %{root_name} = ({types}) tuple("
                     + ", ".join(f"%{v}" for v in outs) + ")")
        params = ", ".join(f"{self.names.of[p.id]}: {_type_text(p.type)}"
                           for p in g.parameters)
        mod = self.names.fresh(re.sub(r"[^\w.\-]", "_", g.name) or "module")
        text = (f"HloModule {mod}\n\n" + "\n".join(self.blocks)
                + f"\nENTRY %main ({params}) -> ({types}) {{\n" + "\n".join(entry) + "\n}\n")
        return HloExport(text, dict(self.names.back), dict(self.fusions), g, plan)

    def fusion(self, grp, home, value) -> list[str]:
        g = self.g
        members = set(grp.nodes)
        params: list[str] = []
        local: dict[str, str] = {}
        body: list[str] = []
        comp = self.names.fresh(f"fused_{grp.id}")
        for k, nid in enumerate(grp.nodes):
            node = g.node(nid)
            for o in node.operands:
                if o not in members and o not in local:
                    local[o] = self.names.fresh(f"param_{len(params)}.{grp.id}")
                    params.append(o)
                    body.append(f"  %{local[o]} = {_type_text(g.node(o).type)} "
                                f"parameter({len(params) - 1})")
            name = (self.names.of[nid] if home[nid] == grp.id
                    else self.names.fresh(f"{self.names.of[nid]}.clone", nid))
            local[nid] = name
            single = len(grp.outputs) == 1 and nid == grp.outputs[0]
            body.append(self.instruction(node, name, [local[o] for o in node.operands],
                                         root=single))
        fname = self.names.fresh(f"fusion.{grp.id}")
        self.fusions[fname] = grp.id
        if len(grp.outputs) == 1:
            rtype = _type_text(g.node(grp.outputs[0]).type)
            value[grp.outputs[0]] = fname
        else:
            rtype = "(" + ", ".join(_type_text(g.node(o).type) for o in grp.outputs) + ")"
            tup = self.names.fresh(f"tuple.{grp.id}")
            body.append(f"  ROOT %{tup} = {rtype} tuple("
                        + ", ".join(f"%{local[o]}" for o in grp.outputs) + ")")
        sig = ", ".join(f"{local[o]}: {_type_text(g.node(o).type)}" for o in params)
        self.blocks.append(f"%{comp} ({sig}) -> {rtype} {{\n" + "\n".join(body) + "\n}\n")
        args = ", ".join(f"%{value[o]}" for o in params)
        lines = [f"  %{fname} = {rtype} fusion({args}), kind={KIND_TEXT[grp.kind]}, "
                 f"calls=%{comp}"]
        if len(grp.outputs) > 1:
            for i, o in enumerate(grp.outputs):
                gte = self.names.fresh(f"{self.names.of[o]}.gte")
                value[o] = gte
                lines.append(f"  %{gte} = {_type_text(g.node(o).type)} "
                             f"get-tuple-element(%{fname}), index={i}")
        return lines


@dataclass(frozen=True)
class RoundTrip:
    """What re-importing an export gave back.

    Attributes
    ----------
    same_graph : bool
        Every node came back with its op, type, attributes and operands.
    same_groups : bool
        The re-imported fusions hold exactly the plan's groups.
    agreement : Agreement
        The re-imported fusions against the plan, as ``compare-xla`` counts pairs of ops.
    problems : tuple of str
        What differed (empty when both are true).
    """

    same_graph: bool
    same_groups: bool
    agreement: object
    problems: tuple = ()

    @property
    def ok(self) -> bool:
        return self.same_graph and self.same_groups and self.agreement.f1 == 1.0

    def to_json(self) -> dict:
        return {"ok": self.ok, "same_graph": self.same_graph, "same_groups": self.same_groups,
                "agreement": self.agreement.to_json(), "problems": list(self.problems)}


def round_trip(graph: Graph, plan: Plan, export: HloExport | None = None) -> RoundTrip:
    """Re-import ``export`` (default: :func:`export_hlo` of the plan) and compare.

    The re-imported graph's nodes are mapped back to ``graph``'s through the export's names
    (a clone of a duplicated producer to the producer); the fusions' member sets (one-op
    groups for the plain instructions) are compared with the plan's, and the pairs of ops that
    share a kernel are counted as :func:`~workbench.planner.compare.compare_with_xla` counts
    them: precision, recall and F1 of the re-imported pairs against the plan's.

    Raises
    ------
    ParseError, GraphError
        If the exported text does not import (a bug of the exporter).
    """
    from workbench.importers.hlo import parse_hlo
    from workbench.planner.compare import Agreement, fused_pairs

    export = export or export_hlo(graph, plan)
    graph, plan = lift_plan(graph, plan)
    back = parse_hlo(export.text, f"<export of {graph.name}>")
    to_orig = {}
    for n in back.nodes:
        written = n.id.rsplit("/", 1)[-1] if n.id not in export.names else n.id
        to_orig[n.id] = export.names.get(written, export.names.get(n.meta.get("hlo_name", ""),
                                                                  n.id))
    problems = _graph_problems(graph, back, to_orig)
    groups: dict[str, set] = {}
    for n in back.nodes:
        if n.op in ("parameter", "constant"):
            continue
        tag = n.meta.get("xla_fusion")
        groups.setdefault(tag if tag is not None else f"single:{n.id}", set()).add(to_orig[n.id])
    got = {frozenset(s) for s in groups.values()}
    want = {frozenset(grp.nodes) for grp in plan.groups}
    if got != want:
        problems.append(f"{len(got ^ want)} groups differ between the plan and the re-import")
    ours, theirs = fused_pairs(graph, want), fused_pairs(graph, got)
    both = len(ours & theirs)
    p = both / len(theirs) if theirs else 1.0
    r = both / len(ours) if ours else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    agreement = Agreement(p, r, f1, tuple(sorted(theirs - ours)), tuple(sorted(ours - theirs)),
                          len(theirs), len(ours))
    return RoundTrip(not any("node" in x for x in problems), got == want, agreement,
                     tuple(problems))


def _number_value(v):
    import math

    if isinstance(v, (tuple, list)):
        return tuple(_number_value(x) for x in v)
    f = float(v)
    return "nan" if math.isnan(f) else f


def _same_attrs(a, b) -> bool:
    """Attributes equal; a constant's values compared as numbers (the importer keeps -inf as
    the word, a JSON graph as a float)."""
    if a.op == "constant":
        return _number_value(a.attrs["value"]) == _number_value(b.attrs["value"])
    return _with_defaults(a) == _with_defaults(b)


def _with_defaults(node) -> dict:
    """Attributes with the defaults HLO text leaves out (a convolution's dilations of 1)."""
    d = dict(node.attrs)
    if node.op == "convolution":
        n = len(d.get("window_size", ()))
        d.setdefault("lhs_dilation", (1,) * n)
        d.setdefault("rhs_dilation", (1,) * n)
    return d


def _graph_problems(graph: Graph, back: Graph, to_orig: dict) -> list[str]:
    problems = []
    seen = set()
    for n in back.nodes:
        orig_id = to_orig[n.id]
        if orig_id not in graph:
            problems.append(f"node {n.id} of the re-import is not in the graph")
            continue
        o = graph.node(orig_id)
        seen.add(orig_id)
        ops = tuple(to_orig[x] for x in n.operands)
        if (n.op, n.type, ops) != (o.op, o.type, o.operands) or not _same_attrs(n, o):
            problems.append(f"node {orig_id} came back as {n.op} {n.type} of {ops}")
    missing = [n.id for n in graph.nodes if n.id not in seen]
    if missing:
        problems.append(f"{len(missing)} nodes are missing from the re-import "
                        f"(first: {missing[0]})")
    if tuple(to_orig[x] for x in back.outputs) != tuple(graph.outputs):
        problems.append("the graph outputs differ")
    return problems
