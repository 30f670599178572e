"""Import HLO text as a :class:`~workbench.ir.Graph`.

Before optimisation, ``call(..., to_apply=f)`` is inlined. After optimisation, each
``fusion(..., kind=kLoop, calls=f)`` is flattened into the graph: the fusion computation's
instructions become nodes of the graph, and every such node is tagged with the fusion it came
from (``meta['xla_fusion']``, ``meta['xla_fusion_kind']``), so that XLA's own grouping is
available as a reference plan over the same nodes. Tuples and get-tuple-element on them are
resolved away; so are the identity wrappers (``optimization-barrier``, ``add-dependency``,
``domain``) and async wrappers (``async-start`` / ``async-update`` / ``async-done`` around a
computation, which is inlined; ``copy-start`` / ``copy-done``).

Computations that an op *calls* rather than inlines become nested graphs held as the op's
attributes: a ``while``'s ``condition`` and ``body`` (the loop's tuple state flattened into
separate values), a ``conditional``'s branches, a ``sort``'s comparator, a ``scatter``'s
combiner, ``select-and-scatter``'s select and scatter functions, a general ``reduce`` or
``reduce-window`` reducer (one that is a single binary op of its parameters is recorded as
``reducer=`` instead), a ``map``'s function. XLA:CPU's ``custom-call`` to ``"TopK"`` becomes
the ``topk`` op. Ops the registry does not know (collectives, ``rng``, other custom-calls,
``fft``, ...) and constants whose value the dump elides (``constant({...})``) become ``opaque``
nodes with their declared type, ``hlo_opcode=`` and the reason in ``meta['opaque_reason']``.

Node ids are the HLO instruction names. An instruction inlined from a computation whose name is
already taken is renamed ``<call site>/<name>``; the node that produces an inlined call's or a
fusion's value keeps its own name, and the call or fusion instruction's users read it directly.
"""

from __future__ import annotations

import difflib
import re

from workbench.errors import GraphError, ParseError
from workbench.importers import limits
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.ops import REGISTRY
from workbench.ir.types import TensorType, TupleType
from workbench.ir.verify import check_node, verify
from workbench.importers.hlo_attrs import Unsupported, computation_names, op_attrs, to_int
from workbench.importers.hlo_literal import parse_literal
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
_STRUCTURAL = {"parameter", "tuple", "get-tuple-element", "call", "fusion", "while",
               "conditional"}

#: ops that return their (first) operand unchanged
_IDENTITY = {"optimization-barrier", "add-dependency", "domain", "async-update"}

#: attributes naming the computations an op calls, by opcode
_CALLS = {"call": "to_apply", "fusion": "calls", "async-start": "calls"}

_TRIP_COUNT = re.compile(r'"known_trip_count"\s*:\s*\{\s*"n"\s*:\s*"(\d+)"')


class _Inline:
    """What :meth:`_Importer.emit_instruction` returns for a call to inline: the callee, its
    arguments, and what to make of the callee's result (the emit loop runs it, no recursion)."""

    __slots__ = ("comp", "args", "site", "tags", "finish")

    def __init__(self, comp, args, site, tags, finish):
        self.comp, self.args, self.site, self.tags, self.finish = comp, args, site, tags, finish


class _Frame:
    """A computation being emitted: its instructions, where it is, its values so far."""

    __slots__ = ("comp", "args", "site", "tags", "env", "i", "pending")

    def __init__(self, comp, args, site, tags):
        self.comp, self.args, self.site, self.tags = comp, args, site, tags
        self.env: dict[str, object] = {}
        self.i = 0
        self.pending = None   # (instruction, finish) waiting for a callee's result


class _Importer:
    def __init__(self, module: HloModule, stage: str | None, cache: dict | None = None,
                 active: list | None = None, depth: int = 0, count: list | None = None):
        self.m = module
        self.file = module.file
        self.nodes: list[Node] = []
        self.types: dict[str, object] = {}
        self.layouts: dict[str, tuple | None] = {}
        self.stage = stage
        self.active: list[str] = list(active or [])   # computations being emitted (recursion)
        self.cache: dict[str, Graph] = {} if cache is None else cache   # nested graphs by name
        self.depth = depth                            # of nested graphs (a while's body: 1)
        self.count = [0] if count is None else count  # nodes made, nested graphs included
        self.limits = limits.current()
        self._tuples: dict[int, tuple] = {}           # id(tuple ref) -> (ref, nesting depth)
        self._where = Graph(module.name, (), (), Attrs(source=self.file))  # for check_node

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

    def counted(self, line: int | None, node: str | None = None) -> None:
        """Count one more node, refusing past ``max_instructions`` (inlined calls multiply
        instructions: a computation called twice from each of 30 levels is 2^30 nodes)."""
        self.count[0] += 1
        if self.count[0] > self.limits.max_instructions:
            raise limits.exceeded("max_instructions", self.count[0],
                                  self.limits.max_instructions, "the number of nodes (calls "
                                  "inlined, nested computations included)", file=self.file,
                                  line=line, node=node)

    def add(self, node: Node, ins: HloInstruction | None, line: int | None = None) -> str:
        self.counted(ins.line if ins else line, node.id)
        try:
            t = check_node(self._where, node, self.types)
        except GraphError as exc:
            where = dict(line=ins.line, column=ins.column, node=ins.name) if ins else dict(
                line=line, node=node.id)
            raise type(exc)(exc.message, file=self.file, **where) from None
        self.nodes.append(node)
        self.types[node.id] = t
        self.layouts[node.id] = ins.layout if ins is not None else None
        return node.id

    def materialize(self, ref, ins: HloInstruction, site) -> str:
        """A node id for a value ref (a tuple of refs becomes a ``tuple`` node)."""
        if isinstance(ref, str):
            return ref
        elems = [self.materialize(r, ins, site) for r in ref]
        self.counted(ins.line, ins.name)
        nid = self.fresh_id(f"{ins.name}.tuple", site)
        t = TupleType(tuple(self.types[e] for e in elems))
        node = Node(nid, "tuple", tuple(elems), t, Attrs(), Attrs(line=ins.line))
        self.nodes.append(node)
        self.types[nid] = t
        self.layouts[nid] = None
        return nid

    def leaves(self, ref, line: int, name: str) -> list[str]:
        """The tensor values of a ref, in order: tuples flattened, a tuple-typed node read
        element by element (``get-tuple-element`` nodes)."""
        if isinstance(ref, tuple):
            return [x for r in ref for x in self.leaves(r, line, name)]
        t = self.types[ref]
        if isinstance(t, TensorType):
            return [ref]
        out = []
        for i in range(len(t.elements)):
            gid = self.fresh_id(f"{ref}.{i}", None)
            self.add(Node(gid, "get-tuple-element", (ref,), t.elements[i], Attrs(index=i),
                          Attrs(line=line)), None, line)
            out.extend(self.leaves(gid, line, name))
        return out

    # ----- nested computations ---------------------------------------------------------------

    def computation(self, ins: HloInstruction, key: str) -> Graph:
        """The computation named by attribute ``key`` of ``ins``, as a verified nested graph."""
        names = computation_names(ins.attrs.get(key, ""))
        if len(names) != 1 or names[0] not in self.m.computations:
            raise self.error(ParseError, f"{key}={ins.attrs.get(key, '')!r} names no "
                             "computation", ins, key)
        return self.subgraph(names[0], ins)

    def subgraph(self, name: str, ins: HloInstruction) -> Graph:
        if name in self.cache:
            return self.cache[name]
        comp = self.m.computations[name]
        if name in self.active:
            chain = " -> ".join(self.active + [name])
            raise ParseError(f"computation {name!r} calls itself ({chain})", file=self.file,
                             line=comp.line, column=1)
        if self.depth + 1 > self.limits.max_nesting:
            raise limits.exceeded("max_nesting", self.depth + 1, self.limits.max_nesting,
                                  "the nesting of computations kept as graphs (a while's body "
                                  "within a while's body...)", file=self.file, line=ins.line,
                                  node=ins.name)
        sub = _Importer(self.m, None, self.cache, self.active, self.depth + 1, self.count)
        params = sorted((i for i in comp.instructions if i.opcode == "parameter"),
                        key=lambda i: _param_index(i, self))
        args, k = [], 0
        for p in params:
            ref, k = sub.parameter_ref(p, p.type, p.name, k)
            args.append(ref)
        root = sub.emit(comp, args, None, {})
        outputs = sub.leaves(root, comp.root.line, name)
        g = Graph(name, tuple(sub.nodes), tuple(outputs),
                  Attrs(source=self.file, format="hlo", computation=True))
        try:
            verify(g, nodes_checked=True)
        except GraphError as exc:
            raise type(exc)(f"in computation {name!r}: {exc.message}", file=self.file,
                            line=exc.line, node=exc.node) from None
        self.cache[name] = g
        return g

    def parameter_ref(self, ins: HloInstruction, t, name: str, k: int):
        """Parameter nodes for the tensors of a (possibly tuple) parameter; its ref."""
        if isinstance(t, TupleType):
            refs = []
            for i, e in enumerate(t.elements):
                r, k = self.parameter_ref(ins, e, f"{name}.{i}", k)
                refs.append(r)
            return tuple(refs), k
        nid = self.fresh_id(name, None)
        self.add(Node(nid, "parameter", (), t, Attrs(index=k), Attrs(line=ins.line)), ins)
        return nid, k + 1

    # ----- computations ----------------------------------------------------------------------

    def emit(self, comp: HloComputation, args, site: str | None, tags: dict):
        """Add the nodes of ``comp``; return the ref (node id or tuple of refs) of its root.

        Calls are inlined with a stack of frames, not by recursion: 2,000 nested ``call``
        computations are 2,000 frames of a list.
        """
        base = len(self.active)
        self.enter(comp, None)
        stack, result = [_Frame(comp, args, site, tags)], None
        while stack:
            f = stack[-1]
            if f.pending is not None:           # a callee has just returned ``result``
                ins, finish = f.pending
                f.pending = None
                f.env[ins.name] = finish(result)
            if f.i == len(f.comp.instructions):
                result = f.env[f.comp.root.name]
                stack.pop()
                self.active.pop()
                continue
            ins = f.comp.instructions[f.i]
            f.i += 1
            value = self.emit_instruction(ins, f.env, f.comp, f.args, f.site, f.tags)
            if isinstance(value, _Inline):
                self.enter(value.comp, ins)
                f.pending = (ins, value.finish)
                stack.append(_Frame(value.comp, value.args, value.site, value.tags))
            else:
                f.env[ins.name] = value
        del self.active[base:]
        return result

    def enter(self, comp: HloComputation, ins: HloInstruction | None) -> None:
        """Mark ``comp`` as being emitted; a computation that calls itself is an error."""
        if comp.name in self.active:
            chain = " -> ".join(self.active + [comp.name])
            raise ParseError(f"computation {comp.name!r} calls itself ({chain}); recursion "
                             "cannot be inlined", file=self.file, line=comp.line, column=1)
        self.active.append(comp.name)

    def emit_instruction(self, ins: HloInstruction, env, comp, args, site, tags):
        op = ins.opcode
        for o in ins.operands:
            if o not in env:
                raise self.error(ParseError, f"operand {o!r} is not defined before use in "
                                 f"computation {comp.name!r}", ins)
        refs = [env[o] for o in ins.operands]
        for o, ref, written in zip(ins.operands, refs, ins.operand_types):
            if written is not None and isinstance(ref, str) and self.types[ref] != written:
                raise self.error(ParseError, f"operand {o!r} is written as {written} here, but "
                                 f"its instruction makes {self.types[ref]}", ins)
        meta = dict(tags, line=ins.line)
        if site is not None and ins.name != comp.root.name:
            meta["hlo_name"] = ins.name
        scope = _op_name(ins)
        if scope:
            meta["scope"] = scope
        if op == "parameter":
            return self.parameter(ins, comp, args)
        if op == "tuple":
            return self.make_tuple(refs, ins)
        if op in _IDENTITY:
            return refs[0]
        if op == "async-done":
            return self.tuple_element(refs[0], 1, ins)
        if op == "copy-start":
            return self.make_tuple((refs[0], refs[0]), ins)
        if op == "copy-done":
            return self.tuple_element(refs[0], 0, ins)
        if op == "get-tuple-element":
            index = self.int_attr(ins, "index", "-1")
            if isinstance(refs[0], tuple):
                return self.tuple_element(refs[0], index, ins)
        if op in _CALLS:
            return self.inline(ins, refs, op, site, tags)
        if op == "get-dimension-size":
            dim = self.int_attr(ins, "dimensions", "{0}")
            t = self.types[self.materialize(refs[0], ins, site)]
            if not isinstance(t, TensorType) or not 0 <= dim < t.rank:
                raise self.error(ParseError, f"get-dimension-size: dimension {dim} of {t} does "
                                 "not exist", ins, "dimensions")
            value = t.shape[dim]
            return self.add(Node(self.fresh_id(ins.name, site), "constant", (), ins.type,
                                 Attrs(value=value), Attrs(meta)), ins)
        if op in ("while", "conditional"):
            try:
                return self.control(ins, op, refs, meta, site)
            except Unsupported as why:
                meta["opaque_reason"] = f"{op}: {why}"
                return self.opaque(ins, op, [self.materialize(r, ins, site) for r in refs],
                                   meta, site)
        operand_ids = [self.materialize(r, ins, site) for r in refs]
        nid = self.fresh_id(ins.name, site)
        name = OPCODE_ALIASES.get(op, op)
        if op == "custom-call" and ins.attrs.get("custom_call_target", "").strip('"') == "TopK":
            name = "topk"
        if name in REGISTRY and name not in _STRUCTURAL | {"opaque"} or op == "get-tuple-element":
            try:
                if name == "constant":
                    attrs = dict(value=parse_literal(ins.operand_text, ins, self.file))
                elif name == "topk" and op == "custom-call":
                    attrs = self.topk_attrs(ins)
                else:
                    attrs = op_attrs(self, ins, name, operand_ids)
                return self.add(Node(nid, name, tuple(operand_ids), ins.type, Attrs(attrs),
                                     Attrs(meta)), ins)
            except Unsupported as why:
                meta["opaque_reason"] = f"{op}: {why}"
        else:
            if op not in XLA_OPCODES:
                near = difflib.get_close_matches(op, sorted(XLA_OPCODES), n=2)
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                raise self.error(ParseError, f"unknown HLO opcode {op!r}{hint}", ins)
            target = ins.attrs.get("custom_call_target", "").strip('"')
            meta["opaque_reason"] = (f"custom-call target {target!r} is a library call the "
                                     "workbench has no reference for" if op == "custom-call"
                                     else f"the workbench has no op {op!r}")
        return self.opaque(ins, op, operand_ids, meta, site, nid)

    def int_attr(self, ins, key: str, default: str) -> int:
        """A whole-number attribute (``index=2``, ``dimensions={0}``)."""
        try:
            return to_int(ins.attrs.get(key, default).strip().strip("{}"))
        except ValueError as exc:
            raise self.error(ParseError, f"{ins.opcode}: {key}= {exc}", ins, key) from None

    def make_tuple(self, refs, ins) -> tuple:
        """A tuple of refs, its nesting held to ``max_nesting`` (so that walking it, and the
        tuple type made of it, stays shallow)."""
        depth = 1 + max((self.tuple_depth(r) for r in refs if isinstance(r, tuple)), default=0)
        if depth > self.limits.max_nesting:
            raise limits.exceeded("max_nesting", depth, self.limits.max_nesting,
                                  "the nesting of tuples", file=self.file, line=ins.line,
                                  node=ins.name)
        ref = tuple(refs)
        self._tuples[id(ref)] = (ref, depth)
        return ref

    def tuple_depth(self, ref: tuple) -> int:
        """How deeply ``ref`` nests tuples (those not made by :meth:`make_tuple` come from a
        tuple-typed parameter, whose type's nesting the text parser has bounded)."""
        if id(ref) in self._tuples:
            return self._tuples[id(ref)][1]
        return 1 + max((self.tuple_depth(r) for r in ref if isinstance(r, tuple)), default=0)

    def opaque(self, ins, op, operand_ids, meta, site, nid=None):
        attrs = {"hlo_opcode": op}
        target = ins.attrs.get("custom_call_target")
        if target:
            attrs["custom_call_target"] = target.strip('"')[:100]
        nid = nid or self.fresh_id(ins.name, site)
        return self.add(Node(nid, "opaque", tuple(operand_ids), ins.type, Attrs(attrs),
                             Attrs(meta)), ins)

    def parameter(self, ins, comp, args):
        index = _param_index(ins, self)
        if args is not None:
            if not 0 <= index < len(args):
                raise self.error(ParseError, f"parameter({index}) of computation "
                                 f"{comp.name!r}: the call site passes {len(args)} operands",
                                 ins)
            arg = args[index]
            if isinstance(arg, str) and self.types[arg] != ins.type:
                raise self.error(ParseError, f"parameter({index}) of computation "
                                 f"{comp.name!r} is {ins.type}, but the call site passes "
                                 f"{self.types[arg]}", ins)
            return arg
        if not isinstance(ins.type, TensorType):
            raise self.error(ParseError, "tuple-typed entry parameters are not supported", ins)
        node = Node(ins.name, "parameter", (), ins.type, Attrs(index=index),
                    Attrs(line=ins.line))
        return self.add(node, ins)

    def tuple_element(self, ref, index, ins):
        if isinstance(ref, tuple):
            if not 0 <= index < len(ref):
                raise self.error(ParseError, f"tuple element {index} is out of range (the "
                                 f"tuple has {len(ref)})", ins, "index")
            return ref[index]
        t = self.types[ref]
        if not isinstance(t, TupleType) or not 0 <= index < len(t.elements):
            raise self.error(ParseError, f"{ins.opcode}: element {index} of {t} does not "
                             "exist", ins)
        gid = self.fresh_id(f"{ins.name}", None)
        return self.add(Node(gid, "get-tuple-element", (ref,), t.elements[index],
                             Attrs(index=index), Attrs(line=ins.line)), ins)

    def inline(self, ins, refs, op, site, tags) -> _Inline:
        """The request to inline the computation ``ins`` calls (see :meth:`emit`)."""
        key = _CALLS[op]
        callee = ins.attrs.get(key, "").strip().lstrip("%")
        if callee not in self.m.computations:
            raise self.error(ParseError, f"{key}={callee!r} names no computation", ins, key)
        comp = self.m.computations[callee]
        n_params = sum(1 for i in comp.instructions if i.opcode == "parameter")
        if n_params != len(refs):
            raise self.error(ParseError, f"{op} passes {len(refs)} operand(s) to computation "
                             f"{callee!r}, which has {n_params} parameter(s)", ins)
        inner_tags = dict(tags)
        if op == "fusion" and "xla_fusion" not in tags:
            inner_tags["xla_fusion"] = ins.name
            inner_tags["xla_fusion_kind"] = ins.attrs.get("kind", "kLoop").strip()
        if op == "async-start":
            operands = self.make_tuple(refs, ins)
            return _Inline(comp, refs, ins.name, inner_tags,
                           lambda result: self.make_tuple((operands, result), ins))
        return _Inline(comp, refs, ins.name, inner_tags, lambda result: result)

    def topk_attrs(self, ins) -> dict:
        t = ins.type
        if not isinstance(t, TupleType) or len(t.elements) != 2:
            raise Unsupported("a TopK custom-call must return (values, indices)")
        largest = True
        names = computation_names(ins.attrs.get("called_computations", ""))
        if names and names[0] in self.m.computations:
            root = self.m.computations[names[0]].root
            largest = root.attrs.get("direction", "GT").strip() in ("GT", "GE")
        return dict(k=t.elements[0].shape[-1], largest=largest)

    def control(self, ins, op, refs, meta, site):
        """A ``while`` or ``conditional``: nested computations over flattened operands."""
        t = ins.type
        if isinstance(t, TupleType) and any(isinstance(e, TupleType) for e in t.elements):
            raise Unsupported("a nested tuple state is not supported")
        if op == "while":
            state = self.leaves(refs[0], ins.line, ins.name)
            attrs = dict(condition=self.computation(ins, "condition"),
                         body=self.computation(ins, "body"))
            m = _TRIP_COUNT.search(ins.attrs.get("backend_config", ""))
            if m:
                attrs["trip_count"] = int(m.group(1))
            operands = state
            out_t = TupleType(tuple(self.types[s] for s in state))
        else:
            if "branch_computations" in ins.attrs:
                names = computation_names(ins.attrs["branch_computations"])
            else:
                names = [computation_names(ins.attrs.get(k, ""))[0]
                         for k in ("true_computation", "false_computation")
                         if ins.attrs.get(k)]
            if len(names) != len(refs) - 1:
                raise self.error(ParseError, f"conditional has {len(names)} branches and "
                                 f"{len(refs) - 1} branch operands", ins)
            branches, counts, operands = [], [], [self.materialize(refs[0], ins, site)]
            for nm, r in zip(names, refs[1:]):
                if nm not in self.m.computations:
                    raise self.error(ParseError, f"branch {nm!r} names no computation", ins)
                leaves = self.leaves(r, ins.line, ins.name)
                branches.append(self.subgraph(nm, ins))
                counts.append(len(leaves))
                operands += leaves
            attrs = dict(branches=tuple(branches), branch_operands=tuple(counts),
                         tuple_result=isinstance(t, TupleType))
            out_t = t if isinstance(t, TupleType) else None
        nid = self.fresh_id(ins.name, site)
        self.add(Node(nid, op, tuple(operands), out_t if out_t is not None else t,
                      Attrs(attrs), Attrs(meta)), ins)
        if op == "while" and isinstance(t, TensorType):
            return self.tuple_element(nid, 0, ins)
        return nid

    def run(self) -> Graph:
        entry = self.m.computations[self.m.entry]
        root = self.emit(entry, None, None, {})
        outputs = self.leaves(root, entry.root.line, entry.name)
        meta = dict(source=self.file, format="hlo")
        if self.stage:
            meta["hlo_stage"] = self.stage
        if any("xla_fusion" in n.meta for n in self.nodes) or any(
                "xla_fusion" in n.meta for g in self.cache.values() for n in g.nodes):
            meta["has_xla_fusions"] = True       # (in a while body, say: still optimised)
        return Graph(self.m.name, tuple(self.nodes), tuple(outputs), Attrs(meta))


_OP_NAME = re.compile(r'op_name="([^"]*)"')


def _op_name(ins: HloInstruction) -> str | None:
    """The name scope of an instruction (``metadata={op_name="jit(f)/dot_general"}``)."""
    md = ins.attrs.get("metadata")
    if not md:
        return None
    m = _OP_NAME.search(md)
    return m.group(1)[:200] if m else None


def _param_index(ins: HloInstruction, ctx) -> int:
    text = ins.operand_text.strip()
    if not re.fullmatch(r"[0-9]{1,9}", text):
        raise ctx.error(ParseError, f"parameter index {text[:20]!r} is not a number (ASCII "
                        "digits)", ins)
    return int(text)


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

    return verify(hlo_to_graph(parse_hlo_module(text, file)), nodes_checked=True)
