"""Callbacks: the session key, choosing and uploading a graph, planner policy and device.

Each callback reads its inputs, calls :mod:`.controller`, stores the new workspace and bumps
``ids.VERSION`` (which the views listen to), or shows the error beside its control and changes
nothing.
"""

from __future__ import annotations

import base64
import json
import os

from dash import ClientsideFunction, Input, Output, State, ctx, no_update, set_props
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.opening import open_graph, session_version, version  # noqa: F401 (callbacks import them here)
from workbench.app.state import new_session_id
from workbench.app.fmt import plural
from workbench.errors import InputError, PlanError, WorkbenchError

#: what a returning user is told when the server let their session go
GONE = {"evicted": "Your earlier session was let go to keep the server within its memory "
                   "budget (the least recently used sessions go first): this is a fresh one.",
        "expired": "Your earlier session expired after a day unused: this is a fresh one."}


def decode_upload(contents: str, filename: str | None, max_bytes: int) -> bytes:
    """The bytes of a ``dcc.Upload`` data URL (``data:...;base64,...``).

    Raises
    ------
    InputError
        If the upload is not a base64 data URL or is larger than ``max_bytes``.
    """
    if not isinstance(contents, str):
        raise InputError("the upload is not a file", file=filename or "<upload>")
    head, sep, data = contents.partition(",")
    if not sep or ";base64" not in head:
        raise InputError("the upload is not a file", file=filename or "<upload>")
    if len(data) * 3 // 4 > max_bytes:
        raise InputError(f"the file is larger than the {max_bytes >> 20} MiB upload limit",
                         file=filename or "<upload>")
    try:
        return base64.b64decode(data, validate=True)
    except ValueError:
        raise InputError("the upload is not valid base64", file=filename or "<upload>") from None


def plan_document(data: bytes) -> dict | None:
    """The saved plan in an upload (the *Plan JSON* download: a JSON object whose ``format`` is
    ``fusion-workbench-plan``), or None when the upload is something else (a graph, or not
    JSON at all: the graph importers then say what is wrong with it)."""
    from workbench.planner.plan import PLAN_FORMAT

    head = data[:4096].lstrip()
    if not head.startswith(b"{") or PLAN_FORMAT.encode() not in data[:1 << 16]:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == PLAN_FORMAT else None


def apply_plan_upload(services, sid: str, doc: dict, name: str) -> tuple[dict, str]:
    """Make an uploaded plan the session's current plan (undoable); returns the new
    ``ids.VERSION`` value and the line to show. Raises WorkbenchError (a plan for another
    graph, a malformed plan) with the file's name."""
    with services.lock(sid):
        ws, graph = services.session(sid)
        try:
            new = controller.apply_plan_file(ws, graph, doc)
        except WorkbenchError as exc:
            raise PlanError(f"{name}: a saved plan, not applied: {exc}") from None
        services.store.put_workspace(sid, new)
    return version(sid, False, new), (f"{name}: applied the saved plan to {graph.name} "
                          f"({plural(new.plan.num_kernels, 'kernel')}; Undo goes back)")


def start_session(services) -> str:
    """Create a session on the app's initial graph; returns its key."""
    sid = new_session_id()
    graph, label = services.load_choice(services.initial_choice())
    open_graph(services, sid, graph, label, choice=services.initial_choice())
    return sid


def register(app, services, upload_max_bytes: int) -> None:
    """Attach the load-and-choose callbacks to ``app``."""

    # the page's start asks once (the browser's sessionGate): the answer writes the session
    # store, whose new timestamp would otherwise ask again and hold the canvas back
    app.clientside_callback(ClientsideFunction("workbench", "sessionGate"),
                            Output(ids.SESSION_REQUEST, "data"),
                            Input(ids.SESSION, "modified_timestamp"), State(ids.VERSION, "data"))
    # the tabs other than Plan listen to their own copy of VERSION, made in the browser while
    # the tab is shown (tabGate): an edit asks the server only for what is shown
    app.clientside_callback(ClientsideFunction("workbench", "tabGate"),
                            *[Output(i, "data") for i in (*ids.TAB_STORES, ids.STEP_SHOWN)],
                            Input(ids.VERSION, "data"), Input(ids.TABS, "value"),
                            Input(ids.SELECTED, "data"), Input(ids.STEP_SLIDER, "value"),
                            *[State(i, "data") for i in (*ids.TAB_STORES, ids.STEP_SHOWN)])

    @app.callback(Output(ids.SESSION, "data"), Output(ids.VERSION, "data"),
                  Input(ids.SESSION_REQUEST, "data"), State(ids.SESSION, "data"),
                  State(ids.VERSION, "data"), State(ids.URL, "hash"),
                  prevent_initial_call=True)
    def init_session(_ts, sid, current, hash_):
        """The page opens: a new session (or the tab's own, on a reload); a shared link in
        the URL's hash is followed then (:mod:`.callbacks_link`). Asked once per page
        (``ids.SESSION_REQUEST``)."""
        if services.session(sid) is None:
            gone = services.store.gone(sid)
            if gone:
                set_props(ids.LOAD_NOTE, {"children": GONE[gone]})
            sid = start_session(services)
            return sid, opened_link(sid, hash_) or session_version(services, sid, True)
        if current is None:  # a reload: draw the session's state
            return no_update, opened_link(sid, hash_) or session_version(services, sid, True)
        raise PreventUpdate

    def opened_link(sid, hash_):
        """Follow the link in ``hash_``, if it is one: its line and knobs set, the hash
        cleared; returns the new version (None when nothing changed)."""
        from workbench.app.callbacks_link import SLIDER_IDS, follow_link, token_of

        token = token_of(hash_)
        if token is None:
            return None
        new_version, message, sliders = follow_link(services, sid, token)
        set_props(ids.LINK_MSG, {"children": message})
        set_props(ids.URL, {"hash": ""})
        for cid, value in zip(SLIDER_IDS, sliders or ()):
            if value is not no_update:
                set_props(cid, {"value": value})
        return new_version and session_version(services, sid, True)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.LOAD_MSG, "children"), Output(ids.LOAD_NOTE, "children"),
                  Input(ids.GRAPH_CHOICE, "value"), State(ids.SESSION, "data"),
                  State(ids.POLICY, "value"), State(ids.DEVICE, "value"),
                  prevent_initial_call=True)
    def choose_graph(choice, sid, policy, device):
        s = services.session(sid)
        if s is None or not choice or choice == s[0].choice:
            raise PreventUpdate
        try:
            graph, label = services.load_choice(choice, policy, device, owner=sid)
            return open_graph(services, sid, graph, label, policy, device, choice), "", ""
        except WorkbenchError as exc:
            return no_update, controller.error_text(exc), ""

    # the browser refuses a file over the cap before sending it (assets/workbench.js)
    app.clientside_callback(ClientsideFunction("workbench", "checkUpload"),
                            Output(ids.UPLOAD_CHECKED, "data"),
                            Output(ids.LOAD_MSG, "children", allow_duplicate=True),
                            Input(ids.UPLOAD, "contents"), State(ids.UPLOAD, "filename"),
                            State(ids.UPLOAD_LIMIT, "data"), prevent_initial_call=True)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.LOAD_MSG, "children", allow_duplicate=True),
                  Output(ids.LOAD_NOTE, "children", allow_duplicate=True),
                  Output(ids.GRAPH_CHOICE, "value"), Output(ids.UPLOAD, "contents"),
                  Input(ids.UPLOAD_CHECKED, "data"), State(ids.SESSION, "data"),
                  State(ids.POLICY, "value"), State(ids.DEVICE, "value"),
                  prevent_initial_call=True)
    def upload_graph(upload, sid, policy, device):
        if services.session(sid) is None or not isinstance(upload, dict):
            raise PreventUpdate
        contents = upload.get("contents")
        name = os.path.basename(str(upload.get("filename") or "upload"))[:200] or "upload"
        try:
            data = decode_upload(contents, name, upload_max_bytes)
            doc = plan_document(data)
            if doc is not None:  # a plan saved from the app: for the current graph
                new_version, note = apply_plan_upload(services, sid, doc, name)
                return new_version, "", note, no_update, None
            graph = services.load_in_worker(sid, data, name, None, policy, device)
            return (open_graph(services, sid, graph, f"upload {name}", policy, device), "", "",
                    None, None)  # cleared, so that the same file can be uploaded again
        except WorkbenchError as exc:
            return no_update, controller.error_text(exc), "", no_update, None

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.REPLAN_MSG, "children"),
                  Input(ids.POLICY, "value"), Input(ids.DEVICE, "value"),
                  Input(ids.REPLAN, "n_clicks"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def replan(policy, device, _n, sid):
        with services.lock(sid):
            s = services.session(sid)
            if s is None:
                raise PreventUpdate
            ws, graph = s
            if ctx.triggered_id != ids.REPLAN and (policy, device) == (ws.policy, ws.device):
                raise PreventUpdate  # the dropdowns were only set to show the session's choice
            try:
                ws = controller.replan(ws, graph, policy, device, services.propose)
            except WorkbenchError as exc:
                return no_update, controller.error_text(exc)
            services.store.put_workspace(sid, ws)
        return version(sid, False, ws), ""

    app.clientside_callback(ClientsideFunction("workbench", "headerGate"),
                            Output(ids.HEADER_VERSION, "data"), Input(ids.VERSION, "data"),
                            State(ids.POLICY, "value"), State(ids.DEVICE, "value"))

    @app.callback(Output(ids.GRAPH_TITLE, "children"), Output(ids.DEVICE, "options"),
                  Input(ids.HEADER_VERSION, "data"), State(ids.GRAPH_CHOICE, "value"),
                  State(ids.POLICY, "value"), State(ids.DEVICE, "value"),
                  prevent_initial_call=True)
    def show_header(version_, choice, policy, device):
        """The header after the graph, the policy or the device changed (the browser's
        ``headerGate`` passes only those versions on). The dropdowns are set (``set_props``)
        only where they show something else: they are inputs of callbacks that change the
        session (and so the canvas), and Dash would hold the canvas back until this answered
        if they were declared outputs."""
        s = services.session((version_ or {}).get("sid"))
        if s is None:
            raise PreventUpdate
        ws, graph = s
        for cid, now, want in ((ids.GRAPH_CHOICE, choice, ws.choice),
                               (ids.POLICY, policy, ws.policy), (ids.DEVICE, device, ws.device)):
            if now != want:
                set_props(cid, {"value": want})
        return graph_title(graph, ws.source), controller.device_options(ws.device)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.LOAD_NOTE, "children", allow_duplicate=True),
                  Output(ids.LOAD_MSG, "children", allow_duplicate=True),
                  Input(ids.FOLD_BN, "n_clicks"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def fold(_n, sid):
        """Fold inference batch norms into the weights (``workbench plan --fold-bn``): the
        folded graph opens, planned, with a line saying what was folded."""
        s = services.session(sid)
        if s is None:
            raise PreventUpdate
        ws, graph = s
        try:
            folded, report = controller.fold_graph(graph)
        except WorkbenchError as exc:
            return no_update, "", controller.error_text(exc)
        if not report.folded:
            return no_update, "", f"nothing folded: {report.reason or 'no batch norm to fold'}"
        label = f"{ws.source}, {plural(len(report.folded), 'batch norm')} folded"
        return (open_graph(services, sid, folded, label, ws.policy, ws.device),
                controller.fold_text(report), "")

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Input(ids.RELAYOUT, "n_clicks"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def relayout(_n, sid):
        """*Re-layout*: forget the layouts the view kept through the edits; draw afresh."""
        if services.session(sid) is None:
            raise PreventUpdate
        services.forget_layouts(sid)
        return session_version(services, sid)

    # the help box on a first visit, until *Got it* (the browser remembers); in the browser
    app.clientside_callback(ClientsideFunction("workbench", "firstVisit"),
                            Output(ids.HELP, "style"), Output(ids.FIRST_VISIT, "data"),
                            Input(ids.HELP_CLOSE, "n_clicks"),
                            Input(ids.FIRST_VISIT, "modified_timestamp"),
                            State(ids.FIRST_VISIT, "data"))


def graph_title(graph, source: str) -> str:
    """The header's line about the graph: its name and source, its nodes as ``workbench
    inspect`` counts them (ops, parameters, constants) and its layers."""
    from workbench.app.hierarchy import layers_of

    ops = sum(1 for n in graph.nodes if n.op not in ("parameter", "constant"))
    params = sum(1 for n in graph.nodes if n.op == "parameter")
    consts = len(graph.nodes) - ops - params
    text = (f"{graph.name} — {source} · {plural(len(graph.nodes), 'node')}: "
            f"{plural(ops, 'op')}, {plural(params, 'parameter')}, {plural(consts, 'constant')}")
    layers = layers_of(graph)
    if layers.has_layers:
        text += f" · {plural(len(layers.layers) - 1, 'layer')}"
    return text
