"""Reading a graph's input arrays from disk: ``arg0..argN`` in an ``.npz`` archive (the layout
of ``../shared/hlo/*.io.npz``)."""

from __future__ import annotations

from workbench.errors import InputError


def load_inputs(path: str):
    """Read ``arg0..argN`` from an ``.npz`` file (never unpickles objects).

    Raises
    ------
    InputError
        If the file cannot be read as npz.
    """
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise InputError("cannot read inputs: this is a single .npy array, not an .npz "
                                 "with arg0..argN", file=path)
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else (
            "not an .npz archive of arrays" if "pickle" in str(exc) or "zip" in str(exc).lower()
            else str(exc))
        raise InputError(f"cannot read inputs: {reason}", file=path) from None
