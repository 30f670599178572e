"""Write the small XLA:CPU modules of tests/planner/xla_cases/ (needs jax; run from the root).

    XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type= python tools/make_xla_cases.py

Each case is a few lines of JAX, lowered (``NAME.before.hlo``, what a user gives the workbench)
and compiled by XLA on the CPU with its classic fusion only (``NAME.after_noynn.hlo``, XLA's
own kernels), as ../shared/hlo's files are made. They are the cases of issue 11 whose
explanations were false: XLA:CPU's tree reduction (``sum(cos(x))`` on ``f32[33]``: three
kernels), its concatenate rule (fused along the major dimension, and along a minor dimension
under 128 elements; not along a minor dimension of 128 or more), and a softmax over one row (a
vector, axis 0 of ``f32[3,1,1]``). The files are committed; this script is how they were made.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")

OUT = Path(__file__).resolve().parent.parent / "tests" / "planner" / "xla_cases"


def _split_concat(axis, second):
    def f(x):
        import jax.numpy as jnp

        a, b = jnp.split(x, 2, axis=axis)
        return jnp.concatenate([a + b, second(a, b)], axis=axis)
    return f


def cases():
    """name -> (function, example arguments)."""
    import jax
    import jax.numpy as jnp

    def scaled_softmax(x):
        return jax.nn.softmax(x * (1 / 3), axis=0)

    f32 = jnp.float32
    return {
        "sum_cos_33": (lambda x: jnp.sum(jnp.cos(x)), (jnp.ones((33,), f32),)),
        "split_add_concat_major": (_split_concat(0, lambda a, b: a * b),
                                   (jnp.ones((64, 128), f32),)),
        "split_add_concat_minor64": (_split_concat(1, lambda a, b: a - b),
                                     (jnp.ones((32, 64), f32),)),
        "split_add_concat_minor128": (_split_concat(1, lambda a, b: a - b),
                                      (jnp.ones((64, 256), f32),)),
        "softmax_vector": (scaled_softmax, (jnp.ones((4,), f32),)),
        "softmax_3x1x1": (scaled_softmax, (jnp.ones((3, 1, 1), f32),)),
    }


def main() -> int:
    import jax

    OUT.mkdir(parents=True, exist_ok=True)
    for name, (fn, args) in cases().items():
        lowered = jax.jit(fn).lower(*args)
        (OUT / f"{name}.before.hlo").write_text(lowered.as_text(dialect="hlo"))
        (OUT / f"{name}.after_noynn.hlo").write_text(lowered.compile().as_text())
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
