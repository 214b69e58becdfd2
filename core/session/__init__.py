"""The ``.bvhsession`` file: a whole scene as the user left it, to be opened again.

The same container as a recording (:mod:`core.files.container`: a zip that ``numpy.load`` opens,
one ``.npy`` member per array, ``manifest.json``), with its own manifest, format
``"bvh-lab session"`` version 1. The arrays are each body's mesh (rest vertices after
sculpting, faces, the source face ids and, when they differ, the vertices as loaded); the
manifest holds everything else as plain JSON: the scene, the poses, colours, visibility,
deformers and their settings, the time, the pipeline and display choices, the traversal level,
the mode and the camera (see docs/app.md, "Sessions", and docs/file-formats.md).

Reading never unpickles and checks everything before it is used: every array's dtype and
shape, finite coordinates within :data:`core.mesh.MAX_ABS_COORDINATE`, face indices in range,
poses that are a rotation, a positive scale and a translation, deformers and their settings
against the registry, and every choice of the pipeline against the core's enums and
registries. Declared sizes are compared with limits before anything is decompressed. Any
problem is one :class:`SessionFileError` line naming the file.

The manifest is checked against a schema before anything reaches the caller: every value's
type (``version`` the exact integer 1, not ``1.0`` or ``true``; a number is never a bool or a
string), finiteness and range (the ``MAX_...`` constants below, listed in docs/file-formats.md's
"Sessions"): at most :data:`MAX_BODIES` bodies, poses with a bounded scale and translation,
``#rrggbb`` colours, deformer settings within the registry's slider ranges, cameras that look
somewhere, margins and opacities the app's controls can set, and text of bounded length.

The package: :mod:`core.session.model` (the records, errors and limits),
:mod:`core.session.save` (writing) and :mod:`core.session.read` (reading and checking).
"""

from core.session.model import (
    MAX_BODIES,
    CameraState,
    Session,
    SessionBody,
    SessionCancelled,
    SessionFileError,
    SessionSummary,
)
from core.session.read import open_session, peek_session
from core.session.save import save_session, session_manifest

__all__ = [
    "MAX_BODIES",
    "CameraState",
    "Session",
    "SessionBody",
    "SessionCancelled",
    "SessionFileError",
    "SessionSummary",
    "open_session",
    "peek_session",
    "save_session",
    "session_manifest",
]
