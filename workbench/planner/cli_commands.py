"""The planner's commands: ``workbench plan`` and ``workbench compare-xla`` (docs/planner.md)."""

from __future__ import annotations

import json

from workbench.planner.devices import DEVICES
from workbench.planner.heuristics import POLICIES


def _load(path: str):
    from workbench.cli import resolve_graph_path
    from workbench.importers import load_graph

    return load_graph(resolve_graph_path(path))


def cmd_plan(args) -> int:
    from workbench.planner.cost_model import plan_cost
    from workbench.planner.explain import plan_report
    from workbench.planner.heuristics import plan_graph
    from workbench.planner.patterns import fold_batch_norm

    graph = _load(args.file)
    if args.fold_bn:
        graph = fold_batch_norm(graph)
    plan = plan_graph(graph, policy=args.policy, device=args.device)
    cost = plan_cost(graph, plan, args.device)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(plan.dumps())
    if args.json:
        print(json.dumps({"plan": plan.to_json(), "cost": cost.to_json()}, indent=1))
    else:
        print(plan_report(graph, plan, cost, explain=args.explain))
    return 0


def cmd_compare_xla(args) -> int:
    from workbench.planner.compare import compare_with_xla, difference_summary
    from workbench.planner.heuristics import plan_graph

    graph = _load(args.file)
    plan = plan_graph(graph, policy=args.policy, device=args.device)
    agreement = compare_with_xla(graph, plan)
    if args.json:
        doc = agreement.to_json()
        doc.update(file=args.file, policy=args.policy)
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{graph.name}: policy {args.policy} vs XLA's fusions "
          f"({agreement.xla_pairs} fused pairs in XLA, {agreement.plan_pairs} in the plan)")
    print(f"precision {agreement.precision:.3f}  recall {agreement.recall:.3f}  "
          f"F1 {agreement.f1:.3f}")
    for line in difference_summary(graph, agreement, limit=args.limit):
        print(line)
    return 0


def register(subparsers) -> None:
    """Add ``plan`` and ``compare-xla`` to the ``workbench`` command line."""
    s = subparsers.add_parser("plan", help="plan the fusion of a graph and show each kernel's "
                                           "cost breakdown")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--policy", choices=POLICIES, default="priority",
                   help="planner policy (default: priority)")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model device profile (default: cpu, measured once and cached)")
    s.add_argument("--json", action="store_true", help="print the plan and costs as JSON")
    s.add_argument("--explain", action="store_true",
                   help="also print the planner's decisions, one sentence each")
    s.add_argument("--fold-bn", action="store_true",
                   help="fold inference batch norms into the convolutions before planning")
    s.add_argument("--out", help="also save the plan as JSON to this file")
    s.set_defaults(func=cmd_plan)

    s = subparsers.add_parser("compare-xla", help="compare a plan with XLA's own fusions in an "
                                                  "optimised HLO file (*.after_noynn.hlo)")
    s.add_argument("file", help="an optimised HLO file (XLA's fusions are the answer key)")
    s.add_argument("--policy", choices=POLICIES, default="xla-cpu",
                   help="planner policy to compare (default: xla-cpu)")
    s.add_argument("--device", choices=DEVICES, default="cpu", help="cost-model device profile")
    s.add_argument("--json", action="store_true",
                   help="print JSON with precision, recall, f1 and the differing pairs")
    s.add_argument("--limit", type=int, default=12, help="differing pairs to list per side")
    s.set_defaults(func=cmd_compare_xla)
