"""Hostile ``.bvhsession`` files, made from a small good session at test time.

Each case rewrites the manifest of a two-body session the app itself wrote (or its zip), the
way a stranger's damaged or crafted file would differ. :func:`cases` yields
:class:`tests.hostile.Case` tuples; ``words`` is a fragment of the one-line
:class:`core.session.SessionFileError` the file must give (through ``open_session`` and
File > Open session alike).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from core.files.container import MANIFEST
from core.session import Session, SessionBody, save_session
from tests.core.meshgen import sphere_mesh
from tests.hostile import Case


def good_session(folder: Path) -> Path:
    """A two-body session (a small sphere twisted, another moved) written by the app."""
    a, b = sphere_mesh(6), sphere_mesh(5, radius=0.5, name="small")
    pose = np.eye(4)
    pose[:3, 3] = (0.7, 0.1, -0.2)
    session = Session(
        bodies=(SessionBody("ball", a, a, np.eye(4), "#0072b2", True, "twist",
                            {"amplitude": 0.5, "speed": 0.25}),
                SessionBody("small", b, b, pose, "#009e73")),
        scene_key=None, scene_title="Two spheres", t=0.5,
        pipeline={"update": "REFIT", "drift_threshold": 0.25, "split": "MIDPOINT",
                  "descend": "LARGER_VOLUME", "bv": "aabb", "partition": "none",
                  "obb_fit": "SURFACE", "margin": 0.0},
        display={"mesh_opacity": 0.55, "box_cap": 20_000, "heat_map": "off"},
        level=2, mode="camera", selected=-1)
    return save_session(session, folder / "good.bvhsession")


def _manifest_text(folder: Path, name: str, change: Callable[[dict], object]) -> Path:
    """The good session with its manifest replaced by ``change(manifest)`` (a dict dumped
    as JSON, or the manifest's text as bytes)."""
    source = good_session(folder)
    target = folder / f"{name}.bvhsession"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(
            target, "w", compression=zipfile.ZIP_DEFLATED) as new:  # fmt: skip
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == MANIFEST:
                changed = change(json.loads(data))
                data = changed if isinstance(changed, bytes) else json.dumps(changed).encode()
            new.writestr(item.filename, data)
    return target


def _manifest(change: Callable[[dict], object]) -> Callable[[Path], Path]:
    return lambda folder: _manifest_text(folder, "hostile", change)


def _set(path: str, value) -> Callable[[Path], Path]:
    """Set ``value`` at ``path`` in the manifest ("pipeline.margin", "bodies.0.color")."""

    def change(manifest: dict) -> dict:
        _set_in(manifest, path, value)
        return manifest

    return _manifest(change)


def _raw_number(path: str, digits: str) -> Callable[[Path], Path]:
    """Set a JSON number at ``path`` written as ``digits`` (more than Python's float holds)."""

    def change(manifest: dict) -> bytes:
        marker = 123456.789
        _set_in(manifest, path, marker)
        return json.dumps(manifest).replace(repr(marker), digits).encode()

    return _manifest(change)


def _set_in(manifest: dict, path: str, value) -> None:
    node = manifest
    *keys, last = path.split(".")
    for key in keys:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = value


def _many_bodies(n: int) -> Callable[[Path], Path]:
    return _manifest(lambda m: {**m, "bodies": [m["bodies"][1]] * n})


def _camera(**changes) -> Callable[[Path], Path]:
    camera = {"position": [3.0, 2.0, 5.0], "focal_point": [0.0, 0.0, 0.0],
              "view_up": [0.0, 1.0, 0.0], "view_angle": 30.0, "parallel_projection": False,
              "parallel_scale": 1.0}
    return _manifest(lambda m: {**m, "camera": {**camera, **changes}})


def _pose(matrix) -> Callable[[Path], Path]:
    return _set("bodies.1.pose", matrix)


NAN = float("nan")
INF = float("inf")
_SCALED = [[1e9, 0, 0, 0], [0, 1e9, 0, 0], [0, 0, 1e9, 0], [0, 0, 0, 1]]
_FAR = [[1, 0, 0, 1e300], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def cases() -> Iterator[Case]:
    """Every hostile session of the catalogue."""
    # The version: an exact whole number, not a number equal to 1.
    yield Case("version 1.0", _set("version", 1.0), "format version 1.0", "version")
    yield Case("version true", _set("version", True), "format version true", "version")
    # Counts: bodies.
    yield Case("10,000 bodies", _many_bodies(10_000), "10,000 bodies; a session holds at "
               "most 64", "count")
    # Numbers beyond what Python reads, or a float holds.
    yield Case("5000-digit integer", _raw_number("t", "9" * 5000), "4300", "digits")
    yield Case("400-digit time", _raw_number("t", "9" * 400), "manifest.t is beyond the range",
               "digits")
    yield Case("400-digit pose entry", _raw_number("bodies.1.pose.0.3", "9" * 400),
               "body 1", "digits")
    # Cameras.
    # NaN and Infinity are not JSON numbers: the container refuses the manifest itself.
    yield Case("NaN camera", _camera(position=[NAN, 0.0, 0.0]),
               "NaN is not a JSON number", "camera")
    yield Case("infinite camera scale", _camera(parallel_scale=INF),
               "Infinity is not a JSON number", "camera")
    yield Case("camera at its focal point", _camera(position=[0.0, 0.0, 0.0]),
               "camera.position is its focal point", "camera")
    yield Case("camera angle 0", _camera(view_angle=0.0), "camera.view_angle is 0.0", "camera")
    yield Case("camera up zero", _camera(view_up=[0, 0, 0]), "camera.view_up is the zero",
               "camera")
    yield Case("camera 1e300 away", _camera(position=[1e300, 0, 0]),
               "camera.position must be three finite numbers within", "camera")
    # Absurd choices.
    yield Case("margin 1e300", _set("pipeline.margin", 1e300), "pipeline.margin is 1e+300",
               "range")
    yield Case("drift threshold 1e9", _set("pipeline.drift_threshold", 1e9),
               "pipeline.drift_threshold", "range")
    yield Case("opacity 50", _set("display.mesh_opacity", 50.0), "display.mesh_opacity is 50.0",
               "range")
    yield Case("opacity -1", _set("display.mesh_opacity", -1), "display.mesh_opacity is -1",
               "range")
    yield Case("box cap 10^12", _set("display.box_cap", 10**12), "display.box_cap", "range")
    yield Case("unknown heat map", _set("display.heat_map", "plasma"), "display.heat_map is "
               "'plasma'", "range")
    yield Case("time 1e300", _set("t", 1e300), "t is 1e+300", "range")
    yield Case("saved in the year 10^300", _set("saved_at", 1e300), "saved_at is 1e+300",
               "range")
    yield Case("scene slider beyond its range", _manifest(lambda m: {**m, "scene": {
        **m["scene"], "key": "concentric-spheres", "param_value": 5.0}}),
        "is outside the gap slider", "range")
    yield Case("selected body 99", _set("selected", 99), "selected is 99", "range")
    # Wrong types.
    yield Case("margin as text", _set("pipeline.margin", "0.1"), "pipeline.margin has the "
               "wrong type (str)", "type")
    yield Case("display value a list", _set("display.show_culled", [1, 2]),
               "display.show_culled must be a plain finite value", "type")
    yield Case("display field __class__", _set("display.__class__", 1),
               "display has no choice '__class__'", "type")
    yield Case("level true", _set("level", True), "manifest.level has the wrong type (bool)",
               "type")
    yield Case("scene not an object", _set("scene", [1, 2]), "manifest.scene has the wrong "
               "type (list)", "type")
    # Every field of every body.
    yield Case("body colour not a colour", _set("bodies.1.color", "not-a-colour"),
               "body 1.color is 'not-a-colour', not a colour #rrggbb", "body")
    yield Case("body name of a million characters", _set("bodies.1.name", "x" * 1_000_000),
               "body 1.name is 1,000,000 characters long", "body")
    yield Case("body pose scaled 1e9", _pose(_SCALED), "body 1.pose's scale is 99999", "body")
    yield Case("body pose 1e300 away", _pose(_FAR), "body 1.pose's translation is 1e+300",
               "body")
    yield Case("body pose NaN", _pose([[NAN, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0],
                                       [0, 0, 0, 1]]), "NaN is not a JSON number", "body")
    yield Case("deformer amplitude 1e300", _set("bodies.0.deformer_params.amplitude", 1e300),
               "body 0: deformer twist: amplitude is 1e+300, outside 0 to 3.14159", "body")
    yield Case("deformer amplitude as text", _set("bodies.0.deformer_params.amplitude", "0.5"),
               "amplitude is '0.5', not a finite number", "body")
    yield Case("deformer setting unknown", _set("bodies.0.deformer_params.power", 3),
               "deformer twist: unknown setting 'power'; known: amplitude", "body")
    yield Case("visible as 1", _set("bodies.0.visible", 1), "body 0.visible has the wrong "
               "type (int)", "body")
    # Structure.
    yield Case("manifest nested 100,000 deep", _manifest(
        lambda m: b'{"format": "bvh-lab session", "version": 1, "bodies": '
        + b"[" * 100_000 + b"]" * 100_000 + b"}"), "nests too deeply", "nesting")
    yield Case("a text of control characters", _set("bodies.1.color", "\x1b]0;pwned\x07"),
               "\\x1b]0;pwned\\x07", "escape")
