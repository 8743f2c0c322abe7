"""xarray as simcore uses it, set up in one place (as ``_jit`` holds numba's flags): ``xr``, the module.

One process-wide setting: xarray's probe for dask arrays is made lazy.  Every
Variable built from a numpy array asks whether its data is a masked dask
array, and to know dask's array class xarray imports ``dask.array`` when dask
is installed: ~0.3 s of CPU (idle machine), spent in the serial stretch after
a run while its Dataset is built (``engine.dataset``), and never needed when
no dask array exists.  No object can be a dask array before ``dask.array`` is
imported, so ``_LazyDaskProbe`` answers "no such class" until then and gives
the real class after (a process that makes dask arrays has imported it);
whatever else xarray asks of the probe (the module, its version, whether it
is available) comes from xarray's own probe, made then, which takes the
probe's place.  The probe is only replaced when xarray keeps it where this
version does (``xarray.namedarray.pycompat._cached_duck_array_modules``) and
dask.array is not imported yet.
"""

from __future__ import annotations

import sys

import xarray as xr

__all__ = ["xr"]


class _LazyDaskProbe:
    """Stands for xarray's ``DuckArrayModule("dask")`` until something asks more than its array type."""

    def __init__(self, cache: dict, probe_class):
        self._cache = cache
        self._probe_class = probe_class

    @property
    def type(self) -> tuple:
        array = sys.modules.get("dask.array")
        cls = getattr(array, "Array", None)  # None while dask.array is still being imported
        return () if cls is None else (cls,)

    def __getattr__(self, name):
        probe = self._cache["dask"] = self._probe_class("dask")
        return getattr(probe, name)


def _make_dask_probe_lazy() -> bool:
    """Put ``_LazyDaskProbe`` in xarray's probe cache; False (nothing done) where it does not apply."""
    try:
        from xarray.namedarray import pycompat
        cache, probe_class = pycompat._cached_duck_array_modules, pycompat.DuckArrayModule
    except (ImportError, AttributeError):
        return False
    if not isinstance(cache, dict) or "dask" in cache or "dask.array" in sys.modules:
        return False
    cache["dask"] = _LazyDaskProbe(cache, probe_class)
    return True


_make_dask_probe_lazy()
