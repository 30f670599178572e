"""The What-if knobs and the shareable link over real HTTP (no browser): the callbacks as the
browser drives them, each answer's outputs fed back as the browser would."""

from __future__ import annotations

import pytest

from tests.app.http_client import Client, Served
from tests.conftest import SAMPLES_DIR
from workbench.app import ids
from workbench.app.drawing import vertex_ids
from workbench.app.whatif import SLIDERS
from workbench.costmodel import get_device
from workbench.costmodel.knobs import apply_knobs
from workbench.planner import plan_graph


@pytest.fixture
def served(make_app):
    started = []

    def start(*args, **config):
        app = make_app(*args, **config)
        s = Served(app)
        started.append(s)
        return app, s, Client(s)
    yield start
    for s in started:
        s.close()


def knob_values(sliders: dict) -> dict:
    """The slider values of a request: ``sliders`` knob -> position, the rest untouched (the
    browser sends the layout's neutral positions; None reads as neutral too)."""
    return {(ids.knob_id(s.knob), "value"): sliders.get(s.knob) for s in SLIDERS}


def whatif(client, sid, sliders, marks=None):
    return client.call(f"{ids.WHATIF_SUMMARY}.children", {
        **knob_values(sliders), (ids.VERSION, "data"): client.version(sid),
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
