"""Cyclic garbage is collected on the GUI thread only (viewer.qt.window.gui_thread_gc): a
full run crashed "Garbage-collecting" in a worker lane that finalized Qt objects."""

from __future__ import annotations

import gc
import threading
import time

from PyQt6.QtWidgets import QApplication

from viewer.qt.window import gui_thread_gc


class _Cycle:
    """An object in a reference cycle whose finalizer notes the thread it runs on."""

    def __init__(self, threads: list):
        self.me = self
        self.threads = threads

    def __del__(self):
        self.threads.append(threading.current_thread().name)


def test_garbage_made_in_a_worker_thread_is_freed_on_the_gui_thread(qapp):
    collector = gui_thread_gc.collect_on_gui_thread()
    try:
        assert not gc.isenabled()
        threads: list[str] = []

        def churn():
            # Far past the thresholds: the automatic collector would have run here, in this
            # thread, many times over.
            for _ in range(20 * gc.get_threshold()[0]):
                _Cycle(threads)

        worker = threading.Thread(target=churn, name="lane")
        worker.start()
        worker.join()
        assert threads == []  # nothing collected in the worker
        deadline = time.monotonic() + 10
        while not threads and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.01)
        assert threads and set(threads) == {threading.main_thread().name}
        assert sum(collector.n_collections) >= 1
    finally:
        gui_thread_gc.restore_automatic_collection()
        gc.collect()
    assert gc.isenabled()


def test_the_check_collects_only_past_the_thresholds(qapp):
    collector = gui_thread_gc.collect_on_gui_thread()
    try:
        saved = collector.thresholds
        collector.thresholds = (10**9, 10, 10)
        assert collector.check() is None
        collector.thresholds = (0, 10**9, 10**9)
        _Cycle([])
        assert collector.check() == 0
        collector.thresholds = saved
    finally:
        gui_thread_gc.restore_automatic_collection()


def test_installing_off_the_gui_thread_is_refused(qapp):
    errors: list[Exception] = []

    def install():
        try:
            gui_thread_gc.collect_on_gui_thread()
        except RuntimeError as error:
            errors.append(error)

    worker = threading.Thread(target=install)
    worker.start()
    worker.join()
    assert errors and "GUI thread" in str(errors[0])
    assert gc.isenabled()


def test_a_window_turns_the_automatic_collector_off(window):
    assert not gc.isenabled()
    assert gui_thread_gc._installed.timer.isActive()
