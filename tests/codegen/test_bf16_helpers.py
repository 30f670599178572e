"""The CPU's bf16 helpers (bit operations, vectorisable) against ml_dtypes' bfloat16 and against
the portable helpers CUDA and the simulator use: every bf16 bit pattern decodes to the same
value, encodes back to its bits, and float32 values round to the nearest bf16 (ties to even)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from numba import float32, int64, njit, uint16, uint32

from workbench.codegen.cpu_intrinsics import bitcast_like
from workbench.codegen.emitters import CPU_HELPERS, HELPERS


def _compile(table, name):
    scope = {"math": math, "np": np, "float32": float32, "int64": int64, "uint16": uint16,
             "uint32": uint32, "bitcast_like": bitcast_like}
    exec(table[name], scope)                 # the helper's own source, as a kernel module has it
    return njit(error_model="numpy")(scope[name])


@pytest.fixture(scope="module")
def cpu():
    return {n: _compile(CPU_HELPERS, n) for n in ("_dec_bf16", "_enc_bf16", "_rnd_bf16")}


@pytest.fixture(scope="module")
def portable():
    return {n: _compile(HELPERS, n) for n in ("_dec_bf16", "_enc_bf16", "_rnd_bf16")}


def _mapper(out_dtype):
    """A compiled loop applying a compiled helper to every element, into ``out_dtype``."""
    @njit
    def run(f, xs):
        out = np.empty(xs.size, out_dtype)
        for i in range(xs.size):
            out[i] = f(xs[i])
        return out
    return run


_map_dec = _map_rnd = _mapper(np.float32)
_map_enc = _mapper(np.uint16)


ALL_BITS = np.arange(1 << 16, dtype=np.uint16)


def test_every_bf16_pattern_decodes_as_ml_dtypes_and_the_portable_helper(cpu, portable):
    want = ALL_BITS.view(ml_dtypes.bfloat16).astype(np.float32)
    got = _map_dec(cpu["_dec_bf16"], ALL_BITS)
    nan = np.isnan(want)
    assert nan.sum() == 2 * 127                              # 0x7f81..0x7fff and 0xff81..0xffff
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))   # -0 kept
    old = _map_dec(portable["_dec_bf16"], ALL_BITS)
    assert np.array_equal(got[~nan].view(np.uint32), old[~nan].view(np.uint32))


def test_every_bf16_value_encodes_back_to_its_bits_and_nan_to_0x7fc0(cpu, portable):
    values = ALL_BITS.view(ml_dtypes.bfloat16).astype(np.float32)
    got = _map_enc(cpu["_enc_bf16"], values)
    nan = np.isnan(values)
    assert np.array_equal(got[~nan], ALL_BITS[~nan])
    assert set(got[nan].tolist()) == {0x7FC0}
    assert np.array_equal(got, _map_enc(portable["_enc_bf16"], values))


def test_float32_values_round_to_the_nearest_bf16_ties_to_even(cpu, portable):
    rng = np.random.default_rng(0)
    xs = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    ties = (np.arange(1 << 12, dtype=np.uint32) << 16 | 0x8000).view(np.float32)  # halfway
    edge = np.array([3.4028235e38, -3.4028235e38, 1e-45, -1e-45, 0.0, -0.0, np.inf, -np.inf,
                     1.17549435e-38, 3.3961776e38], np.float32)
    xs = np.concatenate([xs, ties, edge])
    xs = xs[~np.isnan(xs)]
    want = xs.astype(ml_dtypes.bfloat16).astype(np.float32)      # round to nearest, ties even
    got = _map_rnd(cpu["_rnd_bf16"], xs)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.array_equal(got.view(np.uint32), _map_rnd(portable["_rnd_bf16"], xs).view(np.uint32))
    assert np.isnan(cpu["_rnd_bf16"](np.float32("nan")))
