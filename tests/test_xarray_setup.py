"""xarray as simcore sets it up (``simcore._xarray``): its probe for dask arrays is lazy and still right."""

import subprocess
import sys

_CODE = """
import sys
import numpy as np
from simcore._xarray import xr
ds = xr.Dataset({"grade": (("time", "player"), np.arange(6.0).reshape(2, 3))}, coords={"player": [3, 5, 8]})
(ds.grade.mean("time") + 1).values
assert "dask.array" not in sys.modules, "building a Dataset from numpy arrays imported dask.array"
import dask
import dask.array as da
from xarray.namedarray.pycompat import array_type, mod_version
assert array_type("dask") == (da.Array,)
masked = da.ma.masked_array(da.from_array(np.arange(4.0)), mask=[False, True, False, False])
v = xr.Variable(("x",), masked)  # xarray fills a masked dask array's masked values with NaN
assert isinstance(v.data, da.Array)
got = v.values
assert np.isnan(got[1]) and list(got[[0, 2, 3]]) == [0.0, 2.0, 3.0], got
assert str(mod_version("dask")) == dask.__version__
"""


def test_a_dataset_of_numpy_arrays_does_not_import_dask_array_and_dask_arrays_still_work():
    # a fresh process: another test may have imported dask.array already
    subprocess.run([sys.executable, "-c", _CODE], check=True)
