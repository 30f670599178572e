"""The fusion planner: plan records, cost model, legality checker, policies, XLA comparison.

>>> from workbench.planner import plan_graph          # doctest: +SKIP
>>> plan = plan_graph(graph, policy="priority", device="h100")   # doctest: +SKIP
"""

from workbench.planner.plan import (Constraints, Decision, FusionGroup, FusionKind, GroupRole, Plan,
                                    group_kind, is_source, make_plan, plan_from_json, replay,
                                    unfused_plan, xla_plan)
from workbench.planner.devices import DEVICES, DeviceProfile, get_device
from workbench.planner.cost_model import (CostBreakdown, PlanCost, group_cost, op_cost,
                                          plan_cost)
from workbench.planner.legality import LegalityError, Refusal, check_group
from workbench.planner.heuristics import POLICIES, plan_graph
from workbench.planner.patterns import find_patterns, fold_batch_norm
from workbench.planner.compare import Agreement, compare_with_xla

__all__ = ["Agreement", "Constraints", "CostBreakdown", "DEVICES", "Decision", "DeviceProfile",
           "FusionGroup", "FusionKind", "GroupRole", "LegalityError", "POLICIES", "Plan", "PlanCost",
           "Refusal", "check_group", "compare_with_xla", "find_patterns", "fold_batch_norm",
           "get_device", "group_cost", "group_kind", "is_source", "make_plan", "op_cost",
           "plan_cost", "plan_from_json", "plan_graph", "replay", "unfused_plan", "xla_plan"]
