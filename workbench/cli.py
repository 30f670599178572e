"""The command line: the headless twin of the app.

``workbench inspect FILE``, ``workbench eval FILE --inputs X.npz``, and the commands the planner,
profiler and app add (``plan``, ``compare-xla``, ``devices``, ``run``, ``serve``). Every user error is a
:class:`~workbench.errors.WorkbenchError`: it is printed on one line and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from workbench.errors import InputError, WorkbenchError

#: where the default sample graph lives, relative to the repository root
DEFAULT_SAMPLE = "transformer_block"


# ----- inspect --------------------------------------------------------------------------------

def inspect_graph(graph) -> dict:
    """The facts ``workbench inspect`` prints, as a JSON-ready dict.

    Returns
    -------
    dict
        ``name``, ``nodes`` (count), ``ops`` (histogram by op), ``categories`` (histogram by
        category), ``inputs`` and ``outputs`` (id, type), ``parameter_bytes``, ``opaque`` (ops
        imported as opaque, with their HLO opcode), ``xla_fusions`` (for an optimised HLO: name,
        kind and ops of each fusion).
    """
    from workbench.ir import get_op

    ops = Counter(n.op for n in graph.nodes)
    cats = Counter(get_op(n.op).category for n in graph.nodes)
    fusions: dict[str, dict] = {}
    for n in graph.topo_nodes():
        tag = n.meta.get("xla_fusion")
        if tag is not None:
            f = fusions.setdefault(tag, {"name": tag, "kind": n.meta.get("xla_fusion_kind"),
                                         "ops": []})
            if n.op not in ("parameter", "constant"):
                f["ops"].append(n.id)
    return {
        "name": graph.name,
        "source": graph.meta.get("source"),
        "description": graph.meta.get("description"),
        "nodes": len(graph.nodes),
        "ops": dict(sorted(ops.items())),
        "categories": dict(sorted(cats.items())),
        "inputs": [{"id": p.id, "index": p.attrs["index"], "type": str(p.type)}
                   for p in graph.parameters],
        "outputs": [{"id": o, "type": str(graph.node(o).type)} for o in graph.outputs],
        "parameter_bytes": sum(p.type.nbytes for p in graph.parameters),
        "opaque": [{"id": n.id, "hlo_opcode": n.attrs.get("hlo_opcode"),
                    "reason": n.meta.get("opaque_reason")}
                   for n in graph.nodes if n.op == "opaque"],
        "xla_fusions": list(fusions.values()),
        "dead": dead_nodes(graph),
    }


def dead_nodes(graph) -> list[str]:
    """Ids of non-parameter nodes on which no graph output depends (dead code), in order."""
    live = set(graph.outputs)
    for o in graph.outputs:
        live |= graph.ancestors(o)
    return [n for n in graph.topo_order if n not in live and graph.node(n).op != "parameter"]


def _fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _print_inspection(info: dict) -> None:
    print(f"graph {info['name']}  ({info['source']})")
    if info.get("description"):
        print(f"  {info['description']}")
    print(f"nodes: {info['nodes']}")
    print("by category: " + ", ".join(f"{k} {v}" for k, v in info["categories"].items()))
    print("by op:       " + ", ".join(f"{k} {v}" for k, v in info["ops"].items()))
    print(f"inputs ({len(info['inputs'])}, {_fmt_bytes(info['parameter_bytes'])}):")
    for p in info["inputs"]:
        print(f"  arg{p['index']}  {p['id']}: {p['type']}")
    print(f"outputs ({len(info['outputs'])}):")
    for i, o in enumerate(info["outputs"]):
        print(f"  out{i}  {o['id']}: {o['type']}")
    if info["opaque"]:
        print(f"opaque ops ({len(info['opaque'])}, never fused):")
        for o in info["opaque"]:
            print(f"  {o['id']}: {o['hlo_opcode']}  ({o['reason']})")
    if info["dead"]:
        print(f"dead code ({len(info['dead'])} nodes no output depends on; XLA would remove "
              f"them): {', '.join(info['dead'])}")
    if info["xla_fusions"]:
        print(f"XLA fusions ({len(info['xla_fusions'])}):")
        for f in info["xla_fusions"]:
            print(f"  {f['name']} [{f['kind']}] {len(f['ops'])} ops: {', '.join(f['ops'])}")


def cmd_inspect(args) -> int:
    from workbench.importers import load_graph

    graph = load_graph(resolve_graph_path(args.file))
    info = inspect_graph(graph)
    if args.json:
        print(json.dumps(info, indent=1))
    else:
        _print_inspection(info)
    return 0


# ----- eval -----------------------------------------------------------------------------------

def load_inputs(path: str):
    """Read ``arg0..argN`` from an ``.npz`` file (never unpickles objects).

    Raises
    ------
    InputError
        If the file cannot be read as npz.
    """
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise InputError("cannot read inputs: this is a single .npy array, not an .npz "
                                 "with arg0..argN", file=path)
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else (
            "not an .npz archive of arrays" if "pickle" in str(exc) or "zip" in str(exc).lower()
            else str(exc))
        raise InputError(f"cannot read inputs: {reason}", file=path) from None


def cmd_eval(args) -> int:
    import numpy as np

    from workbench.importers import load_graph
    from workbench.ir import evaluate, make_inputs
    from workbench.ir.interpreter import check_memory

    graph = load_graph(resolve_graph_path(args.file))
    out = None
    if args.out:
        out = args.out if str(args.out).endswith(".npz") else f"{args.out}.npz"
        check_out_path(out, "the outputs")           # before any work
    max_bytes = int(args.max_memory_mib * 2**20) if args.max_memory_mib else None
    check_memory(graph, max_bytes)                 # before any input is allocated
    inputs = (load_inputs(args.inputs) if args.inputs
              else make_inputs(graph, seed=args.seed, max_bytes=max_bytes))
    outs = evaluate(graph, inputs, max_bytes=max_bytes)
    for i, (o, oid) in enumerate(zip(outs, graph.outputs)):
        flat = np.asarray(o).ravel()
        head = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in flat[:4].tolist())
        dtype = graph.node(oid).type.dtype
        print(f"out{i} {oid}: {dtype}{list(o.shape)} [{head}{', ...' if flat.size > 4 else ''}]")
    if out:
        write_file(out, lambda f: np.savez(f, **{f"out{i}": o for i, o in enumerate(outs)}),
                   binary=True)
        print(f"wrote {len(outs)} output(s) to {out}")
    return 0


def check_out_path(path: str, what: str) -> None:
    """Refuse, before any work, an output path that cannot be a file to write.

    Parameters
    ----------
    path : str
        The file named by an option such as ``--out`` or ``--trace``.
    what : str
        What would be written, for the message (``"the plan"``, ``"the trace"``).

    Raises
    ------
    InputError
        If ``path`` names a directory (or ends with a separator), or its directory does not
        exist.
    """
    parent = os.path.dirname(path) or "."
    if path.endswith(os.sep) or os.path.isdir(path):
        raise InputError(f"cannot write {what}: this is a directory, not a file name",
                         file=path)
    if not os.path.isdir(parent):
        raise InputError(f"cannot write {what}: directory {parent!r} does not exist",
                         file=path)


def write_file(path: str, write, binary: bool = False) -> None:
    """Open ``path`` for writing and call ``write(file)``; an OS error becomes an InputError.

    Raises
    ------
    InputError
        If the file cannot be created (missing directory, a directory, no permission).
    """
    try:
        with open(path, "wb" if binary else "w") as f:
            write(f)
    except OSError as exc:
        raise InputError(f"cannot write the file: {exc.strerror or exc}", file=path) from None


# ----- shared helpers -------------------------------------------------------------------------

def sample_dir():
    """The sample_graphs/ directory (beside the package in a checkout)."""
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "sample_graphs"


def sample_names() -> list[str]:
    """Names of the sample graphs (file stems in sample_graphs/)."""
    return sorted(p.stem for p in sample_dir().glob("*.json"))


def resolve_graph_path(name: str) -> str:
    """A file path, or the name of a sample graph (``mlp`` or ``mlp.json``).

    Raises
    ------
    InputError
        If ``name`` is neither an existing path nor a sample's name (near names suggested).
    """
    import difflib
    import os

    if os.path.exists(name):
        return name
    stem = name[:-5] if name.endswith(".json") else name
    cand = sample_dir() / f"{stem}.json"
    if os.sep not in name and cand.exists():
        return str(cand)
    near = difflib.get_close_matches(stem, sample_names(), n=2)
    hint = (f"; did you mean the sample {' or '.join(near)}?" if near
            else f"; samples: {', '.join(sample_names())}")
    raise InputError(f"no such file or sample graph{hint}", file=name)


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _memory_mib(text: str) -> float:
    import math

    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of MiB >= 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="workbench",
        description="Fusion Workbench: see, explain and tune XLA-style operator fusion.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("inspect", help="summarise a graph file (HLO text or JSON)")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_inspect)

    s = sub.add_parser("eval", help="evaluate a graph with the reference interpreter")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--inputs", help="an .npz with arg0..argN (default: random inputs)")
    s.add_argument("--out", help="write out0..outM to this .npz")
    s.add_argument("--seed", type=_non_negative_int, default=0,
                   help="seed for random inputs (default: 0)")
    s.add_argument("--max-memory-mib", type=_memory_mib, default=4096,
                   help="refuse graphs whose live tensors exceed this many MiB (default: 4096; "
                        "0: no cap)")
    s.set_defaults(func=cmd_eval)

    for register in _EXTRA_COMMANDS:
        register(sub)
    for parser in (p, *sub.choices.values()):
        one_line_errors(parser)
    return p


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser`` report a bad argument on one line, as every other error is (no usage
    block; ``workbench COMMAND -h`` shows it), with exit status 2."""
    def error(message):
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} -h)\n")
    parser.error = error
    return parser


#: functions that add subcommands (filled by the planner, profiler and app modules below)
_EXTRA_COMMANDS: list = []


def _load_extra_commands() -> None:
    import importlib

    if _EXTRA_COMMANDS:
        return

    for mod in ("workbench.planner.cli_commands", "workbench.profiler.cli_commands",
                "workbench.app.cli_commands"):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name is None or not mod.startswith(exc.name):
                raise
            continue
        _EXTRA_COMMANDS.append(m.register)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (2 for a user error)."""
    _load_extra_commands()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: stop quietly, as Unix tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
