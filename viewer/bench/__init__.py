"""The viewer measured: the headless frame-rate benchmark (``python -m viewer --benchmark``),
the real window's interactive benchmark (``--benchmark SCENE --interactive``) and the soak
(``--soak N``). Tools on top of the app: nothing else in the viewer imports them."""
