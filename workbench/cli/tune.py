"""``workbench tune`` and ``workbench sweep``: measured autotuning and sweeps, on worker
processes here or on a Ray cluster, through the results store (docs/tuning.md)."""

from __future__ import annotations

import argparse
import json
import sys

from workbench.cli.common import (add_calibrate_arg, calibrate_first, check_out_path,
                                 int_at_least, load_graph_arg, write_file)
from workbench.costmodel.devices import DEVICES
from workbench.errors import WorkbenchError
from workbench.planner.heuristics import POLICIES


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text}")
    return value


def share(text: str) -> float:
    """An argparse type: a share in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def knob_values(text: str):
    """An argparse type: ``NAME=V1,V2,...`` for a known knob."""
    from workbench.costmodel.knobs import parse_values

    try:
        return parse_values(text)
    except WorkbenchError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _store(args):
    from workbench.tuning.store import ResultsStore

    return None if args.no_store else ResultsStore(args.store)


def _executor(args):
    from workbench.tuning.executors import make_executor

    ex = make_executor(args.executor, args.address)
    if hasattr(ex, "connect"):
        ex.connect()          # an unreachable cluster is refused before any work
    return ex


def _progress(args):
    if args.json or not sys.stderr.isatty():
        return None
    return lambda t: print(f"  measured {t.step}: {t.description[:80]}", file=sys.stderr)


def cmd_tune(args) -> int:
    from workbench.cli.tune_text import tune_text
    from workbench.tuning.tune import tune

    if args.out:
        check_out_path(args.out, "the tuned plan")
    graph = load_graph_arg(args.file)
    calibrate_first(args, args.device)   # the candidates are ordered by predicted time
    start = None
    if args.plan:
        from workbench.cli.run import choose_plan

        start = choose_plan(graph, args.plan)
    store = _store(args)
    budget = None if args.seconds is not None else args.budget
    with _executor(args) as ex:
        result = tune(graph, ex, store, start=start, policy=args.policy, device=args.device,
                      backend=args.backend, budget=budget, seconds=args.seconds,
                      min_gain=args.min_gain, repeat=args.repeat, timeout_s=args.timeout,
                      batch=args.batch, progress=_progress(args))
    if args.out:
        write_file(args.out, lambda f: f.write(result.best.dumps()))
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        print(tune_text(result, store.path if store else None))
    return 0


def cmd_sweep(args) -> int:
    from workbench.cli.tune_text import sweep_text
    from workbench.tuning.sweep import sweep

    graphs = [load_graph_arg(f) for f in args.files]
    if "cpu" in (args.device or ["cpu"]):
        calibrate_first(args, "cpu")     # each plan's predicted time is stored beside its measure
    store = _store(args)
    with _executor(args) as ex:
        result = sweep(graphs, ex, store, policies=args.policy or ["priority"],
                       devices=args.device or ["cpu"], knobs=dict(args.set or ()),
                       backend=args.backend, repeat=args.repeat, timeout_s=args.timeout)
    print(json.dumps(result.to_json(), indent=1) if args.json else sweep_text(result))
    return 0


def _common(s) -> None:
    s.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where plans are compiled and timed: worker processes here (local), "
                        "or Ray tasks (default local)")
    s.add_argument("--address", help="a running Ray cluster's address (HOST:PORT, as `ray "
                                     "start --head` prints it); without it --executor ray "
                                     "starts a local Ray")
    s.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "cuda-sim"),
                   help="where plans are measured (cuda asks Ray for a GPU per task)")
    s.add_argument("--repeat", type=int_at_least(1), default=10,
                   help="timed runs per measurement (default 10)")
    s.add_argument("--timeout", type=positive_seconds, default=600.0,
                   help="seconds one compile-and-measure may take before its worker is killed "
                        "(default 600)")
    s.add_argument("--store", help="the results store (default: results.sqlite in the cache "
                                   "directory)")
    s.add_argument("--no-store", action="store_true",
                   help="measure everything, store nothing")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    add_calibrate_arg(s)


def register(subparsers) -> None:
    """Add ``tune`` and ``sweep`` to the ``workbench`` command line."""
    s = subparsers.add_parser("tune", help="autotune a plan by measurement: try variants of "
                                           "the proposal, keep what is faster")
    s.add_argument("file", help="a .hlo/.json graph, or a sample graph's name")
    limit = s.add_mutually_exclusive_group()
    limit.add_argument("--budget", type=int_at_least(0), default=8,
                       help="variants to measure at most (default 8)")
    limit.add_argument("--seconds", type=positive_seconds,
                       help="stop starting measurements after this many seconds, instead "
                            "of after --budget variants (default: no time limit)")
    s.add_argument("--policy", choices=POLICIES, default="priority",
                   help="the plan to start from (default priority)")
    s.add_argument("--plan", help="start from this saved plan instead")
    s.add_argument("--device", choices=DEVICES, default="cpu",
                   help="cost-model profile ordering the candidates (default cpu)")
    s.add_argument("--min-gain", type=share, default=0.05,
                   help="share of the time a variant must save to be kept (default 0.05)")
    s.add_argument("--batch", type=int_at_least(1), default=1,
                   help="variants measured at once (more than 1 pays on a Ray cluster)")
    s.add_argument("--out", help="save the best plan as JSON here")
    _common(s)
    s.set_defaults(func=cmd_tune)

    s = subparsers.add_parser("sweep", help="plan and measure graphs x policies x devices x "
                                            "knob settings")
    s.add_argument("files", nargs="+", metavar="FILE", help="graphs (.hlo/.json or sample names)")
    s.add_argument("--policy", action="append", choices=POLICIES,
                   help="a policy to sweep (repeatable; default priority)")
    s.add_argument("--device", action="append", choices=DEVICES,
                   help="a cost-model profile to plan on (repeatable; default cpu)")
    s.add_argument("--set", action="append", type=knob_values, metavar="NAME=V1,V2,...",
                   help="a knob and its values (repeatable; every combination is swept)")
    _common(s)
    s.set_defaults(func=cmd_sweep)
