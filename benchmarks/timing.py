"""Timing helpers: medians over repeats, and the numba thread count for ours."""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

# Seconds a peer may spend on one timed phase at one size (see ``measure``).
PEER_PHASE_BUDGET_S = 8.0
# A peer phase predicted to take longer than this for ONE run is skipped (VTK's collision
# filter took 133 s for one W2 query at 500k, eps 0.01, on the 2-core machine).
PEER_SKIP_S = 60.0
# Growth exponent assumed when only one smaller size was measured: the measured VTK
# growth from 10k to 100k was n^1.4 (W1 query) to n^1.7 (W2 query).
DEFAULT_GROWTH = 1.5
# The power law underestimates: VTK's W2 query at 500k, eps 0.001, was predicted at 45 s
# from 10k and 100k and took 161 s. A phase is skipped when PREDICTION_SAFETY times the
# prediction exceeds the limit.
PREDICTION_SAFETY = 4.0


@dataclass
class Samples:
    """Wall-clock seconds of repeated runs of one phase.

    Attributes
    ----------
    seconds : list of float
        One entry per timed repeat (warm-up runs excluded).
    note : str
        Why the phase was skipped or how it was measured, when that needs saying.
    turns : str
        The runs this one was timed in turns with (``measure_alternating``), the same string
        for each of them: repeat ``i`` of each ran in round ``i``. Empty for a block.
    """

    seconds: list[float] = field(default_factory=list)
    note: str = ""
    turns: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    @property
    def n(self) -> int:
        return len(self.seconds)

    def as_json(self) -> dict:
        return {"median": self.median, "n": self.n, "seconds": self.seconds, "note": self.note,
                "turns": self.turns}


def measure(
    run: Callable[[], object],
    repeats: int,
    setup: Callable[[], object] | None = None,
    warmup: int = 1,
    budget_s: float = math.inf,
) -> tuple[Samples, object]:
    """Time ``run`` ``repeats`` times after ``warmup`` untimed runs.

    Parameters
    ----------
    run : callable
        ``run()`` or, with ``setup``, ``run(setup())``; only ``run`` is timed.
    repeats : int
    setup : callable, optional
        Untimed preparation called before every run (e.g. an empty peer model).
    warmup : int
        Untimed runs first (JIT compilation, caches, first-touch allocations).
    budget_s : float
        Seconds one phase may take: when the last warm-up run shows that ``repeats`` runs
        would exceed it, fewer repeats are timed (at least one); a single warm-up run longer
        than the budget is itself the only sample. Keeps very slow peers (VTK in close
        proximity takes seconds per query at 100k) from dominating the run. Unlimited by
        default; ours always runs every repeat (its first warm-up run may include the JIT
        compile, so it must not decide anything).

    Returns
    -------
    samples : Samples
    last : object
        What the last ``run`` returned.
    """
    samples = Samples()
    last = None

    def once() -> float:
        nonlocal last
        arg = setup() if setup is not None else None
        start = time.perf_counter()
        last = run(arg) if setup is not None else run()
        return time.perf_counter() - start

    elapsed = 0.0
    for _ in range(warmup):
        elapsed = once()
    if warmup:
        repeats, samples.note = _repeats_within(elapsed, repeats, budget_s)
        if repeats == 0:
            samples.seconds.append(elapsed)
            return samples, last
    for _ in range(repeats):
        samples.seconds.append(once())
    return samples, last


def _repeats_within(elapsed: float, repeats: int, budget_s: float) -> tuple[int, str]:
    """How many of ``repeats`` timed runs fit ``budget_s`` after a warm-up run of ``elapsed``
    seconds, and the note saying so when not all of them do: 0 when the warm-up alone passed
    the budget (it is then the only sample), at least 1 otherwise."""
    if elapsed > budget_s:
        return 0, f"one run of {elapsed:.1f} s (> {budget_s:.0f} s budget), no repeats"
    if elapsed * repeats > budget_s:
        n = max(1, int(budget_s / max(elapsed, 1e-9)))
        return n, f"{n} of {repeats} repeats ({elapsed:.1f} s each, {budget_s:.0f} s budget)"
    return repeats, ""


TARGET_MIN_ROUNDS = 15
"""Rounds at least of the W1 and W2 targets' calls in turns (the size's repeats when more).
Under the competing load a call gets a whole core or a share of one, and the 3 repeats of a
500k run left W2's paired ratio to which mode each call fell in: 0.49x, 0.61x, 0.48x, 0.53x
and 0.49x in five runs of the same code. A round of W2 500k's four calls takes about 0.2 s
under load, so 15 rounds add about 2.5 s to a size."""


def measure_alternating(
    runs: dict[str, Callable[..., object]],
    repeats: int,
    budgets_s: dict[str, float] | None = None,
    inputs: Callable[[int], object] | None = None,
) -> dict[str, tuple[Samples, object]]:
    """Time several runs in turns: one warm-up of each, then ``repeats`` rounds that call each
    once, the starting one rotating from round to round.

    Both sides of a ratio are then timed over the same stretch of time, so what drifts over
    seconds (the machine's other work, where the scheduler keeps a thread) weighs on both:
    timed in blocks, W2 at 500k under the competing load gave our query 12.8-24.9 ms and
    fcl's 25.8-41.2 ms in three runs, each block steady within itself. What changes from one
    call to the next stays: under two busy processes on two cores a single thread gets a
    whole core or a share of one per call (W2 at 100k, in turns: ours 11.3 or 23.4 ms, fcl's
    24.6-53.3 ms). Not for a peer with a thread pool of its own: MeshLib's TBB threads, still
    busy after its call returned, slowed our next W1 query from 1.6 to 2.6 ms idle.

    Each call finds the caches as the other runs left them, as a frame in the app finds them
    after the renderer: the W3 100k frame took 3.3 ms in turns with warp against 2.6-2.9 ms
    frame after frame, and warp's 7.9 ms either way. Turns of several calls each kept more
    of ours warm but paired the two sides less well: under the competing load the states
    change every 50-150 ms (a thread gets a whole core, then shares one), and turns of five
    frames gave W3 ratios from 0.26x to 0.48x where single calls gave 0.50-0.51x (four
    runs each, before the refit read its triangles in tree order).

    Parameters
    ----------
    runs : dict of name -> callable
        ``run()`` per name (``run(arg)`` with ``inputs``); only the calls are timed.
    repeats : int
        Rounds after the warm-up.
    budgets_s : dict of name -> float, optional
        Seconds a name's timed runs may take (``measure``'s ``budget_s``, from its warm-up
        run); unlimited for a name not in it.
    inputs : callable, optional
        ``inputs(round_index)`` makes a round's argument once, untimed, and every run of the
        round is called with it (W3: a frame's vertices, the same arrays for everyone); the
        warm-ups get round 0's. Without it the runs take no argument.

    Returns
    -------
    dict of name -> (Samples, object)
        Each name's samples and what its last call returned.
    """
    budgets_s = budgets_s or {}
    out: dict[str, tuple[Samples, object]] = {}
    allowed: dict[str, int] = {}
    first = (inputs(0),) if inputs is not None else ()
    for name, run in runs.items():
        start = time.perf_counter()
        last = run(*first)
        elapsed = time.perf_counter() - start
        samples = Samples()
        allowed[name], samples.note = _repeats_within(elapsed, repeats,
                                                      budgets_s.get(name, math.inf))
        if allowed[name] == 0:
            samples.seconds.append(elapsed)  # the warm-up, in no round
        elif len(runs) > 1:
            samples.turns = " / ".join(runs)
        out[name] = (samples, last)
    names = list(runs)
    for round_index in range(repeats):
        shift = round_index % len(names) if names else 0
        order = [name for name in names[shift:] + names[:shift] if round_index < allowed[name]]
        if not order:
            break
        arg = (inputs(round_index),) if inputs is not None else ()
        for name in order:
            start = time.perf_counter()
            last = runs[name](*arg)
            out[name][0].seconds.append(time.perf_counter() - start)
            out[name] = (out[name][0], last)
    return out


@contextlib.contextmanager
def numba_threads(n_threads: int) -> Iterator[None]:
    """Run ours with ``n_threads`` numba threads (restored afterwards)."""
    import numba

    saved = numba.get_num_threads()
    numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(saved)


class PeerHistory:
    """Median seconds per run of each (peer, phase) at the sizes already measured.

    Used to predict the cost of a peer phase at a larger size and skip it when a single
    run would exceed ``skip_s``, instead of finding out by waiting.

    Parameters
    ----------
    skip_s : float
        Skip a peer phase predicted to take longer than this per run.
    phase_budget_s : float
        Seconds one timed peer phase may take (``measure``'s ``budget_s``).
    frames_budget_s : float
        Seconds a peer may spend on the W3 frames of one size.
    """

    def __init__(
        self,
        skip_s: float = PEER_SKIP_S,
        phase_budget_s: float = PEER_PHASE_BUDGET_S,
        frames_budget_s: float = PEER_SKIP_S,
    ):
        self.skip_s = skip_s
        self.phase_budget_s = phase_budget_s
        self.frames_budget_s = frames_budget_s
        self._seen: dict[tuple[str, str], list[tuple[int, float]]] = {}

    def record(self, peer: str, phase: str, n_tris: int, seconds: float | None) -> None:
        if seconds is not None and seconds > 0:
            self._seen.setdefault((peer, phase), []).append((n_tris, seconds))

    def predict(self, peer: str, phase: str, n_tris: int) -> float | None:
        """Seconds per run at ``n_tris`` by a power law through the two largest sizes seen."""
        seen = sorted(p for p in self._seen.get((peer, phase), []) if p[0] < n_tris)
        if not seen:
            return None
        n1, s1 = seen[-1]
        growth = DEFAULT_GROWTH
        if len(seen) >= 2:
            n0, s0 = seen[-2]
            if n0 < n1 and s0 > 0:
                growth = min(max(math.log(s1 / s0) / math.log(n1 / n0), 1.0), 2.0)
        return s1 * (n_tris / n1) ** growth

    def skip_note(self, peer: str, phase: str, n_tris: int, limit_s: float | None = None) -> str:
        """Why to skip the phase, or ``""`` to run it.

        Parameters
        ----------
        limit_s : float, optional
            Seconds one run may take; ``skip_s`` by default.
        """
        limit_s = self.skip_s if limit_s is None else limit_s
        predicted = self.predict(peer, phase, n_tris)
        if predicted is not None and PREDICTION_SAFETY * predicted > limit_s:
            return (
                f"skipped: one run predicted {predicted:.0f} s "
                f"(x{PREDICTION_SAFETY:.0f} safety > {limit_s:.0f} s)"
            )
        return ""


def guarded_measure(
    history: PeerHistory,
    peer: str,
    phase: str,
    n_tris: int,
    run: Callable[[], object],
    repeats: int,
    setup: Callable[[], object] | None = None,
) -> tuple[Samples, object]:
    """``measure`` for a peer: skipped when predicted too slow, budgeted, then recorded."""
    note = history.skip_note(peer, phase, n_tris)
    if note:
        return Samples(note=note), None
    samples, last = measure(run, repeats, setup=setup, budget_s=history.phase_budget_s)
    history.record(peer, phase, n_tris, samples.median)
    return samples, last
