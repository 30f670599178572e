"""The incremental group graph: cycle answers and topological ranks agree with networkx."""

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.ir import GraphBuilder
from workbench.costmodel.devices import GPU_PROFILES
from workbench.ir.index import GraphIndex
from workbench.planner.state import FusionState


def random_graph(draw_ops):
    b = GraphBuilder("rand")
    vals = [b.parameter("p0", (4,)), b.parameter("p1", (4,))]
    for k, (kind, i, j) in enumerate(draw_ops):
        a, c = vals[i % len(vals)], vals[j % len(vals)]
        vals.append(b.op("add", [a, c], node_id=f"n{k}") if kind else
                    b.op("negate", [a], node_id=f"n{k}"))
    return b.build([vals[-1]])


def group_graph(state):
    """Recompute the graph of groups from scratch: writer group -> reader group."""
    g = nx.DiGraph()
    g.add_nodes_from(state.groups)
    for gid, grp in state.groups.items():
        for m in grp.members:
            for o in state.ix.operands[m]:
                if not state.ix.source[o] and o not in grp.members:
                    g.add_edge(state.home[o], gid)
    return g


ops = st.lists(st.tuples(st.booleans(), st.integers(0, 40), st.integers(0, 40)),
               min_size=3, max_size=25)
merges = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(ops, merges)
def test_unions_keep_ranks_topological_and_refuse_exactly_the_cycles(draw_ops, pairs):
    state = FusionState(GraphIndex(random_graph(draw_ops)), GPU_PROFILES["h100"])
    for i, j in pairs:
        gids = sorted(state.groups)
        a, b = state.groups[gids[i % len(gids)]], state.groups[gids[j % len(gids)]]
        if a is b:
            continue
        before = group_graph(state)
        quotient = nx.contracted_nodes(before, a.gid, b.gid, self_loops=False)
        ranks = state.reorder_for_union(a, b, direct_ok=True)
        assert (ranks is False) == (not nx.is_directed_acyclic_graph(quotient))
        if ranks is False:
            continue
        state.union(a, b, ranks)
        now = group_graph(state)
        assert set(now.edges) == {(x, y) for x, ys in state.succ.items() for y in ys}
        assert all(state.groups[x].rank < state.groups[y].rank for x, y in now.edges)


@settings(max_examples=40, deadline=None)
@given(ops)
def test_fusing_a_producer_into_all_consumers_never_makes_a_cycle(draw_ops):
    state = FusionState(GraphIndex(random_graph(draw_ops)), GPU_PROFILES["h100"])
    for gid in sorted(state.groups, reverse=True)[::2]:
        if gid not in state.groups or not state.succ[gid]:
            continue
        p = state.groups[gid]
        state.fuse_into_consumers(p, [state.groups[c] for c in sorted(state.succ[gid])])
        g = group_graph(state)
        assert nx.is_directed_acyclic_graph(g)
        assert all(state.groups[x].rank < state.groups[y].rank for x, y in g.edges)


def reference_reorder(state, a, b, direct_ok):
    """reorder_for_union as it was before the rank-guided walk (two depth-first walks, no
    budget): the answer the planner's plans were recorded with."""
    if a.rank > b.rank:
        a, b = b, a
    lo, hi, groups = a.rank, b.rank, state.groups
    down, stack = set(), [s for s in state.succ[a.gid] if not (direct_ok and s == b.gid)]
    while stack:
        x = stack.pop()
        if x == b.gid:
            return False
        if x not in down and groups[x].rank <= hi:
            down.add(x)
            stack.extend(state.succ[x])
    up, stack = set(), [q for q in state.pred[b.gid] if q != a.gid]
    while stack:
        x = stack.pop()
        if x not in up and groups[x].rank >= lo:
            up.add(x)
            stack.extend(state.pred[x])
    slots = sorted([groups[x].rank for x in up | down] + [lo, hi])
    seq = sorted(up, key=lambda x: groups[x].rank) + [None] + \
        sorted(down, key=lambda x: groups[x].rank)
    return list(zip(seq, slots))


@settings(max_examples=60, deadline=None)
@given(ops, merges, st.lists(st.booleans(), min_size=30, max_size=30))
def test_the_rank_guided_walk_answers_as_the_depth_first_walks_did(draw_ops, pairs, direct):
    """Same answer (cycle or not) and the same new ranks, with or without a direct edge allowed:
    plans depend on the ranks (groups are tried and listed in rank order)."""
    state = FusionState(GraphIndex(random_graph(draw_ops)), GPU_PROFILES["h100"])
    for (i, j), direct_ok in zip(pairs, direct):
        gids = sorted(state.groups)
        a, b = state.groups[gids[i % len(gids)]], state.groups[gids[j % len(gids)]]
        if a is b:
            continue
        ranks = state.reorder_for_union(a, b, direct_ok)
        assert ranks == reference_reorder(state, a, b, direct_ok)
        if ranks is not False:
            state.union(a, b, ranks)
