"""Per-browser-session state, kept on the server in a diskcache store.

The browser holds only a session key (a random token in a ``dcc.Store`` with
``storage_type='session'``, so each tab has its own). Everything else lives here, under that key:
the graph (stored once per graph fingerprint), the planner's proposal, the edit history, the
choices made, and the last profile report. diskcache is a SQLite-backed store that several
processes can share, which the profile's background callback (run in another process by Dash's
``DiskcacheManager``) needs: it reads the session's graph and plan and writes the report back.

Two sessions never share an entry: every key is prefixed by the session's token, and a token is
32 random bytes (``secrets.token_urlsafe``). Entries expire after ``expire_s`` without use and the
store is bounded in size (least-recently-used entries go first).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

import diskcache

from workbench.ir.graph import Graph

#: a session unused this long is forgotten (seconds)
SESSION_EXPIRE_S = 24 * 3600
#: bound on the store's size on disk (bytes)
STORE_SIZE_LIMIT = 2 << 30


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
        Every plan the user has had, oldest first; ``position`` is the current one.
    position : int
        Index of the current plan in ``history`` (undo moves it back, redo forward).
    layout_plan : Plan
        The plan whose grouping the graph view's positions were computed for; kept across edits
        so that a merge does not move every node.
    choice : str or None
        The graph chooser's key for the graph (None for an upload).

    Notes
    -----
    The undo history is kept here as an immutable tuple rather than in
    :class:`workbench.editing.History`, which is mutable and holds the graph: a workspace is
    pickled into the session store on every change, and the graph is stored once, apart.
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


def valid_session_id(sid) -> bool:
    """True for strings shaped like :func:`new_session_id`'s (43 URL-safe characters)."""
    return (isinstance(sid, str) and len(sid) == 43
            and all(c.isalnum() or c in "-_" for c in sid))


class SessionStore:
    """Server-side session state shared by the app's processes (see the module docstring).

    Parameters
    ----------
    directory : str
        The diskcache directory; the profile's background callbacks open the same one.
    expire_s : float
        Seconds of disuse after which a session's entries are dropped.
    size_limit : int
        Bytes on disk before least-recently-used entries are evicted.
    namespace : str, optional
        Prefix of every key; by default a fresh one per store, i.e. per server start, so that a
        restarted (perhaps upgraded) server never unpickles state written by another version:
        a browser that comes back gets a new session.
    """

    def __init__(self, directory: str, expire_s: float = SESSION_EXPIRE_S,
                 size_limit: int = STORE_SIZE_LIMIT, namespace: str | None = None):
        self.directory = str(directory)
        self.namespace = namespace or secrets.token_hex(6)
        self.expire_s = expire_s
        self.cache = diskcache.Cache(self.directory, size_limit=size_limit,
                                     eviction_policy="least-recently-used")
        self._graphs: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"directory": self.directory, "expire_s": self.expire_s,
                "size_limit": self.cache.size_limit, "namespace": self.namespace}

    def __setstate__(self, state):
        self.__init__(state["directory"], state["expire_s"], state["size_limit"],
                      state["namespace"])

    def reopened(self) -> "SessionStore":
        """The same store (directory and namespace) with its own lock, graph memo and
        connection, for a process forked from the server: Dash's background jobs are forked
        from the threaded server, and a lock that a request thread held at the instant of the
        fork stays held in the child forever (POSIX ``fork()`` copies only the calling thread).
        """
        return SessionStore(self.directory, self.expire_s, self.cache.size_limit, self.namespace)

    def _key(self, kind: str, name: str) -> str:
        return f"{self.namespace}:{kind}:{name}"

    # ----- graphs (by content: the same graph is stored once) --------------------------------

    def put_graph(self, graph: Graph) -> str:
        """Store a graph; returns its key (:func:`graph_key`)."""
        key = graph_key(graph)
        if not self.cache.touch(self._key("graph", key), expire=self.expire_s):
            bare = Graph(graph.name, graph.nodes, graph.outputs, graph.meta)  # without caches
            self.cache.set(self._key("graph", key), bare, expire=self.expire_s)
        self._remember(key, graph)
        return key

    def graph(self, key: str) -> Graph | None:
        """The graph stored under ``key``, or None if it has expired."""
        with self._lock:
            if key in self._graphs:
                self._graphs.move_to_end(key)
                return self._graphs[key]
        graph = self.cache.get(self._key("graph", key))
        if graph is not None:
            self.cache.touch(self._key("graph", key), expire=self.expire_s)
            self._remember(key, graph)
        return graph

    def _remember(self, key: str, graph: Graph, keep: int = 16) -> None:
        with self._lock:
            self._graphs[key] = graph
            self._graphs.move_to_end(key)
            while len(self._graphs) > keep:
                self._graphs.popitem(last=False)

    # ----- workspaces and reports (by session) ------------------------------------------------

    def workspace(self, sid: str) -> Workspace | None:
        """The session's workspace, or None for an unknown or expired session."""
        if not valid_session_id(sid):
            return None
        return self.cache.get(self._key("ws", sid))

    def put_workspace(self, sid: str, ws: Workspace) -> None:
        """Store the session's workspace (and keep its graph alive as long)."""
        self.cache.set(self._key("ws", sid), ws, expire=self.expire_s)
        self.cache.touch(self._key("graph", ws.graph_key), expire=self.expire_s)

    def report(self, sid: str) -> dict | None:
        """The session's last profile report (``{"plan": fingerprint, "report": {...}}``)."""
        if not valid_session_id(sid):
            return None
        return self.cache.get(self._key("report", sid))

    def put_report(self, sid: str, report: dict | None) -> None:
        """Store (or with None, drop) the session's profile report."""
        if report is None:
            self.cache.delete(self._key("report", sid))
        else:
            self.cache.set(self._key("report", sid), report, expire=self.expire_s)

    # ----- learning: lesson and exercise progress (the Learn page) ----------------------------

    def learning(self, sid: str) -> dict:
        """The session's learning state (exercise answers, scores, best scores), or ``{}``."""
        if not valid_session_id(sid):
            return {}
        return self.cache.get(self._key("learn", sid)) or {}

    def put_learning(self, sid: str, doc: dict) -> None:
        """Store the session's learning state (JSON-ready; kept as long as the session)."""
        self.cache.set(self._key("learn", sid), doc, expire=self.expire_s)
