"""The real XLA modules in ../shared/hlo: every file imports, verifies and reproduces JAX."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import MODELS, shared_hlo_dir
from workbench.importers import load_graph
from workbench.ir import evaluate, verify

STAGES = ("before", "after", "after_noynn")


def _io(model):
    with np.load(shared_hlo_dir() / f"{model}.io.npz") as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("model", MODELS)
def test_imports_and_verifies(model, stage):
    g = load_graph(shared_hlo_dir() / f"{model}.{stage}.hlo")
    assert verify(g) is g
    io = _io(model)
    n_args = sum(1 for k in io if k.startswith("arg"))
    n_outs = sum(1 for k in io if k.startswith("out"))
    assert len(g.parameters) == n_args
    assert len(g.outputs) == n_outs
    for p in g.parameters:
        assert p.type.shape == io[f"arg{p.attrs['index']}"].shape
    assert not [n.id for n in g.nodes if n.op == "opaque"]     # every op is understood


@pytest.mark.parametrize("stage", ("before", "after_noynn"))
@pytest.mark.parametrize("model", MODELS)
def test_reproduces_jax_outputs(model, stage):
    g = load_graph(shared_hlo_dir() / f"{model}.{stage}.hlo")
    io = _io(model)
    outs = evaluate(g, io)
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, io[f"out{i}"], rtol=1e-4, atol=1e-5,
                                   err_msg=f"{model}.{stage} out{i}")


@pytest.mark.parametrize("model", MODELS)
def test_optimised_modules_carry_xla_fusion_tags(model):
    g = load_graph(shared_hlo_dir() / f"{model}.after_noynn.hlo")
    tagged = [n for n in g.nodes if "xla_fusion" in n.meta]
    assert tagged, "the flattened fusions must be tagged"
    assert {n.meta["xla_fusion_kind"] for n in tagged} == {"kLoop"}
    # parameters of the entry computation are never inside a fusion
    assert not any("xla_fusion" in p.meta for p in g.parameters)
    assert g.meta["has_xla_fusions"] is True


def test_chain10_after_is_one_fusion_of_the_whole_chain():
    g = load_graph(shared_hlo_dir() / "chain10.after_noynn.hlo")
    fusions = {n.meta.get("xla_fusion") for n in g.nodes if n.op != "parameter"}
    assert fusions == {"broadcast_add_fusion"}
    assert g.outputs == ("add.1",)        # the fusion's ROOT stands for the fusion's value


def test_transformer_before_inlines_calls():
    g = load_graph(shared_hlo_dir() / "transformer_block.before.hlo")
    assert not any(n.op == "call" for n in g.nodes)
    # jit_relu-like calls keep the call's name on the inlined root (users read it directly)
    text = (shared_hlo_dir() / "transformer_block.before.hlo").read_text()
    assert "call(" in text
