"""Tensor types and dtypes of the IR.

Dtypes use XLA's primitive-type names (``f32``, ``s32``, ``pred``; see xla/xla_data.proto,
``PrimitiveType``), so that HLO text and the workbench's own text read the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

from workbench.errors import ShapeError

#: XLA primitive type name -> numpy dtype (None: no numpy equivalent; such tensors can be drawn
#: and costed, but not evaluated).
DTYPES: dict[str, object] = {
    "pred": np.bool_,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "bf16": None, "c64": np.complex64, "c128": np.complex128,
}

#: bytes per element of each dtype (XLA's ShapeUtil::ByteSizeOfPrimitiveType; pred is 1 byte)
ITEMSIZE: dict[str, int] = {
    "pred": 1, "s8": 1, "s16": 2, "s32": 4, "s64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16,
}

FLOAT_DTYPES = frozenset({"f16", "bf16", "f32", "f64"})
INT_DTYPES = frozenset({"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"})

_NUMPY_TO_NAME = {np.dtype(v): k for k, v in DTYPES.items() if v is not None}


def dtype_from_numpy(dtype) -> str:
    """The XLA name of a numpy dtype (``float32`` -> ``'f32'``).

    Raises
    ------
    ShapeError
        If the dtype has no XLA equivalent.
    """
    try:
        return _NUMPY_TO_NAME[np.dtype(dtype)]
    except KeyError:
        raise ShapeError(f"numpy dtype {np.dtype(dtype)} has no XLA primitive type") from None


def is_float(dtype: str) -> bool:
    """True for floating-point dtypes (f16, bf16, f32, f64)."""
    return dtype in FLOAT_DTYPES


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
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0:
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
        """The numpy dtype; raises :class:`ShapeError` for dtypes numpy lacks (bf16)."""
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
    """The type of an op with several results (an opaque ``while``, a variadic ``sort``).

    Parameters
    ----------
    elements : tuple of TensorType
    """

    elements: tuple[TensorType, ...]

    @property
    def nbytes(self) -> int:
        """Bytes of all elements together."""
        return sum(e.nbytes for e in self.elements)

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


def type_from_json(obj, where: str = "") -> Type:
    """Read a type written by :meth:`TensorType.to_json` or :meth:`TupleType.to_json`.

    Raises
    ------
    ShapeError
        If ``obj`` is not a well-formed type.
    """
    if isinstance(obj, dict) and "tuple" in obj:
        elems = obj["tuple"]
        if not isinstance(elems, list):
            raise ShapeError(f"{where}'tuple' must be a list of types")
        return TupleType(tuple(type_from_json(e, where) for e in elems))
    if not isinstance(obj, dict) or "shape" not in obj or "dtype" not in obj:
        raise ShapeError(f"{where}a type needs 'shape' and 'dtype', got {obj!r}"[:200])
    shape = obj["shape"]
    if not isinstance(shape, list):
        raise ShapeError(f"{where}'shape' must be a list of integers, got {shape!r}"[:200])
    return TensorType(tuple(shape), obj["dtype"])
