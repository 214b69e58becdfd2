"""Colour-vision deficiency simulation and colour differences, for checking the palette.

Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of Color
Vision Deficiency", IEEE TVCG 15(6), 2009: one 3x3 matrix per deficiency (severity 1.0,
their Table 1 / supplementary data), applied to linear RGB. CIE L*a*b* (D65) and the CIE76
difference Delta E*ab.
"""

from __future__ import annotations

import numpy as np

MACHADO_2009 = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
"""Severity-1.0 simulation matrices (linear RGB -> linear RGB)."""

VISIONS = ("normal", *MACHADO_2009)


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    """``(..., 3)`` sRGB in [0, 1] -> linear RGB."""
    rgb = np.asarray(rgb, dtype=np.float64)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(lin: np.ndarray) -> np.ndarray:
    """``(..., 3)`` linear RGB -> sRGB in [0, 1] (clipped)."""
    lin = np.clip(lin, 0.0, 1.0)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def simulate(rgb8: np.ndarray, vision: str) -> np.ndarray:
    """``(..., 3) uint8`` sRGB as seen with ``vision`` (a key of :data:`MACHADO_2009` or
    ``"normal"``), as ``(..., 3) uint8`` sRGB."""
    rgb8 = np.asarray(rgb8)
    if vision == "normal":
        return rgb8.astype(np.uint8)
    lin = srgb_to_linear(rgb8[..., :3] / 255.0)
    out = lin @ MACHADO_2009[vision].T
    return np.round(linear_to_srgb(out) * 255.0).astype(np.uint8)


def to_lab(rgb8: np.ndarray) -> np.ndarray:
    """``(..., 3)`` sRGB uint8 -> CIE L*a*b* (D65 white), float64."""
    lin = srgb_to_linear(np.asarray(rgb8, dtype=np.float64)[..., :3] / 255.0)
    m = np.array([[0.4124564, 0.3575761, 0.1804375],
                  [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e(rgb_a: np.ndarray, rgb_b: np.ndarray) -> np.ndarray:
    """CIE76 colour difference of sRGB uint8 colours (broadcast over ``...``)."""
    return np.linalg.norm(to_lab(rgb_a) - to_lab(rgb_b), axis=-1)


def hex_rgb(color: str) -> np.ndarray:
    """``"#rrggbb"`` -> ``(3,) uint8``."""
    color = color.lstrip("#")
    return np.array([int(color[i:i + 2], 16) for i in (0, 2, 4)], dtype=np.uint8)
