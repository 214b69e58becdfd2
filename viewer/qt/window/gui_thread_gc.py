"""Cyclic garbage is collected on the GUI thread only.

Python's collector runs in whichever thread happens to allocate past its threshold. When that
was a worker lane, it finalized garbage holding Qt or VTK objects (a closed window's or
dialog's wrappers in a reference cycle) off the GUI thread, where Qt may not delete them: a
full test run crashed with a segmentation fault "Garbage-collecting" in the lane that was
reading a session file. So the automatic collector is turned off and a timer on the GUI
thread collects, generation by generation, whenever the allocation counts pass the
thresholds Python would have used: the pattern of pyqtgraph's ``GarbageCollector`` (after
Erik Janssens, "Should Python garbage collector be disabled in Qt applications?", 2014).
Reference counting, which frees everything not in a cycle, is unchanged.
"""

from __future__ import annotations

import gc

from PyQt6.QtCore import QCoreApplication, QThread, QTimer

CHECK_MS = 100
"""How often the GUI thread looks at the allocation counts (milliseconds): cyclic garbage
waits at most this long, and a frame of 30 fps allocates a few thousand objects."""


class GuiThreadCollector:
    """Collects cyclic garbage from a timer on the GUI thread (see the module docstring).

    Made by :func:`collect_on_gui_thread`, which turns the automatic collector off.
    """

    def __init__(self):
        self.thresholds = gc.get_threshold()
        self.n_collections = [0, 0, 0]  # by generation, for the tests
        self.timer = QTimer()
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.check)

    def check(self) -> int | None:
        """Collect the oldest generation whose count passed its threshold, as the automatic
        collector would have; the generation collected, or None."""
        counts = gc.get_count()
        if counts[0] <= self.thresholds[0]:
            return None
        generation = 0
        if counts[1] > self.thresholds[1]:
            generation = 2 if counts[2] > self.thresholds[2] else 1
        gc.collect(generation)
        self.n_collections[generation] += 1
        return generation


_installed: GuiThreadCollector | None = None


def collect_on_gui_thread() -> GuiThreadCollector:
    """Turn the automatic collector off and start the GUI thread's (once per process).

    Raises
    ------
    RuntimeError
        Called without a Qt application or off its GUI thread.
    """
    global _installed
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        raise RuntimeError("the garbage collector's timer must be started on the GUI thread "
                           "of a running Qt application")
    if _installed is None:
        _installed = GuiThreadCollector()
        # What the start imported and built (numba, VTK, Qt: some 220,000 objects) moves out
        # of the collector's sight: a full collection walked them again, about 170 ms on the
        # GUI thread, 4 ms after (measured in the test session, tests/conftest.py).
        gc.collect()
        gc.freeze()
    gc.disable()
    _installed.timer.start()
    return _installed


def restore_automatic_collection() -> None:
    """Stop the timer and turn the automatic collector back on (a test process that goes on
    without windows)."""
    if _installed is not None:
        _installed.timer.stop()
    gc.enable()
