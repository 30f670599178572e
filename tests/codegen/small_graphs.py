"""Small versions of the sample graphs and shared HLO models, for the CUDA simulator.

The simulator runs every CUDA thread as a Python thread, so the real sizes (a [256, 1024]
softmax, a transformer block) take minutes. :func:`shrink_graph` rewrites every dimension size
through a per-graph map (chosen so that reshapes stay consistent: 128 = 4 heads x 32 becomes
8 = 4 x 2) and re-verifies the graph; literal values (a mean's 1/512) are left alone, which is
fine because the shrunk graph is compared with the reference interpreter on the same graph.
"""

from __future__ import annotations

import os
from pathlib import Path

from workbench.importers import load_graph
from workbench.transforms.resize import resize_graph

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_graphs"
#: the shared models, beside the checkout (as in CI); WORKBENCH_HLO_DIR overrides (device runs)
HLO = Path(os.environ.get("WORKBENCH_HLO_DIR") or REPO.parent / "shared" / "hlo")

_TRANSFORMER = {64: 4, 128: 8, 32: 2, 384: 24, 512: 32, 256: 16}
_MLP = {32: 4, 256: 8, 512: 16, 128: 8}

#: graph name -> dimension size map
SIZE_MAPS = {
    "chain10": {65536: 64}, "chain10_transc": {65536: 64}, "multi_consumer": {65536: 64},
    "sin_cos": {65536: 64}, "softmax": {256: 4, 1024: 16},
    "layernorm_gelu": {256: 4, 512: 16}, "mlp": _MLP, "resnet_block": {16: 4},
    "transformer_block": _TRANSFORMER, "conv_bias_relu": {32: 4, 16: 4},
    "matmul_bias_gelu": {128: 4, 256: 8, 512: 16}, "reduce_broadcast": {512: 8, 256: 16},
}

SAMPLE_NAMES = sorted(p.stem for p in SAMPLES.glob("*.json"))
HLO_NAMES = ("chain10", "chain10_transc", "softmax", "layernorm_gelu", "mlp",
             "transformer_block", "resnet_block")

def shrink_graph(graph, size_map):
    """The graph with its dimensions mapped through ``size_map`` (see ``resize_graph``)."""
    return resize_graph(graph, size_map, graph.name + "_small")


def load_sample(name: str):
    return load_graph(str(SAMPLES / f"{name}.json"))


def load_hlo(name: str, stage: str = "before"):
    return load_graph(str(HLO / f"{name}.{stage}.hlo"))


def small(graph, name: str):
    """The shrunk version of a sample graph or HLO model called ``name``."""
    return shrink_graph(graph, SIZE_MAPS[name])
