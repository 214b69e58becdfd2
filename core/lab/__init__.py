"""The analyses of a frame: what the app's panels, the exports and the command line show about
a frame after the engine computed it, as typed records.

One module a job, each reading a :class:`core.pipeline.Frame` (live or recorded) or two trees,
never running a GUI: the traversal one pair test at a time (:mod:`~core.lab.steps`, with
:mod:`~core.lab.query_inputs` and :mod:`~core.lab.separation`) and as pseudo-code
(:mod:`~core.lab.pseudocode`), where the work went (:mod:`~core.lab.heat`), the cost model
(:mod:`~core.lab.costmodel`), the cross-check with another engine
(:mod:`~core.lab.crosscheck`, exact gaps from :mod:`~core.lab.exact_gap`) and the audit of its
contact log (:mod:`~core.lab.audit`; both compare triangle-pair sets with
:mod:`~core.lab.pair_sets`), two trees side by side (:mod:`~core.lab.tree_diff`).

The engine (``core.bv``, ``core.bvh``, ``core.collide``, ``core.pipeline``, ...) never imports
this package (an import contract in pyproject.toml checks it): analyses sit on top of the
frame, so changing one never touches the traversal the benchmarks time.
"""
