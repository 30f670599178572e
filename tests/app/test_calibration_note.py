"""The Cost tab while ``workbench serve`` calibrates the cpu profile in the background: it says
"calibrating this machine… predictions will update", and once the calibration ends it costs the
plan again with the calibrated profile (workbench/profiler/first_use.py)."""

from __future__ import annotations

import threading

from tests.costmodel.test_calibration import CAL
from tests.planner.planner_helpers import FIXED_CPU
from workbench.app import ids
from workbench.costmodel.devices import with_calibration, write_cpu_profile
from workbench.profiler import first_use


def test_the_cost_tab_says_it_is_calibrating_and_costs_again_when_done(served, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(first_use.ENV_OFF, raising=False)
    write_cpu_profile(FIXED_CPU, tmp_path)
    app, _, client = served()
    release = threading.Event()

    def fake():     # the probe's result, once the test lets it finish
        release.wait(20)
        write_cpu_profile(with_calibration(FIXED_CPU, CAL), tmp_path)

    services = app.services
    services.calibration = first_use.BackgroundCalibration(calibrate=fake)
    poll = f"{ids.CALIBRATION_NOTE}.children"
    idle = client.call(poll, {}).props()
    assert idle[(ids.CALIBRATION_NOTE, "children")] == ""
    assert idle[(ids.CALIBRATION_POLL, "disabled")] is True

    from workbench.app import controller
    from workbench.app.state import graph_key
    from workbench.importers import load_graph
    from tests.conftest import SAMPLES_DIR

    g = load_graph(SAMPLES_DIR / "mlp.json")
    ws = controller.open_workspace(graph_key(g), g, "mlp", "priority", "cpu")
    quick = services.plan_costs(ws, g).total.predicted_s

    assert services.calibration.start()
    running = client.call(poll, {(ids.CALIBRATION_STATE, "data"): None}).props()
    assert running[(ids.CALIBRATION_NOTE, "children")].startswith(
        "calibrating this machine… predictions will update")
    assert running[(ids.CALIBRATION_POLL, "disabled")] is False
    seen = running[(ids.CALIBRATION_STATE, "data")]
    assert seen == {"state": "running", "generation": 0}
    assert services.plan_costs(ws, g).total.predicted_s == quick
    release.set()
    services.calibration.join(20)
    done = client.call(poll, {(ids.CALIBRATION_STATE, "data"): seen}).props()
    # a new state (which the costs callback takes as an input) and the poll stops
    assert done[(ids.CALIBRATION_STATE, "data")] == {"state": "done", "generation": 1}
    assert done[(ids.CALIBRATION_NOTE, "children")] == ""
    assert done[(ids.CALIBRATION_POLL, "disabled")] is True
    calibrated = services.plan_costs(ws, g).total.predicted_s
    assert calibrated != quick      # costed again with the calibration, not the cache
    cost_inputs = [entry["inputs"] for key, entry in app.callback_map.items()
                   if ids.COST_BARS in key]
    assert any({"id": ids.CALIBRATION_STATE, "property": "data"} in ins
               for ins in cost_inputs)
