"""Argument checks of the public API: one-line errors that name the argument.

Every public constructor and entry point runs its inputs through these before any array
reaches a numba kernel, so a wrong type or shape is a ``TypeError`` or ``ValueError`` that says
which argument was wrong and what was expected, never a numpy error from deep inside (or a
kernel reading out of bounds).
"""

from __future__ import annotations

import numbers

import numpy as np


def _type_name(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}"
    return type(value).__name__


def real_array(value, name: str, shape: tuple[int | None, ...]) -> np.ndarray:
    """``value`` as a C-contiguous ``float64`` array of the given shape, or raise.

    Parameters
    ----------
    value : array_like of real numbers (integer or floating dtype)
    name : str
        The argument's name, for the message.
    shape : tuple of int or None
        Expected shape; None matches any length along that axis.

    Raises
    ------
    TypeError
        Not numeric, or of a complex, boolean, string or object dtype.
    ValueError
        Of another shape.
    """
    array = np.asarray(value) if not isinstance(value, np.ndarray) else value
    kind = array.dtype.kind
    if kind not in "iuf":
        expected = "real numbers (integer or floating point)"
        what = {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes",
                "O": "Python objects"}.get(kind, f"dtype {array.dtype}")  # fmt: skip
        raise TypeError(f"{name} must hold {expected}, got {what}")
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape)
    ):
        expected = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        if len(shape) == 1:
            expected = expected[:-1] + ",)"
        raise ValueError(f"{name} must have shape {expected}, got {array.shape}")
    return np.ascontiguousarray(array, dtype=np.float64)


def real_number(value, name: str) -> float:
    """``value`` as a Python float; booleans, strings and complex numbers raise ``TypeError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_type_name(value)}")
    return float(value)


def integer(value, name: str, minimum: int | None = None) -> int:
    """``value`` as a Python int, at least ``minimum``; booleans and floats raise ``TypeError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_type_name(value)}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {number}")
    return number


def instance(value, name: str, cls: type, optional: bool = False, hint: str = ""):
    """``value`` itself when it is a ``cls`` (or None when ``optional``), else ``TypeError``."""
    if (value is None and optional) or isinstance(value, cls):
        return value
    expected = f"a {cls.__name__}" + (" or None" if optional else "")
    raise TypeError(f"{name} must be {expected}, got {_type_name(value)}{hint}")


def enum_member(value, name: str, enum_cls, default):
    """An ``enum_cls`` member from itself, its name (any case) or None (``default``)."""
    if value is None:
        return default
    if isinstance(value, enum_cls):
        return value
    if isinstance(value, str):
        try:
            return enum_cls[value.upper()]
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum_cls)
            raise ValueError(f"{name} must be one of {names}, got {value!r}") from None
    raise TypeError(f"{name} must be a {enum_cls.__name__} or its name, got {_type_name(value)}")
