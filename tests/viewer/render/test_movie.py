"""The movie writer: MP4 (H.264, yuv420p, even size) and GIF (palette, loop) read back with
imageio; bad suffixes, folders, fps and sizes give one line naming them; a cancel or an error
leaves no file."""

from __future__ import annotations

import os

import imageio.v3 as iio
import numpy as np
import pytest

from viewer.render.movie import (
    MovieCancelled,
    MovieError,
    MovieWriter,
    grab_frame,
    write_movie,
)

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200)]


def _frames(width=64, height=48, colours=COLOURS):
    """Solid frames with a white square at the top left (16x16)."""
    for colour in colours:
        image = np.empty((height, width, 3), dtype=np.uint8)
        image[:] = colour
        image[:16, :16] = 255
        yield image


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir())


def test_mp4_read_back_has_every_frame_its_size_and_colours(tmp_path):
    path = write_movie(tmp_path / "clip.mp4", _frames(), fps=10)
    assert path == tmp_path / "clip.mp4"
    video = _read_mp4(path)
    assert video.shape == (3, 48, 64, 3)
    for image, colour in zip(video, COLOURS):
        # H.264 is lossy: the centre of a flat area comes back within a few levels.
        assert np.abs(image[32, 40].astype(int) - colour).max() <= 12
        assert image[4, 4].min() >= 235  # the white square
    assert _leftovers(tmp_path) == ["clip.mp4"]


def _read_mp4(path):
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    meta = reader.__next__()
    width, height = meta["size"]
    images = [np.frombuffer(b, dtype=np.uint8).reshape(height, width, 3) for b in reader]
    return np.stack(images)


def test_mp4_is_h264_yuv420p_at_the_asked_fps(tmp_path):
    import imageio_ffmpeg

    path = write_movie(tmp_path / "clip.mp4", _frames(), fps=12)
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = reader.__next__()
    reader.close()
    assert meta["codec"] == "h264"
    assert meta["fps"] == pytest.approx(12)
    assert _stream_line(path).split("Video: ")[1].startswith("h264")
    assert " yuv420p" in _stream_line(path)


def _stream_line(path) -> str:
    """ffmpeg's description of the video stream ("Stream #0:0...: Video: h264 (High) ...,
    yuv420p(...), 64x48, ...")."""
    import subprocess

    import imageio_ffmpeg

    out = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(path)],
                         capture_output=True, text=True).stderr
    return next(line for line in out.splitlines() if "Video:" in line)


def test_mp4_of_an_odd_size_is_rounded_down_to_even(tmp_path):
    path = write_movie(tmp_path / "odd.mp4", _frames(width=65, height=49))
    assert _read_mp4(path).shape[1:3] == (48, 64)


def test_size_scales_every_frame(tmp_path):
    path = write_movie(tmp_path / "small.gif", _frames(), size=(32, 24))
    gif = iio.imread(path, index=None)
    assert gif.shape[:3] == (3, 24, 32)
    # The white square is scaled with the picture: now 8x8.
    assert gif[0, 2, 2, :3].min() >= 240
    assert np.abs(gif[0, 20, 28, :3].astype(int) - COLOURS[0]).max() <= 8


def test_gif_read_back_has_every_frame_colours_and_loops(tmp_path):
    path = write_movie(tmp_path / "clip.gif", _frames(), fps=20)
    gif = iio.imread(path, index=None)
    assert gif.shape[:3] == (3, 48, 64)
    for image, colour in zip(gif, COLOURS):
        assert np.abs(image[32, 40, :3].astype(int) - colour).max() <= 8
    meta = iio.immeta(path, index=0)
    assert meta.get("loop") == 0  # forever
    assert meta.get("duration") == 50  # 20 frames a second


def test_gif_keeps_small_patches_of_every_overlay_colour(tmp_path):
    # A smooth gradient takes most of the picture, as the view's background and shaded
    # meshes do; the legend's swatches are a few pixels each and must keep their colour.
    height, width = 120, 160
    ramp = np.linspace(0, 1, width)[None, :, None] * np.linspace(0.3, 1, height)[:, None, None]
    image = (ramp * np.array([180, 200, 255]) + 40).clip(0, 255).astype(np.uint8)
    swatches = [(213, 94, 0), (240, 228, 66), (170, 68, 153), (86, 180, 233), (255, 182, 193),
                (0, 0, 0), (35, 35, 90), (30, 90, 40)]
    for i, colour in enumerate(swatches):
        image[4 + 6 * i: 8 + 6 * i, 140:150] = colour
    path = write_movie(tmp_path / "legend.gif", [image])
    back = iio.imread(path, index=None)[0, ..., :3].astype(int)
    for i, colour in enumerate(swatches):
        assert np.abs(back[5 + 6 * i, 144] - colour).max() <= 10, colour


def test_suffix_picks_the_format_in_any_case(tmp_path):
    write_movie(tmp_path / "a.GIF", _frames())
    write_movie(tmp_path / "b.MP4", _frames())
    assert (tmp_path / "a.GIF").read_bytes()[:3] == b"GIF"
    assert (tmp_path / "b.MP4").read_bytes()[4:8] == b"ftyp"


@pytest.mark.parametrize("name", ["clip.avi", "clip", "clip.mp4.txt"])
def test_bad_suffix_is_one_line_naming_the_file(tmp_path, name):
    with pytest.raises(MovieError) as info:
        MovieWriter(tmp_path / name)
    text = str(info.value)
    assert "\n" not in text and name in text and ".mp4 or .gif" in text


def test_missing_folder_is_one_line_naming_it(tmp_path):
    with pytest.raises(MovieError, match="does not exist") as info:
        write_movie(tmp_path / "nowhere" / "clip.mp4", _frames())
    assert "nowhere" in str(info.value) and "\n" not in str(info.value)


def test_a_file_as_the_folder_is_one_line_naming_it(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(MovieError, match="is a file, not a folder") as info:
        write_movie(tmp_path / "notes.txt" / "clip.gif", _frames())
    assert "notes.txt" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_one_line_naming_it(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(MovieError, match="not writable"):
            write_movie(folder / "clip.gif", _frames())
    finally:
        folder.chmod(0o755)


def test_a_folder_as_the_path_is_refused(tmp_path):
    (tmp_path / "x.mp4").mkdir()
    with pytest.raises(MovieError, match="is a folder"):
        MovieWriter(tmp_path / "x.mp4")


@pytest.mark.parametrize(("fps", "size", "words"), [
    (0, None, "fps"), (-3, None, "fps"), (1000, None, "fps"), ("fast", None, "fps"),
    (30, (1, 10), "size"), (30, (10,), "size"),
])
def test_bad_fps_or_size_names_the_option(tmp_path, fps, size, words):
    with pytest.raises(MovieError) as info:
        MovieWriter(tmp_path / "clip.mp4", fps=fps, size=size)
    assert str(info.value).startswith(words)


def test_no_frames_is_an_error_and_leaves_no_file(tmp_path):
    with pytest.raises(MovieError, match="no frame"):
        write_movie(tmp_path / "empty.mp4", [])
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_cancel_leaves_no_partial_file_and_keeps_an_old_one(tmp_path, suffix):
    path = tmp_path / f"clip{suffix}"
    path.write_bytes(b"old movie")
    seen = []

    def cancel():
        return len(seen) >= 2

    with pytest.raises(MovieCancelled):
        write_movie(path, _frames(), progress=lambda done, total: seen.append((done, total)),
                    cancel=cancel, n_frames=3)
    assert seen == [(1, 3), (2, 3)]
    assert path.read_bytes() == b"old movie"
    assert _leftovers(tmp_path) == [path.name]


def test_a_bad_frame_is_an_error_and_leaves_no_file(tmp_path):
    frames = [np.zeros((8, 8, 3), np.uint8), np.zeros((8, 8, 7), np.uint8)]
    with pytest.raises(MovieError, match="frame: shape"):
        write_movie(tmp_path / "clip.mp4", frames)
    assert _leftovers(tmp_path) == []


def test_frames_of_an_off_screen_plotter(tmp_path):
    import pyvista as pv

    plotter = pv.Plotter(off_screen=True, window_size=(160, 120))
    plotter.set_background("white")
    plotter.add_mesh(pv.Sphere(radius=0.5), color=(255, 0, 0), lighting=False)
    plotter.view_xy()
    images = []
    for shift in (0.0, 0.2, 0.4):
        plotter.camera.position = (shift, 0, 5)
        plotter.camera.focal_point = (shift, 0, 0)
        plotter.render()
        images.append(grab_frame(plotter))
    plotter.close()
    assert images[0].shape == (120, 160, 3) and images[0].dtype == np.uint8
    path = write_movie(tmp_path / "sphere.mp4", images, fps=5)
    video = _read_mp4(path)
    assert video.shape == (3, 120, 160, 3)
    centre = video[0, 60, 80].astype(int)
    corner = video[0, 3, 3].astype(int)
    assert centre[0] > 200 and centre[1] < 60 and centre[2] < 60  # the red sphere
    assert corner.min() > 235  # white background
