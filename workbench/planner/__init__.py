"""The fusion planner: plan records, cost model, legality checker, policies, XLA comparison."""

from workbench.planner.plan import (Constraints, Decision, FusionGroup, FusionKind, Plan,
                                    group_kind, is_source, make_plan, plan_from_json, replay,
                                    unfused_plan, xla_plan)

__all__ = ["Constraints", "Decision", "FusionGroup", "FusionKind", "Plan", "group_kind",
           "is_source", "make_plan", "plan_from_json", "replay", "unfused_plan", "xla_plan"]
