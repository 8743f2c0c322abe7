"""Replay a results bundle through one grading scheme.

  simcore grade BUNDLE --scheme ngs|ppi|elo-pairs|imps-lost [--set NAME=VALUE ...] --out FILE.csv

ngs, ppi and elo-pairs read the bundle's sessions (sessions.csv,
travellers.csv, teams.csv), score them exactly as the engine does and grade
the sessions in processing order (date, then session).  FILE.csv gets one row
per player per session graded:

  session,date,player,grade

the player's grade (grade points) right after that session; names as in the
bundle, ISO dates, floats at full precision.  A session the scheme does not
grade (e.g. PPI rates match-pointed sessions only) has no rows.

imps-lost reads the bundle's card_play.csv (player,date,boards,imps_lost)
and writes one row per input row, in input order:

  player,date,rating,boards_left,imps_left,k,batches

--set NAME=VALUE changes a parameter of the scheme (repeat it for several);
the parameters of every scheme are listed below.  --partnerships FILE.csv
also writes partnership-level grades for schemes that have them.
"""

from __future__ import annotations

import argparse
import csv
import importlib
from pathlib import Path

import numpy as np

from simcore.schemes import make_scheme, params_help, parse_variant, scheme_names

SESSION_COLUMNS = ("session", "date", "player", "grade")
CARD_PLAY_COLUMNS = ("player", "date", "rating", "boards_left", "imps_left", "k", "batches")
PARTNERSHIP_COLUMNS = ("partnership", "player1", "player2", "grade")


# --- command line -----------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help="results bundle folder")
    parser.add_argument("--scheme", required=True, choices=scheme_names(), help="the scheme to replay")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                        help="set a scheme parameter (repeatable); see the list below")
    parser.add_argument("--out", required=True, metavar="FILE.csv", help="where to write the grades")
    parser.add_argument("--partnerships", metavar="FILE.csv",
                        help="also write partnership grades (schemes with partnership-level grades only)")
    parser.epilog = parameters_text()


def parameters_text() -> str:
    """Every parameter of every scheme, with default and help, from the
    schemes' ``Params`` metadata.  A scheme whose module is missing from this
    build is listed as such."""
    lines = ["scheme parameters (--set NAME=VALUE):"]
    for name in scheme_names():
        try:
            rows = params_help(name)
        except (ImportError, AttributeError) as exc:
            lines += ["", f"  {name}: not available in this build ({exc})"]
            continue
        lines += ["", f"  {name}:"]
        for param, default, text in rows:
            lines.append(f"    {param} (default {default}): {text}")
    return "\n".join(lines)


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``["gain=2", "window=1000"]`` → ``{"gain": "2", "window": "1000"}``."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set {item!r} is not NAME=VALUE")
        key, value = (part.strip() for part in item.split("=", 1))
        if key in out:
            raise ValueError(f"--set {key} given twice")
        out[key] = value
    return out


def main(args) -> int:
    overrides = parse_overrides(args.overrides)
    if args.partnerships and args.scheme == "ngs":
        overrides.setdefault("partnership_grades", "true")  # NGS keeps partnership histories only on request
    scheme = make_scheme(args.scheme, overrides)
    if args.partnerships and not has_partnership_grades(scheme):
        raise ValueError(f"{scheme.name} has no partnership-level grades; drop --partnerships")
    if scheme.name == "imps-lost":
        write_csv(args.out, grade_bundle(args.bundle, scheme))
        return 0
    results = _read_bundle(Path(args.bundle))
    scored = _score(results)
    table, state = grade_results(results, scored, scheme, label=args.bundle)
    write_csv(args.out, table)
    if args.partnerships:
        write_csv(args.partnerships, partnership_table(results, scored, scheme, state))
    return 0


# --- Python API -------------------------------------------------------------------

def as_scheme(scheme):
    """A scheme object from a scheme object, a name or a variant such as ``ngs(gain=2)``."""
    if isinstance(scheme, str):
        name, overrides = parse_variant(scheme)
        return make_scheme(name, overrides)
    return scheme


def grade_bundle(source, scheme) -> dict[str, np.ndarray]:
    """Replay ``source`` through ``scheme``; the table ``simcore grade`` writes.

    source: a bundle folder, or a ``Results`` (session schemes) / a card-play
    table (imps-lost, see ``grade_card_play``).  scheme: a scheme object, a
    name or a variant text.  Returns column name → array: ``SESSION_COLUMNS``
    (session and player names, ISO dates, grades in grade points) or, for
    imps-lost, ``CARD_PLAY_COLUMNS``.
    """
    scheme = as_scheme(scheme)
    if scheme.name == "imps-lost":
        if isinstance(source, (str, Path)):
            source = _read_card_play(Path(source))
        return grade_card_play(source, scheme)
    results = _read_bundle(Path(source)) if isinstance(source, (str, Path)) else source
    return grade_results(results, _score(results), scheme, label=str(source) if isinstance(source, (str, Path))
                         else "the results")[0]


def grade_results(results, scored, scheme, label: str = "the results"):
    """Grade ``scored`` (the scoring of ``results``) with ``scheme``.

    Returns (table, state): the ``SESSION_COLUMNS`` table and the scheme
    state after the last session.
    """
    scheme = as_scheme(scheme)
    from simcore.schemes import PlayerTable
    state = scheme.new_state(PlayerTable.from_results(results), _n_partnerships(scored))
    out = np.full((len(scored.pair_players), 2), np.nan)
    scheme.apply(state, scored, out)
    entry, seat, session = [], [], []
    for s in np.asarray(scored.order):
        for e in range(int(scored.pair_start[s]), int(scored.pair_start[s + 1])):
            for j in (0, 1):
                if np.isfinite(out[e, j]):
                    entry.append(e)
                    seat.append(j)
                    session.append(s)
    if not entry:
        scorings = sorted({_scoring_word(c) for c in np.asarray(results.session_scoring)})
        raise ValueError(f"{scheme.name} graded no session of {label} (sessions scored as: "
                         f"{', '.join(scorings) or 'none'}); {_gradable_hint(scheme.name)}")
    entry, seat, session = np.array(entry, np.int64), np.array(seat, np.int64), np.array(session, np.int64)
    table = {
        "session": np.asarray(results.session_names, object)[session],
        "date": _iso(np.asarray(results.session_day)[session]),
        "player": np.asarray(results.player_names, object)[scored.pair_players[entry, seat]],
        "grade": out[entry, seat],
    }
    return table, state


def grade_card_play(table, scheme) -> dict[str, np.ndarray]:
    """Apply card-play records with the imps-lost ``scheme``.

    table: column name → array with ``player`` (names), ``date`` (ISO text
    or days since 1970-01-01), ``boards`` and ``imps_lost``, one entry per
    record in input order.  Returns the ``CARD_PLAY_COLUMNS`` table.
    """
    from simcore.schemes.imps_lost import CardPlay
    scheme = as_scheme(scheme)
    names = np.asarray(table["player"], object)
    uniq, player = np.unique(names.astype(str), return_inverse=True)
    dates = np.asarray(table["date"])
    days = dates if dates.dtype.kind in "iu" else _days(dates)
    from simcore.schemes import PlayerTable
    P = len(uniq)
    state = scheme.new_state(PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan)))
    out = np.empty((len(names), 5))
    scheme.apply(state, CardPlay(player.astype(np.int32), np.asarray(days), np.asarray(table["boards"]),
                                 np.asarray(table["imps_lost"])), out)
    return {"player": names, "date": _iso(days), "rating": out[:, 0], "boards_left": out[:, 1].astype(np.int64),
            "imps_left": out[:, 2], "k": out[:, 3].astype(np.int64), "batches": out[:, 4].astype(np.int64)}


def has_partnership_grades(scheme) -> bool:
    return hasattr(scheme, "pair_ratings") or hasattr(scheme, "partnership_grades")


def partnership_table(results, scored, scheme, state) -> dict[str, np.ndarray]:
    """Partnership-level grades on the last session's day, for schemes that have them.

    A scheme offers them through either hook:

    * ``pair_ratings(state, day)`` → dict of arrays over partnership ids
      with at least ``grade`` (grade points, NaN if none); its other 1-D
      columns (``rating``, ``sessions``, ``established``, ...) are written too;
    * ``partnership_grades(state, day)`` → grade points per partnership id.

    The two players of each id are ``ScoredResults.partnership_players``.
    Returns ``PARTNERSHIP_COLUMNS`` (+ the scheme's extra columns), one row
    per partnership with a grade.
    """
    if not has_partnership_grades(scheme):
        raise ValueError(f"{scheme.name} has no partnership-level grades; drop --partnerships")
    last_day = int(np.max(results.session_day))
    if hasattr(scheme, "pair_ratings"):
        columns = dict(scheme.pair_ratings(state, last_day))
        grades = np.asarray(columns.pop("grade"), np.float64)
    else:
        columns, grades = {}, np.asarray(scheme.partnership_grades(state, last_day), np.float64)
    pp = np.asarray(scored.partnership_players)
    keep = np.flatnonzero(np.isfinite(grades[:len(pp)]))
    names = np.asarray(results.player_names, object)
    table = {"partnership": keep, "player1": names[pp[keep, 0]], "player2": names[pp[keep, 1]],
             "grade": grades[keep]}
    for name, col in columns.items():
        col = np.asarray(col)
        if col.ndim == 1 and len(col) >= len(pp) and name not in table:
            table[name] = col[keep]
    return table


def write_csv(path, table: dict[str, np.ndarray]) -> None:
    """Write a column table as CSV; floats at full precision (shortest
    round-trip repr)."""
    columns = list(table)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        cols = [_text(table[c]) for c in columns]
        writer.writerows(zip(*cols))


# --- helpers ----------------------------------------------------------------------

def _text(col: np.ndarray) -> list[str]:
    col = np.asarray(col)
    if col.dtype.kind == "f":
        return [repr(float(x)) for x in col]
    if col.dtype.kind in "iu":
        return [str(int(x)) for x in col]
    return [str(x) for x in col]


def _iso(days) -> np.ndarray:
    return np.asarray(days, np.int64).astype("datetime64[D]").astype(str).astype(object)


def _days(dates) -> np.ndarray:
    try:
        return np.asarray(dates).astype("datetime64[D]").astype(np.int64).astype(np.int32)
    except ValueError as exc:
        raise ValueError(f"card-play dates must be ISO dates (YYYY-MM-DD): {exc}") from None


def _scoring_word(code) -> str:
    from simcore.results import SCORINGS
    return SCORINGS[int(code)] if 0 <= int(code) < len(SCORINGS) else str(code)


def _gradable_hint(name: str) -> str:
    return {"ppi": "PPI rates match-pointed (mp) sessions only",
            "imps-lost": "imps-lost grades card_play.csv records"}.get(name, "check the bundle's sessions")


def _n_partnerships(scored) -> int:
    pp = np.asarray(scored.pair_partnership)
    return int(pp.max()) + 1 if len(pp) else 0


def _needed(module: str, name: str):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise ValueError(f"{module}.{name} is not available in this build; cannot read or score the bundle") \
            from None


def _read_bundle(path: Path):
    if not path.is_dir():
        raise FileNotFoundError(f"results bundle {str(path)!r} is not a folder")
    return _needed("simcore.io.bundle", "read_bundle")(path)


def _read_card_play(path: Path):
    if not path.is_dir():
        raise FileNotFoundError(f"results bundle {str(path)!r} is not a folder")
    if not (path / "card_play.csv").is_file():
        raise ValueError(f"bundle {str(path)!r} has no card_play.csv; imps-lost grades card-play records "
                         "(player,date,boards,imps_lost)")
    return _needed("simcore.io.bundle", "read_card_play")(path)


def _score(results):
    return _needed("simcore.scoring", "score_results")(results)


__all__ = ["grade_bundle", "grade_results", "grade_card_play", "partnership_table", "write_csv",
           "parameters_text", "parse_overrides"]
