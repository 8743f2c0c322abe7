"""The run's ``xarray.Dataset``: names, units and coordinates of what the engine recorded.

The engine hands over plain arrays (grades, true strengths, activity, boards,
scheme extras, FR18 sums) and the replicates' worlds; ``build_dataset``
labels them.  ``DATASET_DOC`` documents the result and travels in its
``description`` attribute.
"""

from __future__ import annotations

import json

import numpy as np

from simcore import __version__
from simcore.scenario import scenario_to_json
from simcore.world import PARTNERSHIP_TYPES

DATASET_DOC = """\
Dimensions: replicate, scheme (variant labels such as "ngs(gain=2)"),
time (snapshot dates), player; club (club and venue names).

Variables:
  grade(replicate, scheme, time, player)  float32, grade points: each
      variant's current grade of each player on the snapshot date (NaN
      before the player's first graded session).  Elo and IMPs-lost ratings
      are mapped to grade points by their schemes' documented maps.
  true_strength(replicate, time, player)  float32, grade points.
  active(replicate, time, player)          bool, a member playing then.
  boards(replicate, time, player)          int32, boards played so far.
  <extra>(replicate, scheme, time, player) int8 codes a scheme publishes,
      -1 where it has none or for other schemes' variants:
      ngs_status (0 provisional, 1 evolving, 2 mature, 3 out of date),
      ngs_band (schemes.ngs.BANDS), ppi_shown and ppi_active (0/1),
      ppi_band (0 club, 1 diamond, 2 heart, 3 spade).
Coordinates:
  scheme_name(scheme): the base scheme of each variant.
  home_club, second_club, partner, partner2 (replicate, player) int32;
  partnership_type (replicate, player) int8 (see attrs); activity,
  base_strength (replicate, player) float32; member, at_start
  (replicate, player) bool; join_day, leave_day (replicate, player) int32.
Attributes: title, source (simcore version), scenario (JSON), seed,
  schemes (JSON), partnership_types, history.
"""


def build_dataset(scenario, seed: int, variants, worlds, times, grade, truth, active, boards, extras,
                  fr18=None):
    """The labelled Dataset (see ``DATASET_DOC``).

    variants: the run's scheme variants (``label``, ``name``, ``overrides``);
    worlds: one ``World`` per replicate; times: snapshot dates
    (datetime64[D]); grade (R, V, T, P), truth/active/boards (R, T, P);
    extras: name -> (R, V, T, P) int8 codes; fr18: name -> (R, V, T) sums.
    """
    import xarray as xr
    R = len(worlds)
    labels = [v.label for v in variants]
    per_rep = lambda f, dt: np.stack([getattr(w, f) for w in worlds]).astype(dt)  # noqa: E731
    data = {
        "grade": (("replicate", "scheme", "time", "player"), grade,
                  {"units": "grade points", "long_name": "current grade under each scheme variant"}),
        "true_strength": (("replicate", "time", "player"), truth,
                          {"units": "grade points", "long_name": "true strength (simulator ground truth)"}),
        "active": (("replicate", "time", "player"), active, {"long_name": "member playing at the time"}),
        "boards": (("replicate", "time", "player"), boards, {"units": "boards", "long_name": "boards played"}),
    }
    for name, arr in extras.items():
        data[name] = (("replicate", "scheme", "time", "player"), arr, {"long_name": f"scheme extra: {name}"})
    for name, arr in (fr18 or {}).items():
        data[f"fr18_{name}"] = (("replicate", "scheme", "time"), arr,
                                {"long_name": f"FR18 sums over the chunk's qualifying sessions: {name}"})
    coords = {
        "replicate": np.arange(R), "scheme": labels, "time": times.astype("datetime64[ns]"),
        "player": np.arange(grade.shape[-1]),
        "scheme_name": ("scheme", [v.name for v in variants]),
        "home_club": (("replicate", "player"), per_rep("home_club", np.int32)),
        "second_club": (("replicate", "player"), per_rep("second_club", np.int32)),
        "partner": (("replicate", "player"), per_rep("partner", np.int32)),
        "partner2": (("replicate", "player"), per_rep("partner2", np.int32)),
        "partnership_type": (("replicate", "player"), per_rep("ptype", np.int8)),
        "activity": (("replicate", "player"), per_rep("activity", np.float32)),
        "base_strength": (("replicate", "player"), per_rep("base_strength", np.float32)),
        "member": (("replicate", "player"), per_rep("member", bool)),
        "at_start": (("replicate", "player"), per_rep("at_start", bool)),
        "join_day": (("replicate", "player"), per_rep("join_day", np.int32)),
        "leave_day": (("replicate", "player"), per_rep("leave_day", np.int32)),
        "club_name": ("club", np.array(worlds[0].venue_names(), object).astype(str)),
    }
    attrs = {
        "title": f"simcore run of scenario {scenario.name}",
        "source": f"simcore {__version__}",
        "scenario": scenario_to_json(scenario),
        "seed": seed,
        "replicates": R,
        "schemes": json.dumps([{"label": v.label, "scheme": v.name, "overrides": v.overrides}
                               for v in variants]),
        "partnership_types": json.dumps(list(PARTNERSHIP_TYPES)),
        "history": f"simcore.run(scenario={scenario.name!r}, schemes={labels!r}, replicates={R}, "
                   f"seed={seed})",
        "description": DATASET_DOC,
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


