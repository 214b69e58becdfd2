"""The panels inside the docks, one module per dock (:mod:`viewer.qt.docks` wraps each in its
dock widget)."""
