"""A parser for the HLO text that XLA prints (``HloModule::ToString``), into raw records.

This module only reads text: it splits the module into computations and instructions and keeps
each instruction's type, opcode, operand names, literal text and attributes (as raw strings),
with the line and column where each came from. :mod:`workbench.importers.hlo` turns the records
into a :class:`~workbench.ir.Graph`. Nothing in the text is ever executed.

Handled: the ``HloModule`` header; the ``FileNames`` / ``FunctionNames`` / ``FileLocations`` /
``StackFrames`` tables of optimised dumps (skipped); ``%`` sigils or none; ``ENTRY``; ``ROOT``;
tuple types (nested too); layouts, tiled ones included (``{1,0:T(8,128)}``); operands with and
without types; ``/* ... */`` comments anywhere a token may stand (XLA prints ``/*index=5*/``
inside long operand lists *and* tuple types); attribute values with nested braces and quoted
strings containing commas and braces; ``}, execution_thread="..."`` after a computation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workbench.errors import ParseError, ShapeError
from workbench.importers import limits
from workbench.ir.types import DTYPES, TensorType, TupleType

_NAME = re.compile(r"%?([A-Za-z_][\w.\-]*)")
_OPCODE = re.compile(r"[a-z][a-z0-9\-_]*")
_TABLES = {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}
_COMMENT = re.compile(r"/\*.*?\*/")


def strip_comments(text: str, line: int = 0, file: str = "<hlo>") -> str:
    """``text`` with every ``/* ... */`` comment outside quoted strings blanked out.

    Each comment becomes as many spaces, so columns in error messages still point into the
    original line. A ``//`` comment (outside strings) ends the line.

    Raises
    ------
    ParseError
        For a ``/*`` whose ``*/`` is not on the same line.
    """
    if "/" not in text:
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ParseError("a /* comment is not closed on its line", file=file, line=line,
                                 column=i + 1)
            out.append(" " * (j + 2 - i))
            i = j + 2
            continue
        if c == "/" and text.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


@dataclass
class HloInstruction:
    """One instruction as written: ``[ROOT] name = type opcode(operands), attr=value, ...``."""

    name: str
    type: object                 # TensorType or TupleType
    layout: tuple | None         # minor-to-major layout of a tensor result, if written
    opcode: str
    operands: list[str]          # operand instruction names (no sigils)
    operand_text: str            # the raw text between the parentheses (literals of constants)
    attrs: dict[str, str]        # raw attribute values
    attr_columns: dict[str, int]
    line: int
    column: int
    is_root: bool = False
    operand_types: list = field(default_factory=list)  # the type written before each, or None


@dataclass
class HloComputation:
    """A named computation and its instructions in order."""

    name: str
    line: int
    is_entry: bool = False
    instructions: list[HloInstruction] = field(default_factory=list)
    names: dict = field(default_factory=dict, repr=False)   #: name -> instruction
    marked_root: HloInstruction | None = field(default=None, repr=False)

    @property
    def root(self) -> HloInstruction:
        """The ROOT instruction (the last one if none is marked)."""
        return self.marked_root or self.instructions[-1]

    def add(self, ins: HloInstruction, file: str) -> None:
        """Append ``ins``, refusing a second instruction of the same name, a second ROOT, or
        an operand not defined before it in this computation (HLO text is printed in
        post-order)."""
        other = self.names.get(ins.name)
        if other is not None:
            raise ParseError(f"instruction name {ins.name!r} is used twice in computation "
                             f"{self.name!r} (first at line {other.line})", file=file,
                             line=ins.line, column=ins.column)
        if ins.is_root and self.marked_root is not None:
            raise ParseError(f"computation {self.name!r} has a second ROOT (the first is "
                             f"{self.marked_root.name!r} at line {self.marked_root.line})",
                             file=file, line=ins.line, column=1)
        for o in ins.operands:
            if o not in self.names:
                raise ParseError(f"operand {o!r} is not defined before use in computation "
                                 f"{self.name!r}", file=file, line=ins.line,
                                 column=ins.column, node=ins.name)
        self.names[ins.name] = ins
        if ins.is_root:
            self.marked_root = ins
        self.instructions.append(ins)


@dataclass
class HloModule:
    """A parsed module: its name, computations by name, and the entry computation's name."""

    name: str
    computations: dict[str, HloComputation]
    entry: str
    file: str


class _Cursor:
    """A position in one line of text, with helpers that raise ParseError at the position."""

    def __init__(self, text: str, line: int, file: str):
        self.text, self.pos, self.line, self.file = text, 0, line, file

    def error(self, msg: str, pos: int | None = None) -> ParseError:
        return ParseError(msg, file=self.file, line=self.line,
                          column=(self.pos if pos is None else pos) + 1)

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            got = self.text[self.pos:self.pos + 12] or "end of line"
            raise self.error(f"expected {ch!r}, found {got!r}")
        self.pos += 1

    def match(self, regex: re.Pattern, what: str) -> str:
        self.ws()
        m = regex.match(self.text, self.pos)
        if not m:
            got = self.text[self.pos:self.pos + 12] or "end of line"
            raise self.error(f"expected {what}, found {got!r}")
        self.pos = m.end()
        return m.group(1) if m.groups() else m.group(0)

    def _scan(self, stack: list[str], stop_at_comma: bool) -> int:
        """Advance over text with brackets and quoted strings; return where the scan stopped.

        Stops after the bracket that empties ``stack`` (when it starts non-empty), or at a comma
        outside brackets (``stop_at_comma``), or at the end of the line.
        """
        pairs = {"(": ")", "{": "}", "[": "]"}
        text, i = self.text, self.pos
        while i < len(text):
            c = text[i]
            if c == '"':
                i = _skip_string(text, i, self)
                continue
            if c in pairs:
                stack.append(pairs[c])
            elif c in ")}]":
                if not stack or c != stack[-1]:
                    raise self.error(f"unbalanced {c!r}", i)
                stack.pop()
                if not stack and not stop_at_comma:
                    return i
            elif c == "," and not stack and stop_at_comma:
                return i
            i += 1
        return i

    def balanced(self, opening: str, closing: str) -> str:
        """Consume ``opening ... closing`` (nesting and quoted strings respected); return inside."""
        self.expect(opening)
        start = self.pos
        stack = [closing]
        end = self._scan(stack, stop_at_comma=False)
        if stack:
            raise self.error(f"missing {closing!r} (line ends inside {opening}...{closing})",
                             start - 1)
        self.pos = end + 1
        return self.text[start:end]

    def until_top_level_comma(self) -> str:
        """Consume up to (not including) the next comma outside brackets and strings."""
        start = self.pos
        stack: list[str] = []
        end = self._scan(stack, stop_at_comma=True)
        if stack:
            raise self.error(f"missing {stack[-1]!r} in attribute value", start)
        self.pos = end
        return self.text[start:end].strip()


def _skip_string(text: str, i: int, cur: _Cursor) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        j += 1
    raise cur.error("unterminated string", i)


def split_top_level(text: str, keep_empty: bool = False) -> list[str]:
    """Split on commas that are outside brackets and strings (empty parts dropped, or kept
    as ``""`` with ``keep_empty``)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            i = len(text) if j < 0 else j + 1
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    if keep_empty:
        return [p.strip() for p in parts]
    return [p.strip() for p in parts if p.strip()]


_DIMS = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")


_DIGITS = re.compile(r"[0-9]{1,19}")


def parse_type(cur: _Cursor, depth: int = 0):
    """Parse a type at the cursor: ``f32[2,3]{1,0}``, ``f32[]``, or a tuple ``(t, t)``.

    Dimensions are ASCII digits; the rank, the elements of a shape and the nesting of tuples
    are held to the limits in force (:mod:`workbench.importers.limits`); a layout must be a
    permutation of the dimensions (minor to major).

    Returns
    -------
    (type, layout)
        ``layout`` is the minor-to-major tuple of a tensor type, or None.
    """
    lim = limits.current()
    cur.ws()
    if cur.peek() == "(":
        start = cur.pos
        if depth >= lim.max_nesting:
            raise limits.exceeded("max_nesting", depth + 1, lim.max_nesting,
                                  "the nesting of tuple types", file=cur.file, line=cur.line,
                                  column=start + 1)
        inner = cur.balanced("(", ")")
        sub = _Cursor(inner, cur.line, cur.file)
        sub_pos0 = start + 1
        elems = []
        while sub.peek():
            try:
                t, _ = parse_type(sub, depth + 1)
            except ParseError as exc:
                exc.column = (exc.column or 1) + sub_pos0
                raise
            elems.append(t)
            if sub.peek() == ",":
                sub.pos += 1
            elif sub.peek():
                raise sub.error("expected ',' between tuple element types")
        return TupleType(tuple(elems)), None
    m = _DIMS.match(cur.text, cur.pos)
    if not m:
        got = cur.text[cur.pos:cur.pos + 12] or "end of line"
        raise cur.error(f"expected a type like f32[2,3], found {got!r}")
    end = m.end()
    if end < len(cur.text) and cur.text[end] == "{":
        close = cur.text.find("}", end)
        end = close + 1 if close > 0 and "{" not in cur.text[end + 1:close] else -1
    key = (cur.text[m.start():end], lim) if end > 0 else None
    hit = _TYPES.get(key) if key else None
    if hit is not None:                 # a module repeats its types: read each once
        cur.pos = end
        return hit
    typ = _tensor_type(cur, m, lim)
    if key is not None and len(_TYPES) < 100_000:
        _TYPES[key] = typ
    return typ


#: (type text, limits) -> (TensorType, layout): the types already read
_TYPES: dict = {}


def _tensor_type(cur: _Cursor, m: re.Match, lim):
    """The tensor type (and layout) of ``_DIMS`` match ``m``, checked (see :func:`parse_type`)."""
    dtype, dims = m.group(1), m.group(2)
    if dtype not in DTYPES:
        raise cur.error(f"unknown element type {dtype!r}")
    shape, size = [], 1
    parts = dims.split(",") if dims.strip() else []
    if len(parts) > lim.max_rank:
        raise limits.exceeded("max_rank", len(parts), lim.max_rank, "the rank of this shape",
                              file=cur.file, line=cur.line, column=m.start(2) + 1)
    for x in parts:
        d = x.strip()
        if not _DIGITS.fullmatch(d):
            what = ("a dynamic dimension (<=N)" if d.startswith("<=") else
                    "an empty dimension" if not d else repr(d[:20]))
            raise cur.error(f"dimension {what} is not a static size (ASCII digits)",
                            m.start(2))
        shape.append(int(d))
        size *= int(d)
    if size > lim.max_elements:
        raise limits.exceeded("max_elements", size, lim.max_elements,
                              "the element count of this shape", file=cur.file, line=cur.line,
                              column=m.start(2) + 1)
    cur.pos = m.end()
    layout = None
    if cur.pos < len(cur.text) and cur.text[cur.pos] == "{":
        lay_at = cur.pos
        lay = cur.balanced("{", "}")
        layout = _layout(lay, len(shape), cur, lay_at)
    try:
        return TensorType(tuple(shape), dtype), layout
    except ShapeError as exc:
        raise cur.error(exc.message) from None


def _layout(text: str, rank: int, cur: _Cursor, at: int) -> tuple:
    """The minor-to-major dimensions of a layout ``{1,0}`` (tiling and memory space after
    ``:`` left aside); must be a permutation of ``0..rank-1``."""
    nums = text.split(":")[0].strip()
    parts = [x.strip() for x in nums.split(",")] if nums else []
    if not all(_DIGITS.fullmatch(x) for x in parts):
        raise cur.error(f"layout {{{text[:30]}}} is not a list of dimension numbers", at)
    layout = tuple(int(x) for x in parts)
    if sorted(layout) != list(range(rank)):
        raise cur.error(f"layout {{{nums[:30]}}} is not a permutation of the {rank} "
                        f"dimension(s) 0..{rank - 1} of this shape (minor to major)", at)
    return layout


#: the head of an instruction in its common form (a tensor type, operands without parentheses
#: or quotes): read by one regular expression; anything else by the cursor
_FAST_HEAD = re.compile(r"[ \t]*(ROOT[ \t]+)?(?=%?[A-Za-z_])%?([A-Za-z_][\w.\-]*)[ \t]*=[ \t]*"
                        r"([a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*\})?)[ \t]+"
                        r"([a-z][a-z0-9\-_]*)\(([^()\"]*)\)")


def _head(cur: _Cursor) -> tuple:
    """(is_root, column, name, type, layout, opcode, operands' column, operand text)."""
    text = cur.text
    m = _FAST_HEAD.match(text)
    if m:
        try:
            typ, layout = parse_type(_Cursor(m.group(3), cur.line, cur.file))
        except ParseError:
            m = None                      # the cursor below says where, in this line
    if m:
        cur.pos = m.end()
        start = m.end(1) if m.group(1) else len(text) - len(text.lstrip(" \t"))
        return (m.group(1) is not None, start + 1, m.group(2), typ, layout, m.group(4),
                m.start(5) - 1, m.group(5))
    cur.ws()
    is_root = False
    if text.startswith("ROOT", cur.pos) and text[cur.pos + 4:cur.pos + 5] in (" ", "\t"):
        is_root = True
        cur.pos += 4
    cur.ws()
    col = cur.pos + 1
    name = cur.match(_NAME, "an instruction name")
    cur.expect("=")
    typ, layout = parse_type(cur)
    opcode = cur.match(_OPCODE, "an opcode")
    op_start = cur.pos
    if cur.peek() != "(":
        raise cur.error(f"expected '(' after opcode {opcode!r}")
    inside = cur.balanced("(", ")")
    return is_root, col, name, typ, layout, opcode, op_start, inside


def _parse_instruction(text: str, line: int, file: str) -> HloInstruction:
    cur = _Cursor(text, line, file)
    is_root, col, name, typ, layout, opcode, op_start, inside = _head(cur)
    operand_text = _COMMENT.sub("", inside) if "/*" in inside else inside
    operands, operand_types = [], []
    if opcode not in ("constant", "parameter", "iota"):
        parts = (split_top_level(operand_text, keep_empty=True)
                 if "[" in operand_text or "{" in operand_text or '"' in operand_text
                 else [p.strip() for p in operand_text.split(",")])
        if parts == [""]:
            parts = []
        for part in parts:
            if not part:
                raise cur.error("an empty operand (two commas, or a comma at an end)",
                                op_start)
            # "f32[2]{0} %x" or "%x" or "x"; the name is the last token
            head, _, tok = part.rpartition(" ")
            m = _NAME.fullmatch(tok)
            if not m:
                raise cur.error(f"bad operand {part[:40]!r}", op_start)
            operands.append(m.group(1))
            operand_types.append(_operand_type(head, cur, op_start) if head.strip() else None)
    attrs, columns = {}, {}
    while cur.peek() == ",":
        cur.pos += 1
        cur.ws()
        key_col = cur.pos
        key = cur.match(_ATTR_KEY, "an attribute key=")
        cur.ws()
        value = cur.until_top_level_comma()
        attrs[key] = value
        columns[key] = key_col + 1
    rest = cur.text[cur.pos:].strip()
    if rest and not rest.startswith("//"):
        raise cur.error(f"unexpected text {rest[:20]!r} after the instruction")
    return HloInstruction(name, typ, layout, opcode, operands, operand_text.strip(), attrs,
                          columns, line, col, is_root, operand_types)


def _operand_type(text: str, cur: _Cursor, at: int):
    """The type written before an operand's name (``f32[2]{0} %x``)."""
    sub = _Cursor(text.strip(), cur.line, cur.file)
    try:
        t, _ = parse_type(sub)
    except ParseError as exc:
        raise cur.error(f"operand type: {exc.message}", at) from None
    if sub.peek():
        raise cur.error(f"bad operand type {text.strip()[:40]!r}", at)
    return t


_ATTR_KEY = re.compile(r"([A-Za-z_][\w\-]*)\s*=")
_CLOSE = re.compile(r'^\}\s*,\s*execution_thread\s*=\s*"[^"]*"\s*$')
#: the start of a computation header (``ENTRY ...``, ``%fused_add (...``, or a name alone), for
#: a header the file cuts off
_HEADER_START = re.compile(r"^\s*(ENTRY\b|%?[A-Za-z_][\w.\-]*\s*(\(|$))")
_HEADER = re.compile(r"^\s*(ENTRY\s+)?%?([A-Za-z_][\w.\-]*)\s*(\(.*\))?\s*(->\s*.*?)?\s*\{\s*$")


#: the name an instruction line starts with (``ROOT %add.3 = ...``), read even when the rest
#: of the line does not parse
_INSTRUCTION_NAME = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=")


def _name_instruction(exc: ParseError, raw: str) -> None:
    """Name the instruction ``raw`` defines in ``exc`` (its ``node``), where the line gets
    as far as ``name =`` and the error names no node yet."""
    m = _INSTRUCTION_NAME.match(raw)
    if m and exc.node is None:
        exc.node = m.group(1)


def parse_hlo_module(text: str, file: str = "<hlo>") -> HloModule:
    """Parse HLO module text into computations of raw instructions.

    Parameters
    ----------
    text : str
        The module as XLA prints it.
    file : str
        Used in error messages.

    Raises
    ------
    ParseError
        With file, line and column, for any syntax error or a file that ends inside a
        computation (a truncated dump); an error in an instruction names it (``node``), and one
        on the file's last line says the file may be cut off there.
    """
    max_count, count = limits.current().max_instructions, 0
    lines = text.splitlines()
    module_name = None
    comps: dict[str, HloComputation] = {}
    entry = None
    current: HloComputation | None = None
    in_table = False
    for i, raw in enumerate(lines, 1):
        if "/" in raw:
            raw = strip_comments(raw, i, file)
        stripped = raw.strip()
        if current is not None:
            if stripped == "}" or _CLOSE.match(stripped):
                if not current.instructions:
                    raise ParseError(f"computation {current.name!r} is empty", file=file, line=i,
                                     column=1)
                comps[current.name] = current
                current = None
                continue
            if not stripped or stripped.startswith("//"):
                continue
            try:
                ins = _parse_instruction(raw, i, file)
            except ParseError as exc:
                _name_instruction(exc, raw)
                if not any(s.strip() for s in lines[i:]):  # cut off in the middle
                    exc.message += (f"; the file ends on this line, inside computation "
                                    f"{current.name!r} (opened at line {current.line}): is it "
                                    "truncated?")
                exc.args = (str(exc),)
                raise
            current.add(ins, file)
            count += 1
            if count > max_count:
                raise limits.exceeded("max_instructions", count, max_count,
                                      "the number of instructions", file=file, line=i,
                                      column=ins.column)
            continue
        if not stripped or stripped.startswith("//"):
            in_table = False
            continue
        if stripped.startswith("HloModule"):
            parts = stripped.split(None, 1)
            if len(parts) < 2:
                raise ParseError("HloModule needs a name", file=file, line=i, column=1)
            module_name = parts[1].split(",")[0].strip()
            continue
        if stripped in _TABLES:
            in_table = True
            continue
        if in_table and re.match(r"^\d+\s", stripped):
            continue
        m = _HEADER.match(raw)
        if m:
            current = HloComputation(m.group(2), i, is_entry=bool(m.group(1)))
            if current.name in comps:
                raise ParseError(f"computation {current.name!r} is defined twice", file=file,
                                 line=i, column=1)
            if current.is_entry:
                if entry is not None:
                    raise ParseError("a second ENTRY computation", file=file, line=i, column=1)
                entry = current.name
            continue
        col = len(raw) - len(raw.lstrip()) + 1
        cut = ""
        if _HEADER_START.match(raw) and not any(s.strip() for s in lines[i:]):
            # the last line of the file opens a computation it never finishes: cut off
            cut = "; the file ends on this line, inside a computation header: is it truncated?"
        raise ParseError(f"expected 'HloModule', a computation header 'name {{' or a blank line, "
                         f"found {stripped[:30]!r}{cut}", file=file, line=i, column=col)
    if current is not None:
        raise ParseError(f"the file ends inside computation {current.name!r} (opened at line "
                         f"{current.line}); is it truncated?", file=file, line=len(lines),
                         column=len(lines[-1]) + 1 if lines else 1)
    if module_name is None and not comps:
        raise ParseError("no 'HloModule' header and no computations: this is not HLO text",
                         file=file, line=1, column=1)
    if entry is None:
        # XLA prints the entry computation last, so a dump cut short loses it first
        raise ParseError(f"the module has no ENTRY computation ({len(comps)} other "
                         f"computation(s) read; XLA prints ENTRY last: the file may be "
                         "truncated)", file=file, line=len(lines), column=1)
    return HloModule(module_name or entry, comps, entry, file)
