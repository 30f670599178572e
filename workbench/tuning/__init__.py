"""Tuning: measured autotuning of plans, sweeps, executors (local, Ray), the results store.

Layer 8 of the pipeline: it may import everything up to the profiler; the app and the command
line call it. Only this package imports ray (inside :mod:`~workbench.tuning.ray_executor`).

* :mod:`~workbench.tuning.measure` — compile, check and time one plan (:func:`measure_plan`).
* :mod:`~workbench.tuning.executors` — where that runs: worker processes here, or Ray tasks.
* :mod:`~workbench.tuning.store` — the SQLite results store.
* :mod:`~workbench.tuning.runner` — measure plans through the store.
* :mod:`~workbench.tuning.tune` — measured autotuning from the planner's proposal.
* :mod:`~workbench.tuning.sweep` — graphs x policies x devices x knob settings.
* :mod:`~workbench.tuning.memory` — a plan's peak live bytes and its recomputation.
"""
