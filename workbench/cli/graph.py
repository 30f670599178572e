"""``workbench inspect FILE`` and ``workbench eval FILE``: what a graph is, and what it computes
with the reference interpreter."""

from __future__ import annotations

import json

from workbench.cli.common import (check_out_path, int_at_least, load_graph_arg, max_bytes, mib,
                                  write_file)
from workbench.errors import WorkbenchError
from workbench.fmt import fmt_bytes, plural


def _print_inspection(info: dict) -> None:
    print(f"graph {info['name']}  ({info['source']})")
    if info.get("description"):
        print(f"  {info['description']}")
    print(f"nodes: {info['nodes']}")
    print("by category: " + ", ".join(f"{k} {v}" for k, v in info["categories"].items()))
    print("by op:       " + ", ".join(f"{k} {v}" for k, v in info["ops"].items()))
    print(f"inputs ({len(info['inputs'])}, {fmt_bytes(info['parameter_bytes'])}):")
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
            print(f"  {f['name']} [{f['kind']}] {plural(len(f['ops']), 'op')}: "
                  f"{', '.join(f['ops'])}")


def cmd_inspect(args) -> int:
    from workbench.ir.summary import inspect_graph

    graph = load_graph_arg(args.file)
    info = inspect_graph(graph)
    if args.json:
        print(json.dumps(info, indent=1))
    else:
        _print_inspection(info)
    return 0


def cmd_eval(args) -> int:
    import numpy as np

    from workbench.importers.inputs import load_inputs
    from workbench.ir import evaluate, make_inputs
    from workbench.ir.interpreter import check_memory

    out = None
    if args.out:
        check_out_path(args.out, "the outputs")      # before any work (a directory: refused)
        out = args.out if str(args.out).endswith(".npz") else f"{args.out}.npz"
        check_out_path(out, "the outputs")
    graph = load_graph_arg(args.file)
    cap = max_bytes(args.max_memory_mib)
    try:
        check_memory(graph, cap)             # before any input is allocated
    except WorkbenchError as exc:            # the file too: the node alone names no place
        exc.file = exc.file or str(args.file)
        raise
    inputs = (load_inputs(args.inputs, graph, cap) if args.inputs
              else make_inputs(graph, seed=args.seed, max_bytes=cap))
    outs = evaluate(graph, inputs, max_bytes=cap)
    for i, (o, oid) in enumerate(zip(outs, graph.outputs)):
        flat = np.asarray(o).ravel()
        head = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in flat[:4].tolist())
        dtype = graph.node(oid).type.dtype
        print(f"out{i} {oid}: {dtype}{list(o.shape)} [{head}{', ...' if flat.size > 4 else ''}]")
    if out:
        write_file(out, lambda f: np.savez(f, **{f"out{i}": o for i, o in enumerate(outs)}),
                   binary=True, what="the outputs")
        print(f"wrote {len(outs)} output(s) to {out}")
    return 0


def register(sub) -> None:
    """Add ``inspect`` and ``eval`` to the command line."""
    s = sub.add_parser("inspect", help="summarise a graph file (HLO text or JSON)")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_inspect)

    s = sub.add_parser("eval", help="evaluate a graph with the reference interpreter")
    s.add_argument("file", help="a .hlo/.json file, or a sample graph's name")
    s.add_argument("--inputs", help="an .npz with arg0..argN (default: random inputs)")
    s.add_argument("--out", help="write out0..outM to this .npz")
    s.add_argument("--seed", type=int_at_least(0), default=0,
                   help="seed for random inputs (default: 0)")
    s.add_argument("--max-memory-mib", type=mib, default=4096,
                   help="refuse graphs whose live tensors exceed this many MiB (default: 4096; "
                        "0: no cap)")
    s.set_defaults(func=cmd_eval)
