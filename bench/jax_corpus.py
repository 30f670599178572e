"""Real JAX models at benchmark size for ``bench/bench_cost_model.py`` (needs jax).

    PYTHONPATH=. python bench/jax_corpus.py [--out bench/.corpus]

Writes ``NAME.before.hlo`` (what ``jax.jit(f).lower(...)`` gives, as HLO text) and
``NAME.after_noynn.hlo`` for each model, and ``manifest.json`` with each model's ``split``:
``tune`` or ``holdout``. The holdout third was fixed when this file was written, before the
cost model was calibrated or changed, and nothing about those models was looked at while
tuning: ``attention``, ``lstm_cell``, ``rmsnorm``, ``adam_update``, ``depthwise_conv_bn``. The
folder is git-ignored; the repository's own corpus (``corpus/manifest.json``, issue 10) takes
its place in the benchmark when it is there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")

HOLDOUT = ("attention", "lstm_cell", "rmsnorm", "adam_update", "depthwise_conv_bn")


def models():
    """name -> (function, argument shapes)."""
    import jax
    import jax.numpy as jnp

    def mlp_wide(x, w1, b1, w2, b2):
        return jax.nn.relu(x @ w1 + b1) @ w2 + b2

    def attention(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)

    def layernorm_big(x, g, b):
        m = jnp.mean(x, -1, keepdims=True)
        v = jnp.mean((x - m) ** 2, -1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b

    def gelu_erf(x, w):
        return jax.nn.gelu(x @ w, approximate=False)

    def swiglu(x, w1, w3, w2):
        return (jax.nn.silu(x @ w1) * (x @ w3)) @ w2

    def lstm_cell(x, h, c, w, b):
        z = jnp.concatenate([x, h], -1) @ w + b
        i, f, g, o = jnp.split(z, 4, -1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c2), c2

    def conv_bn_train(x, w, g, b):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        m = jnp.mean(y, (0, 1, 2))
        v = jnp.mean((y - m) ** 2, (0, 1, 2))
        return jax.nn.relu((y - m) * jax.lax.rsqrt(v + 1e-5) * g + b)

    def rmsnorm(x, g):
        return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g

    def positional(pos, freq):
        a = pos * freq
        return jnp.concatenate([jnp.sin(a), jnp.cos(a)], -1)

    def cross_entropy(logits, onehot):
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits, -1) * onehot, -1))

    def depthwise_conv_bn(x, w, scale, shift):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=64,
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y * scale + shift)

    def adam_update(p, g, m, v):
        m2 = 0.9 * m + 0.1 * g
        v2 = 0.999 * v + 0.001 * g * g
        return p - 1e-3 * (m2 / 0.1) / (jnp.sqrt(v2 / 0.001) + 1e-8), m2, v2

    def softmax_cols(x):
        return jax.nn.softmax(x, axis=0)

    def heads_transpose(x, s):
        y = x.reshape(32, 256, 8, 64).transpose(0, 2, 1, 3)
        return jnp.tanh(y * s)

    return {
        "mlp_wide": (mlp_wide, [(256, 1024), (1024, 2048), (2048,), (2048, 1024), (1024,)]),
        "attention": (attention, [(4, 8, 256, 64)] * 3),
        "layernorm_big": (layernorm_big, [(2048, 1024), (1024,), (1024,)]),
        "gelu_erf": (gelu_erf, [(512, 512), (512, 2048)]),
        "swiglu": (swiglu, [(128, 512), (512, 1408), (512, 1408), (1408, 512)]),
        "lstm_cell": (lstm_cell, [(64, 256), (64, 256), (64, 256), (512, 1024), (1024,)]),
        "conv_bn_train": (conv_bn_train, [(8, 32, 32, 32), (3, 3, 32, 64), (64,), (64,)]),
        "rmsnorm": (rmsnorm, [(1024, 2048), (2048,)]),
        "positional": (positional, [(4096, 1), (1, 256)]),
        "cross_entropy": (cross_entropy, [(512, 4096), (512, 4096)]),
        "depthwise_conv_bn": (depthwise_conv_bn, [(8, 64, 64, 64), (3, 3, 1, 64), (64,),
                                                  (64,)]),
        "adam_update": (adam_update, [(1 << 20,)] * 4),
        "softmax_cols": (softmax_cols, [(2048, 512)]),
        "heads_transpose": (heads_transpose, [(32, 256, 512), ()]),
    }


def main(argv=None) -> int:
    import jax
    import jax.numpy as jnp

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / ".corpus")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, (fn, shapes) in models().items():
        specs = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
        lowered = jax.jit(fn).lower(*specs)
        (args.out / f"{name}.before.hlo").write_text(lowered.as_text(dialect="hlo"))
        (args.out / f"{name}.after_noynn.hlo").write_text(lowered.compile().as_text())
        entries.append({"name": name, "before": f"{name}.before.hlo",
                        "after_noynn": f"{name}.after_noynn.hlo",
                        "split": "holdout" if name in HOLDOUT else "tune"})
        print(f"wrote {name} ({entries[-1]['split']})")
    (args.out / "manifest.json").write_text(json.dumps({"models": entries}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
