"""The bounding-volume kinds' facts for the viewer, read from the core's registry.

The render layer and the widgets do not import the core: what they need of a kind (its name
for people, its nouns, how a separating test is said, how many volumes to draw at most) is
copied here into plain values (:class:`viewer.render.words.KindWords`) and handed to them
with the frame's volumes. Registry keys pass through as opaque strings.
"""

from __future__ import annotations

from core.bv import BV_KINDS, TREE_BOX_KIND, get_kind
from viewer.render.words import KindWords

__all__ = ["TREE_BOX_KIND", "has_fit_choice", "kind_words", "pair_noun", "separation_text",
           "volume_noun"]


def kind_words(key: str | None) -> KindWords:
    """The words of registry kind ``key`` (None: the tree's own boxes, :data:`TREE_BOX_KIND`,
    which self-collision and a frame without volumes traverse)."""
    kind = get_kind(key or TREE_BOX_KIND)
    return KindWords(kind.noun, kind.noun_plural, kind.pair_noun, kind.separating_test)


def volume_noun(key: str | None, plural: bool = False) -> str:
    """What one volume of ``key`` is called ("box", "oriented box", "14-DOP", "capsule");
    ``plural`` gives "boxes", "14-DOPs", ...."""
    words = kind_words(key)
    return words.plural if plural else words.noun


def pair_noun(key: str | None) -> str:
    """A pair of volumes of ``key`` in a sentence: "box pairs", "rounded-rectangle pairs"."""
    return kind_words(key).pairs


def separation_text(key: str | None, sep_id: int) -> str:
    """Which test of kind ``key`` separated a culled pair (``sep_id``, the trace's id; -1 =
    the pair overlapped), in the kind's words."""
    return kind_words(key).separation(sep_id)


def has_fit_choice(key: str) -> bool:
    """Whether kind ``key`` offers a choice of fit (the OBB fit combo applies to it)."""
    return key in BV_KINDS and BV_KINDS[key].has_fit_choice
