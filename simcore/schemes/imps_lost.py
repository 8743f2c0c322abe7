"""IMPs-lost rating (SPEC §1.4; seed 003 and its public script, RatingCalculator).

An individual rating of card play, from the IMPs a player loses against
double-dummy play:

    rating = 3400 - 1000 * (expected IMPs lost per board)
    new    = old + k * ((3400 - old)/1000 - IMPs lost in the batch / 12)

Ratings are in rating points, IMPs in IMPs, boards in boards.  Input is one
record per player per period (``player, day, boards, imps_lost``), applied
in input order; a period's IMPs are spread evenly over its boards.  Boards
are rated in batches of 12: a partial batch is carried (boards left, IMPs
left) and filled first from the next period at that period's average.
Initial rating 2200; k = 48 while the player has at most 30 batches, then
16 if the rating has ever reached 2500, else 24.

The default (``carry="script"``) reproduces the public script exactly,
quirks included:

* k is updated after each batch from the batch count, so batches 1..31 use
  48 (SPEC: "the first 30 batches");
* after a fill-up the carry is reset only when a new partial batch is left:
  when the rest of the period makes whole batches (or nothing) the old
  carry stays and is used again by the next period's fill-up;
* a period with fewer boards than the fill-up needs still completes a
  batch, with the fill-up's boards at that period's average;
* a period with 0 boards changes nothing.

``carry="fixed"`` clears the carry after every fill-up and only tops it up
when a period cannot complete the batch.

``grades`` maps ratings to grade points (MP %-like units, SPEC vocabulary)
by a line fitted from data, not by inverting the simulator's card-play
generator: the least-squares line from rating to true strength over the
graded players of one training run (default scenario, seed 1, 3 years, 1
replicate; ``simcore.engine.imps_lost_fit``), so grade = 49.383 + (rating −
2200) / 72.093.  Refit with ``python3 -m simcore.engine.imps_lost_fit`` when
the world's card-play assumptions change (tests/test_imps_lost.py checks the
stored values are what the refit gives).  The ratings read card play, a
trait of its own in the world (``world.card_play``), not results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore.results import CardPlay  # noqa: F401 (the records are part of the results contract)
from simcore.schemes import CARD_PLAY, PlayerTable, SchemeBase

OUT_COLUMNS = ("rating", "boards_left", "imps_left", "k", "batches")
"""Columns of ``apply_card_play``'s ``out_rows`` (all float64)."""


def _param(default, help, **meta):
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """IMPs-lost parameters; ratings in rating points, k in rating points per
    IMP per board, batches and boards in boards."""

    initial_rating: float = _param(2200.0, "rating of a new player (rating points)")
    top_rating: float = _param(3400.0, "rating of a player who loses no IMPs (rating points)")
    imps_scale: float = _param(1000.0, "rating points per IMP lost per board", min=1e-9)
    batch: int = _param(12, "boards per batch", min=1)
    k_initial: int = _param(48, "k while the player has at most initial_batches batches")
    initial_batches: int = _param(30, "k stays k_initial while the batch count is at most this; checked after "
                                  "each batch, so batches 1..initial_batches+1 use it (as the script does)", min=0)
    k_reached: int = _param(16, "k afterwards if the rating ever reached reached_rating")
    k_other: int = _param(24, "k afterwards otherwise")
    reached_rating: float = _param(2500.0, "rating that, once reached, switches k to k_reached (rating points)")
    carry: str = _param("script", "partial-batch carry: script = the public script exactly (stale carry after "
                        "an exact fill-up, over-filled batches); fixed = without those quirks",
                        choices=("script", "fixed"))
    grade_rating: float = _param(2200.0, "rating that maps to grade grade_at (rating points)")
    grade_at: float = _param(49.383, "grade (grade points) of a player rated grade_rating; fitted on a training "
                             "run: python3 -m simcore.engine.imps_lost_fit")
    rating_per_grade: float = _param(72.093, "rating points per grade point; fitted with grade_at", min=1e-9)


@dataclass
class ImpsLostState:
    """Per-player state (struct of arrays, length P).

    rating      float64  rating points
    boards_left int32    boards in the carried partial batch
    imps_left   float64  IMPs lost in the carried partial batch
    k           int32    k for the next batch
    batches     int32    batches rated
    reached     bool     the rating has reached ``reached_rating``
    records     int32    records applied
    """

    rating: np.ndarray
    boards_left: np.ndarray
    imps_left: np.ndarray
    k: np.ndarray
    batches: np.ndarray
    reached: np.ndarray
    records: np.ndarray

    @property
    def n_players(self) -> int:
        return len(self.rating)


@kernel(helper=True)
def _rate_batch(q, imps_in_batch, rule, rating, k, batches, reached):
    """Rate one batch of player q: imps_in_batch IMPs over rule[2] boards."""
    top, scale, batch, k_initial, initial_batches, k_reached, k_other, reached_rating = (
        rule[0], rule[1], rule[2], rule[3], rule[4], rule[5], rule[6], rule[7])
    expected = (top - rating[q]) / scale
    performance = imps_in_batch / batch
    rating[q] = rating[q] + k[q] * (expected - performance)
    batches[q] += 1
    if rating[q] >= reached_rating:
        reached[q] = True
    if batches[q] <= initial_batches:
        k[q] = np.int32(k_initial)
    elif reached[q]:
        k[q] = np.int32(k_reached)
    else:
        k[q] = np.int32(k_other)


@kernel
def _card_play(player, boards, imps_lost, rule, fixed_carry,
               rating, boards_left, imps_left, k, batches, reached, records, out_rows):
    batch = np.int32(rule[2])
    for r in range(player.shape[0]):
        q = player[r]
        records[q] += 1
        hands = boards[r]
        if hands != 0:
            avg = imps_lost[r] / hands
            if boards_left[q] > 0:
                fill = batch - boards_left[q]
                if fixed_carry and hands < fill:
                    boards_left[q] += hands
                    imps_left[q] += hands * avg
                    hands = 0
                else:
                    hands -= fill  # script: may go negative, the batch is still rated
                    _rate_batch(q, imps_left[q] + fill * avg, rule, rating, k, batches, reached)
                    if fixed_carry:
                        boards_left[q] = 0
                        imps_left[q] = 0.0
            while hands > 0:
                if hands < batch:  # the script rewrites the carry only here
                    boards_left[q] = hands
                    imps_left[q] = hands * avg
                    break
                _rate_batch(q, batch * avg, rule, rating, k, batches, reached)
                hands -= batch
        out_rows[r, 0] = rating[q]
        out_rows[r, 1] = boards_left[q]
        out_rows[r, 2] = imps_left[q]
        out_rows[r, 3] = k[q]
        out_rows[r, 4] = batches[q]


def _rule(p: Params) -> np.ndarray:
    return np.array([p.top_rating, p.imps_scale, p.batch, p.k_initial, p.initial_batches, p.k_reached,
                     p.k_other, p.reached_rating], np.float64)


def new_state(n_players: int, params: Params | None = None) -> ImpsLostState:
    """Fresh state: every player at ``initial_rating`` with k = ``k_initial``."""
    p = params or Params()
    z = lambda dt: np.zeros(n_players, dt)  # noqa: E731
    return ImpsLostState(rating=np.full(n_players, p.initial_rating, np.float64), boards_left=z(np.int32),
                         imps_left=z(np.float64), k=np.full(n_players, p.k_initial, np.int32),
                         batches=z(np.int32), reached=z(bool), records=z(np.int32))


def apply_card_play(state: ImpsLostState, player, day, boards, imps_lost, out_rows: np.ndarray,
                    params: Params | None = None) -> None:
    """Apply card-play records in input order.

    player, day (days since 1970-01-01), boards (boards), imps_lost (IMPs):
    arrays of length N.  ``out_rows`` (float64, (N, 5)) gets, per record, the
    player's state after it: ``OUT_COLUMNS`` = rating (rating points),
    boards_left (boards), imps_left (IMPs), k, batches.  Bad records raise
    ValueError naming the record, the field and the value.
    """
    p = params or Params()
    rec = _validate(state, player, day, boards, imps_lost, out_rows)
    _card_play(rec.player, rec.boards, rec.imps_lost, _rule(p), p.carry == "fixed", state.rating,
               state.boards_left, state.imps_left, state.k, state.batches, state.reached, state.records, out_rows)


def rating_to_grade(rating, params: Params | None = None):
    """Grade points of ratings (rating points): 50 + (rating − 2200)/50 by default."""
    p = params or Params()
    return p.grade_at + (np.asarray(rating, np.float64) - p.grade_rating) / p.rating_per_grade


def fit_grade_map(rating, truth, grade_rating: float = 2200.0) -> tuple[float, float]:
    """Least-squares line from rating to true strength: (grade_at, rating_per_grade).

    rating: rating points; truth: grade points (one pair per graded player).
    Fits truth = grade_at + (rating - grade_rating) / rating_per_grade, the
    best linear predictor of true strength from the rating (so the grades
    carry the regression to the mean the ratings need).  Raises ValueError
    with fewer than 3 finite pairs or ratings that do not vary.
    """
    r = np.asarray(rating, np.float64).ravel()
    t = np.asarray(truth, np.float64).ravel()
    if r.shape != t.shape:
        raise ValueError(f"fit_grade_map: {r.size} ratings but {t.size} true strengths")
    ok = np.isfinite(r) & np.isfinite(t)
    r, t = r[ok], t[ok]
    if r.size < 3 or np.ptp(r) == 0:
        raise ValueError(f"fit_grade_map: needs at least 3 finite pairs with varying ratings, got {r.size}")
    x = r - grade_rating
    slope, at = np.polyfit(x, t, 1)
    if slope <= 0:
        raise ValueError(f"fit_grade_map: true strength falls as the rating rises (slope {slope:.4g} grade "
                         "points per rating point); cannot map ratings to grades")
    return float(at), float(1.0 / slope)


def grade_to_rating(grade, params: Params | None = None):
    """Inverse of ``rating_to_grade``."""
    p = params or Params()
    return p.grade_rating + (np.asarray(grade, np.float64) - p.grade_at) * p.rating_per_grade


class ImpsLostScheme(SchemeBase):
    """The IMPs-lost scheme.  It grades card-play records (``CardPlay``),
    not scored sessions."""

    reads = CARD_PLAY
    out_columns = OUT_COLUMNS
    graded_sessions = "imps-lost grades card_play.csv records"

    def __init__(self, params: Params | None = None):
        self.params = params or Params()

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> ImpsLostState:
        return new_state(players.n_players, self.params)

    def grow(self, state: ImpsLostState, n_partnerships: int) -> ImpsLostState:
        return state  # no partnership-level state

    def apply(self, state: ImpsLostState, records, out_rows: np.ndarray) -> None:
        """Apply ``records`` (a ``CardPlay``); see ``apply_card_play``."""
        if not isinstance(records, CardPlay):
            raise ValueError(f"imps-lost grades card-play records (player, day, boards, imps_lost), "
                             f"not {type(records).__name__}")
        apply_card_play(state, records.player, records.day, records.boards, records.imps_lost, out_rows,
                        self.params)

    def apply_trusted(self, state: ImpsLostState, records, out_rows: np.ndarray) -> None:
        """``apply`` without the record checks: the engine's path, for the ``CardPlay`` its own pass A made
        (player int32 ids in range, boards int32 >= 0, imps_lost float64 finite >= 0, one out row each)."""
        p = self.params
        _card_play(records.player, records.boards, records.imps_lost, _rule(p), p.carry == "fixed", state.rating,
                   state.boards_left, state.imps_left, state.k, state.batches, state.reached, state.records,
                   out_rows)

    def grades(self, state: ImpsLostState, day: int) -> np.ndarray:
        """Grades (grade points) from the current ratings; NaN for players with
        no record.  The state holds the records applied so far, so ``day`` is
        not used."""
        return np.where(state.records > 0, rating_to_grade(state.rating, self.params), np.nan)


SCHEME = ImpsLostScheme


def _validate(state, player, day, boards, imps_lost, out_rows) -> CardPlay:
    n = len(player)
    for name, col in (("day", day), ("boards", boards), ("imps_lost", imps_lost)):
        if len(col) != n:
            raise ValueError(f"imps-lost: {name} has {len(col)} records, player has {n}")
    if out_rows.shape != (n, len(OUT_COLUMNS)) or out_rows.dtype != np.float64:
        raise ValueError(f"imps-lost: out_rows must be float64 of shape ({n}, {len(OUT_COLUMNS)}), "
                         f"got {out_rows.dtype} {out_rows.shape}")
    ints = {}
    for name, col in (("player", player), ("day", day), ("boards", boards)):
        arr = np.asarray(col)
        as_int = np.asarray(arr, np.int64) if arr.dtype.kind in "iub" else None
        if as_int is None:
            flt = np.asarray(arr, np.float64)
            bad = np.flatnonzero(~np.isfinite(flt) | (flt != np.round(flt)))
            if len(bad):
                raise ValueError(f"imps-lost: record {int(bad[0])} field {name} is {arr[bad[0]].item()!r}; "
                                 "it must be an integer")
            as_int = flt.astype(np.int64)
        ints[name] = as_int
    bad = np.flatnonzero((ints["player"] < 0) | (ints["player"] >= state.n_players))
    if len(bad):
        raise ValueError(f"imps-lost: record {int(bad[0])} field player is {int(ints['player'][bad[0]])}; "
                         f"player ids are 0..{state.n_players - 1}")
    bad = np.flatnonzero((ints["boards"] < 0) | (ints["boards"] > np.iinfo(np.int32).max))
    if len(bad):
        raise ValueError(f"imps-lost: record {int(bad[0])} field boards is {int(ints['boards'][bad[0]])}; "
                         "boards must be >= 0")
    imps = np.asarray(imps_lost, np.float64)
    bad = np.flatnonzero(~(np.isfinite(imps) & (imps >= 0)))
    if len(bad):
        raise ValueError(f"imps-lost: record {int(bad[0])} field imps_lost is {float(imps[bad[0]])!r}; "
                         "IMPs lost must be a finite number >= 0")
    return CardPlay(ints["player"].astype(np.int32), ints["day"].astype(np.int32),
                    ints["boards"].astype(np.int32), imps)
