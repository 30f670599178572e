"""Fusion Workbench: see, explain and tune XLA-style operator fusion.

The pipeline (see DESIGN.md): importers -> ir -> planner -> editing -> codegen -> profiler -> app/cli.
"""

__version__ = "0.1.0"
