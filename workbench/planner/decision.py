"""The decision log's record: :class:`Decision`, one planner step (or user edit) with its reason.

A planner on a large graph takes tens of thousands of steps, and writing each step's sentence
(the groups' names, times and byte counts formatted) and its member lists (every member's id, in
topological order) costs more than taking the step. So the planner may record a step *deferred*
(:meth:`Decision.later`): the step number, action, outcome and reason code at once, and the
numbers the rest is made from (group snapshots, times, bytes); the sentence, the node and member
lists and the numbers are built the first time any of them is read, once. A deferred decision
is equal to, hashes like, prints like and pickles like the same decision built at once.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError

from workbench.ir.attrs import EMPTY, Attrs

_FIELDS = ("step", "action", "fused", "reason", "message", "nodes", "members", "numbers",
           "removed")
_LATE = ("message", "nodes", "members", "numbers", "removed")


class Decision:
    """One step of the planner (or one user edit), taken or refused, with its reason.

    Parameters
    ----------
    step : int
        Position in the decision log (0-based).
    action : str
        What was tried: ``"fuse"`` (producer into consumers), ``"sibling"``, ``"pattern"``,
        ``"edit"``, ...
    fused : bool
        True if it was done.
    reason : str
        A short code (``"benefit"``, ``"cycle"``, ``"expensive-duplication"`` ...).
    message : str
        The reason as a sentence a person can read.
    nodes : tuple of str
        The nodes the step concerns (producer first, then consumers).
    members : tuple of tuple of str
        For a taken step: the full membership of each group it produced (for replay).
    numbers : Attrs
        The cost-model numbers behind it (seconds, bytes), e.g. ``time_unfused_s``,
        ``time_fused_s``, ``benefit_s``.
    removed : tuple of tuple of str
        For a taken step: the exact member sets of the groups it replaced. When given,
        :func:`~workbench.planner.plan.replay` removes exactly these (a duplicated producer's
        own group survives a step that copies it into one consumer); when empty, replay removes
        every group that is a subset of the new groups' union.

    Notes
    -----
    Immutable, compared and hashed by its fields, like a frozen dataclass.
    """

    __slots__ = ("step", "action", "fused", "reason", "_late", "_build")

    def __init__(self, step: int, action: str, fused: bool, reason: str, message: str,
                 nodes: tuple = (), members: tuple = (), numbers: Attrs = EMPTY,
                 removed: tuple = ()):
        _set = object.__setattr__
        _set(self, "step", step)
        _set(self, "action", action)
        _set(self, "fused", fused)
        _set(self, "reason", reason)
        _set(self, "_late", (message, nodes, members, numbers, removed))
        _set(self, "_build", None)

    @classmethod
    def later(cls, step: int, action: str, fused: bool, reason: str, build, args) -> "Decision":
        """A decision whose message, nodes, members, numbers and removed sets are built on
        first use, by ``build(*args)``.

        Parameters
        ----------
        step, action, fused, reason
            As for :class:`Decision`.
        build : callable
            Returns ``(message, nodes, members, numbers, removed)``: a str, a tuple of node
            ids, tuples of node-id tuples, a dict of numbers (or an :class:`Attrs`), and
            tuples of node-id tuples. Called at most once; ``args`` must not change until then.
        args : tuple
            Its arguments.

        Returns
        -------
        Decision
        """
        d = cls.__new__(cls)
        _set = object.__setattr__
        _set(d, "step", step)
        _set(d, "action", action)
        _set(d, "fused", fused)
        _set(d, "reason", reason)
        _set(d, "_late", None)
        _set(d, "_build", (build, args))
        return d

    def _fields(self) -> tuple:
        late = self._late
        if late is None:
            build, args = self._build
            message, nodes, members, numbers, removed = build(*args)
            if not isinstance(numbers, Attrs):
                numbers = Attrs.of_scalars(numbers) if numbers else EMPTY
            late = (message, tuple(nodes), tuple(members), numbers, tuple(removed))
            object.__setattr__(self, "_late", late)
            object.__setattr__(self, "_build", None)
        return late

    @property
    def message(self) -> str:
        return self._fields()[0]

    @property
    def nodes(self) -> tuple[str, ...]:
        return self._fields()[1]

    @property
    def members(self) -> tuple[tuple[str, ...], ...]:
        return self._fields()[2]

    @property
    def numbers(self) -> Attrs:
        return self._fields()[3]

    @property
    def removed(self) -> tuple[tuple[str, ...], ...]:
        return self._fields()[4]

    def _astuple(self) -> tuple:
        return (self.step, self.action, self.fused, self.reason) + self._fields()

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._astuple() == other._astuple()

    def __hash__(self):
        return hash(self._astuple())

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in zip(_FIELDS, self._astuple()))
        return f"Decision({body})"

    def __reduce__(self):
        return (Decision, self._astuple())

    def to_json(self) -> dict:
        d = {"step": self.step, "action": self.action, "fused": self.fused,
             "reason": self.reason, "message": self.message, "nodes": list(self.nodes)}
        if self.members:
            d["members"] = [list(m) for m in self.members]
        if self.removed:
            d["removed"] = [list(m) for m in self.removed]
        if self.numbers:
            d["numbers"] = self.numbers.to_json()
        return d

    @staticmethod
    def from_json(d: dict) -> "Decision":
        return Decision(int(d["step"]), str(d["action"]), bool(d["fused"]), str(d["reason"]),
                        str(d["message"]), tuple(d.get("nodes", ())),
                        tuple(tuple(m) for m in d.get("members", ())),
                        Attrs(d.get("numbers", {})),
                        tuple(tuple(m) for m in d.get("removed", ())))


__all__ = ["Decision"]
