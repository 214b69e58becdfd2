"""How the core's numba kernels are compiled, cached and called.

- :mod:`core.jit.numba_cache`: where numba keeps the machine code (one directory per version
  of the core's sources) and the lock around its saves; ``import core`` sets it up.
- :mod:`core.jit.warmup`: ``python -m core warmup``, compiling every kernel once.
- :mod:`core.jit.interpreted`: kernels run as Python while their machine code is not compiled.
- :mod:`core.jit.kernel_args`: arrays as the kernels receive them (read-only, C-contiguous).

Nothing here imports a kernel at import time: ``core/__init__.py`` imports
:mod:`core.jit.numba_cache` before any kernel is decorated.
"""
