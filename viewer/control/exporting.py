"""Exports of what the view shows: a video of frames, the 3-D view as a web page, the frame's
trace, counters and contacts as CSV and JSON.

The window renders (VTK must run on the GUI thread) and hands each picture or page to this
job; encoding and file writing run on one worker lane, so the window stays responsive. One
export runs at a time; ``cancel_export`` stops it at its next frame or file and leaves no
partial file (the movie writer and :func:`core.files.safe_write.replace_file` write under a
temporary name and rename at the end).
"""

from __future__ import annotations

import queue
from pathlib import Path

from core.files.safe_write import replace_file
from core.lab.tables import frame_files
from viewer.control.worker import Tag
from viewer.render.movie import MovieCancelled, MovieError, MovieWriter

WEB_PAGE_SUFFIXES = (".html", ".htm")

_END = object()
"""Put on the frame queue: no more frames (finish, or wake the encoder to see a cancel)."""


class ExportCancelled(Exception):
    """The user pressed Cancel: nothing was written."""


class FrameExporting:
    """The controller's export job: ``start_movie``, ``add_movie_frame``, ``finish_movie``,
    ``export_frame_data``, ``save_web_page``, ``cancel_export``.

    Every export takes ``on_progress(done, total)`` and ``on_done(result, error)`` callbacks,
    called on the GUI thread; ``error`` is None, an :class:`ExportCancelled`, or the exception
    (its text is also shown through ``model.error`` naming the file).
    """

    def __init__(self, model, workers) -> None:
        self.model = model
        self._export_lane = workers.lane("export")
        self._export_job = None  # the export running, until its result is handled
        self._export_words = ""
        self._movie_frames: queue.Queue | None = None

    # -- the running export -----------------------------------------------------------------
    @property
    def is_exporting(self) -> bool:
        """An export (video, web page or frame data) is running."""
        return self._export_job is not None

    def cancel_export(self) -> None:
        """Stop the running export at its next frame or file; nothing is written."""
        if self._export_job is not None:
            self._export_job.cancel()
        if self._movie_frames is not None:
            self._movie_frames.put(_END)  # the encoder may be waiting for a frame

    def _start_export(self, title: str, words: str, work, on_progress, on_done) -> bool:
        """Run ``work(progress, is_cancelled)`` on the export lane; its result or error
        goes to ``on_done`` on the GUI thread (and an error to ``model.error`` as
        ``title``). False when another export runs."""
        if self._export_job is not None:
            self.model.message.emit(f"Wait: {self._export_words} is still running")
            return False
        self._export_words = words

        def run(control):
            try:
                return work(lambda done, total: control.progress(done, total),
                            control.is_cancelled)
            except (ExportCancelled, MovieCancelled):
                raise ExportCancelled(f"{words} cancelled") from None

        self._export_job = self._export_lane.submit(
            run, tag=Tag("export", inputs=(words,)),
            on_result=lambda result, _job: self._finish_export(title, words, result, None,
                                                               on_done),
            # any failure becomes a message
            on_error=lambda error, _job: self._finish_export(title, words, None, error,
                                                             on_done),
            on_progress=None if on_progress is None else (
                lambda done, total, _text, _job: on_progress(done, total or 0)))
        return True

    def _finish_export(self, title, words, result, error, on_done) -> None:
        self._export_job = None
        self._movie_frames = None
        if isinstance(error, ExportCancelled):
            self.model.message.emit(f"{words}: cancelled, nothing written")
        elif error is not None:
            self.model.error.emit(title, _error_line(error))
        if on_done is not None:
            on_done(result, error)

    # -- video ------------------------------------------------------------------------------
    def start_movie(self, path, fps: float, size=None, n_frames: int = 0, on_progress=None,
                    on_done=None) -> bool:
        """Open a movie at ``path`` (``.mp4`` or ``.gif``) and encode every frame given to
        :meth:`add_movie_frame` on the export lane until :meth:`finish_movie`.

        Parameters
        ----------
        path : str or pathlib.Path
        fps : float
        size : (int, int), optional
            ``(width, height)``; default the first frame's.
        n_frames : int
            Frames that will come (0: unknown), for ``on_progress``.
        on_progress, on_done : callable, optional
            ``on_done(path or None, error)``.

        Returns
        -------
        bool
            False (and one line naming the file or option on ``model.error``) for a bad
            path, fps or size, or when another export runs.
        """
        if self.is_exporting:
            self.model.message.emit(f"Wait: {self._export_words} is still running")
            return False
        try:
            writer = MovieWriter(path, fps, size)
        except MovieError as exc:
            self.model.error.emit("Export video", str(exc))
            return False
        frames: queue.Queue = queue.Queue()

        def encode(progress, is_cancelled):
            try:
                while True:
                    image = frames.get()
                    if is_cancelled():
                        raise ExportCancelled
                    if image is _END:
                        break
                    writer.append(image)
                    progress(writer.n_frames, n_frames)
                return writer.close()
            finally:
                writer.abort()  # no-op after a close; otherwise the temporary file goes

        started = self._start_export("Cannot write video", f"Writing {writer.path.name}",
                                     encode, on_progress, on_done)
        if started:
            self._movie_frames = frames
        return started

    def add_movie_frame(self, image) -> bool:
        """Queue one picture ``(h, w, 3) uint8`` for the movie; False when no movie is
        being written (none started, cancelled, or failed)."""
        if self._movie_frames is None or (self._export_job is not None
                                          and self._export_job.is_cancelled):
            return False
        self._movie_frames.put(image)
        return True

    @property
    def movie_backlog(self) -> int:
        """Pictures queued and not yet encoded (the renderer waits when it runs ahead)."""
        return self._movie_frames.qsize() if self._movie_frames is not None else 0

    def finish_movie(self) -> None:
        """No more frames: the movie is finished and put in place (``on_done`` follows)."""
        if self._movie_frames is not None:
            self._movie_frames.put(_END)

    # -- web page ---------------------------------------------------------------------------
    def save_web_page(self, path, page: str, on_done=None) -> bool:
        """Write the HTML text ``page`` (made by ``viewer.render.webpage``) to ``path``.

        False (and one line naming the file) for a suffix other than .html or .htm, a
        missing folder, or when another export runs."""
        path = Path(path)
        if path.suffix.lower() not in WEB_PAGE_SUFFIXES:
            self.model.error.emit("Export web page", f"{path}: a web page must end in .html "
                                  f"or .htm, not {path.suffix or 'no suffix'!r}")
            return False
        if not self._check_folder("Export web page", path):
            return False
        data = page.encode("utf-8")

        def write(progress, _is_cancelled):
            _write_file(path, data)
            progress(1, 1)
            return path

        def done(result, error):
            if error is None:
                self.model.message.emit(f"Saved the 3-D view as {path}")
            if on_done is not None:
                on_done(result, error)

        return self._start_export("Cannot write web page", f"Writing {path.name}", write,
                                  None, done)

    # -- frame data -------------------------------------------------------------------------
    def export_frame_data(self, path, on_done=None) -> bool:
        """Write the shown frame's trace, counters and contacts: ``STEM.json`` at ``path``
        and ``STEM-levels.csv``, ``STEM-trace.csv``, ``STEM-counters.csv``,
        ``STEM-contacts.csv`` beside it (``core.lab.tables``).

        A recorded frame on the timeline is written as shown. ``on_done(paths or None,
        error)``. False (and one line on ``model.error``) without a frame, for a missing
        folder, or when another export runs."""
        frame = self.model.frame
        if frame is None:
            self.model.error.emit("Export frame data", "there is no frame yet: wait for the "
                                  "scene to be computed")
            return False
        path = Path(path)
        if path.suffix.lower() != ".json":
            path = path.with_name(path.name + ".json")
        if not self._check_folder("Export frame data", path):
            return False
        scene = self.model.scene_title
        bodies = [body.name for body in self.model.bodies[:len(frame.meshes)]]
        cursor = self.model.cursor

        def write(progress, is_cancelled):
            files = frame_files(frame, path.stem, scene, bodies, cursor)
            written = []
            for i, (name, text) in enumerate(files.items()):
                if is_cancelled():
                    raise ExportCancelled
                target = path.parent / name
                _write_file(target, text.encode("utf-8"))
                written.append(target)
                progress(i + 1, len(files))
            return written

        def done(result, error):
            if error is None:
                self.model.message.emit(f"Saved frame {frame.index}'s data: {path} and "
                                        f"{len(result) - 1} CSV files beside it")
            if on_done is not None:
                on_done(result, error)

        return self._start_export("Cannot write frame data", f"Writing {path.name}", write,
                                  None, done)

    def _check_folder(self, title: str, path: Path) -> bool:
        if not path.parent.is_dir():
            self.model.error.emit(title, f"{path}: the folder {path.parent} does not exist")
            return False
        return True

    def shutdown(self) -> None:
        # The encoder wakes to see the cancel; the controller's workers wait for it.
        self.cancel_export()


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; an OSError names the file."""
    try:
        replace_file(path, lambda stream: stream.write(data))
    except OSError as exc:
        raise OSError(f"{path}: {exc.strerror or exc}") from exc


def _error_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."
