"""Models written in JAX for the benchmark's ``jax.jit`` side (importing this needs jax).

``MODELS``: the seven shared models; each function mirrors the ``before`` HLO in ../shared/hlo
(same parameter order, shapes and formulas), and the benchmark checks each against the
``out0`` that JAX stored in ``NAME.io.npz``.

``FULL``: full-size models that are not in ../shared/hlo (the kinds issue 14 measured: dot-heavy
SwiGLU MLP and LSTM cell, convolutions with batch statistics and depthwise, erf GELU,
horizontal sin/cos, normalisations, attention, and a 12-block transformer whose plan has 100+
kernels). Each entry is ``(function, make_args(rng) -> tuple of numpy arrays, category)``;
the benchmark jits the function, imports its HLO (``jax.jit(f).lower(*args)``) through the
workbench's own importer, so that both sides run the same model on the same inputs.
Categories: ``chain`` (elementwise), ``norm`` (normalisations, softmax), ``dot``, ``conv``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def chain10(x, y):
    a = (x * y + x) * 0.5
    b = jnp.maximum(a, 0.0) - y
    return jnp.sqrt(b * b + 1.0) * x - 0.25


def chain10_transc(x, y):
    a = jnp.maximum(jnp.tanh(x * y + x), 0.0) - y
    return jnp.sqrt(jnp.exp(a) + 1.0) * x - 0.25


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def _layer_norm(x, g, b, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * g + b


def _gelu(x):
    return 0.5 * x * (1.0 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def layernorm_gelu(x, g, b):
    return _gelu(_layer_norm(x, g, b))


def mlp(x, w1, b1, w2, b2, w3, b3):
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    return jax.nn.relu(h @ w3 + b3)


def transformer_block(x, ln1g, ln1b, wqkv, bqkv, wo, bo, ln2g, ln2b, w1, b1, w2, b2):
    bsz, seq, d = x.shape
    heads, hd = 4, d // 4
    h = _layer_norm(x, ln1g, ln1b)
    qkv = h @ wqkv + bqkv
    q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)
               for i in range(3))
    scores = (q @ k.transpose(0, 1, 3, 2)) / jnp.sqrt(jnp.float32(hd))
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    scores = jnp.where(mask, scores, -1e9)
    att = jax.nn.softmax(scores, axis=-1) @ v
    att = att.transpose(0, 2, 1, 3).reshape(bsz, seq, d)
    x = x + att @ wo + bo
    h = _layer_norm(x, ln2g, ln2b)
    return x + _gelu(h @ w1 + b1) @ w2 + b2


def resnet_block(x, w1, m1, v1, g1, b1, w2, m2, v2, g2, b2, eps=1e-5):
    def conv(a, w):
        return jax.lax.conv_general_dilated(a, w, (1, 1), ((1, 1), (1, 1)),
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def bn(a, m, v, g, b):
        return (a - m) * jax.lax.rsqrt(v + eps) * g + b

    h = jax.nn.relu(bn(conv(x, w1), m1, v1, g1, b1))
    return jax.nn.relu(bn(conv(h, w2), m2, v2, g2, b2) + x)


MODELS = {f.__name__: f for f in (chain10, chain10_transc, softmax, layernorm_gelu, mlp,
                                  transformer_block, resnet_block)}

#: categories of the shared models (for the benchmark's per-category means)
SHARED_CATEGORY = {"chain10": "chain", "chain10_transc": "chain", "softmax": "norm",
                   "layernorm_gelu": "norm", "mlp": "dot", "transformer_block": "dot",
                   "resnet_block": "conv"}


# ----- full-size models -------------------------------------------------------------------------

def _normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype("float32")


def swiglu_mlp(x, w1, w3, w2):
    return (jax.nn.silu(x @ w1) * (x @ w3)) @ w2


def lstm_cell(x, h, c, w, b):
    gates = jnp.concatenate([x, h], axis=-1) @ w + b
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c2), c2


def _conv(a, w, groups=1):
    return jax.lax.conv_general_dilated(a, w, (1, 1), ((1, 1), (1, 1)),
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)


def conv_bn_train(x, w, g, b, eps=1e-5):
    y = _conv(x, w)
    mean = y.mean(axis=(0, 1, 2))
    var = ((y - mean) ** 2).mean(axis=(0, 1, 2))
    return jax.nn.relu((y - mean) * jax.lax.rsqrt(var + eps) * g + b)


def depthwise_conv_bn(x, w, m, v, g, b, eps=1e-5):
    y = _conv(x, w, groups=x.shape[-1])
    return jax.nn.relu((y - m) * jax.lax.rsqrt(v + eps) * g + b)


def resnet_conv(x, w1, w2):
    return jax.nn.relu(_conv(jax.nn.relu(_conv(x, w1)), w2) + x)


def gelu_erf(x):
    return 0.5 * x * (1.0 + jax.lax.erf(x * 0.7071067811865476))


def sincos(x):
    return jnp.sin(x), jnp.cos(x)


def exp_tanh_chain(x, y):
    return jnp.exp(jnp.tanh(x) * y) - jnp.log1p(jnp.abs(y))


def layernorm(x, g, b):
    return _layer_norm(x, g, b)


def rmsnorm(x, g):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g


def softmax_scores(x):
    return jax.nn.softmax(x, axis=-1)


def attention(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)


def transformer_12(x, *weights):
    for i in range(12):
        x = transformer_block(x, *weights[12 * i:12 * i + 12])
    return x


def _block_weights(rng, d, f):
    return (1 + _normal(rng, d, scale=0.1), _normal(rng, d, scale=0.1),
            _normal(rng, d, 3 * d, scale=d ** -0.5), _normal(rng, 3 * d, scale=0.1),
            _normal(rng, d, d, scale=d ** -0.5), _normal(rng, d, scale=0.1),
            1 + _normal(rng, d, scale=0.1), _normal(rng, d, scale=0.1),
            _normal(rng, d, f, scale=d ** -0.5), _normal(rng, f, scale=0.1),
            _normal(rng, f, d, scale=f ** -0.5), _normal(rng, d, scale=0.1))


#: B x S tokens, model width D, MLP width F (the corpus's "full" size: B=8, S=128, D=256, F=1024)
TOKENS, D, F = 8 * 128, 256, 1024

FULL = {
    "swiglu_mlp": (swiglu_mlp, lambda r: (_normal(r, TOKENS, D), _normal(r, D, F, scale=D ** -.5),
                                          _normal(r, D, F, scale=D ** -.5),
                                          _normal(r, F, D, scale=F ** -.5)), "dot"),
    "lstm_cell": (lstm_cell, lambda r: (_normal(r, 128, 512), _normal(r, 128, 512),
                                        _normal(r, 128, 512),
                                        _normal(r, 1024, 2048, scale=1024 ** -.5),
                                        _normal(r, 2048, scale=0.1)), "dot"),
    "conv_bn_train": (conv_bn_train, lambda r: (_normal(r, 8, 32, 32, 64),
                                                _normal(r, 3, 3, 64, 64, scale=576 ** -.5),
                                                1 + _normal(r, 64, scale=.1),
                                                _normal(r, 64, scale=.1)), "conv"),
    "depthwise_conv_bn": (depthwise_conv_bn, lambda r: (
        _normal(r, 8, 32, 32, 128), _normal(r, 3, 3, 1, 128, scale=1 / 3),
        _normal(r, 128, scale=.1), 1 + abs(_normal(r, 128, scale=.1)),
        1 + _normal(r, 128, scale=.1), _normal(r, 128, scale=.1)), "conv"),
    "resnet_conv": (resnet_conv, lambda r: (_normal(r, 8, 32, 32, 64),
                                            _normal(r, 3, 3, 64, 64, scale=576 ** -.5),
                                            _normal(r, 3, 3, 64, 64, scale=576 ** -.5)), "conv"),
    "gelu_erf": (gelu_erf, lambda r: (_normal(r, 2048, 2048),), "chain"),
    "sincos": (sincos, lambda r: (_normal(r, 1 << 22, scale=4.0),), "chain"),
    "exp_tanh_chain": (exp_tanh_chain, lambda r: (_normal(r, 1 << 22), _normal(r, 1 << 22)),
                       "chain"),
    "layernorm": (layernorm, lambda r: (_normal(r, TOKENS * 4, D), 1 + _normal(r, D, scale=.1),
                                        _normal(r, D, scale=.1)), "norm"),
    "rmsnorm": (rmsnorm, lambda r: (_normal(r, TOKENS * 4, D), 1 + _normal(r, D, scale=.1)),
                "norm"),
    "softmax_scores": (softmax_scores, lambda r: (_normal(r, 8, 8, 128, 128, scale=3.0),),
                       "norm"),
    "attention": (attention, lambda r: tuple(_normal(r, 8, 8, 128, 32) for _ in range(3)),
                  "dot"),
    "transformer_12": (transformer_12, lambda r: (_normal(r, 2, 64, 128),) + tuple(
        w for _ in range(12) for w in _block_weights(r, 128, 512)), "dot"),
}
