"""Tree inspection: the node picked, the quality of one body's tree, the invariant check and
which body's tree comes from a file (Quality panel, outliner, canvas)."""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from viewer.state.checks import TreeCheck


class InspectionModel(QObject):
    """One node selection shared by the panel, the outliner and the canvas; the quality of one
    body's tree (an opaque core ``TreeQuality`` with the body and frame it belongs to); the last
    invariant check; and which body's tree comes from a file."""

    analysis_changed = pyqtSignal()  # a fresh tree (ghost) or a cross-check is ready
    node_selected = pyqtSignal(object)  # (body, node) or None: the node picked for inspection
    quality_changed = pyqtSignal(object)  # the shown tree's quality (opaque) or None
    quality_inputs_changed = pyqtSignal()  # the body or the cost constants of the quality
    quality_status_changed = pyqtSignal(str)  # what the quality job is doing, "" when idle
    validation_changed = pyqtSignal(object)  # TreeCheck or None
    tree_sources_changed = pyqtSignal()  # a body's tree was pinned from a file or unpinned

    def __init__(self, parent=None):
        super().__init__(parent)
        self.selected_node: tuple[int, int] | None = None
        self.quality_body: int = 0
        self.cost_constants: tuple[float, float] = (1.0, 1.0)  # C_t, C_i
        self.quality = None  # QualityResult or None
        self.quality_status: str = ""
        self.validation: TreeCheck | None = None
        self.validate_after_refit: bool = False
        self.tree_sources: dict[int, str] = {}  # body index -> "file foo.json, 2,047 nodes"

    def select_node(self, body: int | None, node: int | None = None) -> None:
        """Select node ``node`` of body ``body``'s tree (0 = A, 1 = B); None clears it."""
        selection = None if body is None or node is None else (int(body), int(node))
        if selection != self.selected_node:
            self.selected_node = selection
            self.node_selected.emit(selection)

    def set_quality_body(self, body: int) -> None:
        if body != self.quality_body:
            self.quality_body = int(body)
            self.quality_inputs_changed.emit()

    def set_cost_constants(self, traversal: float, intersection: float) -> None:
        """The SAH's C_t (one volume test) and C_i (one triangle test)."""
        constants = (float(traversal), float(intersection))
        if constants != self.cost_constants:
            self.cost_constants = constants
            self.quality_inputs_changed.emit()

    def set_quality(self, quality) -> None:
        self.quality = quality
        self.quality_changed.emit(quality)

    def set_quality_status(self, text: str) -> None:
        if text != self.quality_status:
            self.quality_status = text
            self.quality_status_changed.emit(text)

    def set_validation(self, check: TreeCheck | None) -> None:
        self.validation = check
        self.validation_changed.emit(check)

    def set_tree_source(self, body: int, source: str | None) -> None:
        """Body ``body``'s tree is read from a file (``source`` says which) or, with None,
        built by BVH Lab again."""
        if source is None:
            self.tree_sources.pop(int(body), None)
        else:
            self.tree_sources[int(body)] = source
        self.tree_sources_changed.emit()
