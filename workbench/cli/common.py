"""What every command shares: naming a graph (a path or a sample), output paths checked before
the work, and argparse value types that report a bad value on one line."""

from __future__ import annotations

import argparse
import math
import os

from workbench.errors import InputError
from workbench.paths import sample_dir, sample_names


def resolve_graph_path(name: str) -> str:
    """A file path, or the name of a sample graph (``mlp`` or ``mlp.json``).

    Raises
    ------
    InputError
        If ``name`` is neither an existing path nor a sample's name (near names suggested).
    """
    import difflib

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


def load_graph_arg(name: str):
    """Load the graph a command names: a file path, a sample's name, an XLA dump folder that
    holds one module, or ``DIR:NUMBER`` / ``DIR:NAME`` for one module of a dump folder
    (``workbench dump DIR`` lists them).

    Raises
    ------
    InputError, GraphError
        If there is no such file, sample or module, or the file is not a valid graph.
    """
    from workbench.importers import load_dump, load_graph

    folder, sep, module = name.rpartition(":")
    if sep and folder and os.path.isdir(folder) and not os.path.exists(name):
        return load_dump(folder, module)
    return load_graph(resolve_graph_path(name))


def check_out_path(path: str, what: str) -> None:
    """Refuse, before any work, an output path that cannot be a file to write
    (:func:`workbench.files.check_writable`: a directory, a FIFO or device, a missing
    directory).

    Raises
    ------
    InputError
    """
    from workbench.files import check_writable

    check_writable(path, what)


def write_file(path: str, write, binary: bool = False, what: str = "the file") -> None:
    """Write ``path`` atomically (:func:`workbench.files.atomic_write`): ``write(file)``
    fills a temporary file that then replaces ``path``, so a failure leaves nothing
    half-written and an existing file as it was.

    Raises
    ------
    InputError
        If the file cannot be created (missing directory, a directory, no permission).
    """
    from workbench.files import atomic_write

    atomic_write(path, write, binary, what)


def int_at_least(low: int):
    """An argparse type: a whole number >= ``low`` (a bad value is one line, exit status 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value
    return parse


def mib(text: str) -> float:
    """An argparse type: a finite number of MiB >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of MiB, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of MiB >= 0, got {text}")
    return value


def max_bytes(max_memory_mib: float) -> int | None:
    """``--max-memory-mib`` in bytes; 0 means no cap (``None``)."""
    return int(max_memory_mib * 2**20) if max_memory_mib else None


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """``-h`` help that says each option's default, ``(default: 20)`` after its help, unless
    the help says it already or there is none worth saying (``None``, a flag's ``False``, an
    empty value). Unlike :class:`argparse.ArgumentDefaultsHelpFormatter` it never prints
    ``(default: None)`` or a default twice."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (not action.option_strings or "default" in text or default is argparse.SUPPRESS
                or default is None or default is False or default in ("", (), [])):
            return text
        return f"{text} (default: %(default)s)"


def state_defaults(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser``'s ``-h`` say its options' defaults (:class:`DefaultsHelpFormatter`)."""
    parser.formatter_class = DefaultsHelpFormatter
    return parser


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make ``parser`` report a bad argument on one line, as every other error is (no usage
    block; ``workbench COMMAND -h`` shows it), with exit status 2."""
    def error(message):
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} -h)\n")
    parser.error = error
    return parser


#: the commands that read a graph, and so take the input limits' flags
READS_GRAPHS = ("inspect", "eval", "plan", "compare-xla", "diff", "run", "tune", "sweep", "export",
                "serve")

_LIMIT_HELP = {
    "max_file_bytes": "bytes of a graph file",
    "max_instructions": "nodes of a graph (calls inlined, nested computations included)",
    "max_rank": "dimensions of a shape",
    "max_elements": "elements of one shape",
    "max_constant_elements": "values written in one constant",
    "max_nesting": "depth of nested computations, tuples and JSON",
}


def add_limit_args(parser: argparse.ArgumentParser) -> None:
    """The input limits' flags (:mod:`workbench.importers.limits`), in their own group."""
    from dataclasses import fields

    from workbench.importers.limits import FLAGS, Limits

    group = parser.add_argument_group(
        "input limits", "an input past one is refused, naming the limit, the value and where")
    for f in fields(Limits):
        group.add_argument(FLAGS[f.name], type=int_at_least(1), default=None, metavar="N",
                           help=f"{_LIMIT_HELP[f.name]} (default {f.default:,})")


def limits_of(args):
    """The :class:`~workbench.importers.limits.Limits` the flags ask for."""
    from dataclasses import fields

    from workbench.importers.limits import Limits

    return Limits().with_(**{f.name: getattr(args, f.name, None) for f in fields(Limits)})


def add_calibrate_arg(parser: argparse.ArgumentParser) -> None:
    """``--no-calibrate`` (see :func:`calibrate_first`)."""
    parser.add_argument("--no-calibrate", action="store_true",
                        help="do not calibrate an uncalibrated cpu profile first (several "
                             "minutes, once per machine); predictions then use the quick "
                             "probe's roofline terms (also: WORKBENCH_NO_CALIBRATE=1)")


def calibrate_first(args, device: str | None) -> str | None:
    """Before a command predicts CPU times: calibrate this machine's ``cpu`` profile when it is
    not calibrated yet (:func:`~workbench.profiler.first_use.ensure_calibrated`), with a note
    on standard error and one progress line (rewritten in place on a terminal). Nothing for
    another device, with ``--no-calibrate`` or with ``WORKBENCH_NO_CALIBRATE=1``. Returns what
    :func:`ensure_calibrated` returned, or None when it was not called.

    Raises
    ------
    OSError
        If the profile cannot be written to the workbench's cache directory.
    """
    import sys
    import time

    from workbench.profiler.first_use import disabled, ensure_calibrated, needs_calibration

    if (device or "").split("+")[0] != "cpu" or getattr(args, "no_calibrate", False) \
            or disabled() or not needs_calibration():
        return None
    tty = sys.stderr.isatty()
    start = time.perf_counter()

    def note(text):
        print(text, file=sys.stderr, flush=True)

    def progress(stage, k, n, message):
        if tty:
            print(f"\r  {message[:96]:<96}", end="", file=sys.stderr, flush=True)

    done = ensure_calibrated(progress, note)
    if tty:
        print("\r" + " " * 100 + "\r", end="", file=sys.stderr)
    if done == "calibrated":
        from workbench.costmodel.devices import cpu_profile_path

        print(f"calibrated in {time.perf_counter() - start:.0f} s; stored in "
              f"{cpu_profile_path()}", file=sys.stderr, flush=True)
    return done
