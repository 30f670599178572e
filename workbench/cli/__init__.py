"""The command line: the headless twin of the app. Only this package knows argparse.

One module per command group, each with a ``register(subparsers)`` function:
:mod:`~workbench.cli.graph` (``inspect``, ``eval``), :mod:`~workbench.cli.plan` (``plan``,
``compare-xla``, ``devices``), :mod:`~workbench.cli.diff` (``diff``), :mod:`~workbench.cli.run`
(``run``), :mod:`~workbench.cli.tune` (``tune``, ``sweep``), :mod:`~workbench.cli.export`
(``export``), :mod:`~workbench.cli.capture` (``capture``, ``dump``), :mod:`~workbench.cli.serve`
(``serve``), :mod:`~workbench.cli.learn` (``learn``). A command parses its arguments, calls the
core's public functions and formats their
values for the terminal (:mod:`~workbench.cli.plan_text`, :mod:`~workbench.cli.report_text`).
Nothing imports this package but ``workbench/__main__.py`` and the ``workbench`` script.

Every user error is a :class:`~workbench.errors.WorkbenchError`: it is printed on one line and
the exit status is 2.
"""

from __future__ import annotations

import argparse
import sys

from workbench.cli import capture, diff, export, graph, learn, plan, run, serve, tune
from workbench.cli.common import (READS_GRAPHS, add_limit_args, limits_of, one_line_errors,
                                  state_defaults)
from workbench.errors import WorkbenchError

#: the command groups, in the order ``workbench --help`` lists their commands
COMMAND_GROUPS = (graph, plan, diff, run, tune, export, capture, serve, learn)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="workbench",
        description="Fusion Workbench: see, explain and tune XLA-style operator fusion.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    for group in COMMAND_GROUPS:
        group.register(sub)
    for name in READS_GRAPHS:
        add_limit_args(sub.choices[name])
    for parser in (p, *sub.choices.values()):
        one_line_errors(state_defaults(parser))
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit status (2 for a user error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if args.command in READS_GRAPHS:
        from workbench.importers import limits

        limits.set_default(limits_of(args))
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory: the input needs more than this machine (or its limit) "
              "has; see --max-memory-mib and the input limits (workbench COMMAND -h)",
              file=sys.stderr)
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
