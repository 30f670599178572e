"""A cut-off HLO file says it may be truncated, on one line naming the file and line: cut inside
a computation header, or cut before the ENTRY computation (XLA prints it last)."""

from __future__ import annotations

import pytest

from tests.conftest import shared_hlo_dir
from workbench.errors import ParseError
from workbench.importers import load_graph


def _cut(tmp_path, text: str, name: str = "cut.hlo"):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(ParseError) as info:
        load_graph(str(p))
    return p, info.value


def test_a_file_cut_inside_a_computation_header_says_it_may_be_truncated(tmp_path):
    text = (shared_hlo_dir() / "mlp.before.hlo").read_text()
    entry_at = text.index("ENTRY")
    header = text[entry_at:text.index("{", entry_at)]
    line = text[:entry_at].count("\n") + 1
    for cut in (text[:entry_at + len(header) // 2],              # cut mid-header, no newline
                text[:entry_at + len(header) // 2] + "\n"):      # ... and with one
        p, err = _cut(tmp_path, cut)
        msg = str(err)
        assert "\n" not in msg and msg.startswith(f"{p}:{line}:")
        assert "inside a computation header: is it truncated?" in msg


def test_a_file_without_its_entry_computation_says_it_may_be_truncated(tmp_path):
    text = (shared_hlo_dir() / "mlp.before.hlo").read_text()
    cut = text[:text.index("ENTRY")]
    p, err = _cut(tmp_path, cut)
    msg = str(err)
    n_lines = len(cut.splitlines())
    assert "\n" not in msg and msg.startswith(f"{p}:{n_lines}:")
    assert "has no ENTRY computation" in msg and "the file may be truncated" in msg


def test_a_stray_line_that_is_no_header_gets_no_truncation_hint(tmp_path):
    _, err = _cut(tmp_path, "HloModule m\n\nthis is not hlo\n\nENTRY %e () -> f32[] {\n"
                            "  ROOT %c = f32[] constant(1)\n}\n")
    assert "expected 'HloModule'" in str(err) and "truncated" not in str(err)


@pytest.mark.parametrize("newline", ["", "\n"])
def test_a_file_cut_mid_instruction_names_the_file_line_and_instruction(tmp_path, newline):
    """Cut inside the dot's attributes (with or without a last newline): the message names
    the instruction it was parsing, as well as the file and line, and says it may be cut off."""
    text = (shared_hlo_dir() / "mlp.before.hlo").read_text()
    at = text.index("dot_general.3 = ")
    end = text.index("\n", at)
    line = text[:at].count("\n") + 1
    for cut in (text[:at + (end - at) // 2], text[:end - 10]):
        p, err = _cut(tmp_path, cut + newline)
        msg = str(err)
        assert err.node == "dot_general.3" and err.line == line, msg
        assert "\n" not in msg and msg.startswith(f"{p}:{line}:")
        assert f":{err.column}: node 'dot_general.3': " in msg
        assert "the file ends on this line, inside computation 'main.3'" in msg
        assert msg.endswith("is it truncated?")


def test_an_instruction_that_does_not_parse_is_named_mid_file(tmp_path):
    _, err = _cut(tmp_path, "HloModule m\n\nENTRY %e () -> f32[] {\n"
                            "  %c.1 = f32[] constant(1)\n  ROOT %bad.2 = f32[] add(%c.1,, %c.1)\n"
                            "}\n")
    assert err.node == "bad.2" and err.line == 5 and "truncated" not in str(err)
