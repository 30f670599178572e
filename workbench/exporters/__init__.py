"""Exports of the workbench's analysis to the tools people already use.

* :mod:`~workbench.exporters.perfetto` — a profile's timed runs as a Chrome/Perfetto trace.

Exporters read finished values (a graph, a plan, a profile report) and write a file format; only
the app and the command line import them.
"""

from workbench.exporters.perfetto import trace_events

__all__ = ["trace_events"]
