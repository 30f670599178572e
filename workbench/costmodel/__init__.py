"""The cost model: device profiles, the CPU probe, and what a kernel costs on a device.

>>> from workbench.costmodel import plan_cost          # doctest: +SKIP
>>> cost = plan_cost(graph, plan, "h100")              # doctest: +SKIP
>>> cost.total.predicted_s                             # doctest: +SKIP

:mod:`~workbench.costmodel.devices` holds the profiles (the measured ``cpu`` one, datasheet GPUs)
and :mod:`~workbench.costmodel.cpu_probe` the micro-kernels that measure the CPU;
:mod:`~workbench.costmodel.model` the per-kernel breakdown and prediction (XLA's GPU performance
model, cache-aware on the CPU); :mod:`~workbench.costmodel.text` the words the decision log, the
command line and the app use for bounds and ceilings. The planner imports this package; it
imports nothing of the planner.
"""

from workbench.costmodel.devices import (DEVICES, GPU_PROFILES, DeviceProfile, all_profiles,
                                         cpu_profile, cpu_profile_path, get_device,
                                         with_register_cap)
from workbench.costmodel.model import (BASE_REGISTERS, MEMORY_COMPUTE_PARALLELISM, CostBreakdown,
                                       PlanCost, combine_times, group_cost, kernel_time, op_cost,
                                       peak_live, plan_cost, unfused_cost)

__all__ = ["BASE_REGISTERS", "CostBreakdown", "DEVICES", "DeviceProfile", "GPU_PROFILES",
           "MEMORY_COMPUTE_PARALLELISM", "PlanCost", "all_profiles", "combine_times",
           "cpu_profile", "cpu_profile_path", "get_device", "group_cost", "kernel_time",
           "op_cost", "peak_live", "plan_cost", "unfused_cost", "with_register_cap"]
