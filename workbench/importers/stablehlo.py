"""StableHLO (MLIR text) through jaxlib's own StableHLO -> HLO conversion.

``jax.jit(f).lower(x).as_text()`` prints StableHLO, an MLIR dialect (``module @jit_f ...
{ func.func public @main(...) ... }``), not HLO. The workbench does not parse MLIR itself: it
hands the text to jaxlib (``mlir_module_to_xla_computation``, the conversion JAX itself uses
to build an XLA computation from its lowering), prints the result as HLO text (large
constants in full) and imports that with :func:`workbench.importers.hlo.parse_hlo`. jax is
imported only here, only when a StableHLO file is loaded; without it the error says what to
install. Converting never executes anything: jaxlib parses and translates the module.

Line numbers in errors after the conversion refer to the converted HLO text, whose file is
named ``FILE (as HLO)``; syntax errors in the MLIR itself carry jaxlib's line and column.
"""

from __future__ import annotations

import re

from workbench.errors import MissingDependencyError, ParseError

#: how to get the converter
INSTALL_HINT = ("loading StableHLO (MLIR) needs jaxlib: pip install 'fusion-workbench[jax]' "
                "(or: pip install jax jaxlib)")

_MLIR_START = re.compile(r"^\s*(//[^\n]*\n\s*|#[^\n]*\n\s*)*(module\b|func\.func\b)")
_MLIR_LOC = re.compile(r"(?:-|<unknown>|[^:\s]*):(\d+):(\d+): error: ([^\n]*)")


def looks_like_stablehlo(text: str) -> bool:
    """True for MLIR text: it starts with ``module`` (``module @jit_f``) or ``func.func``."""
    return bool(_MLIR_START.match(text[:4096]))


def _converter():
    try:
        from jax._src.lib import _jax  # jaxlib >= 0.7
        return _jax.mlir.mlir_module_to_xla_computation
    except (ImportError, AttributeError):
        pass
    try:
        from jax._src.lib import xla_client  # older jaxlib
        return xla_client._xla.mlir.mlir_module_to_xla_computation
    except (ImportError, AttributeError):
        raise MissingDependencyError(INSTALL_HINT) from None


def stablehlo_to_hlo_text(text: str, file: str = "<mlir>") -> str:
    """Convert StableHLO (or MHLO) MLIR text to HLO text with jaxlib.

    Parameters
    ----------
    text : str
        The MLIR module, as ``jax.jit(f).lower(...).as_text()`` prints it.
    file : str
        For error messages.

    Returns
    -------
    str
        HLO module text (``HloModule ...``), large constants printed in full.

    Raises
    ------
    MissingDependencyError
        Without jax/jaxlib (the message says what to install).
    ParseError
        When jaxlib cannot parse or convert the module (its first error, with line and column
        in the MLIR text when it gives them).
    """
    convert = _converter()
    try:
        comp = convert(text, use_tuple_args=False, return_tuple=False)
    except Exception as exc:  # jaxlib raises its own runtime error type
        msg = str(exc)
        m = _MLIR_LOC.search(msg)
        if m:
            raise ParseError(f"StableHLO: {m.group(3).strip()}", file=file,
                             line=int(m.group(1)), column=int(m.group(2))) from None
        first = next((ln.strip() for ln in msg.splitlines() if ln.strip()), type(exc).__name__)
        raise ParseError(f"jaxlib could not convert this StableHLO module: {first}"[:400],
                         file=file) from None
    try:
        return comp.as_hlo_text(print_large_constants=True)
    except TypeError:  # an older jaxlib without the keyword
        return comp.as_hlo_text()


def parse_stablehlo(text: str, file: str = "<mlir>"):
    """Import StableHLO MLIR text as a verified graph (see the module notes).

    Raises
    ------
    MissingDependencyError, ParseError, GraphError
    """
    from workbench.importers.hlo import parse_hlo

    hlo = stablehlo_to_hlo_text(text, file)
    graph = parse_hlo(hlo, f"{file} (as HLO)")
    # nodes' lines are lines of the converted HLO text: errors name that text, not the .mlir
    meta = graph.meta.set(source=file, format="stablehlo", hlo_stage="before",
                          lines_of=f"{file} (as HLO)")
    return graph.replace(meta=meta)
