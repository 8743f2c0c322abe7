"""Replaying results through one grading scheme: the library behind ``simcore grade``.

``grade_bundle`` reads a results bundle (or takes ``Results`` / a card-play
table), scores it exactly as the engine does and grades it with one scheme
variant; ``grade_results`` grades already scored results; ``grade_card_play``
applies card-play records (IMPs-lost); ``partnership_table`` gives
partnership-level grades; ``write_csv`` writes any of these tables.

Tables are column name -> array:

* ``SESSION_COLUMNS`` (session, date, player, grade): one row per player per
  session graded, sessions in processing order (date, then session); ISO
  dates; grade in grade points right after that session.
* ``CARD_PLAY_COLUMNS`` (player, date, rating, boards_left, imps_left, k,
  batches): one row per card-play record, in input order.
* ``PARTNERSHIP_COLUMNS`` (partnership, player1, player2, grade) plus any
  columns the scheme adds.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from simcore.io.bundle import read_bundle, read_card_play
from simcore.results import SCORINGS, CardPlay, Results
from simcore.schemes import CARD_PLAY, PlayerTable, make_scheme, parse_variant
from simcore.scoring import score_results

SESSION_COLUMNS = ("session", "date", "player", "grade")
CARD_PLAY_COLUMNS = ("player", "date", "rating", "boards_left", "imps_left", "k", "batches")
PARTNERSHIP_COLUMNS = ("partnership", "player1", "player2", "grade")


# --- Python API -------------------------------------------------------------------

def as_scheme(scheme):
    """A scheme object from a scheme object, a name or a variant such as ``ngs(gain=2)``."""
    if isinstance(scheme, str):
        name, overrides = parse_variant(scheme)
        return make_scheme(name, overrides)
    return scheme


def grade_bundle(source, scheme) -> dict[str, np.ndarray]:
    """Replay ``source`` through ``scheme``; the table ``simcore grade`` writes.

    source: a bundle folder, or a ``Results`` (schemes that read scored
    results) / a card-play table (schemes that read card play, see
    ``grade_card_play``).  scheme: a scheme object, a name or a variant
    text.  Returns column name → array: ``SESSION_COLUMNS`` (session and
    player names, ISO dates, grades in grade points) or, for card-play
    schemes, ``CARD_PLAY_COLUMNS``.
    """
    scheme = as_scheme(scheme)
    if scheme.reads == CARD_PLAY:
        if isinstance(source, (str, Path)):
            source = read_card_play_folder(Path(source), scheme.name)
        return grade_card_play(source, scheme)
    results = read_bundle_folder(Path(source)) if isinstance(source, (str, Path)) else source
    return grade_results(results, score(results), scheme, label=str(source) if isinstance(source, (str, Path))
                         else "the results")[0]


def grade_results(results, scored, scheme, label: str = "the results"):
    """Grade ``scored`` (the scoring of ``results``) with ``scheme``.

    Returns (table, state): the ``SESSION_COLUMNS`` table and the scheme
    state after the last session.
    """
    scheme = as_scheme(scheme)
    state = scheme.new_state(PlayerTable.from_results(results), _n_partnerships(scored))
    out = np.full((len(scored.pair_players), 2), np.nan)
    scored = scheme.for_grading(scored)  # a corrected session counted once (the scheme's ``corrections``)
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
                         f"{', '.join(scorings) or 'none'}); {scheme.graded_sessions}")
    entry, seat, session = np.array(entry, np.int64), np.array(seat, np.int64), np.array(session, np.int64)
    table = {
        "session": np.asarray(results.session_names, object)[session],
        "date": _iso(np.asarray(results.session_day)[session]),
        "player": np.asarray(results.player_names, object)[scored.pair_players[entry, seat]],
        "grade": out[entry, seat],
    }
    return table, state


def grade_card_play(table, scheme) -> dict[str, np.ndarray]:
    """Apply card-play records with a card-play ``scheme`` (IMPs-lost).

    table: column name → array with ``player`` (names), ``date`` (ISO text
    or days since 1970-01-01), ``boards`` and ``imps_lost``, one entry per
    record in input order.  Returns the ``CARD_PLAY_COLUMNS`` table.
    """
    scheme = as_scheme(scheme)
    names = np.asarray(table["player"], object)
    uniq, player = np.unique(names.astype(str), return_inverse=True)
    dates = np.asarray(table["date"])
    days = dates if dates.dtype.kind in "iu" else _days(dates)
    P = len(uniq)
    state = scheme.new_state(PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan)))
    out = np.empty((len(names), 5))
    scheme.apply(state, CardPlay(player.astype(np.int32), np.asarray(days), np.asarray(table["boards"]),
                                 np.asarray(table["imps_lost"])), out)
    return {"player": names, "date": _iso(days), "rating": out[:, 0], "boards_left": out[:, 1].astype(np.int64),
            "imps_left": out[:, 2], "k": out[:, 3].astype(np.int64), "batches": out[:, 4].astype(np.int64)}


def partnership_table(results, scored, scheme, state) -> dict[str, np.ndarray]:
    """Partnership-level grades on the last session's day, for schemes that have them.

    ``scheme.partnership_grades(state, day)`` gives arrays over partnership
    ids with at least ``grade`` (grade points, NaN if none); its other 1-D
    columns (``rating``, ``sessions``, ``established``, ...) are written too.
    The two players of each id are ``ScoredResults.partnership_players``.
    Returns ``PARTNERSHIP_COLUMNS`` (+ the scheme's extra columns), one row
    per partnership with a grade.
    """
    if not scheme.has_partnership_grades:
        raise ValueError(f"{scheme.name} has no partnership-level grades; drop --partnerships")
    last_day = int(np.max(results.session_day))
    columns = dict(scheme.partnership_grades(state, last_day))
    grades = np.asarray(columns.pop("grade"), np.float64)
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
    return SCORINGS[int(code)] if 0 <= int(code) < len(SCORINGS) else str(code)


def _n_partnerships(scored) -> int:
    pp = np.asarray(scored.pair_partnership)
    return int(pp.max()) + 1 if len(pp) else 0


def read_bundle_folder(path) -> Results:
    """The ``Results`` of a bundle folder (``FileNotFoundError`` if it is not a folder)."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"results bundle {str(path)!r} is not a folder")
    return read_bundle(path)


def read_card_play_folder(path, reader: str = "a card-play scheme"):
    """The card-play table of a bundle folder (its card_play.csv); ``reader`` names the scheme in errors."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"results bundle {str(path)!r} is not a folder")
    if not (path / "card_play.csv").is_file():
        raise ValueError(f"bundle {str(path)!r} has no card_play.csv; {reader} grades card-play records "
                         "(player,date,boards,imps_lost)")
    return read_card_play(path)


def score(results):
    """Score ``results`` exactly as the engine does."""
    return score_results(results)


__all__ = ["SESSION_COLUMNS", "CARD_PLAY_COLUMNS", "PARTNERSHIP_COLUMNS", "as_scheme", "grade_bundle",
           "grade_results", "grade_card_play", "partnership_table", "write_csv",
           "read_bundle_folder", "read_card_play_folder", "score"]
