"""Graph rewrites: functions from a :class:`~workbench.ir.Graph` to a new one.

A transform changes what is computed (or how), never how it is grouped into kernels: that is
the planner's job. Each returns a new graph (the IR is immutable) and a report of what it did.

* :func:`fold_batch_norms` / :func:`fold_batch_norm` — inference batch norm folded into the
  preceding convolution's weights and bias (:mod:`~workbench.transforms.folding`).
"""

from workbench.transforms.folding import FoldedNorm, FoldReport, fold_batch_norm, fold_batch_norms

__all__ = ["FoldReport", "FoldedNorm", "fold_batch_norm", "fold_batch_norms"]
