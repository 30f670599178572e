"""``workbench serve [FILE] [--host 127.0.0.1] [--port 8050]``: start the Dash workbench."""

from __future__ import annotations

import os


def cmd_serve(args) -> int:
    """Start the app; it opens on FILE, or on the transformer block sample when none is given."""
    from workbench.app import AppConfig, create_app
    from workbench.app.server import files_near, graph_files_in
    from workbench.cli import resolve_graph_path
    from workbench.importers import load_graph

    initial = None
    files: list[str] = []
    if args.file:
        initial = os.path.abspath(resolve_graph_path(args.file))
        load_graph(initial)  # a bad file is reported on the command line, before serving
        files = files_near(initial)
    for d in args.graph_dir or ():
        files += [f for f in graph_files_in(d) if f not in files]
    app = create_app(AppConfig(initial=initial, graph_files=files))
    print(f"Fusion Workbench on http://{args.host}:{args.port}/  (Ctrl-C to stop)")
    app.run(host=args.host, port=args.port, debug=False)
    return 0


def register(subparsers) -> None:
    """Add ``serve`` to the command line."""
    s = subparsers.add_parser("serve", help="start the workbench in the browser (Dash)")
    s.add_argument("file", nargs="?", help="a .hlo/.json file or a sample graph's name to open "
                   "(default: the transformer block sample); the .hlo/.json files beside it "
                   "are offered in the graph chooser")
    s.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1, "
                   "this machine only)")
    s.add_argument("--port", type=int, default=8050, help="port (default 8050)")
    s.add_argument("--graph-dir", action="append", metavar="DIR",
                   help="also offer the .hlo/.json files in DIR (repeatable)")
    s.set_defaults(func=cmd_serve)
