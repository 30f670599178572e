"""The literal of an HLO ``constant``, read strictly, as XLA's own parser reads it.

A constant's literal is its value as XLA prints it: a bare number for a scalar (``f32[]
constant(0.5)``, ``pred[] constant(true)``), and for an array braces nested exactly as deep as
its rank, each level holding exactly as many items as its dimension (``f32[2,2]
constant({ {1, 2}, {3, -inf} })``; ``f32[0] constant({})``). :func:`parse_literal` walks the
text once, without recursion, and refuses anything else with one line naming the constant and
what is wrong (``expects 3 values in dimension 1, found 2``), as XLA's ``ParseDenseLiteral``
does.

The tokens are ASCII numbers (``1``, ``-2.5e-3``, ``.5``), ``inf``/``-inf``/``nan``, and
``true``/``false``; nothing else (``infinity``, ``٤``, ``1_000``, ``0x10``, a NUL) is a number.
A literal of more values than ``max_constant_elements`` is refused as soon as the count passes
(:mod:`workbench.importers.limits`). Whether each value fits the constant's dtype (no ``1.5`` in
``s32``, no ``2`` in ``pred``, nothing past the type's range) is the IR's check,
:func:`workbench.ir.literals.literal_array`, which every importer goes through.
"""

from __future__ import annotations

import math
import re

from workbench.errors import ParseError
from workbench.importers import limits
from workbench.importers.hlo_attrs import Unsupported
from workbench.importers.hlo_text import HloInstruction
from workbench.ir.types import COMPLEX_DTYPES, TensorType

_INT_TOKEN = re.compile(r"[-+]?[0-9]+", re.ASCII)
_FLOAT_TOKEN = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?",
                          re.ASCII)
_NONFINITE_TOKEN = re.compile(r"[-+]?(inf|nan)", re.ASCII | re.IGNORECASE)
#: one token of a literal: a brace, a comma, or a run of anything else (a value to check)
_TOKEN = re.compile(r"[{},]|[^\s{},]+", re.ASCII)
#: the longest number token read (digits beyond it say nothing a float or s64 can hold)
MAX_TOKEN = 400


def token_value(tok: str):
    """The Python value of one literal token: a bool, an int, a float, or ``"inf"``,
    ``"-inf"``, ``"nan"`` (the IR's spelling of the non-finite floats).

    Raises
    ------
    ValueError
        For anything else, with a sentence saying what it is.
    """
    low = tok.lower()
    if low in ("true", "false"):
        return low == "true"
    if len(tok) > MAX_TOKEN:
        raise ValueError(f"a number of {len(tok):,} characters")
    if _INT_TOKEN.fullmatch(tok):
        return int(tok)
    if _NONFINITE_TOKEN.fullmatch(tok):
        return ("-" if low.startswith("-") else "") + low.lstrip("+-")
    if _FLOAT_TOKEN.fullmatch(tok):
        f = float(tok)
        if math.isinf(f):
            raise ValueError(f"{tok[:40]} overflows a 64-bit float (infinity is written inf)")
        return f
    raise ValueError(f"{tok[:40]!r} is not a number")


def _refuse_form(body: str, t, say) -> None:
    """Refuse at once the literal forms the workbench does not read."""
    if isinstance(t, TensorType) and t.dtype in COMPLEX_DTYPES:
        raise say("complex literals ((re, im) pairs) are not supported")
    if not isinstance(t, TensorType) or body.startswith("("):
        raise say("tuple constants are not supported (only arrays and scalars)")
    if "(" in body or ")" in body:
        raise say("complex literals ((re, im) pairs) are not supported")
    if ":" in body:
        raise say("sparse or keyed literals are not supported")


def _example(rank: int) -> str:
    return "{" * rank + "1, 2" + "}" * rank


def _walk(body: str, dims: tuple, say, cap: int, name: str, where: dict) -> list:
    """The values of ``body``, checked against the dimensions ``dims`` (see the module)."""
    rank = len(dims)
    values: list = []
    seen = [0] * rank          # items seen so far at each open level
    depth = 0
    prev = None                # the previous token: None (start), "{", "}", ",", or "v"
    closed_top = False
    for m in _TOKEN.finditer(body):
        tok = m.group()
        if closed_top or (rank == 0 and prev == "v"):
            raise say(f"unexpected {tok[:20]!r} after the end of the literal")
        if tok == ",":
            if prev not in ("v", "}"):
                raise say("a value is missing before ','")
        elif tok == "{":
            if prev in ("v", "}"):
                raise say("',' expected before '{'")
            if depth == rank:
                raise say(f"its literal nests deeper than the rank {rank} of its type")
            if depth:
                seen[depth - 1] += 1
            seen[depth] = 0
            depth += 1
        elif tok == "}":
            if depth == 0:
                raise say("unexpected '}'")
            if prev == ",":
                raise say("a value is missing before '}'")
            if seen[depth - 1] != dims[depth - 1]:
                raise say(f"expects {dims[depth - 1]:,} items in dimension {depth - 1} of its "
                          f"type, found {seen[depth - 1]:,}")
            depth -= 1
            closed_top = depth == 0
        else:
            if prev in ("v", "}"):
                raise say(f"',' expected before {tok[:20]!r}")
            if depth != rank:
                found = "a bare value" if depth == 0 else f"a value {depth} deep"
                raise say(f"a rank-{rank} literal holds its values {rank} deep in braces (as "
                          f"in {_example(rank)}); found {found}")
            try:
                values.append(token_value(tok))
            except ValueError as exc:
                raise say(str(exc)) from None
            if rank:
                seen[rank - 1] += 1
            if len(values) > cap:
                limits.check("max_constant_elements", len(values),
                             f"the number of values of constant {name!r}", **where)
            tok = "v"
        prev = tok if tok in ",{}" else "v"
    if depth:
        raise say("unbalanced braces: the literal ends inside '{'")
    if prev is None:
        raise say("no value")
    if prev == ",":
        raise say("a value is missing after ','")
    return values


def parse_literal(text: str, ins: HloInstruction, file: str):
    """The values of the constant ``ins`` from its literal text (what is between its
    parentheses), checked against its type's shape.

    Parameters
    ----------
    text : str
        The literal, e.g. ``0.5``, ``-inf``, ``{1, 2}``, ``{ {1,2}, {3,4} }`` (comments already
        stripped by the lexer).
    ins : HloInstruction
        The constant (its name, type and place are used in messages).
    file : str
        The file, for messages.

    Returns
    -------
    value
        A number (bool, int, float or ``"inf"``/``"-inf"``/``"nan"``) when the literal holds
        one value, else a flat tuple of them in row-major order.

    Raises
    ------
    ParseError
        For a literal that is not a number or nested array of numbers of the type's shape
        (see the module docstring), naming the constant, the file, line and column.
    ResourceLimitError
        For more values than ``max_constant_elements``.
    Unsupported
        For ``{...}``: XLA elided the value when it printed the module (the node becomes
        opaque).
    """
    body = text.strip()
    where = dict(file=file, line=ins.line, column=ins.column, node=ins.name)

    def say(msg: str) -> ParseError:
        return ParseError(f"constant {ins.name!r}: {msg}", **where)

    if "..." in body:
        raise Unsupported("XLA elided its value ({...}) when it printed the module; print it "
                          "with print_large_constants (HloPrintOptions) to evaluate it")
    t = ins.type
    _refuse_form(body, t, say)
    cap = limits.current().max_constant_elements
    values = _walk(body, tuple(t.shape), say, cap, ins.name, where)
    if t.dtype.startswith(("f", "bf")) and "-0" in body:
        # XLA prints a float's negative zero as -0, which reads as the integer 0: keep its sign
        toks = [m.group() for m in _TOKEN.finditer(body) if m.group() not in "{},"]
        values = [-0.0 if v == 0 and tok.startswith("-") and _INT_TOKEN.fullmatch(tok) else v
                  for v, tok in zip(values, toks)]
    return values[0] if len(values) == 1 else tuple(values)


__all__ = ["parse_literal", "token_value", "MAX_TOKEN"]
