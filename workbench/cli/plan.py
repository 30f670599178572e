"""``workbench plan``, ``workbench compare-xla`` and ``workbench devices``: the fusion plan and its
costs, agreement with XLA's own fusions, the cost model's device profiles (docs/planner.md)."""

from __future__ import annotations

import json
import sys

from workbench.cli.common import (add_calibrate_arg, calibrate_first, check_out_path,
                                  int_at_least, write_file)
from workbench.cli.common import load_graph_arg as _load
from workbench.costmodel.devices import DEVICES
from workbench.costmodel.knobs import KNOB_NAMES
from workbench.planner.heuristics import POLICIES


def cmd_plan(args) -> int:
    from workbench.cli.plan_text import fold_summary, plan_report
    from workbench.costmodel import plan_cost
    from workbench.planner.heuristics import plan_graph
    from workbench.transforms import fold_batch_norms

    if args.out:
        check_out_path(args.out, "the plan")
    graph = _load(args.file)
    calibrate_first(args, args.device)
    report = unfolded = None
    if args.fold_bn:
        original = graph
        graph, report = fold_batch_norms(original)
        if report.folded:
            unfolded = plan_cost(original, plan_graph(original, args.policy, args.device),
                                 args.device)
    if args.sweep:
        return _sweep(graph, args)
    whatif = None
    if args.set:
        from workbench.planner.whatif import what_if

        whatif = what_if(graph, dict(args.set), args.policy, args.device)
        plan, device = whatif.plan, whatif.device
    else:
        plan, device = plan_graph(graph, policy=args.policy, device=args.device), args.device
    cost = plan_cost(graph, plan, device)
    if args.out:
        write_file(args.out, lambda f: f.write(plan.dumps()), what="the plan")
    if args.json:
        doc = {"plan": plan.to_json(), "cost": cost.to_json()}
        if whatif is not None:
            doc["what_if"] = whatif.to_json()
        if report is not None:
            doc["folding"] = report.to_json()
            if unfolded is not None:
                doc["folding"]["unfolded_total"] = unfolded.total.to_json()
        print(json.dumps(doc, indent=1))
        return 0
    if report is not None:
        print("\n".join(fold_summary(report, cost, unfolded)))
        print()
    if whatif is not None:
        from workbench.cli.whatif_text import whatif_text
        from workbench.costmodel.devices import get_device

        print(whatif_text(whatif, get_device(args.device)))
        print()
    print(plan_report(graph, plan, cost, explain=args.explain))
    return 0


def _sweep(graph, args) -> int:
    """``workbench plan --sweep NAME=V1,V2,...``: the plan at each value of one knob."""
    from workbench.cli.whatif_text import sweep_text
    from workbench.costmodel.knobs import parse_values
    from workbench.planner.whatif import knob_sweep

    knob, values = parse_values(args.sweep)
    points = knob_sweep(graph, knob, values, args.policy, args.device,
                        settings=dict(args.set or ()))
    if args.json:
        print(json.dumps({"knob": knob, "device": args.device, "policy": args.policy,
                          "settings": dict(args.set or ()),
                          "points": [p.to_json() for p in points]}, indent=1))
    else:
        print(sweep_text(knob, points, args.device, args.policy))
    return 0


def knob_setting(text: str):
    """An argparse type: ``NAME=VALUE`` for a known knob (a bad one is one line, status 2)."""
    import argparse

    from workbench.costmodel.knobs import parse_setting
    from workbench.errors import WorkbenchError

    try:
        return parse_setting(text)
    except WorkbenchError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def cmd_compare_xla(args) -> int:
    from workbench.planner.compare import compare_with_xla, difference_summary, fusion_summary
    from workbench.costmodel.devices import get_device
    from workbench.planner.heuristics import plan_graph

    from workbench.errors import WorkbenchError

    graph = _load(args.file)
    plan = plan_graph(graph, policy=args.policy, device=args.device)
    try:
        agreement = compare_with_xla(graph, plan)
    except WorkbenchError as exc:  # e.g. no XLA fusion tags: name the file it is about
        if exc.file is None:
            exc.file = args.file
        raise
    device = get_device(args.device)
    if args.json:
        doc = agreement.to_json()
        doc.update(file=args.file, policy=args.policy, device=device.name,
                   device_source=device.source)
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{graph.name}: policy {args.policy} on device {device.name} vs XLA's fusions "
          f"({agreement.xla_pairs} fused pairs in XLA, {agreement.plan_pairs} in the plan)")
    if args.policy != "xla-cpu":
        print("  (the priority and greedy policies weigh costs, so the device changes their "
              "answer; xla-cpu follows XLA:CPU's rules and does not depend on it)")
    print(agreement.score_text())
    for line in fusion_summary(agreement, limit=args.limit):
        print(line)
    if agreement.dropped:
        ops = sorted({graph.node(n).op for n in agreement.dropped})
        shown = ", ".join(agreement.dropped[:args.limit])
        more = f", ... ({len(agreement.dropped)} in all)" if len(agreement.dropped) > args.limit \
            else ""
        print(f"not compared: {len(agreement.dropped)} free op(s) ({', '.join(ops)}) outside "
              f"XLA's fusions, which move no data and are no kernel: {shown}{more}")
    for line in difference_summary(graph, agreement, limit=args.limit):
        print(line)
    return 0


def _progress_line(stage, k, n, message) -> None:
    if k in (1, n):
        print(f"  {stage} {k}/{n}: {message}", file=sys.stderr)


def cmd_devices(args) -> int:
    from workbench.costmodel.devices import all_profiles, cpu_profile_path
    from workbench.costmodel.text import (calibration_lines, core_text, memory_ceilings,
                                          source_text)
    from workbench.fmt import fmt_rate, fmt_time

    if args.refresh:
        from workbench.profiler.calibrate import refresh_cpu_profile

        print("measuring the cpu profile: a quick probe, then micro-kernels of the CPU backend "
              "(about a minute the first time, while they compile)", file=sys.stderr)
        refresh_cpu_profile(_progress_line)
    profiles = all_profiles()
    if args.json:
        print(json.dumps({"cpu_cache": str(cpu_profile_path()),
                          "profiles": [p.to_json() for p in profiles]}, indent=1))
        return 0
    for p in profiles:
        regs = (f", {p.sm_count} SMs, {p.registers_per_sm} registers/SM, at most "
                f"{p.max_registers_per_thread} per thread" if p.is_gpu else "")
        print(f"{p.name:5s} {fmt_rate(p.bandwidth_Bps, 'B/s'):>11s}  "
              f"{fmt_rate(p.peak_flops, 'FLOP/s'):>14s} FP32  launch "
              f"{fmt_time(p.launch_overhead_s)}, transcendental = {p.transcendental_flops:g} "
              f"FLOP{regs}")
        if core_text(p):
            print(f"     {core_text(p)}")
        if len(p.memory_levels()) > 1:
            print(f"      memory ceilings: {memory_ceilings(p)} (a kernel streams at the "
                  "ceiling of the smallest level that holds the bytes it moves)")
        for line in calibration_lines(p):
            print(f"      {line}")
        print(f"      source: {source_text(p.source)}")
    print(f"the cpu profile is cached in {cpu_profile_path()}"
          + ("; just measured again" if args.refresh else
             "; `workbench devices --refresh` measures it again"))
    return 0


def register(subparsers) -> None:
    """Add ``plan``, ``compare-xla`` and ``devices`` to the ``workbench`` command line."""
    s = subparsers.add_parser("plan", help="plan the fusion of a graph and show each kernel's "
                                           "cost breakdown")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--policy", choices=POLICIES, default="priority",
                   help="planner policy (default: priority)")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model device profile (default: cpu, measured once and cached; "
                        "see `workbench devices`)")
    s.add_argument("--json", action="store_true", help="print the plan and costs as JSON")
    s.add_argument("--explain", action="store_true",
                   help="also print the planner's decisions, one sentence each")
    s.add_argument("--fold-bn", action="store_true",
                   help="fold inference batch norms into the convolutions before planning, and "
                        "compare with the plan of the graph as loaded")
    s.add_argument("--out", help="also save the plan as JSON to this file")
    s.add_argument("--set", action="append", type=knob_setting, metavar="NAME=VALUE",
                   help="what-if: set a cost-model knob and show what changes (repeatable; "
                        f"knobs: {', '.join(KNOB_NAMES)})")
    s.add_argument("--sweep", metavar="NAME=V1,V2,...",
                   help="plan at each value of one knob and print a table (the --set knobs "
                        "held fixed)")
    add_calibrate_arg(s)
    s.set_defaults(func=cmd_plan)

    s = subparsers.add_parser("compare-xla", help="compare a plan with XLA's own fusions in an "
                                                  "optimised HLO file (*.after_noynn.hlo)")
    s.add_argument("file", help="an optimised HLO file (XLA's fusions are the answer key)")
    s.add_argument("--policy", choices=POLICIES, default="xla-cpu",
                   help="planner policy to compare (default: xla-cpu)")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model device profile; changes the answer of the priority and "
                        "greedy policies (default: cpu)")
    s.add_argument("--json", action="store_true",
                   help="print JSON with precision, recall, f1, the differing pairs, the policy "
                        "and the device")
    s.add_argument("--limit", type=int_at_least(0), default=12,
                   help="differing pairs to list per side, 0 or more (default: 12)")
    s.set_defaults(func=cmd_compare_xla)

    s = subparsers.add_parser("devices", help="list the cost model's device profiles with their "
                                              "numbers and sources")
    s.add_argument("--refresh", action="store_true",
                   help="measure the cpu profile again (about 0.8 s) and replace the cache")
    s.add_argument("--json", action="store_true", help="print the profiles as JSON")
    s.set_defaults(func=cmd_devices)
