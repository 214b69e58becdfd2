"""Run the core's kernels as plain Python while their machine code is not compiled yet.

A first start compiles about 200 numba kernels before the first frame can be computed
(measured 133 s on two cores for the default scene). While that compile runs in the
background (``python -m core warmup --progress``), :func:`start` makes every kernel of the
core that has no machine code yet run its Python source instead: numba's dispatcher calls
``_compile_for_args`` when no compiled version matches the arguments, and the patched one
returns the kernel's ``py_func`` (the dispatcher then calls it with the same arguments), so
calls from the interpreted body to other kernels take the same route. This is numba's own
``NUMBA_DISABLE_JIT`` mode, switched per call instead of per process. The default scene's
first frame takes about 0.4 s this way.

Each time the background compile reports progress, :func:`note_cache_grew` makes every
kernel look once more in the on-disk cache before it runs interpreted: a kernel found there
is loaded (milliseconds) and runs compiled from then on, so frames speed up as the compile
goes. :func:`stop` restores numba's behaviour (compile or load on first call).
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_state = {"is_interpreting": False, "generation": 0, "n_interpreted": 0, "n_loaded": 0}
_original_compile_for_args = None

#: The attribute each dispatcher keeps the cache generation it last looked at under.
_PROBED = "_bvh_lab_probed_generation"


def _is_ours(dispatcher) -> bool:
    module = getattr(dispatcher.py_func, "__module__", "") or ""
    return module == "core" or module.startswith("core.")


def _load_cached(dispatcher, args):
    """The kernel's machine code for ``args`` from the on-disk cache, or None.

    The same steps as numba's ``Dispatcher.compile`` before it compiles (load, register the
    function, add the overload), under numba's compiler lock.
    """
    from numba.core.compiler_lock import global_compiler_lock

    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    with global_compiler_lock:
        existing = dispatcher.overloads.get(sig)
        if existing is not None:
            return existing.entry_point
        cres = dispatcher._cache.load_overload(sig, dispatcher.targetctx)
        if cres is None:
            return None
        if not cres.objectmode:
            dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                      [cres.library])
        dispatcher.add_overload(cres)
        return cres.entry_point


def _compile_for_args(self, *args, **kws):
    if not _state["is_interpreting"] or not _is_ours(self) or kws:
        return _original_compile_for_args(self, *args, **kws)
    generation = _state["generation"]
    if getattr(self, _PROBED, -1) != generation:
        # Look in the cache once per report of the background compile, not on every call:
        # an interpreted kernel's helpers are called millions of times.
        setattr(self, _PROBED, generation)
        try:
            entry = _load_cached(self, args)
        except Exception:  # noqa: BLE001 - an unreadable entry: numba recompiles it later
            entry = None
        if entry is not None:
            _state["n_loaded"] += 1
            return entry
    _state["n_interpreted"] += 1
    return self.py_func


def _install() -> None:
    global _original_compile_for_args
    from numba.core.dispatcher import Dispatcher

    if _original_compile_for_args is None:
        _original_compile_for_args = Dispatcher._compile_for_args
        Dispatcher._compile_for_args = _compile_for_args


def start() -> None:
    """Run kernels without machine code as Python until :func:`stop` (idempotent)."""
    with _lock:
        _install()
        _state["is_interpreting"] = True
        _state["generation"] += 1


def note_cache_grew() -> None:
    """The background compile saved more kernels: each looks in the cache once more."""
    with _lock:
        _state["generation"] += 1


def stop() -> None:
    """Compile (or load from the cache) on first call again, numba's own behaviour."""
    with _lock:
        _state["is_interpreting"] = False


def is_interpreting() -> bool:
    """Whether kernels without machine code run as Python now."""
    return bool(_state["is_interpreting"])


def counts() -> dict[str, int]:
    """How many kernel calls ran interpreted, and how many kernels were loaded on the way."""
    return {"interpreted": _state["n_interpreted"], "loaded": _state["n_loaded"]}
