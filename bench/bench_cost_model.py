"""Cost-model accuracy on this CPU, in one run: calibrate, profile every model, compare.

    PYTHONPATH=. python bench/bench_cost_model.py [--repeat 30] [--no-calibrate]
                                                  [--save DIR | --load DIR] [--only NAME ...]
                                                  [--remeasure [NAME ...]]

1. Calibrates the ``cpu`` profile with the CPU backend's own micro-kernels
   (:func:`workbench.profiler.calibrate.refresh_cpu_profile`, what ``workbench devices
   --refresh`` does, in a process of its own as that command and the app run it), unless ``--no-calibrate``, into ``$WORKBENCH_CACHE_DIR`` (default
   ``bench/.cache``, so that other checkouts' probes on the same machine do not overwrite it).
2. Profiles the fused (``priority``) and unfused plans of every model (``workbench run``'s
   :func:`~workbench.profiler.profile`, ``--repeat`` rounds): the seven ``../shared/hlo`` models
   (``*.before.hlo``) and the sample graphs (*tune*), and a corpus of real models with a
   tune/holdout split: ``corpus/manifest.json`` when the repository has one (its ``split``
   field), else ``bench/.corpus`` (``bench/jax_corpus.py``, made when jax is installed).
3. Prints, over every compiled per-call kernel (fallbacks, offline and dead kernels left out),
   with the measured time a prediction is compared with (the 25th percentile of the runs,
   :func:`~workbench.profiler.accuracy.measured_time`: the statistic the probe fits the terms
   to; the share against the median is printed beside it):
   the share of kernels within 2x of their prediction and Spearman's rho (all, tune, holdout;
   the fused plans' kernels of each split, which are what a user reads, apart),
   the same for the uncalibrated roofline profile on the same times, the ten worst kernels with
   the term that was wrong, the figures by kernel class (the dominant term), the CPU memory
   ceilings in order, and, per fused group of two ops or more, whether the model predicts the
   sign of the measured saving (the fused kernel against the sum of its ops' unfused kernels).

4. With ``--remeasure [NAME ...]``, measures those models again in the same process and prints
   the share of kernels whose two measurements agree within 2x: the ceiling that measurement
   noise puts on the share within 2x (no model can beat the kernels' agreement with themselves).

This is a report, not a timed test; the load average is printed before and after, and on a busy
machine measured times are high and noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("WORKBENCH_CACHE_DIR", str(ROOT / "bench" / ".cache"))

from workbench.costmodel import plan_cost  # noqa: E402
from workbench.costmodel.calibrated import interpreted_context  # noqa: E402
from workbench.importers import load_graph  # noqa: E402
from workbench.planner import plan_graph  # noqa: E402
from workbench.planner.plan import plan_from_json, unfused_plan  # noqa: E402
from workbench.profiler.accuracy import MISS_RANGE, check_prediction, measured_time  # noqa: E402
from workbench.profiler.report import Timing  # noqa: E402

SHARED = ROOT.parent / "shared" / "hlo"


# ----- the models ---------------------------------------------------------------------------------

def corpus_models() -> list[tuple[str, Path, str]]:
    """(name, file, split) of the corpus: the repository's, else bench/.corpus (made with jax
    when missing and jax is importable)."""
    for manifest in (ROOT / "corpus" / "manifest.json", ROOT / "bench" / ".corpus" /
                     "manifest.json"):
        if not manifest.exists() and manifest.parent.name == ".corpus":
            try:
                import jax  # noqa: F401
            except ImportError:
                continue
            import subprocess

            subprocess.run([sys.executable, str(ROOT / "bench" / "jax_corpus.py")], check=True)
        if manifest.exists():
            return list(_entries(manifest))
    return []


def _entries(manifest: Path):
    doc = json.loads(manifest.read_text())
    items = doc.get("models", doc) if isinstance(doc, dict) else doc
    if isinstance(items, dict):
        items = [dict(v, name=k) for k, v in items.items()]
    for e in items:
        if not isinstance(e, dict):
            continue
        path = None
        for key in ("before", "before_full", "file", "path", "hlo"):
            if e.get(key) and (manifest.parent / e[key]).exists():
                path = manifest.parent / e[key]
                break
        if path is None and e.get("name"):       # corpus/manifest.json: NAME.before.hlo
            candidate = manifest.parent / f"{e['name']}.before.hlo"
            path = candidate if candidate.exists() else None
        if path is not None:
            yield str(e.get("name") or path.name.split(".")[0]), path, str(e.get("split", "tune"))


def all_models() -> list[tuple[str, Path, str]]:
    shared = [(p.name.split(".")[0], p, "tune") for p in sorted(SHARED.glob("*.before.hlo"))]
    samples = [(f"sample_{p.stem}", p, "tune")
               for p in sorted((ROOT / "sample_graphs").glob("*.json"))]
    return shared + samples + [(f"corpus_{n}", p, s) for n, p, s in corpus_models()]


# ----- measuring ----------------------------------------------------------------------------------

def measure(name: str, path: Path, repeat: int) -> dict:
    """Profile one model's fused and unfused plans; the record the analysis reads."""
    from workbench.profiler import profile

    g = load_graph(path)
    plan = plan_graph(g, "priority", "cpu")
    t0 = time.perf_counter()
    report = profile(g, plan, backend="cpu", repeat=repeat, budget_s=4.0)
    return {"name": name, "file": str(path), "plan": plan.to_json(),
            "unfused": unfused_plan(g, "cpu").to_json(), "report": report.to_json(),
            "seconds": time.perf_counter() - t0}


def _timing(k: dict) -> Timing:
    typical = k.get("typical_s")
    return Timing(k["median_s"], k["min_s"], k.get("spread_s") or 0.0, k.get("samples", 0),
                  noisy=bool(k.get("noisy")),
                  typical_s=typical if isinstance(typical, float) else math.nan)


def interpreted_s(rec: dict, key: str) -> float:
    """Median seconds of the plan's longest fallback kernel (the numpy reference interpreter)."""
    return max((k["median_s"] for k in rec["report"][key] if k.get("fallback")
                and k.get("role", "call") == "call" and isinstance(k.get("median_s"), float)),
               default=0.0)


def _context(rec: dict, g):
    """The profiler's context for the record's predictions (its longest fallback's time)."""
    return interpreted_context(g, max(interpreted_s(rec, "kernels"),
                                      interpreted_s(rec, "unfused_kernels")))


def kernel_rows(rec: dict, split: str, device) -> list[dict]:
    """Every measured per-call kernel of a record with its prediction on ``device``."""
    g = load_graph(rec["file"])
    rows = []
    for key, pkey in (("kernels", "plan"), ("unfused_kernels", "unfused")):
        plan = plan_from_json(rec[pkey], g)
        with _context(rec, g):
            costs = plan_cost(g, plan, device).groups
        for k in rec["report"][key]:
            if k.get("fallback") or k.get("role", "call") != "call" or k.get("error"):
                continue
            if not isinstance(k.get("median_s"), float):
                continue
            c = costs[k["group_id"]]
            check = check_prediction(_timing(k), c)
            if check is None:
                continue
            rows.append({"model": rec["name"], "split": split, "plan": pkey,
                         "group": k["group_id"], "ops": k.get("ops") or [], "cost": c,
                         "check": check, "measured": check.measured_s,
                         "predicted": check.predicted_s, "median": k["median_s"]})
    return rows


def sign_rows(rec: dict, split: str, device) -> list[dict]:
    """Per fused group of two ops or more: measured and predicted saving of fusing it."""
    g = load_graph(rec["file"])
    plan = plan_from_json(rec["plan"], g)
    base = plan_from_json(rec["unfused"], g)
    with _context(rec, g):
        cost = plan_cost(g, plan, device)
    fused_t = {k["group_id"]: _timing(k) for k in rec["report"]["kernels"]
               if isinstance(k.get("median_s"), float) and not k.get("fallback")}
    op_kernel = {grp.nodes[0]: grp.id for grp in base.groups}
    unf_t = {k["group_id"]: _timing(k) for k in rec["report"]["unfused_kernels"]
             if isinstance(k.get("median_s"), float) and not k.get("fallback")}
    out = []
    for grp in plan.groups:
        ops = [n for n in grp.nodes if g.node(n).op not in ("parameter", "constant")]
        if grp.role != "call" or len(ops) < 2 or grp.id not in fused_t:
            continue
        parts = [op_kernel.get(n) for n in ops]
        if any(p not in unf_t for p in parts):
            continue
        measured = sum(_measured(unf_t[p]) for p in parts) - _measured(fused_t[grp.id])
        predicted = cost.unfused[grp.id].predicted_s - cost.groups[grp.id].predicted_s
        out.append({"model": rec["name"], "split": split, "group": grp.id, "ops": len(ops),
                    "measured": measured, "predicted": predicted,
                    "agree": (measured > 0) == (predicted > 0)})
    return out


def _measured(t: Timing) -> float:
    return measured_time(t)


# ----- the figures --------------------------------------------------------------------------------

def spearman(xs, ys) -> float:
    """Spearman's rank correlation (scipy's when available)."""
    try:
        from scipy.stats import spearmanr

        return float(spearmanr(xs, ys).correlation)
    except ImportError:
        def ranks(v):
            order = sorted(range(len(v)), key=lambda i: v[i])
            r = [0.0] * len(v)
            for pos, i in enumerate(order):
                r[i] = pos
            return r
        rx, ry = ranks(xs), ranks(ys)
        mx, my = statistics.mean(rx), statistics.mean(ry)
        num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
        den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
        return num / den if den else float("nan")


def accuracy_line(label: str, rows: list[dict], by_ratio: bool = False) -> str:
    """One line of figures; ``by_ratio`` judges each row by its own ``measured`` (not by the
    profile's check)."""
    if not rows:
        return f"  {label:34s} no kernels"
    within = sum(1 for r in rows if ((MISS_RANGE[0] <= r["measured"] / r["predicted"]
                                      <= MISS_RANGE[1]) if by_ratio else not r["check"].missed))
    rho = spearman([r["measured"] for r in rows], [r["predicted"] for r in rows])
    ratios = [r["measured"] / r["predicted"] for r in rows]
    return (f"  {label:34s} {len(rows):5d} kernels  within 2x {within / len(rows):6.1%}  "
            f"Spearman rho {rho:5.3f}  median measured/predicted {statistics.median(ratios):5.2f}")


def kernel_class(row: dict) -> str:
    """The class a kernel is counted in: its dominant term's kind (``memory``, ``launch``,
    ``contraction``, ``transcendental``, ``reduction``, ``layout``, ``elementwise`` ...)."""
    return (row["cost"].dominant or "?").split(" (")[0]


def print_report(records, device, quick) -> None:
    rows, signs, quick_rows = [], [], []
    for rec, split in records:
        rows += kernel_rows(rec, split, device)
        signs += sign_rows(rec, split, device)
        quick_rows += kernel_rows(rec, split, quick)
    tune = [r for r in rows if r["split"] == "tune"]
    hold = [r for r in rows if r["split"] == "holdout"]
    holdout_models = sorted({r["model"] for r in hold})
    print(f"\nprediction accuracy (measured: the 25th percentile of each kernel's runs, the "
          f"statistic the probe fits; within 2x = [{MISS_RANGE[0]:g}, {MISS_RANGE[1]:g}])")
    print(accuracy_line("all models, calibrated", rows))
    by_median = [dict(r, measured=r["median"]) for r in rows]
    print(accuracy_line("all models, against the median", by_median, by_ratio=True))
    print(accuracy_line("tune models", tune))
    print(accuracy_line("holdout models", hold))
    # the issue's own set: the ../shared/hlo models (which the tune split holds) plus the
    # real models kept out of tuning
    shared = {p.name.split(".")[0] for p in SHARED.glob("*.before.hlo")}
    print(accuracy_line("shared models + holdout", [r for r in rows if r["model"] in shared
                                                     or r["split"] == "holdout"]))
    print(accuracy_line("shared models alone", [r for r in rows if r["model"] in shared]))
    for label, sel in (("fused plans' kernels, tune", [r for r in tune if r["plan"] == "plan"]),
                       ("fused plans' kernels, holdout",
                        [r for r in hold if r["plan"] == "plan"]),
                       ("unfused plans' kernels, all",
                        [r for r in rows if r["plan"] == "unfused"])):
        print(accuracy_line(label, sel))
    print(accuracy_line("all models, uncalibrated roofline", quick_rows))
    print(f"  holdout: {', '.join(holdout_models) or '-'}")
    drifts = [(rec["report"].get("machine") or {}).get("drift") or {} for rec, _ in records]
    for k in ("stream", "dot"):
        vals = [d[k] for d in drifts if isinstance(d.get(k), float)]
        if vals:
            print(f"  the probe's {k} kernel timed again after each model (profile's drift "
                  f"check): median {statistics.median(vals):.2f}x its calibrated time, "
                  f"{min(vals):.2f}-{max(vals):.2f}x over {len(vals)} models")
    print("\nworst ten kernels (|log measured/predicted|):")
    for r in sorted(rows, key=lambda r: -abs(math.log(r["measured"] / r["predicted"])))[:10]:
        c = r["check"]
        print(f"  {r['model']:18s} {r['plan']:7s} {r['group']:5s} measured "
              f"{c.measured_s * 1e6:10.1f} us  predicted {c.predicted_s * 1e6:10.1f} us  "
              f"x{c.ratio:6.2f}  [{', '.join(dict.fromkeys(r['ops']))[:40]}]")
        print(f"      {c.text}")
    print("\nby kernel class (the dominant term):")
    classes: dict[str, list] = {}
    for r in rows:
        classes.setdefault(kernel_class(r), []).append(r)
    for k, v in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        within = sum(1 for r in v if not r["check"].missed)
        med = statistics.median(r["measured"] / r["predicted"] for r in v)
        print(f"  {k:16s} {len(v):5d} kernels  within 2x {within / len(v):6.1%}  median "
              f"measured/predicted {med:5.2f}")
    print("\ncpu memory ceilings (calibrated, innermost first):")
    levels = (device.calibration or {}).get("levels") or []
    for lv in levels:
        up = f"up to {lv['up_to'] / 2**20:.2f} MiB" if lv["up_to"] else "beyond"
        print(f"  {lv['name']:5s} {up:18s} {lv['Bps'] / 1e9:7.1f} GB/s")
    bws = [lv["Bps"] for lv in levels]
    print(f"  ordered (each level at least as fast as the next): "
          f"{'yes' if bws == sorted(bws, reverse=True) else 'NO'}")
    print("\nfused vs unfused, per fused group of 2+ ops: the sign of the saving")
    for label, sel in (("all", signs), ("tune", [s for s in signs if s["split"] == "tune"]),
                       ("holdout", [s for s in signs if s["split"] == "holdout"])):
        agree = sum(1 for s in sel if s["agree"])
        share = f"{agree / len(sel):6.1%}" if sel else "   -"
        print(f"  {label:8s} {agree:4d} of {len(sel):4d} groups agree {share}")
    for s in [s for s in signs if not s["agree"]][:10]:
        print(f"    disagrees: {s['model']} {s['group']} ({s['ops']} ops): measured saving "
              f"{s['measured'] * 1e6:.1f} us, predicted {s['predicted'] * 1e6:.1f} us")


def remeasure(records, names, repeat: int) -> None:
    """Measure the named models again (all measured ones when ``names`` is empty) and print
    the share of kernels whose two measurements (the figure each profile stands behind) are
    within 2x of each other, and the median of second / first: no prediction can be within
    2x of more kernels than two measurements of the same kernel are of each other."""
    print("\nmeasurement noise (each model measured again in this process):")
    pairs = []
    for rec, _split in records:
        if names and rec["name"] not in names:
            continue
        again = measure(rec["name"], Path(rec["file"]), repeat)
        for key in ("kernels", "unfused_kernels"):
            first = {k["group_id"]: k for k in rec["report"][key] if _usable(k)}
            for k in again["report"][key]:
                if _usable(k) and k["group_id"] in first \
                        and first[k["group_id"]].get("ops") == k.get("ops"):
                    a, b = _measured(_timing(first[k["group_id"]])), _measured(_timing(k))
                    if a > 0 and b > 0:
                        pairs.append((rec["name"], b / a))
        sub = [q for m, q in pairs if m == rec["name"]]
        if sub:
            agree = sum(1 for q in sub if MISS_RANGE[0] <= q <= MISS_RANGE[1])
            print(f"  {rec['name']:28s} {len(sub):5d} kernels  agree within 2x "
                  f"{agree / len(sub):6.1%}  median second/first {statistics.median(sub):5.2f}")
    if pairs:
        agree = sum(1 for _m, q in pairs if MISS_RANGE[0] <= q <= MISS_RANGE[1])
        print(f"  all: {len(pairs)} kernels, {agree / len(pairs):.1%} agree within 2x, median "
              f"second/first {statistics.median(q for _m, q in pairs):.2f}")


def _usable(k: dict) -> bool:
    return (not k.get("fallback") and k.get("role", "call") == "call" and not k.get("error")
            and isinstance(k.get("median_s"), float))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30,
                    help="rounds per model (at most; the profile's budget ends them sooner)")
    ap.add_argument("--no-calibrate", action="store_true")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--load", type=Path)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--remeasure", nargs="*", default=None, metavar="NAME",
                    help="after the report, measure these models again (in this process) "
                         "and print how many kernels' two measurements agree within 2x: the "
                         "ceiling measurement noise puts on the share within 2x")
    args = ap.parse_args()
    from workbench.costmodel.devices import cpu_profile, measure_cpu

    print(f"machine: {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; cache {os.environ['WORKBENCH_CACHE_DIR']}")
    if not args.no_calibrate and not args.load:
        # in a process of its own, as `workbench devices --refresh` and the app's background
        # calibration run it: the kernels are then measured in a process that has only
        # profiled, as `workbench run` and the app's profile workers do
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from workbench.profiler.calibrate import "
                        "refresh_cpu_profile; refresh_cpu_profile()"], check=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                           [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])))
        print(f"calibrated in {time.perf_counter() - t0:.0f} s (in a process of its own)")
    device = cpu_profile()
    if args.load and (args.load / "cpu_profile.json").exists():
        from workbench.costmodel.devices import DeviceProfile

        device = DeviceProfile(**json.loads((args.load / "cpu_profile.json").read_text()))
    quick = measure_cpu()[0]
    print(f"profile: {device.source[:300]}")
    records = []
    for name, path, split in all_models():
        if args.only and name not in args.only:
            continue
        saved = (args.load or args.save or Path(".")) / f"{name}.json"
        if args.load:
            if not saved.exists():
                continue
            rec = json.loads(saved.read_text())
        else:
            rec = measure(name, path, args.repeat)
            print(f"  measured {name:20s} ({split}) in {rec['seconds']:5.1f} s: "
                  f"{len(rec['report']['kernels'])} fused, "
                  f"{len(rec['report']['unfused_kernels'])} unfused kernels", flush=True)
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                saved.write_text(json.dumps(rec))
        records.append((rec, split))
    if args.save:
        (args.save / "cpu_profile.json").write_text(json.dumps(device.to_json()))
    print_report(records, device, quick)
    if args.remeasure is not None:
        remeasure(records, args.remeasure, args.repeat)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
