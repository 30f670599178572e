"""A fast subset of the bad-input corpus (bench/bad_inputs.py runs all of it): each case
through the command line in a worker under a 4 GiB address-space limit and a deadline; none
may end in a traceback, a hang, a blow-up, a file written on failure, a wrong success or a
garbled error (issue 15)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import REPO_ROOT, shared_hlo_dir

sys.path.insert(0, str(REPO_ROOT / "bench"))

import bad_corpus  # noqa: E402
import bad_inputs  # noqa: E402

#: one or two cases of each family, and the issue's own cases
SUBSET = ("truncated-mlp.before-50", "truncated-sample-softmax-97", "unknown-opcode-softmax",
          "nul-byte-mlp", "dangling-operand-chain10", "cycle-softmax", "self-cycle-mlp",
          "dim-2e41-mlp", "rank-100-softmax", "dim-negative-chain10", "dtype-f33-mlp",
          "layout-repeat-mlp", "crlf-softmax", "json-cycle-mlp", "json-attrs-list-mlp",
          "json-version-true-chain10", "json-meta-deep-softmax", "npz-truncated-mlp",
          "npz-header-2e40-mlp", "npz-keys-xy-mlp", "npz-int32-mlp", "npz-pickled-object-mlp",
          "random-bytes-0", "utf16-hlo", "fifo-graph", "dev-zero-link", "directory",
          "path-5000", "newline-in-name", "out-is-directory", "fifo-inputs",
          "constant-401-digits", "constant-infinity", "s32-constant-1.5", "pred-constant-2",
          "empty-operand", "call-extra-operands", "inline-type-contradicts", "layout-5",
          "reducer-dangling", "tuple-5k-deep", "constant-900-deep", "json-deep-array", "big-live-tensor")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    shared_hlo_dir()
    folder = tmp_path_factory.mktemp("bad")
    return folder, {c.name: c for c in bad_corpus.build(folder / "corpus")}


def test_the_corpus_has_over_200_cases_and_the_subset_is_in_it(corpus):
    _, cases = corpus
    assert len(cases) >= 200
    assert not [n for n in SUBSET if n not in cases]


def test_the_subset_ends_in_clean_errors_or_checked_successes(corpus):
    folder, cases = corpus
    work = folder / "work"
    work.mkdir()
    w = bad_inputs.Worker()
    found = {}
    try:
        for name in SUBSET:
            found[name] = bad_inputs.run_case(cases[name], work, folder / "cache", w,
                                              folder / "corpus")
    finally:
        w.stop()
    bad = {n: r for n, (o, r) in found.items() if o in bad_inputs.BAD or o == "false refusal"}
    assert not bad, bad
    assert found["crlf-softmax"][0] == "success"     # checked against JAX's outputs
    assert sum(o == "clean error" for o, _ in found.values()) == len(SUBSET) - 1
