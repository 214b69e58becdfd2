"""The cold-start target lines of ``python -m benchmarks.cold_start`` (made-up numbers; nothing
is timed here)."""

from __future__ import annotations

from benchmarks.cold_start import first_frame_line, make_test_line


def test_first_frame_line_passes_at_or_under_the_limit_and_names_the_later_start():
    line = first_frame_line([8.4, 7.9], [3.9, 4.1])
    assert line == ("cold start: first frame after 8.2 s with an empty kernel cache "
                    "(median of 8.4, 7.9) (target <= 15 s) PASS; a later start 4.0 s")
    assert first_frame_line([15.0], [3.0]).split(") ")[-1].startswith("PASS")
    assert " MISS; " in first_frame_line([15.1, 16.0], [3.0])


def test_first_frame_line_says_why_it_was_not_measured():
    line = first_frame_line("not measured (no DISPLAY and no Xvfb (apt install xvfb))", "")
    assert line == ("cold start: not measured (no DISPLAY and no Xvfb (apt install xvfb)) "
                    "(target <= 15 s) MISS")
    assert first_frame_line([9.0], "not measured (the app ended)").endswith(
        "PASS; a later start: not measured (the app ended)")


def test_make_test_line():
    assert make_test_line(5 * 60 + 41.2) == (
        "make test: 5 min 41 s on a fresh clone (target < 6 min) PASS")
    assert make_test_line(537.0).endswith("8 min 57 s on a fresh clone (target < 6 min) MISS")
    assert make_test_line(None).startswith("make test: not measured (python -m benchmarks.")
    assert make_test_line(None).endswith("MISS")
    assert make_test_line("not measured (make test failed in the clone: x)") == (
        "make test: not measured (make test failed in the clone: x) (target < 6 min) MISS")
