"""The run's ``xarray.Dataset``: names, units and coordinates of what the engine recorded.

The engine hands over plain arrays (grades, true strengths, activity, boards,
scheme extras, FR18 sums) and each replicate's ``player_labels`` (what the
Dataset tells of its world's players and clubs); ``build_dataset`` labels
them.  ``DATASET_DOC`` documents the result and travels in its
``description`` attribute.
"""

from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from pathlib import Path

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
  (-1 = none); partnership_type (replicate, player) int8 (see attrs);
  activity (sessions a week), base_strength (grade points) (replicate,
  player) float32; member, at_start (replicate, player) bool; join_day,
  leave_day (replicate, player) dates (NaT: never leaves);
  club(club) int32, the index home_club and second_club refer to, and
  club_name(club).  Every coordinate has a long_name, and units where it
  has any (dates carry theirs in the file's time encoding).
Attributes: title, source (simcore version), simcore_version, git_commit
  (the commit of the code that made the run, "+dirty" when it had
  uncommitted changes, "unknown" outside a git checkout), scenario (JSON),
  seed, replicates, schemes (JSON), partnership_types, history.
"""


def extra_variable(scheme_name: str, extra: str) -> str:
    """Dataset variable of a scheme's snapshot extra, e.g. ``ngs_status``."""
    return f"{scheme_name.replace('-', '_')}_{extra}"


# World fields the Dataset carries per (replicate, player), with their dtypes
PLAYER_FIELDS = {"home_club": np.int32, "second_club": np.int32, "partner": np.int32, "partner2": np.int32,
                 "ptype": np.int8, "activity": np.float32, "base_strength": np.float32, "member": bool,
                 "at_start": bool, "join_day": np.int64, "leave_day": np.int64}


def player_labels(world) -> dict:
    """What the Dataset tells of a replicate's world: ``PLAYER_FIELDS`` and ``club_names`` (small: a few
    arrays of one value a player, so a worker process can send them back, see ``engine.processes``)."""
    out = {f: np.asarray(getattr(world, f)).astype(dt) for f, dt in PLAYER_FIELDS.items()}
    out["club_names"] = list(world.venue_names())
    return out


def build_dataset(scenario, seed: int, variants, players, times, grade, truth, active, boards, extras,
                  fr18=None):
    """The labelled Dataset (see ``DATASET_DOC``).

    variants: the run's scheme variants (``label``, ``name``, ``overrides``, ``scheme``);
    players: ``player_labels`` of each replicate's world; times: snapshot dates
    (datetime64[D]); grade (R, V, T, P), truth/active/boards (R, T, P);
    extras: name -> (R, V, T, P) int8 codes; fr18: name -> (R, V, T) sums.
    """
    from simcore._xarray import xr
    R = len(players)
    labels = [v.label for v in variants]
    per_rep = lambda f, dt: np.stack([p[f] for p in players]).astype(dt)  # noqa: E731
    data = {
        "grade": (("replicate", "scheme", "time", "player"), grade,
                  {"units": "grade points", "long_name": "current grade under each scheme variant"}),
        "true_strength": (("replicate", "time", "player"), truth,
                          {"units": "grade points", "long_name": "true strength (simulator ground truth)"}),
        "active": (("replicate", "time", "player"), active, {"long_name": "member playing at the time"}),
        "boards": (("replicate", "time", "player"), boards, {"units": "boards", "long_name": "boards played"}),
    }
    extra_of = {extra_variable(v.name, key): (v.name, key, codes) for v in variants
                for key, codes in v.scheme.snapshot_extras.items()}
    for name, arr in extras.items():
        scheme_name, key, codes = extra_of[name]
        # CF flags: code -> label, so readers (metrics.accuracy_by) need no scheme's module
        data[name] = (("replicate", "scheme", "time", "player"), arr,
                      {"long_name": f"scheme extra: {name}", "scheme_name": scheme_name, "extra": key,
                       "flag_values": np.arange(len(codes), dtype=np.int8),
                       "flag_meanings": " ".join(str(x).replace(" ", "_") for x in codes)})
    for name, arr in (fr18 or {}).items():
        data[f"fr18_{name}"] = (("replicate", "scheme", "time"), arr,
                                {"long_name": f"FR18 sums over the chunk's qualifying sessions: {name}"})
    club_names = np.array(players[0]["club_names"], object).astype(str)
    rp = ("replicate", "player")
    coords = {
        "replicate": ("replicate", np.arange(R), {"long_name": "independent replicate population"}),
        "scheme": ("scheme", labels, {"long_name": "scheme variant (scheme name and parameter overrides)"}),
        "time": ("time", times.astype("datetime64[ns]"), {"long_name": "snapshot date"}),
        "player": ("player", np.arange(grade.shape[-1]), {"long_name": "player id (same across schemes)"}),
        "club": ("club", np.arange(len(club_names), dtype=np.int32),
                 {"long_name": "club or venue index (home_club and second_club refer to it)"}),
        "scheme_name": ("scheme", [v.name for v in variants], {"long_name": "base scheme of the variant"}),
        "home_club": (rp, per_rep("home_club", np.int32), {"long_name": "home club index (-1 = none: online)"}),
        "second_club": (rp, per_rep("second_club", np.int32), {"long_name": "second club index (-1 = none)"}),
        "partner": (rp, per_rep("partner", np.int32), {"long_name": "regular partner's player id (-1 = none)"}),
        "partner2": (rp, per_rep("partner2", np.int32),
                     {"long_name": "second regular partner's player id, in a triangle (-1 = none)"}),
        "partnership_type": (rp, per_rep("ptype", np.int8),
                             {"long_name": "partnership type code (names in the partnership_types attribute)"}),
        "activity": (rp, per_rep("activity", np.float32),
                     {"units": "sessions per week", "long_name": "player's mean sessions a week"}),
        "base_strength": (rp, per_rep("base_strength", np.float32),
                          {"units": "grade points", "long_name": "true strength before any change over time"}),
        "member": (rp, per_rep("member", bool), {"long_name": "club member (false: guest)"}),
        "at_start": (rp, per_rep("at_start", bool), {"long_name": "already playing when the run starts"}),
        "join_day": (rp, days_to_dates(per_rep("join_day", np.int64)), {"long_name": "date the player joined"}),
        "leave_day": (rp, days_to_dates(per_rep("leave_day", np.int64)),
                      {"long_name": "date the player leaves (NaT: never, within the run)"}),
        "club_name": ("club", club_names, {"long_name": "club or venue name"}),
    }
    attrs = {
        "title": f"simcore run of scenario {scenario.name}",
        "source": f"simcore {__version__}",
        "simcore_version": __version__,
        "git_commit": git_commit(),
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




NEVER_DAY = np.iinfo(np.int32).max  # the world's "never" (a day no run reaches)


def days_to_dates(days: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 as datetime64[ns]; the world's "never" becomes NaT."""
    days = np.asarray(days, np.int64)
    out = days.astype("datetime64[D]").astype("datetime64[ns]")
    out[days >= NEVER_DAY] = np.datetime64("NaT")
    return out


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The git commit of the simcore source that is running ("+dirty" with uncommitted changes to
    tracked files), or "unknown" when it is not a git checkout (an installed copy)."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", str(here.parent)],
                               cwd=here, capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
