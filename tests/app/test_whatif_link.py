"""The What-if knobs and the shareable link over real HTTP (no browser): the callbacks as the
browser drives them, each answer's outputs fed back as the browser would."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES_DIR
from workbench.app import ids
from workbench.app.drawing import vertex_ids
from workbench.app.whatif import SLIDERS
from workbench.costmodel import get_device
from workbench.costmodel.knobs import apply_knobs
from workbench.planner import plan_graph


def knob_values(sliders: dict) -> dict:
    """The slider values of a request: ``sliders`` knob -> position, the rest untouched (the
    browser sends the layout's neutral positions; None reads as neutral too)."""
    return {(ids.knob_id(s.knob), "value"): sliders.get(s.knob) for s in SLIDERS}


def whatif(client, sid, sliders, marks=None):
    return client.call(f"{ids.WHATIF_SUMMARY}.children", {
        **knob_values(sliders), (ids.WHATIF_VERSION, "data"): client.version(sid),
        (ids.TABS, "value"): ids.TAB_WHATIF, (ids.MARKS, "data"): marks},
        trigger=f"{ids.knob_id('peak_flops')}.value").props()


def on_h100(app, client):
    sid = client.new_session()
    a = client.call(f"{ids.REPLAN_MSG}.children", {
        (ids.POLICY, "value"): "priority", (ids.DEVICE, "value"): "h100",
        (ids.SESSION, "data"): sid}, trigger=f"{ids.DEVICE}.value")
    assert a.status == 200 and app.services.session(sid)[0].device == "h100"
    return sid


def test_use_this_plan_applies_the_knobs_once_and_puts_the_sliders_back(served):
    # multi_consumer on the h100: at a thousandth of the compute peak the duplication of
    # `producer` into its three consumers is refused (1 kernel -> 2; docs/tuning.md)
    app, _, client = served(SAMPLES_DIR / "multi_consumer.json")
    sid = on_h100(app, client)
    sliders = {"peak_flops": -3}
    shown = whatif(client, sid, sliders)
    assert "decision(s) flipped" in shown[(ids.WHATIF_SUMMARY, "children")]
    marks = shown[(ids.MARKS, "data")]
    # the changed groups' ops are marked on the graph before the plan is used
    graph = app.services.session(sid)[1]
    knobbed = plan_graph(graph, "priority", apply_knobs(get_device("h100"), {
        "peak_flops": get_device("h100").peak_flops / 1000}))
    vid = vertex_ids(graph)
    assert marks["whatif"] == ["g0", "g1"] == [g.id for g in knobbed.groups]
    assert marks["after"] == sorted(vid[n] for g in knobbed.groups for n in g.nodes)
    assert vid["producer"] in marks["step"]            # the flipped "fuse producer"
    a = client.call(f"{ids.WHATIF_MSG}.children", {
        **knob_values(sliders), (ids.WHATIF_APPLY, "n_clicks"): 1, (ids.SESSION, "data"): sid},
        trigger=f"{ids.WHATIF_APPLY}.n_clicks")
    ws = app.services.session(sid)[0]
    assert a.status == 200 and ws.plan.num_kernels == 2
    assert get_device(ws.device).peak_flops == pytest.approx(get_device("h100").peak_flops / 1e3)
    # what the browser holds after the answer: the sliders it sent, unless the answer set them
    back = a.props()
    after = {s.knob: back.get((ids.knob_id(s.knob), "value"), sliders.get(s.knob))
             for s in SLIDERS}
    assert after["peak_flops"] == 0                   # neutral on the knobbed profile
    shown = whatif(client, sid, after, marks)
    text = shown[(ids.WHATIF_SUMMARY, "children")]
    # the knobs are in the session's profile now, and applied once: nothing moved
    assert text.startswith("no knob moved") and "The plan is unchanged" in text, text
    assert shown[(ids.MARKS, "data")] is None         # our marks go with the change


# ----- the shareable link --------------------------------------------------------------------

def follow(client, sid, hash_):
    return client.call(f"{ids.LINK_MSG}.children", {
        (ids.LINK_REQUEST, "data"): hash_, (ids.SESSION, "data"): sid},
        trigger=f"{ids.LINK_REQUEST}.data").props()


def groups_of(plan):
    return sorted(sorted(g.nodes) for g in plan.groups)


def test_a_shared_link_opens_the_same_workspace_in_another_session(served):
    app, s, client = served()
    a = on_h100(app, client)
    ws = app.services.session(a)[0]
    big = max(ws.plan.groups, key=lambda g: g.size)
    assert client.edit(a, ids.SPLIT, big.nodes[0]).status == 200
    edited = app.services.session(a)[0].plan
    assert edited.num_kernels == ws.plan.num_kernels + big.size - 1
    made = client.call(f"{ids.SHARE_URL}.value", {
        (ids.SHARE, "n_clicks"): 1, (ids.SESSION, "data"): a,
        (ids.URL, "href"): s.base + "/#old", **knob_values({"launch_overhead_s": -1})},
        trigger=f"{ids.SHARE}.n_clicks").props()
    url = made[(ids.SHARE_URL, "value")]
    assert url.startswith(s.base + "/#ws=") and "#old" not in url
    assert "opening it restores" in made[(ids.LINK_MSG, "children")]
    b = client.new_session()
    assert app.services.session(b)[0].device == "cpu"
    got = follow(client, b, url[len(s.base) + 1:])
    assert got[(ids.LINK_MSG, "children")].startswith("opened the shared link")
    assert got[(ids.URL, "hash")] == ""                 # followed once: a reload is the session
    assert got[(ids.knob_id("launch_overhead_s"), "value")] == -1
    ws_b = app.services.session(b)[0]
    assert (ws_b.choice, ws_b.policy, ws_b.device) == ("sample:transformer_block", "priority",
                                                       "h100")
    assert groups_of(ws_b.plan) == groups_of(edited) and ws_b.position == 1  # undo: proposal
    # following it again changes nothing more
    again = follow(client, b, url[len(s.base) + 1:])
    assert (ids.VERSION, "data") not in again and app.services.session(b)[0].position == 1


def _token(doc) -> str:
    import base64
    import json
    import zlib

    raw = zlib.compress(json.dumps(doc).encode())
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("hash_, words", [
    ("#ws=garbage!!", "damaged"),
    ("#ws=" + "A" * 9000, "too long"),
    ("#ws=" + _token({"v": 1, "g": "file:7", "p": "priority", "d": "cpu"}), "does not offer"),
    ("#ws=" + _token({"v": 1, "g": "../../etc/passwd", "p": "priority", "d": "cpu"}),
     "does not offer"),
    ("#ws=" + _token({"v": 1, "g": "sample:mlp", "h": "0" * 16, "p": "priority", "d": "cpu"}),
     "graph is not available"),
    ("#ws=" + _token({"v": 1, "g": "sample:mlp", "p": "priority", "d": "cpu",
                      "k": {"peak_flops": 99}}), "outside its slider's range"),
    ("#ws=" + _token({"v": 1, "g": "sample:mlp", "p": "priority", "d": "cpu",
                      "f": [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]]}), "illegal group"),
])
def test_a_bad_link_is_one_line_and_changes_nothing(served, hash_, words):
    app, _, client = served()
    sid = client.new_session()
    before = app.services.session(sid)[0]
    got = follow(client, sid, hash_)
    text = str(got[(ids.LINK_MSG, "children")])
    assert "the link was not opened" in text and words in text and "\n" not in text, text
    assert (ids.VERSION, "data") not in got
    after = app.services.session(sid)[0]
    assert after.choice == before.choice and after.plan == before.plan
