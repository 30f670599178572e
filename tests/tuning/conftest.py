"""tuning tests plan with a fixed ``cpu`` profile (see tests/planner/planner_helpers)."""

from tests.planner.planner_helpers import fixed_cpu_profile  # noqa: F401 (an autouse fixture)
