"""The results store: measured plans in SQLite, so a second tune or sweep reuses them.

One table, ``measurements``, keyed by (graph fingerprint, plan fingerprint, device, backend,
workbench version): the graph and the plan it ran (:attr:`~workbench.ir.Graph.fingerprint`,
:attr:`~workbench.planner.plan.Plan.fingerprint`), the machine that timed it
(:func:`~workbench.tuning.tasks.host_id`, or ``ray:<address>`` for a cluster), the backend
and the workbench's version (a new version may generate other kernels, so its measurements are
its own). Only measurements whose outputs matched the reference are stored: a crash, a timeout,
a mismatch or a compile error leaves no row. The default file is ``results.sqlite`` in the
cache directory (:func:`workbench.paths.cache_dir`); the stdlib's :mod:`sqlite3` writes it
(one transaction per row, so two processes can share the file).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from workbench import __version__
from workbench.errors import InputError
from workbench.paths import cache_dir
from workbench.tuning.measure import Measurement

SCHEMA = """
CREATE TABLE IF NOT EXISTS measurements (
    graph_fp TEXT NOT NULL, plan_fp TEXT NOT NULL, device TEXT NOT NULL,
    backend TEXT NOT NULL, version TEXT NOT NULL,
    graph_name TEXT, label TEXT, policy TEXT, cost_device TEXT,
    best_s REAL NOT NULL, median_s REAL NOT NULL, runs INTEGER, predicted_s REAL,
    kernels INTEGER, peak_bytes INTEGER, compile_s REAL, max_rel_error REAL,
    kernel_times TEXT, host TEXT, plan_json TEXT, created REAL,
    PRIMARY KEY (graph_fp, plan_fp, device, backend, version)
);
CREATE INDEX IF NOT EXISTS by_graph ON measurements (graph_fp, created);
"""


def default_path() -> Path:
    """``<cache dir>/results.sqlite``."""
    return cache_dir() / "results.sqlite"


@dataclass(frozen=True)
class Row:
    """A stored measurement with what it was of (see :class:`ResultsStore`)."""

    graph_fp: str
    plan_fp: str
    device: str
    backend: str
    version: str
    graph_name: str
    label: str
    policy: str
    cost_device: str
    best_s: float
    median_s: float
    runs: int
    predicted_s: float | None
    kernels: int
    peak_bytes: int
    created: float

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


_ROW_FIELDS = tuple(Row.__dataclass_fields__)


class ResultsStore:
    """Measurements in an SQLite file.

    Parameters
    ----------
    path : path, optional
        The database file (default :func:`default_path`); its directory is created.
    version : str, optional
        The workbench version rows are written and read under (default the package's).

    Raises
    ------
    InputError
        If the file cannot be opened as a database.
    """

    def __init__(self, path=None, version: str | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.version = version or __version__
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30)
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise InputError(f"cannot open the results store: {exc}", file=str(self.path)) \
                from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get(self, graph_fp: str, plan_fp: str, device: str, backend: str) -> Row | None:
        """The stored measurement of a plan on a device and backend under this version."""
        cur = self._db.execute(
            f"SELECT {', '.join(_ROW_FIELDS)} FROM measurements WHERE graph_fp=? AND plan_fp=? "
            "AND device=? AND backend=? AND version=?",
            (graph_fp, plan_fp, device, backend, self.version))
        got = cur.fetchone()
        return Row(*got) if got else None

    def put(self, graph, plan, device: str, m: Measurement, *, label: str = "",
            predicted_s: float | None = None, cost_device: str | None = None) -> None:
        """Store a measurement (replacing one with the same key).

        Raises
        ------
        ValueError
            If the measurement is not of ``plan``, or is not a positive finite time (a wrong
            row is never written).
        """
        if m.plan_fingerprint != plan.fingerprint:
            raise ValueError(f"measurement of plan {m.plan_fingerprint} stored as "
                             f"{plan.fingerprint}")
        if not (m.best_s > 0 and m.median_s >= m.best_s and m.median_s < float("inf")):
            raise ValueError(f"not a valid measurement: best {m.best_s}, median {m.median_s}")
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO measurements VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (graph.fingerprint, plan.fingerprint, device, m.backend, self.version,
                 graph.name, label, plan.policy, cost_device or plan.device, m.best_s,
                 m.median_s, m.runs, predicted_s,
                 sum(1 for g in plan.groups if g.role == "call"), m.peak_bytes, m.compile_s,
                 m.max_rel_error, json.dumps(dict(m.kernels)), m.host, plan.dumps(),
                 time.time()))

    def history(self, graph_fp: str, limit: int = 200) -> list[Row]:
        """Every stored measurement of a graph under this version, newest first."""
        cur = self._db.execute(
            f"SELECT {', '.join(_ROW_FIELDS)} FROM measurements WHERE graph_fp=? AND version=? "
            "ORDER BY created DESC LIMIT ?", (graph_fp, self.version, int(limit)))
        return [Row(*r) for r in cur.fetchall()]

    def kernel_times(self, row: Row) -> dict:
        """Group id -> median seconds of a stored measurement's kernels."""
        cur = self._db.execute(
            "SELECT kernel_times FROM measurements WHERE graph_fp=? AND plan_fp=? AND device=? "
            "AND backend=? AND version=?",
            (row.graph_fp, row.plan_fp, row.device, row.backend, row.version))
        got = cur.fetchone()
        return json.loads(got[0]) if got and got[0] else {}

    def count(self) -> int:
        """Rows stored (every version)."""
        return self._db.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
