"""Print the corpus table (run from the repository root; needs no jax).

    python tools/corpus_table.py [--fused] [NAME ...]

For each model of corpus/manifest.json: its instructions before and after optimisation, whether
both HLO files import, the reference interpreter's largest error against JAX's outputs (the
check's ``max_rel_error``: |got - jax| / (|jax| + atol), over all outputs, and the tolerance
dtype it was held to), and with ``--fused`` the planner's fused CPU plan of the optimised module
(and of the module before optimisation): matches the reference or not, kernels, and the kernels
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
from workbench.ir.tolerance import tolerance_dtype  # noqa: E402


def eval_error(graph, arrays):
    args = {k: v for k, v in arrays.items() if k.startswith("arg")}
    ref, exact = reference_outputs(graph, args)
    worst, dts = 0.0, set()
    for i, got in enumerate(ref):
        node = graph.node(graph.outputs[i])
        want = coerce_input(arrays[f"out{i}"], node.type, f"out{i}")
        dt = tolerance_dtype(graph, node.id)
        c = compare(got, want, dt, i, node.id, None if exact is None else exact[i])
        if not c.ok:
            return float("inf"), dts
        worst = max(worst, c.max_rel_error)
        dts.add(dt)
    return worst, dts


def fused(graph, arrays):
    from workbench.codegen import compile_plan
    from workbench.planner import plan_graph

    args = {k: v for k, v in arrays.items() if k.startswith("arg")}
    plan = plan_graph(graph, "priority")
    compiled = compile_plan(graph, plan, backend="cpu")
    ref, exact = reference_outputs(graph, args)
    ok = all(c.ok for c in check_outputs(graph, compiled.run(args), ref, exact))
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
    head = "| model | split | instructions before / after | imports | max eval error vs JAX (tolerance dtype) |"
    sep = "| --- | --- | --- | --- | --- |"
    if a.fused:
        head += " fused CPU run (after / before) | kernels after (aliases) | ran through the reference |"
        sep += " --- | --- | --- |"
    print(head)
    print(sep)
    for m in rows:
        name = m["name"]
        with np.load(ROOT / "corpus" / f"{name}.io.npz") as data:
            arrays = {k: data[k] for k in data.files}
        errs, dts, graphs = [], set(), {}
        try:
            for stage in ("before", "after_noynn"):
                graphs[stage] = load_graph(ROOT / "corpus" / f"{name}.{stage}.hlo")
                e, d = eval_error(graphs[stage], arrays)
                errs.append(e)
                dts |= d
            imports = "yes"
        except Exception as exc:  # report, do not stop the table
            imports = f"no: {exc}"[:60]
        err = f"{max(errs):.1e} ({', '.join(sorted(dts))})" if errs else "-"
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
