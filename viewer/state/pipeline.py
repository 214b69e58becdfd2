"""What the user chose for the per-frame pipeline, the cost of its optional analyses, and a
live frame that failed."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class UpdateChoice(enum.Enum):
    """Viewer-side mirror of ``core.pipeline.UpdateMode`` (widgets never import the core)."""

    REFIT = "refit"
    REBUILD = "rebuild"
    AUTO = "auto"


@dataclass(frozen=True)
class PipelineChoice:
    """What the user chose for the per-frame pipeline (mirrors ``PipelineSettings``).

    Attributes
    ----------
    update : UpdateChoice
    drift_threshold : float
        AUTO rebuilds when the SAH drift passes this value.
    split : str
        Name of a ``core.bvh.SplitRule`` member.
    descend : str
        Name of a ``core.collide.DescendRule`` member.
    bv : str
        Key of ``core.bv.BV_KINDS``: the bounding volume the traversal tests and the overlays
        draw.
    partition : str
        ``"none"`` or a key of ``core.partition.PARTITION_KINDS``: a spatial partition run
        on the same frame, its cells and planes drawn.
    obb_fit : str
        Name of a ``core.bv.ObbFit`` member: how the ``"obb"`` kind chooses its boxes' axes
        (the other kinds ignore it).
    margin : float
        Near-contact distance ``D >= 0``: pairs that do not touch but are at most ``D`` apart
        are reported with their distance; 0 means exact contact only.
    distance : bool
        Measure the minimum distance of A and B when they do not touch (beside the frame, on
        its own lane: :mod:`viewer.state.side_results`).
    containment : bool
        Test whether one of A and B is inside the other when they do not touch (beside the
        frame, like ``distance``).
    self_collision : bool
        Test every body against itself (inside the frame: a one-mesh scene's only result).
        The one place this choice is held; ``ViewerModel.is_self_collision`` reads it.
    """

    update: UpdateChoice = UpdateChoice.REFIT
    drift_threshold: float = 0.25
    split: str = "MIDPOINT"
    descend: str = "LARGER_VOLUME"
    bv: str = "aabb"
    partition: str = "none"
    obb_fit: str = "SURFACE"
    margin: float = 0.0
    distance: bool = True
    containment: bool = True
    self_collision: bool = False


@dataclass(frozen=True)
class FrameFailure:
    """A live frame that failed or was cancelled: the view still shows an older frame.

    Attributes
    ----------
    index : int
        The number the failed frame would have had.
    reason : str
        One line: the error's class and message ("" when cancelled).
    is_cancelled : bool
        Stopped on request rather than failed.
    """

    index: int
    reason: str = ""
    is_cancelled: bool = False

    def text(self, shown) -> str:
        """``"frame 38 failed: <reason> - showing frame 37"``; ``shown`` is the frame on
        screen (None: none)."""
        what = "was cancelled" if self.is_cancelled else f"failed: {self.reason}"
        now = f"showing frame {shown.index}" if shown is not None else "no frame to show"
        return f"frame {self.index} {what} - {now}"


@dataclass(frozen=True)
class AnalysisCost:
    """The last measured cost of one optional analysis, as the Pipeline dock shows it.

    Attributes
    ----------
    ms : float
        Milliseconds it took.
    frame_index : int or None
        The frame it was measured on (None: not a frame's).
    """

    ms: float
    frame_index: int | None = None

    def text(self) -> str:
        """``"1,588 ms (frame 37)"``."""
        ms = f"{self.ms:,.0f} ms" if self.ms >= 10 else f"{self.ms:.1f} ms"
        return ms if self.frame_index is None else f"{ms} (frame {self.frame_index})"
