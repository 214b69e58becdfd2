"""Rigid poses: a rotation and a translation, ``x_world = R @ x_local + t``.

Moving a mesh is a pose change, not a vertex rewrite, so its tree stays valid
(van den Bergen 1997, section 3: the relative pose is applied inside the box test).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
    """A rigid transform.

    Attributes
    ----------
    rotation : (3, 3) float64
        Orthonormal, determinant +1.
    translation : (3,) float64
    """

    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self):
        r = np.ascontiguousarray(self.rotation, dtype=np.float64).reshape(3, 3)
        t = np.ascontiguousarray(self.translation, dtype=np.float64).reshape(3)
        if not (np.isfinite(r).all() and np.isfinite(t).all()):
            raise ValueError("pose has NaN or infinite entries")
        r.flags.writeable = False
        t.flags.writeable = False
        object.__setattr__(self, "rotation", r)
        object.__setattr__(self, "translation", t)

    @classmethod
    def identity(cls) -> Pose:
        return cls()

    @classmethod
    def from_axis_angle(cls, axis, angle_rad: float, translation=(0.0, 0.0, 0.0)) -> Pose:
        return cls(rotation_matrix(axis, angle_rad), np.asarray(translation, dtype=np.float64))

    @classmethod
    def from_matrix(cls, matrix) -> Pose:
        """From a ``(4, 4)`` homogeneous matrix."""
        m = np.asarray(matrix, dtype=np.float64)
        return cls(m[:3, :3], m[:3, 3])

    def as_matrix(self) -> np.ndarray:
        """``(4, 4) float64`` homogeneous matrix."""
        m = np.eye(4)
        m[:3, :3] = self.rotation
        m[:3, 3] = self.translation
        return m

    @property
    def is_identity(self) -> bool:
        return bool(np.array_equal(self.rotation, np.eye(3)) and not self.translation.any())

    def inverse(self) -> Pose:
        rt = self.rotation.T
        return Pose(rt, -rt @ self.translation)

    def compose(self, other: Pose) -> Pose:
        """``self ∘ other``: apply ``other`` first, then ``self``."""
        return Pose(
            self.rotation @ other.rotation, self.rotation @ other.translation + self.translation
        )

    def apply(self, points: np.ndarray) -> np.ndarray:
        """Transform points ``(..., 3) float64``."""
        p = np.asarray(points, dtype=np.float64)
        if self.is_identity:
            return p.copy()
        return p @ self.rotation.T + self.translation
