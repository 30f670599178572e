"""Random bits: ``rng-bit-generator`` (deterministic: the state operand fixes every bit).

The reference is XLA's own expansion (xla/service/rng_bit_generator_expander.cc with the bit
generators of xla/hlo/builder/lib/prng.cc), in numpy with wrapping unsigned arithmetic:

- ``rng_three_fry``: Threefry-2x32, 20 rounds (Salmon et al., "Parallel random numbers: as easy
  as 1, 2, 3", SC 2011); the key is ``state[0]``, the counter ``state[1]``;
- ``rng_philox`` (and ``rng_default``, which XLA:CPU expands as Philox): Philox-4x32, 10 rounds;
  the key is ``state[0]``, the 128-bit counter ``state[1:3]`` (or ``state[1], state[0]`` for a
  two-element state).

The op returns ``(new state, bits)``. ``rng`` (the stateful, non-deterministic op) has no
reference: it stays opaque.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import AttributeError_, ShapeError
from workbench.ir.ops.base import Category, OpDef, register
from workbench.ir.ops.elementwise import _require_tensors
from workbench.ir.types import TensorType, TupleType

ALGORITHMS = ("rng_default", "rng_three_fry", "rng_philox")

_U32 = np.uint32
_U64 = np.uint64
_M32 = 0xFFFFFFFF


def _split64(x):
    x = np.asarray(x, _U64)
    return (x & _U64(_M32)).astype(_U32), (x >> _U64(32)).astype(_U32)


def _join64(lo, hi):
    return np.asarray(lo, _U64) | (np.asarray(hi, _U64) << _U64(32))


def _rotl(v, d):
    return (v << _U32(d)) | (v >> _U32(32 - d))


def threefry2x32(x0, x1, k0, k1):
    """Threefry-2x32 with 20 rounds (prng.cc ``ThreeFry2x32``) on u32 arrays."""
    rot = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = [_U32(k0), _U32(k1), _U32(0x1BD11BDA) ^ _U32(k0) ^ _U32(k1)]
    x = [np.asarray(x0, _U32) + ks[0], np.asarray(x1, _U32) + ks[1]]
    with np.errstate(over="ignore"):
        for block in range(5):
            for r in (rot[:4] if block % 2 == 0 else rot[4:]):
                x[0] = x[0] + x[1]
                x[1] = _rotl(x[1], r) ^ x[0]
            x[0] = x[0] + ks[(block + 1) % 3]
            x[1] = x[1] + ks[(block + 2) % 3] + _U32(block + 1)
    return x


def _threefry_bits(key, counter, shape, bits):
    key_lo, key_hi = _split64(key)
    if bits == 64:
        n = int(np.prod(shape))
        ctr = _U64(counter) + np.arange(n, dtype=_U64)
        lo, hi = _split64(ctr)
        o0, o1 = threefry2x32(lo, hi, key_lo, key_hi)
        return _join64(o0, o1).reshape(shape), _U64(counter) + _U64(n)
    if not shape:
        half, split = (1,), None
    else:
        split = next((i for i, d in enumerate(shape) if d % 2 == 0), None)
        if split is None:
            split = int(np.argmax(shape))
        half = tuple(shape[:split]) + ((shape[split] + 1) // 2, 1) + tuple(shape[split + 1:])
    n = int(np.prod(half))
    ctr = _U64(counter) + np.arange(n, dtype=_U64)
    lo, hi = _split64(ctr)
    o0, o1 = threefry2x32(lo, hi, key_lo, key_hi)
    o0, o1 = o0.reshape(half), o1.reshape(half)
    if split is None:
        out = o0.reshape(())
    else:
        both = np.concatenate([o0, o1], axis=split + 1)
        even = list(shape)
        even[split] = 2 * ((shape[split] + 1) // 2)
        out = both.reshape(even)[tuple(slice(0, d) for d in shape)]
    return out, _U64(counter) + _U64(n)


def philox4x32(state, key):
    """Philox-4x32 with 10 rounds (prng.cc ``Philox4x32``) on four u32 arrays."""
    ma, mb = _U64(0xD2511F53), _U64(0xCD9E8D57)
    k0, k1 = _U32(key[0]), _U32(key[1])
    x = [np.asarray(s, _U32) for s in state]
    with np.errstate(over="ignore"):
        for _ in range(10):
            p0 = x[0].astype(_U64) * ma
            p1 = x[2].astype(_U64) * mb
            x = [(p1 >> _U64(32)).astype(_U32) ^ x[1] ^ k0, p1.astype(_U32),
                 (p0 >> _U64(32)).astype(_U32) ^ x[3] ^ k1, p0.astype(_U32)]
            k0, k1 = k0 + _U32(0x9E3779B9), k1 + _U32(0xBB67AE85)
    return x


def _philox_bits(key, lo128, hi128, shape, bits):
    n = int(np.prod(shape))
    n32 = 2 * n if bits == 64 else n
    n4 = (n32 + 3) // 4
    iota = np.arange(n4, dtype=_U64)
    with np.errstate(over="ignore"):
        lo = _U64(lo128) + iota
        hi = np.where(lo < _U64(lo128), _U64(hi128) + _U64(1), _U64(hi128))
        new_lo = _U64(lo128) + _U64(n4)
        new_hi = _U64(hi128) + _U64(1) if new_lo < _U64(lo128) else _U64(hi128)
    s0, s1 = _split64(lo)
    s2, s3 = _split64(hi)
    out = philox4x32([s0, s1, s2, s3], _split64(key))
    if bits == 64:
        b = [_join64(out[0], out[1]), _join64(out[2], out[3])]
        flat = np.stack(b, axis=1).reshape(-1)[:n]
    else:
        flat = np.stack(out, axis=1).reshape(-1)[:n]
    return flat.reshape(shape), (new_lo, new_hi)


def _rbg_infer(types, attrs, declared):
    _require_tensors(types)
    (state,) = types
    alg = attrs.get("algorithm", "rng_default")
    if alg not in ALGORITHMS:
        raise AttributeError_(f"rng-bit-generator algorithm= must be one of "
                              f"{', '.join(ALGORITHMS)}, got {alg!r}")
    if state.rank != 1 or state.dtype != "u64" or state.shape[0] < 2:
        raise ShapeError(f"rng-bit-generator's state must be u64[2] or longer, got {state}")
    shape = attrs.get("shape")
    dtype = attrs.get("dtype")
    if not isinstance(shape, tuple) or dtype not in ("u8", "u16", "u32", "u64", "s8", "s16",
                                                     "s32", "s64"):
        raise AttributeError_("rng-bit-generator needs shape= and an integer dtype=")
    return TupleType((state, TensorType(shape, dtype)))


def _rbg_ref(xs, attrs, t):
    state = np.asarray(xs[0], _U64)
    out_t = t.elements[1]
    bits = 8 * out_t.itemsize
    alg = attrs.get("algorithm", "rng_default")
    key = state[0]
    if alg == "rng_three_fry":
        raw, ctr = _threefry_bits(key, state[1], out_t.shape, 64 if bits == 64 else 32)
        new_state = state.copy()
        new_state[1] = ctr
    else:
        if state.shape[0] >= 3:
            lo, hi = state[1], state[2]
        else:
            lo, hi = state[1], state[0]
        raw, (nlo, nhi) = _philox_bits(key, lo, hi, out_t.shape, 64 if bits == 64 else 32)
        new_state = state.copy()
        new_state[1] = nlo
        if state.shape[0] >= 3:
            new_state[2] = nhi
    if bits < 32:
        raw = raw.astype(np.dtype(f"u{out_t.itemsize}"))
    return new_state, raw.view(out_t.np_dtype).reshape(out_t.shape)


register(OpDef("rng-bit-generator", Category.RANDOM, (1, 1), _rbg_infer,
               reference=_rbg_ref, flops_per_element=0.0,
               doc="random bits from a counter-based generator (algorithm= rng_three_fry or "
                   "rng_philox) and the next state",
               attributes=("algorithm", "shape", "dtype")))
