"""What the Scene and Stats panels tell about a body's mesh."""

from __future__ import annotations

from viewer.render.decimation import DISPLAY_MAX_TRIANGLES


def body_notes(body, display) -> list[str]:
    """What the user should know about a body's mesh: the notes loading found
    (``Body.notes``) and whether it is drawn with fewer triangles than it has."""
    notes = list(body.notes)
    n_faces = body.rest.n_faces
    if n_faces > DISPLAY_MAX_TRIANGLES and not display.is_full_resolution:
        notes.append(f"drawn with about {DISPLAY_MAX_TRIANGLES:,} of its {n_faces:,} triangles "
                     "(drawing only: collision uses every triangle; tick 'draw big meshes with "
                     "every triangle' to see them all)")
    return notes
