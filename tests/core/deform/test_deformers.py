"""Deformers and the sculpt brush: purity, invariances, exact formulas, undo."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from core.deform import (
    DEFORMERS,
    Axis,
    Bend,
    BrushHistory,
    Deformer,
    Falloff,
    Inflate,
    Noise,
    RadialWave,
    Twist,
    Wave,
    brush_pull,
    brush_weights,
    make_deformer,
    rest_box,
)
from core.errors import MeshError

# Float64 round-off of a few dozen operations on coordinates of order 1: comparisons of two
# mathematically equal expressions use this relative tolerance.
RTOL = 1e-12

NAMES = sorted(DEFORMERS)
ADAPTIVE = [n for n in NAMES if DEFORMERS[n].is_size_adaptive]
# Times that are not special for any default speed (0.5, 0.4, 1 Hz): sin(2 pi speed t) != 0.
TIMES = (0.13, 0.37, 1.71)


def _cloud(n: int, extent, offset, seed: int) -> np.ndarray:
    """Read-only random points filling a box, ``(n, 3) float64``."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(-0.5, 0.5, size=(n, 3)) * np.asarray(extent) + np.asarray(offset)
    v.flags.writeable = False
    return v


@pytest.fixture(scope="module")
def bunny_like() -> np.ndarray:
    """Points in a box the size of the Stanford bunny, away from the origin."""
    return _cloud(2000, (0.155, 0.152, 0.12), (-0.017, 0.11, 0.0), seed=1)


@pytest.fixture(scope="module")
def unit_sphere() -> np.ndarray:
    """Points on the unit sphere centred at the origin, ``(3000, 3) float64``."""
    rng = np.random.default_rng(2)
    v = rng.normal(size=(3000, 3))
    v /= np.linalg.norm(v, axis=1)[:, None]
    v.flags.writeable = False
    return v


def _peak_time(speed: float) -> float:
    """A time where ``sin(2 pi speed t) = 1``."""
    return 0.25 / speed


# ---------------------------------------------------------------- registry and metadata


def test_registry_has_exactly_the_documented_names():
    assert set(DEFORMERS) == {"twist", "bend", "wave", "inflate", "noise", "radial_wave"}


@pytest.mark.parametrize("name", NAMES)
def test_class_metadata_and_slider_ranges(name):
    cls = DEFORMERS[name]
    assert issubclass(cls, Deformer)
    assert dataclasses.is_dataclass(cls)
    assert cls.__dataclass_params__.frozen
    assert isinstance(cls.label, str) and cls.label and "\n" not in cls.label
    assert isinstance(cls.description, str) and len(cls.description) > 40
    specs = cls.params()
    assert [s.name for s in specs] == [f.name for f in dataclasses.fields(cls)]
    assert "amplitude" in [s.name for s in specs]
    for spec in specs:
        assert spec.label
        if spec.choices:
            assert spec.default in spec.choices
        else:
            assert spec.kind in (float, int)
            assert spec.min < spec.max
            assert spec.min <= spec.default <= spec.max, spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        cls().amplitude = 1.0


def test_make_deformer_builds_with_params_and_rejects_unknown_names():
    twist = make_deformer("twist", amplitude=0.3)
    assert twist == Twist(amplitude=0.3)
    with pytest.raises(KeyError, match="radial_wave"):
        make_deformer("melt")


@pytest.mark.parametrize(
    ("extent", "longest", "shortest"),
    [((1, 1, 1), 0, 2), ((2, 1, 1), 0, 2), ((1, 1, 2), 2, 1), ((1, 3, 3), 1, 0), ((0, 0, 0), 0, 2)],
)
def test_axis_resolution_breaks_ties_so_longest_and_shortest_differ(extent, longest, shortest):
    box = rest_box(np.array([[0.0, 0.0, 0.0], extent], dtype=np.float64))
    assert box.size == max(extent)
    assert box.axis_index(Axis.LONGEST) == longest
    assert box.axis_index(Axis.SHORTEST) == shortest
    assert [box.axis_index(a) for a in (Axis.X, Axis.Y, Axis.Z)] == [0, 1, 2]


# ---------------------------------------------------------------- generic properties


@pytest.mark.parametrize("name", NAMES)
def test_pure_new_array_shape_dtype(name, bunny_like):
    before = bunny_like.copy()
    out = DEFORMERS[name]()(bunny_like, 0.37)
    assert out.shape == bunny_like.shape and out.dtype == np.float64
    assert out.flags.c_contiguous
    assert not np.shares_memory(out, bunny_like)
    np.testing.assert_array_equal(bunny_like, before)
    assert not bunny_like.flags.writeable


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_and_finite(name, bunny_like):
    deformer = DEFORMERS[name]()
    for t in TIMES:
        a = deformer(bunny_like, t)
        b = DEFORMERS[name]()(bunny_like, t)
        np.testing.assert_array_equal(a, b)
        assert np.isfinite(a).all()


@pytest.mark.parametrize("name", NAMES)
def test_defaults_visibly_move_vertices(name, bunny_like, unit_sphere):
    rest = unit_sphere if name == "radial_wave" else bunny_like
    size = rest_box(rest).size
    moved = np.abs(DEFORMERS[name]()(rest, 0.13) - rest).max()
    assert moved > 0.005 * size


@pytest.mark.parametrize("name", NAMES)
def test_rest_at_time_zero_exactly_when_documented(name, bunny_like):
    cls = DEFORMERS[name]
    out = cls()(bunny_like, 0.0)
    if cls.is_rest_at_zero:
        np.testing.assert_array_equal(out, bunny_like)
    else:
        assert not np.allclose(out, bunny_like, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_amplitude_zero_is_identity(name, bunny_like):
    deformer = DEFORMERS[name](amplitude=0.0)
    for t in (0.0,) + TIMES:
        np.testing.assert_array_equal(deformer(bunny_like, t), bunny_like)


@pytest.mark.parametrize("name", ADAPTIVE)
@pytest.mark.parametrize("scale", [40.0, 1e-3])
def test_scale_invariance(name, bunny_like, scale):
    # A bunny of size 0.15 scaled by 40 is the size of the teapot (6).
    deformer = DEFORMERS[name]()
    for t in TIMES:
        expected = scale * deformer(bunny_like, t)
        got = deformer(scale * bunny_like, t)
        np.testing.assert_allclose(got, expected, rtol=0, atol=RTOL * scale * 10)


@pytest.mark.parametrize("name", ADAPTIVE)
def test_translation_invariance(name, bunny_like):
    shift = np.array([3.0, -2.0, 0.5])
    deformer = DEFORMERS[name]()
    expected = deformer(bunny_like, 0.37) + shift
    np.testing.assert_allclose(deformer(bunny_like + shift, 0.37), expected, rtol=0, atol=1e-12)


def test_radial_wave_is_not_scale_invariant(unit_sphere):
    # Documented: W3 is defined in absolute coordinates, so the flag must be False.
    assert not RadialWave.is_size_adaptive
    f = RadialWave()
    assert not np.allclose(f(3.0 * unit_sphere, 0.1), 3.0 * f(unit_sphere, 0.1))


@pytest.mark.parametrize("name", NAMES)
def test_cached_box_gives_the_same_result(name, bunny_like):
    deformer = DEFORMERS[name]()
    box = rest_box(bunny_like)
    np.testing.assert_array_equal(deformer(bunny_like, 0.37, box=box), deformer(bunny_like, 0.37))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "rest",
    [
        np.zeros((1, 3)),  # one vertex: a box of size 0
        np.full((5, 3), 2.0),  # coincident vertices
        np.column_stack([np.linspace(0, 1, 7), np.linspace(0, 2, 7), np.zeros(7)]),  # flat
        np.zeros((0, 3)),  # empty
    ],
    ids=["point", "coincident", "flat", "empty"],
)
def test_degenerate_boxes_give_finite_output(name, rest):
    out = DEFORMERS[name]()(rest, 0.37)
    assert out.shape == rest.shape
    assert np.isfinite(out).all()


@pytest.mark.parametrize("name", NAMES)
def test_rejects_arrays_that_are_not_n_by_3(name):
    with pytest.raises(MeshError, match=r"\(n, 3\)"):
        DEFORMERS[name]()(np.zeros((4, 2)), 0.1)


def test_field_values_are_coerced_to_their_kinds():
    twist = Twist(amplitude=1, axis="z")  # a slider int and a saved string
    assert twist.axis is Axis.Z
    assert isinstance(twist.amplitude, float) and twist.amplitude == 1.0
    noise = Noise(seed=3.0, n_waves=np.int64(2))
    assert type(noise.seed) is int and type(noise.n_waves) is int
    assert noise == Noise(seed=3, n_waves=2)


def test_invalid_settings_are_rejected():
    with pytest.raises(ValueError, match="axis must be one of x, y, z, longest, shortest"):
        Twist(axis="w")
    with pytest.raises(ValueError, match="finite"):
        Bend(amplitude=float("nan"))
    with pytest.raises(ValueError, match="integer"):
        Noise(seed=1.5)
    with pytest.raises(ValueError, match="wavelength"):
        Wave(wavelength=0.0)
    with pytest.raises(ValueError, match="amplitude"):
        Inflate(amplitude=1.0)
    with pytest.raises(ValueError, match="n_waves"):
        Noise(n_waves=0)


# ---------------------------------------------------------------- per-deformer geometry


@pytest.mark.parametrize("axis", [Axis.X, Axis.Y, Axis.Z, Axis.LONGEST])
def test_twist_preserves_distance_to_axis_and_position_along_it(axis, bunny_like):
    twist = Twist(amplitude=1.3, axis=axis)
    box = rest_box(bunny_like)
    a = box.axis_index(axis)
    others = [k for k in range(3) if k != a]
    out = twist(bunny_like, 0.37)
    radius_before = np.linalg.norm((bunny_like - box.center)[:, others], axis=1)
    radius_after = np.linalg.norm((out - box.center)[:, others], axis=1)
    np.testing.assert_allclose(radius_after, radius_before, rtol=RTOL, atol=RTOL * box.size)
    np.testing.assert_array_equal(out[:, a], bunny_like[:, a])


def test_twist_turns_the_ends_by_the_amplitude_at_the_peak():
    # Points at the two ends of the x axis (the longest side), one unit off the axis.
    rest = np.array([[-2.0, 1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.5]])
    twist = Twist(amplitude=0.7, speed=2.0)
    out = twist(rest, _peak_time(2.0))
    center = rest_box(rest).center
    angle = np.arctan2(out[:, 2] - center[2], out[:, 1] - center[1])
    start = np.arctan2(rest[:, 2] - center[2], rest[:, 1] - center[1])
    np.testing.assert_allclose(angle[:3] - start[:3], [-0.7, 0.7, 0.0], atol=RTOL)


def test_bend_maps_the_centre_line_onto_an_arc_of_the_same_length():
    # A straight rod of length 2 along x (longest), thin in z (shortest): bend toward z.
    u = np.linspace(-1.0, 1.0, 41)
    rest = np.column_stack([u, np.zeros_like(u), np.zeros_like(u)])
    rest = np.vstack([rest, [[0.0, 0.1, 0.05], [0.0, -0.1, -0.05]]])  # give y and z a size
    theta = 1.2
    out = Bend(amplitude=theta, speed=1.0)(rest, _peak_time(1.0))
    radius = 2.0 / theta  # arc length 2 over angle theta
    center_of_curvature = np.array([0.0, 0.0, radius])
    line = out[:41]
    np.testing.assert_allclose(
        np.linalg.norm(line - center_of_curvature, axis=1), radius, rtol=RTOL
    )
    # Angle subtended by each point equals its rest arc length / radius.
    rel = line - center_of_curvature
    angle = np.arctan2(rel[:, 0], -rel[:, 2])
    np.testing.assert_allclose(angle, u / radius, atol=RTOL)
    np.testing.assert_array_equal(out[:, 1], rest[:, 1])  # the rotation axis is untouched


def test_bend_keeps_slices_straight_and_normal_to_the_arc():
    # Points off the centre line at (u, w) land on the ray from the centre of curvature
    # through the bent centre-line point u, at distance radius - w (Barr's bend).
    u, w = np.meshgrid(np.linspace(-1.0, 1.0, 9), np.linspace(-0.2, 0.2, 5))
    u, w = u.ravel(), w.ravel()
    rest = np.column_stack([u, np.zeros_like(u), w])
    rest = np.vstack([rest, [[0.0, 0.1, 0.0]]])  # y is now the shortest side: ask for z
    theta = 0.9
    out = Bend(amplitude=theta, speed=1.0, axis=Axis.X, direction=Axis.Z)(rest, _peak_time(1.0))
    radius = 2.0 / theta
    rel = out[:-1] - np.array([0.0, 0.0, radius])
    np.testing.assert_allclose(np.linalg.norm(rel, axis=1), radius - w, rtol=RTOL)
    np.testing.assert_allclose(np.arctan2(rel[:, 0], -rel[:, 2]), u / radius, atol=RTOL)


def test_bend_with_tiny_angle_is_close_to_identity(bunny_like):
    out = Bend(amplitude=1e-9, speed=1.0)(bunny_like, 0.25)
    np.testing.assert_allclose(out, bunny_like, rtol=0, atol=1e-9 * rest_box(bunny_like).size)


def test_wave_moves_only_along_its_direction_by_the_formula(bunny_like):
    wave = Wave(amplitude=0.05, wavelength=0.4, speed=0.5, axis=Axis.X, direction=Axis.Z)
    t = 0.37
    out = wave(bunny_like, t)
    box = rest_box(bunny_like)
    np.testing.assert_array_equal(out[:, :2], bunny_like[:, :2])
    s = (bunny_like[:, 0] - box.bmin[0]) / box.extent[0]
    expected = 0.05 * box.size * np.sin(2 * np.pi * (s / 0.4 - 0.5 * t))
    np.testing.assert_allclose(out[:, 2] - bunny_like[:, 2], expected, rtol=0,
                               atol=RTOL * box.size)


def _cube_mesh(offset) -> tuple[np.ndarray, np.ndarray]:
    """A closed, outward-oriented cube of side 1: vertices (8, 3), faces (12, 3)."""
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) + offset
    faces = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
    ])
    return v, faces


def _volume(v, faces) -> float:
    tri = v[faces]
    return float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0)


@pytest.mark.parametrize("t", [0.1, 0.5, 0.9, 1.6])
def test_inflate_scales_volume_by_the_cube_of_the_factor(t):
    v, faces = _cube_mesh(offset=[2.0, -1.0, 0.3])
    assert _volume(v, faces) == pytest.approx(1.0, rel=RTOL)
    inflate = Inflate(amplitude=0.3, speed=0.5)
    factor = 1.0 + 0.3 * np.sin(2 * np.pi * 0.5 * t)
    out = inflate(v, t)
    assert _volume(out, faces) == pytest.approx(factor**3, rel=RTOL)
    np.testing.assert_allclose(out.mean(axis=0), v.mean(axis=0), rtol=RTOL)


def test_inflate_scales_about_the_vertex_centroid(bunny_like):
    # The centroid of a random cloud differs from its box centre; only the centroid is fixed.
    centroid = bunny_like.mean(axis=0)
    out = Inflate(amplitude=0.4, speed=0.5)(bunny_like, 0.5)
    factor = 1.0 + 0.4 * np.sin(2 * np.pi * 0.5 * 0.5)
    np.testing.assert_allclose(out, centroid + factor * (bunny_like - centroid), rtol=0,
                               atol=RTOL)


def test_noise_depends_on_the_seed_and_stays_bounded(bunny_like):
    size = rest_box(bunny_like).size
    a = Noise(seed=1)(bunny_like, 0.37)
    b = Noise(seed=2)(bunny_like, 0.37)
    assert not np.allclose(a, b)
    n_waves = Noise().n_waves
    # Each wave moves a vertex by at most amplitude * size / sqrt(n_waves).
    bound = Noise().amplitude * size * np.sqrt(n_waves)
    assert np.linalg.norm(a - bunny_like, axis=1).max() <= bound


def test_noise_is_smooth_in_space(bunny_like):
    # Low frequency: close points move nearly together (Lipschitz bound of the sum of sines).
    # The box is held fixed: moving every point with the box would just translate the result.
    noise = Noise()
    box = rest_box(bunny_like)
    step = 1e-4 * box.size
    moved = noise(bunny_like + [step, 0.0, 0.0], 0.37, box=box) - noise(bunny_like, 0.37, box=box)
    slope = np.linalg.norm(moved - [step, 0.0, 0.0], axis=1).max() / step
    lipschitz = noise.amplitude * np.sqrt(noise.n_waves) * 2 * np.pi * noise.frequency * 1.3
    assert slope <= lipschitz
    assert slope > 0.01 * lipschitz  # and it does move


def test_radial_wave_is_benchmark_w3_on_the_unit_sphere(unit_sphere):
    z = unit_sphere[:, 2]
    for frame in range(50):
        out = RadialWave()(unit_sphere, t=frame / 50)
        radius = np.linalg.norm(out, axis=1)
        expected = 1.0 + 0.05 * np.sin(4 * np.pi * z - 2 * np.pi * frame / 50)
        np.testing.assert_allclose(radius, expected, rtol=RTOL)
        # Purely radial: directions are unchanged.
        np.testing.assert_allclose(out / radius[:, None], unit_sphere, rtol=0, atol=RTOL)


# ---------------------------------------------------------------- brush


@pytest.mark.parametrize("falloff", list(Falloff))
def test_brush_weights_range_support_and_monotone(falloff, bunny_like):
    center = bunny_like[17]
    radius = 0.05
    w = brush_weights(bunny_like, center, radius, falloff)
    d = np.linalg.norm(bunny_like - center, axis=1)
    assert w.shape == (len(bunny_like),) and w.dtype == np.float64
    assert ((w >= 0.0) & (w <= 1.0)).all()
    assert (w[d >= radius] == 0.0).all()
    assert (w[d < radius] > 0.0).all()
    assert w[17] == 1.0
    order = np.argsort(d[d < radius])
    assert (np.diff(w[d < radius][order]) <= 0.0).all()


@pytest.mark.parametrize(
    ("falloff", "expected"),
    [(Falloff.SMOOTH, 0.5625), (Falloff.LINEAR, 0.5), (Falloff.CONSTANT, 1.0)],
)
def test_brush_falloff_values_at_half_radius(falloff, expected):
    vertices = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]])
    w = brush_weights(vertices, [0.0, 0.0, 0.0], 2.0, falloff)
    np.testing.assert_allclose(w, [expected, 0.0, 0.0], rtol=RTOL)


def test_brush_radius_zero_touches_nothing_and_negative_is_rejected(bunny_like):
    assert not brush_weights(bunny_like, bunny_like[0], 0.0).any()
    np.testing.assert_array_equal(brush_pull(bunny_like, bunny_like[0], [1, 2, 3], 0.0), bunny_like)
    with pytest.raises(ValueError, match="radius"):
        brush_weights(bunny_like, bunny_like[0], -1.0)


@pytest.mark.parametrize("falloff", list(Falloff))
def test_brush_pull_moves_centre_by_strength_times_drag(falloff, bunny_like):
    before = bunny_like.copy()
    drag = np.array([0.01, -0.02, 0.005])
    out = brush_pull(bunny_like, bunny_like[5], drag, 0.04, strength=0.7, falloff=falloff)
    np.testing.assert_allclose(out[5] - bunny_like[5], 0.7 * drag, rtol=RTOL)
    w = brush_weights(bunny_like, bunny_like[5], 0.04, falloff)
    np.testing.assert_allclose(out, bunny_like + 0.7 * w[:, None] * drag, rtol=RTOL)
    outside = w == 0.0
    assert outside.sum() > 0
    np.testing.assert_array_equal(out[outside], bunny_like[outside])
    np.testing.assert_array_equal(bunny_like, before)
    assert not np.shares_memory(out, bunny_like)


def test_brush_history_is_a_bounded_lifo_of_copies():
    history = BrushHistory(max_depth=3)
    assert history.undo() is None and len(history) == 0
    states = [np.full((4, 3), float(k)) for k in range(5)]
    for s in states:
        history.push(s)
    assert len(history) == 3
    assert history.n_bytes == 3 * 4 * 3 * 8
    states[4][:] = -1.0  # editing the caller's array after the push must not leak in
    np.testing.assert_array_equal(history.undo(), np.full((4, 3), 4.0))
    np.testing.assert_array_equal(history.undo(), np.full((4, 3), 3.0))
    np.testing.assert_array_equal(history.undo(), np.full((4, 3), 2.0))
    assert history.undo() is None  # states 0 and 1 fell off the bottom


def test_brush_history_reset_to_rest(bunny_like):
    history = BrushHistory()
    assert history.max_depth == 32
    current = bunny_like
    for _ in range(3):
        history.push(current)
        current = brush_pull(current, current[0], [0.01, 0, 0], 0.05)
    rest = history.reset_to(bunny_like)
    assert len(history) == 0 and history.undo() is None
    np.testing.assert_array_equal(rest, bunny_like)
    assert rest.flags.writeable and not np.shares_memory(rest, bunny_like)
    with pytest.raises(ValueError):
        BrushHistory(max_depth=0)


def test_core_deform_imports_no_gui_toolkit():
    code = (
        "import sys, core.deform\n"
        "gui = ('PyQt6', 'pyvista', 'pyvistaqt', 'vtk')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in gui]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
