"""The checks of a lesson file's values: every key of every step against its choices and
limits (:mod:`viewer.lessons.schema`), each mistake one :class:`~viewer.lessons.schema.LessonError`
naming the file, the line and the key. ``tomllib`` gives a line only for syntax errors, so
the line of a key is found in the text (:func:`key_line`).
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from pathlib import Path

from core.text import printable
from viewer.lessons.facts import CAPTION_FIELDS, EXPECT_KEYS, VISIBLE_OVERLAYS
from viewer.lessons.schema import (
    CAMERA_KEYS,
    EXPERIMENT_KEYS,
    MAX_CAMERA_COORDINATE,
    MAX_EXPERIMENT_SIZE,
    MAX_EXPERIMENT_SIZES,
    MAX_HOLD_SECONDS,
    MAX_LEVEL,
    MAX_MESH_REFERENCES,
    MAX_MESHES_PER_STEP,
    MAX_PLAY_FRAMES,
    MAX_STEP_PAIRS,
    MAX_STEPS,
    MAX_TEXT_CHARS,
    NAMED_VIEWS,
    STEP_KEYS,
    STEP_UNTIL,
    TOP_KEYS,
    UPDATE_MODES,
    CameraSpec,
    ExperimentSpec,
    Lesson,
    LessonError,
    LessonStep,
)
from viewer.scenes import SCENES
from viewer.words.choices import (
    bv_choices,
    descend_choices,
    obb_fit_choices,
    partition_choices,
    split_choices,
)

# -- finding lines ---------------------------------------------------------------------------
_STEP_HEADER = re.compile(r"^\s*\[\[\s*step\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[")


def _key_pattern(key: str) -> re.Pattern:
    return re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')"""
                      r"\s*(?:=|\.)")


def step_header_lines(text: str) -> list[int]:
    """Line numbers (from 1) of the ``[[step]]`` headers, in order."""
    return [i + 1 for i, line in enumerate(text.splitlines()) if _STEP_HEADER.match(line)]


def key_line(text: str, key: str, step: int | None = None, inner: str | None = None) -> int:
    """Line (from 1) of ``key`` in the top of the file (``step`` None) or in step ``step``
    (from 1), or of ``inner`` inside that key's table (``camera.position``). Falls back to the
    step's header line (or 1) when the key is not written on its own line."""
    lines = text.splitlines()
    headers = step_header_lines(text)
    if step is None:
        start, end = 0, headers[0] - 1 if headers else len(lines)
    else:
        start = headers[step - 1] - 1 if step - 1 < len(headers) else 0
        end = headers[step] - 1 if step < len(headers) else len(lines)
    fallback = start + 1 if step is not None else 1
    table = re.compile(rf"^\s*\[\s*step\s*\.\s*{re.escape(key)}\s*\]")
    for i in range(start, end):
        line = lines[i]
        if table.match(line) or _key_pattern(key).match(line):
            if inner is None:
                return i + 1
            # The inner key: on the same line (inline table) or on a line of the sub-table.
            if re.search(rf"\b{re.escape(inner)}\s*=", line.split("=", 1)[-1]
                         if not table.match(line) else ""):
                return i + 1
            for j in range(i + 1, end):
                if _key_pattern(inner).match(lines[j]):
                    return j + 1
                if _STEP_HEADER.match(lines[j]):
                    break
            return i + 1
        if step is None and _TABLE_HEADER.match(line):
            break
    return fallback


# -- reading ---------------------------------------------------------------------------------
class LessonChecker:
    """Turns the parsed TOML of one file into a :class:`Lesson`, raising
    :class:`LessonError` with the file, the line and the key."""

    def __init__(self, path: Path, text: str):
        self.path, self.text = path, text

    def fail(self, message: str, key: str | None = None, step: int | None = None,
             inner: str | None = None):
        # A key longer than any real one (a stranger's) is not looked for in the text.
        is_findable = key is not None and len(key) <= 100 and len(inner or "") <= 100
        line = key_line(self.text, key, step, inner) if is_findable else (
            step_header_lines(self.text)[step - 1] if step is not None else 1)
        where = f"step {step} " if step is not None else ""
        what = (f"key '{_short(key)}.{_short(inner)}'" if inner else f"key '{_short(key)}'"
                if key else "")
        prefix = f"{self.path.name} line {line}: "
        if where or what:
            prefix += f"{where}{what}: ".lstrip()
        raise LessonError(prefix + message)

    def lesson(self, data: dict) -> Lesson:
        for key in data:
            if key not in TOP_KEYS:
                self.fail(f"unknown key; a lesson has {_listed(TOP_KEYS)}", key)
        title = data.get("title", printable(self.path.stem.replace("-", " ")))
        if not isinstance(title, str):
            self.fail("must be text in quotes", "title")
        self.check_text(title, "title")
        description = data.get("description", "")
        if not isinstance(description, str):
            self.fail("must be text in quotes", "description")
        self.check_text(description, "description")
        steps = data.get("step")
        if steps is None:
            self.fail("no steps: add one or more [[step]] tables, each with a caption")
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            self.fail("must be written as [[step]] tables", "step")
        if len(steps) > MAX_STEPS:
            self.fail(f"{len(steps):,} steps; a lesson has at most {MAX_STEPS:,}")
        self.n_mesh_references = 0
        headers = step_header_lines(self.text)
        return Lesson(self.path, title, description, tuple(
            self.step(i + 1, headers[i] if i < len(headers) else 1, raw)
            for i, raw in enumerate(steps)))

    def step(self, number: int, line: int, raw: dict) -> LessonStep:
        for key in raw:
            if key not in STEP_KEYS:
                self.fail(f"unknown key; a step has {_listed(STEP_KEYS)}", key, number)
        if "caption" not in raw:
            self.fail("the step has no caption: add caption = \"what this step shows\"",
                      None, number)
        values: dict = {"number": number, "line": line}
        values["caption"] = self.text_value(raw, "caption", number)
        self.check_placeholders(values["caption"], number)
        if "scene" in raw and "meshes" in raw:
            self.fail("a step opens a built-in scene or mesh files, not both", "meshes", number)
        if "scene" in raw:
            values["scene"] = self.choice(raw, "scene", number, list(SCENES), "built-in scene")
        if "meshes" in raw:
            values["meshes"] = self.meshes(raw["meshes"], number)
        if "scene_param" in raw:
            values["scene_param"] = self.number(raw, "scene_param", number)
            scene = values.get("scene")
            param = SCENES[scene].param if scene is not None else None
            if scene is not None and param is None:
                self.fail(f"scene '{scene}' has no slider", "scene_param", number)
            if param is not None and not param.lo <= values["scene_param"] <= param.hi:
                self.fail(f"{values['scene_param']:g} is outside the {param.label} slider "
                          f"({param.lo:g} to {param.hi:g})", "scene_param", number)
        values["bv"] = self.optional_choice(raw, "bv", number,
                                            [k for k, _l, _d in bv_choices()],
                                            "bounding-volume kind", upper=False)
        values["split"] = self.optional_choice(
            raw, "split", number, [n for n, _l, _t in split_choices()], "split rule")
        values["obb_fit"] = self.optional_choice(
            raw, "obb_fit", number, [n for n, _l, _t in obb_fit_choices()], "OBB fit")
        values["descend"] = self.optional_choice(
            raw, "descend", number, [n for n, _l, _t in descend_choices()], "descend rule")
        values["partition"] = self.optional_choice(
            raw, "partition", number, [k for k, _l in partition_choices()], "partition",
            upper=False)
        if "update" in raw:
            values["update"] = self.choice(raw, "update", number, UPDATE_MODES, "update mode")
        if "level" in raw:
            level = raw["level"]
            if level != "all" and (isinstance(level, bool) or not isinstance(level, int)
                                   or not 0 <= level <= MAX_LEVEL):
                self.fail(f"{_shown(level)} is not a level; write a whole number from 0 to "
                          f"{MAX_LEVEL:,}, or \"all\"", "level", number)
            values["level"] = level
        if "boxes" in raw:
            if not isinstance(raw["boxes"], bool):
                self.fail(f"{_shown(raw['boxes'])} is not true or false", "boxes", number)
            values["boxes"] = raw["boxes"]
        if "view" in raw:
            values["view"] = self.choice(raw, "view", number, list(NAMED_VIEWS), "named view")
        if "camera" in raw:
            values["camera"] = self.camera(raw["camera"], number)
        for key, most in (("play_frames", MAX_PLAY_FRAMES), ("step_pairs", MAX_STEP_PAIRS)):
            if key in raw:
                values[key] = self.count(raw, key, number, most)
        if "step_until" in raw:
            values["step_until"] = self.choice(raw, "step_until", number, STEP_UNTIL,
                                               "stepper stop")
            values.setdefault("step_pairs", 0)
        if "experiment" in raw:
            values["experiment"] = self.experiment(raw["experiment"], number)
        if "expect" in raw:
            values["expect"] = self.expect(raw["expect"], number)
        if "hold" in raw:
            values["hold"] = self.number(raw, "hold", number)
            if not values["hold"] > 0:
                self.fail("must be more than 0 seconds", "hold", number)
            if values["hold"] > MAX_HOLD_SECONDS:
                self.fail(f"{values['hold']:g} seconds; a step is held at most "
                          f"{MAX_HOLD_SECONDS:g} seconds", "hold", number)
        return LessonStep(**{k: v for k, v in values.items() if v is not None})

    # -- one value each ------------------------------------------------------------------
    def check_placeholders(self, caption: str, number: int) -> None:
        """A caption's ``{name}`` fields are numbers it can show (:data:`CAPTION_FIELDS`)."""
        try:
            fields = [name for _text, name, spec, conv in string.Formatter().parse(caption)
                      if name is not None or spec or conv]
        except ValueError as exc:
            self.fail(f"{exc}: write {{name}} for a number to show, {{{{ and }}}} for braces",
                      "caption", number)
        for name in fields:
            if name not in CAPTION_FIELDS:
                self.fail(f"{_shown('{' + str(name) + '}')} is not a number the caption can "
                          f"show; choose one of {', '.join(CAPTION_FIELDS)}", "caption", number)

    def expect(self, value, number) -> dict:
        """A step's ``expect`` table, checked key by key (:data:`EXPECT_KEYS`)."""
        if not isinstance(value, dict):
            self.fail("must be a table: expect = { contacts = 156, level = 5 }", "expect",
                      number)
        out = {}
        for key, wanted in value.items():
            if key not in EXPECT_KEYS:
                self.fail(f"unknown key; an expect table has {_listed(EXPECT_KEYS)}", "expect",
                          number, key)
            out[key] = self.expected(key, wanted, number)
        return out

    def expected(self, key: str, wanted, number):
        def bad(reason: str):
            self.fail(f"{_shown(wanted)} is not {reason}", "expect", number, key)

        is_int = isinstance(wanted, int) and not isinstance(wanted, bool)
        if key in ("contacts", "volume_tests", "triangle_tests", "most_boxes"):
            if not is_int or wanted < 0:
                bad("a count; write a whole number from 0")
        elif key == "level":
            if wanted != "all" and (not is_int or not 0 <= wanted <= MAX_LEVEL):
                bad(f"a level; write a whole number from 0 to {MAX_LEVEL:,}, or \"all\"")
        elif key == "kind":
            kinds = [k for k, _l, _d in bv_choices()]
            if wanted not in kinds:
                bad(f"a bounding-volume kind; choose one of {', '.join(kinds)}")
        elif key == "update":
            if wanted not in UPDATE_MODES:
                bad(f"an update mode; choose one of {', '.join(UPDATE_MODES)}")
        elif key in ("time", "update_ms_above"):
            real = _finite(wanted)
            if real is None or real < 0:
                bad("a number from 0")
            wanted = real
        elif key in ("stepping", "culled", "leaf_pair"):
            if not isinstance(wanted, bool):
                bad("true or false")
        else:  # visible, hidden
            if not isinstance(wanted, list) or not all(isinstance(n, str) for n in wanted):
                bad("a list of names in quotes")
            if len(wanted) > len(VISIBLE_OVERLAYS):
                bad(f"a list of at most {len(VISIBLE_OVERLAYS)} names (each name once)")
            for name in wanted:
                if name not in VISIBLE_OVERLAYS:
                    self.fail(f"{_shown(name)} is not a name of what is drawn; choose one of "
                              f"{', '.join(VISIBLE_OVERLAYS)}", "expect", number, key)
            wanted = tuple(wanted)
        return wanted

    def text_value(self, raw, key, number) -> str:
        value = raw[key]
        if not isinstance(value, str) or not value.strip():
            self.fail("must be text in quotes, not empty", key, number)
        self.check_text(value, key, number)
        return " ".join(value.split())

    def check_text(self, value: str, key, number=None, inner=None) -> None:
        """Text of at most :data:`MAX_TEXT_CHARS` without control characters (newlines and
        tabs are spaces in a caption)."""
        if len(value) > MAX_TEXT_CHARS:
            self.fail(f"{len(value):,} characters; text holds at most {MAX_TEXT_CHARS:,}", key,
                      number, inner)
        bad = next((ch for ch in value if ch not in "\n\t\r"
                    and unicodedata.category(ch) == "Cc"), None)
        if bad is not None:
            self.fail(f"holds the control character U+{ord(bad):04X}; a lesson's text holds "
                      "none", key, number, inner)

    def number(self, raw, key, number, inner=None) -> float:
        value = raw[key] if inner is None else raw[inner]
        real = _finite(value)
        if real is None:
            self.fail(f"{_shown(value)} is not a number", key, number, inner)
        return real

    def count(self, raw, key, number, most: int) -> int:
        value = raw[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(f"{_shown(value)} is not a count; write a whole number from 0", key,
                      number)
        if value > most:
            self.fail(f"{_shown(value)} is more than {most:,}, the most a step has", key,
                      number)
        return int(value)

    def choice(self, raw, key, number, names, what) -> str:
        value = raw[key]
        if not isinstance(value, str) or value not in names:
            self.fail(f"{_shown(value)} is not a {what}; choose one of {', '.join(names)}",
                      key, number)
        return value

    def optional_choice(self, raw, key, number, names, what, upper=True) -> str | None:
        """A choice written in lower case in the file; the model's spelling back."""
        if key not in raw:
            return None
        words = [n.lower() for n in names]
        value = raw[key]
        if not isinstance(value, str) or value.lower() not in words:
            self.fail(f"{_shown(value)} is not a {what}; choose one of {', '.join(words)}",
                      key, number)
        return names[words.index(value.lower())] if upper else value.lower()

    def meshes(self, value, number) -> tuple:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str)
                                                               for v in value):
            self.fail("must be a file name in quotes or a list of them", "meshes", number)
        if len(value) > MAX_MESHES_PER_STEP:
            self.fail(f"{len(value):,} mesh files; a step opens at most {MAX_MESHES_PER_STEP}",
                      "meshes", number)
        self.n_mesh_references += len(value)
        if self.n_mesh_references > MAX_MESH_REFERENCES:
            self.fail(f"more than {MAX_MESH_REFERENCES} mesh files named in the lesson (each "
                      "step that opens meshes counts them)", "meshes", number)
        paths = []
        found: dict[str, Path] = {}  # one look-up per distinct name
        for name in value:
            self.check_text(name, "meshes", number)
            if name not in found:
                try:
                    path = (self.path.parent / name).resolve()
                    is_file = path.is_file()
                except (OSError, ValueError, RuntimeError) as exc:  # NUL, too long, a loop
                    self.fail(f"{_shown(name)} is not a usable file name ({exc})", "meshes",
                              number)
                if not is_file:
                    self.fail(f"no file {_shown(name)} next to the lesson ({path})", "meshes",
                              number)
                found[name] = path
            paths.append(found[name])
        return tuple(paths)

    def camera(self, value, number) -> CameraSpec:
        if not isinstance(value, dict):
            self.fail("must be a table: camera = { position = [x, y, z], focal_point = "
                      "[x, y, z], up = [x, y, z] }", "camera", number)
        for key in value:
            if key not in CAMERA_KEYS:
                self.fail(f"unknown key; a camera has {', '.join(CAMERA_KEYS)}", "camera",
                          number, key)
        vectors = {}
        for key in ("position", "focal_point", "up"):
            if key not in value:
                self.fail("missing: a camera needs position, focal_point and up", "camera",
                          number, key)
            vector = value[key]
            reals = [_finite(x) for x in vector] if isinstance(vector, list) else []
            if len(reals) != 3 or any(x is None for x in reals):
                self.fail(f"{_shown(vector)} is not three numbers [x, y, z], each finite",
                          "camera", number, key)
            if max(abs(x) for x in reals) > MAX_CAMERA_COORDINATE:
                self.fail(f"{_shown(vector)} is beyond {MAX_CAMERA_COORDINATE:g} world units",
                          "camera", number, key)
            vectors[key] = tuple(reals)
        if math.dist(vectors["position"], vectors["focal_point"]) == 0:
            self.fail("the camera is at its focal point", "camera", number, "position")
        if not any(vectors["up"]):
            self.fail("up is the zero vector", "camera", number, "up")
        angle = None
        if "view_angle" in value:
            angle = self.number(value, "camera", number, "view_angle")
            if not 1.0 <= angle <= 170.0:
                self.fail(f"{angle:g} degrees is outside 1 to 170", "camera", number,
                          "view_angle")
        return CameraSpec(vectors["position"], vectors["focal_point"], vectors["up"], angle)

    def experiment(self, value, number) -> ExperimentSpec:
        if isinstance(value, str):
            value = {"name": value}
        if not isinstance(value, dict) or "name" not in value:
            self.fail("must be a table: experiment = { name = \"pcp\", sizes = [...] }",
                      "experiment", number)
        for key in value:
            if key not in EXPERIMENT_KEYS:
                self.fail(f"unknown key; an experiment has {', '.join(EXPERIMENT_KEYS)}",
                          "experiment", number, key)
        name = value["name"]
        names = experiment_names()
        if not isinstance(name, str) or name not in names:
            self.fail(f"{_shown(name)} is not an experiment; choose one of "
                      f"{', '.join(names)}", "experiment", number, "name")
        sizes = value.get("sizes", [])
        if not isinstance(sizes, list) or any(isinstance(s, bool) or not isinstance(s, int)
                                              or s < 1 for s in sizes):
            self.fail(f"{_shown(sizes)} is not a list of whole numbers from 1", "experiment",
                      number, "sizes")
        if len(sizes) > MAX_EXPERIMENT_SIZES or any(s > MAX_EXPERIMENT_SIZE for s in sizes):
            self.fail(f"{_shown(sizes)}: a lesson runs at most {MAX_EXPERIMENT_SIZES} sizes of "
                      f"at most {MAX_EXPERIMENT_SIZE:,} each", "experiment", number, "sizes")
        return ExperimentSpec(name, tuple(int(s) for s in sizes))


EXPERIMENT_NAMES = ("pcp", "sat-axes", "splits", "refit", "partitions", "cost-model")
"""The experiments of BVH Lab (issue 14). A lesson naming one that this build lacks still
reads (it is no typo); its step says so when it is played."""


def experiment_names() -> list[str]:
    """Names of the experiments a step may name: this build's, then any other of
    :data:`EXPERIMENT_NAMES`."""
    from viewer.words.choices import experiment_choices

    names = [name for name, _title in experiment_choices() or []]
    return names + [name for name in EXPERIMENT_NAMES if name not in names]


def _shown(value) -> str:
    """A value of the file for a message: escaped, at most 40 characters."""
    if isinstance(value, (list, dict)) and len(value) > 40:
        return f"a {type(value).__name__} of {len(value):,} items"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"a {len(str(abs(value)))}-digit number"
    try:
        text = printable(repr(value) if not isinstance(value, str) else f"'{value[:40]}'")
    except (RecursionError, ValueError):  # nested past repr's depth, digits past its limit
        return f"a nested {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _short(key: str) -> str:
    """A key of the file for a message: escaped, at most 40 characters."""
    text = printable(str(key))
    return text if len(text) <= 40 else text[:37] + "..."


def _finite(value) -> float | None:
    """``value`` as a float if it is a finite real number (not a bool), else None (an integer
    beyond the float range included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        real = float(value)
    except OverflowError:
        return None
    return real if math.isfinite(real) else None


def _listed(keys) -> str:
    return ", ".join(keys)
