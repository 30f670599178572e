"""Fixtures of the teaching tests: a private cache directory (lesson measurements are stored
per machine there), and fake measurement records."""

from __future__ import annotations

import pytest


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """``$WORKBENCH_CACHE_DIR`` in the test's temporary directory (the cpu profile copied in
    when one is cached, so that no test re-probes the machine; the kernel caches linked)."""
    import shutil

    from workbench.paths import cache_dir

    shared = cache_dir()
    old = shared / "cpu_profile.json"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    if old.is_file():
        shutil.copy(old, tmp_path / "cache" / "cpu_profile.json")
    for kernels in ("cpu", "cuda"):  # compiled kernels are shared: nothing compiled twice
        (shared / kernels).mkdir(parents=True, exist_ok=True)
        (tmp_path / "cache" / kernels).symlink_to(shared / kernels,
                                                  target_is_directory=True)
    return tmp_path / "cache"


def fake_record(stage, fused_s: float, unfused_s: float, noisy: bool = False) -> dict:
    """A measurement record of ``stage`` (a lesson Stage) with these times; its bytes are the
    cost model's (as the kernels' arguments are, for these graphs)."""
    t, u = stage.cost.total, stage.cost.unfused_total
    return {"backend": "cpu", "device": stage.plan.device, "fused_s": fused_s,
            "unfused_s": unfused_s, "fused_min_s": fused_s * 0.9, "unfused_min_s": unfused_s * 0.9,
            "fused_spread_s": fused_s * 0.01, "noisy": noisy,
            "bytes_fused": t.bytes_read + t.bytes_written,
            "bytes_unfused": u.bytes_read + u.bytes_written, "kernels": [], "ok": True,
            "notes": [], "machine": {"host": "test", "cpu": "test cpu", "cpus": 2},
            "measured_at": "2026-01-01 00:00:00"}
