"""The live profiler: run a compiled plan, time each kernel, check it against the reference.

>>> from workbench.profiler import profile          # doctest: +SKIP
>>> report = profile(graph, plan, backend="cpu")    # doctest: +SKIP
>>> report.to_json()["totals"]["fused"]["median_s"]  # doctest: +SKIP
"""

from workbench.profiler.profile import profile
from workbench.profiler.report import Cancelled, KernelReport, Report, Timing

__all__ = ["Cancelled", "KernelReport", "Report", "Timing", "profile"]
