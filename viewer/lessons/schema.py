"""A lesson file: a TOML list of steps; its keys, its limits and the plain values it is read
into (:class:`Lesson`, :class:`LessonStep`), read by :mod:`viewer.lessons.reading` and checked
by :mod:`viewer.lessons.checking`.

Every mistake is one :class:`LessonError` naming the file, the line and the key, e.g.
``aabb-levels.toml line 14: step 3 key 'split': 'median3' is not a split rule; choose one of
midpoint, median, ...``. Unknown keys are errors: a typo must not pass silently. Plain
Python, no Qt: the controller applies a step (``viewer.control.lessons``).

A lesson may come from a stranger, so everything that grows with the file has a limit (the
``MAX_...`` constants below, listed in docs/lessons.md): the file's size (no more is
read), each text, the steps, the mesh files named, the seconds held, the frames played, the
stepper's pairs, the level, the experiments' sizes and an expect table's lists of names.
Numbers must be finite; text holds no control characters, and a message quoting the file
escapes them (:func:`core.text.printable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.text import printable

NAMED_VIEWS = {
    "default": "the view a scene opens with: from the front-right, above",
    "front": "from +z, looking along -z (y up, as in the shipped meshes)",
    "back": "from -z, looking along +z",
    "left": "from -x, looking along +x",
    "right": "from +x, looking along -x",
    "top": "from above (+y), looking down",
    "bottom": "from below (-y), looking up",
    "iso": "from a corner, x, y and z at equal angles",
}
"""Camera views a step can name (``view = "top"``)."""

UPDATE_MODES = ("refit", "rebuild", "auto")

STEP_UNTIL = ("overlap", "leaf", "contact", "level_end")
"""Where ``step_until`` runs the stepper (``viewer.control.stepping.STOPS``)."""

DEFAULT_HOLD_SECONDS = 4.0
"""How long a step stays on screen in an exported video (a caption of two lines is read in
about that time)."""

TOP_KEYS = {"title": "the lesson's title", "description": "what the lesson teaches",
            "step": "the steps, each a [[step]] table"}

STEP_KEYS = {
    "caption": "what the step teaches, shown at the bottom",
    "scene": "a built-in scene to open",
    "meshes": "mesh files to open as the scene (paths relative to the lesson file)",
    "scene_param": "the scene's slider value (e.g. the gap of the concentric spheres)",
    "bv": "bounding-volume kind",
    "split": "split rule",
    "obb_fit": "how oriented boxes are fitted",
    "descend": "which volume of an overlapping pair is split",
    "update": "tree update mode",
    "partition": "spatial partition",
    "level": "traversal level (a number, or \"all\")",
    "boxes": "draw the volumes (true) or only the meshes and contacts (false)",
    "view": "a named camera view",
    "camera": "camera table: position, focal_point, up, view_angle",
    "play_frames": "frames of the animation to play",
    "step_pairs": "pair tests of the traversal to step through",
    "step_until": "then run the stepper on to the next overlap, leaf, contact or level_end",
    "experiment": "experiment table: name, sizes",
    "hold": "seconds the step is held in an exported video",
    "expect": "what must be true when the step is shown (a table; the tests check it)",
}
"""Keys a step may have, with what each sets (docs/lessons.md lists the same)."""

CAMERA_KEYS = ("position", "focal_point", "up", "view_angle")
EXPERIMENT_KEYS = ("name", "sizes")

MAX_LESSON_BYTES = 2**20
"""Largest lesson file read (1 MiB; no more is read): the built-in lessons are 1.5 kB, and a
lesson of :data:`MAX_STEPS` steps with long captions stays under 500 kB."""

MAX_TEXT_CHARS = 2000
"""Longest text (title, description, caption, file name): a caption is read in a few
seconds; 2000 characters already fill the caption bar several times over."""

MAX_STEPS = 500
"""Most steps in a lesson (the built-in ones have 5 to 7)."""

MAX_MESHES_PER_STEP = 16
"""Most mesh files one step opens as its scene (each is a body with its own tree)."""

MAX_MESH_REFERENCES = 64
"""Most mesh files named in a whole lesson, counting repeats: each step that opens meshes
reads them again. A step naming the same file twice reads it once."""

MAX_HOLD_SECONDS = 120.0
"""Longest a step is held in an exported video (two minutes)."""

MAX_PLAY_FRAMES = 3000
"""Most animation frames a step plays (100 s at 30 frames per second); each is computed and,
in an export, rendered."""

MAX_STEP_PAIRS = 10_000_000
"""Largest ``step_pairs`` (the stepper stops at the traversal's last pair test anyway)."""

MAX_LEVEL = 10_000
"""Largest traversal level a step names (as in a session)."""

MAX_EXPERIMENT_SIZE = 500_000
"""Largest experiment size (triangles, for every experiment today) a lesson runs: above the
largest default size of any experiment (128,000), and a figure during a lecture should take
seconds, not hours."""

MAX_EXPERIMENT_SIZES = 8
"""Most sizes of one experiment in a step."""

MAX_CAMERA_COORDINATE = 1e9
"""Largest camera coordinate (world units)."""


class LessonError(ValueError):
    """A lesson file that cannot be used: one line naming the file, the line and the key.

    Control characters in the message (from the file's text or name) are escapes."""

    def __init__(self, message: str = "") -> None:
        super().__init__(printable(str(message)))


@dataclass(frozen=True)
class CameraSpec:
    """A camera in a step: ``position``, ``focal_point`` and ``up`` are ``(3,)`` tuples of
    float (world units), ``view_angle`` degrees or None (unchanged)."""

    position: tuple
    focal_point: tuple
    up: tuple
    view_angle: float | None = None


@dataclass(frozen=True)
class ExperimentSpec:
    """An experiment's figure in a step: its name and the problem sizes (empty: the
    experiment's quick sizes)."""

    name: str
    sizes: tuple = ()


@dataclass(frozen=True)
class LessonStep:
    """One step; None means "as the step before left it".

    Attributes
    ----------
    number : int
        1 for the first step.
    line : int
        Line of the step's ``[[step]]`` header in the file.
    caption : str
    scene : str or None
        A key of ``viewer.scenes.SCENES``.
    meshes : tuple of Path
        Absolute paths (resolved against the lesson file's folder); empty: no meshes.
    scene_param : float or None
    bv, split, obb_fit, descend, partition : str or None
        As the model holds them: a ``BV_KINDS`` key, enum member names in capitals, a
        partition key.
    update : str or None
        ``"refit"``, ``"rebuild"`` or ``"auto"``.
    level : int, "all" or None
    boxes : bool or None
        Draw each tree's volumes and the overlapping pairs (False: only meshes and
        contacts).
    view : str or None
        A key of :data:`NAMED_VIEWS`.
    camera : CameraSpec or None
    play_frames : int
        Frames to play (0: none).
    step_pairs : int or None
        Turn the traversal stepper on and show the pair test after this many (0: the root
        pair); None: the stepper is off.
    step_until : str or None
        Then run the stepper on to the next pair that overlaps (``"overlap"``), of two leaves
        (``"leaf"``), with a contact (``"contact"``) or the level's last (``"level_end"``).
    experiment : ExperimentSpec or None
    hold : float
        Seconds in an exported video.
    expect : dict
        What must be true when the step is shown, by the keys of
        :data:`viewer.lessons.facts.EXPECT_KEYS` (empty: nothing is stated).
    """

    number: int
    line: int
    caption: str
    scene: str | None = None
    meshes: tuple = ()
    scene_param: float | None = None
    bv: str | None = None
    split: str | None = None
    obb_fit: str | None = None
    descend: str | None = None
    update: str | None = None
    partition: str | None = None
    level: object = None
    boxes: bool | None = None
    view: str | None = None
    camera: CameraSpec | None = None
    play_frames: int = 0
    step_pairs: int | None = None
    step_until: str | None = None
    experiment: ExperimentSpec | None = None
    hold: float = DEFAULT_HOLD_SECONDS
    expect: dict = field(default_factory=dict, hash=False)

    @property
    def opens_scene(self) -> bool:
        return self.scene is not None or bool(self.meshes)


@dataclass(frozen=True)
class Lesson:
    """A lesson: its file, title, description and steps (at least one)."""

    path: Path
    title: str
    description: str
    steps: tuple = field(default_factory=tuple)

    def __len__(self) -> int:
        return len(self.steps)
