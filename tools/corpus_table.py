"""Print the corpus table (run from the repository root; needs no jax).

    python tools/corpus_table.py [--fused] [NAME ...]

For each model of corpus/manifest.json: its instructions before and after optimisation, whether
both HLO files import, and the reference interpreter's outputs against JAX's, over both stages
and all outputs (:func:`workbench.ir.tolerance.error_figures`):

- the largest norm-wise relative error ``max|ours - jax| / max|jax|``;
- the largest share of the tolerance an element used, ``|ours - jax| / (atol + rtol |jax|)``
  (at most 1 passes), with the tolerance dtypes;
- for f32 outputs that can be evaluated in float64 (no narrow floats, no nested computations,
  no bit-level ops): XLA's own norm-wise error against that float64 evaluation, and ours — how
  far the problem's conditioning alone takes any f32 computation.

With ``--fused``: the planner's fused CPU plan of the optimised module (and of the module before
optimisation) matches the reference *and* JAX's outputs or not, its kernels, and the kernels
that ran through the numpy reference (fallbacks), by op.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.codegen.check import check_outputs, compare, reference_outputs  # noqa: E402
from workbench.importers import load_graph  # noqa: E402
from workbench.ir.interpreter import coerce_input  # noqa: E402
from workbench.ir.tolerance import error_figures, tolerance_dtype  # noqa: E402


def eval_error(graph, arrays):
    """{'normwise', 'share', 'xla64', 'ours64'} (largest over outputs; the last two None when
    no f32 output has a float64 evaluation) and the tolerance dtypes; share inf on a mismatch."""
    args = {k: v for k, v in arrays.items() if k.startswith("arg")}
    ref, exact = reference_outputs(graph, args)
    fig, dts = dict(normwise=0.0, share=0.0, xla64=None, ours64=None), set()
    for i, got in enumerate(ref):
        node = graph.node(graph.outputs[i])
        want = coerce_input(arrays[f"out{i}"], node.type, f"out{i}")
        dt = tolerance_dtype(graph, node.id)
        dts.add(dt)
        normwise, share = error_figures(got, want, dt)
        if not compare(got, want, dt, i, node.id).ok:
            share = float("inf")
        fig["normwise"], fig["share"] = max(fig["normwise"], normwise), max(fig["share"], share)
        if exact is not None and dt == "f32":
            x = np.asarray(exact[i], np.float64)
            for key, val in (("xla64", want), ("ours64", got)):
                e = error_figures(val, x, "f32")[0]
                fig[key] = e if fig[key] is None else max(fig[key], e)
    return fig, dts


def _merge(a, b):
    return {k: (a[k] if b[k] is None else b[k] if a[k] is None else max(a[k], b[k]))
            for k in a}


def fused(graph, arrays):
    from workbench.codegen import compile_plan
    from workbench.planner import plan_graph

    args = {k: v for k, v in arrays.items() if k.startswith("arg")}
    plan = plan_graph(graph, "priority")
    compiled = compile_plan(graph, plan, backend="cpu")
    ref, exact = reference_outputs(graph, args)
    outs = compiled.run(args)
    ok = all(c.ok for c in check_outputs(graph, outs, ref, exact))
    for i, got in enumerate(outs):            # and against JAX itself, elementwise
        node = graph.node(graph.outputs[i])
        want = coerce_input(arrays[f"out{i}"], node.type, f"out{i}")
        ok = ok and compare(got, want, tolerance_dtype(graph, node.id), i, node.id).ok
    ops = Counter()
    groups = {g.id: g for g in plan.groups}
    from workbench.ir.ops import Category, get_op

    def why(node):
        if get_op(node.op).category in Category.UNFUSIBLE:
            return True
        if node.op in ("reduce", "reduce-window"):
            return any(k in node.attrs for k in ("computation", "base_dilation",
                                                 "window_dilation"))
        return node.op == "bitcast-convert"

    for k in compiled.kernels:
        if k.fallback:
            nodes = [graph.node(n) for n in groups[k.group_id].nodes]
            named = [n.op for n in nodes if why(n)]
            ops[named[0] if named else k.ops[0]] += 1
    return ok, len(compiled.kernels), len(compiled.aliases), ops


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--fused", action="store_true", help="also compile and run fused plans")
    a = ap.parse_args(argv)
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text())
    rows = [m for m in manifest["models"] if not a.names or m["name"] in a.names]
    head = ("| model | split | instructions before / after | imports | eval vs JAX: norm-wise error "
            "| worst element: share of its tolerance (dtype) | f32 vs float64: XLA / ours |")
    sep = "| --- | --- | --- | --- | --- | --- | --- |"
    if a.fused:
        head += " fused CPU run (after / before) | kernels after (aliases) | ran through the reference |"
        sep += " --- | --- | --- |"
    print(head)
    print(sep)
    for m in rows:
        name = m["name"]
        with np.load(ROOT / "corpus" / f"{name}.io.npz") as data:
            arrays = {k: data[k] for k in data.files}
        fig, dts, graphs = None, set(), {}
        try:
            for stage in ("before", "after_noynn"):
                graphs[stage] = load_graph(ROOT / "corpus" / f"{name}.{stage}.hlo")
                f, d = eval_error(graphs[stage], arrays)
                fig = f if fig is None else _merge(fig, f)
                dts |= d
            imports = "yes"
        except Exception as exc:  # report, do not stop the table
            imports = f"no: {exc}"[:60]
        if fig is None or len(graphs) < 2:
            err = "- | - | -"
        else:
            share = "MISMATCH" if fig["share"] == float("inf") else f"{fig['share']:.3f}"
            x64 = ("-" if fig["xla64"] is None
                   else f"{fig['xla64']:.1e} / {fig['ours64']:.1e}")
            err = f"{fig['normwise']:.1e} | {share} ({', '.join(sorted(dts))}) | {x64}"
        line = (f"| {name} | {m['split']} | {m['instructions_before']} / "
                f"{m['instructions_after']} | {imports} | {err} |")
        if a.fused and len(graphs) == 2:
            ok_a, k_a, al_a, fb = fused(graphs["after_noynn"], arrays)
            ok_b, _, _, fb_b = fused(graphs["before"], arrays)
            fb = fb + fb_b
            why = ", ".join(f"{op} x{n}" for op, n in sorted(fb.items())) or "-"
            line += (f" {'ok' if ok_a else 'MISMATCH'} / {'ok' if ok_b else 'MISMATCH'} | "
                     f"{k_a} ({al_a}) | {why} |")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
