"""The reference interpreter: evaluate a graph with numpy, op by op.

Every compiled kernel is checked against this. It runs each node's numpy reference in
topological order, frees values after their last use, and refuses, before allocating anything,
a graph whose live tensors would exceed a memory cap.
"""

from __future__ import annotations

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


def _coerce_inputs(graph: Graph, inputs) -> dict[str, np.ndarray]:
    params = graph.parameters
    if isinstance(inputs, Mapping):
        values = []
        for p in params:
            idx = p.attrs["index"]
            for key in (p.id, f"arg{idx}", idx):
                if key in inputs:
                    values.append(inputs[key])
                    break
            else:
                raise EvaluationError(f"no input given for parameter {idx} (expected key "
                                      f"'arg{idx}' or {p.id!r})", node=p.id)
    else:
        values = list(inputs)
        if len(values) != len(params):
            raise EvaluationError(f"the graph has {len(params)} parameters, got {len(values)} "
                                  "inputs")
    env = {}
    for p, v in zip(params, values):
        t = p.tensor_type
        arr = np.asarray(v)
        if arr.shape != t.shape:
            raise EvaluationError(f"input for parameter {p.attrs['index']} has shape "
                                  f"{list(arr.shape)}, expected {t}", node=p.id)
        want = t.np_dtype
        if arr.dtype != want:
            if arr.dtype.kind != want.kind and not (arr.dtype.kind in "iu" and want.kind in "iu"):
                raise EvaluationError(f"input for parameter {p.attrs['index']} has dtype "
                                      f"{arr.dtype}, expected {t.dtype}", node=p.id)
            arr = arr.astype(want)
        env[p.id] = arr
    return env


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
    if max_bytes is not None:
        peak, at = peak_live_bytes(graph)
        if peak > max_bytes:
            raise ResourceLimitError(
                f"evaluating needs {peak / 2**20:.1f} MiB of live tensors (at this node), more "
                f"than the cap of {max_bytes / 2**20:.1f} MiB", node=at)
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
            what = node.attrs.get("hlo_opcode", node.op)
            raise EvaluationError(f"cannot evaluate opaque op {what!r}: the workbench has no "
                                  "reference implementation for it", node=nid)
        args = [env[o] for o in node.operands]
        try:
            value = opdef.reference(args, node.attrs, node.type)
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
            value = tuple(value)
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


def make_inputs(graph: Graph, seed: int = 0) -> list[np.ndarray]:
    """Random inputs for every parameter, in parameter order, reproducible from ``seed``.

    Floats are standard normal, except parameters whose ``meta['init']`` says otherwise:
    ``"positive"`` (uniform in [0.5, 1.5), e.g. a variance), ``"uniform"`` ([0, 1)),
    ``"ones"``, ``"zeros"``. Integers are uniform in [0, 10); pred is a fair coin.
    """
    rng = np.random.default_rng(seed)
    out = []
    for p in graph.parameters:
        t = p.tensor_type
        init = p.meta.get("init", "normal")
        if t.dtype == "pred":
            arr = rng.random(t.shape) < 0.5
        elif t.np_dtype.kind in "iu":
            arr = rng.integers(0, 10, size=t.shape).astype(t.np_dtype)
        elif init == "positive":
            arr = rng.uniform(0.5, 1.5, size=t.shape).astype(t.np_dtype)
        elif init == "uniform":
            arr = rng.random(t.shape).astype(t.np_dtype)
        elif init == "ones":
            arr = np.ones(t.shape, t.np_dtype)
        elif init == "zeros":
            arr = np.zeros(t.shape, t.np_dtype)
        else:
            arr = rng.standard_normal(t.shape).astype(t.np_dtype)
        out.append(np.ascontiguousarray(arr))
    return out
