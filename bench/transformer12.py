"""The 12-block transformer the app's benchmark opens, written by JAX (needs jax).

    python bench/transformer12.py [--out bench/.models] [--train] [--dims 2,8,32,64]

Writes ``transformer12_fwd.before.hlo`` (the forward pass as JAX lowers it, with the name stack
in every instruction's ``metadata={op_name=...}``: ``jit(forward)/block_3/attn/softmax/exp``;
about 1,800 instructions) and, with ``--train``, ``transformer12_train.after_noynn.hlo`` (a
training step, ``jax.value_and_grad`` of a mean-squared-error loss and an SGD update, after
XLA:CPU's optimisation with its library fusions off; flattened on import to about 40,000 nodes).
Each block is a pre-norm decoder block: layer norm, causal 4-head attention with softmax, a
GELU MLP, residual adds, each in its ``jax.named_scope``.

``tests/app/data/transformer12_fwd.before.hlo`` is the forward module this script writes with
the default dimensions (tests read it; they never need jax). The training step is too big to
commit (8 MB); the benchmark writes it into the git-ignored ``bench/.models``. XLA prints
``/*index=N*/`` comments inside long tuple types, which the importer on main read only from
issue 10's fixes on; :func:`readable` leaves them out when the importer cannot read the text
(they carry no meaning).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_cpu_experimental_ynn_fusion_type=").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build(dims=(2, 8, 32, 64), blocks: int = 12, train: bool = False) -> dict[str, str]:
    """HLO texts by file name: the forward module (before optimisation), and with ``train``
    the training step (after optimisation)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    batch, seq, d, f = dims

    def layer_norm(x, g, b, eps=1e-5):
        with jax.named_scope("layer_norm"):
            mu = x.mean(-1, keepdims=True)
            var = ((x - mu) ** 2).mean(-1, keepdims=True)
            return (x - mu) * lax.rsqrt(var + eps) * g + b

    def gelu(x):
        with jax.named_scope("gelu"):
            return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    def block(p, x, h=4):
        bsz, s, dd = x.shape
        with jax.named_scope("attn"):
            a = layer_norm(x, p["g1"], p["b1"])
            q, k, v = jnp.split(a @ p["wqkv"] + p["bqkv"], 3, axis=-1)

            def heads(t):
                return t.reshape(bsz, s, h, dd // h).transpose(0, 2, 1, 3)
            sc = jnp.einsum("bhqd,bhkd->bhqk", heads(q), heads(k)) / np.float32(
                np.sqrt(dd // h))
            sc = jnp.where(jnp.tril(jnp.ones((s, s), bool)), sc, -1e9)
            with jax.named_scope("softmax"):
                pr = jax.nn.softmax(sc, axis=-1)
            o = jnp.einsum("bhqk,bhkd->bhqd", pr, heads(v)).transpose(0, 2, 1, 3)
            x = x + o.reshape(bsz, s, dd) @ p["wo"] + p["bo"]
        with jax.named_scope("mlp"):
            m = layer_norm(x, p["g2"], p["b2"])
            return x + gelu(m @ p["w1"] + p["bf1"]) @ p["w2"] + p["bf2"]

    rng = np.random.default_rng(0)

    def dense(n_in, n_out):
        return (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)

    def params():
        z = np.zeros
        return dict(g1=np.ones(d, np.float32), b1=z(d, np.float32), wqkv=dense(d, 3 * d),
                    bqkv=z(3 * d, np.float32), wo=dense(d, d), bo=z(d, np.float32),
                    g2=np.ones(d, np.float32), b2=z(d, np.float32), w1=dense(d, f),
                    bf1=z(f, np.float32), w2=dense(f, d), bf2=z(d, np.float32))

    def forward(ps, x):
        for i, p in enumerate(ps):
            with jax.named_scope(f"block_{i}"):
                x = block(p, x)
        return x

    def loss(ps, x, y):
        out = forward(ps, x)
        with jax.named_scope("loss"):
            return jnp.mean((out - y) ** 2)

    def train_step(ps, x, y):
        value, grads = jax.value_and_grad(loss)(ps, x, y)
        with jax.named_scope("sgd"):
            return value, jax.tree_util.tree_map(lambda w, dw: w - 0.01 * dw, ps, grads)

    ps = [params() for _ in range(blocks)]
    x = rng.standard_normal((batch, seq, d)).astype(np.float32)
    y = rng.standard_normal((batch, seq, d)).astype(np.float32)
    out = {f"transformer{blocks}_fwd.before.hlo":
           jax.jit(forward).lower(ps, x).as_text(dialect="hlo", debug_info=True)}
    if train:
        compiled = jax.jit(train_step).lower(ps, x, y).compile()
        out[f"transformer{blocks}_train.after_noynn.hlo"] = compiled.as_text()
    return out


_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")


def readable(text: str, name: str) -> str:
    """``text``, without XLA's ``/*index=N*/`` comments if this workbench's importer cannot
    read the module with them."""
    from workbench.errors import WorkbenchError
    from workbench.importers.hlo_text import parse_hlo_module

    try:
        parse_hlo_module(text, name)
        return text
    except WorkbenchError:
        return _INDEX_COMMENT.sub("", text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / ".models")
    ap.add_argument("--train", action="store_true", help="also the training step (slow)")
    ap.add_argument("--dims", default="2,8,32,64", help="batch, sequence, model, MLP widths")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    dims = tuple(int(x) for x in a.dims.split(","))
    for name, text in build(dims, train=a.train).items():
        (a.out / name).write_text(readable(text, name))
        print(f"wrote {a.out / name} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
