"""``workbench serve [FILE] [--host 127.0.0.1] [--port 8050] [--graph-dir DIR]``: start the Dash
workbench (:mod:`workbench.app`)."""

from __future__ import annotations

import errno
import logging
import os
import socket
from pathlib import Path

from workbench.errors import InputError

#: ports a server can listen on
PORTS = range(1, 65536)


def shared_hlo_dir() -> Path:
    """``../shared/hlo`` beside the repository: the real XLA modules the README points at."""
    return Path(__file__).resolve().parents[3] / "shared" / "hlo"


def check_port(host: str, port: int) -> None:
    """Make sure the server can listen on ``host:port`` before saying where it is.

    Raises
    ------
    InputError
        If the port is outside 1-65535, the host is unknown, or the port is taken; the message
        suggests ``--port``.
    """
    if port not in PORTS:
        raise InputError(f"--port {port}: a port is a number from 1 to 65535 (default 8050)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(f"--host {host}: unknown host ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Flask's server does
        try:
            s.bind(address)
        except OSError as exc:
            why = ("is in use" if exc.errno == errno.EADDRINUSE
                   else f"cannot be used ({exc.strerror})")
            raise InputError(f"port {port} on {host} {why}; choose another with --port "
                             f"(e.g. --port {port + 1 if port < 65535 else 8050})") from None


def graph_choices(initial: str | None, graph_dirs) -> list[str]:
    """The files the graph chooser offers besides the samples: ``initial`` and the files beside
    it, those in each of ``graph_dirs``, and, when ``../shared/hlo`` exists beside the
    repository, its modules."""
    from workbench.app.server import files_near, graph_files_in

    files: list[str] = files_near(initial) if initial else []
    dirs = list(graph_dirs or ())
    if shared_hlo_dir().is_dir():
        dirs.append(str(shared_hlo_dir()))
    for d in dirs:
        files += [f for f in graph_files_in(d) if f not in files]
    return files


def cmd_serve(args) -> int:
    """Start the app; it opens on FILE, or on the transformer block sample when none is given."""
    from workbench.app import AppConfig, create_app
    from workbench.cli.common import resolve_graph_path
    from workbench.importers import load_graph

    check_port(args.host, args.port)
    initial = graph = None
    if args.file:
        initial = os.path.abspath(resolve_graph_path(args.file))
        graph = load_graph(initial)  # a bad file is reported on the command line, before serving
    for d in args.graph_dir or ():
        if not Path(d).is_dir():
            raise InputError(f"--graph-dir {d}: not a directory")
    app = create_app(AppConfig(initial=initial, graph_files=graph_choices(initial,
                                                                          args.graph_dir)))
    app.services.warm(graph)  # planned before the first page asks (a big module: a minute)
    if not args.verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    print(f"Fusion Workbench on http://{args.host}:{args.port}/  (Ctrl-C to stop)", flush=True)
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
    s.add_argument("--port", type=int, default=8050, help="port, 1-65535 (default 8050)")
    s.add_argument("--graph-dir", action="append", metavar="DIR",
                   help="also offer the .hlo/.json files in DIR (repeatable); the modules in "
                        "../shared/hlo beside the repository are offered when it exists")
    s.add_argument("--verbose", action="store_true",
                   help="log every request the server answers")
    s.set_defaults(func=cmd_serve)
