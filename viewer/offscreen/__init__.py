"""A lesson played without the window: into a video (``python -m viewer --lesson-video``) and
checked against its expectations (docs/lessons.md), on an off-screen renderer."""
