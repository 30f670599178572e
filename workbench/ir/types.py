"""Tensor types and dtypes of the IR.

Dtypes use XLA's primitive-type names (``f32``, ``s32``, ``pred``; see xla/xla_data.proto,
``PrimitiveType``), so that HLO text and the workbench's own text read the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

import numpy as np

from workbench.errors import ShapeError

_NUMPY_TYPES = {
    "pred": np.bool_,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128,
    "token": None,
}
#: the dtypes numpy lacks: names of ml_dtypes' types
_ML_TYPES = {
    "s4": "int4", "u4": "uint4", "s2": "int2", "u2": "uint2", "bf16": "bfloat16",
    "f8e5m2": "float8_e5m2", "f8e4m3fn": "float8_e4m3fn", "f8e4m3": "float8_e4m3",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz", "f8e3m4": "float8_e3m4", "f8e8m0fnu": "float8_e8m0fnu",
    "f4e2m1fn": "float4_e2m1fn",
}


class _Dtypes(Mapping):
    """XLA primitive type name -> numpy type, ml_dtypes' types imported on first use (importing
    ml_dtypes costs about a second of CPU, which a command that meets no bf16 need not pay)."""

    def __getitem__(self, name):
        if name in _NUMPY_TYPES:
            return _NUMPY_TYPES[name]
        import ml_dtypes

        return getattr(ml_dtypes, _ML_TYPES[name])

    def __contains__(self, name) -> bool:
        return name in _NUMPY_TYPES or name in _ML_TYPES

    def __iter__(self):
        yield from _NUMPY_TYPES
        yield from _ML_TYPES

    def __len__(self) -> int:
        return len(_NUMPY_TYPES) + len(_ML_TYPES)


#: XLA primitive type name -> numpy dtype (None: no numpy equivalent; such tensors can be drawn
#: and costed, but not evaluated). bf16 and the 8-bit (and narrower) floats are ml_dtypes'
#: numpy dtypes (https://github.com/jax-ml/ml_dtypes), the ones JAX itself uses. Names follow
#: xla/xla_data.proto's PrimitiveType as HLO text prints them (``f8e4m3fn``).
DTYPES: Mapping = _Dtypes()

#: bytes per element of each dtype (XLA's ShapeUtil::ByteSizeOfPrimitiveType; pred is 1 byte,
#: a token none; sub-byte types count a byte each, as XLA stores them unpacked by default)
ITEMSIZE: dict[str, int] = {
    "pred": 1, "s8": 1, "s16": 2, "s32": 4, "s64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
    "s4": 1, "u4": 1, "s2": 1, "u2": 1,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16, "token": 0,
    "f8e5m2": 1, "f8e4m3fn": 1, "f8e4m3": 1, "f8e4m3b11fnuz": 1, "f8e5m2fnuz": 1,
    "f8e4m3fnuz": 1, "f8e3m4": 1, "f8e8m0fnu": 1, "f4e2m1fn": 1,
}

#: the floats narrower than f32, which XLA:CPU computes in f32 and rounds after each op
NARROW_FLOAT_DTYPES = frozenset({"f16", "bf16", "f8e5m2", "f8e4m3fn", "f8e4m3",
                                 "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4",
                                 "f8e8m0fnu", "f4e2m1fn"})
FLOAT_DTYPES = frozenset({"f32", "f64"}) | NARROW_FLOAT_DTYPES
INT_DTYPES = frozenset({"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "s4", "u4",
                        "s2", "u2"})
COMPLEX_DTYPES = frozenset({"c64", "c128"})

_NUMPY_TO_NAME: dict = {}


def dtype_from_numpy(dtype) -> str:
    """The XLA name of a numpy dtype (``float32`` -> ``'f32'``).

    Raises
    ------
    ShapeError
        If the dtype has no XLA equivalent.
    """
    if not _NUMPY_TO_NAME:
        _NUMPY_TO_NAME.update({np.dtype(v): k for k, v in DTYPES.items() if v is not None})
    try:
        return _NUMPY_TO_NAME[np.dtype(dtype)]
    except KeyError:
        raise ShapeError(f"numpy dtype {np.dtype(dtype)} has no XLA primitive type") from None


def is_float(dtype: str) -> bool:
    """True for floating-point dtypes (f16, bf16, f32, f64, the f8 variants)."""
    return dtype in FLOAT_DTYPES


def epsilon(dtype: str) -> float:
    """Machine epsilon of a float dtype (the gap between 1 and the next value): 2**-7 for bf16,
    2**-10 for f16, 2**-23 for f32 (``ml_dtypes.finfo``, ``numpy.finfo``).

    Raises
    ------
    ShapeError
        For a dtype that is not a float.
    """
    if dtype not in FLOAT_DTYPES:
        raise ShapeError(f"dtype {dtype} has no epsilon (not a float)")
    import ml_dtypes

    return float(ml_dtypes.finfo(DTYPES[dtype]).eps)


def _bad_dim(d) -> bool:
    """Whether ``d`` is not a dimension size (an integer >= 0; a bool is not one)."""
    return isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0


@dataclass(frozen=True)
class TensorType:
    """The type of a dense tensor: its shape (elements per dimension) and dtype.

    Parameters
    ----------
    shape : tuple of int
        Dimension sizes, major to minor; ``()`` is a scalar. Each size is >= 0.
    dtype : str
        An XLA primitive type name, a key of :data:`DTYPES`.

    Raises
    ------
    ShapeError
        On a negative or non-integer dimension, or an unknown dtype.

    Examples
    --------
    >>> t = TensorType((2, 3), "f32")
    >>> str(t), t.size, t.nbytes
    ('f32[2,3]', 6, 24)
    """

    shape: tuple[int, ...]
    dtype: str

    def __post_init__(self):
        shape = tuple(self.shape)
        for d in shape:
            if _bad_dim(d):
                raise ShapeError(f"bad dimension {d!r} in shape {list(shape)}")
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        if self.dtype not in DTYPES:
            raise ShapeError(f"unknown dtype {self.dtype!r} (known: {', '.join(DTYPES)})")

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return ITEMSIZE[self.dtype]

    @property
    def nbytes(self) -> int:
        """Bytes of the whole tensor (dense, no padding)."""
        return self.size * self.itemsize

    @property
    def np_dtype(self):
        """The numpy dtype (ml_dtypes' for bf16 and f8); raises :class:`ShapeError` for the
        dtypes numpy cannot hold (``token``)."""
        dt = DTYPES[self.dtype]
        if dt is None:
            raise ShapeError(f"dtype {self.dtype} cannot be evaluated with numpy")
        return np.dtype(dt)

    def with_shape(self, shape) -> "TensorType":
        """The same dtype with another shape."""
        return TensorType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> "TensorType":
        """The same shape with another dtype."""
        return TensorType(self.shape, dtype)

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"

    def to_json(self) -> dict:
        """``{"shape": [...], "dtype": "f32"}``."""
        return {"shape": list(self.shape), "dtype": self.dtype}


@dataclass(frozen=True)
class TupleType:
    """The type of an op with several results (a ``while``, a variadic ``sort``, ``topk``).

    Parameters
    ----------
    elements : tuple of TensorType or TupleType
        Nested tuples appear in the state of async wrappers (``async-start``).
    """

    elements: tuple

    @property
    def nbytes(self) -> int:
        """Bytes of all elements together."""
        return sum(e.nbytes for e in self.elements)

    def leaves(self) -> tuple[TensorType, ...]:
        """The tensor types of the tuple, nested tuples flattened, in order."""
        out = []
        for e in self.elements:
            out.extend(e.leaves() if isinstance(e, TupleType) else (e,))
        return tuple(out)

    @property
    def size(self) -> int:
        """Elements of all tuple elements together."""
        return sum(e.size for e in self.elements)

    def __str__(self) -> str:
        return "(" + ", ".join(str(e) for e in self.elements) + ")"

    def to_json(self) -> dict:
        """``{"tuple": [<tensor type>, ...]}``."""
        return {"tuple": [e.to_json() for e in self.elements]}


Type = Union[TensorType, TupleType]


def type_from_json(obj, path: str = "type") -> Type:
    """Read a type written by :meth:`TensorType.to_json` or :meth:`TupleType.to_json`.

    Parameters
    ----------
    obj : object
        The parsed JSON value.
    path : str
        Where ``obj`` is in its document (``nodes[3].type``): each message starts with the
        key path of the value that is wrong (``nodes[3].type.shape[1]: ...``).

    Raises
    ------
    ShapeError
        If ``obj`` is not a well-formed type.

    Examples
    --------
    >>> str(type_from_json({"shape": [2, 3], "dtype": "f32"}))
    'f32[2,3]'
    """
    if isinstance(obj, dict) and "tuple" in obj:
        elems = obj["tuple"]
        if not isinstance(elems, list):
            raise ShapeError(f"{path}.tuple: expected a list of types, got "
                             f"{type(elems).__name__}")
        return TupleType(tuple(type_from_json(e, f"{path}.tuple[{i}]")
                               for i, e in enumerate(elems)))
    if not isinstance(obj, dict) or "shape" not in obj or "dtype" not in obj:
        raise ShapeError(f"{path}: a type needs 'shape' and 'dtype', got {obj!r}"[:200])
    shape, dtype = obj["shape"], obj["dtype"]
    if not isinstance(shape, list):
        raise ShapeError(f"{path}.shape: expected a list of integers, got {shape!r}"[:200])
    bad = next((i for i, d in enumerate(shape) if _bad_dim(d)), None)
    if bad is not None:
        raise ShapeError(f"{path}.shape[{bad}]: bad dimension {shape[bad]!r} in shape "
                         f"{shape!r} (expected an integer >= 0)"[:200])
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ShapeError(f"{path}.dtype: unknown dtype {dtype!r} (known: {', '.join(DTYPES)})")
    return TensorType(tuple(shape), dtype)
