"""The shareable link's token (workbench.app.link): round trip, and refusals of bad links."""

import base64
import json
import zlib

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app.link import MAX_TOKEN, decode_state, encode_state, restore_plan
from workbench.costmodel import get_device
from workbench.editing import Split, apply_edit
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.planner import POLICIES, plan_graph

CHOICES = ("sample:transformer_block", "sample:mlp", "file:0")


def decode(token):
    return decode_state(token, CHOICES, POLICIES, get_device)


def test_an_edited_plan_round_trips_through_a_link():
    graph = load_graph(SAMPLES_DIR / "transformer_block.json")
    plan = plan_graph(graph, "greedy", "h100")
    big = max(plan.groups, key=lambda g: len(g.nodes))
    edited = apply_edit(graph, plan, Split(big.nodes[0]))
    token = encode_state("sample:transformer_block", "greedy", "h100+launch_overhead_s=1e-06",
                         edited, graph)
    assert len(token) < 2000 and "=" not in token
    state = decode(token)
    assert state["choice"] == "sample:transformer_block" and state["policy"] == "greedy"
    assert state["device"] == "h100+launch_overhead_s=1e-06"
    back = restore_plan(graph, state["groups"], "greedy", state["device"])
    assert sorted(sorted(g.nodes) for g in back.groups) == \
        sorted(sorted(g.nodes) for g in edited.groups)
    assert back.num_kernels == edited.num_kernels == plan.num_kernels + len(big.nodes) - 1


def _token(doc) -> str:
    raw = zlib.compress(json.dumps(doc).encode())
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("token, words", [
    ("", "holds no workspace state"),
    ("x" * (MAX_TOKEN + 1), "too long"),
    ("not-base64!!", "damaged"),
    (base64.urlsafe_b64encode(b"hello").decode(), "damaged"),
    (_token({"v": 2}), "not a workbench link"),
    (_token({"v": 1, "g": "/etc/passwd", "p": "priority", "d": "cpu"}), "does not offer"),
    (_token({"v": 1, "g": "file:7", "p": "priority", "d": "cpu"}), "does not offer"),
    (_token({"v": 1, "g": "sample:mlp", "p": "nope", "d": "cpu"}), "unknown planner policy"),
    (_token({"v": 1, "g": "sample:mlp", "p": "priority", "d": "tpu9"}), "device profile"),
    (_token({"v": 1, "g": "sample:mlp", "p": "priority", "d": "cpu", "f": [["a", 1]]}),
     "malformed"),
    (_token({"v": 1, "g": "sample:mlp", "p": "priority", "d": "cpu", "f": "x" * 300_000}),
     "too big once unpacked"),
])
def test_a_bad_link_is_one_line(token, words):
    with pytest.raises(InputError) as e:
        decode(token)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_link_whose_groups_do_not_fit_the_graph_is_refused():
    graph = load_graph(SAMPLES_DIR / "mlp.json")
    with pytest.raises(InputError, match="past its end"):
        restore_plan(graph, [[0, 10_000]], "priority", "cpu")
    with pytest.raises(InputError, match="cannot be shared"):
        encode_state(None, "priority", "cpu", plan_graph(graph), graph)
