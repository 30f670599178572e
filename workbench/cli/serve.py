"""``workbench serve [FILE] [--host 127.0.0.1] [--port 8050] [--graph-dir DIR]``: start the Dash
workbench (:mod:`workbench.app`)."""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import sys
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


def serve_config(args, initial):
    """The app's configuration from ``serve``'s arguments: its address, the access token
    (made for a non-loopback address unless ``--no-token``), and the limits."""
    from workbench.app import AppConfig
    from workbench.app.security import is_loopback, new_token
    from workbench.cli.common import limits_of

    token = args.token
    if token is None and not is_loopback(args.host) and not args.no_token:
        token = new_token()
    return AppConfig(initial=initial, graph_files=graph_choices(initial, args.graph_dir),
                     host=args.host, port=args.port, token=token,
                     allow_hosts=tuple(args.allow_host or ()),
                     session_budget_bytes=int(args.session_budget_mib * 2**20),
                     max_sessions=args.max_sessions, profile_workers=args.profile_workers,
                     max_jobs=args.max_jobs, job_timeout_s=args.job_timeout,
                     job_memory_bytes=int(args.job_memory_mib * 2**20),
                     input_limits=limits_of(args), executor=args.executor,
                     ray_address=args.address)


def cmd_serve(args) -> int:
    """Start the app; it opens on FILE, or on the transformer block sample when none is given."""
    from workbench.app import create_app
    from workbench.app.security import is_loopback, quiet_request_handler
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
    config = serve_config(args, initial)
    if config.executor == "ray":
        print("connecting to " + (f"the Ray cluster at {config.ray_address}" if
                                  config.ray_address else "a local Ray (starting it)") + " …",
              flush=True)
    app = create_app(config)  # an unreachable Ray cluster: one line here, before serving
    app.services.start()     # the worker processes, spawned before any request is served
    if not args.no_calibrate and app.services.calibration.start():
        print("calibrating this machine's cpu profile in the background, once (several "
              "minutes; the Cost tab says so and predicts again when it is done; "
              "--no-calibrate skips it)", flush=True)
    app.services.warm(graph)  # planned before the first page asks (a big module: a minute)
    if not args.verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    url = f"http://{args.host}:{args.port}/"
    if config.token:
        url += f"?token={config.token}"
    print(f"Fusion Workbench on {url}  (Ctrl-C to stop)", flush=True)
    if not is_loopback(args.host):
        print(f"note: listening on {args.host}, beyond this machine: anyone who can reach "
              f"port {args.port} " + ("and has the token " if config.token else "")
              + "can use the workbench" + ("" if config.token else
                                           " (--no-token: no access token is asked for)"),
              flush=True)
    # SIGTERM (kill, a service manager, a benchmark's terminate) stops the server as Ctrl-C
    # does: the finally below closes the worker processes, and multiprocessing's exit
    # handler ends the background calibration (a daemon process), which would otherwise
    # outlive the server and probe for minutes
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        app.run(host=args.host, port=args.port, debug=False,
                request_handler=quiet_request_handler(), threaded=True)
    finally:
        app.services.close()
    return 0


#: the session store's defaults (workbench.app.state's SESSION_BUDGET_BYTES and MAX_SESSIONS;
#: written here so that building the parser does not import the app; a test compares them)
SESSION_BUDGET_BYTES, MAX_SESSIONS = 1 << 30, 256


def _positive(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def _exit_on_sigterm(signum, frame) -> None:
    """SIGTERM's handler in ``serve``: a normal exit (status 0), so cleanup runs."""
    sys.exit(0)


def register(subparsers) -> None:
    """Add ``serve`` to the command line."""
    from workbench.cli.common import int_at_least

    s = subparsers.add_parser("serve", help="start the workbench in the browser (Dash)")
    s.add_argument("file", nargs="?", help="a .hlo/.json file or a sample graph's name to open "
                   "(default: the transformer block sample); the .hlo/.json files beside it "
                   "are offered in the graph chooser")
    s.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1, "
                   "this machine only); another address makes an access token (see --token)")
    s.add_argument("--port", type=int, default=8050, help="port, 1-65535 (default 8050)")
    s.add_argument("--graph-dir", action="append", metavar="DIR",
                   help="also offer the .hlo/.json files in DIR (repeatable); the modules in "
                        "../shared/hlo beside the repository are offered when it exists")
    s.add_argument("--token", help="ask every request for this access token (default: none "
                   "on 127.0.0.1; a fresh one, printed in the address, on any other --host)")
    s.add_argument("--no-token", action="store_true",
                   help="do not ask for a token even on a non-loopback --host")
    s.add_argument("--allow-host", action="append", metavar="NAME",
                   help="also answer requests that name the server NAME (a DNS name it is "
                        "reached by; repeatable); others are refused (DNS-rebinding guard)")
    s.add_argument("--session-budget-mib", type=_positive,
                   default=SESSION_BUDGET_BYTES / 2**20,
                   help="estimated memory all sessions may hold; past it the least recently "
                        f"used are let go (default {SESSION_BUDGET_BYTES >> 20})")
    s.add_argument("--max-sessions", type=int_at_least(1), default=MAX_SESSIONS,
                   help=f"sessions kept at most (default {MAX_SESSIONS})")
    s.add_argument("--profile-workers", type=int_at_least(1), default=1,
                   help="compile & profile jobs running at once, each in its own worker "
                        "process (default 1: timings do not disturb each other)")
    s.add_argument("--max-jobs", type=int_at_least(1), default=8,
                   help="compile & profile jobs queued or running, all sessions (default 8; "
                        "one per session)")
    s.add_argument("--job-timeout", type=_positive, default=600.0,
                   help="seconds a compile & profile job may run before it is stopped "
                        "(default 600)")
    s.add_argument("--job-memory-mib", type=_positive, default=3072.0,
                   help="resident memory a profile worker may use before its job is stopped "
                        "(default 3072)")
    s.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where compile & profile jobs and Tune measure: local worker "
                        "processes (default), or Ray tasks (a local Ray on this machine, or "
                        "the cluster at --address; needs the [ray] extra)")
    s.add_argument("--address", metavar="HOST:PORT",
                   help="the Ray cluster to send jobs to (with --executor ray; `ray start "
                        "--head` on the head node prints it)")
    s.add_argument("--no-calibrate", action="store_true",
                   help="do not calibrate an uncalibrated cpu profile in the background "
                        "(also: WORKBENCH_NO_CALIBRATE=1); predictions then use the quick "
                        "probe's roofline terms")
    s.add_argument("--verbose", action="store_true",
                   help="log every request the server answers")
    s.set_defaults(func=cmd_serve)
