"""Peer collision libraries timed next to the core, behind one small interface.

Every adapter builds its own model from the same ``(n, 3) float64`` vertices and
``(m, 3) int32`` faces (once, the fair way: vertices + triangles in one call), and answers a
query with the set of contacting triangle pairs, so its contact set can be compared with ours.
An adapter whose library is not importable is simply left out of the run.
"""

from __future__ import annotations

import abc
import importlib

import numpy as np


class PeerAdapter(abc.ABC):
    """One peer library (and one bounding-volume kind of it).

    Attributes
    ----------
    name : str
        Column label in the table, e.g. ``"coal-AABB"``.
    refit_note : str
        How the adapter updates a deformed model: the binding call it uses for a refit, or
        why it must rebuild.
    can_refit : bool
        Whether :meth:`refit` is available through the Python binding.
    must_agree : bool
        The run stops (``benchmarks.compare.ContactsDisagree``) when this peer's contact set
        differs from ours by a pair that does not touch.
    has_thread_pool : bool
        The library keeps worker threads of its own that stay busy after a call returns, so
        it is not timed in turns with ours (``benchmarks.timing.measure_alternating``).
    """

    name: str = "peer"
    refit_note: str = "rebuild only"
    can_refit: bool = False
    must_agree: bool = False
    has_thread_pool: bool = False

    def new_model(self) -> object | None:
        """Untimed set-up of an empty model for :meth:`build` (``None`` when not needed)."""
        return None

    @abc.abstractmethod
    def build(self, vertices: np.ndarray, faces: np.ndarray, model: object | None = None) -> object:
        """Build a model (its bounding-volume tree) from scratch: the timed build phase.

        Parameters
        ----------
        vertices : (n, 3) float64
        faces : (m, 3) int32
        model : object, optional
            An empty model from :meth:`new_model`, so its set-up stays out of the timing.

        Returns
        -------
        object
            The peer's model, opaque to the caller.
        """

    def frame_model(self, vertices: np.ndarray, faces: np.ndarray, model: object | None) -> object:
        """The model of a deformed mesh when the peer rebuilds every frame (W3).

        Defaults to :meth:`build`; a peer whose query builds its own tree overrides it.

        Parameters
        ----------
        vertices : (n, 3) float64
        faces : (m, 3) int32
        model : object or None
            From :meth:`new_model`.
        """
        return self.build(vertices, faces, model)

    def refit(self, model: object, vertices: np.ndarray) -> object:
        """Move the model's vertices and refit its boxes, keeping the tree topology.

        Parameters
        ----------
        model : object
            A model returned by :meth:`build` with the same vertex count.
        vertices : (n, 3) float64

        Returns
        -------
        object
            The refitted model (may be the same object).
        """
        raise NotImplementedError(f"{self.name}: {self.refit_note}")

    def prepare_vertices(self, vertices: np.ndarray) -> object:
        """Convert vertices to what :meth:`refit` takes (binding-specific marshalling).

        Parameters
        ----------
        vertices : (n, 3) float64

        Returns
        -------
        object
        """
        return vertices

    @abc.abstractmethod
    def query(
        self, model_a: object, pose_a: np.ndarray, model_b: object, pose_b: np.ndarray
    ) -> object:
        """Run the all-contacts query; returns a raw handle for :meth:`pairs`.

        Only this call is timed as the peer's query phase; converting the library's contact
        records to an array happens in :meth:`pairs`, outside the timed region.

        Parameters
        ----------
        model_a, model_b : object
            Models from :meth:`build`.
        pose_a, pose_b : (4, 4) float64
            World poses (homogeneous matrices) of the two models.
        """

    @abc.abstractmethod
    def pairs(self, raw: object) -> np.ndarray:
        """Contacting triangle pairs of a query result.

        Parameters
        ----------
        raw : object
            What :meth:`query` returned.

        Returns
        -------
        (c, 2) int32
            Unique ``(face of A, face of B)`` pairs, sorted lexicographically.
        """


def unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """Sort and deduplicate triangle pairs.

    Parameters
    ----------
    pairs : (c, 2) array_like of int

    Returns
    -------
    (u, 2) int32
    """
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if p.shape[0] == 0:
        return np.zeros((0, 2), dtype=np.int32)
    return np.unique(p, axis=0).astype(np.int32)


# module, class, constructor keyword arguments
_REGISTRY: tuple[tuple[str, str, dict], ...] = (
    ("benchmarks.peers.fcl_peer", "FclPeer", {}),
    ("benchmarks.peers.coal_peer", "CoalPeer", {"bv": "OBBRSS"}),
    ("benchmarks.peers.coal_peer", "CoalPeer", {"bv": "AABB"}),
    ("benchmarks.peers.vtk_peer", "VtkPeer", {}),
    ("benchmarks.peers.warp_peer", "WarpPeer", {}),
    ("benchmarks.peers.meshlib_peer", "MeshlibPeer", {}),
    ("benchmarks.peers.libigl_peer", "LibiglPeer", {}),
)


def is_left_out(name: str, skip: tuple[str, ...]) -> bool:
    """Whether ``--skip-peers``' names and prefixes ``skip`` leave out the peer ``name``
    (``"coal"`` leaves out ``coal-OBBRSS`` and ``coal-AABB``)."""
    return any(name.startswith(s) for s in skip)


def available_peers(skip: tuple[str, ...] = ()) -> tuple[list[PeerAdapter], dict[str, str]]:
    """Instantiate every peer whose library imports.

    Parameters
    ----------
    skip : tuple of str
        Peer names (or name prefixes such as ``"coal"``) to leave out.

    Returns
    -------
    peers : list of PeerAdapter
    missing : dict of str to str
        Peer module -> reason it was left out.
    """
    peers: list[PeerAdapter] = []
    missing: dict[str, str] = {}
    for module_name, class_name, kwargs in _REGISTRY:
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
            peer = cls(**kwargs)
        except ImportError as exc:
            missing[f"{module_name}{kwargs or ''}"] = str(exc)
            continue
        if is_left_out(peer.name, skip):
            continue
        peers.append(peer)
    return peers, missing
