"""The Model Explorer export, loaded by the ai-edge-model-explorer package: its graph and node
data dataclasses read the files strictly, and its extension manager runs our adapter."""

import json

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.costmodel import plan_cost
from workbench.exporters.model_explorer import KIND_VALUES, explorer_graphs, node_data
from workbench.importers import load_graph
from workbench.planner import plan_graph

model_explorer = pytest.importorskip("model_explorer")
dacite = pytest.importorskip("dacite")
STRICT = dacite.Config(strict=True)


def _export(name="transformer_block"):
    g = load_graph(SAMPLES_DIR / f"{name}.json")
    plan = plan_graph(g)
    return g, plan, plan_cost(g, plan)


def test_the_graph_file_loads_as_model_explorer_graphs(tmp_path):
    from model_explorer import graph_builder

    g, plan, cost = _export()
    path = tmp_path / "g.json"
    path.write_text(json.dumps(explorer_graphs(g, plan, cost)))
    (doc,) = json.loads(path.read_text())["graphs"]
    graph = dacite.from_dict(graph_builder.Graph, doc, config=STRICT)
    assert graph.id == g.name and len(graph.nodes) == len(g.nodes)
    by_id = {n.id: n for n in graph.nodes}
    for grp in plan.groups:                      # a layer per kernel, holding its ops
        for nid in grp.nodes:
            if plan.group_of(nid).id == grp.id:
                assert by_id[nid].namespace.startswith(f"{grp.id} {grp.kind} fusion")
    assert {ns.split(" ")[0] for ns in graph.groupNodeAttributes} == {x.id for x in plan.groups}
    edges = sum(len(n.incomingEdges) for n in graph.nodes)
    assert edges == sum(len(n.operands) for n in g.nodes)


def test_the_overlays_load_as_node_data(tmp_path):
    from model_explorer import node_data_builder

    g, plan, cost = _export()
    docs = node_data(g, plan, cost, measured={x.id: 1e-5 for x in plan.groups})
    assert set(docs) == {"predicted_us", "bytes", "kind", "measured_us"}
    for name, doc in docs.items():
        data = dacite.from_dict(node_data_builder.GraphNodeData, doc[g.name], config=STRICT)
        assert data.name == name and data.results
    pred = docs["predicted_us"][g.name]["results"]
    x = plan.groups[0]
    assert pred[x.nodes[0]]["value"] == pytest.approx(cost.groups[x.id].predicted_s * 1e6)
    assert docs["kind"][g.name]["results"][x.nodes[0]]["value"] == KIND_VALUES[x.kind]
    assert docs["measured_us"][g.name]["results"][x.nodes[0]]["value"] == pytest.approx(10.0)


def test_the_adapter_extension_runs_in_model_explorers_extension_manager():
    from model_explorer.extension_manager import ExtensionManager

    m = ExtensionManager(["workbench.exporters.model_explorer"])
    m.load_extensions()
    assert "fusion_workbench" in {e.metadata.id for e in m.extensions}
    resp = m.run_cmd({"extensionId": "fusion_workbench", "cmdId": "convert",
                      "modelPath": str(SAMPLES_DIR / "mlp.json"), "settings": {"device": "h100"},
                      "deleteAfterConversion": False})
    (graph,) = resp["graphs"]
    g = load_graph(SAMPLES_DIR / "mlp.json")
    assert graph["id"] == g.name and len(graph["nodes"]) == len(g.nodes)
    assert any(n["namespace"].startswith("g0 output fusion") for n in graph["nodes"])
