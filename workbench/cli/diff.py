"""``workbench diff FILE --a A --b B``: two plans of one graph side by side (A, B: a policy, ``xla``,
``unfused``, or a saved plan file)."""

from __future__ import annotations

import json
import os

from workbench.cli.common import add_calibrate_arg, calibrate_first, int_at_least, load_graph_arg
from workbench.costmodel.devices import DEVICES
from workbench.errors import InputError, PlanError


def plan_arg(graph, spec: str, device: str):
    """The plan a ``--a``/``--b`` value names: a plan file (a path that exists), else a plan
    name (:data:`~workbench.planner.heuristics.PLAN_NAMES`).

    Raises
    ------
    InputError
        For a name that is neither a file nor a plan name, or an unreadable file.
    PlanError
        For a plan file made for another graph, or ``xla`` on an unoptimised graph.
    """
    from workbench.cli.run import choose_plan
    from workbench.planner.heuristics import PLAN_NAMES, named_plan

    if os.path.exists(spec):
        try:
            return choose_plan(graph, plan_file=spec), os.path.basename(spec)
        except PlanError as exc:
            if exc.file is not None:
                raise
            raise PlanError(exc.message, file=spec, node=exc.node) from None
    if spec not in PLAN_NAMES:
        raise InputError(f"{spec!r} is neither a plan file nor a plan name (known: "
                         f"{', '.join(PLAN_NAMES)})")
    return named_plan(graph, spec, device), spec


def measured_groups(graph, plan, backend: str, repeat: int) -> dict:
    """Group id -> measured median seconds of ``plan``'s kernels (compiled and timed here, in
    a worker process: :func:`workbench.tuning.runner.measure_in_worker`)."""
    from workbench.tuning.runner import measure_in_worker

    m = measure_in_worker(graph, plan, backend=backend, repeat=repeat)
    return dict(m.kernels)


def cmd_diff(args) -> int:
    from workbench.cli.whatif_text import diff_text
    from workbench.planner.diff import diff_plans

    graph = load_graph_arg(args.file)
    calibrate_first(args, args.device)   # both plans are planned and costed on this profile
    a, a_label = plan_arg(graph, args.a, args.device)
    b, b_label = plan_arg(graph, args.b, args.device)
    ma = mb = None
    if args.measure:
        ma = measured_groups(graph, a, args.backend, args.repeat)
        mb = measured_groups(graph, b, args.backend, args.repeat)
    d = diff_plans(graph, a, b, device=args.device, a_label=a_label, b_label=b_label,
                   measured_a=ma, measured_b=mb)
    if args.json:
        print(json.dumps(d.to_json(), indent=1))
    else:
        print(diff_text(graph, d, limit=args.limit))
    return 0


def register(subparsers) -> None:
    """Add ``diff`` to the ``workbench`` command line."""
    s = subparsers.add_parser("diff", help="two plans of one graph side by side: groups in "
                                           "both or one, moved nodes, the cost of each "
                                           "difference")
    s.add_argument("file", help="a .hlo/.json graph, or a sample graph's name")
    s.add_argument("--a", required=True, metavar="A",
                   help="plan A: a policy (priority, xla-cpu, greedy), xla, unfused, or a plan "
                        "file")
    s.add_argument("--b", required=True, metavar="B", help="plan B (as --a)")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model profile both plans are planned and costed on (default cpu)")
    s.add_argument("--measure", action="store_true",
                   help="also compile and time both plans here and show measured times")
    s.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "cuda-sim"),
                   help="backend for --measure (default cpu)")
    s.add_argument("--repeat", type=int_at_least(1), default=10,
                   help="timed runs per plan for --measure (default 10)")
    s.add_argument("--limit", type=int_at_least(0), default=20,
                   help="differences to list (default 20)")
    s.add_argument("--json", action="store_true", help="print the diff as JSON")
    add_calibrate_arg(s)
    s.set_defaults(func=cmd_diff)
