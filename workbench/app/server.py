"""The app's server-side services: configuration, the graph choices, the session store, layouts.

One :class:`Services` object is made per app (by :func:`workbench.app.create_app`) and handed to
the callbacks; nothing here is a module global. Graph choices are addressed by keys the server
made (``sample:mlp``, ``file:2``), so a browser can only ask for files the person who started
the server pointed at.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from workbench.app.cache import LruCache, grouping_key
from workbench.app.drawing import build_drawing
from workbench.app.hierarchy import layers_of, place
from workbench.app.jobs import WorkerPool
from workbench.app.state import (MAX_SESSIONS, SESSION_BUDGET_BYTES, SessionStore, Workspace,
                                 graph_key, plan_bytes)
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.ir.graph import Graph
from workbench.paths import cache_dir, sample_dir, sample_names
from workbench.profiler.first_use import BackgroundCalibration

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
    """How the app was started, and its limits.

    Parameters
    ----------
    initial : str or None
        A graph file to open on; None opens the default sample (the transformer block).
    graph_files : list of str
        HLO/JSON files offered in the graph chooser besides the samples.
    host, port : str, int or None
        The address the server listens on: requests must name it in their ``Host`` (and
        ``Origin``) header (:mod:`workbench.app.security`); ``port`` None accepts any port.
    token : str or None
        When set, every request must carry this access token (``?token=`` once, then a
        cookie); ``workbench serve --host 0.0.0.0`` makes one.
    allow_hosts : tuple of str
        More host names requests may use (a name of this machine on the network).
    session_budget_bytes, max_sessions : int
        Bounds of the session store (:class:`~workbench.app.state.SessionStore`).
    profile_workers, max_jobs, jobs_per_session : int
        Compile & profile worker processes (jobs running at once; they also run *Tune* and
        measure the Learn page's lessons), jobs queued or running in all, and per session
        (one compile & profile job and one tune; a lesson's measurement is owned by its
        lesson, so one runs per lesson whoever asked).
    job_timeout_s : float
        A compile & profile job (or a tune) running longer than this is stopped (seconds).
    job_memory_bytes : int
        A profile worker whose resident size passes this is stopped, its job failed.
    load_timeout_s : float
        Reading and planning an upload or a chosen file longer than this is stopped.
    load_address_space : int
        The address-space limit of the worker that reads uploads (bytes).
    profile_options : dict
        More keyword arguments of :func:`workbench.profiler.profile` (``repeat``...).
    tune_options : dict
        More keyword arguments of :func:`workbench.tuning.tune.tune` for *Tune* (``repeat``,
        ``min_gain``, ``timeout_s`` of each measurement...).
    input_limits : Limits or None
        The limits uploads and chosen files are read under
        (:mod:`workbench.importers.limits`; None: the defaults).
    tour : bool
        Open the tour of the main view on a browser's first visit.
    executor : str
        Where compile & profile jobs (and *Tune*) measure: ``local`` (this machine's worker
        processes) or ``ray`` (Ray tasks: ``workbench serve --executor ray``).
    ray_address : str or None
        A Ray cluster's address (``HOST:PORT``); None with ``ray`` starts a local Ray.
    ray_cpus : int or None
        CPUs of that local Ray (default: ``workbench.tuning.ray_executor.LOCAL_CPUS``).
    """

    initial: str | None = None
    graph_files: list = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int | None = None
    token: str | None = None
    allow_hosts: tuple = ()
    session_budget_bytes: int = SESSION_BUDGET_BYTES
    max_sessions: int = MAX_SESSIONS
    profile_workers: int = 1
    max_jobs: int = 8
    jobs_per_session: int = 1
    job_timeout_s: float = 600.0
    job_memory_bytes: int = 3 << 30
    load_timeout_s: float = 60.0
    load_address_space: int = 4 << 30
    profile_options: dict = field(default_factory=dict)
    tune_options: dict = field(default_factory=dict)
    input_limits: object = None
    tour: bool = True
    executor: str = "local"
    ray_address: str | None = None
    ray_cpus: int | None = None


#: a chooser key: ``sample:NAME`` or ``file:N`` (ASCII digits only)
_FILE_CHOICE = re.compile(r"file:([0-9]{1,6})")
#: bounds of the caches shared between sessions (graph nodes, plan estimates in bytes)
MAX_CACHED_NODES = 400_000
MAX_CACHED_PLAN_BYTES = 256 << 20


def layout_weight(value) -> int:
    """A remembered layout's weight for the layouts cache: the items it places (a value is a
    layout, a (graph key, record key, layout) entry, or an epoch number)."""
    layout = value[-1] if isinstance(value, tuple) else value
    return len(getattr(layout, "rects", ()) or ()) + len(getattr(layout, "positions", ()) or ())


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


def connect_ray(config: AppConfig):
    """For ``executor="ray"``: the app's Ray executor (connected: a local Ray started on this
    machine, or the cluster at ``config.ray_address`` joined), and the target the profile
    workers join — ``(address, words)``: the cluster's address, or the local Ray's own GCS
    address. ``(None, None)`` for the local executor.

    Raises
    ------
    InputError
        An unknown executor, an address without ``ray``, Ray not installed, or a cluster that
        does not answer (one line: ``cannot reach the Ray cluster at HOST:PORT: ...``).
    """
    from workbench.tuning.executors import make_executor

    if config.executor == "local" and not config.ray_address:
        return None, None
    ex = make_executor(config.executor, config.ray_address, config.ray_cpus)
    ex.connect()
    if config.ray_address:
        return ex, (config.ray_address, f"the Ray cluster at {config.ray_address}")
    return ex, (ex.gcs_address(), "a local Ray on this machine")


class Services:
    """Configuration, graph choices, the session store and the layout cache of one app."""

    def __init__(self, config: AppConfig):
        self.config = config
        files = list(config.graph_files)
        if config.initial and config.initial not in files:
            files.insert(0, config.initial)
        self.files = [str(Path(f)) for f in files]
        self.samples = sample_names()
        self.store = SessionStore(config.session_budget_bytes, config.max_sessions)
        nodes = dict(max_weight=MAX_CACHED_NODES)
        self.drawings = LruCache(max_entries=32, weight=lambda v: len(v[0].vertices), **nodes)
        #: the graph view's last layouts, by (session, view mode) and by (session, mode,
        #: grouping, record) for undo: in memory, bounded (a restarted server starts afresh)
        self.layouts = LruCache(max_entries=512, weight=layout_weight, **nodes)
        self.proposals = LruCache(max_weight=MAX_CACHED_PLAN_BYTES, weight=plan_bytes)
        self.replays = LruCache(max_entries=8, max_weight=MAX_CACHED_PLAN_BYTES,
                                weight=lambda v: v.nbytes())
        self.xla_plans = LruCache(max_entries=8, max_weight=MAX_CACHED_PLAN_BYTES,
                                  weight=plan_bytes)
        #: a dict per (graph, device, calibration generation), filled on use: costs computed
        #: with the quick probe are not reused once the background calibration is done
        self.costs = LruCache(max_entries=8)
        #: the cpu profile's calibration on first use (``workbench serve`` starts it)
        self.calibration = BackgroundCalibration()
        self.graphs = LruCache(max_entries=16, weight=lambda v: len(v[0].nodes), **nodes)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]
        self.jobs = WorkerPool("profile", ("profile", "lesson", "tune"),
                               workers=config.profile_workers,
                               max_queued=config.max_jobs, per_owner=config.jobs_per_session,
                               timeout_s=config.job_timeout_s,
                               memory_bytes=config.job_memory_bytes)
        self.jobs.on_finish = self._job_finished
        self.ray, self.ray_target = connect_ray(config)
        self.loader = WorkerPool("load", ("load",), workers=1, max_queued=16, per_owner=1,
                                 timeout_s=config.load_timeout_s,
                                 address_space=config.load_address_space)

    def start(self) -> None:
        """Start the worker processes (``workbench serve`` does, before serving); otherwise
        they start with the first job."""
        self.loader.start()
        self.jobs.start()

    def close(self) -> None:
        """Stop the worker processes (and a local Ray this app started)."""
        self.jobs.close()
        self.loader.close()
        if self.ray is not None:
            self.ray.close()
            self.ray = None

    def _job_finished(self, task) -> None:
        """A profile job ended: keep its report in the session (whether or not the browser
        is still there to fetch it). A tune ended: make its best plan the session's current
        one (:meth:`_tune_finished`). A lesson's measurement keeps its own records, on disk
        per machine (:mod:`workbench.teaching.measure`)."""
        if task.state == "done" and task.kind == "profile":
            record = task.result
            self.store.put_report(task.owner, record, size=len(json.dumps(record)))
        elif task.state == "done" and task.kind == "tune":
            self._tune_finished(task)

    def _tune_finished(self, task) -> None:
        """A tune that found a faster plan: push it on the session's undo history — if the
        session's current plan is still the one the tune started from. Sets
        ``task.result["applied"]``: ``"yes"``, ``"changed"`` (the plan was edited meanwhile:
        left as it is), ``"gone"`` (the session was let go) or None (nothing was faster)."""
        from workbench.app import controller

        record = task.result
        record["applied"] = None
        if not record["result"].improved:
            return
        sid = task.owner.split(":", 1)[1]
        with self.lock(sid):
            cur = self.session(sid)
            if cur is None:
                record["applied"] = "gone"
            elif cur[0].plan.fingerprint != record["start"]:
                record["applied"] = "changed"
            else:
                self.store.put_workspace(sid, controller.push(cur[0], record["result"].best))
                record["applied"] = "yes"

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
        m = _FILE_CHOICE.fullmatch(str(choice))
        if m and int(m.group(1)) < len(self.files):
            return self.files[int(m.group(1))]
        raise InputError(f"unknown graph choice {str(choice)[:40]!r}")

    def load_choice(self, choice: str, policy: str = "priority", device: str = "cpu",
                    owner: str = "server") -> tuple[Graph, str]:
        """Load the graph behind a chooser key; returns it and a label of its source.

        The samples and the file the server was started on are read here; any other file in
        a worker process (:meth:`load_in_worker`), as uploads are. Loaded graphs are cached by
        (path, modification time, size).
        """
        path = self.path_of(choice)
        label = f"sample {Path(path).stem}" if choice.startswith("sample:") else Path(path).name
        trusted = choice.startswith("sample:") or path == self.config.initial
        try:
            st = os.stat(path)
            key = (path, st.st_mtime_ns, st.st_size)
        except OSError:
            return load_graph(path), label  # reports the missing file
        if trusted:
            return self.graphs.get(key, lambda: (load_graph(path),))[0], label
        return self.graphs.get(key, lambda: (self.load_in_worker(
            owner, None, Path(path).name, path, policy, device),))[0], label

    def load_in_worker(self, owner: str, data: bytes | None, name: str,
                       path: str | None = None, policy: str = "priority",
                       device: str = "cpu") -> Graph:
        """Read a graph (an upload's bytes, or a file) in the loader worker, with its
        time-out and memory limit, and plan it there; the plan is kept as the proposal for
        (``policy``, ``device``).

        Raises
        ------
        WorkbenchError
            What is wrong with the input (naming ``name``), or that reading it took too long
            or too much memory, or that the loader is busy.
        """
        graph, plan = self.loader.run(owner, "load", (data, name, path, policy, device,
                                                      self.config.input_limits))
        self.proposals.put((graph_key(graph), policy, device, None), plan)
        return graph

    def warm(self, graph: Graph | None = None) -> Graph:
        """Load and plan the graph the app opens on before the first browser asks for it (the
        proposal, its drawing and costs are cached), so that the first page draws as fast as
        any later one: planning a 22,000-node training step takes half a minute of CPU. ``graph`` is the initial
        file already loaded (by ``workbench serve``'s check). Returns the graph."""
        from workbench.app.controller import DEFAULT_DEVICE, DEFAULT_POLICY
        from workbench.app.graph_figure import grouping_from_plan
        from workbench.app.scene import drawing_index

        choice = self.initial_choice()
        if graph is not None and choice.startswith("file:"):
            path = self.path_of(choice)
            st = os.stat(path)
            self.graphs.put((path, st.st_mtime_ns, st.st_size), (graph,))
        graph, _ = self.load_choice(choice)
        gkey = graph_key(graph)
        plan = self.propose(graph, DEFAULT_POLICY, DEFAULT_DEVICE, None)
        drawing, _ = self.drawing_for(gkey, graph, grouping_from_plan(plan))
        drawing_index(graph, drawing)
        self.proposal_costs(graph, plan, DEFAULT_DEVICE)
        return graph

    def proposal_costs(self, graph: Graph, plan, device: str):
        """Cost ``plan`` of ``graph`` on ``device`` into the costs cache that
        :meth:`plan_costs` reads (each group by its members): the plan table's first rows
        of a 30,000-node module then cost nothing more (a few CPU seconds otherwise)."""
        from workbench.costmodel.model import get_device, plan_cost

        cache = self.costs.get((graph_key(graph), device, self.calibration.generation), dict)
        return plan_cost(graph, plan, get_device(device), cache)

    # ----- sessions --------------------------------------------------------------------------

    def lock(self, sid) -> threading.Lock:
        """A lock to hold while reading, changing and storing one session's workspace, so that
        two quick clicks do not both start from the same state (one of a fixed set of locks,
        chosen by the key: bounded, and sessions rarely share one)."""
        return self._locks[hash(sid) % LOCK_STRIPES]

    def session(self, sid) -> tuple[Workspace, Graph] | None:
        """The session's workspace and graph, or None if the session is unknown, expired or
        evicted."""
        ws = self.store.workspace(sid)
        if ws is None:
            return None
        graph = self.store.graph(ws.graph_key)
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

        cache = self.costs.get((ws.graph_key, ws.device, self.calibration.generation), dict)
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
