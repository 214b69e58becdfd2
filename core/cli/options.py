"""What the sub-commands of ``python -m core`` share: the parser class, a sub-command's
parser, the integer option type, the choices' names, the mesh arguments and B's pose options."""

from __future__ import annotations

import argparse
import math
import re

# A negative number in any form float() reads: argparse's own test (r"^-\d+$|^-\d*\.\d+$")
# misses exponents, so "-1e-9" was taken for an unknown option.
_NEGATIVE_NUMBER = re.compile(
    r"^-(?:(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|inf(?:inity)?|nan)$", re.IGNORECASE
)


class Parser(argparse.ArgumentParser):
    """An argument parser that reads every negative number as a value, never as an option.

    Sub-parsers made by :meth:`add_subparsers` are of this class too. No option of this
    command line looks like a number, so nothing is lost.
    """

    def _parse_optional(self, arg_string):
        if _NEGATIVE_NUMBER.match(arg_string):
            return None
        return super()._parse_optional(arg_string)


def add_command(sub, name: str, help: str, epilog: str,
                description: str | None = None) -> argparse.ArgumentParser:
    """Sub-command ``name`` of ``python -m core``, its epilog printed as written (line breaks
    and indented examples kept)."""
    return sub.add_parser(name, help=help, description=description, epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip


def whole_number(text: str) -> int:
    """An integer option's value: ``"12"``, or a whole number in float form (``"1e6"``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not (math.isfinite(value) and value == int(value)):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(value)


def rule_names(enum_cls) -> list[str]:
    """An enum's members as option words (lower case)."""
    return [m.name.lower() for m in enum_cls]


def bv_names() -> list[str]:
    """Every bounding-volume kind of the registry."""
    from core.bv import BV_KINDS

    return list(BV_KINDS)


def takes_obb_fit(bv: str | None) -> bool:
    """Whether kind ``bv`` (None: no ``--bv``) has the OBB fit choice, so ``--obb-fit``
    applies to it and the report names it."""
    from core.bv import get_kind

    return bv is not None and get_kind(bv).has_fit_choice


def distance_bv_names() -> list[str]:
    """The kinds whose volumes bound a distance (``distance --bv``)."""
    from core.bv import BV_KINDS

    return [name for name, kind in BV_KINDS.items() if kind.bounds_distance]


def partition_names() -> list[str]:
    """Every spatial partition of the registry (``contacts --partition``)."""
    from core.partition import PARTITION_KINDS

    return list(PARTITION_KINDS)


def pose_args(p: argparse.ArgumentParser) -> None:
    """B's pose options (``--translate-b``, ``--rotate-b``, ``--scale-b``)."""
    p.add_argument("--translate-b", nargs=3, type=float, metavar=("X", "Y", "Z"),
                   default=(0.0, 0.0, 0.0), help="translation of B (applied last)")  # fmt: skip
    p.add_argument("--rotate-b", nargs=4, type=float, metavar=("AX", "AY", "AZ", "DEG"),
                   help="rotation of B about axis (AX, AY, AZ) by DEG degrees")  # fmt: skip
    p.add_argument("--scale-b", type=float, default=1.0, metavar="S",
                   help="uniform scale of B about its own origin (applied first)")  # fmt: skip


def mesh_arg(p: argparse.ArgumentParser) -> None:
    """The one mesh of a tree command (``mesh``), any format :func:`core.io.load_mesh` reads."""
    p.add_argument("mesh", help="OBJ, STL, PLY, OFF, VTK, VTP or glTF file")


def mesh_pair_args(p: argparse.ArgumentParser) -> None:
    """The two meshes of a pair query (``mesh_a``, ``mesh_b``) and B's pose options."""
    p.add_argument("mesh_a", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    p.add_argument("mesh_b", help="OBJ, STL, PLY, OFF, VTK or VTP file")
    pose_args(p)
