"""Reading a lesson file: a text nested too deeply is refused before the parser recurses."""

from __future__ import annotations

import pytest


def test_a_deep_lesson_is_refused_before_the_parser_runs(monkeypatch):
    from viewer.lessons import reading
    from viewer.lessons.schema import LessonError

    def parser_must_not_run(_text):
        raise AssertionError("tomllib ran on a text nested 100,000 deep")

    monkeypatch.setattr(reading.tomllib, "loads", parser_must_not_run)
    text = "[[steps]]\nlevel = " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(LessonError, match="nest too deeply .more than 64 levels"):
        reading.parse_lesson(text, "deep.toml")
