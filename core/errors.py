"""Exceptions raised by the core.

Every error that describes bad data says how many items are bad and the first offending
index, so a user can find the problem in their file and a caller can react to the class.
"""

from __future__ import annotations


class BVHLabError(Exception):
    """Base class of every error the core raises on purpose."""


class MeshError(BVHLabError, ValueError):
    """A mesh cannot be used as given."""


class MeshFileError(MeshError):
    """A mesh file is missing, unreadable, corrupt or of an unsupported kind."""

    def __init__(self, path: str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class EmptyMeshError(MeshError):
    """The mesh has no triangles (or no vertices) after triangulation."""


class _CountedMeshError(MeshError):
    """A mesh error about ``count`` items, the first at ``first_index``."""

    what = "items are invalid"

    def __init__(self, count: int, first_index: int, detail: str = ""):
        self.count = int(count)
        self.first_index = int(first_index)
        message = f"{self.count} {self.what}; first at index {self.first_index}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class NonFiniteVertexError(_CountedMeshError):
    """Some vertex coordinates are NaN or infinite."""

    what = "vertices have NaN or infinite coordinates"


class FaceIndexError(_CountedMeshError):
    """Some faces refer to vertices that do not exist (out of range or negative)."""

    what = "faces refer to vertices out of range"


class FaceShapeError(MeshError):
    """Faces are not an ``(m, 3)`` integer array."""


class FaceTypeError(FaceShapeError, TypeError):
    """Faces are not integers (floats, booleans, strings, objects): a ``TypeError`` too."""


class VertexShapeError(EmptyMeshError):
    """Vertices are not an ``(n, 3)`` array (an :class:`EmptyMeshError`, as it was first)."""


class TopologyChangedError(BVHLabError):
    """A tree was asked to refit to a mesh whose faces differ from the ones it was built on.

    Refitting only moves boxes; with different faces the leaves would describe the wrong
    triangles. Build a new tree instead (tinybvh's ``refittable`` rule).
    """


class UnsupportedMeshFormatError(MeshFileError):
    """The file's extension is not one of ``core.io.SUPPORTED_EXTENSIONS``."""


class CorruptMeshFileError(MeshFileError):
    """The file is empty, truncated or does not follow its format."""


class NoTrianglesError(MeshFileError, EmptyMeshError):
    """The file is readable but holds no polygons (only points, lines, or nothing)."""


class PairBudgetError(BVHLabError, ValueError):
    """A query would pass its budget of volume pairs: the trees' boxes overlap too much.

    Raised before the buffers that grow with the pair count are grown past the budget (see
    :data:`core.collide.budget.DEFAULT_PAIR_BUDGET`), so the process never reaches the memory
    that would take; the message is one line naming the tree and the budget. A ValueError
    too, like every error about bad input here (the tree is the input at fault), so callers
    that report a frame's bad input report this one in the same line.

    Attributes
    ----------
    tree : str
        The tree blamed, as people read it ("tree from random.json", "BVH Lab's AABB tree of
        body A").
    budget : int
    what : str
        What passed the budget ("overlapping volume pairs", "triangle pairs", ...).
    level : int or None
        The traversal level where it passed the budget, when the walk was level by level.
    operation : str
        What was stopped ("the collision query", "the self-collision query", "the stepper"),
        for a caller that says which of its steps failed; not in the message.
    """

    def __init__(self, tree: str, budget: int, what: str = "overlapping volume pairs",
                 level: int | None = None, detail: str = "its boxes overlap too much",
                 operation: str = "the query"):
        self.operation = operation
        self.tree = str(tree)
        self.budget = int(budget)
        self.what = what
        self.level = level
        self.detail = detail
        where = "" if level is None else f" at level {level}"
        super().__init__(f"{self.tree}: more than {self.budget:,} {what}{where}; {detail}")


class QueryCancelled(BVHLabError):
    """A long query was cancelled (:meth:`core.collide.budget.QueryControl.cancel`)."""
