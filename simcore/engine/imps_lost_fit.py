"""Fit IMPs-lost's rating → grade-point map on a training run.

IMPs-lost rates card play, not results: its rating is a number of rating
points, and the grade a reader compares with other schemes' grades needs a
map to grade points.  Rather than inverting the simulator's own card-play
generator (which would read the answer off the world), the map is the
least-squares line from rating to true strength over the graded players
(``metrics.graded_mask``: active members with at least 300 boards) at the
last snapshot of one training run:

    TRAINING = default scenario, seed 1, 3 years, 1 replicate

Refit (prints the coefficients to store as ``imps_lost.Params`` defaults
``grade_at`` and ``rating_per_grade``)::

    python3 -m simcore.engine.imps_lost_fit

The fit reads the world's assumptions (card play's correlation with true
strength, its spread, the card-play rate model): a world with other
assumptions calls for a refit.  Report on other scenarios and seeds.
"""

from __future__ import annotations

import numpy as np

TRAINING = {"scenario": "default", "seed": 1, "years": 3.0, "replicates": 1}
"""The training run the stored coefficients come from."""


def fit(scenario=TRAINING["scenario"], seed=TRAINING["seed"], years=TRAINING["years"],
        replicates=TRAINING["replicates"]) -> dict:
    """Run IMPs-lost on the training run and fit its map: {grade_at, rating_per_grade, grade_rating, n}."""
    from simcore.engine import run
    from simcore.metrics import graded_mask
    from simcore.schemes import scheme_name_of
    from simcore.schemes.imps_lost import ImpsLostScheme, Params, fit_grade_map, grade_to_rating

    p = Params()
    ds = run(scenario, scheme_name_of(ImpsLostScheme), replicates=replicates, years=years, seed=seed)
    snap = ds.isel(time=-1, scheme=0)
    mask = graded_mask(snap).values
    rating = grade_to_rating(snap["grade"].values[mask], p)  # the stored map is linear: undo it exactly
    truth = snap["true_strength"].values[mask]
    at, per = fit_grade_map(rating, truth, p.grade_rating)
    return {"grade_at": at, "rating_per_grade": per, "grade_rating": p.grade_rating, "n": int(mask.sum())}


def main() -> int:
    res = fit()
    print(f"IMPs-lost map fitted on {TRAINING} over {res['n']} graded players:")
    print(f"  grade_at = {res['grade_at']:.3f}  (grade points at rating {res['grade_rating']:.0f})")
    print(f"  rating_per_grade = {res['rating_per_grade']:.3f}  (rating points per grade point)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
