"""``workbench capture FILE.py:FUNCTION --args ARGS.npz`` and ``workbench dump DIR``: real models
in, as the files every other command reads.

``capture`` runs the user's own code (it imports ``FILE.py`` and jits ``FUNCTION`` with jax):
only this command does that, and only on the machine it runs on; the web server never runs an
uploaded file. ``dump`` lists the modules of an XLA dump folder (``--xla_dump_to``); any command
opens one of them as ``DIR:NUMBER`` or ``DIR:NAME`` (``DIR`` alone when it holds one module).
"""

from __future__ import annotations

import json

from workbench.fmt import plural


def cmd_capture(args) -> int:
    from workbench.importers.capture import capture

    res = capture(args.target, args.args, args.out, args.name)
    if args.json:
        print(json.dumps(dict(name=res.name, files=res.files, args=res.args,
                              outputs=res.outputs, instructions_before=res.instructions_before,
                              instructions_after=res.instructions_after, notes=res.notes),
                         indent=1))
        return 0
    print(f"captured {res.name}: {plural(res.args, 'input')}, {plural(res.outputs, 'output')}; "
          f"{res.instructions_before} instructions before optimisation, "
          f"{res.instructions_after} after (XLA:CPU, no YNNPACK fusions)")
    for what, path in res.files.items():
        print(f"  {what:12s} {path}")
    for note in res.notes:
        print(f"note: {note}")
    return 0


def cmd_dump(args) -> int:
    from workbench.importers import list_dump
    from workbench.importers.capture import count_instructions

    mods = list_dump(args.dir)
    rows = []
    for m in mods:
        counts = {}
        for stage, f in m.files.items():
            with open(f, encoding="utf-8", errors="replace") as fh:
                counts[stage] = count_instructions(fh.read())
        rows.append(dict(number=m.number, name=m.name, files=m.files, instructions=counts,
                         open=f"{args.dir.rstrip('/')}:{int(m.number)}"))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{args.dir}: {plural(len(rows), 'module')} (open one as DIR:NUMBER or DIR:NAME)")
    for r in rows:
        counts = ", ".join(f"{k} {v}" for k, v in r["instructions"].items())
        print(f"  {r['open']:40s} {r['name']}  ({counts} instructions)")
    return 0


def register(sub) -> None:
    """Add ``capture`` and ``dump`` to the command line."""
    s = sub.add_parser("capture", help="jit a JAX function and write its HLO (before, "
                                       "after_noynn), StableHLO and inputs/outputs")
    s.add_argument("target", metavar="FILE.py:FUNCTION",
                   help="the function to capture (this imports and runs FILE.py)")
    s.add_argument("--args", required=True, metavar="ARGS.npz",
                   help="the function's arguments: arrays arg0..argN")
    s.add_argument("--out", metavar="DIR", help="where to write (default: here)")
    s.add_argument("--name", help="the files' stem (default: the function's name)")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_capture)

    s = sub.add_parser("dump", help="list the modules of an XLA dump folder (--xla_dump_to)")
    s.add_argument("dir", help="the folder")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_dump)
