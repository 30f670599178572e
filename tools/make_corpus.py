"""Build the real-model corpus in corpus/ with JAX (run from the repository root).

    pip install -e '.[jax]'
    python tools/make_corpus.py                  # the small corpus, into corpus/ (committed)
    python tools/make_corpus.py --only gru_scan  # one model (or several, comma-separated)
    python tools/make_corpus.py --size full      # bigger shapes, into .corpus_full/ (ignored)
    python tools/make_corpus.py --big            # the 12-block transformer training step

Each model is a JAX function and its arguments. For each, the script writes

- ``NAME.before.hlo``: the HLO JAX lowers (``jax.jit(f).lower(*args).as_text(dialect="hlo")``),
- ``NAME.after_noynn.hlo``: the module after XLA:CPU's optimisation pipeline with
  ``XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=`` ("noynn": XLA:CPU's YNNPACK library
  fusions switched off, so that every fusion is a plain XLA fusion whose ops are in its
  ``calls=`` computation, not a ``kind=kCustom`` call into a library),
- ``NAME.mlir``: the StableHLO text (``lowered.as_text()``, what a JAX user pastes),
- ``NAME.io.npz``: ``arg0..argN`` (the flattened arguments, in parameter order) and
  ``out0..outM`` (the flattened outputs ``jax.jit`` computed on the CPU),

and ``manifest.json`` lists every model with a description, its kind, the dtypes it computes
in, its instruction counts and a ``split``: every third model by name is ``holdout`` (for
checking a cost model calibrated on the ``tune`` models), the rest ``tune``.

The big model (``--big``) is written into corpus/ when each of its files is under 3 MB, else
into ``.corpus_big/`` (git-ignored). At the small sizes the 12-block model's optimised module
has 62k instructions (7.7 MB of text: XLA:CPU duplicates the residual stream's elementwise
backward chain into every consumer fusion, ~900 instructions each), so it stays in
``.corpus_big/``; ``--blocks 4`` gives a 10k-instruction module. Nothing here is imported by the
workbench or its tests.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

# must be set before jax creates its CPU client
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_cpu_experimental_ynn_fusion_type=").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from workbench.importers.capture import write_capture  # noqa: E402

try:
    import jax  # noqa: E402
    import jax.numpy as jnp  # noqa: E402
    from jax import lax  # noqa: E402
except ImportError:  # pragma: no cover - the script needs the [jax] extra
    sys.exit("tools/make_corpus.py needs jax: pip install -e '.[jax]'")

ROOT = Path(__file__).resolve().parent.parent
BIG_LIMIT = 3 << 20          #: the big model goes into corpus/ only if each file is smaller

SIZE = {"small": dict(B=2, S=8, D=32, H=4, F=64, V=64, C=8, HW=8, T=6, E=4),
        "full": dict(B=8, S=128, D=256, H=8, F=1024, V=1024, C=64, HW=32, T=32, E=8)}


@dataclass
class Model:
    name: str
    fn: object
    args: object            # callable(rng, dims) -> tuple of arrays (pytrees allowed)
    description: str
    kind: str
    x64: bool = False        #: build with jax_enable_x64 (for s64/u64/f64 models)


MODELS: list[Model] = []


def model(kind: str, description: str):
    """Register a model function; its arguments are set just after (``MODELS[-1].args``)."""
    def deco(fn):
        MODELS.append(Model(fn.__name__, fn, None, description, kind))
        return fn
    return deco


def normal(rng, *shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def dense(rng, n_in, n_out):
    return normal(rng, n_in, n_out, scale=1 / np.sqrt(n_in)), normal(rng, n_out, scale=0.1)


# ----- building blocks -------------------------------------------------------------------------

def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def attention(q, k, v, causal=False):
    # q, k, v: [B, H, S, hd]
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    if causal:
        n = q.shape[2]
        mask = jnp.tril(jnp.ones((n, n), bool))
        s = jnp.where(mask, s, -1e9)
    p = jax.nn.softmax(s, axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", p, v)


def split_heads(x, h):
    b, s, d = x.shape
    return x.reshape(b, s, h, d // h).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, s, hd = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, h * hd)


def block_params(rng, d, f):
    wqkv, bqkv = dense(rng, d, 3 * d)
    wo, bo = dense(rng, d, d)
    w1, b1 = dense(rng, d, f)
    w2, b2 = dense(rng, f, d)
    ones, zeros = np.ones(d, np.float32), np.zeros(d, np.float32)
    return dict(g1=ones, b1n=zeros, wqkv=wqkv, bqkv=bqkv, wo=wo, bo=bo, g2=ones.copy(),
                b2n=zeros.copy(), w1=w1, b1=b1, w2=w2, b2=b2)


def decoder_block(p, x, h):
    a = layer_norm(x, p["g1"], p["b1n"])
    q, k, v = jnp.split(a @ p["wqkv"] + p["bqkv"], 3, axis=-1)
    o = attention(split_heads(q, h), split_heads(k, h), split_heads(v, h), causal=True)
    x = x + merge_heads(o) @ p["wo"] + p["bo"]
    m = layer_norm(x, p["g2"], p["b2n"])
    return x + gelu(m @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, labels[..., None], axis=-1)[..., 0]
    return -picked.mean()


def lm_params(rng, d):
    V, D, F = d["V"], d["D"], d["F"]
    return dict(emb=normal(rng, V, D, scale=0.1), pos=normal(rng, d["S"], D, scale=0.1),
                block=block_params(rng, D, F), gf=np.ones(D, np.float32),
                bf=np.zeros(D, np.float32), head=normal(rng, D, V, scale=1 / np.sqrt(D)))


def lm_loss(p, tokens, labels, h):
    x = p["emb"][tokens] + p["pos"][None]
    x = decoder_block(p["block"], x, h)
    logits = layer_norm(x, p["gf"], p["bf"]) @ p["head"]
    return cross_entropy(logits, labels)


def tokens(rng, d):
    return rng.integers(0, d["V"], size=(d["B"], d["S"])).astype(np.int32)


# ----- transformers ----------------------------------------------------------------------------

@model("transformer", "GPT-style decoder layer: token + position embedding (gather), causal "
       "attention, GELU MLP, LM head and cross-entropy loss (take_along_axis gather)")
def gpt_decoder_loss(p, toks, labels):
    return lm_loss(p, toks, labels, 4)


def _lm_args(rng, d):
    return (lm_params(rng, d), tokens(rng, d), tokens(rng, d))


MODELS[-1].args = _lm_args


@model("training", "full training step of a one-layer LM: value_and_grad of the cross-entropy "
       "loss (embedding scatter-add in the backward pass), then an SGD update of every weight")
def lm_train_step(p, toks, labels):
    loss, g = jax.value_and_grad(lm_loss)(p, toks, labels, 4)
    return loss, jax.tree_util.tree_map(lambda w, dw: w - 0.1 * dw, p, g)


MODELS[-1].args = _lm_args


@model("transformer", "ViT block: patch embedding (strided convolution), class token, "
       "pre-norm attention and MLP")
def vit_block(img, wpatch, cls, p):
    x = lax.conv_general_dilated(img, wpatch, (4, 4), "VALID",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    b, hh, ww, c = x.shape
    x = x.reshape(b, hh * ww, c)
    x = jnp.concatenate([jnp.broadcast_to(cls, (b, 1, c)), x], axis=1)
    return decoder_block_noncausal(p, x, 4)


def decoder_block_noncausal(p, x, h):
    a = layer_norm(x, p["g1"], p["b1n"])
    q, k, v = jnp.split(a @ p["wqkv"] + p["bqkv"], 3, axis=-1)
    o = attention(split_heads(q, h), split_heads(k, h), split_heads(v, h))
    x = x + merge_heads(o) @ p["wo"] + p["bo"]
    m = layer_norm(x, p["g2"], p["b2n"])
    return x + jax.nn.gelu(m @ p["w1"] + p["b1"], approximate=False) @ p["w2"] + p["b2"]


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"], d["HW"], 3),
                                  normal(rng, 4, 4, 3, d["D"], scale=0.2),
                                  normal(rng, 1, 1, d["D"], scale=0.1),
                                  block_params(rng, d["D"], d["F"]))


def _qkv_args(rng, d, kv_heads=None):
    B, H, S, hd = d["B"], d["H"], d["S"], d["D"] // d["H"]
    kh = kv_heads or H
    return (normal(rng, B, H, S, hd), normal(rng, B, kh, S, hd), normal(rng, B, kh, S, hd))


@model("attention", "causal self-attention: scores, lower-triangular mask (select), softmax, "
       "weighted sum")
def attn_causal(q, k, v):
    return attention(q, k, v, causal=True)


MODELS[-1].args = _qkv_args


def rope(x, base=10000.0):
    s, hd = x.shape[-2], x.shape[-1]
    inv = 1.0 / base ** (jnp.arange(0, hd, 2, dtype=jnp.float32) / hd)
    ang = jnp.arange(s, dtype=jnp.float32)[:, None] * inv[None, :]
    cos, sin = jnp.cos(ang), jnp.sin(ang)
    x1, x2 = x[..., ::2], x[..., 1::2]
    out = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return out.reshape(x.shape)


@model("attention", "rotary position embedding (strided slices, sin/cos, interleave) on q and "
       "k, then causal attention")
def attn_rotary(q, k, v):
    return attention(rope(q), rope(k), v, causal=True)


MODELS[-1].args = _qkv_args


@model("attention", "grouped-query attention: 4 query heads share 2 key/value heads "
       "(broadcast of the kv heads)")
def attn_gqa(q, k, v):
    rep = q.shape[1] // k.shape[1]
    return attention(q, jnp.repeat(k, rep, axis=1), jnp.repeat(v, rep, axis=1), causal=True)


MODELS[-1].args = lambda rng, d: _qkv_args(rng, d, kv_heads=2)


@model("attention", "KV-cache decode step: write this step's k and v at a runtime position "
       "(dynamic-update-slice), read the valid prefix by mask, attend")
def kv_cache_decode(cache_k, cache_v, q, k, v, pos):
    cache_k = lax.dynamic_update_slice(cache_k, k, (0, 0, pos, 0))
    cache_v = lax.dynamic_update_slice(cache_v, v, (0, 0, pos, 0))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, cache_k) / np.sqrt(q.shape[-1]).astype(np.float32)
    valid = jnp.arange(cache_k.shape[2]) <= pos
    s = jnp.where(valid[None, None, None, :], s, -1e9)
    o = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), cache_v)
    return o, cache_k, cache_v


MODELS[-1].args = lambda rng, d: (
    normal(rng, d["B"], d["H"], 16, d["D"] // d["H"]),
    normal(rng, d["B"], d["H"], 16, d["D"] // d["H"]),
    normal(rng, d["B"], d["H"], 1, d["D"] // d["H"]),
    normal(rng, d["B"], d["H"], 1, d["D"] // d["H"]),
    normal(rng, d["B"], d["H"], 1, d["D"] // d["H"]), np.int32(5))


@model("attention", "KV-cache window read: dynamic-slice of a runtime offset out of the cache, "
       "then a dot with the query")
def kv_cache_window(cache, q, start):
    win = lax.dynamic_slice(cache, (0, start, 0), (cache.shape[0], 4, cache.shape[2]))
    return jnp.einsum("bd,bkd->bk", q, win)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], 16, d["D"]), normal(rng, d["B"], d["D"]),
                                  np.int32(7))


# ----- convolutional ---------------------------------------------------------------------------

def bn(x, m, v, g, b):
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


@model("conv", "MobileNet block: 1x1 expand, 3x3 depthwise convolution (feature_group_count), "
       "inference batch norm, ReLU6, 1x1 project, residual")
def mobilenet_block(x, we, wd, wp, m, v, g, b):
    c = x.shape[-1]
    dn = ("NHWC", "HWIO", "NHWC")
    h = lax.conv_general_dilated(x, we, (1, 1), "SAME", dimension_numbers=dn)
    h = jnp.clip(bn(h, m, v, g, b), 0, 6)
    h = lax.conv_general_dilated(h, wd, (1, 1), "SAME", dimension_numbers=dn,
                                 feature_group_count=h.shape[-1])
    h = jnp.clip(h, 0, 6)
    return x + lax.conv_general_dilated(h, wp, (1, 1), "SAME", dimension_numbers=dn)[..., :c]


MODELS[-1].args = lambda rng, d: (
    normal(rng, d["B"], d["HW"], d["HW"], d["C"]),
    normal(rng, 1, 1, d["C"], 4 * d["C"], scale=0.3), normal(rng, 3, 3, 1, 4 * d["C"], scale=0.3),
    normal(rng, 1, 1, 4 * d["C"], d["C"], scale=0.2), normal(rng, 4 * d["C"], scale=0.1),
    np.abs(normal(rng, 4 * d["C"])) + 0.5, np.ones(4 * d["C"], np.float32),
    np.zeros(4 * d["C"], np.float32))


@model("conv", "UNet down block: two 3x3 convolutions with ReLU, then 2x2 max pooling "
       "(reduce-window)")
def unet_down(x, w1, w2):
    dn = ("NHWC", "HWIO", "NHWC")
    h = jax.nn.relu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    h = jax.nn.relu(lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=dn))
    return h, lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"], d["HW"], 4),
                                  normal(rng, 3, 3, 4, d["C"], scale=0.3),
                                  normal(rng, 3, 3, d["C"], d["C"], scale=0.2))


@model("conv", "UNet up block: transposed convolution (lhs dilation), concatenation with the "
       "skip connection, 3x3 convolution, ReLU")
def unet_up(x, skip, wt, w):
    dn = ("NHWC", "HWIO", "NHWC")
    up = lax.conv_transpose(x, wt, (2, 2), "SAME", dimension_numbers=dn)
    h = jnp.concatenate([up, skip], axis=-1)
    return jax.nn.relu(lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=dn))


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"] // 2, d["HW"] // 2, d["C"]),
                                  normal(rng, d["B"], d["HW"], d["HW"], 4),
                                  normal(rng, 2, 2, d["C"], 4, scale=0.3),
                                  normal(rng, 3, 3, 8, 4, scale=0.3))


@model("conv", "max-pool gradient: grad of a 2x2 strided max pool (select-and-scatter)")
def maxpool_grad(x):
    def f(x):
        return (lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
                ** 2).sum()
    return jax.grad(f)(x)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"], d["HW"], 3),)


@model("conv", "average pooling 3x3, stride 2, SAME padding (reduce-window add with padding, "
       "divided by a reduce-window count of the valid elements)")
def avgpool_same(x):
    ones = jnp.ones_like(x)
    win, st = (1, 3, 3, 1), (1, 2, 2, 1)
    s = lax.reduce_window(x, 0.0, lax.add, win, st, "SAME")
    n = lax.reduce_window(ones, 0.0, lax.add, win, st, "SAME")
    return s / n


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"], d["HW"], 3),)


@model("conv", "dilated reduce-window (window and base dilation) and a strided average-pool "
       "gradient (interior padding)")
def dilated_window(x):
    a = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "VALID",
                          window_dilation=(1, 2, 2, 1))
    b = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                          base_dilation=(1, 2, 2, 1))
    g = jax.grad(lambda y: (lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                              "VALID") ** 2).sum())(x)
    return a, b, g


MODELS[-1].args = lambda rng, d: (normal(rng, 1, d["HW"], d["HW"], 2),)


@model("conv", "nearest-neighbour 2x resize (jax.image.resize: index arithmetic and a gather)")
def resize_nearest(x):
    b, h, w, c = x.shape
    return jax.image.resize(x, (b, 2 * h, 2 * w, c), method="nearest")


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["HW"] // 2, d["HW"] // 2, 3),)


@model("conv", "batch norm in training mode (batch mean and variance) and the gradient of a "
       "weighted tanh loss with respect to the input")
def batchnorm_train_grad(x, g, b, r):
    def f(x):
        m = x.mean((0, 1, 2))
        v = ((x - m) ** 2).mean((0, 1, 2))
        return (jnp.tanh((x - m) * lax.rsqrt(v + 1e-5) * g + b) * r).sum()
    return jax.value_and_grad(f)(x)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], 4, 4, d["C"]),
                                  np.ones(d["C"], np.float32), np.zeros(d["C"], np.float32),
                                  normal(rng, d["B"], 4, 4, d["C"]))


# ----- recurrent -------------------------------------------------------------------------------

def lstm(p, x, h, c):
    z = x @ p["wx"] + h @ p["wh"] + p["b"]
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def gru(p, x, h):
    zr = jax.nn.sigmoid(x @ p["wx"][:, :2 * h.shape[-1]] + h @ p["wh"] + p["b"])
    z, r = jnp.split(zr, 2, axis=-1)
    n = jnp.tanh(x @ p["wx"][:, 2 * h.shape[-1]:] + (r * h) @ p["wn"] + p["bn"])
    return (1 - z) * n + z * h


def gru_params(rng, d):
    D = d["D"]
    return dict(wx=normal(rng, D, 3 * D, scale=1 / np.sqrt(D)),
                wh=normal(rng, D, 2 * D, scale=1 / np.sqrt(D)),
                wn=normal(rng, D, D, scale=1 / np.sqrt(D)),
                b=normal(rng, 2 * D, scale=0.1), bn=normal(rng, D, scale=0.1))


@model("recurrent", "LSTM cell: two dots, four gates (sigmoid, tanh), new cell and hidden state")
def lstm_cell(p, x, h, c):
    return lstm(p, x, h, c)


MODELS[-1].args = lambda rng, d: (
    dict(wx=normal(rng, d["D"], 4 * d["D"], scale=1 / np.sqrt(d["D"])),
         wh=normal(rng, d["D"], 4 * d["D"], scale=1 / np.sqrt(d["D"])),
         b=normal(rng, 4 * d["D"], scale=0.1)),
    normal(rng, d["B"], d["D"]), normal(rng, d["B"], d["D"]), normal(rng, d["B"], d["D"]))


@model("recurrent", "GRU cell: update and reset gates, candidate state")
def gru_cell(p, x, h):
    return gru(p, x, h)


MODELS[-1].args = lambda rng, d: (gru_params(rng, d), normal(rng, d["B"], d["D"]),
                                  normal(rng, d["B"], d["D"]))


@model("recurrent", "GRU scanned over a sequence with lax.scan (a while loop over the time "
       "steps, dynamic-slice of the inputs, dynamic-update-slice of the outputs)")
def gru_scan(p, xs, h0):
    def step(h, x):
        h = gru(p, x, h)
        return h, h
    h, hs = lax.scan(step, h0, xs)
    return h, hs


MODELS[-1].args = lambda rng, d: (gru_params(rng, d), normal(rng, d["T"], d["B"], d["D"]),
                                  normal(rng, d["B"], d["D"]))


@model("control", "fixed-count loop (lax.fori_loop: a while loop): ten steps of power "
       "iteration with normalisation")
def power_iteration(a, v):
    def body(i, v):
        w = a @ v
        return w / jnp.sqrt((w * w).sum())
    return lax.fori_loop(0, 10, body, v)


MODELS[-1].args = lambda rng, d: (normal(rng, d["D"], d["D"]), normal(rng, d["D"]))


@model("control", "data-dependent branch (lax.cond: a conditional with two computations)")
def cond_branch(x, t):
    return lax.cond(t > 0, lambda x: jnp.tanh(x) * 2.0, lambda x: jnp.exp(-x * x), x)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["D"]), np.float32(0.5))


@model("control", "lax.switch over three branches by a runtime index (conditional with an "
       "s32 branch index)")
def switch_branch(x, i):
    return lax.switch(i, [lambda x: x + 1.0, lambda x: x * x, lambda x: jnp.sin(x)], x)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["D"]), np.int32(2))


@model("control", "while loop with a data-dependent trip count (Newton iterations for sqrt "
       "until converged)")
def newton_while(x):
    def cond(s):
        y, i = s
        return (jnp.abs(y * y - x).max() > 1e-5) & (i < 50)

    def body(s):
        y, i = s
        return 0.5 * (y + x / y), i + 1
    y, n = lax.while_loop(cond, body, (jnp.ones_like(x), jnp.int32(0)))
    return y, n


MODELS[-1].args = lambda rng, d: (np.abs(normal(rng, d["D"])) + 0.5,)


# ----- optimisers ------------------------------------------------------------------------------

def _opt_params(rng, d):
    D, F = d["D"], d["F"]
    shapes = [(D, F), (F,), (F, D), (D,), (D, D), (D,), (D,)]
    return [normal(rng, *s) for s in shapes]


@model("optimizer", "Adam update of seven weight tensors (moments, bias correction, rsqrt): a "
       "tuple of 21 outputs")
def adam_update(params, grads, m, v, step):
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    t = step + 1.0
    out_p, out_m, out_v = [], [], []
    for p, g, mm, vv in zip(params, grads, m, v):
        mm = b1 * mm + (1 - b1) * g
        vv = b2 * vv + (1 - b2) * g * g
        mh = mm / (1 - b1 ** t)
        vh = vv / (1 - b2 ** t)
        out_p.append(p - lr * mh / (jnp.sqrt(vh) + eps))
        out_m.append(mm)
        out_v.append(vv)
    return out_p, out_m, out_v


MODELS[-1].args = lambda rng, d: (_opt_params(rng, d), _opt_params(rng, d),
                                  _opt_params(rng, d),
                                  [np.abs(a) for a in _opt_params(rng, d)], np.float32(3.0))


@model("optimizer", "SGD with momentum and weight decay over seven weight tensors")
def sgd_momentum(params, grads, mom):
    new_p, new_m = [], []
    for p, g, m in zip(params, grads, mom):
        m = 0.9 * m + g + 1e-4 * p
        new_p.append(p - 0.01 * m)
        new_m.append(m)
    return new_p, new_m


MODELS[-1].args = lambda rng, d: (_opt_params(rng, d), _opt_params(rng, d),
                                  _opt_params(rng, d))


@model("optimizer", "global-norm gradient clipping (a sum of squares over every tensor, a "
       "scalar factor, a scale of each)")
def clip_by_global_norm(grads):
    norm = jnp.sqrt(sum((g * g).sum() for g in grads))
    scale = jnp.minimum(1.0, 1.0 / (norm + 1e-6))
    return [g * scale for g in grads]


MODELS[-1].args = lambda rng, d: (_opt_params(rng, d),)


# ----- reduced precision -----------------------------------------------------------------------

BF16 = jnp.bfloat16


@model("bf16", "bf16 MLP: bf16 weights and activations, dots accumulating in f32 "
       "(preferred_element_type), bias and GELU in bf16")
def mlp_bf16(x, w1, b1, w2, b2):
    h = jnp.dot(x, w1, preferred_element_type=jnp.float32).astype(BF16) + b1
    h = jax.nn.gelu(h)
    return jnp.dot(h, w2, preferred_element_type=jnp.float32) + b2


def _bf(a):
    return np.asarray(jnp.asarray(a, BF16))


MODELS[-1].args = lambda rng, d: (_bf(normal(rng, d["B"] * d["S"], d["D"])),
                                  _bf(normal(rng, d["D"], d["F"], scale=1 / np.sqrt(d["D"]))),
                                  _bf(normal(rng, d["F"], scale=0.1)),
                                  _bf(normal(rng, d["F"], d["D"], scale=1 / np.sqrt(d["F"]))),
                                  _bf(normal(rng, d["D"], scale=0.1)))


@model("bf16", "bf16 layer norm and softmax: reductions on bf16 data (XLA computes them in f32 "
       "and rounds)")
def layernorm_softmax_bf16(x, g, b):
    y = layer_norm(x, g, b)
    return jax.nn.softmax(y, axis=-1)


MODELS[-1].args = lambda rng, d: (_bf(normal(rng, d["B"], d["S"], d["D"])),
                                  _bf(np.ones(d["D"], np.float32)),
                                  _bf(np.zeros(d["D"], np.float32)))


@model("bf16", "bf16 causal attention with f32 softmax (mixed precision: convert pairs)")
def attn_bf16(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k, preferred_element_type=jnp.float32)
    s = s / np.float32(np.sqrt(q.shape[-1]))
    n = q.shape[2]
    s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, -1e9)
    p = jax.nn.softmax(s, axis=-1).astype(BF16)
    return jnp.einsum("bhqk,bhkd->bhqd", p, v)


MODELS[-1].args = lambda rng, d: tuple(_bf(a) for a in _qkv_args(rng, d))


@model("f16", "f16 MLP: f16 dots, bias, ReLU and tanh")
def mlp_f16(x, w1, b1, w2):
    h = jax.nn.relu(x @ w1 + b1)
    return jnp.tanh(h @ w2)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"] * d["S"], d["D"], dtype=np.float16),
                                  normal(rng, d["D"], d["F"], scale=1 / np.sqrt(d["D"]),
                                         dtype=np.float16),
                                  normal(rng, d["F"], scale=0.1, dtype=np.float16),
                                  normal(rng, d["F"], d["D"], scale=1 / np.sqrt(d["F"]),
                                         dtype=np.float16))


@model("f16", "f16 residual add + layer norm with the statistics in f32 (explicit upcast)")
def layernorm_f16(x, r, g, b):
    y = (x + r).astype(jnp.float32)
    return layer_norm(y, g, b).astype(jnp.float16)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["S"], d["D"], dtype=np.float16),
                                  normal(rng, d["B"], d["S"], d["D"], dtype=np.float16),
                                  np.ones(d["D"], np.float32), np.zeros(d["D"], np.float32))


# ----- indexing, sorting -----------------------------------------------------------------------

@model("indexing", "embedding lookup (jnp.take: gather of rows) scaled, plus a position "
       "embedding")
def embedding_gather(table, ids, pos):
    return jnp.take(table, ids, axis=0) * np.float32(np.sqrt(table.shape[1])) + pos


MODELS[-1].args = lambda rng, d: (normal(rng, d["V"], d["D"]), tokens(rng, d),
                                  normal(rng, d["S"], d["D"]))


@model("indexing", "segment sum (jax.ops.segment_sum: scatter-add) and a one-hot scatter "
       "(.at[].set)")
def segment_sum(data, seg, idx):
    s = jax.ops.segment_sum(data, seg, num_segments=8)
    z = jnp.zeros((data.shape[0], 8), data.dtype).at[jnp.arange(data.shape[0]), idx].set(1.0)
    return s, z


MODELS[-1].args = lambda rng, d: (normal(rng, 16, d["D"]),
                                  rng.integers(0, 8, 16).astype(np.int32),
                                  rng.integers(0, 8, 16).astype(np.int32))


@model("indexing", "scatter with max and multiply combiners (.at[].max, .at[].multiply) and a "
       "take_along_axis gather")
def scatter_combiners(x, idx, upd):
    a = x.at[idx].max(upd)
    b = x.at[idx].multiply(upd)
    c = jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    return a, b, c


MODELS[-1].args = lambda rng, d: (normal(rng, 8, 6), rng.integers(0, 8, 5).astype(np.int32),
                                  normal(rng, 5, 6))


@model("sort", "top-k (lax.top_k: values and indices) of logits, then a softmax over the k")
def topk_softmax(x):
    v, i = lax.top_k(x, 4)
    return jax.nn.softmax(v, axis=-1), i


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"] * d["S"], d["V"]),)


@model("sort", "sort and argsort along the last axis (stable sort with an index operand), and "
       "a median from the sorted values")
def sort_argsort(x):
    s = jnp.sort(x, axis=-1)
    i = jnp.argsort(x, axis=-1)
    return s, i, s[..., x.shape[-1] // 2]


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], 17),)


@model("sort", "argmax and max over the class axis (a variadic reduce with a comparator "
       "computation) and the accuracy against labels")
def argmax_accuracy(logits, labels):
    pred = jnp.argmax(logits, axis=-1)
    return pred, (pred == labels).mean(), logits.max(-1)


MODELS[-1].args = lambda rng, d: (normal(rng, 16, 10), rng.integers(0, 10, 16).astype(np.int32))


@model("sort", "mixture-of-experts router: softmax gate, top-2 experts per token, one-hot "
       "dispatch, expert MLPs and the weighted combination")
def moe_router(x, wg, w1, w2):
    gates = jax.nn.softmax(x @ wg, axis=-1)                    # [T, E]
    topv, topi = lax.top_k(gates, 2)                           # [T, 2]
    topv = topv / topv.sum(-1, keepdims=True)
    onehot = jax.nn.one_hot(topi, wg.shape[1], dtype=x.dtype)  # [T, 2, E]
    combine = (onehot * topv[..., None]).sum(1)                # [T, E]
    h = jax.nn.relu(jnp.einsum("td,edf->tef", x, w1))
    y = jnp.einsum("tef,efd->ted", h, w2)
    return jnp.einsum("ted,te->td", y, combine), topi


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"] * d["S"], d["D"]),
                                  normal(rng, d["D"], d["E"], scale=0.3),
                                  normal(rng, d["E"], d["D"], d["F"], scale=1 / np.sqrt(d["D"])),
                                  normal(rng, d["E"], d["F"], d["D"], scale=1 / np.sqrt(d["F"])))


@model("indexing", "cumulative sum and cumulative max along an axis (XLA:CPU lowers them to "
       "reduce-window with edge padding)")
def cumulative(x):
    return jnp.cumsum(x, axis=1), lax.cummax(x, axis=1)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], 16),)


@model("indexing", "pad with interior padding (lax.pad: low, high, interior per dimension, "
       "negative edges crop) and a reversed slice")
def pad_interior(x):
    y = lax.pad(x, np.float32(-1.0), ((1, 2, 1), (-1, 0, 2)))
    return y, x[::-1, 1::2]


MODELS[-1].args = lambda rng, d: (normal(rng, 5, 6),)


@model("random", "dropout with a threefry key (jax.random.bernoulli: u32 shifts, xors, "
       "rotations and a bit-cast to float) on a dense layer")
def dropout_dense(x, w, key):
    h = jax.nn.relu(x @ w)
    keep = jax.random.bernoulli(jax.random.wrap_key_data(key), 0.8, h.shape)
    return jnp.where(keep, h / 0.8, 0.0)


MODELS[-1].args = lambda rng, d: (normal(rng, d["B"], d["D"]),
                                  normal(rng, d["D"], d["D"], scale=0.2),
                                  np.array([0, 42], np.uint32))


@model("random", "rng-bit-generator with the three-fry and the default (Philox on XLA:CPU) "
       "algorithms, 32- and 64-bit, turned into uniform floats")
def rng_bits(key):
    k, bits = lax.rng_bit_generator(key, (4, 8), dtype=jnp.uint32,
                                    algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    u = lax.bitcast_convert_type((bits >> 9) | np.uint32(0x3F800000), jnp.float32) - 1.0
    k2, bits2 = lax.rng_bit_generator(key, (3, 5), dtype=jnp.uint32)
    k3, bits3 = lax.rng_bit_generator(key, (7,), dtype=jnp.uint16,
                                      algorithm=lax.RandomAlgorithm.RNG_PHILOX)
    return k, u, k2, bits2, k3, bits3


MODELS[-1].args = lambda rng, d: (np.array([1, 2, 3, 4], np.uint32),)


@model("misc", "softmax cross-entropy with integer labels via one-hot, logsumexp, label "
       "smoothing, and its gradient with respect to the logits")
def xent_grad(logits, labels):
    def f(z):
        oh = jax.nn.one_hot(labels, z.shape[-1]) * 0.9 + 0.1 / z.shape[-1]
        return -(oh * jax.nn.log_softmax(z)).sum(-1).mean()
    return jax.value_and_grad(f)(logits)


MODELS[-1].args = lambda rng, d: (normal(rng, 16, d["V"]),
                                  rng.integers(0, d["V"], 16).astype(np.int32))


@model("misc", "integer and bit ops: s8/u8/s16/u16/s64/u64 arithmetic, shifts, popcount, "
       "clamps and converts between them")
def int_mix(a8, b16, c64):
    x = a8.astype(jnp.int16) * 3 + b16
    y = lax.shift_left(x.astype(jnp.uint16), np.uint16(2)) ^ np.uint16(0x5A5A)
    z = lax.population_count(y).astype(jnp.int64) + c64 // 3 + c64 % 5
    u = z.astype(jnp.uint64) >> np.uint64(1)
    w = jnp.clip(z, -100, 100).astype(jnp.uint8)
    return x, y, z, u, w, jnp.abs(a8) > 5


MODELS[-1].x64 = True
MODELS[-1].args = lambda rng, d: (rng.integers(-100, 100, (4, 8)).astype(np.int8),
                                  rng.integers(-1000, 1000, (4, 8)).astype(np.int16),
                                  rng.integers(-10 ** 9, 10 ** 9, (4, 8)).astype(np.int64))


@model("misc", "f64 numerics: log1p, expm1, erf, atan2, cbrt, power, rounding and is-finite "
       "in double precision")
def f64_math(x, y):
    a = jnp.log1p(jnp.abs(x)) + jnp.expm1(-jnp.abs(y)) + jax.scipy.special.erf(x)
    b = jnp.arctan2(x, y) + jnp.cbrt(x) + jnp.abs(x) ** 1.5
    c = jnp.round(x * 3) + jnp.floor(y) + jnp.sign(x)
    return a, b, c, jnp.isfinite(x / (y - y))


MODELS[-1].x64 = True
MODELS[-1].args = lambda rng, d: (normal(rng, 4, 8, dtype=np.float64),
                                  normal(rng, 4, 8, dtype=np.float64))


# ----- the big model ---------------------------------------------------------------------------

def big_train_step(params, toks, labels):
    def loss(p):
        x = p["emb"][toks] + p["pos"][None]
        for blk in p["blocks"]:
            x = decoder_block(blk, x, 4)
        logits = layer_norm(x, p["gf"], p["bf"]) @ p["head"]
        return cross_entropy(logits, labels)
    value, g = jax.value_and_grad(loss)(params)
    return value, jax.tree_util.tree_map(lambda w, dw: w - 0.01 * dw, params, g)


BIG_BLOCKS = 12


def big_args(rng, d):
    p = lm_params(rng, d)
    p.pop("block")
    p["blocks"] = [block_params(rng, d["D"], d["F"]) for _ in range(BIG_BLOCKS)]
    return (p, tokens(rng, d), tokens(rng, d))


BIG = Model("transformer12_train", big_train_step, big_args,
            "12-block GPT-style transformer training step (value_and_grad of the LM loss and an "
            "SGD update of every weight): a large module for scale work", "training")


# ----- writing ---------------------------------------------------------------------------------

def build(m: Model, dims: dict, out: Path) -> dict:
    """Lower, compile and run one model; write its four files into ``out``."""
    jax.config.update("jax_enable_x64", m.x64)
    try:
        rng = np.random.default_rng(zlib.crc32(m.name.encode()))
        res = write_capture(m.fn, m.args(rng, dims), m.name, out)
    finally:
        jax.config.update("jax_enable_x64", False)
    with np.load(res.files["io"]) as io:
        dtypes = sorted({str(io[k].dtype) for k in io.files})
    dtypes = ["bfloat16" if d == "|V2" else d for d in dtypes]
    return dict(name=m.name, description=m.description, kind=m.kind, dtypes=dtypes,
                instructions_before=res.instructions_before,
                instructions_after=res.instructions_after, args=res.args, outputs=res.outputs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZE), default="small")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--big", action="store_true", help="build the 12-block training step only")
    ap.add_argument("--blocks", type=int, default=12,
                    help="blocks of the --big model (default 12; XLA:CPU's optimised module "
                         "grows faster than linearly: 2 -> 4.1k, 4 -> 10.4k, 12 -> 62k "
                         "instructions)")
    ap.add_argument("--out", type=Path, help="output folder (default: corpus/ for small, "
                    ".corpus_full/ for full)")
    a = ap.parse_args(argv)
    dims = SIZE[a.size]
    out = a.out or (ROOT / ("corpus" if a.size == "small" else ".corpus_full"))
    if a.big:
        global BIG_BLOCKS
        BIG_BLOCKS = a.blocks
        if a.blocks != 12:
            BIG.name = f"transformer{a.blocks}_train"
        return build_big(dims, a.out)
    models = MODELS
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {m.name for m in MODELS}
        if unknown:
            ap.error(f"unknown model(s): {', '.join(sorted(unknown))}")
        models = [m for m in MODELS if m.name in want]
    manifest_path = out / "manifest.json"
    entries = {}
    if manifest_path.exists():
        entries = {e["name"]: e for e in json.loads(manifest_path.read_text())["models"]}
    for m in models:
        entry = build(m, dims, out)
        entries[m.name] = entry
        print(f"{m.name:28s} before {entry['instructions_before']:5d}  after "
              f"{entry['instructions_after']:5d}  {','.join(entry['dtypes'])}")
    write_manifest(out, entries, dims, a.size)
    return 0


def write_manifest(out: Path, entries: dict, dims: dict, size: str) -> None:
    names = sorted(entries)
    known = {m.name for m in MODELS} | {BIG.name}
    models = []
    for i, name in enumerate(n for n in names if n in known):
        e = dict(entries[name])
        if name == BIG.name:
            e["split"] = "scale"
        else:
            e["split"] = "holdout" if i % 3 == 2 else "tune"
        models.append(e)
    doc = dict(
        about="Real JAX models for the workbench, written by tools/make_corpus.py (see its "
              "docstring); split: 'tune' models calibrate, 'holdout' models check.",
        jax=jax.__version__, size=size, dims=dims,
        files=["NAME.before.hlo", "NAME.after_noynn.hlo", "NAME.mlir", "NAME.io.npz"],
        models=models)
    (out / "manifest.json").write_text(json.dumps(doc, indent=1) + "\n")


def build_big(dims: dict, out: Path | None) -> int:
    tmp = ROOT / ".corpus_big"
    entry = build(BIG, dims, tmp)
    sizes = {f: (tmp / f"{BIG.name}.{f}").stat().st_size
             for f in ("before.hlo", "after_noynn.hlo", "mlir", "io.npz")}
    print(f"{BIG.name}: before {entry['instructions_before']} after "
          f"{entry['instructions_after']} instructions; sizes "
          + ", ".join(f"{k} {v / 2**20:.2f} MiB" for k, v in sizes.items()))
    target = out or (ROOT / "corpus")
    if out is None and max(sizes.values()) >= BIG_LIMIT:
        print(f"kept in {tmp} (a file is over {BIG_LIMIT >> 20} MB)")
        return 0
    target.mkdir(parents=True, exist_ok=True)
    for f in sizes:
        (target / f"{BIG.name}.{f}").write_bytes((tmp / f"{BIG.name}.{f}").read_bytes())
    manifest_path = target / "manifest.json"
    entries = {}
    if manifest_path.exists():
        entries = {e["name"]: e for e in json.loads(manifest_path.read_text())["models"]}
    entries[BIG.name] = entry
    write_manifest(target, entries, dims, "small")
    print(f"written into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
