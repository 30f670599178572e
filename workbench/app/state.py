"""Per-browser-session state, kept in the server's memory within a stated budget.

The browser holds only a session key (a random token in a ``dcc.Store`` with
``storage_type='session'``, so each tab has its own). Everything else lives here, under that key:
the graph (stored once per graph content, shared by the sessions that opened it), the planner's
proposal, the edit history, the choices made, the last profile report, and the Learn page's
progress (exercise answers and scores).

Two sessions never share an entry: a session's entries are found only by its key, a token of 32
random bytes (``secrets.token_urlsafe``). The store is bounded: at most ``max_sessions``
sessions, and an estimate of their bytes (:func:`workspace_bytes`, :func:`graph_bytes`, the
report's JSON) within ``budget_bytes``. Past either bound the least recently used sessions are
evicted, and a session unused for ``expire_s`` is dropped; the store remembers (for a while)
which keys it let go, so that a user who comes back is told why they start afresh
(:meth:`SessionStore.gone`). Nothing here is shared with another process: compile & profile
jobs receive the graph and plan they need and send back a report (:mod:`workbench.app.jobs`).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from workbench.ir.graph import Graph

#: a session unused this long is forgotten (seconds)
SESSION_EXPIRE_S = 24 * 3600
#: the estimated bytes all sessions may hold together (graphs, plans, histories, reports)
SESSION_BUDGET_BYTES = 1 << 30
#: sessions kept at most
MAX_SESSIONS = 256
#: keys of dropped sessions remembered, to tell a returning user why they start afresh
REMEMBER_GONE = 10_000

#: estimated bytes of one node of a graph in memory, with its share of the graph's caches (the
#: id index, users, the networkx view, the flat index): measured with ``tracemalloc`` on the
#: real modules in ../shared/hlo (1.9-3.0 KB per node)
NODE_BYTES = 3072
#: estimated bytes of one decision record and one group member of a plan (``pickle`` sizes of
#: the planner's plans of ../shared/hlo, ~350 B per decision, rounded up for the objects)
DECISION_BYTES, MEMBER_BYTES = 512, 96


def graph_bytes(graph: Graph) -> int:
    """An estimate of a graph's bytes in memory: :data:`NODE_BYTES` a node, plus 32 bytes per
    element of a constant's literal."""
    literal = 0
    for n in graph.nodes:
        v = n.attrs.get("value") if n.op == "constant" else None
        literal += 32 * len(v) if isinstance(v, tuple) else 0
    return NODE_BYTES * len(graph.nodes) + literal


def plan_bytes(plan) -> int:
    """An estimate of a plan's bytes: :data:`DECISION_BYTES` a decision, :data:`MEMBER_BYTES`
    a group member, 1 KiB for the rest."""
    members = sum(len(g.nodes) for g in plan.groups)
    return 1024 + DECISION_BYTES * len(plan.decisions) + MEMBER_BYTES * members


def workspace_bytes(ws: "Workspace") -> int:
    """An estimate of a workspace's bytes: its distinct plans (history, proposal, layout)."""
    plans = {id(p): p for p in (*ws.history, ws.proposal, ws.layout_plan) if p is not None}
    return 512 + sum(plan_bytes(p) for p in plans.values())


@dataclass(frozen=True)
class Workspace:
    """One session's model state (immutable; each action makes a new one).

    Parameters
    ----------
    graph_key : str
        The key of the graph in the store (:func:`graph_key`).
    source : str
        Where the graph came from, for the header (``sample transformer_block``, a file name).
    policy, device : str
        The planner policy and device profile chosen.
    proposal : Plan
        The planner's plan (what *Reset* returns to).
    history : tuple of Plan
        The user's last plans, oldest first (at most
        :data:`workbench.app.controller.MAX_HISTORY`); ``position`` is the current one.
    position : int
        Index of the current plan in ``history`` (undo moves it back, redo forward).
    layout_plan : Plan
        The plan whose grouping the graph view's positions were computed for; kept across edits
        so that a merge does not move every node.
    choice : str or None
        The graph chooser's key for the graph (None for an upload).
    dropped : int
        How many older plans the bounded history has let go (said when undo reaches the end).

    Notes
    -----
    The undo history is kept here as an immutable tuple rather than in
    :class:`workbench.editing.History`, which is mutable and holds the graph: a workspace is
    replaced whole on every change, and the graph is stored once, apart.
    """

    graph_key: str
    source: str
    policy: str
    device: str
    proposal: object
    history: tuple = ()
    position: int = 0
    layout_plan: object = None
    choice: str | None = None
    dropped: int = field(default=0)

    @property
    def plan(self):
        """The current plan."""
        return self.history[self.position]

    def replace(self, **changes) -> "Workspace":
        """A copy with some fields changed."""
        return replace(self, **changes)


def graph_key(graph: Graph) -> str:
    """The store's key of a graph: its fingerprint (semantics) and a hash of its meta.

    The fingerprint alone leaves out node meta (source lines, XLA fusion tags), which the app
    shows; two graphs that differ only there are stored apart.
    """
    h = hashlib.sha256(repr((tuple(graph.meta.items()),
                             tuple(tuple(n.meta.items()) for n in graph.nodes))).encode())
    return f"{graph.fingerprint}-{h.hexdigest()[:8]}"


def new_session_id() -> str:
    """A fresh, unguessable session key."""
    return secrets.token_urlsafe(32)


_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")


def valid_session_id(sid) -> bool:
    """True for strings shaped like :func:`new_session_id`'s (43 ASCII URL-safe characters)."""
    return isinstance(sid, str) and _SESSION_ID.fullmatch(sid) is not None


@dataclass
class _Session:
    ws: Workspace
    used: float
    ws_bytes: int
    report: dict | None = None
    report_bytes: int = 0
    learning: dict | None = None
    learning_bytes: int = 0


class SessionStore:
    """The server's sessions (see the module docstring), safe to use from many threads.

    Parameters
    ----------
    budget_bytes : int
        Estimated bytes all sessions may hold together (:data:`SESSION_BUDGET_BYTES`).
    max_sessions : int
        Sessions kept at most (:data:`MAX_SESSIONS`).
    expire_s : float
        Seconds of disuse after which a session is dropped.
    """

    def __init__(self, budget_bytes: int = SESSION_BUDGET_BYTES,
                 max_sessions: int = MAX_SESSIONS, expire_s: float = SESSION_EXPIRE_S):
        self.budget_bytes = int(budget_bytes)
        self.max_sessions = int(max_sessions)
        self.expire_s = float(expire_s)
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first
        self._graphs: dict[str, tuple[Graph, int, float]] = {}      # key -> graph, bytes, put
        self._gone: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    # ----- graphs (by content: the same graph is stored once) --------------------------------

    def put_graph(self, graph: Graph) -> str:
        """Store a graph; returns its key (:func:`graph_key`). A graph no session refers to is
        let go at the next eviction (after a minute's grace)."""
        key = graph_key(graph)
        with self._lock:
            if key not in self._graphs:
                self._graphs[key] = (graph, graph_bytes(graph), time.monotonic())
        return key

    def graph(self, key: str) -> Graph | None:
        """The graph stored under ``key``, or None."""
        with self._lock:
            entry = self._graphs.get(key) if isinstance(key, str) else None
        return entry[0] if entry else None

    # ----- workspaces and reports (by session) ------------------------------------------------

    def _live(self, sid) -> _Session | None:
        """The session under ``sid`` (marked used), or None; call with the lock held."""
        if not valid_session_id(sid):
            return None
        s = self._sessions.get(sid)
        if s is None:
            return None
        now = time.monotonic()
        if now - s.used > self.expire_s:
            self._drop(sid, "expired")
            return None
        s.used = now
        self._sessions.move_to_end(sid)
        return s

    def workspace(self, sid) -> Workspace | None:
        """The session's workspace, or None for an unknown, expired or evicted session."""
        with self._lock:
            s = self._live(sid)
            return s.ws if s else None

    def put_workspace(self, sid: str, ws: Workspace, graph: Graph | None = None) -> None:
        """Store the session's workspace (the most recently used now), and ``graph`` (its
        graph, when it may not be stored yet) with it; then evict what the bounds require
        (never this session).

        Raises
        ------
        ValueError
            If ``sid`` is not a session key (:func:`valid_session_id`).
        """
        if not valid_session_id(sid):
            raise ValueError("not a session key")
        size = workspace_bytes(ws)
        gsize = graph_bytes(graph) if graph is not None else 0
        with self._lock:
            if graph is not None and ws.graph_key not in self._graphs:
                self._graphs[ws.graph_key] = (graph, gsize, time.monotonic())
            s = self._sessions.get(sid)
            if s is None:
                self._sessions[sid] = _Session(ws, time.monotonic(), size)
                self._gone.pop(sid, None)
            else:
                s.ws, s.ws_bytes, s.used = ws, size, time.monotonic()
                self._sessions.move_to_end(sid)
            self._evict(keep=sid)

    def report(self, sid) -> dict | None:
        """The session's last profile report (``{"plan": key, "report": {...}, ...}``)."""
        with self._lock:
            s = self._live(sid)
            return s.report if s else None

    def put_report(self, sid: str, report: dict | None, size: int = 0) -> None:
        """Store (or with None, drop) the session's profile report; ``size`` is its estimated
        bytes (its JSON's length). Nothing happens for a session the store no longer holds."""
        with self._lock:
            s = self._sessions.get(sid) if valid_session_id(sid) else None
            if s is None:
                return
            s.report, s.report_bytes = report, (size if report is not None else 0)
            self._evict(keep=sid)

    # ----- learning: lesson and exercise progress (the Learn page) ----------------------------

    def learning(self, sid) -> dict:
        """The session's learning state (exercise answers, scores, best scores), or ``{}``
        for an unknown, expired or evicted session."""
        with self._lock:
            s = self._live(sid)
            return dict(s.learning or {}) if s else {}

    def put_learning(self, sid: str, doc: dict, size: int = 0) -> bool:
        """Store the session's learning state (JSON-ready), counted in the budget as ``size``
        bytes (its JSON's length); returns False, storing nothing, for a session the store
        no longer holds."""
        with self._lock:
            s = self._sessions.get(sid) if valid_session_id(sid) else None
            if s is None:
                return False
            s.learning, s.learning_bytes = dict(doc), int(size)
            self._evict(keep=sid)
            return True

    def gone(self, sid) -> str | None:
        """Why the store no longer holds the session ``sid``: ``"evicted"`` (to stay within
        its bounds) or ``"expired"`` (unused for ``expire_s``); None if it never held it or
        holds it still."""
        with self._lock:
            return self._gone.get(sid) if isinstance(sid, str) else None

    # ----- bounds ----------------------------------------------------------------------------

    def used_bytes(self) -> int:
        """The estimated bytes held now: every session's plans and report, and the graphs."""
        with self._lock:
            return self._used()

    def __len__(self) -> int:
        return len(self._sessions)

    def _used(self) -> int:
        return (sum(s.ws_bytes + s.report_bytes + s.learning_bytes
                    for s in self._sessions.values())
                + sum(b for _, b, _ in self._graphs.values()))

    def _drop(self, sid: str, why: str) -> None:
        self._sessions.pop(sid, None)
        self._gone[sid] = why
        self._gone.move_to_end(sid)
        while len(self._gone) > REMEMBER_GONE:
            self._gone.popitem(last=False)

    def _evict(self, keep: str) -> None:
        """Drop expired sessions, then the least recently used ones until the bounds hold,
        then the graphs no session refers to (lock held)."""
        now = time.monotonic()
        for sid in [k for k, s in self._sessions.items() if now - s.used > self.expire_s]:
            if sid != keep:
                self._drop(sid, "expired")
        while len(self._sessions) > 1 and (len(self._sessions) > self.max_sessions
                                           or self._used() > self.budget_bytes):
            oldest = next(iter(self._sessions))
            if oldest == keep:
                self._sessions.move_to_end(keep)
                oldest = next(iter(self._sessions))
            self._drop(oldest, "evicted")
            self._drop_unused_graphs(now)
        self._drop_unused_graphs(now)

    def _drop_unused_graphs(self, now: float, grace_s: float = 60.0) -> None:
        used = {s.ws.graph_key for s in self._sessions.values()}
        for key in [k for k, (_, _, put) in self._graphs.items()
                    if k not in used and now - put > grace_s]:
            del self._graphs[key]
        if self._used() > self.budget_bytes:  # over budget: no grace for unused graphs
            for key in [k for k in self._graphs if k not in used]:
                del self._graphs[key]
