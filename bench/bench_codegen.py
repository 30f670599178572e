"""Benchmark of the compiled plans against jax.jit, like with like, in one interleaved run.

    PYTHONPATH=. python bench/bench_codegen.py [--backend cpu] [--repeat 30] [--json out.json]
        [--only NAME,NAME] [--no-shared] [--no-full] [--no-corpus] [--corpus DIR]

jax is optional (``pip install jax jaxlib``, or the project's ``[jax]`` extra); without it
the jax.jit columns are '-' and only the workbench's own figures are printed.

Models, each run by both sides on the same inputs:

- the seven models of ../shared/hlo (our side imports ``NAME.before.hlo``, on ``NAME.io.npz``'s
  inputs; jax.jit runs the same model written in JAX, ``bench/jax_models.py``);
- full-size models written in JAX (``jax_models.FULL``: SwiGLU MLP, LSTM cell, convolutions
  with batch statistics, depthwise and ResNet shapes, erf GELU, sin/cos, an exp/tanh chain,
  layer norm, RMS norm, softmax, attention, and a 12-block transformer whose plan has 100+
  kernels): jitted, lowered (``jax.jit(f).lower(*args).as_text(dialect="hlo")``) and imported
  through the workbench's own HLO importer;
- the real-model corpus when it is there (``corpus/manifest.json``, or a folder made by
  ``tools/make_corpus.py --size full``: ``--corpus DIR``), its models that jax.jit can run
  from ``tools/make_corpus.py``'s own functions and arguments.

For each model, in alternating rounds (so that load on a shared machine hits all alike), one
run each of: ``jax`` (the wall time of a ``jax.jit`` call, ``block_until_ready`` included, its
arguments already on the device), ``wall`` (the wall time of one call of our fused plan's
driver: every kernel and everything between them, outputs returned in the plan's buffers, as
jax.jit returns its own), ``kernels`` (the instrumented driver: the sum of the kernels' own
times, read inside the native loop) and ``unfused`` (the wall time of a call of the unfused
plan). The table shows each one's minimum over the rounds, the most reproducible estimate on a
machine shared with other work (which only ever adds time), the ratio of the medians beside
the ratio of the minima, and how many of the plan's kernels run through the numpy reference
(``numpy``); the JSON has every median.
``outside/kernel`` is what a call spends outside its kernels, per kernel: in each
instrumented call, its wall time (``perf_counter`` around the driver) minus the sum of its
kernels' times, divided by the kernels; the minimum over the rounds (the median in the JSON).
On the CPU the clock stamps the driver wrote are turned into seconds after the call is timed.
It includes the instrumentation's own clock reads (two per kernel), so it is an upper bound
for the plain driver. (The difference of the two minima, ``wall_minus_sum`` in the JSON, comes
from different calls and can be negative on a busy machine.) The target line splits it: the
gaps between one kernel's end stamp and the next one's start (inside the native driver), per
kernel, and the rest, entering and leaving the driver, per call. ``numpy`` counts the kernels
run from Python: fallbacks, and a loop or conditional whose computations hold one. Every fused
result is checked against the reference interpreter (with its float64 twin) and against
jax.jit's outputs.

Then chain10 at 2**24 elements against a STREAM-style copy (``dst[i] = src[i]`` in a numba
``prange`` with the same threads as the kernels, 2**24 float32), timed in the same rounds:
bytes counted as read + written once each (copy: 2 x 64 MiB; chain10: two inputs read, one
output written, 3 x 64 MiB), no write-allocate traffic counted on either side. Then each
row-cached kernel with and without its row cache. The last lines are the targets of issue 14
with PASS/FAIL and how busy the machine was (load average, other processes' CPU share).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
HLO = Path(os.environ.get("WORKBENCH_HLO_DIR") or REPO.parent / "shared" / "hlo")
SHARED = ("chain10", "chain10_transc", "softmax", "layernorm_gelu", "mlp", "transformer_block",
          "resnet_block")
#: stop a model's rounds after this many seconds (at least MIN_ROUNDS rounds)
BUDGET_S, MIN_ROUNDS = 8.0, 5
JAX_HINT = "jax is not installed: pip install jax jaxlib (or pip install -e '.[jax]')"


# ----- timing -----------------------------------------------------------------------------------

def interleaved(methods: dict, repeat: int, budget_s: float = BUDGET_S) -> dict:
    """Run every method once per round, ``repeat`` rounds (fewer after ``budget_s`` seconds,
    at least MIN_ROUNDS); a method returns its own measured seconds, or None to be timed here.
    Returns method -> {"min": s, "median": s, "samples": [...]}."""
    samples = {k: [] for k in methods}
    for fn in methods.values():      # warm up
        fn()
        fn()
    t_start = time.perf_counter()
    for r in range(max(repeat, 1)):
        for k, fn in methods.items():
            t0 = time.perf_counter()
            own = fn()
            samples[k].append(own if own is not None else time.perf_counter() - t0)
        if r + 1 >= MIN_ROUNDS and time.perf_counter() - t_start > budget_s:
            break
    return {k: {"min": float(np.min(v)), "median": float(np.median(v)), "samples": v}
            for k, v in samples.items()}


def stream_copy(n: int):
    """(callable, bytes counted) of a STREAM-style copy of ``n`` float32 on numba's threads."""
    from numba import njit, prange

    @njit(parallel=True, cache=False, boundscheck=False)
    def copy(src, dst):
        for i in prange(src.size):
            dst[i] = src[i]

    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    copy(src, dst)
    return (lambda: copy(src, dst)), 2 * src.nbytes


# ----- the two sides ----------------------------------------------------------------------------

def jax_side(fn, args, backend):
    """(callable running one jax.jit call, its outputs as numpy), or (None, None)."""
    try:
        import jax
    except ImportError:
        return None, None
    f = jax.jit(fn)
    dev = [jax.device_put(a) for a in args]
    out = f(*dev)
    outs = [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]

    def run():
        jax.block_until_ready(f(*dev))    # returns None: timed by the caller
    return run, outs


def jax_hlo(fn, args) -> str:
    import jax

    return jax.jit(fn).lower(*args).as_text(dialect="hlo")


def our_side(graph, inputs, backend, exact, cache):
    """The fused and unfused plans compiled and bound to ``inputs``."""
    from workbench.codegen import compile_plan
    from workbench.planner import plan_graph
    from workbench.planner.plan import unfused_plan

    plan = plan_graph(graph, "priority")
    fused = compile_plan(graph, plan, backend, exact, cache_dir=cache)
    base = compile_plan(graph, unfused_plan(graph), backend, exact, cache_dir=cache)
    return plan, fused, fused.bind(fused.prepare(inputs, None)), base.bind(base.prepare(inputs,
                                                                                         None))


def check(graph, bound, inputs, jax_outs):
    """(ok against the reference, ok against jax.jit's outputs or None, worst error text)."""
    from workbench.codegen.check import check_outputs, compare, reference_outputs

    outs = [np.asarray(bound.compiled._host(o, v, copy=True))
            for o, v in zip(bound.run(), graph.outputs)]
    ref, exact = reference_outputs(graph, inputs, max_bytes=None)
    checks = check_outputs(graph, outs, ref, exact)
    ok = all(c.ok for c in checks)
    jax_ok = None
    if jax_outs is not None:
        jax_ok = len(jax_outs) == len(outs) and all(
            compare(o, j.reshape(o.shape), graph.node(v).dtype,
                    exact=None if exact is None else exact[i]).ok
            for i, (o, j, v) in enumerate(zip(outs, jax_outs, graph.outputs)))
    worst = max(checks, key=lambda c: c.max_rel_error)
    return ok, jax_ok, f"max rel error {worst.max_rel_error:.2g}"


def bench_model(name, group, category, graph, inputs, jax_fn, backend, repeat, exact, cache,
                extra=None):
    """One model: both sides timed in alternating rounds; returns its row."""
    plan, fused, bound, ubound = our_side(graph, inputs, backend, exact, cache)
    args = [inputs[f"arg{i}"] for i in range(len(inputs))] if isinstance(inputs, dict) \
        else list(inputs)
    run_jax, jax_outs = jax_side(jax_fn, args, backend) if jax_fn is not None else (None, None)
    ok, jax_ok, err = check(graph, bound, inputs, jax_outs)
    outside = []            # per instrumented call: its own wall time - its kernels' sum

    between = []            # per instrumented call: from each kernel's end to the next's start

    stamped = bound.compiled.executor.name == "cpu"

    def timed():
        # the instrumented driver alone: its stamps become seconds after t1 (the plain driver
        # does no such conversion; its cold numpy calls took ~50 us after a 35 ms plan)
        t0 = time.perf_counter()
        if stamped:
            bound.run_stamped()
            t1 = time.perf_counter()
            secs, starts = bound.stamp_seconds()
        else:
            _, secs, starts = bound.run_timed()
            t1 = time.perf_counter()
        total = sum(secs)
        outside.append(t1 - t0 - total)
        between.append(sum(max(0.0, b - (a + d)) for a, d, b in zip(starts, secs, starts[1:])))
        return total

    methods = {"wall": lambda: (bound.run(), None)[1],
               "kernels": timed,
               "unfused": lambda: (ubound.run(), None)[1]}
    if run_jax is not None:
        methods["jax"] = run_jax
    methods.update(extra or {})
    t = interleaved(methods, repeat)
    n = len(fused.call)
    row = {"model": name, "set": group, "category": category, "kernels": n,
           "unfused_kernels": len(ubound.kernels), "ok": ok, "jax_ok": jax_ok, "error": err,
           "fallbacks": sum(k.fallback for k in fused.kernels) + sum(
               k.address is None and not k.fallback for k in fused.call),
           # the same call's wall minus its kernels (warm-up calls left out): the minimum and
           # the median over the rounds; the difference of two minima (of different calls)
           # is kept as wall_minus_sum (it goes negative on a busy machine)
           "outside_per_kernel_s": float(np.min(outside[2:])) / max(n, 1),
           "outside_per_kernel_median_s": float(np.median(outside[2:])) / max(n, 1),
           "wall_minus_sum_per_kernel_s": (t["wall"]["min"] - t["kernels"]["min"]) / max(n, 1),
           # of that: the time between kernels inside the driver, per kernel, and the rest
           # (entering and leaving the driver), per call
           "between_per_kernel_s": float(np.min(between[2:])) / max(n - 1, 1),
           "entry_exit_s": float(np.min(np.array(outside[2:]) - np.array(between[2:])))}
    for k, v in t.items():
        row[f"{k}_s"], row[f"{k}_median_s"] = v["min"], v["median"]
    return row, fused, t


# ----- the model sets ---------------------------------------------------------------------------

def shared_models(only):
    from workbench.importers import load_graph

    try:
        from jax_models import MODELS as JAX_MODELS, SHARED_CATEGORY
    except ImportError:
        JAX_MODELS, SHARED_CATEGORY = {}, {}
    for name in SHARED:
        if only and name not in only:
            continue
        with np.load(HLO / f"{name}.io.npz") as data:
            inputs = {k: data[k] for k in data.files if k.startswith("arg")}
        yield (name, "shared", SHARED_CATEGORY.get(name, "-"),
               load_graph(str(HLO / f"{name}.before.hlo")), inputs, JAX_MODELS.get(name))


def full_models(only):
    from workbench.importers.hlo import parse_hlo

    from jax_models import FULL

    for name, (fn, make_args, category) in FULL.items():
        if only and name not in only:
            continue
        args = make_args(np.random.default_rng(0))
        graph = parse_hlo(jax_hlo(fn, args), f"{name}.hlo")
        yield name, "full", category, graph, {f"arg{i}": a for i, a in enumerate(args)}, fn


def corpus_models(folder: Path, only):
    """The corpus's models whose JAX function ``tools/make_corpus.py`` provides."""
    manifest = folder / "manifest.json"
    if not manifest.exists():
        return
    import jax  # noqa: F401  (the backend starts before make_corpus sets its XLA flags)

    jax.devices()
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import make_corpus
    except (ImportError, SystemExit):
        print("  corpus: tools/make_corpus.py cannot be imported: corpus skipped",
              file=sys.stderr)
        return
    from workbench.importers import load_graph

    fns = {m.name: m for m in make_corpus.MODELS}
    doc = json.loads(manifest.read_text())
    for entry in doc.get("models", []):
        name = entry["name"]
        if (only and name not in only) or name not in fns or fns[name].x64:
            continue
        if set(entry.get("dtypes", [])) - {"float32", "int32", "bool"}:
            continue
        with np.load(folder / f"{name}.io.npz") as data:
            inputs = {k: data[k] for k in data.files if k.startswith("arg")}
        try:
            graph = load_graph(str(folder / f"{name}.before.hlo"))
        except Exception as exc:  # the importer's refusal is a finding, not a crash
            print(f"  corpus {name}: not imported ({exc})", file=sys.stderr)
            continue
        flat = _flat_fn(fns[name], doc.get("dims") or make_corpus.SIZE["small"])
        yield name, "corpus", entry.get("kind", "-"), graph, inputs, flat


def _flat_fn(model, dims):
    """The corpus model's function taking the flattened arguments of its ``argN`` arrays (the
    pytree of its arguments rebuilt with the structure ``model.args`` makes at ``dims``, the
    manifest's) and returning its outputs flattened."""
    import jax

    treedef = jax.tree_util.tree_structure(model.args(np.random.default_rng(0), dims))

    def flat(*args):
        return jax.tree_util.tree_leaves(model.fn(*jax.tree_util.tree_unflatten(treedef, args)))
    return flat


# ----- the special rows -------------------------------------------------------------------------

def chain10_large(backend, repeat, exact, cache):
    from workbench.importers import load_graph
    from workbench.transforms.resize import resize_graph

    try:
        from jax_models import MODELS as JAX_MODELS
    except ImportError:
        JAX_MODELS = {}
    n = 1 << 24
    g = resize_graph(load_graph(str(HLO / "chain10.before.hlo")), {65536: n}, "chain10_2p24")
    rng = np.random.default_rng(0)
    inputs = {f"arg{i}": rng.standard_normal(n).astype(np.float32) for i in range(2)}
    extra = {}
    copy_bytes = None
    if backend == "cpu":
        copy, copy_bytes = stream_copy(n)
        extra["copy"] = copy
    row, _f, t = bench_model("chain10 @2^24", "large", "chain", g, inputs,
                             JAX_MODELS.get("chain10"), backend, repeat, exact, cache, extra)
    row["chain_bytes"] = 3 * 4 * n
    if copy_bytes:
        row["copy_bytes"] = copy_bytes
        row["copy_GBps"] = copy_bytes / t["copy"]["min"] / 1e9
        row["chain_GBps"] = row["chain_bytes"] / t["wall"]["min"] / 1e9
    return row


def row_cache_rows(repeat, exact, cache):
    """Kernels with a row cache, timed with and without it (alternating rounds)."""
    from workbench.codegen import backend as be
    from workbench.codegen import compile_plan
    from workbench.importers import load_graph
    from workbench.ir import make_inputs
    from workbench.planner import plan_graph

    graphs = [("softmax", load_graph(str(HLO / "softmax.before.hlo"))),
              ("transformer_block", load_graph(str(HLO / "transformer_block.before.hlo")))]
    rows = []
    for name, graph in graphs:
        plan = plan_graph(graph, "priority")
        compiled = {}
        for on in (False, True):
            be.ROW_CACHE = on
            try:
                compiled[on] = compile_plan(graph, plan, "cpu", exact, cache_dir=cache)
            finally:
                be.ROW_CACHE = True
        inputs = make_inputs(graph, 0)
        bound = {on: c.bind(c.prepare(inputs, None)) for on, c in compiled.items()}
        for i, k in enumerate(compiled[True].call):
            if "row cache" not in k.source:
                continue
            t = interleaved({on: (lambda b=bound[on], i=i: b.run_timed()[1][i])
                             for on in (False, True)}, repeat)
            rows.append({"model": name, "group": k.group_id,
                         "without_s": t[False]["min"], "with_s": t[True]["min"],
                         "without_median_s": t[False]["median"],
                         "with_median_s": t[True]["median"]})
    return rows


class MachineLoad:
    """The load average and the share of all CPUs that other processes used (Linux)."""

    def __init__(self):
        from workbench.profiler.profile import _load_avg, _system_busy_s

        self._busy, self._load = _system_busy_s, _load_avg
        self.load0, self.busy0 = _load_avg(), _system_busy_s()
        self.own0, self.t0 = time.process_time(), time.perf_counter()

    def summary(self) -> dict:
        wall = time.perf_counter() - self.t0
        busy1 = self._busy()
        others = None
        if self.busy0 is not None and busy1 is not None:
            others = max(0.0, (busy1 - self.busy0 - (time.process_time() - self.own0))
                         / (wall * (os.cpu_count() or 1)))
        return {"load_before": self.load0, "load_after": self._load(),
                "others_cpu_fraction": others, "cpus": os.cpu_count(), "wall_s": wall}


# ----- printing ---------------------------------------------------------------------------------

def _fmt(t):
    if t is None or (isinstance(t, float) and not math.isfinite(t)):
        return "-"
    if abs(t) >= 1e-3:
        return f"{t * 1e3:.3f} ms"
    return f"{t * 1e6:.1f} us" if abs(t) >= 1e-6 else f"{t * 1e9:.0f} ns"


def _ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def print_table(rows):
    head = ("model", "set", "cat", "kernels", "numpy", "jax.jit", "wall", "kernels sum",
            "outside/kernel", "unfused", "wall/jax", "median", "ok")
    lines = [head]
    for r in rows:
        ok = "yes" if r["ok"] and r["jax_ok"] is not False else (
            "NO (ref)" if not r["ok"] else "NO (jax)")
        lines.append((r["model"], r["set"], r["category"], str(r["kernels"]),
                      str(r.get("fallbacks", "-")), _fmt(r.get("jax_s")), _fmt(r["wall_s"]),
                      _fmt(r["kernels_s"]), _fmt(r["outside_per_kernel_s"]),
                      _fmt(r["unfused_s"]), _ratio(r["wall_s"], r.get("jax_s")),
                      _ratio(r.get("wall_median_s"), r.get("jax_median_s")), ok))
    widths = [max(len(x[i]) for x in lines) for i in range(len(head))]
    for ln in lines:
        print("  ".join(c.ljust(w) for c, w in zip(ln, widths)).rstrip())


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def _verdict(ok):
    return "PASS" if ok else "FAIL"


def print_targets(rows, big):
    timed = [r for r in rows if r.get("jax_s")]
    if not timed:
        print(f"targets against jax.jit: not measured ({JAX_HINT})")
    else:
        # Keyed by (set, model): a corpus model may share its name with a full-size one
        # (lstm_cell is both), and each is its own row of the geomean.
        def key(r):
            return (r["set"], r["model"])

        def label(k):
            return k[1] if sum(1 for r in timed if r["model"] == k[1]) == 1 else f"{k[1]} ({k[0]})"

        ratios = {key(r): r["wall_s"] / r["jax_s"] for r in timed}
        med = {key(r): r["wall_median_s"] / r["jax_median_s"] for r in timed
               if r.get("jax_median_s")}
        for group in ("shared", "full", "corpus"):
            sub = [x for k, x in ratios.items() if k[0] == group]
            if sub:
                print(f"geomean wall/jax.jit over the {group} models ({len(sub)}): "
                      f"{geomean(sub):.2f}x")
        done = [k for k in ratios if k[0] in ("shared", "corpus")]
        if done:
            gd = geomean([ratios[k] for k in done])
            print(f"target geomean wall/jax.jit <= 1.0 over the shared models and the corpus "
                  f"({len(done)}; issue 14's set): {gd:.2f}x (of medians "
                  f"{geomean([med[k] for k in done if k in med]):.2f}x) {_verdict(gd <= 1.0)}")
        gm = geomean(list(ratios.values()))
        worst = max(ratios, key=ratios.get)
        print(f"target geomean wall/jax.jit <= 1.0 over all {len(ratios)} models: {gm:.2f}x "
              f"(of medians {geomean(list(med.values())):.2f}x) {_verdict(gm <= 1.0)}")
        print(f"target no model worse than 1.5x: worst {label(worst)} {ratios[worst]:.2f}x "
              f"{_verdict(ratios[worst] <= 1.5)}")
        cat = {key(r): r["category"] for r in timed}
        cn = {k: x for k, x in ratios.items() if cat[k] in ("chain", "norm")}
        if cn:
            w = max(cn, key=cn.get)
            print(f"target chain-like and normalisation models <= 0.8x ({len(cn)}): worst "
                  f"{label(w)} {cn[w]:.2f}x, geomean {geomean(list(cn.values())):.2f}x "
                  f"{_verdict(cn[w] <= 0.8)}")
    many = [r for r in rows if r["kernels"] >= 100]
    if many:
        r = max(many, key=lambda r: r["kernels"])
        x = r["outside_per_kernel_s"]
        print(f"target outside the kernels <= 1 us a kernel on a plan of 100+ kernels: "
              f"{r['model']} ({r['kernels']} kernels): an instrumented call's wall minus its "
              f"kernel sum, per kernel: min {_fmt(x)}, median "
              f"{_fmt(r['outside_per_kernel_median_s'])} {_verdict(x <= 1e-6)}; of it between "
              f"kernels {_fmt(r['between_per_kernel_s'])} a kernel, entering and leaving the "
              f"driver {_fmt(r['entry_exit_s'])} a call")
    else:
        print("target outside the kernels: no plan of 100+ kernels measured")
    if big and "copy_GBps" in big:
        frac = big["chain_GBps"] / big["copy_GBps"]
        from numba import get_num_threads

        print(f"target chain10@2^24 >= 0.9 x STREAM copy ({get_num_threads()} threads both; "
              f"bytes = read + written once each: chain {big['chain_bytes'] >> 20} MiB, copy "
              f"{big['copy_bytes'] >> 20} MiB): chain {big['chain_GBps']:.1f} GB/s, copy "
              f"{big['copy_GBps']:.1f} GB/s = {frac:.2f} {_verdict(frac >= 0.9)}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="auto")
    p.add_argument("--repeat", type=int, default=30, help="rounds per model (at most)")
    p.add_argument("--exact-math", action="store_true")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--no-shared", action="store_true")
    p.add_argument("--no-full", action="store_true")
    p.add_argument("--no-corpus", action="store_true")
    p.add_argument("--no-row-cache", action="store_true")
    p.add_argument("--corpus", default=str(REPO / "corpus"))
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args(argv)
    from workbench.codegen import resolve_backend

    backend, _ = resolve_backend(args.backend)
    only = {s for s in args.only.split(",") if s}
    try:
        import jax  # noqa: F401
        have_jax = True
    except ImportError:
        have_jax = False
        print(f"note: {JAX_HINT}; the jax.jit columns are '-'", file=sys.stderr)
    load = MachineLoad()
    sources = []
    if not args.no_shared:
        sources.append(shared_models(only))
    if have_jax and not args.no_full:
        sources.append(full_models(only))
    if have_jax and not args.no_corpus:
        sources.append(corpus_models(Path(args.corpus), only))
    rows, failed = [], []
    for source in sources:
        for name, group, category, graph, inputs, fn in source:
            try:
                row, _f, _t = bench_model(name, group, category, graph, inputs, fn, backend,
                                          args.repeat, args.exact_math, args.cache_dir)
            except Exception as exc:   # one model's failure is a finding, not the run's end
                print(f"  {name}: not measured ({type(exc).__name__}: "
                      f"{str(exc).splitlines()[0] if str(exc) else ''})", file=sys.stderr)
                failed.append(name)
                continue
            rows.append(row)
            print(f"  measured {name} ({row['kernels']} kernels, {row['fallbacks']} through "
                  f"numpy): jax.jit {_fmt(row.get('jax_s'))}, wall {_fmt(row['wall_s'])}, "
                  f"kernel sum {_fmt(row['kernels_s'])}, wall/jax "
                  f"{_ratio(row['wall_s'], row.get('jax_s'))} (medians "
                  f"{_ratio(row['wall_median_s'], row.get('jax_median_s'))})",
                  file=sys.stderr, flush=True)
    big = None
    if not only or "chain10" in only:
        big = chain10_large(backend, max(5, args.repeat // 2), args.exact_math, args.cache_dir)
    rc_rows = row_cache_rows(args.repeat, args.exact_math, args.cache_dir) \
        if backend == "cpu" and not args.no_row_cache else []
    print(f"backend {backend}; times are minima over alternating rounds (median: the ratio of "
          "the medians; every median in --json)")
    print_table(rows + ([big] if big else []))
    for r in rc_rows:
        print(f"row cache {r['model']} {r['group']}: without {_fmt(r['without_s'])}, with "
              f"{_fmt(r['with_s'])} ({r['without_s'] / r['with_s']:.2f}x; medians "
              f"{_fmt(r['without_median_s'])} / {_fmt(r['with_median_s'])})")
    if failed:
        print(f"not measured ({len(failed)}, see stderr): {', '.join(failed)}")
    print_targets(rows, big)
    m = load.summary()
    others = "-" if m["others_cpu_fraction"] is None else f"{m['others_cpu_fraction']:.0%}"
    print(f"machine: {m['cpus']} CPUs; load average {m['load_before']:.2f} before, "
          f"{m['load_after']:.2f} after; other processes used {others} of the CPUs during the "
          f"{m['wall_s']:.0f} s run")
    if args.json:
        Path(args.json).write_text(json.dumps({"backend": backend, "rows": rows, "large": big,
                                               "row_cache": rc_rows, "machine": m}, indent=1,
                                              default=str))


if __name__ == "__main__":
    main()
