"""Fuzzing the command line with generated HLO text and JSON graphs, valid and mutated: every
command ends in success or one clean error line, never another exception (issue 15; the long
run of 10,000+ cases is bench/fuzz.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.cli.fuzz_cases import check, inputs

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


@SETTINGS
@given(inputs("hlo"))
def test_generated_hlo_modules_go_through_every_command(text):
    assert check(text, ".hlo") == "ok"


@SETTINGS
@given(inputs("json"))
def test_generated_json_graphs_load_or_are_refused_in_a_line(text):
    assert check(text, ".json") in ("ok", "refused")   # s32 or pred with exp/log: refused


@SETTINGS
@given(inputs("hlo-mutated"))
def test_mutated_hlo_is_read_or_refused_in_a_line(text):
    check(text, ".hlo")


@SETTINGS
@given(inputs("json-mutated"))
def test_mutated_json_is_read_or_refused_in_a_line(text):
    check(text, ".json")
