"""Node positions for the graph view, computed on the server.

Graphviz ``dot`` lays the drawing out top to bottom (producers above consumers) with one cluster
per fusion group, so that a group's ops sit together in a box; the browser draws the result with
cytoscape's ``preset`` layout. Measured in this project (issue 5 and bench/bench_app.py): in
headless Chromium, cytoscape's own dagre layout with compound nodes took 8.6 s at 1,000 ops and
did not finish at 3,000, while ``dot`` with clusters takes about a second for a few thousand ops
and is deterministic, so positions can be tested and cached.

``dot`` runs as a subprocess with a timeout and sees only ids made by :mod:`.drawing` (``v12``,
``v12@g3``) and sizes: no text from the input file reaches it. When Graphviz is not installed,
fails, or runs out of time, :func:`layered_positions` (a longest-path layering in Python) is used
instead, and the result says which engine produced it.
"""

from __future__ import annotations

import graphlib
import shutil
import subprocess
import threading
from collections import OrderedDict
from dataclasses import dataclass

from workbench.app.drawing import Drawing

#: points per inch: ``dot -Tplain`` reports inches, cytoscape wants pixels at zoom 1
POINTS_PER_INCH = 72.0
#: the room dot gives an op vertex, a parameter/constant vertex and a collapsed group
#: (pixels, width x height); each is drawn a little smaller (``DRAWN_*``, the stylesheet's sizes)
OP_SIZE = (130.0, 56.0)
SOURCE_SIZE = (90.0, 30.0)
BOX_SIZE = (180.0, 66.0)
DRAWN_OP = (OP_SIZE[0] - 8, OP_SIZE[1] - 8)
DRAWN_SOURCE = (80.0, 24.0)
DRAWN_BOX = (BOX_SIZE[0] - 8, BOX_SIZE[1] - 8)
#: a group's box reaches this far beyond its members (pixels; cytoscape's compound padding)
GROUP_PADDING = 10.0
#: give up on ``dot`` after this many seconds and use the Python layering
DOT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Layout:
    """Positions of a drawing's vertices.

    Parameters
    ----------
    positions : dict
        Vertex id -> (x, y) in pixels, y growing downwards (cytoscape's convention).
    engine : str
        ``"dot"`` or ``"layered"`` (the fallback).
    note : str
        Why the fallback was used, or ``""``.
    """

    positions: dict
    engine: str
    note: str = ""


def dot_source(drawing: Drawing) -> str:
    """The Graphviz program for a drawing: one cluster per multi-vertex group.

    Only drawing ids (made by the workbench) and numbers appear in the text.
    """
    lines = ["digraph G {", " graph [rankdir=TB, newrank=true, nodesep=0.25, ranksep=0.45,"
             " nslimit=4, mclimit=0.5, searchsize=200];",
             " node [shape=box, fixedsize=true, label=\"\"];"]
    by_group: dict[int, list[str]] = {}
    for v in drawing.vertices:
        w, h = BOX_SIZE if v.box else OP_SIZE if v.group is not None else SOURCE_SIZE
        lines.append(f' "{v.id}" [width={w / POINTS_PER_INCH:.3f}, '
                     f'height={h / POINTS_PER_INCH:.3f}];')
        if v.group is not None:
            by_group.setdefault(v.group, []).append(v.id)
    for gi, ids in sorted(by_group.items()):
        if len(ids) > 1:
            lines.append(f" subgraph cluster_{gi} {{ margin=14; "
                         + " ".join(f'"{i}";' for i in ids) + " }")
    seen = set()
    for e in drawing.edges:
        if (e.source, e.target) not in seen:
            seen.add((e.source, e.target))
            lines.append(f' "{e.source}" -> "{e.target}";')
    lines.append("}")
    return "\n".join(lines)


def parse_plain(text: str) -> dict:
    """Vertex positions from ``dot -Tplain`` output, in pixels with y pointing down."""
    positions = {}
    height = 0.0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "graph" and len(parts) >= 4:
            height = float(parts[3])
        elif parts[0] == "node" and len(parts) >= 4:
            name = parts[1].strip('"')
            x, y = float(parts[2]), float(parts[3])
            positions[name] = (round(x * POINTS_PER_INCH, 1),
                               round((height - y) * POINTS_PER_INCH, 1))
    return positions


def dot_positions(drawing: Drawing, timeout_s: float = DOT_TIMEOUT_S) -> dict:
    """Run ``dot`` on the drawing; returns vertex id -> (x, y) in pixels.

    Raises
    ------
    OSError
        If ``dot`` is not installed or fails.
    subprocess.TimeoutExpired
        If it runs longer than ``timeout_s`` seconds.
    """
    exe = shutil.which("dot")
    if exe is None:
        raise OSError("Graphviz 'dot' is not installed")
    proc = subprocess.run([exe, "-Tplain"], input=dot_source(drawing), capture_output=True,
                          text=True, timeout=timeout_s, check=False)
    if proc.returncode != 0:
        raise OSError(f"dot failed: {proc.stderr.strip()[:200]}")
    positions = parse_plain(proc.stdout)
    missing = [v.id for v in drawing.vertices if v.id not in positions]
    if missing:
        raise OSError(f"dot placed {len(positions)} of {len(drawing.vertices)} vertices")
    return positions


def layered_positions(drawing: Drawing) -> dict:
    """A plain layered layout: row = longest path from a source, column by mean of parents.

    The fallback when Graphviz is unavailable; groups are not kept together.
    """
    preds: dict[str, list[str]] = {v.id: [] for v in drawing.vertices}
    for e in drawing.edges:
        preds[e.target].append(e.source)
    depth: dict[str, int] = {}
    for vid in graphlib.TopologicalSorter(preds).static_order():
        depth[vid] = max((depth[p] + 1 for p in preds[vid]), default=0)
    rows: dict[int, list[str]] = {}
    for v in drawing.vertices:
        rows.setdefault(depth[v.id], []).append(v.id)
    col: dict[str, float] = {}
    positions = {}
    dx, dy = OP_SIZE[0] + 20, OP_SIZE[1] + 40
    for r in sorted(rows):
        ids = sorted(rows[r], key=lambda i: (sum(col[p] for p in preds[i]) / len(preds[i])
                                             if preds[i] else 0.0))
        for c, vid in enumerate(ids):
            col[vid] = float(c)
            positions[vid] = (c * dx, r * dy)
    return positions


def compute_layout(drawing: Drawing, timeout_s: float = DOT_TIMEOUT_S) -> Layout:
    """Positions by ``dot``, or by :func:`layered_positions` when ``dot`` cannot be used."""
    try:
        return Layout(dot_positions(drawing, timeout_s), "dot")
    except subprocess.TimeoutExpired:
        note = f"Graphviz took more than {timeout_s:.0f} s; using a simple layered layout"
    except OSError as exc:
        note = f"{exc}; using a simple layered layout"
    return Layout(layered_positions(drawing), "layered", note)


def position_of(layout: Layout, vid: str) -> tuple[float, float]:
    """Where vertex ``vid`` is drawn: its position in ``layout``; a duplicated producer's copy
    that the layout has not placed (it was made for another grouping) goes beside its home
    vertex; (0, 0) for a vertex the layout lacks."""
    p = layout.positions.get(vid)
    if p is None and "@" in vid:
        base = layout.positions.get(vid.split("@", 1)[0])
        if base is not None:
            p = (base[0] + OP_SIZE[0] * 0.6, base[1] + OP_SIZE[1] * 0.6)
    return (float(p[0]), float(p[1])) if p is not None else (0.0, 0.0)


def _drawn_size(v) -> tuple[float, float]:
    return DRAWN_BOX if v.box else DRAWN_OP if v.group is not None else DRAWN_SOURCE


def boxes_tell_the_truth(drawing: Drawing, layout: Layout, padding: float = GROUP_PADDING) -> bool:
    """True when, at these positions, every group's box (its members' bounding box plus
    ``padding``, as cytoscape draws a compound node) covers no vertex outside the group and no
    other group's box. A parameter or constant read by that group alone may lie inside its box
    (it is that kernel's input; collapsing the group puts it in the box too).

    The app keeps a layout made for an earlier grouping (so that an edit moves no node) only
    while this holds; a replay step or an edit that would draw a box around ops it does not hold
    gets a layout of its own.
    """
    import numpy as np

    if not drawing.vertices:
        return True
    xy = np.array([position_of(layout, v.id) for v in drawing.vertices])
    half = np.array([_drawn_size(v) for v in drawing.vertices]) / 2.0
    group = np.array([-1 if v.group is None else v.group for v in drawing.vertices])
    readers: dict[str, set] = {}
    index = {v.id: k for k, v in enumerate(drawing.vertices)}
    for e in drawing.edges:
        readers.setdefault(e.source, set()).add(group[index[e.target]])
    sole = np.array([next(iter(readers.get(v.id, {-2}))) if v.group is None
                     and len(readers.get(v.id, ())) == 1 else -2 for v in drawing.vertices])
    lo, hi = xy - half, xy + half
    boxes = []
    for g in np.unique(group[group >= 0]):
        inside = group == g
        if inside.sum() < 2:
            continue
        b_lo, b_hi = lo[inside].min(axis=0) - padding, hi[inside].max(axis=0) + padding
        hits = (~inside) & (sole != g) & np.all((lo < b_hi) & (hi > b_lo), axis=1)
        if hits.any():
            return False
        boxes.append((b_lo, b_hi))
    if len(boxes) > 1:
        b_lo = np.array([b[0] for b in boxes])
        b_hi = np.array([b[1] for b in boxes])
        overlap = np.all((b_lo[:, None, :] < b_hi[None, :, :])
                         & (b_hi[:, None, :] > b_lo[None, :, :]), axis=2)
        np.fill_diagonal(overlap, False)
        if overlap.any():
            return False
    return True


class LruCache:
    """A bounded, thread-safe cache, for values that depend only on content.

    The app keys layouts by (graph fingerprint, grouping), planner proposals by (graph key,
    policy, device, constraints), loaded files by (path, mtime, size): keys that say nothing about who asked, so sharing
    the cache between sessions reveals nothing and saves recomputing the same result.

    Bounded by ``max_entries`` and, when ``weight`` (value -> a number, e.g. its nodes) is
    given, by ``max_weight`` in all: the least recently used entries go first.
    """

    def __init__(self, max_entries: int = 64, max_weight: float | None = None, weight=None):
        self.max_entries = max_entries
        self.max_weight, self._weigh = max_weight, weight
        self._weight = 0.0
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, compute):
        """The cached value for ``key``, or ``compute()`` stored under it."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key][0]
        value = compute()
        self.put(key, value)
        return value

    def put(self, key, value) -> None:
        """Store ``value`` under ``key`` (the most recently used), within the bounds."""
        w = self._weigh(value) if self._weigh else 0
        with self._lock:
            if key in self._data:
                self._weight -= self._data.pop(key)[1]
            self._data[key] = (value, w)
            self._weight += w
            while len(self._data) > 1 and (len(self._data) > self.max_entries or (
                    self.max_weight is not None and self._weight > self.max_weight)):
                self._weight -= self._data.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._data)


def grouping_key(groups) -> tuple:
    """A hashable, order-independent key for a grouping (sets of node ids)."""
    return tuple(sorted(tuple(sorted(g)) for g in groups))
