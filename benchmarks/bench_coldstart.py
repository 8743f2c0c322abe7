"""Cold start: ``simcore run --years 0.1 --no-figures`` with an empty kernel cache, then again.

Each run is a subprocess with ``SIMCORE_CACHE_DIR`` set to a fresh empty
folder (the kernel cache, see ``simcore._jit``), so the first compiles every
kernel it uses and the second loads them.  Targets (issue 18): the first run
< 20 s (after ``pip install .``; here the working tree asv imports), the
second < 2 s of overhead beyond the simulation (its wall minus the engine
seconds the run reports).
"""
import shutil
import tempfile

from ._runs import SOURCE_ROOT, run_simcore  # noqa: F401


class ColdStart:
    timeout = 1800
    number = 1
    repeat = 1

    def setup_cache(self):
        import json
        cache = tempfile.mkdtemp(prefix="simcore-cold-cache-")
        out = tempfile.mkdtemp(prefix="simcore-cold-out-")
        try:
            args = ["run", "--years", "0.1", "--no-figures", "--json", "--overwrite", "--outdir", out]
            cold = run_simcore(args, env={"SIMCORE_CACHE_DIR": cache, "NUMBA_CACHE_DIR": cache})
            warm = run_simcore(args, env={"SIMCORE_CACHE_DIR": cache, "NUMBA_CACHE_DIR": cache})
        finally:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
        engine = json.loads(warm["stdout"])["run"]["wall_seconds"]
        return {"cold": cold["wall_seconds"], "warm": warm["wall_seconds"], "warm_overhead": warm["wall_seconds"] - engine}

    def track_cold_run_seconds(self, m):
        return m["cold"]
    track_cold_run_seconds.unit = "seconds"

    def track_warm_run_seconds(self, m):
        return m["warm"]
    track_warm_run_seconds.unit = "seconds"

    def track_warm_overhead_seconds(self, m):
        return m["warm_overhead"]
    track_warm_overhead_seconds.unit = "seconds"
