"""The frame budget, and why a frame that passed it was slow, in words.

The words come from the frame's own phase times (``Frame.timings``): the phase that took
most, what it is in plain words, and the choice that makes it cheaper ("fitting oriented
boxes: 952 ms a frame — update 'auto' refits OBBs by PCA; choose AABB or refit for speed").
"""

from __future__ import annotations

from viewer.words.kinds import has_fit_choice, volume_noun

FRAME_BUDGET_S = 0.1
"""A frame whose core time passes this (seconds) is called slow, and the view says why. Also
the budget an optional analysis must fit to run with every frame."""

INLINE_ANALYSIS_S = 0.015
"""An optional analysis (the heat map) is computed on the GUI thread, as part of drawing the
frame, only when it last took at most this (seconds); else on its lane beside the frames. The
GUI thread may block for at most 100 ms in all, and drawing the big-bunny scene with every
analysis on already took 60-75 ms of render and overlays: its 64 ms heat count, done inline
because it fit the 100 ms frame budget, made 200 ms blocks (interactive benchmark, this
machine)."""

_ADVICE = {
    "deform": ("deforming the meshes",
               "the deformer moves every vertex each frame; pause it, or use smaller meshes"),
    "validate": ("checking every tree's invariants after its update",
                 "a debug setting; turn off 'validate after refit' for speed"),
    "traverse": ("traversing the two trees",
                 "many volume pairs overlap; a tighter volume kind or the SAH split rule tests "
                 "fewer"),
    "tritri": ("exact triangle tests",
               "many leaf pairs reach the triangle test; a smaller leaf size or a tighter "
               "volume kind sends fewer"),
    "partition": ("the spatial partition",
                  "it runs beside the trees every frame; choose 'none' in the Pipeline dock"),
    "self": ("self-collision",
             "every body is tested against itself; turn self-collision off in the Pipeline "
             "dock"),
    "distance": ("the minimum distance", "turn it off in the Pipeline dock"),
    "containment": ("the inside test", "turn it off in the Pipeline dock"),
}


def _update_words(frame, update: str) -> tuple[str, str]:
    if any(frame.rebuilt):
        if update == "rebuild":
            return ("building the trees anew", "update 'rebuild' builds every tree each frame; "
                    "choose refit (or auto) for speed")
        return ("building the trees", "a tree is built when its mesh's topology or the split "
                "rule changes, or (update 'auto') when its drift passes the threshold; raise "
                "the threshold or choose refit for speed")
    return ("refitting the trees", "every moved triangle's boxes are recomputed bottom-up; "
            "smaller meshes refit faster")


def _fit_words(frame, update: str) -> tuple[str, str]:
    request = frame.request
    kind = request.bv if request is not None else None
    noun = volume_noun(kind, plural=True)
    if has_fit_choice(kind or ""):  # the oriented boxes: their axes are chosen by a fit
        fit = request.obb_fit.name  # has_fit_choice: a request names the kind
        of = f" of the {fit.lower().replace('_', ' ')}" if fit else ""
        return (f"fitting {noun}", f"update '{update}' refits OBBs by PCA{of} every frame; "
                "choose AABB or refit for speed")
    return (f"fitting {noun}", f"the {noun} are fitted anew to the moved triangles every frame; "
            "choose AABB (the tree's own boxes, no fit) for speed")


def slow_frame_words(frame, update: str = "refit",
                     budget_s: float = FRAME_BUDGET_S) -> str:
    """Why ``frame`` took longer than ``budget_s`` of core time, in one line naming the frame
    and the phase that took most; "" when it fitted the budget.

    Parameters
    ----------
    frame : core.pipeline.Frame
    update : str
        The tree update the frame ran with (``"refit"``, ``"rebuild"``, ``"auto"``).
    budget_s : float
        The frame budget in seconds.
    """
    timings = frame.timings
    total = float(timings.get("total", 0.0))
    if total <= budget_s:
        return ""
    phases = {name: float(s) for name, s in timings.items() if name != "total"}
    if not phases:
        return ""
    name = max(phases, key=phases.get)
    if name == "update":
        what, advice = _update_words(frame, update)
    elif name == "fit":
        what, advice = _fit_words(frame, update)
    else:
        what, advice = _ADVICE.get(name, (name, "see the Stats dock"))
    return (f"Frame {frame.index} is slow ({1e3 * total:,.0f} ms against a budget of "
            f"{1e3 * budget_s:,.0f} ms): {what}: {1e3 * phases[name]:,.0f} ms a frame — "
            f"{advice}")
