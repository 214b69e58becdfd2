"""Tree > Open tree file with one hostile file of each class (tests/hostile/trees.py), through
the menu's worker thread: one printable line naming the file, the progress line cleared,
nothing pinned, the scene as it was, the app alive."""

from __future__ import annotations

from tests.hostile import one_per_kind
from tests.hostile.trees import cases
from tests.viewer.conftest import settle
from tests.viewer.helpers import assert_trees_kept


def test_every_class_of_hostile_tree_file_is_refused_through_the_menu(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip
    from viewer.qt.menus import tree as tree_menu

    settle(qtbot, window)
    before = window.model.frame
    m = window.model.bodies[0].rest.n_faces
    loading = []
    window.model.loading_changed.connect(loading.append)
    chosen = {}
    monkeypatch.setattr(tree_menu.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (chosen["path"], ""))
    picked = one_per_kind(cases(m))
    assert len(picked) >= 15
    for case in picked:
        folder = tmp_path / case.kind.replace(" ", "-")
        folder.mkdir()
        chosen["path"] = str(case.write(folder))
        window.last_error = None
        loading.clear()
        assert window.tree_tools.open_tree_file(0), case.name  # reading started
        qtbot.waitUntil(lambda: window.last_error is not None and loading
                        and loading[-1] == "", timeout=60_000)  # fmt: skip
        title, text = window.last_error
        assert title == "Cannot open tree file", (case.name, text)
        assert case.name in text and "\n" not in text and text.isprintable(), text
        assert case.words in text, text
        assert window.model.tree_sources == {}, case.name
        assert window.model.validation is None, case.name
        assert window.isVisible()
    assert_trees_kept(qtbot, window, before)


def test_a_worker_that_fails_unexpectedly_still_clears_the_progress_line(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip
    # An exception the reader does not expect (here a RecursionError raised inside it) ended
    # the worker's job without an answer: "Reading tree file…" stayed for good.
    from viewer.control import inspecting

    def boom(path, mesh):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(inspecting, "read_any_tree", boom)
    settle(qtbot, window)
    loading, done = [], []
    window.model.loading_changed.connect(loading.append)
    path = tmp_path / "odd.json"
    path.write_text("{}")
    assert window.controller.inspector.open_tree_file_async(0, str(path), done.append)
    qtbot.waitUntil(lambda: done == [False], timeout=60_000)
    assert loading[-1] == ""
    title, text = window.last_error
    assert title == "Cannot open tree file"
    assert "odd.json" in text and "RecursionError" in text and "\n" not in text
    assert window.model.tree_sources == {}
