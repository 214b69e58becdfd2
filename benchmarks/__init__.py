"""Benchmarks: the core against peer libraries, timed in the same run.

``python -m benchmarks`` (``make bench``) runs three workloads on pyvista spheres of 10k,
100k and 500k triangles per mesh and prints a table of medians with ours/best-peer ratios
and the project's performance targets:

* W1 rigid overlap (``w1_rigid``): build, query fast and trace;
* W2 parallel close proximity (``w2_proximity``): BV tests and time per gap;
* W3 deformable (``w3_deform``): refit + query and rebuild + query per frame.

Peers (``peers/``): python-fcl, coal (OBBRSS and AABB) and VTK's collision filter, each
used only when importable. Performance is measured here, never asserted in unit tests.
"""
