"""The workbench's error hierarchy.

Every error a user can cause (a bad file, an illegal edit, a kernel that does not compile or does
not match the reference) is a :class:`WorkbenchError`. Its message says what is wrong and where:
the file, line and column for text, the node for graphs, the group for plans. The command line
prints ``str(error)`` on one line (control characters escaped, a long file name or message
cut: :func:`one_line`) and exits with status 2; the app shows it next to the control
that caused it. Nothing here holds a traceback the user is expected to read.
"""

from __future__ import annotations

#: the most of a file name and of a message that an error's line shows (characters)
MAX_PLACE, MAX_MESSAGE = 160, 600


def one_line(text, limit: int, keep_end: bool = False) -> str:
    """``text`` fit for one line of a terminal or a page: control and invisible characters
    (newline, tab, NUL, ESC, bidi overrides) written as escapes, and at most ``limit``
    characters, the rest left out with a note (the end kept when ``keep_end``: a file name)."""
    text = str(text)
    n = len(text)
    if n > 4 * limit:
        text = text[-4 * limit:] if keep_end else text[:4 * limit]
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(text) <= limit and n <= 4 * limit:
        return text
    if keep_end:
        return "…" + text[-(limit - 1):]
    return text[:limit] + f"… ({n:,} characters in all)"


class WorkbenchError(Exception):
    """Base of every error the workbench reports to a user.

    Parameters
    ----------
    message : str
        What is wrong, in a sentence.
    file : str, optional
        The file the problem is in.
    line, column : int, optional
        1-based position in ``file``.
    node : str, optional
        The graph node (its id) the problem concerns.
    """

    #: short machine-readable class of the error, used in JSON reports and the app
    code = "error"

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 column: int | None = None, node: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.node = node
        super().__init__(self.__str__())

    def where(self) -> str:
        """The place as ``file:line:column: node 'x'`` (the parts that are known)."""
        parts = []
        if self.file is not None:
            loc = one_line(self.file, MAX_PLACE, keep_end=True)
            if self.line is not None:
                loc += f":{self.line}"
                if self.column is not None:
                    loc += f":{self.column}"
            parts.append(loc)
        if self.node is not None:
            parts.append(f"node {one_line(repr(self.node), MAX_PLACE)}")
        return ": ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        message = one_line(self.message, MAX_MESSAGE)
        return f"{where}: {message}" if where else message

    def to_dict(self) -> dict:
        """A JSON-ready description: ``code``, ``message``, and the place fields that are set."""
        out = {"code": self.code, "message": self.message, "text": str(self)}
        for key in ("file", "line", "column", "node"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


# --- bad input files ---------------------------------------------------------------------------

class InputError(WorkbenchError):
    """A file could not be read as a graph (empty, binary, truncated, wrong format)."""

    code = "input"


class ParseError(InputError):
    """A syntax error in HLO text or JSON; carries file, line and column."""

    code = "syntax"


class MissingDependencyError(InputError):
    """Reading this input needs an optional package that is not installed (StableHLO and
    ``workbench capture`` need the ``[jax]`` extra); the message says what to install."""

    code = "missing-dependency"


class CaptureError(WorkbenchError):
    """``workbench capture`` could not trace or compile the user's function: the message holds
    the user's exception on one line."""

    code = "capture"


# --- graphs that do not verify ------------------------------------------------------------------

class GraphError(WorkbenchError):
    """A graph is not well formed; the message names the node."""

    code = "graph"


class UnknownOpError(GraphError):
    """A node names an op the registry does not know."""

    code = "unknown-op"


class ArityError(GraphError):
    """A node has the wrong number of operands for its op."""

    code = "arity"


class ShapeError(GraphError):
    """Operand shapes or dtypes do not fit the op, or the declared type disagrees with inference."""

    code = "shape"


class AttributeError_(GraphError):
    """An op attribute is missing or has a bad value."""

    code = "attribute"


class CycleError(GraphError):
    """The graph (or a graph of fusion groups) has a cycle."""

    code = "cycle"


class DanglingReferenceError(GraphError):
    """An operand or output names a node that does not exist."""

    code = "dangling"


class DuplicateIdError(GraphError):
    """Two nodes share one id."""

    code = "duplicate-id"


# --- evaluation ---------------------------------------------------------------------------------

class EvaluationError(WorkbenchError):
    """The reference interpreter cannot evaluate a graph (opaque op, bad inputs)."""

    code = "evaluation"


class ResourceLimitError(WorkbenchError):
    """Evaluating or compiling would need more memory than the stated cap."""

    code = "resource-limit"


# --- planning, editing, compiling ---------------------------------------------------------------

class PlanError(WorkbenchError):
    """A plan is malformed (does not cover the graph, names unknown nodes, bad JSON)."""

    code = "plan"


class LegalityError(PlanError):
    """A fusion (by the planner or a user's edit) is illegal; carries the checker's reason code."""

    code = "illegal-fusion"

    def __init__(self, message: str, *, reason: str = "illegal", **where):
        self.reason = reason
        super().__init__(message, **where)

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["reason"] = self.reason
        return out


class CompileError(WorkbenchError):
    """A kernel failed to generate or compile; names the group, the op and the generated line."""

    code = "compile"


class MismatchError(WorkbenchError):
    """A compiled kernel's result differs from the reference interpreter beyond tolerance."""

    code = "mismatch"


# --- tuning and sweeps --------------------------------------------------------------------------

class TuneError(WorkbenchError):
    """A measurement could not be made: its worker crashed, ran past its timeout, or the
    executor (a Ray cluster) cannot be reached or cannot run it."""

    code = "tune"
