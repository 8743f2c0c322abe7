"""simcore: a simulator of grading schemes for duplicate bridge.

Data flows one way, one module (or package) per stage:

    scenario → world → movements → bridge_model → scoring → schemes → metrics
    (scenario.py, world.py, movements/, bridge_model.py, scoring.py,
     schemes/, metrics.py)  →  xarray Dataset  →  plots / reports

``results.py`` holds the data model every stage shares; ``bundle.py`` reads
and writes it as CSV; ``engine.py`` runs the whole pipeline for many
replicates; ``sweep.py`` runs grids of runs on dask.

``simcore.run(scenario, schemes=..., replicates=R, years=Y, seed=S)``
returns the labelled Dataset; ``simcore.sweep(spec, out)`` runs a sweep;
``simcore.compare(scenario, schemes, replicates=N)`` compares variants with
intervals over replicates and paired differences.
"""

import os as _os

__version__ = "0.1.0"


def kernel_cache_dir() -> str:
    """The folder numba caches compiled kernels in, shared by every way of running simcore.

    ``$NUMBA_CACHE_DIR`` if set; else ``$SIMCORE_CACHE_DIR``; else
    ``$XDG_CACHE_HOME/simcore`` (``~/.cache/simcore``), in a subfolder per
    numba version and per simcore source (a digest of every module outside
    ``cli/``).  numba keys a cached kernel by its own file's path and time
    stamp only, so a kernel whose file is unchanged would keep running the
    old code of a helper, or of a module-level constant, from another file
    that did change (e.g. ``simulate/play.py`` inlines ``bridge/model.py``);
    a folder per source means any change compiles afresh.  Kernels still
    compile once for ``python3 -m simcore`` from a checkout and the
    installed ``simcore`` command alike when their sources are the same, and
    no cache files land in the source tree.  Folders of older sources are
    left in place (delete ``~/.cache/simcore`` to reclaim the space).
    """
    if _os.environ.get("NUMBA_CACHE_DIR"):
        return _os.environ["NUMBA_CACHE_DIR"]
    from importlib.metadata import PackageNotFoundError, version
    try:
        numba_version = version("numba")
    except PackageNotFoundError:
        numba_version = "unknown"
    base = _os.environ.get("SIMCORE_CACHE_DIR") or _os.path.join(
        _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache"), "simcore")
    return _os.path.join(base, f"numba-{numba_version}", _source_digest())


def _source_digest() -> str:
    """16 hex digits of SHA-1 over every module's path and bytes, entry points (``cli/``) left out (~5 ms)."""
    import hashlib
    from pathlib import Path
    root = Path(__file__).parent
    h = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("cli/"):
            continue
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


# before numba is imported (numba reads its configuration on import); worker processes inherit it
_os.environ["NUMBA_CACHE_DIR"] = kernel_cache_dir()
# numba builds a message, with colorama's terminal markup, for every typing attempt that fails while
# it resolves overloads (thousands in a first run, most never shown): plain text is cheaper.  About
# 0.8 s of the warm-up child's ~33 s CPU (loaded, 2 runs against 4), ~2 % of compile time in a profile.
_os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

__all__ = ["run", "sweep", "compare", "__version__", "kernel_cache_dir"]


def __getattr__(name):
    # imported on first use, so ``simcore --help`` does not load numba
    if name == "run":
        from simcore.engine import run
        return run
    if name == "compare":
        from simcore.engine.compare import compare
        return compare
    if name == "sweep":
        from simcore.engine.sweep import sweep
        return sweep
    raise AttributeError(f"module 'simcore' has no attribute {name!r}")
