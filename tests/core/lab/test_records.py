"""core.lab: the analyses of a frame as typed records, the one "which result is shown" rule,
and typed reads of a frame's fields everywhere."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from core import contacts
from core.cli import main
from core.lab.inspect import NodeInspection, NodeTest, inspect_node
from core.lab.tables import ContactRow, CounterRow, FrameTables, LevelRow, frame_tables, level_rows
from core.mesh import TriMesh
from core.pipeline import DEFAULT_REQUEST, BodyInput, Frame, FramePipeline, PipelineSettings
from core.pose import Pose, rotation_matrix
from core.request import FrameOptions
from tests.core.meshgen import sphere_mesh

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def pair_frame():
    a = sphere_mesh(14, name="a")
    b = sphere_mesh(12, radius=0.8, name="b")
    pipe = FramePipeline(PipelineSettings(DEFAULT_REQUEST.replace(trace=True)))
    return pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(np.eye(3), (1.1, 0.3, 0.0)))])


@pytest.fixture(scope="module")
def self_frame():
    """One mesh made of two overlapping spheres: it crosses itself."""
    a, b = sphere_mesh(10), sphere_mesh(10)
    vertices = np.concatenate([a.vertices, b.vertices + (0.9, 0.0, 0.0)])
    faces = np.concatenate([a.faces, b.faces + a.n_vertices])
    mesh = TriMesh(vertices=vertices, faces=faces, name="twin")
    settings = PipelineSettings(DEFAULT_REQUEST.replace(trace=True),
                                frame=FrameOptions(self_collision=True))
    return FramePipeline(settings).step(
        [BodyInput("twin", mesh)])


def test_the_shown_result_is_the_pair_else_the_first_body_against_itself(pair_frame,
                                                                        self_frame):
    assert pair_frame.shown_result() is pair_frame.result is not None
    assert self_frame.result is None
    assert self_frame.shown_result() is self_frame.self_results[0] is not None
    alone = FramePipeline().step([BodyInput("a", sphere_mesh(8))])
    assert alone.result is None and not alone.self_results
    assert alone.shown_result() is None


def test_the_inspector_gets_a_frozen_record(pair_frame):
    tree = pair_frame.trees[0]
    leaf_triangle = int(tree.prim_ids[tree.first[np.flatnonzero(tree.count > 0)[0]]])
    info = inspect_node(pair_frame, 0, leaf_triangle, 3)
    assert isinstance(info, NodeInspection)
    assert info.depth <= 3 and info.triangle == leaf_triangle and info.body == 0
    assert all(isinstance(t, NodeTest) for t in info.tests)
    assert len(info.partners) == len(info.partner_overlaps) == len(info.partner_seps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.node = 0
    assert inspect_node(None, 0, leaf_triangle, 3) is None


def test_the_frame_tables_are_typed_records(pair_frame):
    tables = frame_tables(pair_frame)
    assert isinstance(tables, FrameTables) and not tables.is_self
    assert all(isinstance(row, LevelRow) for row in tables.levels)
    assert all(isinstance(row, CounterRow) for row in tables.counters)
    assert all(isinstance(row, ContactRow) for row in tables.contacts)
    trace = pair_frame.result.trace
    assert [row.tested for row in tables.levels] == trace.tested_per_level.tolist()
    assert tables.trace.node_a.tolist() == trace.node_a.tolist()
    assert len(tables.contacts) == pair_frame.result.counters.n_contacts > 0


def test_the_command_line_levels_are_the_tables_level_rows(capsys, assets_dir, spot, teapot):
    code = main([str(a) for a in (
        "contacts", assets_dir / "spot.obj", assets_dir / "teapot.obj", "--scale-b", 0.22,
        "--rotate-b", 0, 1, 0, 30, "--translate-b", 0.1, 0.05, 0.2, "--json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    small = teapot.with_vertices(teapot.vertices * 0.22)
    pose = Pose(rotation_matrix((0, 1, 0), math.radians(30)), (0.1, 0.05, 0.2))
    rows = level_rows(contacts(spot, small, None, pose, trace=True).trace)
    assert rows
    assert json.loads(out)["levels"] == [
        {"level": r.level, "tested": r.tested, "overlapping": r.overlapping,
         "leaf_pairs": r.leaf_pairs} for r in rows]


def _frame_guesses(path: Path, names: set[str]) -> list[str]:
    """``getattr(<...frame>, "field", ...)`` / ``hasattr(...)`` calls in one module that name
    one of ``names`` on something called ``frame``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2):
            continue
        target, name = node.args[0], node.args[1]
        target_name = (target.id if isinstance(target, ast.Name)
                       else target.attr if isinstance(target, ast.Attribute) else "")
        if ("frame" in target_name.lower() and isinstance(name, ast.Constant)
                and name.value in names):
            found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {name.value}")
    return found


def test_no_module_guesses_at_a_frames_fields():
    """Frame declares every field (the optional ones default to None): a frame's fields are
    read as fields, never guessed with getattr or hasattr."""
    names = {f.name for f in dataclasses.fields(Frame)} | {"tree_words", "shown_result"}
    guesses = [hit for package in ("core", "viewer")
               for path in sorted((REPO_ROOT / package).rglob("*.py"))
               for hit in _frame_guesses(path, names)]
    assert guesses == []
