"""A layered (Sugiyama-style) layout of one box's contents, in pure Python.

The graph view lays every container (a layer of the name stack, a fusion group) out on its own,
its children being ops, inputs and the boxes of sub-containers, each with its size. The steps
are the classic ones (Sugiyama, Tagawa & Toda, IEEE SMC 1981; Gansner et al., "A technique for
drawing directed graphs", IEEE TSE 1993, the algorithm of Graphviz ``dot``), kept simple:

1. break cycles: an edge that runs against the children's topological order is reversed (the
   children of a layer need not form a DAG: ops of one scope may feed another and back);
2. rank by longest path from the sources; a child without predecessors sinks to just above its
   first consumer (a weight sits next to the matmul that reads it);
3. order each rank by the barycentre of its neighbours, sweeping down and up a few times;
4. a rank wider than ``max_width`` is wrapped onto several rows;
5. x: each child as near the mean x of its neighbours above as the order and the gaps allow;
   y: rows stacked, each as tall as its tallest child.

Deterministic: the same input gives the same positions (tests compare them). Cost is
O((V + E) * sweeps) per container; the app lays out only what is visible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: horizontal and vertical gaps between children (pixels)
GAP_X = 18.0
GAP_Y = 34.0
#: a rank wider than this wraps onto another row (pixels)
MAX_WIDTH = 2600.0
#: barycentre sweeps (down and up count as one)
SWEEPS = 4


def layered(sizes: Mapping[str, tuple], order: Mapping[str, float],
            edges: Sequence[tuple], gap_x: float = GAP_X, gap_y: float = GAP_Y,
            max_width: float = MAX_WIDTH) -> tuple[dict, tuple]:
    """Positions of ``sizes``' keys, laid out top to bottom.

    Parameters
    ----------
    sizes : mapping
        Child key -> (width, height) in pixels.
    order : mapping
        Child key -> its topological position (the smallest topological index of the ops it
        draws); edges against it are reversed.
    edges : sequence of (str, str)
        Producer -> consumer pairs between children (duplicates and self-loops are ignored).

    Returns
    -------
    positions : dict
        Child key -> (x, y) of its centre, in a frame whose top-left corner is (0, 0).
    extent : tuple
        (width, height) of the bounding box of the children.
    """
    keys = sorted(sizes, key=lambda k: (order.get(k, 0.0), k))
    if not keys:
        return {}, (0.0, 0.0)
    idx = {k: i for i, k in enumerate(keys)}
    succ: list[set] = [set() for _ in keys]
    pred: list[set] = [set() for _ in keys]
    for a, b in edges:
        ia, ib = idx.get(a), idx.get(b)
        if ia is None or ib is None or ia == ib:
            continue
        if ia > ib:
            ia, ib = ib, ia
        succ[ia].add(ib)
        pred[ib].add(ia)
    rank = _ranks(len(keys), succ, pred)
    rows = _order_rows(rank, succ, pred)
    rows = _wrap(rows, [sizes[k][0] for k in keys], gap_x, max_width)
    xs = _xs(rows, [sizes[k][0] for k in keys], pred, succ, gap_x)
    positions, y = {}, 0.0
    width = 0.0
    for row in rows:
        h = max(sizes[keys[i]][1] for i in row)
        for i in row:
            positions[keys[i]] = (round(xs[i], 1), round(y + h / 2.0, 1))
            width = max(width, xs[i] + sizes[keys[i]][0] / 2.0)
        y += h + gap_y
    return positions, (round(width, 1), round(y - gap_y, 1))


def _ranks(n: int, succ, pred) -> list[int]:
    """Longest-path ranks (indices are a topological order); children with no predecessors
    sink to one rank above their highest consumer."""
    rank = [0] * n
    for i in range(n):
        for j in succ[i]:
            if rank[j] < rank[i] + 1:
                rank[j] = rank[i] + 1
    for i in range(n - 1, -1, -1):
        if not pred[i] and succ[i]:
            rank[i] = max(rank[i], min(rank[j] for j in succ[i]) - 1)
    return rank


def _order_rows(rank: list[int], succ, pred) -> list[list[int]]:
    """Children by rank, each rank ordered by barycentre sweeps (ties by index)."""
    n_ranks = max(rank) + 1
    rows: list[list[int]] = [[] for _ in range(n_ranks)]
    for i, r in enumerate(rank):
        rows[r].append(i)
    pos = [0.0] * len(rank)

    def settle(row):
        m = max(len(row) - 1, 1)
        for k, i in enumerate(row):
            pos[i] = k / m

    for row in rows:
        settle(row)
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        seq = rows if down else rows[::-1]
        for row in seq:
            def bary(i, nbrs=(pred if down else succ)):
                ns = nbrs[i]
                return (sum(pos[j] for j in ns) / len(ns), i) if ns else (pos[i], i)
            row.sort(key=bary)
            settle(row)
    return rows


def _wrap(rows, widths, gap_x: float, max_width: float) -> list[list[int]]:
    """Rows wider than ``max_width`` split into several (in their order)."""
    out = []
    for row in rows:
        cur, w = [], 0.0
        for i in row:
            if cur and w + widths[i] > max_width:
                out.append(cur)
                cur, w = [], 0.0
            cur.append(i)
            w += widths[i] + gap_x
        if cur:
            out.append(cur)
    return out


def _xs(rows, widths, pred, succ, gap_x: float) -> list[float]:
    """x centres: near the mean of already placed neighbours, order and gaps kept."""
    x = [0.0] * len(widths)
    placed = [False] * len(widths)
    for row in rows:
        want = []
        for i in row:
            nb = [x[j] for j in list(pred[i]) + list(succ[i]) if placed[j]]
            want.append(sum(nb) / len(nb) if nb else None)
        _fit_row(row, want, widths, gap_x, x)
        for i in row:
            placed[i] = True
    lo = min(x[i] - widths[i] / 2.0 for i in range(len(widths)))
    return [v - lo for v in x]


def _fit_row(row, want, widths, gap_x: float, x) -> None:
    """Place one row: each child at its wanted x where the order and gaps allow, packed
    from the left; a row with no wishes is centred on 0; then shifted so that the mean
    displacement from the wishes is zero."""
    known = [w for w in want if w is not None]
    total = sum(widths[i] for i in row) + gap_x * (len(row) - 1)
    cursor = (sum(known) / len(known) if known else 0.0) - total / 2.0
    # children without a wish go where the packing puts them
    prev_right = None
    for k, i in enumerate(row):
        half = widths[i] / 2.0
        w = want[k] if want[k] is not None else cursor + half
        if prev_right is not None:
            w = max(w, prev_right + gap_x + half)
        x[i] = w
        prev_right = w + half
        cursor = prev_right + gap_x
    if known:
        shift = sum(x[i] - w for i, w in zip(row, want) if w is not None) / len(known)
        # shift left only as far as the packing allows (it never creates an overlap)
        for i in row:
            x[i] -= shift
