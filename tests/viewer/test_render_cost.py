"""What the frame rate work changed in the drawing: tree boxes read per drawn node (nothing
timed)."""

from __future__ import annotations

import numpy as np

from viewer.render.volumes import VolumeSet, as_volume_set, volumes_groups_polydata


class _JoinedRows:
    """Rows ``[bmin, bmax]`` joined when read, like the core's rows of the trees' own boxes;
    counts the joins."""

    def __init__(self, boxes):
        self.boxes, self.n_joins = boxes, 0

    def __len__(self):
        return len(self.boxes)

    def __getitem__(self, i):
        self.n_joins += 1
        return np.concatenate(self.boxes[i], axis=1)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class _Tree:
    def __init__(self, bmin, bmax):
        self.bmin, self.bmax = bmin, bmax


class _Volumes:
    """A core FrameVolumes for the tree-box kind, as much of it as the render layer reads."""

    name, label, noun, noun_plural, pair_noun, max_drawn = ("aabb", "AABB", "box", "boxes",
                                                            "box pairs", None)

    def __init__(self, rows):
        self.rows = rows

    @staticmethod
    def separating_test(_sep):
        return ""

    @staticmethod
    def wire(rows):
        from core.bv import get_kind

        return get_kind("aabb").wire(rows)


def test_tree_boxes_are_read_for_the_drawn_nodes_only():
    rng = np.random.default_rng(7)
    trees = []
    for _ in range(2):
        bmin = rng.random((50, 3))
        trees.append(_Tree(bmin, bmin + rng.random((50, 3))))
    rows = _JoinedRows([(t.bmin, t.bmax) for t in trees])
    volumes = as_volume_set(_Volumes(rows), trees)
    ids = np.array([3, 17, 40])
    drawn = volumes_groups_polydata(volumes, [(0, ids, None), (1, ids[:2], None)])
    assert rows.n_joins == 0  # a frame's whole trees are never joined to draw a few boxes
    joined = VolumeSet("aabb", "AABB", [rows[0], rows[1]], _Volumes.wire)
    expected = volumes_groups_polydata(joined, [(0, ids, None), (1, ids[:2], None)])
    np.testing.assert_array_equal(drawn.points, expected.points)
    np.testing.assert_array_equal(drawn.lines, expected.lines)
    assert drawn.n_cells == 12 * 5
