"""simcore: a simulator of grading schemes for duplicate bridge.

Data flows one way, one module (or package) per stage:

    scenario → world → movements → bridge_model → scoring → schemes → metrics
    (scenario.py, world.py, movements/, bridge_model.py, scoring.py,
     schemes/, metrics.py)  →  xarray Dataset  →  plots / reports

``results.py`` holds the data model every stage shares; ``bundle.py`` reads
and writes it as CSV; ``engine.py`` runs the whole pipeline for many
replicates; ``sweep.py`` runs grids of runs on dask.

``simcore.run(scenario, schemes=..., replicates=R, years=Y, seed=S)``
returns the labelled Dataset; ``simcore.sweep(spec, out)`` runs a sweep.
"""

__version__ = "0.1.0"

__all__ = ["run", "sweep", "__version__"]


def __getattr__(name):
    # imported on first use, so ``simcore --help`` does not load numba
    if name == "run":
        from simcore.engine import run
        return run
    if name == "sweep":
        from simcore.engine.sweep import sweep
        return sweep
    raise AttributeError(f"module 'simcore' has no attribute {name!r}")
