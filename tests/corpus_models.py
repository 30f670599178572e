"""The real-model corpus (corpus/, written by tools/make_corpus.py): names, files, JAX's values.

Tests read the committed files only; none of them needs jax.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
#: every small model of the corpus (the big "scale" model, when present, is tested apart)
ENTRIES = {m["name"]: m for m in MANIFEST["models"] if m["split"] != "scale"}
NAMES = sorted(ENTRIES)
STAGES = ("before", "after_noynn")


def path(name: str, stage: str) -> Path:
    """The file of one model: stage ``before``, ``after_noynn``, ``mlir`` or ``io``."""
    suffix = {"mlir": "mlir", "io": "io.npz"}.get(stage, f"{stage}.hlo")
    return CORPUS / f"{name}.{suffix}"


def io(name: str) -> dict:
    """``arg0..argN`` and ``out0..outM`` of one model (bf16 arrays as numpy's raw ``|V2``)."""
    with np.load(path(name, "io")) as data:
        return {k: data[k] for k in data.files}


def args_of(io_arrays: dict) -> dict:
    return {k: v for k, v in io_arrays.items() if k.startswith("arg")}


def outs_of(io_arrays: dict) -> list:
    n = sum(1 for k in io_arrays if k.startswith("out"))
    return [io_arrays[f"out{i}"] for i in range(n)]
