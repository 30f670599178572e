"""Callbacks of the shareable link: *Share link* makes a URL whose hash (``#ws=TOKEN``) holds
the workspace state (:mod:`.link`); opening such a URL restores it.

A link is followed when the page opens (:mod:`workbench.app.callbacks_load` calls
:func:`follow_link` from the session's start, so a new tab and a reload both work) and when the
hash changes in an open page. A followed link's hash is cleared, so that reloading the page
later shows the session as it is then, not the link again. A bad link changes nothing and says
why in one line.
"""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, html, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids
from workbench.app.whatif import SLIDERS
from workbench.errors import WorkbenchError

#: the hash prefix of a workspace link
PREFIX = "#ws="
SLIDER_IDS = [ids.knob_id(s.knob) for s in SLIDERS]


def token_of(hash_) -> str | None:
    """The token in a URL hash (``#ws=TOKEN``), or None when the hash is not a link."""
    if isinstance(hash_, str) and hash_.startswith(PREFIX):
        return hash_[len(PREFIX):]
    return None


def slider_values(knobs: dict) -> list:
    """The sliders' values for a link's knob positions (a knob the link leaves out: neutral,
    0 on a log slider; a linear one keeps its value: None, no update)."""
    out = []
    for s in SLIDERS:
        if s.knob in knobs:
            out.append(knobs[s.knob])
        else:
            out.append(0 if s.scale == "log" else no_update)
    return out


def follow_link(services, sid: str, token: str):
    """Open the state a link's token holds in session ``sid``.

    Returns
    -------
    (version or None, message, slider values or None)
        The new ``ids.VERSION`` value (None when the session already shows that graph, policy,
        device and plan), the line to show, and the sliders' values to set (None when the link
        was refused: nothing changes).
    """
    from workbench.app.opening import open_graph, version
    from workbench.app.link import check_graph, decode_state, restore_plan, same_state
    from workbench.costmodel import get_device
    from workbench.planner import POLICIES

    choices = [c["value"] for c in services.choices()]
    try:
        state = decode_state(token, choices, POLICIES, get_device)
        with services.lock(sid):
            s = services.session(sid)
            if s is None:
                raise PreventUpdate
            ws, graph = s
            if same_state(ws, graph, state):
                return None, "opened the shared link: this is its workspace", \
                    slider_values(state["knobs"])
            graph, label = services.load_choice(state["choice"], state["policy"],
                                                state["device"], owner=sid)
            check_graph(state, graph)
            plan = restore_plan(graph, state["groups"], state["policy"], state["device"])
            new_version = open_graph(services, sid, graph, label, state["policy"],
                                     state["device"], state["choice"])
            ws, graph = services.session(sid)
            if sorted(map(sorted, (g.nodes for g in plan.groups))) != sorted(
                    map(sorted, (g.nodes for g in ws.plan.groups))):
                new_ws = controller.push(ws, plan)
                services.store.put_workspace(sid, new_ws)
                new_version = version(sid, True, new_ws)
    except WorkbenchError as exc:
        return None, html.Span("the link was not opened: " + controller.error_text(exc),
                               className="link-error"), None
    return new_version, (f"opened the shared link: {graph.name}, {state['policy']} on "
                         f"{state['device']}"), slider_values(state["knobs"])


def register(app, services) -> None:
    """Attach the link's callbacks to ``app``."""

    @app.callback(Output(ids.SHARE_URL, "value"), Output(ids.SHARE_BOX, "style"),
                  Output(ids.LINK_MSG, "children", allow_duplicate=True),
                  Input(ids.SHARE, "n_clicks"), State(ids.SESSION, "data"),
                  State(ids.URL, "href"), *[State(i, "value") for i in SLIDER_IDS],
                  prevent_initial_call=True)
    def make_link(n, sid, href, *values):
        """*Share link*: the URL of this page with the workspace's token as its hash."""
        from workbench.app.link import encode_state

        s = services.session(sid)
        if s is None or not n:
            raise PreventUpdate
        ws, graph = s
        knobs = {sp.knob: v for sp, v in zip(SLIDERS, values) if v is not None}
        try:
            token = encode_state(ws.choice, ws.policy, ws.device, ws.plan, graph, knobs)
        except WorkbenchError as exc:
            return no_update, {"display": "none"}, html.Span(controller.error_text(exc),
                                                             className="link-error")
        base = str(href or "/").split("#", 1)[0]
        return (f"{base}{PREFIX}{token}", {},
                f"a link to this workspace ({len(token)} characters): copy it with the "
                "button beside it; opening it restores the graph, policy, device, knobs and "
                "plan")

    # only a link's hash asks the server (the page's start sets the hash too; an answer
    # that could change VERSION would hold the canvas back)
    app.clientside_callback(ClientsideFunction("workbench", "linkGate"),
                            Output(ids.LINK_REQUEST, "data"), Input(ids.URL, "hash"),
                            prevent_initial_call=True)

    @app.callback(Output(ids.VERSION, "data", allow_duplicate=True),
                  Output(ids.LINK_MSG, "children", allow_duplicate=True),
                  Output(ids.URL, "hash", allow_duplicate=True),
                  *[Output(i, "value", allow_duplicate=True) for i in SLIDER_IDS],
                  Input(ids.LINK_REQUEST, "data"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def link_changed(hash_, sid):
        """A link's hash in an open page (pasted into the address bar): follow it."""
        token = token_of(hash_)
        if token is None or services.session(sid) is None:
            raise PreventUpdate      # not a link; or the page is starting (init_session)
        new_version, message, sliders = follow_link(services, sid, token)
        return (new_version or no_update, message, "",
                *(sliders or [no_update] * len(SLIDER_IDS)))
