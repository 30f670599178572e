"""The reference interpreter: evaluate a graph with numpy, op by op.

Every compiled kernel is checked against this. It runs each node's numpy reference in
topological order, frees values after their last use, and refuses, before allocating anything,
a graph whose live tensors would exceed a memory cap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.errors import EvaluationError, ResourceLimitError, WorkbenchError
from workbench.ir.graph import Graph
from workbench.ir.ops import Category, get_op
from workbench.ir.types import TensorType, TupleType

#: default cap on the bytes of tensors alive at once during evaluation (4 GiB)
DEFAULT_MAX_BYTES = 4 << 30


def peak_live_bytes(graph: Graph) -> tuple[int, str]:
    """Peak bytes of values alive at once when evaluating in topological order.

    Returns
    -------
    (bytes, node_id)
        The peak, and the node whose evaluation reaches it.
    """
    order = graph.topo_order
    last_use = {}
    for i, nid in enumerate(order):
        for o in graph.node(nid).operands:
            last_use[o] = i
    for o in graph.outputs:
        last_use[o] = len(order)
    live = peak = 0
    peak_node = order[0] if order else ""
    dying: dict[int, list[str]] = {}
    for nid, i in last_use.items():
        dying.setdefault(i, []).append(nid)
    for i, nid in enumerate(order):
        live += graph.node(nid).type.nbytes
        if live > peak:
            peak, peak_node = live, nid
        for d in dying.get(i, ()):
            live -= graph.node(d).type.nbytes
    return peak, peak_node


def check_memory(graph: Graph, max_bytes: int | None) -> None:
    """Refuse a graph whose live tensors would exceed ``max_bytes`` (checked before allocating).

    Raises
    ------
    ResourceLimitError
        Naming the node at which the peak is reached.
    """
    if max_bytes is None:
        return
    peak, at = peak_live_bytes(graph)
    if peak > max_bytes:
        raise ResourceLimitError(
            f"evaluating needs {peak / 2**20:.1f} MiB of live tensors (peak at this node), more "
            f"than the cap of {max_bytes / 2**20:.1f} MiB", node=at)


def _input_values(graph: Graph, inputs) -> list:
    params = graph.parameters
    if not isinstance(inputs, Mapping):
        values = list(inputs)
        if len(values) != len(params):
            raise EvaluationError(f"the graph has {len(params)} parameters, got {len(values)} "
                                  "inputs")
        return values
    values, used = [], set()
    for p in params:
        idx = p.attrs["index"]
        for key in (f"arg{idx}", p.id, idx):
            if key in inputs:
                values.append(inputs[key])
                used.add(key)
                break
        else:
            raise EvaluationError(f"no input given for parameter {idx} (expected key "
                                  f"'arg{idx}' or {p.id!r})", node=p.id)
    # outN keys are expected outputs (the layout of ../shared/hlo/*.io.npz): not inputs
    extra = sorted(str(k) for k in inputs
                   if k not in used and not re.fullmatch(r"out\d+", str(k)))
    if extra:
        raise EvaluationError(f"inputs {', '.join(extra)} match no parameter (the graph has "
                              f"{len(params)}: arg0..arg{len(params) - 1})")
    return values


def coerce_input(arr, t: TensorType, what: str, node: str | None = None) -> np.ndarray:
    """``arr`` as an array of type ``t``.

    Same-kind dtypes are converted (f64 -> f32); raw 2-byte (or 1-byte) void arrays, which is
    how ``numpy.load`` returns bf16 and f8 arrays saved by ``numpy.savez`` (``|V2``), are
    reinterpreted as the declared dtype; so are unsigned integers of the width of a bf16 or f8
    type (their bit patterns). Read-only and non-contiguous arrays are accepted as they are.

    Raises
    ------
    EvaluationError
        On a shape mismatch or a dtype that does not convert.
    """
    arr = np.asarray(arr)
    if arr.shape != t.shape:
        raise EvaluationError(f"{what} has shape {list(arr.shape)}, expected {t}", node=node)
    try:
        want = t.np_dtype
    except WorkbenchError as exc:
        raise EvaluationError(exc.message, node=node) from None
    if arr.dtype == want:
        return arr
    custom = want.kind == "V" or want.name.startswith(("bfloat", "float8", "float4", "int4",
                                                       "uint4", "int2", "uint2"))
    if custom and arr.dtype.itemsize == want.itemsize and arr.dtype.kind in "Vu":
        return np.ascontiguousarray(arr).view(want)
    if custom and arr.dtype.kind in "biuf" or arr.dtype.name.startswith(("bfloat", "float8")):
        return arr.astype(want)
    if arr.dtype.kind not in "biuf" or not np.can_cast(arr.dtype, want, "same_kind"):
        raise EvaluationError(f"{what} has dtype {arr.dtype}, which does not convert to "
                              f"{t.dtype}", node=node)
    return arr.astype(want)


def _coerce_inputs(graph: Graph, inputs) -> dict[str, np.ndarray]:
    env = {}
    for p, v in zip(graph.parameters, _input_values(graph, inputs)):
        env[p.id] = coerce_input(v, p.tensor_type, f"input for parameter {p.attrs['index']}",
                                 p.id)
    return env


def cannot_evaluate(graph: Graph, node) -> EvaluationError:
    """The error for a node without a reference (an opaque op: an unknown custom-call, a
    collective, ...): one line naming the op as the input file spelt it, why it cannot be
    evaluated, the node, and the file and line it came from where known (for StableHLO, the
    line of jaxlib's HLO text, named ``FILE (as HLO)``: graph meta ``lines_of``).

    Returns
    -------
    EvaluationError
        To raise: ``file:line: node 'x': cannot evaluate custom-call 'my_op': ...``.
    """
    what = node.attrs.get("hlo_opcode", node.op)
    target = node.attrs.get("custom_call_target")
    name = f"{what} {target!r}" if target else repr(what)
    why = node.meta.get("opaque_reason") or "the workbench has no reference implementation for it"
    # a graph converted from another text (StableHLO) names the text its lines are in
    file = graph.meta.get("lines_of") or graph.meta.get("source")
    return EvaluationError(f"cannot evaluate {name}: {why}", node=node.id, file=file,
                           line=node.meta.get("line"))


def evaluate(graph: Graph, inputs, *, max_bytes: int | None = DEFAULT_MAX_BYTES,
             keep: Sequence[str] | bool = ()) -> tuple | dict:
    """Evaluate ``graph`` on ``inputs`` with the ops' numpy references.

    Parameters
    ----------
    graph : Graph
        A verified graph.
    inputs : sequence of arrays (in parameter order) or mapping
        A mapping may be keyed by parameter id, by ``"argN"`` (the layout of
        ``../shared/hlo/*.io.npz``) or by the index N. Shapes must match; dtypes of the same kind
        are converted.
    max_bytes : int or None
        Refuse to start when the tensors alive at once would exceed this many bytes.
    keep : sequence of str, or True
        Also return these intermediate values (True: every value).

    Returns
    -------
    tuple of numpy.ndarray
        The graph's outputs in order, when ``keep`` is empty; otherwise a dict from node id to
        value holding the outputs and the kept values.

    Raises
    ------
    EvaluationError
        On missing or mismatched inputs, an opaque op (named), or a reference that fails.
    ResourceLimitError
        If the peak live bytes exceed ``max_bytes``.
    """
    check_memory(graph, max_bytes)
    env = _coerce_inputs(graph, inputs)
    keep_all = keep is True
    kept = set() if keep_all else set(keep)
    order = graph.topo_order
    last_use = {}
    for i, nid in enumerate(order):
        for o in graph.node(nid).operands:
            last_use[o] = i
    protected = set(graph.outputs) | kept
    for i, nid in enumerate(order):
        node = graph.node(nid)
        if node.op == "parameter":
            continue
        opdef = get_op(node.op)
        if opdef.reference is None or opdef.category == Category.OPAQUE:
            raise cannot_evaluate(graph, node)
        args = [env[o] for o in node.operands]
        try:
            value = opdef.reference(args, node.attrs, node.type)
            if isinstance(node.type, TensorType):
                node.type.np_dtype                   # a token cannot be evaluated
        except WorkbenchError as exc:
            raise EvaluationError(f"{node.op}: {exc.message}", node=nid) from None
        except (ValueError, TypeError, IndexError, MemoryError) as exc:
            raise EvaluationError(f"{node.op} failed: {exc}", node=nid) from None
        if isinstance(node.type, TensorType):
            value = np.asarray(value)
            if value.dtype != node.type.np_dtype:
                value = value.astype(node.type.np_dtype)
            if value.shape != node.type.shape:
                raise EvaluationError(f"{node.op} produced shape {list(value.shape)}, its type "
                                      f"is {node.type}", node=nid)
        elif isinstance(node.type, TupleType):
            value = tuple(np.asarray(v).astype(e.np_dtype, copy=False)
                          if isinstance(e, TensorType) else v
                          for v, e in zip(value, node.type.elements))
        env[nid] = value
        if not keep_all:
            for o in set(node.operands):
                if last_use.get(o) == i and o not in protected:
                    del env[o]
    if keep_all:
        return env
    if kept:
        return {k: env[k] for k in list(graph.outputs) + sorted(kept)}
    return tuple(env[o] for o in graph.outputs)


def _fan_in(graph: Graph, param_id: str) -> int:
    """Elements each output of a contraction or convolution reads from this weight, or 1."""
    from workbench.ir.ops.contraction import conv_geometry, dot_dims

    fan = 1
    for u in graph.users(param_id):
        node = graph.node(u)
        if len(node.operands) < 2 or node.operands[1] != param_id:
            continue
        lhs, rhs = (graph.node(o).type for o in node.operands[:2])
        if node.op == "dot":
            _, lc, _, _, _, _ = dot_dims(node.attrs, lhs.rank, rhs.rank)
            fan = max(fan, int(np.prod([lhs.shape[d] for d in lc])))
        elif node.op == "matmul":
            fan = max(fan, lhs.shape[-1])
        elif node.op in ("convolution", "conv2d"):
            if node.op == "conv2d":
                fan = max(fan, int(np.prod(rhs.shape[:3])))
            else:
                g = conv_geometry(lhs, rhs, node.attrs)
                fan = max(fan, g["in_features"] // g["groups"] * int(np.prod(g["kernel"])))
    return fan


def make_inputs(graph: Graph, seed: int = 0, *, max_bytes: int | None = DEFAULT_MAX_BYTES
                ) -> list[np.ndarray]:
    """Random inputs for every parameter, in parameter order, reproducible from ``seed``.

    Floats are standard normal, except that the weights of a contraction or convolution (its
    second operand) are scaled by ``1/sqrt(fan_in)`` (LeCun initialisation, LeCun et al.,
    "Efficient BackProp", 1998) so that activations keep a unit scale through deep graphs, and
    parameters whose ``meta['init']`` says otherwise: ``"positive"`` (uniform in [0.5, 1.5),
    e.g. a variance), ``"uniform"`` ([0, 1)), ``"ones"``, ``"zeros"``. Integers are uniform in
    [0, 10); pred is a fair coin.

    Raises
    ------
    ResourceLimitError
        If the parameters alone exceed ``max_bytes`` (checked before allocating).
    """
    total = sum(p.type.nbytes for p in graph.parameters)
    if max_bytes is not None and total > max_bytes:
        big = max(graph.parameters, key=lambda p: p.type.nbytes)
        raise ResourceLimitError(f"the inputs need {total / 2**20:.1f} MiB, more than the cap of "
                                 f"{max_bytes / 2**20:.1f} MiB", node=big.id)
    rng = np.random.default_rng(seed)
    out = []
    for p in graph.parameters:
        t = p.tensor_type
        try:
            dt = t.np_dtype
        except WorkbenchError as exc:
            raise EvaluationError(exc.message, node=p.id) from None
        init = p.meta.get("init", "normal")
        if t.dtype == "pred":
            arr = rng.random(t.shape) < 0.5
        elif dt.kind in "iu":
            arr = rng.integers(0, 10, size=t.shape).astype(dt)
        elif init == "positive":
            arr = rng.uniform(0.5, 1.5, size=t.shape).astype(dt)
        elif init == "uniform":
            arr = rng.random(t.shape, dtype=np.float32).astype(dt)
        elif init == "ones":
            arr = np.ones(t.shape, dt)
        elif init == "zeros":
            arr = np.zeros(t.shape, dt)
        else:
            arr = rng.standard_normal(t.shape, dtype=np.float32).astype(dt, copy=False)
            fan = _fan_in(graph, p.id)
            if fan > 1:
                arr *= dt.type(1.0 / np.sqrt(fan))
        out.append(np.require(arr, requirements="C"))  # a scalar stays 0-d
    return out
