"""simcore import on a national year of club sessions: ~20 000 USEBIO files.

The files are written once (``setup_cache``) by the test helper
``tests/import_fixtures.usebio_from_bundle`` from one simulated year of the
``national`` scenario (match-pointed Mitchell and Howell club sessions, one
file each, published percentages from the plain-Python scorer).  The issue's
target: the whole import under a minute on the 2-core machine.
"""
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


class ImportNationalYear:
    timeout = 3600
    number = 1
    repeat = 1

    def setup_cache(self):
        from import_fixtures import usebio_from_bundle

        from simcore.engine import run
        root = Path(tempfile.mkdtemp(prefix="simcore-bench-import-"))
        run("national", schemes=("ppi",), years=1.0, seed=1, bundle=root / "bundle")
        written = usebio_from_bundle(root / "bundle", root / "usebio", limit=20000)
        return str(root / "usebio"), written

    def setup(self, cache):
        self.out = Path(tempfile.mkdtemp(prefix="simcore-bench-import-out-")) / "bundle"

    def teardown(self, cache):
        shutil.rmtree(self.out.parent, ignore_errors=True)

    def time_import_usebio_year(self, cache):
        from simcore.io.importer import import_paths
        import_paths([cache[0]], self.out)

    def track_files(self, cache):
        return cache[1]
    track_files.unit = "files"
