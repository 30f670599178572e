"""The calibrated CPU cost of the ops the backend runs as native kernels of their own.

The planner never fuses ``while``, ``conditional``, ``sort``, ``topk``, ``scatter`` and
``select-and-scatter`` (XLA keeps them out of fusions), and the CPU backend compiles each as a
kernel of its own (:mod:`workbench.codegen.cpu_while`, ``cpu_conditional``, ``cpu_sort``,
``cpu_select``, ``cpu_scatter``). The per-element classes of
:mod:`~workbench.costmodel.calibration` price none of them (a launch and the bytes moved); here
each is priced as its kernel runs:

``while``
    trips x (the condition's kernels + the body's kernels + the bytes of the state elements
    the body replaces x ``while_copy_byte_s`` (twice through temporaries) +
    ``while_iter_s``) + the condition once more + the copies of the state in and out. The
    trip count is XLA's ``known_trip_count`` (the node's ``trip_count``) when the HLO has
    it, else the pattern of XLA's ``ComputeWhileLoopTripCount``
    (xla/service/while_loop_analysis.cc): a state element initialised by a constant,
    incremented by a constant in the body and compared LT/LE/GT/GE/NE against a constant by the
    condition (in a conjunction: an upper bound, as ``ComputeWhileLoopTripCountUpperBound``);
    unknown: 1, said in the class. A nested computation is costed as the backend plans it, by
    the approximation :func:`computation_kernels` (the cost model may not call the planner):
    each kernel at the calibrated cost of a kernel run back to back with the others (warm).
``conditional``
    the mean of its branches' computations (each costed as a while body is: which branch runs
    is data), the copies of the branch operands and results, and ``conditional_s``.
``sort``
    rows x ``sort_row_s`` (two scratch arrays per row) + rows x n ceil(log2 n) comparisons
    (the bottom-up merge sort's passes) x ``sort_compare_s``.
``topk``
    ``topk_call_s`` + rows x n x ``topk_element_s`` (for k up to 16, an insertion into a
    sorted buffer of k: one key and one comparison per element).
``scatter``
    update windows x ``scatter_window_s`` + update elements x ``scatter_update_s`` (the
    operand's copy into the output is the memory term).
``select-and-scatter``
    windows x taps x ``select_tap_s`` (the output's init is the memory term).

The constants are seconds on one core; a calibration's ``native`` object (measured by the
probe's native kernels, :mod:`workbench.profiler.calibrate_native`; keys as :data:`DEFAULTS`)
replaces them key by key; a calibration without one (every profile stored before the probe had
these kernels) predicts with :data:`DEFAULTS`, which say where each comes from.
"""

from __future__ import annotations

import math

from workbench.costmodel.calibration import INDEXED_ELEMENT_S, NATIVE_KIND, cpu_terms

#: seconds of each native kernel's constant (see the module notes), with where it comes from
DEFAULTS = {
    # per iteration of a native while loop beyond its kernels and copies (run_kernels'
    # dispatch of the two plans, the pred's read, the trip counter). Fitted on the tune split:
    # newton_while (50 trips, 156 ns each, its 3 kernels predicted 230) wants none
    "while_iter_s": 0.0,
    # per byte the loop copies into its state per iteration (cpu_while's byte loops, through
    # the temporaries too when the body swaps elements). Fitted on the tune split:
    # dropout_dense (5 trips, 1,140 bytes copied each, 0.33 us a trip beyond its kernels)
    "while_copy_byte_s": 0.3e-9,
    # a conditional beyond its chosen branch's kernels and copies (the index read, the
    # dispatch). Fitted on the tune split: cond_branch 0.19 us, switch_branch 0.30 us beyond
    # the mean branch: 0.22 us
    "conditional_s": 0.22e-6,
    # per sorted row: two np.empty scratch arrays in the numba kernel. Assumed: numba's
    # allocation of a small array, ~40 ns each (no sort is in the tune split)
    "sort_row_s": 80e-9,
    # per comparison of the merge sort (two loads through the permutation, the comparator,
    # a branch). Assumed twice topk's per-element cost (a key and a comparison for each of
    # two elements): no sort is in the tune split; the probe measured 11-16 ns on the 2-core
    # VM (calibrate_native), which a profile calibrated since then uses
    "sort_compare_s": 8.9e-9,
    # topk: its scratch buffers, once per call (assumed: two allocations, as sort_row_s), and
    # per element. Fitted on the tune split: topk_softmax ([16, 64] top 4, 4.75 us: 4.4 ns
    # per element beyond the launch and the buffers)
    "topk_call_s": 80e-9,
    "topk_element_s": 4.4e-9,
    # per update window (its index vector, bounds check) and per update element (the combine)
    # of a scatter. Fitted on the tune split: segment_sum's 16 windows of 32 elements (0.63
    # us) and of 1 element (0.20 us)
    "scatter_window_s": 7.0e-9,
    "scatter_update_s": 0.8e-9,
    # per window tap of a select-and-scatter (bounds, load, select). Fitted on the tune split:
    # maxpool_grad, 96 windows of 4 taps, 0.875 us: 2.0 ns per tap
    "select_tap_s": 2.0e-9,
    # per result element of a gather, dynamic-slice or dynamic-update-slice (see
    # workbench.costmodel.calibration.INDEXED_ELEMENT_S: fitted on the tune split)
    "indexed_element_s": INDEXED_ELEMENT_S,
}

#: the warm launch context of a nested computation's kernels (footprint 0: they run back to
#: back in the native loop, with little else between them)
_NESTED_FOOTPRINT = 0


def constants(cal) -> dict:
    """:data:`DEFAULTS` with the calibration's ``native`` measurements over them."""
    return {**DEFAULTS, **(cal.native or {})}


# ----- trip counts ------------------------------------------------------------------------


def _scalar_constant(graph, nid):
    """The value of node ``nid`` if it is a scalar integer constant (through converts and
    reshapes), else None."""
    from workbench.ir.ops import constant_array

    node = graph.node(nid)
    while node.op in ("convert", "reshape", "copy", "bitcast") and node.operands:
        node = graph.node(node.operands[0])
    if node.op != "constant" or getattr(node.type, "size", 0) != 1:
        return None
    v = constant_array(node.attrs, node.type).reshape(()).item()
    return int(v) if float(v).is_integer() else None


def _param_index(graph, nid):
    """The parameter index of ``nid`` (through converts and free moves), else None."""
    node = graph.node(nid)
    while node.op in ("convert", "reshape", "copy", "bitcast") and node.operands:
        node = graph.node(node.operands[0])
    return node.attrs.get("index") if node.op == "parameter" else None


_FLIP = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NE": "NE", "EQ": "EQ"}


def _compares(cond, nid):
    """The compares a condition's root is a conjunction of: (compares, conjunction?)."""
    node = cond.node(nid)
    if node.op == "compare":
        return [node], False
    if node.op == "and":
        out = []
        for o in node.operands:
            out += _compares(cond, o)[0]
        return out, True
    return [], False


def trip_count(graph, nid) -> tuple[int | None, str]:
    """(trips, how) of the ``while`` node ``nid`` of ``graph``: ``trip_count=`` (XLA's
    ``known_trip_count``), else XLA's pattern (see the module notes). ``how`` is said in the
    dominant term; trips None when neither gives one."""
    node = graph.node(nid)
    known = node.attrs.get("trip_count")
    if known:
        return int(known), "known_trip_count"
    cond, body = node.attrs["condition"], node.attrs["body"]
    compares, conj = _compares(cond, cond.outputs[0])
    for cmp in compares:
        direction = str(cmp.attrs.get("direction", "")).upper()
        a, b = cmp.operands[:2]
        k, limit = _param_index(cond, a), _scalar_constant(cond, b)
        if k is None or limit is None:
            k, limit = _param_index(cond, b), _scalar_constant(cond, a)
            direction = _FLIP.get(direction, "")
        if k is None or limit is None or k >= len(node.operands):
            continue
        init = _scalar_constant(graph, node.operands[k])
        step = _step(body, k)
        if init is None or not step:
            continue
        trips = _trips(direction, init, step, limit)
        if trips is not None:
            return trips, "upper bound from the condition" if conj else "from the condition"
    return None, "trip count unknown, 1 assumed"


def _step(body, k) -> int | None:
    """The constant the body adds to state element ``k`` each iteration (negative for a
    subtract), else None."""
    out = body.node(body.outputs[k])
    if out.op not in ("add", "subtract") or len(out.operands) != 2:
        return None
    a, b = out.operands
    if _param_index(body, a) == k and _scalar_constant(body, b) is not None:
        s = _scalar_constant(body, b)
    elif out.op == "add" and _param_index(body, b) == k and _scalar_constant(body, a) is not None:
        s = _scalar_constant(body, a)
    else:
        return None
    return -s if out.op == "subtract" else s


def _trips(direction: str, init: int, step: int, limit: int) -> int | None:
    """Iterations of ``i = init; while i <direction> limit: i += step`` (None when it does not
    end)."""
    if direction in ("LT", "LE") and step > 0:
        end = limit + (1 if direction == "LE" else 0)
        return max(0, -(-(end - init) // step))
    if direction in ("GT", "GE") and step < 0:
        end = limit - (1 if direction == "GE" else 0)
        return max(0, -(-(init - end) // -step))
    if direction == "NE" and (limit - init) % step == 0 and (limit - init) // step >= 0:
        return (limit - init) // step
    return None


# ----- nested computations ----------------------------------------------------------------


def computation_kernels(index) -> list[list[int]]:
    """The kernels a nested computation runs, approximated: its live ops that launch (not
    parameters, constants or free aliases), joined along each producer -> consumer edge where
    neither is opaque, the consumer is no contraction (a dot's operands are materialised), a
    reduction producer's consumer has its (reduced) number of elements, and the kernel keeps
    at most one contraction (loop and input fusion, a reduction's epilogue, a dot's output
    fusion, as the backend's ``priority`` plan mostly forms them: on the corpus's loop bodies
    and branches this gives the plan's kernel count, 1-3, and 8 for gru_scan's body of 10)."""
    n = len(index)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    keep = [not index.source[i] and index.live[i] and not index.free[i] for i in range(n)]
    dots = [1 if index.contraction[i] else 0 for i in range(n)]
    for c in range(n):
        if not keep[c] or index.opaque[c] or index.contraction[c]:
            continue
        for p in index.operands[c]:
            if not keep[p] or index.opaque[p]:
                continue
            # a reduction's consumer of the reduced shape is its epilogue (the priority plan
            # fuses the compare after a condition's reduce-max, the divide after a norm)
            if index.reduction[p] and not index.contraction[p] \
                    and index.elements[c] != index.elements[p]:
                continue
            rp, rc = find(p), find(c)
            if rp == rc or dots[rp] + dots[rc] > 1:     # one contraction per kernel
                continue
            if index.reduction[c] and dots[rp]:         # a dot's epilogue ends at a reduction
                continue
            parent[rp] = rc
            dots[rc] += dots[rp]
    groups: dict[int, list[int]] = {}
    for i in range(n):
        if keep[i]:
            groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def computation_s(graph, cal, blocked_min_bytes: int, costs_of) -> float:
    """Seconds of one run of the nested computation ``graph``: the sum over its kernels
    (:func:`computation_kernels`) of each kernel's calibrated time
    (:func:`~workbench.costmodel.calibration.cpu_terms`) in a warm context. ``costs_of(index)``
    gives the per-node costs (this module's :func:`with_native`, so nested loops nest)."""
    from workbench.ir.index import graph_index

    index = graph_index(graph)
    costs = costs_of(index)
    kernels = computation_kernels(index)
    context = (_NESTED_FOOTPRINT, max(len(kernels), 1))
    total = 0.0
    for mem in kernels:
        ms = set(mem)
        by_class: dict = {}
        for m in mem:
            by_class[costs.klass[m]] = by_class.get(costs.klass[m], 0.0) + costs.compute_s[m]
        by_class.pop("contraction", None)
        if len(mem) == 1 and costs.loop_s and costs.loop_s[mem[0]] > 0:
            by_class["short_loop"] = costs.loop_s[mem[0]]
        dots = costs.dot_fused_s if len(mem) > 1 and costs.dot_fused_s else costs.dot_s
        read = sum(index.read_bytes[o] for o in {o for m in mem for o in index.operands[m]
                                                  if o not in ms})
        written = sum(index.nbytes[m] for m in mem
                      if index.output[m] or any(u not in ms for u in index.users[m]))
        rows = 1 if any(index.reduction[m] and index.elements[m] <= 1 for m in mem) else 2
        total += cpu_terms(cal, by_class, sum(dots[m] for m in mem), read + written,
                           sum(costs.work[m] for m in mem), context, rows)[2]
    return total


# ----- the native ops ---------------------------------------------------------------------


def native_cost(index, i: int, cal, blocked_min_bytes: int, costs_of):
    """(class, one core's seconds beyond the launch and the memory term, (amount, unit)) of
    the native node ``i``, or None for a node this module does not price. The class names the
    op and, for a loop, its trip count (``while: 6 trips (from the condition)``); the amount
    is what the seconds are counted in (trips, comparisons, elements, updates, taps, calls),
    for the text of a miss."""
    op = index.ops[i]
    graph = index.graph
    node = graph.node(index.ids[i])
    k = constants(cal)
    if op == "while":
        return _while_s(index, i, node, cal, blocked_min_bytes, costs_of, k)
    if op == "conditional":
        branches = node.attrs.get("branches") or ()
        if not branches:
            return None
        each = [computation_s(b, cal, blocked_min_bytes, costs_of) for b in branches]
        copies = sum(index.nbytes[o] for o in index.operands[i][1:]) / max(len(branches), 1)
        s = sum(each) / len(each) + k["conditional_s"] + cal.memory(2 * copies) \
            + cal.memory(2 * index.nbytes[i])
        return f"conditional: mean of {len(each)} branches", s, (1, "call")
    if op == "sort":
        t = graph.node(node.operands[0]).type
        shape = tuple(getattr(t, "shape", ()) or ())
        dim = int(node.attrs.get("dimension", len(shape) - 1 if shape else 0))
        length = shape[dim] if shape else 1
        rows = math.prod(shape) // max(length, 1) if shape else 1
        passes = max(1, math.ceil(math.log2(max(length, 2))))
        s = rows * k["sort_row_s"] + rows * length * passes * k["sort_compare_s"]
        return "sort: n log2 n comparisons", s, (rows * length * passes, "comparison")
    if op == "topk":
        t = graph.node(node.operands[0]).type
        return "topk", k["topk_call_s"] + t.size * k["topk_element_s"], (t.size, "element")
    if op == "scatter":
        updates = graph.node(node.operands[-1]).type
        shape = tuple(getattr(updates, "shape", ()) or ())
        window = set(node.attrs.get("update_window_dims", ()) or ())
        windows = math.prod(n for d, n in enumerate(shape) if d not in window)
        size = getattr(updates, "size", 1)
        return "scatter: per update", (windows * k["scatter_window_s"]
                                       + size * k["scatter_update_s"]), (size, "element")
    if op == "select-and-scatter":
        src = graph.node(node.operands[1]).type
        taps = math.prod(node.attrs.get("window_size", ()) or (1,))
        return "select-and-scatter: per window tap", src.size * taps * k["select_tap_s"], \
            (src.size * taps, "tap")
    return None


def _while_s(index, i, node, cal, blocked, costs_of, k):
    trips, how = trip_count(index.graph, index.ids[i])
    cond, body = node.attrs["condition"], node.attrs["body"]
    per = computation_s(cond, cal, blocked, costs_of) + computation_s(body, cal, blocked,
                                                                      costs_of)
    copied, swap = _state_copies(body)
    per += copied * (2 if swap else 1) * k["while_copy_byte_s"] + k["while_iter_s"]
    state = sum(index.nbytes[o] for o in index.operands[i])
    n = trips if trips is not None else 1
    # the last check of the condition, and the state copied in and out
    s = n * per + computation_s(cond, cal, blocked, costs_of) + cal.memory(4 * state)
    words = f"{n} trips ({how})" if trips is not None else how
    return f"while: {words}", s, (n, "trip")


def _state_copies(body) -> tuple[int, bool]:
    """(bytes the loop copies into its state per iteration, whether through temporaries): each
    body output that is not its own parameter (cpu_while: a value passed through is not
    copied; an output that is another element's parameter makes every copy go through a
    temporary)."""
    copied, swap = 0, False
    for k, o in enumerate(body.outputs):
        p = _param_index(body, o) if body.node(o).op == "parameter" else None
        if p == k:
            continue
        if p is not None:
            swap = True
        copied += body.node(o).type.nbytes
    return copied, swap


def with_native(index, costs, cal, blocked_min_bytes: int, costs_of):
    """``costs`` (:class:`~workbench.costmodel.calibration.NodeCosts` of ``index``) with the
    native nodes priced (:func:`native_cost`); ``costs`` itself when the graph has none."""
    found = [i for i in range(len(index)) if index.opaque[i] and index.ops[i] in NATIVE_KIND]
    if not found:
        return costs
    klass, comp, units = list(costs.klass), list(costs.compute_s), dict(costs.units)
    for i in found:
        hit = native_cost(index, i, cal, blocked_min_bytes, costs_of)
        if hit is not None:
            klass[i], comp[i], units[i] = hit
    from dataclasses import replace

    return replace(costs, klass=klass, compute_s=comp, units=units)
