"""Every callback request is checked before any callback sees it, and every callback error is
a short line in the page.

A Dash callback request (``POST /_dash-update-component``) names the callback (``output``)
and carries the values of its inputs and states. :func:`check_request` refuses, with HTTP 400
and one line, a request whose callback does not exist, whose inputs or states are not the ones
that callback was registered with (ids and properties, in order), or whose values do not have
the type and size :data:`SCHEMAS` states for that component property (a session key is 43
URL-safe characters, an upload at most the upload limit, a table row a flat record ...).
Properties without a stated schema are held to generic bounds (nesting depth, item count,
string length). What passes can still fail inside a callback; :func:`callback_error` (the
app's ``on_error``) then shows one line in the page, logs one line, and changes nothing: every
callback stores its new state only as its last step.
"""

from __future__ import annotations

import logging
import re

from workbench.app import ids
from workbench.app.tables import TOP_CHOICES
from workbench.app.whatif import DIFF_CHOICES, SLIDER_KNOBS, SLIDERS

log = logging.getLogger("workbench.app")

#: the most a request's JSON may hold: nesting depth, items (list elements and object keys)
MAX_DEPTH, MAX_ITEMS = 12, 400_000
#: the longest string in a request outside an upload's contents
MAX_STRING = 1 << 20
#: the longest node id, group id or label the browser may send back
MAX_NAME = 10_000


# ----- value checks: each returns True when the value is acceptable ---------------------------

def opt(check):
    """``check``, or None."""
    return lambda v: v is None or check(v)


def string(max_len: int = MAX_NAME, pattern: str | None = None):
    """A string of at most ``max_len`` characters (matching ``pattern`` when given)."""
    rx = re.compile(pattern) if pattern else None
    return lambda v: (isinstance(v, str) and len(v) <= max_len
                      and (rx is None or rx.fullmatch(v) is not None))


def integer(low: int | None = None, high: int | None = None):
    """A whole number (not a bool) within [low, high]."""
    return lambda v: (isinstance(v, int) and not isinstance(v, bool)
                      and (low is None or v >= low) and (high is None or v <= high))


def number(v) -> bool:
    """A finite int or float (not a bool)."""
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and v == v
            and abs(v) != float("inf"))


def one_of(*values):
    """One of ``values``."""
    return lambda v: v in values


def list_of(check, max_len: int = 100_000):
    """A list of at most ``max_len`` items, each passing ``check``."""
    return lambda v: isinstance(v, list) and len(v) <= max_len and all(check(x) for x in v)


def record(required: dict, optional: dict | None = None):
    """An object with exactly the keys of ``required`` and some of ``optional``, each value
    passing its check."""
    optional = optional or {}

    def ok(v):
        if not isinstance(v, dict) or not set(required) <= set(v):
            return False
        for key, value in v.items():
            check = required.get(key) or optional.get(key)
            if check is None or not check(value):
                return False
        return True
    return ok


def scalar(v) -> bool:
    """A string (bounded), number, bool or None."""
    return v is None or isinstance(v, bool) or number(v) or string()(v)


def flat_record(v, max_keys: int = 64) -> bool:
    """An object of string keys and scalar values (or short lists of scalars): a table row,
    a canvas element's data."""
    return (isinstance(v, dict) and len(v) <= max_keys
            and all(isinstance(k, str) and len(k) <= 200 and (
                scalar(x) or (isinstance(x, list) and len(x) <= 1000 and all(map(scalar, x))))
                for k, x in v.items()))


def bounded_json(v, depth: int = MAX_DEPTH, max_string: int = MAX_STRING) -> bool:
    """Any JSON value within the generic bounds (walked without recursion)."""
    stack, items = [(v, 0)], 0
    while stack:
        x, d = stack.pop()
        if d > depth:
            return False
        if isinstance(x, dict):
            items += len(x)
            stack.extend((y, d + 1) for y in x.values())
            if any(not isinstance(k, str) or len(k) > MAX_NAME for k in x):
                return False
        elif isinstance(x, list):
            items += len(x)
            stack.extend((y, d + 1) for y in x)
        elif isinstance(x, str) and len(x) > max_string:
            return False
        if items > MAX_ITEMS:
            return False
    return True


#: the values of the tables' *show* lists (app/tables.py's TOP_CHOICES)
TOP_VALUES = tuple(n for _, n in TOP_CHOICES)
#: what a replay step, a refused edit or a what-if marks (callbacks_explain.step_marks,
#: controller.refusal_marks, whatif.whatif_marks): lists of drawing ids or node ids
MARK_KINDS = ("step", "after", "before", "path", "whatif")


def _clicked_cell(v) -> bool:
    """An AG Grid ``cellClicked``: the cell's value, column, row index and id, a time."""
    return record({}, {"value": scalar, "colId": string(200), "rowIndex": opt(integer(0)),
                       "rowId": scalar, "timestamp": number})(v)


def _selected_rows(v) -> bool:
    """An AG Grid's ``selectedRows``: row records (the user's pick) or ``{"ids": [...]}`` (as
    the app sets it)."""
    return list_of(flat_record)(v) or record({"ids": list_of(string(200))})(v)


def schemas(upload_max_bytes: int) -> dict:
    """(component id, property) -> check, for every input and state of the app's callbacks
    (``"*"``: any component)."""
    upload = string(upload_max_bytes * 4 // 3 + 4096)
    name = opt(string(1024))
    version_record = opt(record({"sid": opt(string(64)), "t": integer(0)},
                                {"graph": one_of(True, False), "n": integer(0),
                                 "policy": string(64), "device": string(200),
                                 "drawn": one_of(True, False), "keep": integer(0)}))
    return {
        (ids.SESSION, "data"): opt(string(43, r"[A-Za-z0-9_-]{43}")),
        (ids.SESSION, "modified_timestamp"): opt(integer(-1)),
        (ids.VERSION, "data"): version_record,
        (ids.HEADER_VERSION, "data"): version_record,
        (ids.DRAW_VERSION, "data"): version_record,
        **{(i, "data"): opt(record({"sid": opt(string(64)), "t": integer(0)},
                                   {"graph": one_of(True, False), "n": integer(0),
                                    "policy": string(64), "device": string(200),
                                    "drawn": one_of(True, False), "keep": integer(0),
                                    "sel": opt(string())}))
           for i in ids.TAB_STORES},
        (ids.STEP_SHOWN, "data"): opt(record({"t": integer(0)},
                                             {"step": opt(integer(0, 10_000_000))})),
        (ids.SESSION_REQUEST, "data"): opt(integer(-1)),
        (ids.LINK_REQUEST, "data"): opt(string(MAX_STRING)),
        (ids.REPLAY_REQUEST, "data"): opt(integer(0, 10_000_000)),
        (ids.PROFILE_VERSION, "data"): opt(record({"sid": string(64)},
                                                  {"job": integer(0), "t": integer(0)})),
        ("*", "n_clicks"): opt(integer(0)),
        ("*", "n_intervals"): opt(integer(0)),
        ("*", "n_submit"): opt(integer(0)),
        (ids.GRAPH_CHOICE, "value"): opt(string(200)),
        (ids.POLICY, "value"): opt(string(64)),
        (ids.DEVICE, "value"): opt(string(1024)),   # a knobbed profile's name is long
        (ids.PROFILE_BACKEND, "value"): opt(string(64)),
        (ids.MOVE_TARGET, "value"): opt(string(64)),
        (ids.UPLOAD, "contents"): opt(upload),
        (ids.UPLOAD, "filename"): name,
        (ids.UPLOAD_LIMIT, "data"): opt(integer(0)),
        (ids.UPLOAD_CHECKED, "data"): opt(record({"contents": upload}, {"filename": name})),
        (ids.CYTO, "selectedNodeData"): opt(list_of(flat_record)),
        (ids.CYTO, "tapNodeData"): opt(flat_record),
        (ids.CYTO, "mouseoverNodeData"): opt(flat_record),
        (ids.CYTO, "id"): string(200),
        (ids.SELECTED, "data"): opt(string()),
        (ids.FOUND, "data"): opt(string()),
        (ids.VIEW_STATE, "data"): opt(record({"graph": string(200)},
                                             {"open": list_of(string(64), 200_000),
                                              "nodes": list_of(string()),
                                              "fit": integer(0, 1_000_000)})),
        (ids.STEP_SLIDER, "value"): opt(integer(0, 10_000_000)),
        (ids.XLA_TOGGLE, "value"): opt(list_of(string(16), 4)),
        (ids.SEARCH, "value"): opt(string(1000)),
        (ids.GROUP_TABLE, "rowData"): opt(list_of(flat_record)),
        (ids.GROUP_TABLE, "selectedRows"): opt(_selected_rows),
        (ids.ROW_PICK, "data"): opt(_selected_rows),
        (ids.GROUP_TOP, "value"): opt(one_of(*TOP_VALUES)),
        (ids.PROFILE_TOP, "value"): opt(one_of(*TOP_VALUES)),
        (ids.DECISION_LOG, "cellClicked"): opt(_clicked_cell),
        (ids.REASON_FILTER, "value"): opt(string(200)),
        (ids.REPLAY_STEP, "data"): opt(integer(0, 10_000_000)),
        (ids.CRUMB_LAYER, "data"): opt(string(64)),
        (ids.HIGHLIGHT, "data"): opt(record({}, {"sel": opt(string(64)), "found": opt(string()),
                                                  "after": list_of(string()),
                                                  "step": list_of(string())})),
        (ids.MARKS, "data"): opt(record({}, {k: list_of(string()) for k in MARK_KINDS})),
        (ids.FIRST_VISIT, "data"): opt(record({}, {"seen": one_of(True, False)})),
        # profiler/first_use.BackgroundCalibration's state and generation
        (ids.CALIBRATION_STATE, "data"): opt(record(
            {"state": one_of("idle", "running", "done", "failed"),
             "generation": integer(0, 1_000_000)})),
        (ids.FIRST_VISIT, "modified_timestamp"): opt(integer(-1)),
        (ids.TABS, "value"): opt(one_of(ids.TAB_PLAN, ids.TAB_COST, ids.TAB_EXPLAIN,
                                        ids.TAB_PROFILE, ids.TAB_WHATIF, ids.TAB_DIFF)),
        (ids.WHATIF_SWEEP_KNOB, "value"): opt(one_of(*SLIDER_KNOBS)),
        (ids.TUNE_BUDGET, "value"): opt(lambda v: number(v) and 1 <= v <= 50),
        (ids.DIFF_A, "value"): opt(one_of(*DIFF_CHOICES)),
        (ids.DIFF_B, "value"): opt(one_of(*DIFF_CHOICES)),
        **{(ids.knob_id(k.knob), "value"): opt(_knob_value(k)) for k in SLIDERS},
        # a shared link's hash and the page's address: long enough that a link over the
        # token limit reaches its callback, which says so in a line (workbench.app.link)
        (ids.URL, "hash"): opt(string(MAX_STRING)),
        (ids.URL, "href"): opt(string(MAX_STRING)),
        **learn_schemas(),
    }


def learn_schemas() -> dict:
    """The Learn page's and the tour's inputs and states (:mod:`~workbench.app.callbacks_learn`,
    :mod:`~workbench.app.callbacks_exercise`, :mod:`~workbench.app.callbacks_tour`)."""
    from workbench.app.callbacks_tour import STEPS
    from workbench.app.learn_view import KINDS

    short = opt(string(200))
    return {
        (ids.URL, "pathname"): opt(string(2000)),
        (ids.URL, "search"): opt(string(2000)),
        (ids.LEARN_BUILT, "data"): opt(one_of(True)),
        (ids.LEARN_ITEM, "data"): opt(record({"kind": one_of("home", *KINDS)},
                                             {"id": string(200)})),
        (ids.LESSON_STAGE, "value"): opt(integer(0, 10_000)),
        (ids.LESSON_STAGE, "max"): opt(integer(0, 10_000)),
        (ids.LESSON_MEASURED_VERSION, "data"): opt(record({"lesson": string(200),
                                                           "t": integer(0)})),
        (ids.EX_VERSION, "data"): opt(record({"exercise": string(200), "n": integer(0)})),
        (ids.EX_SHOW, "value"): opt(one_of("answer", "planner", "xla")),
        (ids.EX_CYTO, "selectedNodeData"): opt(list_of(flat_record)),
        (ids.Q_DEVICE, "value"): opt(string(64)),
        (ids.Q_KNOB, "value"): opt(lambda v: number(v) and abs(v) <= 30),
        (ids.TOUR_STEP, "data"): opt(integer(0, len(STEPS) - 1)),
        (ids.TOUR_SEEN, "data"): opt(one_of(True, False)),
        (ids.TOUR_TARGET, "data"): short,
    }


def _knob_value(spec):
    """A slider's position: a log slider's exponent within its range; a linear slider's value
    (the profile's own value is its neutral position) a finite number."""
    if spec.scale == "log":
        return lambda v: number(v) and spec.low <= v <= spec.high
    return lambda v: number(v) and abs(v) < 1e12


def _registered(spec) -> list:
    return [(d.get("id"), d.get("property")) for d in spec]


def _pattern(cid: str) -> dict | None:
    """A pattern-matching id as registered (``'{"type":"crumb","layer":["ALL"]}'``): its keys
    and values, wildcards as lists; None for a plain id."""
    import json

    if not cid.startswith("{"):
        return None
    try:
        spec = json.loads(cid)
    except ValueError:
        return None
    return spec if isinstance(spec, dict) else None


def _matches(spec: dict, value) -> bool:
    """Whether a concrete id (an object) fits a registered pattern: the same keys, the fixed
    values equal, the wildcard ones scalars."""
    return (isinstance(value, dict) and set(value) == set(spec)
            and all(scalar(value[k]) and (isinstance(w, list) or value[k] == w)
                    for k, w in spec.items()))


def _check_pattern(item, spec: dict, prop: str, table: dict) -> bool:
    """One input of a pattern-matching id: ``ALL`` and ``ALLSMALLER`` send a list of {id,
    property, value} (one per matching component), ``MATCH`` one."""
    many = any(isinstance(w, list) and w and w[0] in ("ALL", "ALLSMALLER")
               for w in spec.values())
    if isinstance(item, list) != many:
        return False
    items = item if many else [item]
    check = table.get(("*", prop)) or bounded_json
    return len(items) <= 10_000 and all(
        isinstance(x, dict) and x.get("property") == prop and _matches(spec, x.get("id"))
        and check(x.get("value")) for x in items)


def check_values(items, registered, table: dict, what: str) -> str | None:
    """Check a request's ``inputs`` or ``state`` against the callback's registered ones;
    the reason, or None when they pass."""
    if not isinstance(items, list) or len(items) != len(registered):
        return f"{what}: expected {len(registered)} entries"
    for item, (cid, prop) in zip(items, registered):
        spec = _pattern(cid) if isinstance(cid, str) else None
        if spec is not None:
            if not _check_pattern(item, spec, prop, table):
                return f"{what}: a bad value for {str(cid)[:60]}.{str(prop)[:40]}"
            continue
        if not isinstance(item, dict) or (item.get("id"), item.get("property")) != (cid, prop):
            return f"{what}: expected {cid}.{prop} here"
        if not isinstance(cid, str):
            ok = bounded_json(item.get("value"))   # not a Dash id: generic bounds
        else:
            check = table.get((cid, prop)) or table.get(("*", prop))
            ok = check(item.get("value")) if check else bounded_json(item.get("value"))
        if not ok:
            return f"{what}: a bad value for {str(cid)[:60]}.{str(prop)[:40]}"
    return None


def _outputs(spec) -> list:
    spec = spec if isinstance(spec, list) else [spec]
    return [(d.get("id"), str(d.get("property")).partition("@")[0]) if isinstance(d, dict)
            else None for d in spec]


def check_request(body, callback_map: dict, table: dict) -> str | None:
    """Why a callback request is refused, or None when it passes (see the module docstring)."""
    from dash._utils import split_callback_id

    if not isinstance(body, dict) or not bounded_json(body, MAX_DEPTH + 4, 1 << 30):
        return "the request is not a bounded JSON object"
    output = body.get("output")
    entry = callback_map.get(output) if isinstance(output, str) else None
    if entry is None or not callable(entry.get("callback")):
        return "the request names no server callback of this app"
    if not entry.get("no_output") and _outputs(body.get("outputs")) != _outputs(
            split_callback_id(output)):
        return "outputs: not the outputs of this callback"
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) and len(c) < 300
                                                for c in changed):
        return "changedPropIds: expected a list of names"
    return (check_values(body.get("inputs"), _registered(entry.get("inputs", [])), table,
                         "inputs")
            or check_values(body.get("state", []), _registered(entry.get("state", [])), table,
                            "state"))


def install(app, table: dict) -> None:
    """Check every callback request of the Dash ``app`` (``before_request`` on its server)."""
    from flask import request

    @app.server.before_request
    def _check():
        if request.method != "POST" or not request.path.endswith("/_dash-update-component"):
            return None
        try:
            body = request.get_json(silent=True)
        except RecursionError:
            body = None          # nested past the parser's depth: refused like any junk
        why = check_request(body, app.callback_map, table)
        if why is None:
            return None
        log.warning("refused a callback request: %s", why)
        return f"refused: {why}\n", 400, {"Content-Type": "text/plain; charset=utf-8"}


def callback_error(exc: Exception):
    """The app's ``on_error``: one line in the page (``ids.APP_MSG``), one line in the log,
    no output changed (Dash turns the returned None into no update)."""
    from dash import ctx, set_props

    from workbench.app.controller import error_text
    from workbench.errors import WorkbenchError

    outs = ctx.outputs_list if ctx else None
    outs = [outs] if isinstance(outs, dict) else list(outs or ())
    flat = [o for x in outs for o in (x if isinstance(x, list) else [x])]
    where = ", ".join(str(o.get("id")) for o in flat if isinstance(o, dict))[:120]
    if isinstance(exc, WorkbenchError):
        text = error_text(exc)
    else:
        text = (f"That request could not be handled ({type(exc).__name__}); nothing was "
                "changed. Reload the page if the view looks stale.")
    log.warning("callback for %s failed: %s: %s", where or "?", type(exc).__name__,
                str(exc)[:200].replace("\n", " "))
    set_props(ids.APP_MSG, {"children": text})
    return None
