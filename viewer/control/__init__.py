"""The controller's jobs, one module each; :class:`viewer.controller.Controller` composes them.

These modules are the viewer's only callers of the core; besides the jobs, two modules here
are the controllers of a dialog (``compare``: the compare view; ``scene_octree``: the
scene-octree demo's window), made by the dialog rather than by the controller:

* :mod:`~viewer.control.scenes` -- built-in scenes become bodies; swap which body is B;
* :mod:`~viewer.control.files` -- mesh files read (off the GUI thread) and checked, limits;
* :mod:`~viewer.control.poses` -- dragging and rotating a body (its pose, not its vertices);
* :mod:`~viewer.control.sculpt` -- brush strokes on a body's rest shape, with undo;
* :mod:`~viewer.control.frames` -- ``FramePipeline.step`` in a worker thread, one frame in flight;
* :mod:`~viewer.control.animation` -- the play clock that asks for frames;
* :mod:`~viewer.control.recording` -- every live frame recorded; scrub, play back, save, open,
  replay with other settings;
* :mod:`~viewer.control.stepping` -- the traversal stepper: the shown frame's pair tests;
* :mod:`~viewer.control.inspecting` -- tree quality, invariant checks, trees read from and
  written to files;
* :mod:`~viewer.control.exporting` -- videos, the 3-D view as a web page, frame data as
  CSV and JSON, encoded and written off the GUI thread;
* :mod:`~viewer.control.lessons` -- a lesson's steps applied to the model, its experiment
  figures run off the GUI thread, the current state saved as a step;
* :mod:`~viewer.control.experiments` -- the Experiments window's runs, on a worker lane with
  progress and cancel;
* :mod:`~viewer.control.costs` -- the cost model of the shown frame, unit costs measured once
  per kind;
* :mod:`~viewer.control.deformers` -- the deformer registry as the Deform dock lists it;
* :mod:`~viewer.control.worker` -- the one way work runs off the GUI thread: lanes of jobs
  with progress, cancel, a budget, and results tagged with the frame they were computed on.

Each job is a plain class holding its own state, made with exactly what it uses: the model,
the controller's one :class:`~viewer.control.worker.Workers` (it takes its lane(s) from them)
and the other jobs, or their methods, it calls (``SceneLoading(model, frames,
forget_strokes)``); it reads no attribute it was not given (a test checks). The controller
makes them in dependency order and keeps each as an attribute (``controller.frames``,
``controller.recorder``, ...); callers ask a job by name (``controller.frames.request_frame()``).
Two jobs that need each other get a callable that reaches the other once it exists.
"""
