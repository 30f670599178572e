"""Capture a JAX function as the files every other command reads (``workbench capture``).

``capture("model.py:train_step", "args.npz", out_dir)`` imports ``model.py`` (this *runs the
user's code*: only the command line does it, on the user's own machine, when asked; the web
server never calls this module), jits ``train_step`` with jax on the arrays ``arg0..argN`` of
the ``.npz`` and writes, under ``out_dir``:

- ``NAME.before.hlo``: the HLO JAX lowers (``lower(...).as_text(dialect="hlo")``);
- ``NAME.after_noynn.hlo``: XLA:CPU's optimised module, compiled with
  ``XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=``. "noynn": XLA:CPU otherwise hands
  dots, convolutions and some reductions to YNNPACK as ``kind=kCustom`` "__ynn_fusion" calls;
  with the flag empty every fusion is a plain XLA fusion whose ops are in its ``calls=``
  computation, which is what the workbench compares its plans with. Large constants are
  printed in full (``as_text`` elides them as ``{...}``);
- ``NAME.mlir``: the StableHLO text (``lower(...).as_text()``);
- ``NAME.io.npz``: the inputs ``arg0..argN`` and the outputs ``out0..outM`` jax computed.

jax is imported here only, when a capture is asked for. The flag must be in ``XLA_FLAGS``
before jax creates its CPU client; :func:`capture` sets it first thing, and says so in its
notes when a client already existed without it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.errors import CaptureError, InputError, MissingDependencyError

NOYNN_FLAG = "--xla_cpu_experimental_ynn_fusion_type="
INSTALL_HINT = "workbench capture needs jax: pip install 'fusion-workbench[jax]'"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


@dataclass
class CaptureResult:
    """What a capture wrote.

    Attributes
    ----------
    name : str
        The files' stem.
    files : dict
        ``before``, ``after_noynn``, ``mlir``, ``io`` -> path.
    instructions_before, instructions_after : int
        Instruction lines of the two HLO modules.
    args, outputs : int
        Numbers of flattened inputs and outputs.
    notes : list of str
    """

    name: str
    files: dict
    instructions_before: int
    instructions_after: int
    args: int
    outputs: int
    notes: list = field(default_factory=list)


def set_noynn_flag() -> bool:
    """Put ``--xla_cpu_experimental_ynn_fusion_type=`` into ``XLA_FLAGS``; False when jax's
    CPU client already exists (the flag then no longer applies in this process)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if NOYNN_FLAG not in flags.split():
        os.environ["XLA_FLAGS"] = (flags + " " + NOYNN_FLAG).strip()
    bridge = sys.modules.get("jax._src.xla_bridge")
    backends = getattr(bridge, "_backends", None) if bridge else None
    return not backends or NOYNN_FLAG in flags.split()


def _jax():
    try:
        import jax
    except ImportError:
        raise MissingDependencyError(INSTALL_HINT) from None
    return jax


def count_instructions(text: str) -> int:
    """Instruction lines (``name = type opcode(...)``) of HLO module text, all computations."""
    n = 0
    for line in text.splitlines():
        s = line.strip()
        if " = " in s and not s.startswith(("HloModule", "//")) and "{" not in s.split(" = ")[0]:
            n += 1
    return n


def optimised_text(compiled) -> str:
    """The optimised module of a ``jax.stages.Compiled``, large constants in full."""
    try:
        import jaxlib._hlo as hlo

        opts = hlo.HloPrintOptions()
        opts.print_large_constants = True
        return compiled.runtime_executable().hlo_modules()[0].to_string(opts)
    except (ImportError, AttributeError, IndexError):  # another jaxlib: the default text
        return compiled.as_text()


def _user_frame(exc: BaseException, user_file: str | None) -> str:
    if not user_file:
        return ""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.abspath(f.filename) == os.path.abspath(user_file)]
    if not frames:
        return ""
    return f" (at {os.path.basename(user_file)}:{frames[-1].lineno})"


def _one_line(what: str, exc: BaseException, user_file: str | None = None) -> CaptureError:
    text = str(exc).strip().splitlines()
    first = text[0].strip() if text else ""
    msg = f"{what} raised {type(exc).__name__}{': ' + first if first else ''}"
    return CaptureError((msg + _user_frame(exc, user_file))[:500], file=user_file)


def write_capture(fn, args, name: str, out_dir, *, user_file: str | None = None
                  ) -> CaptureResult:
    """Jit ``fn`` on ``args`` and write the four files (see the module notes).

    Parameters
    ----------
    fn : callable
        A JAX-traceable function.
    args : sequence
        Its positional arguments (arrays or pytrees of arrays).
    name : str
        The files' stem.
    out_dir : path
        Where to write (created if missing).
    user_file : str, optional
        The file ``fn`` came from, to name the line in an error.

    Raises
    ------
    CaptureError
        If tracing, lowering, compiling or running the function raises: the user's exception
        on one line.
    MissingDependencyError
        Without jax.
    """
    jax = _jax()
    ok = set_noynn_flag()
    what = getattr(fn, "__name__", "the function")
    try:
        lowered = jax.jit(fn).lower(*args)
        before = lowered.as_text(dialect="hlo")
        mlir = lowered.as_text()
        compiled = lowered.compile()
        after = optimised_text(compiled)
        outs = jax.tree_util.tree_leaves(compiled(*args))
    except Exception as exc:  # the user's code raised: report it, one line
        raise _one_line(what, exc, user_file) from None
    flat = jax.tree_util.tree_leaves(args)
    out = out_folder(out_dir)
    files = {"before": out / f"{name}.before.hlo", "after_noynn": out / f"{name}.after_noynn.hlo",
             "mlir": out / f"{name}.mlir", "io": out / f"{name}.io.npz"}
    io, notes = _as_jax_saw_them(jax, flat)
    io.update({f"out{i}": np.asarray(o) for i, o in enumerate(outs)})
    try:
        files["before"].write_text(before)
        files["after_noynn"].write_text(after)
        files["mlir"].write_text(mlir)
        np.savez_compressed(files["io"], **io)
    except OSError as exc:
        raise InputError(f"cannot write the captured files: {exc.strerror or exc}",
                         file=os.fspath(out)) from None
    if not ok or "__ynn_fusion" in after:
        notes.append("jax's CPU client existed before the capture set "
                     f"XLA_FLAGS={NOYNN_FLAG}: the optimised module may hold YNNPACK fusions")
    return CaptureResult(name, {k: str(v) for k, v in files.items()},
                         count_instructions(before), count_instructions(after), len(flat),
                         len(outs), notes)


def out_folder(out_dir) -> Path:
    """The folder the captured files go to, created if missing.

    Raises
    ------
    InputError
        If it cannot be made or written (a file of that name, no permission, ...).
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = "a file of that name exists" if isinstance(exc, FileExistsError) else (
            exc.strerror or str(exc))
        raise InputError(f"cannot make the output folder: {why}", file=os.fspath(out)) from None
    if not os.access(out, os.W_OK):
        raise InputError("cannot write the output folder: permission denied",
                         file=os.fspath(out))
    return out


def _as_jax_saw_them(jax, flat) -> tuple[dict, list]:
    """``arg0..argN`` in the dtypes jax computed with (float64 and int64 become float32 and
    int32 unless ``jax_enable_x64``), so that the io file fits the modules' parameters; a note
    for each argument converted."""
    io, notes = {}, []
    for i, a in enumerate(flat):
        a = np.asarray(a)
        want = np.dtype(jax.dtypes.canonicalize_dtype(a.dtype))
        if want != a.dtype:
            notes.append(f"arg{i} is {a.dtype}; jax computes with it as {want} (jax_enable_x64 "
                         f"is off), and {want} is what the io file holds")
            a = a.astype(want)
        io[f"arg{i}"] = a
    return io, notes


def parse_target(spec: str) -> tuple[str, str]:
    """``FILE.py:FUNCTION`` -> (file, function).

    Raises
    ------
    InputError
        If the spec has no ``:FUNCTION``, the file is missing or not a ``.py`` file.
    """
    path, sep, func = spec.rpartition(":")
    if not sep or not path or not func.isidentifier():
        raise InputError(f"expected FILE.py:FUNCTION, got {spec!r}")
    if not path.endswith(".py"):
        raise InputError("the file must be a Python file (FILE.py:FUNCTION)", file=path)
    if not os.path.isfile(path):
        raise InputError("no such file", file=path)
    return path, func


def load_function(path: str, func: str):
    """Import ``path`` (running it) and return its ``func``.

    Raises
    ------
    CaptureError
        If importing the file raises (the user's exception, one line).
    InputError
        If the file has no callable of that name.
    """
    mod_name = f"_workbench_capture_{abs(hash(os.path.abspath(path)))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise InputError("cannot import this file", file=path)
    module = importlib.util.module_from_spec(spec)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    sys.modules[mod_name] = module          # dataclasses and pickling look the module up
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's module raised while importing
        sys.modules.pop(mod_name, None)
        raise _one_line(f"importing {os.path.basename(path)}", exc, path) from None
    finally:
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
    fn = getattr(module, func, None)
    if not callable(fn):
        names = sorted(n for n, v in vars(module).items() if callable(v) and not
                       n.startswith("_") and getattr(v, "__module__", None) == mod_name)
        hint = f" (functions here: {', '.join(names[:10])})" if names else ""
        raise InputError(f"has no function {func!r}{hint}", file=path)
    return fn


def load_args(path) -> list[np.ndarray]:
    """The arrays ``arg0..argN`` of an ``.npz``, in order (``outN`` keys are ignored).

    Raises
    ------
    InputError
        If the file cannot be read (missing, not an ``.npz``, a single ``.npy``, pickled
        objects: :func:`workbench.importers.inputs.load_inputs`), has no ``argN`` keys, skips
        a number, or holds an array numpy saved as raw bytes (``|V2``: a bf16 array; save it
        as float32 or uint16 bits).
    """
    from workbench.importers.inputs import load_inputs

    arrays = load_inputs(os.fspath(path))   # strict: a single .npy, junk, pickles refused
    keys = sorted((int(k[3:]), k) for k in arrays if re.fullmatch(r"arg\d+", k))
    if not keys:
        raise InputError("the .npz holds no arrays named arg0, arg1, ...", file=os.fspath(path))
    if [i for i, _ in keys] != list(range(len(keys))):
        lost = sorted(set(range(keys[-1][0] + 1)) - {i for i, _ in keys})
        raise InputError(f"the arguments must be arg0, arg1, ... without gaps: "
                         f"{', '.join(f'arg{i}' for i in lost[:5])} missing",
                         file=os.fspath(path))
    out = []
    for _, k in keys:
        a = arrays[k]
        if a.dtype.kind == "V":
            raise InputError(f"{k} is raw {a.dtype} bytes (how numpy saves bf16): save it as "
                             "float32 and convert inside the function", file=os.fspath(path))
        out.append(a)
    return out


def capture(target: str, args_path, out_dir=None, name: str | None = None) -> CaptureResult:
    """Capture ``FILE.py:FUNCTION`` on the arguments in ``args_path`` (see the module notes).

    Parameters
    ----------
    target : str
        ``FILE.py:FUNCTION``.
    args_path : path
        An ``.npz`` with ``arg0..argN``.
    out_dir : path, optional
        Where to write (default: the current folder).
    name : str, optional
        The files' stem (default: the function's name).

    Raises
    ------
    InputError, CaptureError, MissingDependencyError
    """
    path, func = parse_target(target)
    _jax()
    set_noynn_flag()
    args = load_args(args_path)
    name = name or func
    if not _NAME.match(name):
        raise InputError(f"{name!r} is not a usable file name (letters, digits, _ . -)")
    made = not Path(out_dir or ".").exists()
    out = out_folder(out_dir or ".")        # before any of the user's code runs
    try:
        fn = load_function(path, func)
        return write_capture(fn, args, name, out, user_file=path)
    except BaseException:
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()                     # nothing written on failure: not even the folder
        raise
