"""Plan editing: edits as records (merge, split, move, forbid, pin, reject, reset, replan),
``apply_edit``/``apply_edits`` through the one legality checker, and an undo/redo
:class:`History`."""

from workbench.editing.edits import (EDITS, Forbid, Merge, Move, Pin, Reject, Replan, Reset,
                                     Split, apply_edit, apply_edits, edit_from_json, edit_to_json)
from workbench.editing.history import History

__all__ = ["EDITS", "Forbid", "History", "Merge", "Move", "Pin", "Reject", "Replan", "Reset",
           "Split", "apply_edit", "apply_edits", "edit_from_json", "edit_to_json"]
