"""The pure-Python layered layout of one container's children."""

from __future__ import annotations

from workbench.app.layered import GAP_X, layered


def rects(pos, sizes):
    return {k: (x - sizes[k][0] / 2, y - sizes[k][1] / 2, x + sizes[k][0] / 2,
                y + sizes[k][1] / 2) for k, (x, y) in pos.items()}


def overlapping(rs):
    items = list(rs.items())
    return [(a, b) for i, (a, ra) in enumerate(items) for b, rb in items[i + 1:]
            if ra[0] < rb[2] and ra[2] > rb[0] and ra[1] < rb[3] and ra[3] > rb[1]]


def test_producers_sit_above_consumers_and_nothing_overlaps():
    sizes = {k: (120.0, 48.0) for k in "abcdef"}
    sizes["big"] = (400.0, 300.0)
    order = {k: i for i, k in enumerate(["a", "b", "c", "big", "d", "e", "f"])}
    edges = [("a", "b"), ("a", "c"), ("b", "big"), ("c", "big"), ("big", "d"), ("d", "e"),
             ("c", "f")]
    pos, (w, h) = layered(sizes, order, edges)
    for s, t in edges:
        assert pos[s][1] < pos[t][1]
    rs = rects(pos, sizes)
    assert overlapping(rs) == []
    assert min(r[0] for r in rs.values()) == 0.0 and min(r[1] for r in rs.values()) == 0.0
    assert max(r[2] for r in rs.values()) <= w + 0.1 and max(r[3] for r in rs.values()) <= h
    assert (pos, (w, h)) == layered(sizes, order, edges)  # deterministic


def test_a_cycle_between_children_is_broken_against_the_order():
    """Ops of two scopes may feed each other both ways; the layout still ranks them."""
    sizes = {k: (100.0, 40.0) for k in "xyz"}
    pos, _ = layered(sizes, {"x": 0, "y": 1, "z": 2}, [("x", "y"), ("y", "z"), ("z", "x")])
    assert pos["x"][1] < pos["y"][1] < pos["z"][1]


def test_an_input_sinks_next_to_its_consumer_and_wide_ranks_wrap():
    sizes = {f"n{k}": (100.0, 40.0) for k in range(5)}
    sizes["w"] = (80.0, 24.0)
    order = {f"n{k}": k for k in range(5)}
    order["w"] = -1
    chain = [(f"n{k}", f"n{k + 1}") for k in range(4)]
    pos, _ = layered(sizes, order, chain + [("w", "n4")])
    assert pos["w"][1] == pos["n3"][1] < pos["n4"][1]  # the rank just above its reader
    many = {f"p{k}": (100.0, 40.0) for k in range(40)}
    pos, (w, h) = layered(many, {k: i for i, k in enumerate(many)}, [], max_width=1000.0)
    assert w <= 1000.0 + GAP_X and len({y for _, y in pos.values()}) >= 4
    assert overlapping(rects(pos, many)) == []


def test_empty():
    assert layered({}, {}, []) == ({}, (0.0, 0.0))
