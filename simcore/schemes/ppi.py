"""Bridge Club Live PPI, the Past Performance Indicator (SPEC §1.1).

A PPI is in grade points: the match-point % (0..100) a player would average
partnering an equal player against an average field.  After each board
every player at the table moves towards their result on that board:

    A = a + (p - ((a + b - c - d)/2 + 50)) / m

a = own PPI, b = partner's, c and d = the opponents' (all before the board),
p = own MP % on the board (``ScoredResults.trav_ns_mp``; EW score
100 - NS), m = the weighting factor (``weighting_factor``).  The four
players at a table update from the same pre-board values.

Rules, each a ``Params`` field:

* Only MP-scored sessions are rated (``scoring == "mp"``); sessions with any
  other scoring are skipped — the PPI scheme counts no IMP rooms.
* Boards are applied in the order they were played: sessions in
  ``ScoredResults.order``, then travellers as stored, i.e. by round, board
  and table.  Players at different tables of one round never meet, so this
  is exactly "by round, then by board number".
* m comes from k (qualifying boards the player has played since the start)
  and w (qualifying boards in the three calendar months before the current
  one, recounted when a new month starts, from ``ScoredResults.month``),
  and is halved while the player's PPI is below 46.
* A board with a guest (``PlayerTable.member`` False) at the table counts
  for nobody at that table: no update, no k or w.  Guests start at 50.
  Newcomers start at 50; an explicit ``PlayerTable.initial_grade`` wins.
* A PPI is shown after 50 qualifying boards; a player is active with at
  least 50 rated boards in the last three calendar months; the four
  suit-symbol bands.  ``PPIScheme.extras`` reports these for snapshots.

``session_forecast`` and ``break_even`` are the seeds' back-of-envelope
estimates (a held fixed over a session); ``board_by_board`` is the exact
update for one player against fixed table-mates.

``python -m simcore.bench.synthetic ppi`` prints the rating throughput in ns per
player-board.

Corrected sessions: BCL's description of PPI (seed) has no corrections, so the first
publication stands and a correction (``ScoredResults.replaces``) is ignored
(``corrections = "first"``): its boards are never applied twice.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore.results import SCORING_MP, day_to_month
from simcore.schemes import PlayerTable, SchemeBase

BANDS = ("club", "diamond", "heart", "spade")
"""Suit-symbol band words; code = index (``PPIScheme.extras()["band"]``)."""
CLUB, DIAMOND, HEART, SPADE = range(4)

_NO_OUT = np.empty((0, 2))
"""``out_after`` for the kernel when the caller wants none."""

N_MONTH_SLOTS = 4
"""Per-player board counts are kept for the current calendar month and the
three before it, in slot ``month % 4``."""


def _param(default, help, **meta):
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """PPI parameters.  PPIs and thresholds on them are in MP %; k, w and
    board thresholds in boards; m is dimensionless (boards)."""

    initial_ppi: float = _param(50.0, "PPI of a newcomer member (MP %)", min=0.0, max=100.0)
    guest_ppi: float = _param(50.0, "PPI of a guest (MP %)", min=0.0, max=100.0)
    k_newcomer: int = _param(30, "m is this value while k (qualifying boards so far) is below it", min=1)
    k_established: int = _param(300, "m = k up to this many qualifying boards; above it m depends on w", min=1)
    w_low: int = _param(150, "below this many qualifying boards in the previous 3 calendar months, m = m_infrequent",
                        min=0)
    m_infrequent: float = _param(300.0, "m of an established player with w < w_low", min=1.0)
    w_high: int = _param(300, "from w_low to this many boards m = w_factor * w; above it m = m_frequent", min=0)
    w_factor: float = _param(2.0, "m = w_factor * w while w_low <= w <= w_high", min=0.0)
    m_frequent: float = _param(600.0, "m of an established player with w > w_high", min=1.0)
    halve_below: float = _param(46.0, "m is multiplied by low_factor while the player's PPI is below this (MP %)")
    low_factor: float = _param(0.5, "factor applied to m below halve_below", min=0.0)
    guests_self_update: bool = _param(
        False, "a guest's own PPI moves on boards it plays (members at its table still do not)")
    show_after: int = _param(50, "a PPI is shown after this many qualifying boards", min=0)
    active_boards: int = _param(50, "active: at least this many boards in the last 3 calendar months", min=0)
    active_counts: str = _param("rated", "boards counted for active: rated (incl. boards with a guest at the "
                                "table) or qualifying", choices=("rated", "qualifying"))
    active_current_month: bool = _param(
        True, "the active window is this month and the 2 before (False: the 3 months before this one, like w)")
    spade_above: float = _param(55.0, "spade band: PPI above this (MP %)")
    heart_from: float = _param(51.0, "heart band: PPI from this up to spade_above (MP %)")
    diamond_from: float = _param(46.0, "diamond band: PPI from this below heart_from; club below it (MP %)")

    def check(self) -> None:
        if self.k_newcomer > self.k_established:
            raise ValueError(f"ppi: k_newcomer={self.k_newcomer} must not exceed k_established={self.k_established}")
        if self.w_low > self.w_high:
            raise ValueError(f"ppi: w_low={self.w_low} must not exceed w_high={self.w_high}")
        if not self.diamond_from <= self.heart_from <= self.spade_above:
            raise ValueError(f"ppi: band edges must satisfy diamond_from={self.diamond_from} <= "
                             f"heart_from={self.heart_from} <= spade_above={self.spade_above}")

    def m_rule(self) -> np.ndarray:
        """The m schedule as the float64[9] array ``weighting_factor`` reads:
        k_newcomer, k_established, w_low, m_infrequent, w_high, w_factor,
        m_frequent, halve_below, low_factor."""
        return np.array([self.k_newcomer, self.k_established, self.w_low, self.m_infrequent, self.w_high,
                         self.w_factor, self.m_frequent, self.halve_below, self.low_factor], np.float64)


# --- the formula ---------------------------------------------------------------

@kernel
def weighting_factor(a, k, w, rule):
    """The weighting factor m (boards) of a player.

    a: the player's PPI (MP %); k: qualifying boards played since the start;
    w: qualifying boards in the previous three calendar months;
    rule: ``Params.m_rule()``.  SPEC table: m = 30 for k < 30, k for
    30 <= k <= 300, then 300 / 2w / 600 for w < 150 / 150..300 / > 300;
    halved when a < 46.
    """
    return _m_from_k(a, k, _m_from_w(w, rule), rule)


@kernel(helper=True)
def _m_from_w(w, rule):
    """m of an established player (k > 300) before halving: 300 / 2w / 600.
    w only changes at a month start, so the kernel keeps this per player."""
    if w < rule[2]:
        return rule[3]
    if w <= rule[4]:
        return rule[5] * w
    return rule[6]


@kernel(helper=True)
def _m_from_k(a, k, m_w, rule):
    """m from k (30 below 30 boards, then k up to 300, then m_w), halved below 46.

    Written as selects, not branches: whether a PPI is below 46 changes from
    board to board and player to player, so a branch on it is mispredicted
    often (m·1 is m exactly, so the value is the same)."""
    m = max(np.float64(k), rule[0])
    m = m if k <= rule[1] else m_w
    return m * (rule[8] if a < rule[7] else 1.0)


@kernel
def ppi_update(a, b, c, d, p, m):
    """New PPI (MP %) of a player with PPI a, partner b, opponents c and d,
    scoring p MP % on one board with weighting factor m."""
    return a + (p - ((a + b - c - d) / 2.0 + 50.0)) / m


def break_even(a, b, c, d):
    """MP % that keeps a PPI unchanged: (a + b - c - d)/2 + 50 (all MP %)."""
    return (a + b - c - d) / 2.0 + 50.0


def session_forecast(a, b, c, d, p, n_boards, m):
    """The seeds' session estimate, a held fixed over the session.

    PPI (MP %) after ``n_boards`` boards at an average of ``p`` MP %, with
    partner b and opponents c, d (averages over the session are fine):
    a + n·(p − break_even)/m.  The exact update is ``board_by_board``.
    """
    return a + n_boards * (p - break_even(a, b, c, d)) / m


def board_by_board(a, b, c, d, p, m=None, k=0, w=0, params: Params | None = None) -> np.ndarray:
    """Exact board-by-board PPIs (MP %) of one player against fixed table-mates.

    p: the player's MP % on each board, in order.  With ``m`` given it is
    used as is on every board (as the seeds' examples do); with ``m=None``
    it follows the schedule: k starts at ``k`` and grows by one a board, w
    stays at ``w``, and m is halved below ``halve_below``.  Returns the PPI
    after each board.
    """
    rule = (params or Params()).m_rule()
    out = np.empty(len(p))
    for i, pi in enumerate(np.asarray(p, np.float64)):
        mi = float(m) if m is not None else weighting_factor(a, k + i, w, rule)
        a = ppi_update(a, b, c, d, pi, mi)
        out[i] = a
    return out


# --- state ---------------------------------------------------------------------

@dataclass
class PPIState:
    """Per-player PPI state (struct of arrays, length P).

    ppi       float64  current PPI (MP %)
    k         int32    qualifying boards since the start
    w         int32    qualifying boards in the 3 calendar months before
                       ``month[0]``, recounted when a new month starts
    rated     int32    rated boards since the start (MP sessions, guest
                       boards included)
    k_start, r_start  int32 (P, 4)  k and rated at the start of calendar
                       months ``month[0]-3 .. month[0]``, slot ``month % 4``;
                       boards in months t1..t2 = count at start of t2+1 minus
                       count at start of t1
    member    bool     False for guests
    month     int32[1] the current calendar month (year*12 + month-1), -1
                       before the first rated session

    A fresh state may be primed (k, w, ppi) to start players mid-career; a
    primed w holds until the first month change.
    """

    ppi: np.ndarray
    k: np.ndarray
    w: np.ndarray
    rated: np.ndarray
    k_start: np.ndarray
    r_start: np.ndarray
    member: np.ndarray
    month: np.ndarray

    @property
    def n_players(self) -> int:
        return len(self.ppi)


# --- the rating kernel ---------------------------------------------------------

@kernel(helper=True)
def _update_player(q, a, b, c, d, p, rule, ppi, k, m_w):
    ppi[q] = ppi_update(a, b, c, d, p, _m_from_k(a, k[q], m_w[q], rule))
    k[q] += 1


@kernel(helper=True)
def _add_boards(boards, pair_players, rated):
    """Add each pair entry's boards counted so far to its players' ``rated`` and reset the counts."""
    for e in range(boards.shape[0]):
        if boards[e] != 0:
            rated[pair_players[e, 0]] += boards[e]
            rated[pair_players[e, 1]] += boards[e]
            boards[e] = 0


@kernel(helper=True)
def _start_month(mo, cur_month, k, w, m_w, rated, k_start, r_start, rule):
    """New calendar months start: note k and rated at their start (months
    with no session start with today's counts) and recount w (and m_w)."""
    first = mo - N_MONTH_SLOTS + 1 if cur_month[0] < 0 else max(cur_month[0] + 1, mo - N_MONTH_SLOTS + 1)
    for t in range(first, mo + 1):
        sl = t % N_MONTH_SLOTS
        for q in range(k.shape[0]):
            k_start[q, sl] = k[q]
            r_start[q, sl] = rated[q]
    if cur_month[0] >= 0:  # a primed w holds through the first month
        sl = (mo - 3) % N_MONTH_SLOTS
        for q in range(k.shape[0]):
            w[q] = k[q] - k_start[q, sl]
            m_w[q] = _m_from_w(w[q], rule)
    cur_month[0] = mo


# The kernel takes named bundles instead of twenty arrays (numba types a namedtuple field by field, so a
# field is read by name and a reordered field cannot be misread):
#   Sessions    the ScoredResults columns per session PPI reads;
#   Travellers  the travellers: the two pair entries at the table and the NS MP %;
#   Players     the state's arrays (PPIState) and its month.
Sessions = namedtuple("Sessions", "order month scoring pair_start trav_start")
Travellers = namedtuple("Travellers", "ns_entry ew_entry ns_mp")
Players = namedtuple("Players", "ppi k w rated k_start r_start member month")
Work = namedtuple("Work", "m_w members boards")
"""Work arrays of ``_rate_sessions``: m_w float64 (P), members bool and boards int64 (E)."""


@kernel
def _rate_sessions(ss, tt, pair_players, m_rule, guests_self_update, pl, out_after, work):
    """Rate the MP sessions of one chunk in ``ss.order``, board by board (see the module docstring).

    ``m_rule``: ``Params.m_rule()`` as a tuple.  ``out_after`` (E, 2) receives
    each pair entry's two PPIs (MP %) after its session; an empty array skips
    them.  ``work``: a ``Work`` of fresh arrays (the kernel allocates nothing).
    """
    rule = m_rule  # a tuple of scalars: the compiler knows PPI stores cannot change it
    ppi, k, rated, member = pl.ppi, pl.k, pl.rated, pl.member
    m_w = work.m_w  # m of each player were k > 300, from w (fixed within a month)
    for q in range(ppi.shape[0]):
        m_w[q] = _m_from_w(pl.w[q], rule)
    write_out = out_after.shape[0] > 0
    # per pair entry: both players members, and boards played not yet added to ``rated`` (which only a
    # month start reads): two loads a board instead of eight read-modify-writes of player arrays
    members, boards = work.members, work.boards
    for e in range(pair_players.shape[0]):
        members[e] = member[pair_players[e, 0]] & member[pair_players[e, 1]]
        boards[e] = 0
    for i in range(ss.order.shape[0]):
        s = ss.order[i]
        if ss.scoring[s] != SCORING_MP:
            continue
        mo = ss.month[s]
        if mo != pl.month[0]:
            _add_boards(boards, pair_players, rated)
            _start_month(mo, pl.month, k, pl.w, m_w, rated, pl.k_start, pl.r_start, rule)
        # unsigned indices (the pair entries and players are valid: ``_validate``, or the engine's own
        # chunks): numba wraps a negative signed index (a compare, a select and the array's length kept in a
        # register, for each of the ~25 indexings a board), which doubled the loop's instructions
        for t in range(np.uint64(ss.trav_start[s]), np.uint64(ss.trav_start[s + 1])):
            ns = np.uint64(tt.ns_entry[t])
            ew = np.uint64(tt.ew_entry[t])
            q0 = np.uint64(pair_players[ns, 0])
            q1 = np.uint64(pair_players[ns, 1])
            q2 = np.uint64(pair_players[ew, 0])
            q3 = np.uint64(pair_players[ew, 1])
            boards[ns] += 1
            boards[ew] += 1
            a0 = ppi[q0]
            a1 = ppi[q1]
            a2 = ppi[q2]
            a3 = ppi[q3]
            p_ns = tt.ns_mp[t]
            p_ew = 100.0 - p_ns
            if members[ns] & members[ew]:
                # every m before any store: the loads need not wait for the stores
                m0 = _m_from_k(a0, k[q0], m_w[q0], rule)
                m1 = _m_from_k(a1, k[q1], m_w[q1], rule)
                m2 = _m_from_k(a2, k[q2], m_w[q2], rule)
                m3 = _m_from_k(a3, k[q3], m_w[q3], rule)
                ppi[q0] = ppi_update(a0, a1, a2, a3, p_ns, m0)
                ppi[q1] = ppi_update(a1, a0, a2, a3, p_ns, m1)
                ppi[q2] = ppi_update(a2, a3, a0, a1, p_ew, m2)
                ppi[q3] = ppi_update(a3, a2, a0, a1, p_ew, m3)
                k[q0] += 1
                k[q1] += 1
                k[q2] += 1
                k[q3] += 1
            elif guests_self_update:
                if not member[q0]:
                    _update_player(q0, a0, a1, a2, a3, p_ns, rule, ppi, k, m_w)
                if not member[q1]:
                    _update_player(q1, a1, a0, a2, a3, p_ns, rule, ppi, k, m_w)
                if not member[q2]:
                    _update_player(q2, a2, a3, a0, a1, p_ew, rule, ppi, k, m_w)
                if not member[q3]:
                    _update_player(q3, a3, a2, a0, a1, p_ew, rule, ppi, k, m_w)
        if write_out:
            for e in range(ss.pair_start[s], ss.pair_start[s + 1]):
                out_after[e, 0] = ppi[pair_players[e, 0]]
                out_after[e, 1] = ppi[pair_players[e, 1]]
    _add_boards(boards, pair_players, rated)


# --- the scheme ----------------------------------------------------------------

class PPIScheme(SchemeBase):
    """The PPI scheme (implements ``simcore.schemes.Scheme``)."""
    corrections = "first"
    optional_out_after = True

    snapshot_extras = {"shown": ("no", "yes"), "active": ("no", "yes"), "band": BANDS}
    graded_sessions = "PPI rates match-pointed (mp) sessions only"

    def __init__(self, params: Params | None = None):
        self.params = params or Params()
        self.params.check()

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> PPIState:
        P = players.n_players
        member = np.asarray(players.member, bool).copy()
        ppi = np.where(member, self.params.initial_ppi, self.params.guest_ppi).astype(np.float64)
        explicit = np.isfinite(np.asarray(players.initial_grade, np.float64))
        ppi[explicit] = np.asarray(players.initial_grade, np.float64)[explicit]
        zeros = lambda *shape: np.zeros(shape, np.int32)  # noqa: E731
        return PPIState(ppi=ppi, k=zeros(P), w=zeros(P), rated=zeros(P), k_start=zeros(P, N_MONTH_SLOTS),
                        r_start=zeros(P, N_MONTH_SLOTS), member=member, month=np.full(1, -1, np.int32))

    def grow(self, state: PPIState, n_partnerships: int) -> PPIState:
        return state  # no partnership-level state

    def apply(self, state: PPIState, scored, out_after: np.ndarray | None) -> None:
        """Rate every MP session of ``scored`` in ``scored.order``.

        ``out_after[e, j]`` gets the PPI (MP %) of ``pair_players[e, j]``
        after the session of entry e; NaN for sessions not rated (not MP).
        ``out_after=None`` skips them.
        """
        _validate(state, scored, out_after)
        self._apply(state, scored, out_after)

    def apply_trusted(self, state: PPIState, scored, out_after: np.ndarray | None) -> None:
        """``apply`` without the checks of ``scored`` (the engine's own chunks: well-formed by construction)."""
        self._apply(state, scored, out_after)

    def _apply(self, state: PPIState, scored, out_after: np.ndarray | None) -> None:
        if out_after is None:
            out_after = _NO_OUT
        else:
            out_after[...] = np.nan
        i32 = lambda a: np.asarray(a, np.int32)  # noqa: E731  (no copy when already int32)
        i64 = lambda a: np.asarray(a, np.int64)  # noqa: E731
        ss = Sessions(i32(scored.order), i32(scored.month), np.asarray(scored.scoring, np.int8),
                      i64(scored.pair_start), i64(scored.trav_start))
        tt = Travellers(i32(scored.trav_ns_entry), i32(scored.trav_ew_entry), np.asarray(scored.trav_ns_mp, np.float64))
        pl = Players(state.ppi, state.k, state.w, state.rated, state.k_start, state.r_start, state.member, state.month)
        n_e = len(scored.pair_players)
        work = Work(np.empty(state.n_players), np.empty(n_e, np.bool_), np.empty(n_e, np.int64))
        _rate_sessions(ss, tt, i32(scored.pair_players), tuple(self.params.m_rule().tolist()),
                       bool(self.params.guests_self_update), pl, out_after, work)

    def grades(self, state: PPIState, day: int) -> np.ndarray:
        """PPI (MP %) of every player, full precision; NaN before a player's
        first rated board.  Shown or not: see ``extras``."""
        return np.where(state.rated > 0, state.ppi, np.nan)

    def extras(self, state: PPIState, day: int) -> dict[str, np.ndarray]:
        """Display facts on ``day`` (days since 1970-01-01), per player.

        shown   bool   at least ``show_after`` qualifying boards
        active  bool   at least ``active_boards`` boards in the last 3 months
        band    int8   BANDS code (club, diamond, heart, spade)
        display float64  PPI rounded to one decimal (MP %), NaN if not shown
        k, w    int32  qualifying boards since the start / in the previous 3 months
        """
        p = self.params
        recent = _boards_in_window(state, day_to_month(day),
                                   *((state.rated, state.r_start) if p.active_counts == "rated"
                                     else (state.k, state.k_start)),
                                   p.active_current_month)
        shown = state.k >= p.show_after
        return {"shown": shown, "active": recent >= p.active_boards, "band": band(state.ppi, p),
                "display": np.where(shown, np.round(state.ppi, 1), np.nan),
                "k": state.k.copy(), "w": state.w.copy()}


def band(ppi, params: Params | None = None) -> np.ndarray:
    """Suit-symbol band codes (``BANDS``) of PPIs (MP %): spade > 55,
    heart 51–55, diamond 46–51 (51 itself is a heart), club < 46."""
    p = params or Params()
    x = np.asarray(ppi, np.float64)
    # the band edges rise (Params.check), so the code is the number of edges reached; NaN reaches none
    code = (x >= p.diamond_from).astype(np.int8)
    code += x >= p.heart_from
    code += x > p.spade_above
    return code


def _boards_in_window(state: PPIState, month: int, count: np.ndarray, at_start: np.ndarray,
                      include_current: bool) -> np.ndarray:
    """Boards (count since the start) played in the 3 calendar months ending
    with ``month`` (include_current) or just before it."""
    cur = int(state.month[0])
    if cur < 0:
        return np.zeros(state.n_players, np.int64)
    if month < cur:
        raise ValueError(f"ppi: asked for month {month}, before the last rated month {cur}")

    def start_of(t):  # counts at the start of month t; cur-3 <= t because month >= cur
        return count if t > cur else at_start[:, t % N_MONTH_SLOTS]

    last = month if include_current else month - 1
    return start_of(last + 1).astype(np.int64) - start_of(last - 2)


def _validate(state: PPIState, scored, out_after: np.ndarray) -> None:
    """Validate what the kernel trusts (ids in range, MP % in 0..100, months in
    order); errors name the field, row and value.  Cheap: O(S + E + T) numpy."""
    E = len(scored.pair_players)
    if out_after is not None and (out_after.shape != (E, 2) or out_after.dtype != np.float64):
        raise ValueError(f"ppi: out_after must be float64 of shape ({E}, 2), got {out_after.dtype} {out_after.shape}")
    P = state.n_players
    if E and not (0 <= scored.pair_players.min() and scored.pair_players.max() < P):
        bad = int(np.flatnonzero(((scored.pair_players < 0) | (scored.pair_players >= P)).any(1))[0])
        raise ValueError(f"ppi: pair_players row {bad} is {scored.pair_players[bad].tolist()}; "
                         f"player ids must be in 0..{P - 1}")
    # the travellers in one pass; the numpy checks below run (to name the fault) only if it finds one
    # or the columns came in other dtypes
    fast = (scored.trav_ns_entry.dtype == scored.trav_ew_entry.dtype == np.int32
            and scored.trav_ns_mp.dtype == np.float64 and scored.trav_start.dtype == np.int64
            and scored.scoring.dtype == np.int8 and len(scored.trav_start) == len(scored.scoring) + 1
            and _travellers_ok(scored.trav_ns_entry, scored.trav_ew_entry, scored.trav_ns_mp, scored.trav_start,
                               scored.scoring, E))
    for name in () if fast else ("trav_ns_entry", "trav_ew_entry"):
        col = getattr(scored, name)
        if len(col) and not (0 <= col.min() and col.max() < E):
            bad = int(np.flatnonzero((col < 0) | (col >= E))[0])
            raise ValueError(f"ppi: {name} row {bad} is {int(col[bad])}; pair entries are 0..{E - 1}")
    order = np.asarray(scored.order)
    rated = order[np.asarray(scored.scoring)[order] == SCORING_MP]
    months = np.asarray(scored.month)[rated]
    if len(months):
        seen = np.maximum.accumulate(np.concatenate([[state.month[0]], months]))[:-1]
        late = np.flatnonzero(months < seen)
        if len(late):
            s = int(rated[late[0]])
            raise ValueError(f"ppi: session {s} is in month {int(months[late[0]])} but comes after month "
                             f"{int(seen[late[0]])} in processing order; rate sessions in date order")
    mp = scored.trav_ns_mp
    if not fast and not ((mp >= 0) & (mp <= 100)).all():  # NaN fails too
        is_mp = np.repeat(np.asarray(scored.scoring) == SCORING_MP, np.diff(scored.trav_start))
        bad = np.flatnonzero(is_mp & ~((mp >= 0) & (mp <= 100)))
        if len(bad):
            raise ValueError(f"ppi: trav_ns_mp row {int(bad[0])} is {float(mp[bad[0]])!r}; MP % must be in 0..100")


@kernel
def _travellers_ok(ns_entry, ew_entry, ns_mp, trav_start, scoring, n_entries):
    """True if every traveller names pair entries in 0..n_entries-1 and every traveller of an MP
    session has an MP % in 0..100 (what ``_validate`` checks of the travellers, in one pass)."""
    if ns_entry.shape[0] != ew_entry.shape[0] or ns_entry.shape[0] != ns_mp.shape[0]:
        return False
    for t in range(ns_entry.shape[0]):
        if not (0 <= ns_entry[t] < n_entries and 0 <= ew_entry[t] < n_entries):
            return False
    for s in range(scoring.shape[0]):
        if scoring[s] == SCORING_MP:
            if not (0 <= trav_start[s] <= trav_start[s + 1] <= ns_mp.shape[0]):
                return False
            for t in range(trav_start[s], trav_start[s + 1]):
                if not (ns_mp[t] >= 0.0 and ns_mp[t] <= 100.0):  # NaN fails too
                    return False
    return True


SCHEME = PPIScheme
