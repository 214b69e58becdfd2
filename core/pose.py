"""Poses: a rotation, a uniform scale and a translation, ``x_world = s R @ x_local + t``.

Moving a mesh is a pose change, not a vertex rewrite, so its tree stays valid
(van den Bergen 1997, section 3: the relative pose is applied inside the box test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.checks import real_array, real_number

ROTATION_TOL = 1e-9
"""Largest entry of ``|R^T R - I|`` a rotation may have.

A rotation off orthonormal by ``e`` moves a point by about ``e`` times its distance from the
origin, which the box tests do not model; with ``e <= 1e-9`` (``Tolerances.box_rel``) that is
inside the round-off margin every box is already inflated by, so no contact is culled. Float64
rotations built by Rodrigues' formula or a few thousand compositions stay near 1e-15; a scale of
1.000001 or any real shear is 1e-6 or more and is refused.
"""


def check_rotation(rotation) -> np.ndarray:
    """``rotation`` as a ``(3, 3) float64`` array after the checks of :class:`Pose`.

    Raises
    ------
    TypeError
        Not real numbers.
    ValueError
        Not ``(3, 3)``, not finite, not orthonormal within :data:`ROTATION_TOL`, or a
        reflection (determinant -1).
    """
    r = real_array(rotation, "rotation", (3, 3))
    if not np.isfinite(r).all():
        raise ValueError(f"rotation must be finite, got {r.tolist()}")
    deviation = float(np.max(np.abs(r.T @ r - np.eye(3))))
    if deviation > ROTATION_TOL:
        raise ValueError(
            f"rotation must be orthonormal (|R^T R - I| <= {ROTATION_TOL:g}), it is off by "
            f"{deviation:.3g}: a scale or shear is not a rotation (give a uniform scale as "
            "Pose(..., scale=s))"
        )
    if np.linalg.det(r) < 0.0:
        raise ValueError("rotation must have determinant +1, got a reflection (-1)")
    return r


def rotation_matrix(axis, angle_rad: float) -> np.ndarray:
    """Rotation about ``axis`` by ``angle_rad`` (Rodrigues).

    Parameters
    ----------
    axis : (3,) array_like of float
        Need not be unit length; must not be zero.
    angle_rad : float

    Returns
    -------
    (3, 3) float64
    """
    a = np.asarray(axis, dtype=np.float64)
    norm = np.linalg.norm(a)
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError(f"rotation axis must be a non-zero finite vector, got {a.tolist()}")
    x, y, z = a / norm
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + s * k + (1.0 - c) * (k @ k)


@dataclass(frozen=True)
class Pose:
    """A similarity transform: rotation, uniform scale, translation.

    ``x_world = scale * (rotation @ x_local) + translation``. Every constructor checks its
    arguments (see :data:`ROTATION_TOL`), so a pose that reaches a query is a real rotation:
    the box tests rely on it (van den Bergen 1997: |R| bounds a rotated box).

    Attributes
    ----------
    rotation : (3, 3) float64, read-only
        Orthonormal within :data:`ROTATION_TOL`, determinant +1, finite.
    translation : (3,) float64, read-only
        Finite.
    scale : float
        Uniform scale about the local origin, applied before the rotation; finite, > 0.
        Default 1 (a rigid pose).

    Raises
    ------
    TypeError
        An argument is not real numbers (complex, strings, booleans, objects).
    ValueError
        Wrong shape; NaN or infinite entries; a rotation that is not orthonormal (a scale or a
        shear: put a uniform scale in ``scale``) or is a reflection; a scale <= 0.
    """

    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))
    scale: float = 1.0

    def __post_init__(self):
        r = check_rotation(self.rotation)
        t = real_array(self.translation, "translation", (3,))
        if not np.isfinite(t).all():
            raise ValueError(f"translation must be finite, got {t.tolist()}")
        s = real_number(self.scale, "scale")
        if not (math.isfinite(s) and s > 0.0):
            raise ValueError(f"scale must be a finite number > 0, got {s}")
        if r is self.rotation:
            r = r.copy()
        if t is self.translation:
            t = t.copy()
        r.flags.writeable = False
        t.flags.writeable = False
        object.__setattr__(self, "rotation", r)
        object.__setattr__(self, "translation", t)
        object.__setattr__(self, "scale", s)

    @classmethod
    def identity(cls) -> Pose:
        return cls()

    @classmethod
    def from_axis_angle(
        cls, axis, angle_rad: float, translation=(0.0, 0.0, 0.0), scale: float = 1.0
    ) -> Pose:
        return cls(rotation_matrix(axis, angle_rad), translation, scale)

    @classmethod
    def from_matrix(cls, matrix) -> Pose:
        """From a ``(4, 4)`` homogeneous matrix ``[[s R, t], [0, 0, 0, 1]]``.

        The uniform scale is the cube root of the determinant of the 3x3 block; the block
        divided by it must pass the rotation check (a non-uniform scale or a shear does not).

        Raises
        ------
        TypeError, ValueError
            Naming ``matrix`` (shape, last row, non-finite, determinant <= 0) or ``rotation``.
        """
        m = real_array(matrix, "matrix", (4, 4))
        if not np.isfinite(m).all():
            raise ValueError("matrix must be finite")
        if not np.array_equal(m[3], [0.0, 0.0, 0.0, 1.0]):
            raise ValueError(f"matrix must have last row [0, 0, 0, 1], got {m[3].tolist()}")
        block = m[:3, :3]
        det = float(np.linalg.det(block))
        if not det > 0.0:
            raise ValueError(
                f"matrix: the 3x3 block has determinant {det:.6g}; a rotation times a positive "
                "scale has a positive one"
            )
        s = float(np.cbrt(det))
        if abs(s - 1.0) <= ROTATION_TOL:
            # A rigid matrix: keep its block bit for bit rather than divide by 0.9999999999.
            return cls(block, m[:3, 3])
        return cls(block / s, m[:3, 3], s)

    def as_matrix(self) -> np.ndarray:
        """``(4, 4) float64`` homogeneous matrix ``[[s R, t], [0, 0, 0, 1]]``."""
        m = np.eye(4)
        m[:3, :3] = self.linear
        m[:3, 3] = self.translation
        return m

    @property
    def linear(self) -> np.ndarray:
        """``scale * rotation``, ``(3, 3) float64``: the map of directions."""
        return self.rotation if self.scale == 1.0 else self.scale * self.rotation

    @property
    def is_rigid(self) -> bool:
        """Whether the scale is exactly 1."""
        return self.scale == 1.0

    @property
    def is_identity(self) -> bool:
        return bool(
            self.scale == 1.0
            and np.array_equal(self.rotation, np.eye(3))
            and not self.translation.any()
        )

    def rigid(self) -> Pose:
        """The same rotation and translation with scale 1."""
        return self if self.scale == 1.0 else Pose(self.rotation, self.translation)

    def inverse(self) -> Pose:
        rt = self.rotation.T
        if self.scale == 1.0:
            return Pose(rt, -rt @ self.translation)
        return Pose(rt, -(rt @ self.translation) / self.scale, 1.0 / self.scale)

    def compose(self, other: Pose) -> Pose:
        """``self ∘ other``: apply ``other`` first, then ``self``."""
        moved = self.rotation @ other.translation
        if self.scale != 1.0:
            moved = self.scale * moved
        return Pose(
            self.rotation @ other.rotation, moved + self.translation, self.scale * other.scale
        )

    def apply(self, points: np.ndarray) -> np.ndarray:
        """Transform points ``(..., 3) float64``."""
        p = np.asarray(points, dtype=np.float64)
        if self.is_identity:
            return p.copy()
        return p @ self.linear.T + self.translation

    def apply_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """Transform directions ``(..., 3) float64`` (scale and rotation, no translation)."""
        return np.asarray(vectors, dtype=np.float64) @ self.linear.T
