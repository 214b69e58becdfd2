"""The contents of a ``.bvhsession`` file as plain records (:class:`Session`, one
:class:`SessionBody` per body, :class:`CameraState`), its errors, and the limits its reader
checks (listed in docs/file-formats.md, "Sessions")."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.bv import BV_KINDS, ObbFit
from core.bvh import SplitRule
from core.collide import DescendRule
from core.mesh import TriMesh
from core.partition import PARTITION_KINDS
from core.pipeline import UpdateMode
from core.text import printable

FORMAT_NAME = "bvh-lab session"
FORMAT_VERSION = 1
SUFFIX = ".bvhsession"

MAX_MANIFEST_BYTES = 16 * 2**20
"""Largest ``manifest.json`` read (16 MiB). A session's manifest holds no mesh data: a few
kilobytes for tens of bodies; a bigger one is refused before it is decompressed."""

MAX_ARRAY_BYTES = 4 * 2**30
"""Largest total of the arrays a session may declare (4 GiB): two 5-million-triangle meshes
(the app's limit per mesh) with their loaded copies hold about 1.2 GB."""

MAX_BODIES = 64
"""Most bodies in a session. Each body is a tree refitted every frame, a row in the Scene
dock and its own actors on the canvas; the built-in scenes have two or three. 10,000 tiny
bodies in a 15 kB file froze the window for minutes."""

MAX_TEXT_CHARS = 4000
"""Longest text value (a name, a title, a description, a colour, a choice)."""

MAX_MARGIN = 10.0
"""Largest near-contact margin (the Pipeline dock's range is 0 to 10)."""

MAX_DRIFT_THRESHOLD = 5.0
"""Largest drift threshold of the auto update (the Pipeline dock's range is 0 to 5)."""

MAX_SAVED_AT = 1e11
"""Latest save time a session may claim (seconds since 1970: the year 5138)."""

MAX_ABS_TIME = 1e6
"""Largest animation time in seconds (11 days of play)."""

MAX_ABS_CAMERA = 1e9
"""Largest camera coordinate and parallel scale (world units)."""

POSE_SCALES = (1e-6, 1e6)
"""Smallest and largest uniform scale of a body's pose."""

MAX_ABS_TRANSLATION = 1e9
"""Largest translation of a body's pose (world units)."""

VIEW_ANGLES = (1.0, 170.0)
"""Range of the camera's view angle in degrees (as a lesson's camera)."""

DISPLAY_RANGES = {"mesh_opacity": (0.0, 1.0), "box_cap": (0, 1_000_000)}
"""Display values with a range: the meshes' opacity, the boxes drawn per overlay."""

DISPLAY_WORDS = {"heat_map": ("off", "work", "visits", "sah")}
"""Display values that are one of a few words (``viewer.render.heat.HEAT_MODES``)."""

NO_PARTITION = "none"

PIPELINE_CHOICES = {
    "update": tuple(m.name for m in UpdateMode),
    "split": tuple(m.name for m in SplitRule),
    "descend": tuple(m.name for m in DescendRule),
    "bv": tuple(BV_KINDS),
    "partition": (NO_PARTITION, *PARTITION_KINDS),
    "obb_fit": tuple(m.name for m in ObbFit),
}
"""The pipeline choices a session names, and the values each may take."""


class SessionFileError(ValueError):
    """A session file that cannot be written or read, in one line naming the file.

    Control characters in the message (from the file or its name) are escapes."""

    def __init__(self, message: str = "") -> None:
        super().__init__(printable(str(message)))


class SessionCancelled(Exception):
    """The caller's ``cancel()`` said stop; nothing was written."""


@dataclass(frozen=True)
class SessionBody:
    """One body of a session.

    Attributes
    ----------
    name : str
    rest : TriMesh
        The rest mesh after sculpting (local coordinates).
    original : TriMesh
        The mesh as loaded ("reset to rest" and a scene's parameter start from it); the same
        object as ``rest`` when the two have the same vertices.
    pose : (4, 4) float64
        ``x_world = pose @ [x, 1]``.
    color : str
    is_visible : bool
    deformer : str or None
        Key of ``core.deform.DEFORMERS``.
    deformer_params : dict
        The deformer's field values (enum fields as their members).
    is_sculpted : bool
        Whether brush strokes changed ``rest`` (told in the crash-restore question).
    """

    name: str
    rest: TriMesh
    original: TriMesh
    pose: np.ndarray
    color: str = "#0072b2"
    is_visible: bool = True
    deformer: str | None = None
    deformer_params: dict = field(default_factory=dict)
    is_sculpted: bool = False


@dataclass(frozen=True)
class CameraState:
    """Where the camera is: position, focal point, view-up, angle or parallel scale.

    Attributes
    ----------
    position, focal_point, view_up : (3,) tuple of float
    view_angle : float
        Vertical view angle in degrees (perspective projection).
    is_parallel : bool
        Parallel projection instead of perspective.
    parallel_scale : float
        Half the height of the view in world units (parallel projection).
    """

    position: tuple
    focal_point: tuple
    view_up: tuple
    view_angle: float = 30.0
    is_parallel: bool = False
    parallel_scale: float = 1.0


@dataclass(frozen=True)
class Session:
    """Everything a ``.bvhsession`` file holds.

    Attributes
    ----------
    bodies : tuple of SessionBody
    scene_key : str or None
        The built-in scene's key, None for meshes opened from files.
    scene_title, scene_description : str
    scene_param_value : float
        The scene's slider value (e.g. the gap of "Parallel close proximity").
    is_self_collision : bool
    t : float
        Animation time in seconds.
    is_playing : bool
    pipeline : dict
        The pipeline choices by name: ``update``, ``split``, ``descend``, ``bv``,
        ``partition``, ``obb_fit`` (names from :data:`PIPELINE_CHOICES`), ``margin`` and
        ``drift_threshold`` (numbers), and any further plain value the viewer keeps.
    display : dict
        Plain values (booleans, numbers, strings) of the viewer's display choices.
    level : int or None
        The traversal level shown (None: all levels).
    mode : str
        ``"camera"``, ``"move"`` or ``"sculpt"``.
    selected : int
        The selected body, -1 for none.
    camera : CameraState or None
    saved_at : float
        When the file was written (seconds since the epoch).
    """

    bodies: tuple
    scene_key: str | None = None
    scene_title: str = ""
    scene_description: str = ""
    scene_param_value: float = 0.0
    is_self_collision: bool = False
    t: float = 0.0
    is_playing: bool = False
    pipeline: dict = field(default_factory=dict)
    display: dict = field(default_factory=dict)
    level: int | None = None
    mode: str = "camera"
    selected: int = -1
    camera: CameraState | None = None
    saved_at: float = 0.0


MODES = ("camera", "move", "sculpt")


@dataclass(frozen=True)
class SessionSummary:
    """What a session holds, in brief, read from its manifest alone (the crash question).

    Attributes
    ----------
    scene_title : str
    n_bodies : int
    n_sculpted : int
        Bodies with brush strokes.
    saved_at : float
        Seconds since the epoch.
    """

    scene_title: str
    n_bodies: int
    n_sculpted: int
    saved_at: float
