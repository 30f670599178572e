"""Hypothesis generators of HLO text and JSON graphs, valid and mutated, and a check that runs
the command line on one in-process (issue 15): shared by tests/cli/test_fuzz.py (a few hundred
examples) and bench/fuzz.py (10,000 and more)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile

from hypothesis import strategies as st

from workbench.cli import main

UNARY = ("negate", "abs", "exponential", "tanh", "sqrt", "floor", "log")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "divide")
DTYPES = ("f32", "f32", "f32", "f16", "s32", "pred", "bf16")


@st.composite
def hlo_texts(draw):
    """An HLO module of elementwise ops, reductions and broadcasts on one shape."""
    shape = draw(st.lists(st.integers(1, 6), min_size=0, max_size=3))
    dims = ",".join(map(str, shape))
    layout = "{" + ",".join(map(str, reversed(range(len(shape))))) + "}" if shape else ""
    dt = draw(st.sampled_from(("f32", "f32", "f16", "bf16")))
    t = f"{dt}[{dims}]{layout}"
    n_params = draw(st.integers(1, 3))
    lines = [f"  p{i} = {t} parameter({i})" for i in range(n_params)]
    values = [f"p{i}" for i in range(n_params)]
    for k in range(draw(st.integers(1, 10))):
        if draw(st.booleans()):
            op, args = draw(st.sampled_from(UNARY)), [draw(st.sampled_from(values))]
        else:
            op = draw(st.sampled_from(BINARY))
            args = [draw(st.sampled_from(values)), draw(st.sampled_from(values))]
        lines.append(f"  v{k} = {t} {op}({', '.join(args)})")
        values.append(f"v{k}")
    lines.append(f"  ROOT out = {t} negate({values[-1]})")
    return "HloModule fuzz\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"


@st.composite
def json_texts(draw):
    """A JSON graph (types inferred) of elementwise ops on one shape, or one with junk."""
    shape = draw(st.lists(st.integers(1, 5), max_size=2))
    dtype = draw(st.sampled_from(DTYPES))
    nodes = [{"id": f"p{i}", "op": "parameter", "type": {"shape": shape, "dtype": dtype},
              "attrs": {"index": i}} for i in range(draw(st.integers(1, 2)))]
    ids = [n["id"] for n in nodes]
    for k in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(UNARY + BINARY))
        arity = 1 if op in UNARY else 2
        nodes.append({"id": f"n{k}", "op": op,
                      "operands": [draw(st.sampled_from(ids)) for _ in range(arity)]})
        ids.append(f"n{k}")
    doc = {"format": "fusion-workbench-graph", "version": 1, "name": "fuzz", "nodes": nodes,
           "outputs": [ids[-1]]}
    return json.dumps(doc)


JUNK = st.sampled_from(["", "\x00", "}", "{", "(", ")", ",", "=", "[", "]", "-1", "99999999999",
                        "\u0663", "\uff11", "\"", "ROOT ", "parameter(7)", "f64", "\n", "/*",
                        "1e400", "nan", "[" * 70, "tuple(", "s32[]"])


@st.composite
def mutated(draw, texts):
    """A text with a few bytes deleted, duplicated or replaced by junk."""
    text = draw(texts)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 12)))
        kind = draw(st.sampled_from(("delete", "junk", "duplicate", "truncate")))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "junk":
            text = text[:i] + draw(JUNK) + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i]
    return text


def inputs(kind: str):
    """The strategy for ``kind``: hlo, json, hlo-mutated, json-mutated."""
    base = hlo_texts() if kind.startswith("hlo") else json_texts()
    return mutated(base) if kind.endswith("mutated") else base


class Unexpected(AssertionError):
    """A command ended otherwise than in success or one clean error line."""


def check(text: str, suffix: str, commands=("inspect", "plan", "eval")) -> str:
    """Run ``commands`` on ``text`` written to a file; 'ok' or 'refused'; raise
    :class:`Unexpected` on anything else (another exception, a garbled error line)."""
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="fuzz-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        outcome = None
        for command in commands:
            err = io.StringIO()
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    rc = main([command, path, "--max-memory-mib", "256"]
                              if command == "eval" else [command, path])
            except BaseException as exc:  # noqa: BLE001 - what the fuzzing looks for
                raise Unexpected(f"{command}: {type(exc).__name__}: {exc}\n{text!r}") from exc
            lines = err.getvalue().strip().splitlines()
            if rc == 0:
                outcome = outcome or "ok"
                continue
            if rc != 2 or len(lines) != 1 or not lines[0].startswith("error: "):
                raise Unexpected(f"{command}: exit {rc}, {lines!r}\n{text!r}")
            if os.path.basename(path) not in lines[0] and command == "inspect":
                raise Unexpected(f"{command}: the line names no file: {lines[0]}\n{text!r}")
            return "refused"
        return outcome
    finally:
        os.unlink(path)
