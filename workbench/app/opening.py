"""Opening a graph in a session, and the value that tells the views a session changed (no
Dash): shared by the load callbacks, the shared link's and the Learn page's."""

from __future__ import annotations

import time

from workbench.app import controller


def version(sid: str, graph_changed: bool = False, ws=None, drawn: bool = False,
            keep: int | None = None) -> dict:
    """The value written to ``ids.VERSION``: whose state changed, when, and whether the graph did.

    With the session's workspace ``ws`` it also carries what the browser needs without asking
    the server again: ``n`` (the plan's decisions: the replay slider's end), ``policy`` and
    ``device``. The browser's own callbacks (``assets/workbench.js``) read them, so that after
    an edit the canvas is drawn in one round trip: no server callback that could change the
    canvas's inputs runs before it (Dash holds a callback back while one upstream of its
    inputs is pending). ``drawn``: the callback that wrote it sent the canvas too (an edit:
    one response), and the browser's ``drawGate`` does not ask for it again. ``keep``: how
    many first decisions the new plan shares with the one before it (an edit, an undo:
    :func:`~workbench.app.edit_notes.common_decisions`); the replay slider's ``stepReset``
    leaves a step up to it where it is (the same groups), and says so when it must move.
    """
    out = {"sid": sid, "t": time.time_ns(), "graph": graph_changed}
    if drawn:
        out["drawn"] = True
    if ws is not None:
        out.update(n=len(ws.plan.decisions), policy=str(ws.policy), device=str(ws.device))
    if keep is not None:
        out["keep"] = int(keep)
    return out


def session_version(services, sid: str, graph_changed: bool = False) -> dict:
    """:func:`version` for session ``sid``, with its workspace's facts when it has one."""
    s = services.session(sid)
    return version(sid, graph_changed, s[0] if s else None)


def open_graph(services, sid: str, graph, label: str, policy: str = controller.DEFAULT_POLICY,
               device: str = controller.DEFAULT_DEVICE, choice: str | None = None) -> dict:
    """Make ``graph``, planned, the session's workspace (its old report goes); returns the
    new ``ids.VERSION`` value. Raises WorkbenchError if the planner refuses the graph."""
    from workbench.app.state import graph_key

    ws = controller.open_workspace(graph_key(graph), graph, label, policy, device, choice,
                                   planner=services.propose)
    services.store.put_workspace(sid, ws, graph)
    services.store.put_report(sid, None)
    return version(sid, True, ws)
