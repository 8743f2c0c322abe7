"""A tiny sweep runner for orchestration tests: deterministic in the point seed."""
import os
import time

import numpy as np
import xarray as xr


def run(spec, point):
    if point["values"].get("fail") == "always":
        raise RuntimeError("this point always fails")
    time.sleep(float(os.environ.get("SIMCORE_TEST_POINT_SLEEP", "0")))
    rng = np.random.default_rng(point["seed"])
    scale = float(point["values"].get("scale", 1.0))
    return xr.Dataset({"grade": (("replicate", "player"), scale * rng.normal(size=(spec["replicates"], 5)))},
                      coords={"replicate": np.arange(spec["replicates"]), "player": np.arange(5)})
