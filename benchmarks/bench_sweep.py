"""Sweep overhead: a LocalCluster sweep of tiny engine points against running them in a loop."""
import tempfile

from simcore.engine import sweep as sw


def _spec():
    return sw.spec_from_dict({"name": "bench", "scenario": "default", "schemes": ["ngs"], "years": 0.1,
                              "replicates": 1, "seed": 1, "seeds": 4}, "bench")


class Sweep:
    timeout = 300

    def setup(self):
        self.spec = _spec()
        sw.run_point(self.spec.to_dict(), sw.expand(self.spec)[0].to_dict())

    def time_four_points_in_a_loop(self):
        for p in sw.expand(self.spec):
            sw.run_point(self.spec.to_dict(), p.to_dict())

    def time_four_points_on_a_local_cluster(self):
        with tempfile.TemporaryDirectory() as out:
            sw.sweep(self.spec, out, workers=2, progress=False)
