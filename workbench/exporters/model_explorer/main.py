"""A Model Explorer adapter extension: open workbench graphs in the viewer, grouped by kernel.

``pip install ai-edge-model-explorer`` and ``model-explorer
--extensions=workbench.exporters.model_explorer``: the viewer then opens ``.hlo`` and
workbench ``.json`` graph files through :class:`WorkbenchAdapter`, which loads the graph
(:func:`workbench.importers.load_graph`; nothing in the file is executed), plans it with the
``priority`` policy on the ``cpu`` profile (``settings`` may name another ``policy`` and
``device``) and returns :func:`~workbench.exporters.model_explorer.explorer_graphs`. Model
Explorer imports an extension's ``main`` module; this is it. It imports the
``model_explorer`` package, which only this module does.
"""

from __future__ import annotations

import dacite
from model_explorer import Adapter, AdapterMetadata, graph_builder

from workbench.exporters.model_explorer import explorer_graphs


def to_graph_objects(doc: dict) -> dict:
    """``{"graphs": [...]}`` as Model Explorer's own ``graph_builder.Graph`` objects (checked
    field by field, strictly: an unknown or mistyped field raises ``dacite`` 's error)."""
    cfg = dacite.Config(strict=True)
    return {"graphs": [dacite.from_dict(graph_builder.Graph, g, config=cfg)
                       for g in doc["graphs"]]}


def convert_file(model_path: str, settings: dict | None = None) -> dict:
    """The Model Explorer graphs of a workbench graph file (see the module notes).

    Raises
    ------
    WorkbenchError
        If the file is not a graph, or the policy or device is unknown.
    """
    from workbench.costmodel import plan_cost
    from workbench.importers import load_graph
    from workbench.planner import plan_graph

    settings = settings or {}
    graph = load_graph(model_path)
    device = str(settings.get("device", "cpu"))
    plan = plan_graph(graph, str(settings.get("policy", "priority")), device)
    return explorer_graphs(graph, plan, plan_cost(graph, plan, device))


class WorkbenchAdapter(Adapter):
    """Workbench graphs (HLO text, workbench JSON) with their fusion groups as layers."""

    metadata = AdapterMetadata(
        id="fusion_workbench", name="Fusion Workbench",
        description="XLA HLO text and Fusion Workbench JSON graphs, with the fusion "
                    "planner's kernels as layers", source_repo="", fileExts=["hlo", "json"])

    def convert(self, model_path: str, settings: dict) -> dict:
        """Model Explorer's adapter call: the graphs of ``model_path``."""
        return to_graph_objects(convert_file(model_path, settings))
