"""The panels inside the docks, one module per dock (:mod:`viewer.qt.panels.docks` wraps each in its
dock widget)."""
