"""BVH Lab's own files on disk.

- :mod:`core.files.safe_write`: every save writes a temporary file and renames it over the
  target, so a failed or cancelled save leaves the old file whole.
- :mod:`core.files.container`: the zip container of ``.bvhrec`` and ``.bvhsession`` files
  (one ``.npy`` member per array and ``manifest.json``), read within size caps.

The formats themselves live with what they store: :mod:`core.recording.fileformat`,
:mod:`core.session`, :mod:`core.bvh.treefile`, :mod:`core.io.write`.
"""
