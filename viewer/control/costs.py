"""The cost model T = Nu·Cu + Nbv·Cbv + Np·Cp of the shown frame, for the Stats dock.

The counts come from the frame (``core.lab.costmodel.frame_counts``); the unit costs Cu, Cbv, Cp
are measured on this machine once per bounding-volume kind, with the traversal's trace
recorded when the frame recorded it (``measure_unit_costs``: 14 ms of timed kernels once they
are loaded, 0.35 s in a process that has not run them yet), in a worker thread the first time
a frame of that kind is shown, and kept for the process (every window of it). Meanwhile the
dock says "measuring unit costs…". A recorded frame gets the same table: it carries its own
counts, timings and kind.
"""

from __future__ import annotations

from core.bv import TREE_BOX_KIND, get_kind
from core.lab.costmodel import frame_counts, measure_unit_costs, predict
from viewer.control.worker import BESIDE_FRAME_NICE, Tag
from viewer.state.status import CostView

MEASURED_PHASES = ("update", "fit", "traverse", "tritri")
"""The frame's phases the model's three terms stand for: updating the volumes (refit, and
fitting a kind other than the tree's own boxes), the volume tests of the traversal, the
triangle tests. Deforming, distance and inside tests are not in the model."""


def frame_kind(frame) -> tuple[str, str]:
    """``(registry key, words)`` of the bounding volume ``frame``'s traversal tested
    (``("sphere", "spheres")``); a frame without volumes traversed the tree's own boxes."""
    volumes = frame.volumes
    key = TREE_BOX_KIND if volumes is None else volumes.name
    return key, get_kind(key).noun_plural


def modelled_counts(frame) -> tuple[int, int, int]:
    """``(Nu, Nbv, Np)`` the prediction uses: the frame's own (``frame_counts``), except
    that a frame that built a tree counts no volume update (its update phase is the build,
    left out of the measured time too: both sides cover the same phases)."""
    nu, nbv, np_ = frame_counts(frame)
    if any(frame.rebuilt):
        nu = 0
    return nu, nbv, np_


def measured_ms(frame) -> tuple[float, str, str]:
    """The frame's measured core time for the work the model predicts (ms), a note on what
    it leaves out ("" when nothing), and the phases it covers in words.

    The traversal and the triangle tests always; the volume update (refit) and the kind's
    fit only when the model counts them, that is when a tree was refitted this frame (``Nu``
    is its nodes, and ``Cu`` was measured refitting and fitting) and none was built. A
    frame that built a tree (the first frame, a rebuild) or fitted the kind's volumes on
    trees it did not refit (the first frame after choosing OBB) leaves those phases out:
    the model has no term for a build or for a fit without an update. The fit was timed
    but not counted, so with OBB the dock said measured / predicted = 102."""
    timings = frame.timings
    is_built = any(frame.rebuilt)
    try:
        is_update_modelled = modelled_counts(frame)[0] > 0
    except (ValueError, AttributeError):
        is_update_modelled = False  # no counts: the dock says why; no update is modelled
    phases = [name for name in MEASURED_PHASES
              if is_update_modelled or name not in ("update", "fit")]
    ms = 1e3 * sum(float(timings.get(name, 0.0)) for name in phases)
    notes = []
    if is_built:
        notes.append("a tree was built this frame: the build "
                     f"({1e3 * float(timings.get('update', 0.0)):.2f} ms) is not in the model "
                     "and not counted")
    fit_ms = 1e3 * float(timings.get("fit", 0.0))
    if not is_update_modelled and fit_ms >= FIT_NOTE_MS:
        notes.append(f"the volume fit ({fit_ms:.2f} ms) "
                     + ("of the built tree" if is_built else "of trees not refitted this frame")
                     + " is not in the model and not counted")
    words = ("volume updates and fit, traversal and triangle tests" if is_update_modelled
             else "traversal and triangle tests")
    return ms, "; ".join(notes), words


FIRST_FRAME_NOTE = ("the first frame with {label} this session also loaded their kernels: "
                    "step a frame (.) to compare the model with the kernels alone")
"""Said under the cost model of the first frame of a kind (its measured time is not the
kernels' alone; the unit costs were measured after a warm-up run)."""

FIT_NOTE_MS = 0.01
"""A fit left out of the measured time is named from this many milliseconds (a cached fit
takes a few microseconds: not worth a word)."""


def is_traced(frame) -> bool:
    """Whether ``frame``'s traversal recorded its per-level trace (the app's frames do, to draw
    it). Its unit costs are measured the same way: seen on bunny-bunny, 20 ms of traced
    traversal against 2.3 ms predicted from bare unit costs."""
    return frame.request is not None and bool(frame.request.trace)


_MEASURED_IN_THIS_PROCESS: dict[tuple[str, bool], object] = {}
"""``(kind, traced) -> UnitCosts`` measured by any window of this process: the unit costs
are the machine's, not a window's, so a second window (and every test window after the
first) reuses them instead of timing the kernels again on a lane beside its frames."""


class CostModelling:
    """The controller's cost-model job: ``unit_costs_of`` and ``refresh_cost_view``.

    Parameters
    ----------
    model : viewer.model.ViewerModel
    workers : viewer.control.worker.Workers
        The controller's workers; the job takes its lane(s) from them.
    """

    def __init__(self, model, workers) -> None:
        self.model = model
        # (kind, traced) -> UnitCosts, the process's (shared by its windows); and why one
        # could not be measured, this window's
        self._unit_costs: dict[tuple[str, bool], object] = _MEASURED_IN_THIS_PROCESS
        self._unit_cost_errors: dict[tuple[str, bool], str] = {}
        self._measuring_kind: tuple[str, bool] | None = None
        # A measurement is never waited for when the window closes.
        self._cost_lane = workers.lane("unit-costs", wait_on_shutdown=False, nice=BESIDE_FRAME_NICE)
        self._is_cost_shut = False
        # kind -> the first frame of it this session: its kernels were loaded in it
        self._first_frame_of: dict[str, object] = {}
        self.model.frame_ready.connect(lambda _f: self.refresh_cost_view())

    def unit_costs_of(self, kind: str, traced: bool = True):
        """The measured ``UnitCosts`` of ``kind`` (None until measured), timed with the trace
        recorded (``traced``, as the app's frames run) or without."""
        return self._unit_costs.get((kind, traced))

    def refresh_cost_view(self) -> None:
        """Put the shown frame's cost model in the model (measuring its kind first if
        needed)."""
        frame = self.model.frame
        if frame is None:
            self.model.set_cost_view(None)
            return
        kind, label = frame_kind(frame)
        key = (kind, is_traced(frame))
        costs = self._unit_costs.get(key)
        try:
            counts = modelled_counts(frame)
        except (ValueError, AttributeError) as exc:
            self.model.set_cost_view(CostView(frame, label, None, *measured_ms(frame),
                                              status=f"No cost model for this frame: {exc}"))
            return
        first = self._first_frame_of.setdefault(kind, frame)
        if costs is not None:
            ms, note, phases = measured_ms(frame)
            if frame is first:
                # Seen with OBB: 99 ms of traversal and triangle tests in the first frame,
                # 0.9 ms in the next; the unit costs were measured warm.
                note = "; ".join(n for n in (note, FIRST_FRAME_NOTE.format(label=label)) if n)
            self.model.set_cost_view(CostView(frame, label, predict(*counts, costs), ms, note,
                                              phases))
            return
        if key in self._unit_cost_errors:
            status = f"Unit costs of {label} not measured: {self._unit_cost_errors[key]}"
        elif self.model.kernels.is_compiling:
            # Timing kernels that run as Python would put Python's costs in the model; the
            # compile's end asks for a new frame, which measures.
            status = (f"Unit costs of {label} are measured once the kernels are compiled "
                      "(first start)")
        else:
            status = f"Measuring unit costs of {label} on this machine…"
            self._measure_unit_costs(key)
        self.model.set_cost_view(CostView(frame, label, None, *measured_ms(frame),
                                          status=status))

    def _measure_unit_costs(self, key: tuple[str, bool]) -> None:
        if self._measuring_kind is not None or self._is_cost_shut:
            return  # one at a time; the next frame of another kind asks again
        self._measuring_kind = key
        kind, traced = key
        self._cost_lane.submit(
            lambda _control: measure_unit_costs(kind, is_traced=traced),
            tag=Tag("unit costs", inputs=key),
            on_result=lambda costs, job: self._on_unit_costs(job.tag.inputs, costs, None),
            # shown as a line in the Stats dock
            on_error=lambda error, job: self._on_unit_costs(job.tag.inputs, None, error))

    def _on_unit_costs(self, key, costs, error) -> None:
        self._measuring_kind = None
        if costs is not None:
            self._unit_costs[key] = costs  # the process's: kept after this window closes
        if self._is_cost_shut:
            return
        if costs is None:
            self._unit_cost_errors[key] = f"{type(error).__name__}: {error}"
        self.refresh_cost_view()

    def shutdown(self) -> None:
        self._is_cost_shut = True
