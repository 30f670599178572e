"""Opening a graph in a session, and the value that tells the views a session changed (no
Dash): shared by the load callbacks, the shared link's and the Learn page's."""

from __future__ import annotations

import time

from workbench.app import controller


def version(sid: str, graph_changed: bool = False) -> dict:
    """The value written to ``ids.VERSION``: whose state changed, when, and whether the graph did."""
    return {"sid": sid, "t": time.time_ns(), "graph": graph_changed}


def open_graph(services, sid: str, graph, label: str, policy: str = controller.DEFAULT_POLICY,
               device: str = controller.DEFAULT_DEVICE, choice: str | None = None) -> dict:
    """Make ``graph``, planned, the session's workspace (its old report goes); returns the
    new ``ids.VERSION`` value. Raises WorkbenchError if the planner refuses the graph."""
    from workbench.app.state import graph_key

    ws = controller.open_workspace(graph_key(graph), graph, label, policy, device, choice,
                                   planner=services.propose)
    services.store.put_workspace(sid, ws, graph)
    services.store.put_report(sid, None)
    return version(sid, True)
