"""The request checks know every input of the graph view, the replay and the AG Grid tables
(issue 12's components under issue 15's checks), pattern-matching ids included."""

from __future__ import annotations

import json

import pytest

from workbench.app import ids, validation
from workbench.app.layout import UPLOAD_MAX_BYTES

TABLE = validation.schemas(UPLOAD_MAX_BYTES)


@pytest.fixture(scope="module")
def app():
    from workbench.app import create_app

    a = create_app()
    yield a
    a.services.close()


def _key(app, output: str, trigger: str) -> str:
    for k, entry in app.callback_map.items():
        ins = {f"{d['id']}.{d['property']}" for d in entry["inputs"]}
        if output in k and any(trigger in x for x in ins) and callable(entry.get("callback")):
            return k
    raise KeyError((output, trigger))


def _body(app, key: str, values: dict) -> dict:
    from dash._utils import split_callback_id

    entry = app.callback_map[key]
    item = lambda d: values.get(d["id"], {"id": d["id"], "property": d["property"],  # noqa
                                          "value": None})
    return {"output": key, "outputs": split_callback_id(key),
            "inputs": [item(d) for d in entry["inputs"]],
            "state": [item(d) for d in entry.get("state", [])], "changedPropIds": []}


def test_every_plain_input_and_state_has_a_stated_check(app):
    missing = set()
    for entry in app.callback_map.values():
        if not callable(entry.get("callback")):
            continue
        for d in entry["inputs"] + entry.get("state", []):
            cid, prop = d["id"], d["property"]
            if cid.startswith("{"):
                assert ("*", prop) in TABLE, (cid, prop)   # a pattern id: its property's check
            elif (cid, prop) not in TABLE and ("*", prop) not in TABLE:
                missing.add((cid, prop))
    assert not missing, sorted(missing)


@pytest.mark.parametrize("slot, good, bad", [
    ((ids.VIEW_STATE, "data"), {"graph": "k", "open": ["L3", "L3:in"], "nodes": ["add.1"]},
     {"graph": "k", "open": "L3"}),
    ((ids.GROUP_TABLE, "selectedRows"), {"ids": ["g3"]}, {"ids": [["g3"]]}),
    ((ids.GROUP_TABLE, "selectedRows"), [{"id": "g3", "kind": "loop", "ops": 4}], [[1]]),
    ((ids.DECISION_LOG, "cellClicked"),
     {"value": "fused", "colId": "action", "rowIndex": 4, "rowId": "17", "timestamp": 1.0},
     {"value": {"x": 1}, "colId": "action"}),
    ((ids.GROUP_TOP, "value"), 25, 7),
    ((ids.PROFILE_TOP, "value"), 0, "all"),
    ((ids.REPLAY_STEP, "data"), 12, -1),
    ((ids.MARKS, "data"), {"step": ["v1"], "after": ["G:ab"], "before": [], "path": ["a"]},
     {"step": "v1"}),
    ((ids.CRUMB_LAYER, "data"), "L12", ["L12"]),
    ((ids.FIRST_VISIT, "data"), {"seen": True}, {"seen": "yes"}),
    ((ids.REASON_FILTER, "value"), "cycle", 3),
    ((ids.CALIBRATION_STATE, "data"), {"state": "running", "generation": 0},
     {"state": "bored", "generation": 0}),
])
def test_the_new_components_values_are_checked(slot, good, bad):
    check = TABLE[slot]
    assert check(good) and check(None)
    assert not check(bad)


def test_a_pattern_matching_click_passes_and_a_forged_id_is_refused(app):
    key = _key(app, ids.STEP_SLIDER, '"type":"step-jumps"')
    spec = next(d for d in app.callback_map[key]["inputs"] if "step-jumps" in d["id"])
    clicks = [{"id": {"type": ids.STEP_JUMPS, "dir": d, "taken": t}, "property": "n_clicks",
               "value": n} for d, t, n in (("next", "yes", 1), ("prev", "no", 0))]
    body = _body(app, key, {spec["id"]: clicks})
    table = TABLE
    assert validation.check_request(json.loads(json.dumps(body)), app.callback_map, table) is None
    for forged in ([{**clicks[0], "id": {"type": "crumb", "dir": "next", "taken": "yes"}}],
                   [{**clicks[0], "id": {"type": ids.STEP_JUMPS, "dir": ["x"], "taken": "yes"}}],
                   [{**clicks[0], "value": "1"}],
                   [{**clicks[0], "property": "children"}],
                   clicks[0], None):
        why = validation.check_request(_body(app, key, {spec["id"]: forged}), app.callback_map,
                                       table)
        assert why and "step-jumps" in why, forged
