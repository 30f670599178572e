"""``workbench run``: compile a plan, check it against the reference, profile it, print it.

Exit status: 0 when every output matches the reference, 1 when one does not, 2 for a user
error (bad file, bad plan, unusable backend, memory cap), as for every workbench command.
"""

from __future__ import annotations

import json
import os
import sys

from workbench.cli.common import (add_calibrate_arg, calibrate_first, check_out_path,
                                  int_at_least, load_graph_arg, max_bytes, mib, write_file)
from workbench.costmodel.devices import DEVICES
from workbench.errors import InputError

#: the largest plan file read (bytes)
MAX_PLAN_BYTES = 64 << 20


def register(subparsers) -> None:
    """Add the ``run`` subcommand."""
    s = subparsers.add_parser(
        "run", help="compile a fusion plan with numba, check it and profile it")
    s.add_argument("file", help="a .hlo/.json graph, or a sample graph's name")
    s.add_argument("--inputs", help="an .npz with arg0..argN (default: random inputs)")
    s.add_argument("--plan", help="a plan saved as JSON (default: plan with --policy)")
    s.add_argument("--policy", default=None,
                   help="planner policy (priority, xla-cpu, greedy), 'xla' for XLA's own "
                        "grouping of an optimised module, or 'unfused' (default: priority)")
    s.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda", "cuda-sim"),
                   help="numba target: auto (cuda when a GPU is usable, else cpu), cpu, cuda, "
                        "or cuda-sim (numba's CUDA simulator, for tests; slow)")
    s.add_argument("--repeat", type=int_at_least(1), default=20,
                   help="timed rounds (each runs the fused and the unfused plan once; >= 1)")
    s.add_argument("--warmup", type=int_at_least(0), default=2,
                   help="untimed runs of each plan first (>= 0)")
    s.add_argument("--trace", help="write a Chrome/Perfetto trace of every timed fused run "
                                   "here (one slice per kernel run)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--exact-math", action="store_true",
                   help="CPU: libm for float32 exp/log/tanh/logistic/erf (no approximations)")
    s.add_argument("--device", choices=DEVICES,
                   help="cost-model device profile for predictions (default: the backend's)")
    s.add_argument("--seed", type=int_at_least(0), default=0, help="seed for random inputs")
    s.add_argument("--cache-dir", help="kernel cache directory (default: $WORKBENCH_CACHE_DIR, "
                                       "else ~/.cache/fusion-workbench/kernels)")
    s.add_argument("--max-memory-mib", type=mib, default=4096,
                   help="refuse plans whose live tensors exceed this (MiB; 0: no cap)")
    add_calibrate_arg(s)
    s.set_defaults(func=cmd_run)


def choose_plan(graph, plan_file=None, policy=None):
    """The plan to run: from a plan file, else by name (see ``--policy``;
    :func:`~workbench.planner.named_plan`).

    Raises
    ------
    InputError
        For an unknown policy, or a plan file that cannot be read.
    PlanError
        For a plan file that does not fit the graph.
    """
    from workbench.errors import PlanError
    from workbench.planner import named_plan, plan_from_json

    if plan_file:
        from workbench.files import read_bytes

        data = read_bytes(plan_file, MAX_PLAN_BYTES, "the plan")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot read the plan: not UTF-8 text (byte {exc.start})",
                             file=plan_file) from None
        try:
            return plan_from_json(text, graph)
        except PlanError as exc:  # another graph's plan, a broken one: say which file
            if exc.file is not None:
                raise
            raise PlanError(exc.message, file=plan_file, node=exc.node) from None
    return named_plan(graph, policy)


def prediction_device(args) -> str | None:
    """The device profile ``run`` predicts with: ``--device``, else the backend's (``cpu`` on
    the CPU backend; ``auto`` is the CPU when no CUDA GPU is usable)."""
    if args.device or args.backend not in ("auto", "cpu"):
        return args.device
    if args.backend == "cpu":
        return "cpu"
    from workbench.codegen.backend import detect_backend

    return "cpu" if detect_backend() == "cpu" else None


def cmd_run(args) -> int:
    if args.backend == "cuda-sim" and "numba" not in sys.modules:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # must precede numba's first import
    from workbench.cli.report_text import format_report
    from workbench.exporters import trace_events
    from workbench.importers.inputs import load_inputs
    from workbench.profiler import profile

    if args.trace:
        check_out_path(args.trace, "the trace")     # before the compile and the profile
    if args.cache_dir and os.path.exists(args.cache_dir) and not os.path.isdir(args.cache_dir):
        raise InputError("--cache-dir: this is a file, not a directory", file=args.cache_dir)
    graph = load_graph_arg(args.file)
    plan = choose_plan(graph, args.plan, args.policy)
    inputs = (load_inputs(args.inputs, graph, max_bytes(args.max_memory_mib)) if args.inputs
              else None)
    calibrate_first(args, prediction_device(args))

    def progress(stage, k, n, message):
        if not args.json and sys.stderr.isatty():
            print(f"\r{message[:100]:<100}", end="", file=sys.stderr, flush=True)

    report = profile(graph, plan, inputs, backend=args.backend, repeat=args.repeat,
                     warmup=args.warmup, progress=progress, device=args.device,
                     exact_math=args.exact_math, cache_dir=args.cache_dir,
                     max_bytes=max_bytes(args.max_memory_mib), seed=args.seed)
    if not args.json and sys.stderr.isatty():
        print("\r" + " " * 100 + "\r", end="", file=sys.stderr)
    if args.trace:
        write_file(args.trace, lambda f: json.dump(trace_events(report), f), what="the trace")
    print(report.dumps() if args.json else format_report(report))
    return 0 if report.ok else 1
