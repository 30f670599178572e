"""Benchmark of the code generator: fused vs unfused vs numpy vs jax.jit, in one run.

    PYTHONPATH=. python bench/bench_codegen.py [--backend cpu] [--repeat 20] [--json out.json]

For each model of ../shared/hlo (chain10, chain10_transc, softmax, layernorm_gelu, mlp,
transformer_block, resnet_block) on its stored inputs (``NAME.io.npz``): the fused plan's time
(the planner's plan when the planner is installed, else every op in one group), the unfused
plan's (one op per kernel, same backend), numpy's (the reference interpreter), and jax.jit's
when jax is installed (optional); each fused result is checked against JAX's stored outputs.
Then chain10 at 2**24 elements, and the machine's copy bandwidth (a 256 MiB array copy), with
the fraction of it each memory-bound fused kernel reaches. The methods are timed in alternating
rounds and the table shows each one's best time (``--repeat`` samples; the JSON has medians
too): as ``timeit`` advises, the minimum is the most reproducible estimate on a machine shared
with other work, which only ever adds time. A plan's time is the sum of its kernels' times
(launch overhead included, Python's bookkeeping between launches not); jax.jit's is the wall
time of a call (its dispatch included). Ratios are measured in this run.

Then the row cache of row-wise input fusions (see ``workbench.codegen.lower``): each kernel
that has one, compiled with and without it and timed in alternating rounds. The last lines say
how busy the machine was: the load average before and after, and the share of the CPUs other
processes used during the run (``/proc/stat``).

Targets (printed with PASS/FAIL): chain10 at 2**24 fused >= 0.9 x copy bandwidth and
>= 8x faster than unfused; chain10_transc, softmax, layernorm_gelu fused <= 1.0 x jax.jit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
HLO = Path(os.environ.get("WORKBENCH_HLO_DIR") or REPO.parent / "shared" / "hlo")
MODELS = ("chain10", "chain10_transc", "softmax", "layernorm_gelu", "mlp", "transformer_block",
          "resnet_block")
JAX_TARGETS = ("chain10_transc", "softmax", "layernorm_gelu")


def interleaved(methods: dict, repeat: int, rounds: int = 5) -> dict:
    """Time several methods in alternating rounds (so that load on a shared machine hits them
    alike); each method's callable returns its own measured seconds, or None to be timed
    here. Returns method -> {"min": s, "median": s, "samples": [...]}"""
    samples = {k: [] for k in methods}
    for fn in methods.values():      # warm up
        fn()
        fn()
    per_round = max(1, repeat // rounds)
    for _ in range(rounds):
        for k, fn in methods.items():
            for _ in range(per_round):
                t0 = time.perf_counter()
                own = fn()
                samples[k].append(own if own is not None else time.perf_counter() - t0)
    return {k: {"min": float(np.min(v)), "median": float(np.median(v)), "samples": v}
            for k, v in samples.items()}


def copy_bandwidth(repeat, backend="cpu"):
    """Bytes moved per second (read + write) by the fastest of numpy's and numba's copy
    (on cuda: a device-to-device copy of a 256 MiB array, timed with CUDA events)."""
    if backend == "cuda":
        return {"device_GBps": _gpu_copy_bandwidth(repeat)}
    from numba import njit, prange

    @njit(parallel=True, cache=False)
    def pcopy(src, dst):
        for i in prange(src.size):
            dst[i] = src[i]

    src = np.ones(1 << 26, np.float32)
    dst = np.empty_like(src)
    t = interleaved({"numpy": lambda: np.copyto(dst, src), "numba": lambda: pcopy(src, dst)},
                    repeat)
    return {f"{k}_GBps": 2 * src.nbytes / v["min"] / 1e9 for k, v in t.items()}


def _gpu_copy_bandwidth(repeat):
    from numba import cuda

    src = cuda.to_device(np.ones(1 << 26, np.float32))
    dst = cuda.device_array_like(src)
    dst.copy_to_device(src)
    ts = []
    for _ in range(repeat):
        start, end = cuda.event(), cuda.event()
        start.record()
        dst.copy_to_device(src)
        end.record()
        end.synchronize()
        ts.append(cuda.event_elapsed_time(start, end) / 1e3)
    return 2 * src.nbytes / float(np.min(ts)) / 1e9


def plan_for(graph):
    from workbench.planner.plan import is_source, make_plan

    try:
        from workbench.planner import plan_graph
    except ImportError:
        return make_plan(graph, [[n for n in graph.topo_order if not is_source(graph, n)]],
                         policy="one-group")
    return plan_graph(graph, "priority")


def plan_timer(compiled, inputs, per_kernel: list):
    """A callable running the plan once, returning the sum of its kernels' seconds and
    appending the per-kernel seconds to ``per_kernel``."""
    env = compiled.prepare(inputs, None)

    def run():
        times = []
        compiled.execute(env, times)
        per_kernel.append(times)
        return sum(times)
    return run


def jax_timer(name, args):
    """(callable, output) for the model's jax.jit function, or (None, None) without jax."""
    try:
        import jax

        sys.path.insert(0, str(Path(__file__).parent))
        from jax_models import MODELS as JAX_MODELS
    except ImportError:
        return None, None
    f = jax.jit(JAX_MODELS[name])
    dev = [jax.device_put(a) for a in args]
    out = np.asarray(f(*dev))
    def run():
        f(*dev).block_until_ready()
    return run, out


def bench_model(name, graph, args, backend, repeat, exact, cache):
    from workbench.codegen import compile_plan
    from workbench.codegen.check import compare, reference_outputs
    from workbench.ir import evaluate
    from workbench.planner.plan import unfused_plan

    plan = plan_for(graph)
    fused = compile_plan(graph, plan, backend, exact, cache_dir=cache)
    base = compile_plan(graph, unfused_plan(graph), backend, exact, cache_dir=cache)
    outs = fused.run(args, max_bytes=None)
    ref, exact_out = reference_outputs(graph, args, max_bytes=None)
    ok = all(compare(o, r, graph.node(n).dtype, exact=None if exact_out is None else x).ok
             for o, r, n, x in zip(outs, ref, graph.outputs, exact_out or ref))
    per_kernel: list = []
    def numpy_run():
        evaluate(graph, args, max_bytes=None)

    methods = {"fused": plan_timer(fused, args, per_kernel),
               "unfused": plan_timer(base, args, []), "numpy": numpy_run}
    jax_fn, out_j = jax_timer(name, [args[f"arg{i}"] for i in range(len(args))])
    if jax_fn is not None:
        methods["jax"] = jax_fn
    t = interleaved(methods, repeat)
    row = {"model": name, "policy": plan.policy, "kernels": len(fused.kernels),
           "unfused_kernels": len(base.kernels), "ok": ok,
           "fallbacks": sum(k.fallback for k in fused.kernels), "memory_bound": []}
    for k, v in t.items():
        row[f"{k}_s"], row[f"{k}_median_s"] = v["min"], v["median"]
    for i, k in enumerate(fused.call):
        if k.kind != "output" and not k.fallback:
            best = min(run[i] for run in per_kernel)
            row["memory_bound"].append({"group": k.group_id,
                                        "GBps": (k.bytes_read + k.bytes_written) / best / 1e9})
    if out_j is not None:
        row["jax_matches"] = bool(compare(outs[0], out_j, "f32",
                                          exact=None if exact_out is None else exact_out[0]).ok)
    return row


def chain10_large(backend, repeat, exact, cache):
    from workbench.importers import load_graph
    from workbench.transforms.resize import resize_graph

    g = resize_graph(load_graph(str(HLO / "chain10.before.hlo")), {65536: 1 << 24},
                     "chain10_2p24")
    rng = np.random.default_rng(0)
    args = {f"arg{i}": rng.standard_normal(1 << 24).astype(np.float32) for i in range(2)}
    return bench_model("chain10", g, args, backend, repeat, exact, cache)


def row_cache_rows(repeat, exact, cache):
    """Kernels with a row cache, timed with and without it (alternating rounds)."""
    from workbench.codegen import backend as be
    from workbench.codegen import compile_plan
    from workbench.importers import load_graph

    graphs = [("softmax", load_graph(str(HLO / "softmax.before.hlo"))),
              ("transformer_block", load_graph(str(HLO / "transformer_block.before.hlo"))),
              ("transformer_block (sample)",
               load_graph(str(REPO / "sample_graphs" / "transformer_block.json")))]
    rows = []
    for name, graph in graphs:
        plan = plan_for(graph)
        compiled = {}
        for on in (False, True):
            be.ROW_CACHE = on
            try:
                compiled[on] = compile_plan(graph, plan, "cpu", exact, cache_dir=cache)
            finally:
                be.ROW_CACHE = True
        from workbench.ir import make_inputs

        inputs = make_inputs(graph, 0)
        for i, k in enumerate(compiled[True].call):
            if "row cache" not in k.source:
                continue
            timers = {}
            for on in (False, True):
                per: list = []
                run = plan_timer(compiled[on], inputs, per)
                timers[on] = (lambda run=run, per=per, i=i: (run(), per[-1][i])[1])
            t = interleaved({"without": timers[False], "with": timers[True]}, repeat)
            rows.append({"model": name, "group": k.group_id,
                         "without_s": t["without"]["min"], "with_s": t["with"]["min"],
                         "without_median_s": t["without"]["median"],
                         "with_median_s": t["with"]["median"]})
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


def _fmt(t):
    return "-" if t is None else (f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us")


def print_table(rows, copy_bw):
    bw = max(copy_bw.values())
    print("copy bandwidth: " + ", ".join(f"{k.replace('_GBps', '')} {v:.1f} GB/s"
                                         for k, v in copy_bw.items())
          + f" (reference: {bw:.1f} GB/s)")
    head = ("model", "fused", "unfused", "numpy", "jax.jit", "unfused/fused", "numpy/fused",
            "fused/jax", "mem-bound kernels: fraction of copy BW", "ok")
    lines = [head]
    for r in rows:
        j = r.get("jax_s")
        frac = ", ".join(f"{m['group']} {m['GBps'] / bw:.2f}" for m in r["memory_bound"])
        lines.append((r["model"] + (" @2^24" if r.get("large") else ""), _fmt(r["fused_s"]),
                      _fmt(r["unfused_s"]), _fmt(r["numpy_s"]), _fmt(j),
                      f"{r['unfused_s'] / r['fused_s']:.2f}x",
                      f"{r['numpy_s'] / r['fused_s']:.2f}x",
                      "-" if j is None else f"{r['fused_s'] / j:.2f}x", frac or "-",
                      "yes" if r["ok"] and r.get("jax_matches", True) else "NO"))
    widths = [max(len(x[i]) for x in lines) for i in range(len(head))]
    for ln in lines:
        print("  ".join(c.ljust(w) for c, w in zip(ln, widths)))


def print_targets(rows, copy_bw):
    bw = max(copy_bw.values())
    big = next(r for r in rows if r.get("large"))
    frac = (2 + 1) * 4 * (1 << 24) / big["fused_s"] / 1e9 / bw
    speed = big["unfused_s"] / big["fused_s"]
    print(f"target chain10@2^24 fused >= 0.9 x copy bandwidth: {frac:.2f} "
          f"{'PASS' if frac >= 0.9 else 'FAIL'}")
    print(f"target chain10@2^24 fused/unfused >= 8x: {speed:.1f}x "
          f"{'PASS' if speed >= 8 else 'FAIL'}")
    for r in rows:
        if r["model"] in JAX_TARGETS and not r.get("large"):
            if "jax_s" not in r:
                print(f"target {r['model']} fused <= 1.0 x jax.jit: jax not installed")
                continue
            ratio = r["fused_s"] / r["jax_s"]
            print(f"target {r['model']} fused <= 1.0 x jax.jit: {ratio:.2f}x "
                  f"{'PASS' if ratio <= 1.0 else 'FAIL'}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="auto")
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--exact-math", action="store_true")
    p.add_argument("--models", nargs="*", default=list(MODELS))
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args(argv)
    from workbench.importers import load_graph

    from workbench.codegen import resolve_backend

    backend, _ = resolve_backend(args.backend)
    load = MachineLoad()
    copy_bw = copy_bandwidth(max(5, args.repeat // 2), backend)
    rows = []
    for name in args.models:
        with np.load(HLO / f"{name}.io.npz") as data:
            inputs = {k: data[k] for k in data.files if k.startswith("arg")}
        graph = load_graph(str(HLO / f"{name}.before.hlo"))
        rows.append(bench_model(name, graph, inputs, backend, args.repeat,
                                args.exact_math, args.cache_dir))
        print(f"  measured {name}", file=sys.stderr, flush=True)
    big = chain10_large(backend, max(5, args.repeat // 2), args.exact_math, args.cache_dir)
    big["large"] = True
    rows.append(big)
    rc_rows = row_cache_rows(args.repeat, args.exact_math, args.cache_dir) \
        if backend == "cpu" else []
    print_table(rows, copy_bw)
    for r in rc_rows:
        print(f"row cache {r['model']} {r['group']}: without {_fmt(r['without_s'])}, with "
              f"{_fmt(r['with_s'])} ({r['without_s'] / r['with_s']:.2f}x; medians "
              f"{_fmt(r['without_median_s'])} / {_fmt(r['with_median_s'])})")
    print_targets(rows, copy_bw)
    m = load.summary()
    others = "-" if m["others_cpu_fraction"] is None else f"{m['others_cpu_fraction']:.0%}"
    print(f"machine: {m['cpus']} CPUs; load average {m['load_before']:.2f} before, "
          f"{m['load_after']:.2f} after; other processes used {others} of the CPUs during the "
          f"{m['wall_s']:.0f} s run")
    if args.json:
        Path(args.json).write_text(json.dumps({"backend": backend, "copy": copy_bw,
                                               "rows": rows, "row_cache": rc_rows,
                                               "machine": m}, indent=1))


if __name__ == "__main__":
    main()
