"""Golden results: a small run and a bundle replay must stay bit-identical.

The files under ``tests/data/golden/`` were written by this module
(``python3 tests/test_golden.py --write``) before a refactor; a refactor that
changes any number fails here.  A change that is *meant* to change results
(a new default, a new random-number order) rewrites them with ``--write`` and
says why in its commit.

The run goes through the public API (``simcore.run``) and the replay through
the ``simcore grade`` command, so the test does not depend on where inside
the package anything lives.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
GOLDEN = HERE / "data" / "golden"
BUNDLE = HERE / "data" / "bundle_small"
CARD_PLAY = HERE / "data" / "card_play_small"

RUN = dict(scenario="default", years=1, replicates=2, seed=20261124, threads=2)
# one variant per scheme, each parameter spelt out, so a change of a scheme's default does not
# silently change what the golden file means
RUN_SCHEMES = "ngs(gain=1),ppi,elo-pairs,imps-lost"
GRADE_SCHEMES = {"ngs": ("ngs", BUNDLE, ["--set", "gain=1"]), "ppi": ("ppi", BUNDLE, []),
                 "elo-pairs": ("elo-pairs", BUNDLE, []), "imps-lost": ("imps-lost", CARD_PLAY, [])}


def _run_dataset():
    import simcore
    return simcore.run(RUN["scenario"], schemes=RUN_SCHEMES, years=RUN["years"], replicates=RUN["replicates"],
                       seed=RUN["seed"], threads=RUN["threads"])


def _grade(name: str, out: Path) -> Path:
    from simcore.cli import main
    scheme, source, extra = GRADE_SCHEMES[name]
    path = out / f"grade_{name}.csv"
    rc = main(["grade", str(source), "--scheme", scheme, *extra, "--out", str(path)])
    assert rc == 0
    return path


def _comparable(ds):
    """The Dataset without attributes that name the code version or the call."""
    ds = ds.copy()
    ds.attrs = {k: v for k, v in ds.attrs.items() if k in ("scenario", "seed", "replicates")}
    return ds


def write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    ds = _comparable(_run_dataset())
    encoding = {v: {"zlib": True, "complevel": 4} for v in ds.data_vars}
    ds.to_netcdf(GOLDEN / "run_default_1y_2r.nc", engine="h5netcdf", encoding=encoding)
    for name in GRADE_SCHEMES:
        _grade(name, GOLDEN)
    print(f"wrote {GOLDEN}")


@pytest.fixture(scope="module")
def golden_run():
    import xarray as xr
    with xr.open_dataset(GOLDEN / "run_default_1y_2r.nc", engine="h5netcdf") as ds:
        return ds.load()


def test_run_is_bit_identical_to_the_golden_file(golden_run):
    ds = _comparable(_run_dataset())
    expected = golden_run
    assert sorted(ds.data_vars) == sorted(expected.data_vars)
    assert dict(ds.sizes) == dict(expected.sizes)
    for name in expected.data_vars:
        a, b = np.asarray(ds[name].values), np.asarray(expected[name].values)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)  # NaN == NaN, every bit of every float
    for name in expected.coords:
        np.testing.assert_array_equal(np.asarray(ds[name].values), np.asarray(expected[name].values),
                                      err_msg=name)
    assert ds.attrs["scenario"] == expected.attrs["scenario"]


@pytest.mark.parametrize("name", sorted(GRADE_SCHEMES))
def test_grade_is_identical_to_the_golden_file(name, tmp_path):
    got = _grade(name, tmp_path).read_text()
    want = (GOLDEN / f"grade_{name}.csv").read_text()
    assert list(csv.reader(got.splitlines())) == list(csv.reader(want.splitlines()))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python3 tests/test_golden.py --write")
    sys.path.insert(0, str(HERE.parent))
    write()
