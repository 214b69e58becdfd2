"""Frames (RGB arrays) to a video file: H.264 MP4 for slides and browsers, or a looping GIF.

The format follows the file's suffix (:data:`MOVIE_SUFFIXES`). Frames come from anywhere that
gives an ``(h, w, 3)`` image: an off-screen ``pyvista.Plotter`` or the app's render window
(:func:`grab_frame`), one at a time, so a long video never sits in memory as a whole (an MP4
streams to ffmpeg; a GIF keeps its palette images, a few kB each, until it is closed).

MP4: H.264 (libx264) from the ffmpeg binary that ships with ``imageio-ffmpeg``, in yuv420p
with even width and height: PowerPoint, Keynote, Impress and every browser play that; yuv444p
(ffmpeg's default for RGB input) or an odd size does not play in Firefox, Safari or Windows'
player. GIF: one adaptive 256-colour palette per frame (maximum coverage), looping forever.

The file appears only when complete: frames are written to a temporary file beside it that
is renamed over it at :meth:`MovieWriter.close` (a cancel or an error leaves no partial file
and an existing file as it was).

Example
-------
>>> writer = MovieWriter("orbit.mp4", fps=30, size=(640, 480))  # doctest: +SKIP
>>> for image in images:
...     writer.append(image)
>>> writer.close()
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

MOVIE_SUFFIXES = (".mp4", ".gif")
"""The suffixes :class:`MovieWriter` writes: the format is chosen by them."""

DEFAULT_FPS = 30.0
"""Frames per second unless told otherwise (the app's animation aims at 30)."""

MAX_FPS = 120.0
"""Most frames per second accepted; a GIF stores delays in hundredths of a second, so above
50 its players slow it down anyway."""

MP4_QUALITY = 7
"""imageio-ffmpeg's quality scale (0-10, 10 best). Measured on 60 frames (2 s) of the cloth
scene at 874x624, against the pictures it was given: quality 8 took 2.1 MB, 7 1.5 MB, 6 0.9 MB,
5 0.5 MB, with a mean error of 1.4, 1.8, 2.3 and 3.1 levels of 255. At 100 % the legend text
and the one-pixel box edges look alike at 5 and 7; 7 keeps the error near the one of 8 (a
projector enlarges it) at about 6 Mbit/s, which slides and browsers play easily."""

GIF_COLORS = 256
"""Palette size of each GIF frame (the most GIF allows)."""

GIF_QUANTIZE = "MAXCOVERAGE"
"""Pillow's palette method for GIF frames. Median cut spends the palette on the large smooth
areas (background gradient, shaded meshes): on the two-spheres view it turned the legend's
yellow, purple, cyan and pink swatches grey (worst pixel off by 89 of 255); maximum coverage
keeps every swatch within 5 at a mean error of 1.6 instead of 0.9 (measured on a 594x565
screenshot)."""


class MovieError(ValueError):
    """A movie cannot be written: one line naming the file (or option) and the reason."""


class MovieCancelled(Exception):
    """The cancel check said stop; no file was written."""


def _new_file_mode() -> int:
    # mkstemp makes the temporary file owner-only; the finished movie gets the permissions
    # any new file of the user gets (0o666 less the umask), as the core's file writer does.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def check_movie_path(path) -> Path:
    """``path`` as a Path after checking it can be written as a movie.

    Raises
    ------
    MovieError
        The suffix is not one of :data:`MOVIE_SUFFIXES`, the folder does not exist, is a file
        or is not writable, or the path is a folder.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in MOVIE_SUFFIXES:
        raise MovieError(f"{path}: a movie must end in .mp4 or .gif, not "
                         f"{suffix or 'no suffix'!r}")
    if path.is_dir():
        raise MovieError(f"{path}: is a folder")
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise MovieError(f"{path}: {folder} is a file, not a folder")
    if not folder.is_dir():
        raise MovieError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MovieError(f"{path}: the folder {folder} is not writable")
    return path


def _check_fps(fps) -> float:
    try:
        fps = float(fps)
    except (TypeError, ValueError):
        raise MovieError(f"fps: {fps!r} is not a number") from None
    if not 0 < fps <= MAX_FPS:
        raise MovieError(f"fps: {fps:g} is outside 0 to {MAX_FPS:g} frames per second")
    return fps


def _check_size(size) -> tuple[int, int] | None:
    if size is None:
        return None
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise MovieError(f"size: {size!r} is not (width, height)") from None
    if width < 2 or height < 2:
        raise MovieError(f"size: {width}x{height} is smaller than 2x2 pixels")
    return width, height


def even_size(width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` rounded down to even numbers (yuv420p stores colour per 2x2
    block, so H.264 in yuv420p needs both even)."""
    return max(2, width - width % 2), max(2, height - height % 2)


def as_rgb(image) -> np.ndarray:
    """An image as ``(h, w, 3) uint8`` (alpha dropped; grey repeated).

    Parameters
    ----------
    image : (h, w, 3) or (h, w, 4) or (h, w) array
        uint8, or float in 0..1.

    Raises
    ------
    MovieError
        Not an image of that shape.
    """
    array = np.asarray(image)
    if array.ndim == 2:
        array = np.repeat(array[..., None], 3, axis=2)
    if array.ndim != 3 or array.shape[2] not in (3, 4) or min(array.shape[:2]) < 1:
        raise MovieError(f"frame: shape {array.shape} is not an (h, w, 3) or (h, w, 4) image")
    array = array[..., :3]
    if array.dtype != np.uint8:
        if np.issubdtype(array.dtype, np.floating):
            array = np.clip(np.rint(array * 255.0), 0, 255)
        array = array.astype(np.uint8)
    return np.ascontiguousarray(array)


def _resized(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    if (image.shape[1], image.shape[0]) == size:
        return image
    from PIL import Image

    return np.asarray(Image.fromarray(image).resize(size, Image.Resampling.LANCZOS))


class MovieWriter:
    """Appends frames to an MP4 or GIF file, written in full only by :meth:`close`.

    Parameters
    ----------
    path : str or pathlib.Path
        Ends in ``.mp4`` or ``.gif`` (any case); checked at once.
    fps : float
        Frames per second, above 0 and at most :data:`MAX_FPS`.
    size : (int, int), optional
        ``(width, height)`` in pixels of the movie; frames of another size are scaled to it.
        Default: the first frame's size. An MP4's is rounded down to even numbers.

    Raises
    ------
    MovieError
        A bad suffix, folder, fps or size (the message names it).

    Notes
    -----
    Not thread-safe: call :meth:`append` and :meth:`close` from one thread (any one, e.g.
    an encoding worker fed by the GUI thread through a queue).
    """

    def __init__(self, path, fps: float = DEFAULT_FPS, size=None):
        self.path = check_movie_path(path)
        self.fps = _check_fps(fps)
        self.format = self.path.suffix.lower()[1:]  # "mp4" or "gif"
        self.size = _check_size(size)
        if self.size is not None and self.format == "mp4":
            self.size = even_size(*self.size)
        self.n_frames = 0
        self._temp: Path | None = None
        self._encoder = None  # the imageio-ffmpeg generator (MP4)
        self._gif_frames: list = []  # palette images (GIF)
        self._is_closed = False

    # -- writing ----------------------------------------------------------------------------
    def append(self, image) -> None:
        """Add one frame.

        Parameters
        ----------
        image : (h, w, 3) or (h, w, 4) uint8 array
            RGB(A) pixels, row 0 at the top (what ``Plotter.screenshot`` returns).

        Raises
        ------
        MovieError
            The writer is closed, the frame is not an image, or the encoder failed.
        """
        if self._is_closed:
            raise MovieError(f"{self.path}: the movie is already closed")
        rgb = as_rgb(image)
        if self.size is None:
            height, width = rgb.shape[:2]
            self.size = even_size(width, height) if self.format == "mp4" else (width, height)
        rgb = _resized(rgb, self.size)
        try:
            if self.format == "mp4":
                self._append_mp4(rgb)
            else:
                self._append_gif(rgb)
        except MovieError:
            self.abort()
            raise
        except (OSError, RuntimeError) as exc:
            self.abort()
            raise MovieError(f"{self.path}: {_one_line(exc)}") from exc
        self.n_frames += 1

    def _open_temp(self) -> Path:
        fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=f".part.{self.format}",
                                    dir=self.path.parent)
        os.close(fd)
        self._temp = Path(name)
        return self._temp

    def _append_mp4(self, rgb: np.ndarray) -> None:
        if self._encoder is None:
            import imageio_ffmpeg

            temp = self._open_temp()
            self._encoder = imageio_ffmpeg.write_frames(
                str(temp), self.size, fps=self.fps, codec="libx264", pix_fmt_in="rgb24",
                pix_fmt_out="yuv420p", quality=MP4_QUALITY, macro_block_size=2,
                ffmpeg_log_level="error",
                # The index at the front: a browser starts playing before the whole file is in.
                output_params=["-movflags", "+faststart"])
            self._encoder.send(None)  # starts ffmpeg
        self._encoder.send(rgb.tobytes())

    def _append_gif(self, rgb: np.ndarray) -> None:
        from PIL import Image

        if self._temp is None:
            self._open_temp()
        self._gif_frames.append(Image.fromarray(rgb).quantize(
            GIF_COLORS, method=Image.Quantize[GIF_QUANTIZE], dither=Image.Dither.NONE))

    def close(self) -> Path:
        """Finish the file and put it at :attr:`path`.

        Returns
        -------
        pathlib.Path

        Raises
        ------
        MovieError
            No frame was added, or the encoder or the file system failed (no file is left).
        """
        if self._is_closed:
            raise MovieError(f"{self.path}: the movie is already closed")
        if self.n_frames == 0:
            self.abort()
            raise MovieError(f"{self.path}: no frame to write")
        try:
            if self.format == "mp4":
                encoder, self._encoder = self._encoder, None
                encoder.close()  # waits for ffmpeg to finish the file
            else:
                self._write_gif()
            os.chmod(self._temp, _new_file_mode())
            os.replace(self._temp, self.path)
        except (OSError, RuntimeError, ValueError) as exc:
            self.abort()
            raise MovieError(f"{self.path}: {_one_line(exc)}") from exc
        self._temp = None
        self._is_closed = True
        return self.path

    def _write_gif(self) -> None:
        first, *rest = self._gif_frames
        # GIF delays are whole hundredths of a second: 30 fps is stored as 30 ms per frame.
        first.save(self._temp, format="GIF", save_all=True, append_images=rest,
                   duration=round(1000.0 / self.fps), loop=0, optimize=False, disposal=1)
        self._gif_frames = []

    def abort(self) -> None:
        """Stop without writing: the temporary file goes, an existing file stays as it was."""
        self._is_closed = True
        encoder, self._encoder = self._encoder, None
        if encoder is not None:
            try:
                encoder.close()
            except Exception:  # noqa: BLE001 - the file is thrown away whatever ffmpeg says
                pass
        self._gif_frames = []
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None

    def __enter__(self) -> MovieWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def write_movie(path, frames: Iterable, fps: float = DEFAULT_FPS, size=None,
                progress: Callable[[int, int], None] | None = None,
                cancel: Callable[[], bool] | None = None, n_frames: int = 0) -> Path:
    """Write ``frames`` to ``path`` (MP4 or GIF by its suffix).

    Parameters
    ----------
    path : str or pathlib.Path
        Ends in ``.mp4`` or ``.gif``.
    frames : iterable of (h, w, 3) or (h, w, 4) uint8 arrays
        May be a generator that renders each frame when asked.
    fps : float
    size : (int, int), optional
        ``(width, height)``; default the first frame's (even for MP4).
    progress : callable, optional
        ``progress(done, total)`` after each frame; ``total`` is ``n_frames`` (0: unknown).
    cancel : callable, optional
        ``cancel() -> bool``, asked before each frame; True stops and writes nothing.
    n_frames : int
        Frames expected, for ``progress`` only.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    MovieError
        Bad path, fps, size or frame, no frames, or the encoder failed.
    MovieCancelled
        ``cancel()`` returned True; no file was written.
    """
    writer = MovieWriter(path, fps, size)
    try:
        for image in frames:
            if cancel is not None and cancel():
                raise MovieCancelled(f"{writer.path}: cancelled")
            writer.append(image)
            if progress is not None:
                progress(writer.n_frames, n_frames)
        if cancel is not None and cancel():
            raise MovieCancelled(f"{writer.path}: cancelled")
        return writer.close()
    except BaseException:
        writer.abort()
        raise


def grab_frame(plotter) -> np.ndarray:
    """The plotter's picture as drawn now: ``(h, w, 3) uint8``, row 0 at the top.

    Parameters
    ----------
    plotter : pyvista.Plotter or viewer.canvas.Canvas
        Rendered (``render()`` called) since the scene last changed.
    """
    return as_rgb(plotter.screenshot(None, transparent_background=False, return_img=True))
