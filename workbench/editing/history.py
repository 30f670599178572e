"""Undo and redo for plan edits: :class:`History`."""

from __future__ import annotations

from workbench.editing.edits import apply_edit
from workbench.errors import PlanError
from workbench.ir.graph import Graph
from workbench.planner.plan import Plan


class History:
    """A linear history of plans with undo and redo.

    Parameters
    ----------
    graph : Graph
        The graph every plan is for.
    plan : Plan
        The starting plan (usually the planner's).

    Examples
    --------
    >>> h = History(graph, plan)                      # doctest: +SKIP
    >>> h.push(Merge(("a", "b"))); h.undo(); h.redo()  # doctest: +SKIP
    """

    def __init__(self, graph: Graph, plan: Plan):
        self.graph = graph
        self._plans: list[Plan] = [plan]
        self._edits: list = [None]
        self._pos = 0

    @property
    def current(self) -> Plan:
        """The plan as of the last applied (not undone) edit."""
        return self._plans[self._pos]

    @property
    def edits(self) -> list:
        """The edits that led from the starting plan to :attr:`current`, in order."""
        return self._edits[1:self._pos + 1]

    @property
    def can_undo(self) -> bool:
        return self._pos > 0

    @property
    def can_redo(self) -> bool:
        return self._pos < len(self._plans) - 1

    def push(self, edit) -> Plan:
        """Apply ``edit`` (or record a given :class:`Plan`) as the next step.

        Anything that could be redone is dropped. An illegal edit raises
        :class:`~workbench.errors.LegalityError` and leaves the history unchanged.
        """
        plan = edit if isinstance(edit, Plan) else apply_edit(self.graph, self.current, edit)
        del self._plans[self._pos + 1:]
        del self._edits[self._pos + 1:]
        self._plans.append(plan)
        self._edits.append(None if isinstance(edit, Plan) else edit)
        self._pos += 1
        return plan

    def undo(self) -> Plan:
        """Step back one edit; raises :class:`PlanError` when there is nothing to undo."""
        if not self.can_undo:
            raise PlanError("nothing to undo")
        self._pos -= 1
        return self.current

    def redo(self) -> Plan:
        """Step forward one undone edit; raises :class:`PlanError` when there is none."""
        if not self.can_redo:
            raise PlanError("nothing to redo")
        self._pos += 1
        return self.current
