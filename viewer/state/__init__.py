"""The viewer's plain state types: dataclasses and enums, no Qt and nothing of the core.

The model (:mod:`viewer.model`) holds values of these types and announces their changes with Qt
signals; the render layer (:mod:`viewer.render`) and the widgets read them. Import each type from
its topic's module: :mod:`~viewer.state.bodies`, :mod:`~viewer.state.display`,
:mod:`~viewer.state.pipeline`, :mod:`~viewer.state.checks`, :mod:`~viewer.state.status`.
Which of a frame's results the view shows is the frame's own rule,
:meth:`core.pipeline.Frame.shown_result`.
"""
