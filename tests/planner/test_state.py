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
