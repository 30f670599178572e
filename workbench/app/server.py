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

from workbench.app.drawing import build_drawing, collapse
from workbench.app.graph_layout import (LruCache, boxes_tell_the_truth, compute_layout,
                                        grouping_key)
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
    tour : bool
        Open the tour of the main view on a browser's first visit.
    """

    initial: str | None = None
    graph_files: list = field(default_factory=list)
    store_dir: str | None = None
    tour: bool = True


def graph_files_in(directory) -> list[str]:
    """The HLO and JSON files in ``directory``, sorted by name."""
    return sorted(str(q) for q in Path(directory).glob("*")
                  if q.suffix in GRAPH_SUFFIXES and q.is_file())


def files_near(path: str) -> list[str]:
    """``path`` and the graph files beside it, for the chooser."""
    return [str(path)] + [f for f in graph_files_in(Path(path).parent) if f != str(path)]


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
        self.layouts = LruCache(max_entries=128)
        self.proposals = LruCache()
        self.graphs = LruCache(max_entries=16)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ----- graph choices ---------------------------------------------------------------------

    def choices(self) -> list[dict]:
        """Options for the graph chooser: the given files, then the samples."""
        opts = [{"label": f"file: {Path(f).name}", "value": f"file:{i}"}
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

    def drawing_for(self, ws: Workspace, graph: Graph, groups: list, collapsed) -> tuple:
        """The drawing of ``groups`` (dicts) with the groups ``collapsed`` (ids) as boxes, and
        its positions.

        With nothing collapsed, positions come from the layout made for ``ws.layout_plan`` (the
        planner's proposal, until the user asks for a re-layout), so that an edit moves no
        node, as long as the group boxes drawn at those positions tell the truth
        (:func:`~workbench.app.graph_layout.boxes_tell_the_truth`: no box covers an op outside
        it or another box); otherwise (a replay step, XLA's grouping, an edit that a box could
        not follow) the drawing is laid out for ``groups`` themselves. With groups collapsed,
        the collapsed drawing itself is laid out. Layouts are cached.
        """
        sets = [g["nodes"] for g in groups]
        drawing = build_drawing(graph, sets)
        boxes = {i for i, g in enumerate(groups) if g["id"] in set(collapsed)}
        own = (graph.fingerprint, grouping_key(sets))
        if boxes:
            drawing = collapse(drawing, boxes)
            key = own + (grouping_key(sets[i] for i in boxes),)
            return drawing, self.layouts.get(key, lambda: compute_layout(drawing))
        basis = [g.nodes for g in ws.layout_plan.groups]
        kept = (graph.fingerprint, grouping_key(basis))
        layout = self.layouts.get(kept, lambda: compute_layout(build_drawing(graph, basis)))
        if kept != own and not self.layouts.get(
                ("fits",) + own + kept[1:], lambda: boxes_tell_the_truth(drawing, layout)):
            layout = self.layouts.get(own, lambda: compute_layout(drawing))
        return drawing, layout
