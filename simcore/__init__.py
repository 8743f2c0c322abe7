"""simcore: a simulator of grading schemes for duplicate bridge.

Data flows one way, one module (or package) per stage:

    scenario → world → movements → bridge_model → scoring → schemes → metrics
    (scenario.py, world.py, movements/, bridge_model.py, scoring.py,
     schemes/, metrics.py)  →  xarray Dataset  →  plots / reports

``results.py`` holds the data model every stage shares; ``bundle.py`` reads
and writes it as CSV; ``engine.py`` runs the whole pipeline for many
replicates; ``sweep.py`` runs grids of runs on dask.
"""

__version__ = "0.1.0"
