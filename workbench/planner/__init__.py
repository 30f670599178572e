"""The fusion planner: plan records, legality checker, policies, patterns, XLA comparison.

The cost model it weighs fusions with is :mod:`workbench.costmodel` (re-exported here for the
planner's callers); graph rewrites such as batch-norm folding are :mod:`workbench.transforms`.

>>> from workbench.planner import plan_graph          # doctest: +SKIP
>>> plan = plan_graph(graph, policy="priority", device="h100")   # doctest: +SKIP
"""

from workbench.planner.plan import (Constraints, Decision, FusionGroup, FusionKind, GroupRole, Plan,
                                    group_kind, is_source, make_plan, plan_from_json, replay,
                                    unfused_plan, xla_plan)
from workbench.costmodel import (DEVICES, CostBreakdown, DeviceProfile, PlanCost, get_device,
                                 group_cost, op_cost, plan_cost)
from workbench.planner.legality import LegalityError, Refusal, check_group
from workbench.planner.heuristics import PLAN_NAMES, POLICIES, named_plan, plan_graph
from workbench.planner.patterns import find_patterns
from workbench.planner.compare import Agreement, compare_with_xla

__all__ = ["Agreement", "Constraints", "CostBreakdown", "DEVICES", "Decision", "DeviceProfile",
           "FusionGroup", "FusionKind", "GroupRole", "LegalityError", "PLAN_NAMES", "POLICIES", "Plan", "PlanCost",
           "Refusal", "check_group", "compare_with_xla", "find_patterns",
           "get_device", "group_cost", "group_kind", "is_source", "make_plan", "named_plan", "op_cost",
           "plan_cost", "plan_from_json", "plan_graph", "replay", "unfused_plan", "xla_plan"]
