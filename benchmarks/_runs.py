"""Shared helper: run ``python -m simcore ...`` in a subprocess; wall seconds and peak memory.

The subprocess runs the simcore that this process imported (its source folder
is the working directory), so asv times the code it benchmarks.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import simcore

SOURCE_ROOT = Path(simcore.__file__).resolve().parents[1]


def run_simcore(args, env=None, timeout=3600) -> dict:
    """{"wall_seconds", "peak_gb" (the child's maximum resident set), "stdout"}; raises on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "simcore", *args], cwd=SOURCE_ROOT, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"simcore {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB, the largest child so far
    if peak <= before:
        peak = float("nan")  # an earlier, larger child masks this one: no figure rather than a wrong one
    return {"wall_seconds": wall, "peak_gb": peak / 1e6, "stdout": proc.stdout}


def run_scenario(scenario: str, years: float) -> dict:
    """``simcore run SCENARIO --years Y --no-figures --json`` into a temporary folder: wall, peak, engine seconds."""
    with tempfile.TemporaryDirectory(prefix="simcore-bench-") as tmp:
        out = run_simcore(["run", scenario, "--years", str(years), "--no-figures", "--json", "--outdir",
                           str(Path(tmp) / "out")])
    summary = json.loads(out["stdout"])
    out["engine_seconds"] = summary["run"]["wall_seconds"]
    out["player_boards"] = summary["run"]["player_boards"]
    return out
