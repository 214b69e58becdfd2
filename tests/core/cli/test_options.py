"""What the sub-commands of ``python -m core`` share (core.cli.options, core.cli.output): one
definition of the mesh arguments, of B's pose options and of a measure's text."""

from __future__ import annotations

import argparse

from core.cli import build_parser
from core.cli.output import number_text


def _sub_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _positional_help(p: argparse.ArgumentParser) -> dict[str, str]:
    return {a.dest: a.help for a in p._actions if not a.option_strings}


def test_pair_commands_take_the_same_meshes_and_pose_options():
    subs = _sub_parsers()
    for name in ("contacts", "distance"):
        options = {o for a in subs[name]._actions for o in a.option_strings}
        assert {"--translate-b", "--rotate-b", "--scale-b"} <= options, name
        helps = _positional_help(subs[name])
        assert list(helps)[:2] == ["mesh_a", "mesh_b"], name
        assert helps["mesh_a"] == helps["mesh_b"] == "OBJ, STL, PLY, OFF, VTK or VTP file"
    for name in ("tree", "quality", "validate", "diff"):
        assert _positional_help(subs[name])["mesh"] == "OBJ, STL, PLY, OFF, VTK, VTP or glTF file"


def test_every_epilog_is_printed_as_written():
    # The epilogs hold indented example commands: a wrapping formatter would join their lines.
    for name, p in _sub_parsers().items():
        if p.epilog:
            assert p.formatter_class is argparse.RawDescriptionHelpFormatter, name


def test_a_measure_reads_the_same_in_quality_and_diff():
    from core.cli import diff, quality

    assert number_text(None) == "not defined"
    assert number_text(12345.678901) == "12345.7"
    assert not hasattr(quality, "_number")
    assert diff.number_text is quality.number_text is number_text
