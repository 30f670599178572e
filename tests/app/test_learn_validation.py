"""The Learn page's and the tour's callback inputs pass the app's request checks
(workbench/app/validation.py) with a stated schema each, and junk values are refused."""

from __future__ import annotations

from workbench.app import ids, validation

LEARN_IDS = {ids.URL, ids.LEARN_ITEM, ids.LESSON_STAGE, ids.LESSON_MEASURED_VERSION,
             ids.EX_VERSION, ids.EX_SHOW, ids.EX_CYTO, ids.Q_DEVICE, ids.Q_KNOB,
             ids.TOUR_STEP, ids.TOUR_SEEN, ids.TOUR_TARGET}


def test_every_learn_and_tour_input_has_a_stated_schema(make_app):
    app = make_app()
    table = validation.schemas(1 << 20)
    seen = set()
    for entry in app.callback_map.values():
        for d in (*entry.get("inputs", []), *entry.get("state", [])):
            cid, prop = d["id"], d["property"]
            if cid in LEARN_IDS:
                seen.add(cid)
                assert (cid, prop) in table or ("*", prop) in table, (cid, prop)
    assert seen == LEARN_IDS


def test_junk_learn_values_are_refused_and_good_ones_pass():
    table = validation.schemas(1 << 20)
    good = {(ids.LEARN_ITEM, "data"): {"kind": "lesson", "id": "vertical"},
            (ids.EX_SHOW, "value"): "planner", (ids.TOUR_STEP, "data"): 0,
            (ids.Q_KNOB, "value"): -1.5,
            (ids.LESSON_MEASURED_VERSION, "data"): {"lesson": "vertical", "t": 3}}
    bad = {(ids.LEARN_ITEM, "data"): {"kind": "script", "id": "x"},
           (ids.EX_SHOW, "value"): "everything", (ids.TOUR_STEP, "data"): 10_000,
           (ids.Q_KNOB, "value"): float("nan"),
           (ids.LESSON_MEASURED_VERSION, "data"): {"lesson": "v", "t": "now"}}
    for key, value in good.items():
        assert table[key](value), key
    for key, value in bad.items():
        assert not table[key](value), key
