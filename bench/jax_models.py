"""The seven shared models written in JAX, for the benchmark's ``jax.jit`` column (optional).

Each function mirrors the ``before`` HLO in ../shared/hlo (same parameter order, shapes and
formulas); the benchmark checks each against the ``out0`` that JAX stored in ``NAME.io.npz``
before reporting its time. Importing this module needs jax; nothing else in the workbench does.
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
