"""Fusion Workbench: see, explain and tune XLA-style operator fusion.

The pipeline (see DESIGN.md and docs/architecture.md): importers -> ir -> costmodel -> planner ->
editing -> codegen -> profiler -> tuning -> app/cli, with transforms (graph rewrites) beside the
importers and exporters near the end.
"""

__version__ = "0.1.0"
