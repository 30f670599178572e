"""Measuring functions that fail the way generated code can: the worker process dies (a
segfault), or never returns. Tasks name them as ``tests.tuning.faulty:crash``; the worker
imports them from the repository root (its working directory)."""

import os
import signal
import time


def crash(**_kwargs):
    """Kill the worker process with SIGSEGV, as a kernel writing out of bounds would."""
    os.kill(os.getpid(), signal.SIGSEGV)


def hang(**_kwargs):
    """Never return (a kernel stuck in a loop)."""
    time.sleep(3600)


def wrong(graph, plan, **_kwargs):
    """Return a measurement of another plan (a confused worker); must not be stored."""
    from workbench.tuning.measure import Measurement

    return Measurement("0" * 16, "cpu", 1e-3, 1e-3, 1)


def double(x):
    """A task that works: ``2 * x``."""
    return 2 * x
