"""Fingerprints of whole plans (groups *and* the decision log) for a regression check.

    PYTHONPATH=. python tools/plan_fingerprints.py [--out tests/planner/data/plan_fingerprints.json]

Plans every sample graph, every ../shared/hlo module, the XLA cases of tests/planner/xla_cases,
the corpus's HLO files and two synthetic layered graphs, under every policy and four device
profiles (the planner tests' fixed cpu, a cpu with cache ceilings, a calibrated cpu, h100), and
writes, per (graph, policy, device), the SHA-256 of the plan's JSON text (:meth:`Plan.dumps`:
groups, outputs, roles and every decision with its reason, message and numbers).
tests/planner/test_plan_fingerprints.py compares the planner of today with that file: a change
meant to make the planner faster must leave every fingerprint as it was. Regenerate the file
only for a change that is meant to change plans, and say so in its commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_OUT = ROOT / "tests" / "planner" / "data" / "plan_fingerprints.json"
POLICIES = ("priority", "xla-cpu", "greedy")
#: synthetic layered graphs planned besides the files (sizes in nodes)
LAYERED = (1000, 3000)


def devices() -> dict:
    """The device profiles plans are fingerprinted on (the tests' own, machine-independent)."""
    from tests.planner.test_reasons import DEVICES

    return DEVICES


def graph_files() -> list[Path]:
    """Sample graphs, ../shared/hlo modules, XLA cases and the corpus's HLO files."""
    from tests.conftest import SAMPLES_DIR, SHARED_HLO

    files = sorted(SAMPLES_DIR.glob("*.json")) + sorted(Path(SHARED_HLO).glob("*.hlo"))
    files += sorted((ROOT / "tests" / "planner" / "xla_cases").glob("*.hlo"))
    files += sorted((ROOT / "corpus").glob("*.hlo"))
    return files


def graph_keys() -> list[str]:
    """The key of every graph fingerprinted, without loading one: the file relative to its
    folder's parent (``hlo/mlp.before.hlo``) or the synthetic graph (``layered/1000``)."""
    return [f"{f.parent.name}/{f.name}" for f in graph_files()] + [f"layered/{n}" for n in LAYERED]


def load(key: str):
    """The graph of ``key`` (see :func:`graph_keys`)."""
    from workbench.importers import load_graph
    from workbench.ir.synthetic import layered_graph

    folder, name = key.split("/", 1)
    if folder == "layered":
        return layered_graph(int(name))
    return load_graph(next(f for f in graph_files() if f"{f.parent.name}/{f.name}" == key))


def graphs():
    """(key, graph) of every graph fingerprinted (see :func:`graph_keys`)."""
    from workbench.importers import load_graph
    from workbench.ir.synthetic import layered_graph

    for f in graph_files():
        yield f"{f.parent.name}/{f.name}", load_graph(f)
    for n in LAYERED:
        yield f"layered/{n}", layered_graph(n)


def plan_hash(plan) -> str:
    """SHA-256 (16 hex digits) of the plan's JSON text: groups and the full decision log."""
    return hashlib.sha256(plan.dumps().encode()).hexdigest()[:16]


def graph_fingerprints(key: str, graph) -> dict:
    """``{"key|policy|device": hash}`` of one graph under every policy and device."""
    from workbench.planner import plan_graph

    return {f"{key}|{policy}|{dname}": plan_hash(plan_graph(graph, policy, dev))
            for policy in POLICIES for dname, dev in devices().items()}


def fingerprints(only=None) -> dict:
    """``{"graph|policy|device": hash}`` for every combination (``only``: keys to compute)."""
    from workbench.planner import plan_graph

    out = {}
    for key, g in graphs():
        for policy in POLICIES:
            for dname, dev in devices().items():
                k = f"{key}|{policy}|{dname}"
                if only is not None and k not in only:
                    continue
                out[k] = plan_hash(plan_graph(g, policy, dev))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    fp = fingerprints()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fp, indent=0, sort_keys=True) + "\n")
    print(f"{len(fp)} plan fingerprints written to {args.out}")


if __name__ == "__main__":
    main()
