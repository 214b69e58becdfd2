"""The two meshes of ``contacts`` and ``distance``, loaded and posed as the options say."""

from __future__ import annotations

import math

import numpy as np


def check_options(args) -> None:
    """Refuse a value no query can use (B's pose, leaf size, the partition's and the
    report's limits): one line naming the option."""
    if not math.isfinite(args.scale_b) or args.scale_b <= 0.0:
        raise ValueError(f"--scale-b must be a positive number, got {args.scale_b}")
    if args.leaf_size < 1:
        raise ValueError(f"--leaf-size must be at least 1, got {args.leaf_size}")
    if not all(math.isfinite(x) for x in args.translate_b):
        raise ValueError("--translate-b needs three finite numbers")
    if args.rotate_b is not None:
        if not all(math.isfinite(x) for x in args.rotate_b):
            raise ValueError("--rotate-b needs four finite numbers")
        if not any(args.rotate_b[:3]):
            raise ValueError("--rotate-b axis must not be zero")
    cell_size = getattr(args, "cell_size", None)
    if cell_size is not None and not (math.isfinite(cell_size) and cell_size > 0.0):
        raise ValueError(f"--cell-size must be a positive number, got {cell_size}")
    for option, least in (("max_depth", 0), ("capacity", 1), ("max_pairs", 0),
                          ("pair_budget", 1)):  # fmt: skip
        value = getattr(args, option, None)
        if value is not None and value < least:
            name = "--" + option.replace("_", "-")
            raise ValueError(f"{name} must be at least {least}, got {value}")


def load_posed(args, tree_files=(None, None)):
    """Both meshes as loaded, B's pose, and the trees read from ``tree_files`` (one path or
    None per body); B's scale is moved into its vertices and its tree's boxes.

    The queries apply a pose's scale the same way (:func:`core.collide.query.rigid_body`);
    doing it here once keeps the report's triangle counts and bounds those of the scaled B.
    A tree file is read over the mesh as loaded (its boxes are in the file's coordinates).

    Returns
    -------
    mesh_a, mesh_b : TriMesh
    pose_b : Pose
        Rigid.
    trees : [Tree or None, Tree or None]
        With ``tree_files``: each body's tree from its file (B's scaled), else None.
    imported : [ImportedTree or None, ImportedTree or None]
        The files as read (their ``file_ids`` name the nodes).
    """
    from core.collide.query import rigid_body
    from core.io import load_mesh
    from core.mesh import check_coordinate_bound
    from core.pose import Pose, rotation_matrix

    check_options(args)
    mesh_a = load_mesh(args.mesh_a)
    mesh_b = load_mesh(args.mesh_b)
    rot = np.eye(3)
    if args.rotate_b is not None:
        rot = rotation_matrix(args.rotate_b[:3], math.radians(args.rotate_b[3]))
    pose_b = Pose(rot, np.array(args.translate_b), args.scale_b)
    check_coordinate_bound(mesh_a, str(args.mesh_a))
    check_coordinate_bound(mesh_b, str(args.mesh_b), pose_b)
    imported = [None, None]
    if any(path is not None for path in tree_files):
        from core.bvh.tree_formats import read_any_tree

        imported = [None if path is None else read_any_tree(path, mesh)
                    for path, mesh in zip(tree_files, (mesh_a, mesh_b))]  # fmt: skip
    tree_b = None if imported[1] is None else imported[1].tree
    mesh_b, tree_b, pose_b = rigid_body(mesh_b, tree_b, pose_b)
    trees = [None if imported[0] is None else imported[0].tree, tree_b]
    return mesh_a, mesh_b, pose_b, trees, imported

