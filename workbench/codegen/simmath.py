"""``math`` for kernels in numba's CUDA simulator, with the GPU's IEEE semantics.

In the simulator a kernel is plain Python, so ``math.sqrt(-1.0)`` raises ``ValueError`` and
``math.exp(1000.0)`` raises ``OverflowError`` where a GPU (and numpy) return NaN and inf. Modules
generated for ``cuda-sim`` import this object as ``math``; the kernel text is otherwise the
same as for ``cuda``. Results are numpy scalars of the argument's type.
"""

from __future__ import annotations

import math as _m

import numpy as np


def _quiet(fn):
    def call(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return call


class _SimMath:
    inf, nan, pi, e = _m.inf, _m.nan, _m.pi, _m.e
    sqrt = staticmethod(_quiet(np.sqrt))
    exp = staticmethod(_quiet(np.exp))
    expm1 = staticmethod(_quiet(np.expm1))
    log = staticmethod(_quiet(np.log))
    log1p = staticmethod(_quiet(np.log1p))
    tanh = staticmethod(_quiet(np.tanh))
    sin = staticmethod(_quiet(np.sin))
    cos = staticmethod(_quiet(np.cos))
    tan = staticmethod(_quiet(np.tan))
    pow = staticmethod(_quiet(np.power))
    atan2 = staticmethod(_quiet(np.arctan2))
    fmod = staticmethod(_quiet(np.fmod))
    isfinite = staticmethod(np.isfinite)
    # exact on floats (the bf16/f16 helpers): Python's own
    frexp = staticmethod(lambda x: _m.frexp(float(x)))
    ldexp = staticmethod(lambda x, e: _m.ldexp(float(x), int(e)))
    floor = staticmethod(lambda x: float(_m.floor(x)))
    copysign = staticmethod(lambda a, b: _m.copysign(float(a), float(b)))

    @staticmethod
    def erf(x):
        return type(x)(_m.erf(x))  # math.erf is total: erf(+-inf) = +-1, erf(nan) = nan


math = _SimMath()
