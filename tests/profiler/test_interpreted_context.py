"""The profiler costs kernels in the context of their plan's fallbacks: the median seconds of
its longest kernel run by the numpy reference interpreter (a fake compiled plan, by hand)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from workbench.profiler.profile import _interpreted_s


def _compiled(backend, fallbacks):
    return SimpleNamespace(backend=backend,
                           call=[SimpleNamespace(fallback=f) for f in fallbacks])


def test_the_longest_fallbacks_median_over_the_runs():
    c = _compiled("cpu", [False, True, False, True])
    runs = [[1e-6, 2e-3, 1e-6, 1e-3], [1e-6, 4e-3, 1e-6, 3e-3], [1e-6, 1e-3, 1e-6, 1e-3]]
    # the first fallback's median is 2 ms, the second's 1 ms: the longest is 2 ms
    assert _interpreted_s(c, runs) == pytest.approx(2e-3)


def test_no_fallback_no_runs_or_a_gpu_backend_give_no_interpreter_time():
    assert _interpreted_s(_compiled("cpu", [False, False]), [[1e-6, 1e-6]]) == 0.0
    assert _interpreted_s(_compiled("cpu", [True]), []) == 0.0
    assert _interpreted_s(_compiled("cuda", [True]), [[1e-3]]) == 0.0
