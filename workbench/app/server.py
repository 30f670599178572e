"""The app's server-side services: configuration, the graph choices, the session store, layouts.

One :class:`Services` object is made per app (by :func:`workbench.app.create_app`) and handed to
the callbacks; nothing here is a module global. Graph choices are addressed by keys the server
made (``sample:mlp``, ``file:2``), so a browser can only ask for files the person who started
the server pointed at.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from workbench.app.cache import LruCache, grouping_key
from workbench.app.drawing import build_drawing
from workbench.app.hierarchy import layers_of, place
from workbench.app.state import SessionStore, Workspace, graph_key
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.ir.graph import Graph
from workbench.paths import cache_dir, sample_dir, sample_names

#: locks shared out among sessions (see :meth:`Services.lock`)
LOCK_STRIPES = 64
#: the sample graph the app opens on
DEFAULT_SAMPLE = "transformer_block"
GRAPH_SUFFIXES = (".hlo", ".json", ".txt")


def cache_root() -> Path:
    """Where the app keeps its files: ``app/`` in the workbench's cache directory
    (``$WORKBENCH_CACHE_DIR``, else ``~/.cache/fusion-workbench``)."""
    return Path(cache_dir()) / "app"


@dataclass
class AppConfig:
    """How the app was started.

    Parameters
    ----------
    initial : str or None
        A graph file to open on; None opens the default sample (the transformer block).
    graph_files : list of str
        HLO/JSON files offered in the graph chooser besides the samples.
    store_dir : str or None
        The session store's directory (default: under :func:`cache_root`).
    """

    initial: str | None = None
    graph_files: list = field(default_factory=list)
    store_dir: str | None = None


def graph_files_in(directory) -> list[str]:
    """The HLO and JSON files in ``directory``, sorted by name."""
    return sorted(str(q) for q in Path(directory).glob("*")
                  if q.suffix in GRAPH_SUFFIXES and q.is_file())


def files_near(path: str) -> list[str]:
    """``path`` and the graph files beside it, for the chooser."""
    return [str(path)] + [f for f in graph_files_in(Path(path).parent) if f != str(path)]


def decisions_key(decisions) -> int:
    """A key of a decision log's content (what each step did, in order)."""
    return hash(tuple((d.action, d.fused, d.reason, d.nodes) for d in decisions))


class Services:
    """Configuration, graph choices, the session store and the layout cache of one app."""

    def __init__(self, config: AppConfig):
        self.config = config
        files = list(config.graph_files)
        if config.initial and config.initial not in files:
            files.insert(0, config.initial)
        self.files = [str(Path(f)) for f in files]
        self.samples = sample_names()
        store_dir = config.store_dir or str(cache_root() / "sessions")
        self.store = SessionStore(store_dir)
        self.drawings = LruCache(max_entries=32)
        #: the graph view's last layouts, by (session, view mode) and by (session, mode,
        #: grouping, record) for undo: in memory, bounded (a restarted server starts afresh)
        self.layouts = LruCache(max_entries=512)
        self.proposals = LruCache()
        self.replays = LruCache(max_entries=8)
        self.xla_plans = LruCache(max_entries=8)
        self.costs = LruCache(max_entries=8)
        self.graphs = LruCache(max_entries=16)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ----- graph choices ---------------------------------------------------------------------

    def choices(self) -> list[dict]:
        """Options for the graph chooser: the given files (with the name of their folder, not
        the server's path), then the samples."""
        opts = [{"label": f"file: {Path(f).parent.name}/{Path(f).name}", "value": f"file:{i}"}
                for i, f in enumerate(self.files)]
        opts += [{"label": f"sample: {s}", "value": f"sample:{s}"} for s in self.samples]
        return opts

    def initial_choice(self) -> str:
        """The chooser key the app opens on."""
        return "file:0" if self.config.initial else f"sample:{DEFAULT_SAMPLE}"

    def path_of(self, choice: str) -> str:
        """The file behind a chooser key; raises :class:`InputError` for an unknown key."""
        kind, _, rest = str(choice).partition(":")
        if kind == "sample" and rest in self.samples:
            return str(sample_dir() / f"{rest}.json")
        if kind == "file" and rest.isdigit() and int(rest) < len(self.files):
            return self.files[int(rest)]
        raise InputError(f"unknown graph choice {choice!r}")

    def load_choice(self, choice: str) -> tuple[Graph, str]:
        """Load the graph behind a chooser key; returns it and a label of its source.

        Loaded graphs are cached by (path, modification time, size).
        """
        path = self.path_of(choice)
        label = f"sample {Path(path).stem}" if choice.startswith("sample:") else Path(path).name
        try:
            st = os.stat(path)
            key = (path, st.st_mtime_ns, st.st_size)
        except OSError:
            return load_graph(path), label  # reports the missing file
        return self.graphs.get(key, lambda: load_graph(path)), label

    def warm(self, graph: Graph | None = None) -> Graph:
        """Load and plan the graph the app opens on before the first browser asks for it (the
        proposal, its drawing and costs are cached), so that the first page draws as fast as
        any later one: planning a 40,000-node module takes a minute. ``graph`` is the initial
        file already loaded (by ``workbench serve``'s check). Returns the graph."""
        from workbench.app.controller import DEFAULT_DEVICE, DEFAULT_POLICY
        from workbench.app.graph_figure import grouping_from_plan
        from workbench.app.scene import drawing_index

        choice = self.initial_choice()
        if graph is not None and choice.startswith("file:"):
            path = self.path_of(choice)
            st = os.stat(path)
            self.graphs.put((path, st.st_mtime_ns, st.st_size), graph)
        graph, _ = self.load_choice(choice)
        gkey = self.store.put_graph(graph)
        plan = self.propose(graph, DEFAULT_POLICY, DEFAULT_DEVICE, None)
        drawing, _ = self.drawing_for(gkey, graph, grouping_from_plan(plan))
        drawing_index(graph, drawing)
        return graph

    # ----- sessions --------------------------------------------------------------------------

    def lock(self, sid) -> threading.Lock:
        """A lock to hold while reading, changing and storing one session's workspace, so that
        two quick clicks do not both start from the same state (one of a fixed set of locks,
        chosen by the key: bounded, and sessions rarely share one)."""
        return self._locks[hash(sid) % LOCK_STRIPES]

    def session(self, sid, store=None) -> tuple[Workspace, Graph] | None:
        """The session's workspace and graph, or None if the session is unknown or expired
        (read from ``store``, by default the server's :class:`SessionStore`)."""
        store = store or self.store
        ws = store.workspace(sid)
        if ws is None:
            return None
        graph = store.graph(ws.graph_key)
        return (ws, graph) if graph is not None else None

    def propose(self, graph: Graph, policy: str, device: str, constraints=None):
        """The planner's plan (cached: planning is a pure function of these arguments)."""
        from workbench.app.controller import make_proposal

        key = (graph_key(graph), policy, device, constraints)
        return self.proposals.get(key, lambda: make_proposal(graph, policy, device, constraints))

    def replay_index(self, plan, graph: Graph):
        """The :class:`~workbench.app.replay.ReplayIndex` of ``plan``'s decision log (cached
        by the log's content)."""
        from workbench.app.replay import ReplayIndex

        key = (graph_key(graph), decisions_key(plan.decisions))
        return self.replays.get(key, lambda: ReplayIndex(plan, graph))

    def xla_plan(self, graph: Graph, device: str = "cpu"):
        """XLA's grouping of an optimised module (:func:`~workbench.planner.plan.xla_plan`),
        cached."""
        from workbench.planner.plan import xla_plan

        return self.xla_plans.get((graph_key(graph), device), lambda: xla_plan(graph, device))

    def plan_costs(self, ws: Workspace, graph: Graph, plan=None):
        """The cost model's breakdown of a plan (the current one by default) on the session's
        device; each group's cost is kept (by members, per graph and device), so an edit
        costs only the groups it changed."""
        from workbench.costmodel.model import get_device, plan_cost

        cache = self.costs.get((ws.graph_key, ws.device), dict)
        return plan_cost(graph, plan or ws.plan, get_device(ws.device), cache)

    def forget_layouts(self, sid: str) -> None:
        """Drop the layouts the graph view remembers for session ``sid`` (*Re-layout*)."""
        for mode in ("plan", "replay", "xla"):
            self.layouts.put((sid, mode), None)
        self.layouts.put((sid, "epoch"), (self.layouts.peek((sid, "epoch")) or 0) + 1)

    def drawing_for(self, gkey: str, graph: Graph, groups: list) -> tuple:
        """The drawing of ``groups`` (dicts) of the graph stored under ``gkey`` and where its
        groups and inputs sit in the graph's layers (:func:`~workbench.app.hierarchy.place`);
        cached by content."""
        sets = [g["nodes"] for g in groups]
        key = (gkey, grouping_key(sets))

        def make():
            drawing = build_drawing(graph, sets)
            return drawing, place(layers_of(graph), graph, drawing.groups)
        return self.drawings.get(key, make)

    def canvas_for(self, sid: str, gkey: str, graph: Graph, groups: list, record: dict,
                   mode: str):
        """The canvas of ``groups`` under the view ``record`` for session ``sid``'s ``mode``
        (``plan``, ``replay``, ``xla``); ``gkey`` is the graph's key in the store.

        The layout starts from the one this session's ``mode`` drew last (a replay step or
        XLA's grouping, drawn first, from the plan's): with the same record (an edit, a step)
        everything that stayed keeps its place; a grouping and record drawn before (undo) get
        the layout they had (until *Re-layout*, :meth:`forget_layouts`).
        """
        from workbench.app.view import draw_canvas, view_state

        layers = layers_of(graph)
        drawing, placement = self.drawing_for(gkey, graph, groups)
        state = view_state(record, layers, groups)
        grouping = grouping_key(drawing.groups)
        rkey = repr((record.get("open"), record.get("nodes")))
        epoch = self.layouts.peek((sid, "epoch")) or 0
        seen = self.layouts.peek((sid, mode, gkey, grouping, rkey, epoch))
        last = self.layouts.peek((sid, mode)) or (self.layouts.peek((sid, "plan"))
                                                  if mode != "plan" else None)
        if last is not None and last[0] != gkey:
            last = None
        prev = seen or (last[2] if last else None)
        edit = seen is not None or (last is not None and last[1] == rkey)
        canvas = draw_canvas(graph, groups, drawing, layers, placement, state, prev, edit)
        self.layouts.put((sid, mode), (gkey, rkey, canvas.layout))
        self.layouts.put((sid, mode, gkey, grouping, rkey, epoch), canvas.layout)
        return canvas
