"""What the Stats dock and the status bar report: view timings, the cost model of a frame and
the background compile of the kernels."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewTimings:
    """Seconds spent in the viewer for the last frame: overlay update and render, and why
    drawing it was slow ("" when it was not; :func:`viewer.render.draw_cost.
    slow_drawing_words`)."""

    overlay: float = 0.0
    render: float = 0.0
    slow_words: str = ""


@dataclass(frozen=True)
class KernelStatus:
    """The background compile of the kernels on a first start, as the status bar shows it.

    Attributes
    ----------
    n_done, n_steps : int
        Warm-up steps compiled, of all (``core.jit.warmup``); both 0 when nothing compiles.
    keys_done : frozenset of str
        The steps compiled (``"frame"``, ``"bv-obb"``, ``"partition-grid"``, ...).
    last_words : str
        What the last finished step compiled, for people.
    is_compiling : bool
        The compile runs now; kernels not compiled yet run as Python (correct, slower).
    seconds : float
        Time since the compile started, or what it took once finished.
    error : str
        Why the background compile stopped, "" when it did not fail.
    """

    n_done: int = 0
    n_steps: int = 0
    keys_done: frozenset = frozenset()
    last_words: str = ""
    is_compiling: bool = False
    seconds: float = 0.0
    error: str = ""


@dataclass(frozen=True, eq=False)
class CostView:
    """The cost model T = Nu·Cu + Nbv·Cbv + Np·Cp of one frame, as the Stats dock shows it.

    Attributes
    ----------
    frame : core.pipeline.Frame
        The frame it describes.
    kind_label : str
        The bounding volume whose unit costs are used, in words ("boxes", "spheres", ...).
    prediction : core.lab.costmodel.CostPrediction or None
        The terms and the predicted total; None while the unit costs are measured.
    measured_ms : float
        The frame's measured core time for the same work (ms).
    measured_note : str
        What the measured time leaves out (a tree build, a fit of unchanged trees), "" when
        nothing.
    measured_phases : str
        The phases the measured time (and so the prediction) covers, in words ("volume
        updates and fit, traversal and triangle tests").
    status : str
        What is going on ("measuring unit costs of spheres…") or why there is no
        prediction; "" when ``prediction`` is shown.
    """

    frame: object
    kind_label: str
    prediction: object
    measured_ms: float
    measured_note: str = ""
    measured_phases: str = "traversal and triangle tests"
    status: str = ""
