"""``workbench export FILE --format hlo|model-explorer|plan --out PATH``: a plan in other tools'
formats (the fused module as HLO text, Model Explorer's graph and node data, the plan file)."""

from __future__ import annotations

import json
import os

from workbench.cli.common import check_out_path, load_graph_arg, write_file
from workbench.costmodel.devices import DEVICES

FORMATS = ("hlo", "model-explorer", "plan")


def overlay_path(out: str, name: str) -> str:
    """``g.json`` -> ``g.predicted_us.json``: where an overlay of a Model Explorer export goes."""
    stem, ext = os.path.splitext(out)
    return f"{stem}.{name}{ext or '.json'}"


def _export_hlo(graph, plan, args) -> dict:
    from workbench.exporters.hlo import export_hlo, round_trip

    exp = export_hlo(graph, plan)
    write_file(args.out, lambda f: f.write(exp.text))
    rt = round_trip(graph, plan, exp)
    return {"written": [args.out], "fusions": len(exp.fusions), "round_trip": rt.to_json()}


def _export_explorer(graph, plan, args) -> dict:
    from workbench.costmodel import plan_cost
    from workbench.exporters.model_explorer import explorer_graphs, node_data

    cost = plan_cost(graph, plan, args.device)
    measured = None
    if args.measure:
        from workbench.cli.diff import measured_groups

        measured = measured_groups(graph, plan, "cpu", 10)
    write_file(args.out, lambda f: json.dump(explorer_graphs(graph, plan, cost), f))
    written = [args.out]
    for name, doc in node_data(graph, plan, cost, measured).items():
        path = overlay_path(args.out, name)
        write_file(path, lambda f, doc=doc: json.dump(doc, f))
        written.append(path)
    return {"written": written, "layers": len(plan.groups)}


def cmd_export(args) -> int:
    from workbench.cli.run import choose_plan

    check_out_path(args.out, f"the {args.format} export")
    graph = load_graph_arg(args.file)
    if args.plan:
        plan = choose_plan(graph, args.plan)
    else:
        from workbench.planner.heuristics import named_plan

        plan = named_plan(graph, args.policy, args.device)
    if args.format == "plan":
        write_file(args.out, lambda f: f.write(plan.dumps()))
        doc = {"written": [args.out]}
    elif args.format == "hlo":
        doc = _export_hlo(graph, plan, args)
    else:
        doc = _export_explorer(graph, plan, args)
    doc.update(format=args.format, graph=graph.name, plan=plan.fingerprint,
               policy=plan.policy, kernels=len(plan.groups))
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{args.format} export of {graph.name} ({plan.policy}, {len(plan.groups)} kernels, "
          f"plan {plan.fingerprint[:8]}): wrote {', '.join(doc['written'])}")
    if "round_trip" in doc:
        rt, a = doc["round_trip"], doc["round_trip"]["agreement"]
        verdict = "gives back the plan exactly" if rt["ok"] else "DIFFERS: " + "; ".join(
            rt["problems"][:3])
        print(f"  {doc['fusions']} fusion instructions; re-imported, it {verdict}: F1 "
              f"{a['f1']:.3f} (precision {a['precision']:.3f}, recall {a['recall']:.3f}; "
              f"{a['xla_pairs']} fused pairs re-imported, {a['plan_pairs']} in the plan)")
    return 0 if doc.get("round_trip", {}).get("ok", True) else 1


def register(subparsers) -> None:
    """Add ``export`` to the ``workbench`` command line."""
    s = subparsers.add_parser("export", help="write a plan as HLO with fusions, a Model "
                                             "Explorer graph with overlays, or a plan file")
    s.add_argument("file", help="a .hlo/.json graph, or a sample graph's name")
    s.add_argument("--format", required=True, choices=FORMATS)
    which = s.add_mutually_exclusive_group()
    which.add_argument("--policy", default=None,
                       help="the plan: a policy (priority, xla-cpu, greedy), xla or unfused "
                            "(default priority)")
    which.add_argument("--plan", help="a saved plan file")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model profile (planning and the overlays; default cpu)")
    s.add_argument("--measure", action="store_true",
                   help="model-explorer: also time the plan here for a measured-time overlay")
    s.add_argument("--out", required=True, help="the file to write")
    s.add_argument("--json", action="store_true", help="print what was written as JSON")
    s.set_defaults(func=cmd_export)
