"""Frame data texts (core.lab.tables) against the frames the core computes: a pair of
bodies, one body against itself, one body alone, a frame without a trace."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from core.collide.tritri import ContactKind
from core.lab.tables import COLUMNS, TABLE_NAMES, frame_files
from core.mesh import TriMesh
from core.pipeline import BodyInput, FramePipeline, PipelineSettings
from core.pose import Pose
from core.request import CollisionRequest, FrameOptions
from tests.core.meshgen import sphere_mesh

JSON_KEYS = ["format_version", "scene", "bodies", "frame", "bounding_volume", "self_collision",
             "counters", "timings_ms", "levels", "trace", "contacts"]
"""The keys docs/app.md documents ("Frame data"), in order."""


def _tables(files, stem="f"):
    tables = {}
    for name in TABLE_NAMES:
        rows = list(csv.reader(io.StringIO(files[f"{stem}-{name}.csv"])))
        assert tuple(rows[0]) == COLUMNS[name]
        tables[name] = rows[1:]
    return tables, json.loads(files[f"{stem}.json"])


@pytest.fixture(scope="module")
def pair_frame():
    a = sphere_mesh(14, name="a")
    b = sphere_mesh(12, radius=0.8, name="b")
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=True)))
    return pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(np.eye(3), (1.1, 0.3, 0.0)))])


def test_a_pair_frame_every_table_and_key(pair_frame):
    frame = pair_frame
    result = frame.result
    files = frame_files(frame, "f", "two spheres", ["a", "b"], recorded_index=4)
    assert sorted(files) == sorted(["f.json"] + [f"f-{t}.csv" for t in TABLE_NAMES])
    tables, document = _tables(files)
    assert list(document) == JSON_KEYS
    assert document["frame"] == {"index": frame.index, "time": 0.0, "recorded_index": 4}
    assert document["bodies"] == ["a", "b"] and document["self_collision"] is False
    assert document["bounding_volume"] == "aabb"
    trace = result.trace
    # The trace table is the trace, row for row.
    rows = tables["trace"]
    assert [int(r[1]) for r in rows] == trace.node_a.tolist()
    assert [int(r[2]) for r in rows] == trace.node_b.tolist()
    assert [int(r[4]) for r in rows] == trace.sep_axis.tolist()
    assert [int(r[0]) for r in rows] == document["trace"]["level"]
    assert [int(r[1]) for r in tables["levels"]] == trace.tested_per_level.tolist()
    assert [int(r[2]) for r in tables["levels"]] == trace.overlapping_per_level.tolist()
    assert sum(int(r[4]) for r in tables["levels"]) == result.counters.n_leaf_pairs
    assert document["counters"] == {
        "n_bv_tests": result.counters.n_bv_tests, "n_bv_overlaps": result.counters.n_bv_overlaps,
        "n_leaf_pairs": result.counters.n_leaf_pairs, "n_tri_tests": result.counters.n_tri_tests,
        "n_contacts": result.counters.n_contacts}
    assert result.counters.n_contacts > 0
    words = {kind.value: kind.name.lower() for kind in ContactKind}
    assert [r[2] for r in tables["contacts"]] == [words[int(k)] for k in result.kinds]
    segments = np.array([c["segment"] for c in document["contacts"]])
    np.testing.assert_array_equal(segments, result.segments)  # exact: repr round-trips
    assert set(document["timings_ms"]) == set(frame.timings)


def test_one_body_against_itself_uses_its_self_result():
    # Two spheres merged into one mesh: the mesh crosses itself.
    a, b = sphere_mesh(10), sphere_mesh(10)
    vertices = np.concatenate([a.vertices, b.vertices + (0.9, 0.0, 0.0)])
    faces = np.concatenate([a.faces, b.faces + a.n_vertices])
    mesh = TriMesh(vertices=vertices, faces=faces, name="twin")
    frame = FramePipeline(PipelineSettings(CollisionRequest(trace=True),
                                           frame=FrameOptions(self_collision=True))).step(
        [BodyInput("twin", mesh)])
    assert frame.result is None
    own = frame.self_results[0]
    tables, document = _tables(frame_files(frame, "f", "self", ["twin"]))
    assert document["self_collision"] is True
    assert document["counters"]["n_contacts"] == own.counters.n_contacts > 0
    # A node paired with itself is split without a box test: listed, not counted.
    rows = tables["trace"]
    self_pairs = [r for r in rows if r[3] == "self pair"]
    assert self_pairs and all(r[1] == r[2] for r in self_pairs)
    assert len(rows) - len(self_pairs) == own.counters.n_bv_tests
    assert sum(int(r[1]) for r in tables["levels"]) == own.counters.n_bv_tests
    assert sum(document["trace"]["tested"]) == own.counters.n_bv_tests
    n_overlaps = sum(r[3] == "overlap" for r in rows)
    assert n_overlaps == sum(document["trace"]["overlapped"])
    # The core counts a self pair as an overlap (it is recorded as overlapping).
    assert n_overlaps + len(self_pairs) == own.counters.n_bv_overlaps
    assert len(tables["contacts"]) == own.counters.n_contacts


def test_one_body_alone_gives_empty_tables_and_zero_counters():
    frame = FramePipeline().step([BodyInput("a", sphere_mesh(8))])
    tables, document = _tables(frame_files(frame, "f"))
    assert tables["trace"] == tables["levels"] == tables["contacts"] == []
    assert set(document["counters"].values()) == {0}
    assert document["contacts"] == [] and document["trace"]["node_a"] == []


def test_a_frame_without_a_trace_keeps_its_counters_and_contacts():
    a, b = sphere_mesh(10), sphere_mesh(10)
    frame = FramePipeline(PipelineSettings(CollisionRequest(trace=False))).step(
        [BodyInput("a", a), BodyInput("b", b, Pose(np.eye(3), (1.0, 0.0, 0.0)))])
    assert frame.result.trace is None
    tables, document = _tables(frame_files(frame, "f"))
    assert tables["trace"] == [] and tables["levels"] == []
    assert document["counters"]["n_bv_tests"] == frame.result.counters.n_bv_tests > 0
    assert len(tables["contacts"]) == frame.result.counters.n_contacts > 0
