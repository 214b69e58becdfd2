"""A lesson step written back as TOML text (Lessons > Save current state as a lesson step).

What is written reads back (:func:`viewer.lessons.reading.parse_lesson`) to the same state:
scene, its slider, choices, level, update mode and camera.
"""

from __future__ import annotations

import json
import math

STEP_ORDER = ("caption", "scene", "scene_param", "bv", "split", "obb_fit", "descend",
              "update", "partition", "level", "boxes")
"""Keys in the order a saved step lists them (the camera table comes last)."""


def toml_value(value) -> str:
    """``value`` (str, bool, int, float, or a list of them) as a TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} cannot be written to a lesson")
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string: the same escapes (\", \\, \n, \uXXXX).
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to a lesson")


def step_text(values: dict, camera: dict | None = None) -> str:
    """One ``[[step]]`` table: ``values`` by key (see :data:`STEP_ORDER`; None values are
    left out) and ``camera`` (``position``, ``focal_point``, ``up``, ``view_angle``)."""
    lines = ["[[step]]"]
    for key in STEP_ORDER:
        if values.get(key) is not None:
            lines.append(f"{key} = {toml_value(values[key])}")
    if camera is not None:
        parts = ", ".join(f"{k} = {toml_value(camera[k])}" for k in (
            "position", "focal_point", "up", "view_angle") if camera.get(k) is not None)
        lines.append(f"camera = {{ {parts} }}")
    return "\n".join(lines) + "\n"


def lesson_with_step(existing: str | None, title: str, step: str) -> str:
    """The text of a lesson file with ``step`` appended: to ``existing`` text, or a new
    lesson called ``title``."""
    if existing is None or not existing.strip():
        return f"title = {toml_value(title)}\n\n{step}"
    return existing.rstrip("\n") + "\n\n" + step
