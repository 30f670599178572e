"""The workbench's JSON graph format (version 1): load, save, round trip.

A document::

    {
      "format": "fusion-workbench-graph",
      "version": 1,
      "name": "mlp",
      "description": "one line: what this graph teaches",
      "nodes": [
        {"id": "x", "op": "parameter", "type": {"shape": [32, 256], "dtype": "f32"},
         "attrs": {"index": 0}},
        {"id": "h", "op": "matmul", "operands": ["x", "w1"]},
        ...
      ],
      "outputs": ["y"]
    }

``type`` is required for parameters, constants and opaque ops and optional elsewhere (it is
inferred; when given, it must agree). ``attrs`` holds the op's attributes (see each op's doc in
``workbench ops`` or :mod:`workbench.ir.ops`); non-finite constants are written as the strings
``"inf"``, ``"-inf"``, ``"nan"``. ``meta`` (optional, per node) holds non-semantic facts such as
``init`` (how :func:`~workbench.ir.make_inputs` fills a parameter). ``scope`` (optional, per
node) is its name stack as JAX writes it in HLO metadata ``op_name`` (``block_3/attn/qk``: the
layers it sits in, then its own name); it is kept as ``meta['scope']``. Nodes may appear in any
order. Nested computations (a ``while``'s body, a ``sort``'s comparator) are written once each
under ``"computations": {"name": {"nodes": [...], "outputs": [...]}}`` and referred to from an
attribute as ``{"computation": "name"}``.
docs/json-format.md describes the format for users.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping

from workbench.errors import GraphError, InputError, ParseError, ShapeError
from workbench.ir.attrs import Attrs
from workbench.ir.graph import Graph, Node
from workbench.ir.ops import get_op
from workbench.ir.types import TupleType, type_from_json
from workbench.ir.verify import verify_types
from workbench.importers import limits

FORMAT = "fusion-workbench-graph"
VERSION = 1
_NODE_KEYS = {"id", "op", "operands", "type", "attrs", "meta", "scope"}


_ID_KEY = re.compile(r'"id"\s*:\s*"((?:[^"\\\n]|\\.)*)"')


def id_lines(text: str) -> dict:
    """Node id -> the line of its first ``"id": "..."`` in the text (one pass)."""
    lines: dict = {}
    line, last = 1, 0
    for m in _ID_KEY.finditer(text):
        line += text.count("\n", last, m.start())
        last = m.start()
        raw = m.group(1)
        try:
            key = json.loads(f'"{raw}"') if "\\" in raw else raw
        except ValueError:
            continue
        lines.setdefault(key, line)
    return lines


def _computation_resolver(doc, file: str, text: str, lines: dict, count: list):
    """A function name -> nested Graph for the document's ``computations`` (built on use;
    nested at most ``max_nesting`` deep)."""
    raw = doc.get("computations") or {}
    if not isinstance(raw, Mapping):
        raise InputError("'computations' must be an object of name -> computation", file=file)
    built: dict[str, Graph] = {}

    def get(name, stack=()):
        if name in built:
            return built[name]
        if name not in raw or not isinstance(raw[name], Mapping):
            raise InputError(f"an attribute names the computation {str(name)[:60]!r}, which "
                             "'computations' does not hold", file=file)
        if name in stack:
            raise InputError(f"computation {name!r} refers to itself", file=file)
        limits.check("max_nesting", len(stack) + 1, "the nesting of computations", file=file)
        sub = dict(raw[name], name=name)
        g = graph_from_json(sub, file, text, _resolver=lambda n: get(n, stack + (name,)),
                            _lines=lines, _count=count, _path=f"computations.{name}.")
        built[name] = g.replace(meta=g.meta.set(computation=True))
        return built[name]
    return get


def _resolve(value, resolver):
    """Attribute values with ``{"computation": name}`` replaced by the nested graph."""
    if isinstance(value, Mapping):
        if "computation" in value and isinstance(value["computation"], str) and set(
                value) <= {"computation", "nodes"}:
            return resolver(value["computation"])
        return {k: _resolve(v, resolver) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, resolver) for v in value]
    return value


#: the ``format`` of a saved plan (workbench.planner.plan.PLAN_FORMAT; the importers come
#: before the planner, so it is named here too)
SAVED_PLAN_FORMAT = "fusion-workbench-plan"


def _check_header(doc, file: str) -> None:
    """The document's own fields have the types the format gives them."""
    if not isinstance(doc, Mapping):
        raise InputError("a graph document must be a JSON object", file=file)
    fmt = doc.get("format", FORMAT)
    if fmt == SAVED_PLAN_FORMAT:
        raise InputError("this is a saved plan, not a graph: give its graph as the file and "
                         "this one with --plan (run, export, tune) or --a/--b (diff)", file=file)
    if fmt != FORMAT:
        raise InputError(f"'format' is {str(fmt)[:60]!r}, expected {FORMAT!r}", file=file)
    version = doc.get("version", VERSION)
    if isinstance(version, bool) or version != VERSION:
        shown = version if isinstance(version, (int, float)) else repr(str(version)[:20])
        raise InputError(f"unsupported version {shown} (this workbench reads version "
                         f"{VERSION}, a number)", file=file)
    for key in ("name", "description"):
        if key in doc and not isinstance(doc[key], str):
            raise InputError(f"'{key}' must be a string, got {type(doc[key]).__name__}",
                             file=file)


def _check_type(t, where: dict) -> None:
    """A declared type within the rank and element limits (tuples walked without
    recursion)."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, TupleType):
            stack.extend(x.elements)
            continue
        limits.check("max_rank", x.rank, "the rank of this node's type", **where)
        limits.check("max_elements", x.size, "the element count of this node's type", **where)


def graph_from_json(doc, file: str = "<json>", text: str = "", _resolver=None,
                    _lines: dict | None = None, _count: list | None = None,
                    _path: str = "") -> Graph:
    """Build and verify a graph from a parsed JSON document.

    A message about a node starts with the key path of the value that is wrong
    (``nodes[3].type.shape: ...``; in a nested computation ``computations.body.nodes[1]...``),
    after the file, the line of the node's id and the node.

    Raises
    ------
    InputError
        If the document is not a version-1 workbench graph.
    GraphError
        (a subclass) naming the node, for unknown ops, bad types, arity, shapes, cycles,
        dangling or duplicate ids.
    """
    _check_header(doc, file)
    nodes_doc = doc.get("nodes")
    if not isinstance(nodes_doc, list) or not nodes_doc:
        raise InputError(f"{_path}nodes: expected a non-empty list of nodes", file=file)
    outputs = doc.get("outputs")
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise InputError(f"{_path}outputs: expected a list of node ids", file=file)

    lines = id_lines(text) if _lines is None else _lines
    count = [0] if _count is None else _count
    count[0] += len(nodes_doc)
    limits.check("max_instructions", count[0], "the number of nodes", file=file)
    resolver = _resolver or _computation_resolver(doc, file, text, lines, count)
    raw = []
    for k, nd in enumerate(nodes_doc):
        at = f"{_path}nodes[{k}]"
        if not isinstance(nd, Mapping):
            raise InputError(f"{at}: expected an object, got {type(nd).__name__}", file=file)
        nid = nd.get("id")
        where = dict(file=file, node=nid if isinstance(nid, str) else None)
        if isinstance(nid, str):
            where["line"] = lines.get(nid)
        if not isinstance(nid, str) or not nid:
            raise InputError(f"{at}.id: expected a non-empty string, got {nid!r}"[:200],
                             file=file)
        bad = [c for c in nid if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")]
        if bad:
            raise InputError(f"{at}.id: the id {nid!r} contains the control or invisible "
                             f"character {bad[0]!r} (U+{ord(bad[0]):04X})", file=file,
                             line=where.get("line"))
        unknown = set(nd) - _NODE_KEYS
        if unknown:
            raise InputError(f"{at}: unknown key(s) {sorted(unknown)} (allowed: "
                             f"{sorted(_NODE_KEYS)})", **where)
        op = nd.get("op")
        if not isinstance(op, str):
            raise InputError(f"{at}.op: expected a string, got {type(op).__name__}", **where)
        try:
            get_op(op)
        except GraphError as exc:
            raise type(exc)(f"{at}.op: {exc.message}", **where) from None
        operands = nd.get("operands", [])
        if not isinstance(operands, list) or not all(isinstance(o, str) for o in operands):
            raise InputError(f"{at}.operands: expected a list of node ids", **where)
        for key in ("attrs", "meta"):
            if key in nd and not isinstance(nd[key], Mapping):
                raise InputError(f"{at}.{key}: expected an object, got "
                                 f"{type(nd[key]).__name__}", **where)
        try:
            t = type_from_json(nd["type"], f"{at}.type") if nd.get("type") is not None else None
        except ShapeError as exc:
            raise ShapeError(exc.message, **where) from None
        if t is not None:
            _check_type(t, where)
        try:
            attrs = Attrs(_resolve(nd.get("attrs") or {}, resolver))
            if op == "constant" and "value" in attrs:
                attrs = attrs.set(value=_nonfinite(attrs["value"]))
            meta = dict(nd.get("meta") or {})
        except (TypeError, ValueError) as exc:  # a nested computation's errors name their own
            raise ShapeError(f"{at}.attrs: {exc}", **where) from None
        if where.get("line") is not None:
            meta["line"] = where["line"]
        if "scope" in nd:
            if not isinstance(nd["scope"], str):
                raise InputError(f"{at}.scope: expected a string (a name stack such as "
                                 "\"block_3/attn/qk\")", **where)
            meta["scope"] = nd["scope"][:200]
        raw.append(Node(nid, op, tuple(operands), t, attrs, Attrs(meta)))

    meta = {"source": file, "format": "json"}
    if isinstance(doc.get("description"), str):
        meta["description"] = doc["description"]
    graph = Graph(doc.get("name", "graph"), tuple(raw), tuple(outputs), Attrs(meta))
    # verify checks ids, operands, cycles and ops, and gives the inferred types to fill in
    try:
        types = verify_types(graph)
    except GraphError as exc:
        # the node's last entry: a duplicate id is refused at its second definition
        k = max((k for k, n in enumerate(raw) if n.id == exc.node), default=None)
        if k is None:
            raise
        raise type(exc)(f"{_path}nodes[{k}]: {exc.message}", file=exc.file or file,
                        line=exc.line, column=exc.column, node=exc.node) from None
    for n in raw:
        if n.type is None:
            _check_type(types[n.id], dict(file=file, node=n.id, line=lines.get(n.id)))
    return graph.replace(nodes=tuple(n if n.type is not None else n.replace(type=types[n.id])
                                     for n in raw))


def _nonfinite(value):
    """Constant values with the strings 'inf', '-inf', 'nan' turned into floats."""
    if isinstance(value, tuple):
        return tuple(_nonfinite(v) for v in value)
    if isinstance(value, str) and value.lower() in ("inf", "-inf", "+inf", "nan"):
        return float(value)
    return value


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _line_of_key(text: str, key: str) -> int | None:
    """The line of the second occurrence of ``"key":`` (the duplicate), if found."""
    needle = json.dumps(key)
    first = text.find(needle)
    second = text.find(needle, first + 1) if first >= 0 else -1
    return text.count("\n", 0, second) + 1 if second >= 0 else None


def parse_json(text: str, file: str = "<json>") -> Graph:
    """Parse JSON text into a verified graph.

    Raises
    ------
    ParseError
        For malformed JSON, with line and column.
    InputError, GraphError
        As :func:`graph_from_json`.
    """
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as exc:
        raise ParseError(f"the key {exc.args[0]!r} appears twice in one object", file=file,
                         line=_line_of_key(text, exc.args[0])) from None
    except json.JSONDecodeError as exc:
        raise ParseError(f"malformed JSON: {exc.msg}", file=file, line=exc.lineno,
                         column=exc.colno) from None
    except RecursionError:
        raise limits.exceeded("max_nesting", 1000, limits.current().max_nesting,
                              "the nesting of JSON arrays and objects (at least)",
                              file=file) from None
    limits.check("max_nesting", limits.depth_of(doc) - 4, "the nesting of JSON arrays and "
                 "objects within a node's attrs, meta or type", file=file)
    return graph_from_json(doc, file, text)


def _attr_json(value, comps: dict):
    """An attribute value as JSON, nested graphs written into ``comps`` and referred to."""
    from workbench.ir.attrs import thaw

    if isinstance(value, Graph):
        name = value.name
        if name in comps and comps[name][0] != value.fingerprint:
            name = f"{value.name}#{value.fingerprint[:8]}"
        if name not in comps:
            comps[name] = (value.fingerprint, None)
            comps[name] = (value.fingerprint, _nodes_json(value, comps))
        return {"computation": name}
    if isinstance(value, Attrs):
        return {k: _attr_json(v, comps) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_attr_json(v, comps) for v in value]
    return thaw(value)


def _nodes_json(graph: Graph, comps: dict) -> dict:
    nodes = []
    for n in graph.nodes:
        d = {"id": n.id, "op": n.op}
        if n.operands:
            d["operands"] = list(n.operands)
        d["type"] = n.type.to_json()
        if n.attrs:
            d["attrs"] = {k: _attr_json(v, comps) for k, v in n.attrs.items()}
        meta = {k: v for k, v in n.meta.items() if k != "line"}
        if meta:
            d["meta"] = Attrs(meta).to_json()
        nodes.append(d)
    return {"nodes": nodes, "outputs": list(graph.outputs)}


def graph_to_json(graph: Graph, description: str | None = None) -> dict:
    """The JSON document of a graph (types always written; ``meta`` minus source positions;
    nested computations under ``computations``)."""
    comps: dict = {}
    body = _nodes_json(graph, comps)
    doc = {"format": FORMAT, "version": VERSION, "name": graph.name}
    desc = description if description is not None else graph.meta.get("description")
    if desc:
        doc["description"] = desc
    if comps:
        doc["computations"] = {k: v for k, (_, v) in comps.items()}
    doc["nodes"] = body["nodes"]
    doc["outputs"] = body["outputs"]
    return doc


def dumps(graph: Graph, description: str | None = None) -> str:
    """The graph as JSON text, one node per line (diff-friendly)."""
    doc = graph_to_json(graph, description)
    nodes = doc.pop("nodes")
    outputs = doc.pop("outputs")
    comps = doc.pop("computations", None)
    head = json.dumps(doc)[:-1]
    if comps:
        inner = ",\n    ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in comps.items())
        head += f',\n  "computations": {{\n    {inner}\n  }}'
    body = ",\n    ".join(json.dumps(n) for n in nodes)
    return f'{head},\n  "nodes": [\n    {body}\n  ],\n  "outputs": {json.dumps(outputs)}\n}}\n'


def save_json(graph: Graph, path, description: str | None = None) -> None:
    """Write the graph to ``path`` as JSON."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(graph, description))
