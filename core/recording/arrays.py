"""The numpy arrays a frame holds, each once.

Frames share most of their memory: a body that only moves keeps its vertex array, faces are
one array for the whole run, and a tree that was not refitted is the same object frame after
frame. Walking a frame's plain-data graph (dataclasses, named tuples, lists, dicts) and
keeping arrays by identity is what lets a recording count its bytes honestly and save each
array once.
"""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from core.frame_volumes import TreeBoxRows


def owning_array(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory (itself unless it is a view of another)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def frame_arrays(obj) -> list[np.ndarray]:
    """Distinct (by identity) numpy arrays reachable from ``obj``, in a stable walk order.

    Parameters
    ----------
    obj : Frame or any part of one
        Dataclasses, tuples (named or not), lists, dicts and :class:`TreeBoxRows` are walked;
        numbers, strings, enums and None hold no array.

    Returns
    -------
    list of numpy.ndarray
        Views are listed as themselves (what a file must store); see :func:`owning_array`
        for what they keep in memory.
    """
    found: dict[int, np.ndarray] = {}
    seen: set[int] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, np.ndarray):
            found.setdefault(id(item), item)
            continue
        if item is None or isinstance(item, (str, bytes, int, float, bool, enum.Enum,
                                             np.generic)):
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, TreeBoxRows):
            children = item._boxes
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            children = [getattr(item, f.name) for f in dataclasses.fields(item)]
        elif isinstance(item, (list, tuple)):
            children = item
        elif isinstance(item, dict):
            children = list(item.values())
        else:
            continue
        stack.extend(reversed(list(children)))
    return list(found.values())
