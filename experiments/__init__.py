"""The studies users come for, one module each.

Every study is ``run(out: Path, quick: bool, seed: int) -> dict``: it runs the
simulations it needs, writes its data (netCDF / CSV), figures (PNG) and a
short ``report.md`` to ``out`` and returns its headline figures.  Every
figure carries its 95 % interval over replicates (``_report.ci``/``paired``,
built on ``simcore.metrics.intervals``), and every report states the world
assumptions it ran with.  Run one
with ``simcore experiment NAME [--quick] [--out DIR] [--seed S]``.

* ``scheme-variants`` — the four schemes and their documented variants on
  the default county, ranked by accuracy (``scheme_variants.py``);
* ``diffusion`` — isolated clubs, then mixing at several rates: how fast
  each scheme closes the club gaps (``diffusion.py``);
* ``aces-eights`` — near-exclusive partnerships and triangles: spurious grade
  gaps, with and without RPCF (``aces_eights.py``);
* ``decay`` — exponential versus straight-line (and rectangle, trapezium)
  decay matched fairly, and the seeds' half-life claims (``decay.py``);
* ``claims`` — the other quantitative claims of the seeds, reproduced or
  refuted (``claims.py``);
* ``frontier`` — every scheme against the offline whole-history ceiling:
  accuracy-volatility, gap to the ceiling, club bias after mixing,
  Aces-and-Eights, step response, peers and cost (``frontier.py``);
* ``sensitivity`` — the headline figures as curves over the world's
  assumptions (partner correlation, form, partnership bonus, spread of true
  strength, mixing): which conclusions hold everywhere (``sensitivity.py``).
"""

STUDIES = {
    "scheme-variants": "experiments.scheme_variants",
    "diffusion": "experiments.diffusion",
    "aces-eights": "experiments.aces_eights",
    "decay": "experiments.decay",
    "claims": "experiments.claims",
    "frontier": "experiments.frontier",
    "sensitivity": "experiments.sensitivity",
}
