"""Measuring a lesson's stages on this machine, with the profiler, and keeping the results.

Each measured stage (the planner's plan, and variants such as the folded graph) is compiled and
timed by :func:`workbench.profiler.profile` against its unfused baseline, exactly as *Compile &
profile* does; the record kept is small and JSON-ready (:func:`record_of`). Records are cached
per machine under ``$WORKBENCH_CACHE_DIR/lessons/<machine>/`` (one file per lesson stage, graph,
plan and backend), so a class opening the same lesson on the same machine sees the same figures
at once; *measure again* replaces them.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from functools import lru_cache
from pathlib import Path

from workbench.paths import cache_dir

#: how long the profiler may time each plan (seconds, per plan; it makes at least 3 rounds)
BUDGET_S = 1.0
#: timed rounds at most
REPEAT = 15
#: the version of a stored record's fields (part of its cache key: a record of an older
#: version, which kept no fastest run per kernel, is measured again)
RECORD_VERSION = 2


@lru_cache(maxsize=1)
def machine() -> dict:
    """This machine as the cache names it: host, processor, CPU count."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"host": platform.node(), "cpu": cpu, "cpus": os.cpu_count() or 1}


def machine_key() -> str:
    """A short, file-safe key of :func:`machine`."""
    m = machine()
    return hashlib.sha256(json.dumps(m, sort_keys=True).encode()).hexdigest()[:12]


#: the GPUs the cost model has a datasheet profile of, as the NVIDIA driver names them
GPU_PROFILES = {"H200": "h200", "H100": "h100", "A100": "a100"}


def _nvidia_models() -> list[str]:
    """GPU model names from the NVIDIA driver's files (``/proc/driver/nvidia/gpus/*/
    information``): read without starting CUDA, so a server that forks jobs may ask."""
    out = []
    for info in sorted(Path("/proc/driver/nvidia/gpus").glob("*/information")):
        try:
            text = info.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        out += [line.split(":", 1)[1].strip() for line in text.splitlines()
                if line.startswith("Model:")]
    return out


@lru_cache(maxsize=1)
def measuring() -> tuple[str, str]:
    """``(backend, device profile)`` lessons are measured and costed on: ``cuda`` and the GPU's
    profile when this machine has an NVIDIA GPU the cost model knows (H200, H100, A100), else
    ``cpu`` and ``cpu``. Under numba's CUDA simulator, the CPU."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "cpu", "cpu"
    for model in _nvidia_models():
        for key, profile in GPU_PROFILES.items():
            if key in model.upper():
                return "cuda", profile
    return "cpu", "cpu"


def _plan_members(plan) -> list:
    return sorted(sorted(g.nodes) for g in plan.groups)


def stage_key(lesson_id: str, stage, backend: str) -> str:
    """The cache key of one stage's measurement: the lesson, the stage, its graph's content,
    its groups and the backend."""
    doc = [lesson_id, stage.id, stage.graph.fingerprint, _plan_members(stage.plan), backend,
           stage.plan.device, RECORD_VERSION]
    return hashlib.sha256(json.dumps(doc).encode()).hexdigest()[:20]


def _dir() -> Path:
    return cache_dir() / "lessons" / machine_key()


def cached(lesson_id: str, stage, backend: str) -> dict | None:
    """The stored record of a stage on this machine, or None."""
    path = _dir() / f"{stage_key(lesson_id, stage, backend)}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(lesson_id: str, stage, backend: str, record: dict) -> None:
    """Keep a record (written to a temporary file, then renamed: readers never see half)."""
    folder = _dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stage_key(lesson_id, stage, backend)}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, path)


def records(run, backend: str | None = None) -> dict:
    """Stage id -> stored record, for the measured stages of ``run`` that have one."""
    backend = backend or measuring()[0]
    out = {}
    for s in run.measured_stages:
        r = cached(run.lesson.id, s, backend)
        if r is not None:
            out[s.id] = r
    return out


def _num(x):
    return x if isinstance(x, (int, float)) else None


def _kernel(k: dict) -> dict:
    """What is kept of one timed kernel: its median and fastest run (seconds), prediction and
    bytes."""
    return {"group": k["group_id"], "measured_s": _num(k.get("median_s")),
            "min_s": _num(k.get("min_s")), "predicted_s": _num(k.get("predicted_s")),
            "bytes": k["bytes_read"] + k["bytes_written"]}


def statistic(record: dict | None) -> str:
    """Which of a record's runs every figure of it shows: ``median``, or ``fastest run`` when
    the profiler found the timings noisy. The whole call's time and each kernel's come from
    the same rounds and use the same statistic, so that a page never shows a kernel slower
    than the call it is part of."""
    return "fastest run" if (record or {}).get("noisy") else "median"


def call_time(record: dict, which: str = "fused") -> float | None:
    """A record's time per call, ``fused`` or ``unfused``, by :func:`statistic`."""
    return record.get(f"{which}_min_s") if record.get("noisy") else record.get(f"{which}_s")


def kernel_times(record: dict | None, which: str = "kernels") -> dict:
    """Group id -> a record's time of each kernel (``kernels``: the plan's; ``unfused_kernels``:
    its baseline's, one op each), by :func:`statistic`."""
    r = record or {}
    key = "min_s" if r.get("noisy") else "measured_s"
    return {k["group"]: k.get(key) for k in r.get(which, ())}


def record_of(report, lesson_id: str, stage_id: str) -> dict:
    """What is kept of a profile :class:`~workbench.profiler.Report` for a lesson stage."""
    doc = report.to_json()
    tot = doc["totals"]
    fused, unfused = tot["fused"], tot["unfused"]

    def moved(kernels):
        return sum(k["bytes_read"] + k["bytes_written"] for k in kernels
                   if k.get("role", "call") == "call")

    return {
        "lesson": lesson_id, "stage": stage_id, "backend": doc["backend"],
        "device": doc.get("device"), "fused_s": _num(fused["median_s"]),
        "unfused_s": _num(unfused["median_s"]), "fused_min_s": _num(fused["min_s"]),
        "unfused_min_s": _num(unfused["min_s"]), "fused_spread_s": _num(fused["spread_s"]),
        "noisy": bool(fused.get("noisy") or unfused.get("noisy")),
        "bytes_fused": moved(doc["kernels"]), "bytes_unfused": moved(doc["unfused_kernels"]),
        "predicted_s": _num(tot.get("predicted_s")),
        "predicted_unfused_s": _num(tot.get("predicted_unfused_s")),
        "kernels": [_kernel(k) for k in doc["kernels"]],
        "unfused_kernels": [_kernel(k) for k in doc["unfused_kernels"]],
        "ok": bool(doc["ok"]), "notes": list(doc.get("notes") or ()),
        "machine": dict(machine()) | {"busy": bool((doc.get("machine") or {}).get("busy"))},
        "measured_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def measure_stage(run, stage, backend: str | None = None, progress=None, cancel=None) -> dict:
    """Profile one stage (its plan against its graph's unfused baseline), store and return the
    record.

    Raises
    ------
    WorkbenchError
        A compile error, a mismatch against the reference, or a cancellation.
    """
    from workbench.errors import MismatchError
    from workbench.profiler import profile

    backend = backend or measuring()[0]
    report = profile(stage.graph, stage.plan, backend=backend, repeat=REPEAT,
                     budget_s=BUDGET_S, progress=progress, cancel=cancel, device=run.device.name)
    record = record_of(report, run.lesson.id, stage.id)
    if not record["ok"]:
        raise MismatchError(f"lesson {run.lesson.id}, stage {stage.id}: the compiled kernels do "
                            "not match the reference interpreter; nothing was stored")
    store(run.lesson.id, stage, backend, record)
    return record


def measure_lesson(run, backend: str | None = None, progress=None, cancel=None,
                   again: bool = False) -> dict:
    """Measure every measured stage of ``run`` that has no record yet (all of them with
    ``again``); returns stage id -> record.

    ``progress(stage, k, n, message)`` is the profiler's, with the stage's title in front.
    """
    backend = backend or measuring()[0]
    out = {} if again else records(run, backend)
    todo = [s for s in run.measured_stages if s.id not in out]
    for k, s in enumerate(todo, start=1):
        def step(stage, i, n, message="", _s=s, _k=k):
            if progress is not None:
                progress(stage, i, n, f"{_s.title} ({_k} of {len(todo)})"
                         + (f": {message}" if message else ""))
        out[s.id] = measure_stage(run, s, backend, step, cancel)
    return out
