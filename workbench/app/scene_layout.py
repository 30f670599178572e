"""Positions for a scene: nested boxes laid out one container at a time, kept across edits.

Two ways to place a :class:`~workbench.app.scene.Scene` (no Dash here):

- :func:`layout_scene` with no usable previous layout, or after the view changed (a layer
  opened or closed): every open container is laid out by :func:`~workbench.app.layered.layered`
  with its children as rectangles, bottom up, so boxes nest and never overlap (no box covers
  another group, an op outside it, or an input). A container whose contents are exactly what
  they were (same *signature*) keeps its inside as it was and moves as one block: opening a
  layer rearranges the layers around it, not the insides of the others.
- after an edit (the same view, another grouping): every op, input and box that is still there
  stays where it was; a group that is new (a merge, a move's target) keeps its ops where they
  were if its box, drawn there, covers nothing else; otherwise it is laid out on its own and
  put in the free place nearest to where its ops were, such that neither it nor any box that
  grows to hold it covers anything (:func:`place_unit`). If no place is found, the scene is
  laid out afresh and the layout's ``note`` says so.

Rectangles are (x0, y0, x1, y1) in pixels, y down; a container's rectangle includes its padding
and the band above it that holds its title.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from workbench.app.layered import GAP_X, layered
from workbench.app.scene import ROOT, Item, Scene, child_edges

#: the clear margin kept around a placed unit (pixels)
MARGIN = 14.0
#: rings of the search for a free place: (outer radius, grid step) in pixels
SEARCH_BANDS = ((600.0, 30.0), (2000.0, 60.0), (6000.0, 150.0), (20000.0, 400.0))
#: more new units than this after an edit: lay the scene out afresh instead
MAX_UNITS = 60


@dataclass
class SceneLayout:
    """Where everything of a scene is.

    Attributes
    ----------
    positions : dict
        Leaf key -> (x, y) of its centre.
    rects : dict
        Item key -> (x0, y0, x1, y1), every item but the root.
    sigs : dict
        Container key -> signature of what it holds (see the module docstring).
    scene : Scene
        The scene it places (a new layout asks it where a vertex was drawn).
    note : str
        Why the layout was made afresh after an edit, or ``""``.
    moved : int
        Units placed anew by the last edit (0 for a fresh layout).
    parents : dict
        Item key -> the key of the container that held it.
    """

    positions: dict
    rects: dict
    sigs: dict
    scene: Scene | None = None
    note: str = ""
    moved: int = 0
    parents: dict = field(default_factory=dict)


def parents_of(scene: Scene) -> dict:
    """Item key -> its container's key (the root's children: the root's key)."""
    return {k: it.parent.key for k, it in scene.items.items() if it.parent is not None}


def signatures(scene: Scene) -> dict:
    """Container key -> a short hash of its subtree (keys, kinds, collapsed or not)."""
    sigs: dict[str, str] = {}

    def sig(it: Item) -> str:
        if it.leaf:
            return f"{it.key}{'#' if it.box else ''}"
        inner = "|".join(sig(c) for c in it.children)
        h = hashlib.blake2b(f"{it.key}:{it.kind}:{inner}".encode(), digest_size=8).hexdigest()
        sigs[it.key] = h
        return h

    sig(scene.root)
    return sigs


def _rect_size(it: Item, content: tuple) -> tuple:
    if it.leaf:
        return it.size()
    pad, title = it.pads()
    return content[0] + 2 * pad, content[1] + 2 * pad + title


def _content_origin(it: Item, rect_x0: float, rect_y0: float) -> tuple:
    pad, title = it.pads()
    return rect_x0 + pad, rect_y0 + title + pad


def _arrange(it: Item, edges: dict, prev: SceneLayout | None, sigs: dict, rel: dict,
             sizes: dict) -> tuple:
    """Lay out ``it``'s subtree bottom up; fills ``rel`` (child key -> its rectangle's
    top-left in the parent's content frame) and ``sizes`` (key -> rectangle size)."""
    for c in it.children:
        if not c.leaf:
            _arrange(c, edges, prev, sigs, rel, sizes)
        else:
            sizes[c.key] = c.size()
    kept = prev is not None and prev.sigs.get(it.key) == sigs.get(it.key) and all(
        c.key in prev.rects for c in it.children)
    if kept:
        x0 = min(prev.rects[c.key][0] for c in it.children)
        y0 = min(prev.rects[c.key][1] for c in it.children)
        for c in it.children:
            r = prev.rects[c.key]
            rel[c.key] = (r[0] - x0, r[1] - y0)
        w = max(rel[c.key][0] + sizes[c.key][0] for c in it.children)
        h = max(rel[c.key][1] + sizes[c.key][1] for c in it.children)
    else:
        pos, (w, h) = layered({c.key: sizes[c.key] for c in it.children},
                              {c.key: c.order for c in it.children},
                              sorted(edges.get(it.key, ())))
        for c in it.children:
            cx, cy = pos[c.key]
            rel[c.key] = (cx - sizes[c.key][0] / 2.0, cy - sizes[c.key][1] / 2.0)
    sizes[it.key] = _rect_size(it, (w, h))
    return w, h


def _place_down(it: Item, x0: float, y0: float, rel: dict, sizes: dict, positions: dict,
                rects: dict) -> None:
    """Absolute rectangles and leaf centres of ``it``'s subtree, its rectangle at (x0, y0)."""
    w, h = sizes[it.key]
    if it.key != ROOT:
        rects[it.key] = (x0, y0, x0 + w, y0 + h)
    if it.leaf:
        positions[it.key] = (round(x0 + w / 2.0, 1), round(y0 + h / 2.0, 1))
        return
    ox, oy = _content_origin(it, x0, y0)
    for c in it.children:
        rx, ry = rel[c.key]
        _place_down(c, ox + rx, oy + ry, rel, sizes, positions, rects)


def fresh_layout(scene: Scene, prev: SceneLayout | None = None, note: str = "") -> SceneLayout:
    """Lay every open container out (keeping the inside of those whose signature matches
    ``prev``'s), bottom up; the root's content starts at (0, 0)."""
    sigs = signatures(scene)
    rel: dict = {}
    sizes: dict = {}
    _arrange(scene.root, child_edges(scene), prev, sigs, rel, sizes)
    positions: dict = {}
    rects: dict = {}
    _place_down(scene.root, 0.0, 0.0, rel, sizes, positions, rects)
    return SceneLayout(positions, rects, sigs, scene, note, 0, parents_of(scene))


# ----- after an edit: keep what stayed, place what is new --------------------------------------

def compute_rects(scene: Scene, positions: dict, skip: set = frozenset()) -> dict:
    """Rectangles of every item from the leaf centres in ``positions`` (containers: the
    bounding box of their children's rectangles, plus padding and title band); items in
    ``skip`` (and everything under them) and leaves without a position are left out."""
    rects: dict = {}

    def up(it: Item):
        if it.key in skip:
            return None
        if it.leaf:
            p = positions.get(it.key)
            if p is None:
                return None
            w, h = it.size()
            r = (p[0] - w / 2.0, p[1] - h / 2.0, p[0] + w / 2.0, p[1] + h / 2.0)
        else:
            kids = [r for r in (up(c) for c in it.children) if r is not None]
            if not kids:
                return None
            pad, title = it.pads()
            r = (min(k[0] for k in kids) - pad, min(k[1] for k in kids) - pad - title,
                 max(k[2] for k in kids) + pad, max(k[3] for k in kids) + pad)
        if it.key != ROOT:
            rects[it.key] = r
        return r

    up(scene.root)
    return rects


def _overlap(a, b) -> bool:
    return a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]


#: boxes kept in place after an edit must stay this far apart (pixels): borders (up to 6 px
#: for a pinned or selected box) are drawn outside the rectangles
CLEARANCE = 16.0


def sibling_overlaps(scene: Scene, rects: dict, clearance: float = 0.0) -> list:
    """Pairs of children of one container whose rectangles overlap, or come closer than
    ``clearance`` pixels."""
    out = []
    c = clearance / 2.0
    for it in scene.items.values():
        kids = [c for c in it.children if c.key in rects]
        if len(kids) < 2:
            continue
        arr = np.array([rects[k.key] for k in kids]) + np.array([-c, -c, c, c])
        hit = ((arr[:, None, 0] < arr[None, :, 2]) & (arr[:, None, 2] > arr[None, :, 0])
               & (arr[:, None, 1] < arr[None, :, 3]) & (arr[:, None, 3] > arr[None, :, 1]))
        ii, jj = np.nonzero(np.triu(hit, 1))
        out += [(kids[i], kids[j]) for i, j in zip(ii.tolist(), jj.tolist())]
    return out


def _displaced(it: Item, scene: Scene, prev: SceneLayout) -> bool:
    """True when ``it`` has left a container that is still drawn (an op split out of a group
    into another layer): where it was is inside that container's box."""
    now = set()
    cur = it.parent
    while cur is not None:
        now.add(cur.key)
        cur = cur.parent
    old = prev.parents.get(it.key)
    while old is not None and old != ROOT:
        if old not in now and old in scene.items:
            return True
        old = prev.parents.get(old)
    return False


def _new_inside(it: Item, scene: Scene, prev: SceneLayout) -> list:
    """The topmost items under ``it`` (itself included) that ``prev`` did not have, or had
    in another container (:func:`_displaced`)."""
    if it.key not in prev.rects or _displaced(it, scene, prev):
        return [it]
    return [x for c in it.children for x in _new_inside(c, scene, prev)]


def _unit_of(it: Item, prev: SceneLayout) -> Item:
    """The topmost ancestor of ``it`` (below the root) that ``prev`` lacks, else ``it``."""
    unit, cur = it, it.parent
    while cur is not None and cur.key != ROOT:
        if cur.key not in prev.rects:
            unit = cur
        cur = cur.parent
    return unit


def incremental_layout(scene: Scene, prev: SceneLayout) -> SceneLayout | None:
    """The layout after an edit (see the module docstring), or None when the scene is not
    an edit of ``prev``'s or a new unit finds no place."""
    positions = {k: prev.positions[k] for k, it in scene.items.items()
                 if it.leaf and k in prev.positions}
    units: dict[str, Item] = {}
    for it in scene.items.values():
        if it.leaf and it.key not in positions:
            u = _unit_of(it, prev)
            units[u.key] = u
    for _ in range(4):
        if len(units) > MAX_UNITS:
            return None
        rects = compute_rects(scene, positions, set(units))
        culprits = {}
        for a, b in sibling_overlaps(scene, rects, CLEARANCE):
            for x in (_new_inside(a, scene, prev) + _new_inside(b, scene, prev)):
                culprits[x.key] = x
        if not culprits:
            break
        units.update(culprits)
    else:
        return None
    sigs = signatures(scene)
    order = sorted(units.values(), key=lambda u: -u.n_vertices)
    for u in order:
        if not place_unit(scene, u, positions, prev, sigs, set(units)):
            return None
        units.pop(u.key)
    rects = compute_rects(scene, positions)
    return SceneLayout(positions, rects, sigs, scene, "", len(order), parents_of(scene))


def _unit_inside(scene: Scene, unit: Item, prev: SceneLayout, sigs: dict) -> tuple:
    """A unit's own layout: (its rectangle size, leaf key -> centre relative to its
    rectangle's top-left)."""
    if unit.leaf:
        w, h = unit.size()
        return (w, h), {unit.key: (w / 2.0, h / 2.0)}
    rel: dict = {}
    sizes: dict = {}
    sub = Scene(unit, scene.items, scene.edges, scene.group_keys, scene.index,
                scene.unit_leaf)
    _arrange(unit, child_edges(sub), prev, sigs, rel, sizes)
    positions: dict = {}
    _place_down(unit, 0.0, 0.0, rel, sizes, positions, {})
    return sizes[unit.key], positions


def _desired(scene: Scene, unit: Item, prev: SceneLayout) -> tuple | None:
    """Where the unit's vertices were drawn before (the mean of their old leaves' centres)."""
    if prev.scene is None:
        return None
    old = []
    for v in scene.vertices_in(unit):
        leaf = prev.scene.leaf_of(v)
        if leaf is not None and leaf in prev.positions:
            old.append(prev.positions[leaf])
    if not old:
        return None
    return (sum(p[0] for p in old) / len(old), sum(p[1] for p in old) / len(old))


def _within(it: Item, ancestor: Item) -> bool:
    while it is not None:
        if it is ancestor:
            return True
        it = it.parent
    return False


def place_unit(scene: Scene, unit: Item, positions: dict, prev: SceneLayout, sigs: dict,
               pending: set) -> bool:
    """Put ``unit`` (with its own layout) in the free place nearest to where its ops were,
    such that it covers nothing and every box that grows to hold it covers nothing; writes
    its leaves' centres into ``positions``. False when no place is found."""
    (w, h), inside = _unit_inside(scene, unit, prev, sigs)
    rects = compute_rects(scene, positions, pending)
    chain = []
    cur = unit.parent
    while cur is not None and cur.key != ROOT:
        chain.append(cur)
        cur = cur.parent
    ancestors = {a.key for a in chain}
    obstacles = np.array([r for k, r in rects.items() if k not in ancestors] or
                         [(0.0, 0.0, 0.0, 0.0)])
    want = _desired(scene, unit, prev)
    if want is None:
        host = rects.get(unit.parent.key) if unit.parent is not None else None
        want = ((host[0] + host[2]) / 2, (host[1] + host[3]) / 2) if host else (0.0, 0.0)
    for cx, cy in _candidates(want, w, h, obstacles):
        r = (cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0)
        if _grows_clear(r, chain, rects):
            for k, (px, py) in inside.items():
                positions[k] = (round(r[0] + px, 1), round(r[1] + py, 1))
            return True
    return False


def _candidates(want: tuple, w: float, h: float, obstacles: np.ndarray):
    """Free centres for a w x h rectangle, nearest to ``want`` first, band by band."""
    inner = 0.0
    for outer, step in SEARCH_BANDS:
        n = int(outer // step)
        g = np.arange(-n, n + 1) * step
        gx, gy = np.meshgrid(g, g)
        d = np.hypot(gx, gy).ravel()
        keep = (d >= inner) & (d <= outer)
        cx, cy, d = want[0] + gx.ravel()[keep], want[1] + gy.ravel()[keep], d[keep]
        lo_x, lo_y = cx - w / 2 - MARGIN, cy - h / 2 - MARGIN
        hi_x, hi_y = cx + w / 2 + MARGIN, cy + h / 2 + MARGIN
        near = obstacles[(obstacles[:, 0] < hi_x.max()) & (obstacles[:, 2] > lo_x.min())
                         & (obstacles[:, 1] < hi_y.max()) & (obstacles[:, 3] > lo_y.min())]
        free = np.ones(len(cx), dtype=bool)
        for chunk in range(0, len(near), 2048):
            o = near[chunk:chunk + 2048]
            hit = ((lo_x[:, None] < o[None, :, 2]) & (hi_x[:, None] > o[None, :, 0])
                   & (lo_y[:, None] < o[None, :, 3]) & (hi_y[:, None] > o[None, :, 1]))
            free &= ~hit.any(axis=1)
        for k in np.argsort(d[free], kind="stable")[:200]:
            yield float(cx[free][k]), float(cy[free][k])
        inner = outer


def _grows_clear(r: tuple, chain: list, rects: dict) -> bool:
    """True when every container in ``chain`` (innermost first), grown to hold ``r``, still
    covers none of its siblings."""
    cur = (r[0] - MARGIN / 2, r[1] - MARGIN / 2, r[2] + MARGIN / 2, r[3] + MARGIN / 2)
    for a in chain:
        pad, title = a.pads()
        grown = (cur[0] - pad, cur[1] - pad - title, cur[2] + pad, cur[3] + pad)
        old = rects.get(a.key)
        if old is not None:
            grown = (min(old[0], grown[0]), min(old[1], grown[1]), max(old[2], grown[2]),
                     max(old[3], grown[3]))
        siblings = a.parent.children if a.parent is not None else []
        for s in siblings:
            if s is not a and s.key in rects and _overlap(grown, rects[s.key]):
                return False
        cur = grown
    return True


def layout_scene(scene: Scene, prev: SceneLayout | None, edit: bool) -> SceneLayout:
    """The scene's layout: after an edit (``edit``, the same view as ``prev``'s) everything
    that stayed keeps its place; otherwise laid out afresh, keeping unchanged containers'
    insides (see the module docstring)."""
    if prev is not None and edit:
        out = incremental_layout(scene, prev)
        if out is not None:
            return out
        return fresh_layout(scene, prev, "laid out afresh: a changed group found no free "
                                         "place near its ops")
    return fresh_layout(scene, prev)


__all__ = ["GAP_X", "SceneLayout", "compute_rects", "fresh_layout", "incremental_layout",
           "layout_scene", "place_unit", "sibling_overlaps", "signatures"]
