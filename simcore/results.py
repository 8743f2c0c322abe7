"""The results data model: one struct-of-arrays shared by every stage.

``Results`` is what a duplicate session leaves behind: the sessions, one
traveller row per table per board (four players and the NS score in bridge
points), the teams of team sessions and the players.  The simulator produces
it, the bundle reader (``simcore.io.bundle``) loads it from CSV, and the scoring
stage (``simcore.scoring``) turns it into ``ScoredResults`` — the only input
the grading schemes (``simcore.schemes``) ever see.  Because the engine and
``simcore grade`` both go Results → ScoredResults → schemes, a simulation and
a replay of its exported bundle are graded by the very same code.

Conventions (all arrays are numpy, integers ``int32`` unless noted):

* players, clubs, sessions and teams are integer ids in memory; their
  external names (any strings) live in ``player_names``, ``club_names``,
  ``session_names`` and ``team_names``;
* dates are days since 1970-01-01 (``numpy.datetime64[D]`` as ``int32``),
  months are ``year * 12 + month - 1``;
* travellers are sorted by (session, round, board, table) — the order in
  which boards were played, which PPI needs;
* categorical columns are small integer codes listed below, with the words
  used in files.
"""

from __future__ import annotations

from datetime import date
from dataclasses import dataclass, field, fields

import numpy as np

# the movement registry is light (no numpy, no movement module): the contract takes its codes from it
from simcore.movements.registry import (EW, KIND_HOWELL, KIND_MITCHELL, KIND_MULTIPLE_TEAMS,  # noqa: F401
                                        KIND_ONLINE, KIND_SWISS_PAIRS, KIND_SWISS_TEAMS, MATCH_KINDS, MIXED,
                                        MOVEMENT_KINDS, NS, TEAM_KINDS)

# --- categorical codes ----------------------------------------------------

EVENT_TYPES = ("club", "black", "green")
"""Event type words; code = index.  NGS weights them 1 / 1 / 2 by default."""
EVENT_CLUB, EVENT_BLACK, EVENT_GREEN = 0, 1, 2

SCORINGS = ("mp", "butler", "cross_imps", "aggregate", "teams_imps")
"""Scoring words; code = index."""
SCORING_MP, SCORING_BUTLER, SCORING_CROSS_IMPS, SCORING_AGGREGATE, SCORING_TEAMS_IMPS = range(5)

# Movement kinds, their codes (= index in MOVEMENT_KINDS) and directions come from the movement
# registry (``simcore.movements.registry``), one record per kind.  A session's ``movement`` name
# starts with its kind's word, optionally followed by ``:`` and a free description (e.g.
# ``mitchell:8t-arrow``).  The kind decides who a pair is ranked against and so how strength of
# opponents is computed (SPEC §1.2).  MATCH_KINDS: strength of opponents taken match by match.
# (re-exported above from ``simcore.movements.registry``: MOVEMENT_KINDS, KIND_*, MATCH_KINDS,
# TEAM_KINDS, NS / EW / MIXED)


def movement_kind(name: str) -> int:
    """Kind code of a movement name such as ``"mitchell:8t"``; ValueError if unknown."""
    word = str(name).split(":", 1)[0].strip().lower()
    if word not in MOVEMENT_KINDS:
        raise ValueError(f"unknown movement {name!r}: it must start with one of {', '.join(MOVEMENT_KINDS)}")
    return MOVEMENT_KINDS.index(word)


def days_to_months(days: np.ndarray) -> np.ndarray:
    """Calendar month ids (year*12 + month-1) of day numbers."""
    d = np.asarray(days, dtype="int64").view("datetime64[D]")  # a view, not a copy: same 8-byte items
    return d.astype("datetime64[M]").view(np.int64).astype(np.int32) + np.int32(1970 * 12)


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def day_to_month(day) -> int:
    """``days_to_months`` of one day number (days since 1970-01-01), as a Python int: a tenth of the cost
    of the array form, for the schemes' snapshot of one day."""
    d = date.fromordinal(_EPOCH_ORDINAL + int(day))
    return d.year * 12 + d.month - 1


# --- raw results ------------------------------------------------------------

@dataclass
class Results:
    """Sessions, travellers, teams and players, as parallel arrays.

    Sessions (length S):
        session_day      int32  date of play (days since 1970-01-01)
        session_club     int32  club / venue id (name in ``club_names``)
        session_event    int8   EVENT_TYPES code
        session_scoring  int8   SCORINGS code
        session_winners  int8   1 (one-winner) or 2 (two-winner)
        session_kind     int8   MOVEMENT_KINDS code
        session_movement object movement names as written in files
        session_boards   int32  number of distinct boards in the session
    Travellers (length T), sorted by (session, round, board, table):
        trav_session, trav_round, trav_board, trav_table   int32
        trav_ns, trav_ew  int32 (T, 2)  the two players of each pair
        trav_ns_score     int32  NS score in bridge points (e.g. 420, -100)
    Teams (length M; only for team sessions):
        team_session int32, team_players int32 (M, 4): pair one (players
        0, 1) and pair two (players 2, 3); the team's external name is
        ``team_names[i]``.
    Players (length P):
        player_names      external ids (strings)
        player_member     bool   False for guests / unknown players
        player_at_start   bool   already playing when the scheme started
                                 (NGS gives them its start grade, 50)
        player_initial_grade float64  explicit initial grade, NaN = by rule
    Chronology (optional, length S):
        session_scored_on int32  day the results reached the grading scheme
                                 (default: the day of play); schemes process
                                 sessions in (scored_on, day, id) order, so a
                                 late-scored session is processed after newer ones
        session_replaces  int32  id of the session this one corrects, -1 none
    """

    session_names: np.ndarray
    session_day: np.ndarray
    session_club: np.ndarray
    session_event: np.ndarray
    session_scoring: np.ndarray
    session_winners: np.ndarray
    session_kind: np.ndarray
    session_movement: np.ndarray
    session_boards: np.ndarray
    trav_session: np.ndarray
    trav_round: np.ndarray
    trav_board: np.ndarray
    trav_table: np.ndarray
    trav_ns: np.ndarray
    trav_ew: np.ndarray
    trav_ns_score: np.ndarray
    team_session: np.ndarray
    team_players: np.ndarray
    team_names: np.ndarray
    player_names: np.ndarray
    player_member: np.ndarray
    player_at_start: np.ndarray
    player_initial_grade: np.ndarray
    club_names: np.ndarray
    session_scored_on: np.ndarray | None = None
    session_replaces: np.ndarray | None = None

    def __post_init__(self):
        if self.session_scored_on is None:
            self.session_scored_on = np.asarray(self.session_day, np.int32).copy()
        if self.session_replaces is None:
            self.session_replaces = np.full(len(self.session_day), -1, np.int32)

    @property
    def n_sessions(self) -> int:
        return len(self.session_day)

    @property
    def n_travellers(self) -> int:
        return len(self.trav_session)

    @property
    def n_players(self) -> int:
        return len(self.player_names)

    def session_trav_bounds(self) -> np.ndarray:
        """Offsets (S+1) so session s owns travellers [b[s], b[s+1])."""
        # the needles in the travellers' own dtype: int64 needles would make numpy copy all T of them to int64
        needles = np.arange(self.n_sessions + 1, dtype=self.trav_session.dtype)
        return np.searchsorted(self.trav_session, needles).astype(np.int64)

    def check(self) -> None:
        """Assert internal consistency (dtypes, shapes, sort order).

        For data built in memory; files are validated, with row-level
        messages, by ``simcore.io.bundle``.
        """
        S, T, M, P = self.n_sessions, self.n_travellers, len(self.team_session), self.n_players
        for name, n, dtype in _SCHEMA:
            arr = getattr(self, name)
            want = {"S": S, "T": T, "M": M, "P": P}[n]
            if len(arr) != want:
                raise ValueError(f"Results.{name} has length {len(arr)}, expected {want}")
            if dtype is not None and arr.dtype != dtype:
                raise ValueError(f"Results.{name} has dtype {arr.dtype}, expected {np.dtype(dtype)}")
        if T:
            key = np.lexsort((self.trav_table, self.trav_board, self.trav_round, self.trav_session))
            if not np.array_equal(key, np.arange(T)):
                raise ValueError("travellers are not sorted by (session, round, board, table)")
            players = np.concatenate([self.trav_ns.ravel(), self.trav_ew.ravel()])
            if players.min() < 0 or players.max() >= P:
                raise ValueError("a traveller names a player id outside 0..P-1")

    def processing_order(self) -> np.ndarray:
        """Session ids in the order schemes process them: (scored_on, date, id)."""
        return np.lexsort((np.arange(self.n_sessions), self.session_day,
                           self.session_scored_on)).astype(np.int32)


_SCHEMA = [
    ("session_names", "S", None), ("session_day", "S", np.int32), ("session_club", "S", np.int32),
    ("session_event", "S", np.int8), ("session_scoring", "S", np.int8),
    ("session_winners", "S", np.int8), ("session_kind", "S", np.int8),
    ("session_movement", "S", None), ("session_boards", "S", np.int32),
    ("trav_session", "T", np.int32), ("trav_round", "T", np.int32), ("trav_board", "T", np.int32),
    ("trav_table", "T", np.int32), ("trav_ns", "T", np.int32), ("trav_ew", "T", np.int32),
    ("trav_ns_score", "T", np.int32), ("team_session", "M", np.int32), ("team_players", "M", np.int32),
    ("team_names", "M", None), ("player_names", "P", None), ("player_member", "P", np.bool_),
    ("player_at_start", "P", np.bool_), ("player_initial_grade", "P", np.float64),
    ("session_scored_on", "S", np.int32), ("session_replaces", "S", np.int32),
]


def empty_results() -> Results:
    """A Results with no rows (useful as a template)."""
    i32 = lambda *s: np.zeros(s, np.int32)  # noqa: E731
    return Results(
        session_names=np.array([], object), session_day=i32(0), session_club=i32(0),
        session_event=np.zeros(0, np.int8), session_scoring=np.zeros(0, np.int8),
        session_winners=np.zeros(0, np.int8), session_kind=np.zeros(0, np.int8),
        session_movement=np.array([], object), session_boards=i32(0),
        trav_session=i32(0), trav_round=i32(0), trav_board=i32(0), trav_table=i32(0),
        trav_ns=i32(0, 2), trav_ew=i32(0, 2), trav_ns_score=i32(0),
        team_session=i32(0), team_players=i32(0, 4), team_names=np.array([], object),
        player_names=np.array([], object), player_member=np.zeros(0, bool),
        player_at_start=np.zeros(0, bool), player_initial_grade=np.zeros(0),
        club_names=np.array([], object),
    )


# --- scored results: what every scheme consumes ----------------------------

@dataclass
class CardPlay:
    """Card-play records, in input order (length N): what the IMPs-lost scheme grades.

    player    int32    player id
    day       int32    days since 1970-01-01 (the record's date)
    boards    int32    boards played in the period (>= 0)
    imps_lost float64  IMPs lost against double-dummy play in the period (>= 0)
    """

    player: np.ndarray
    day: np.ndarray
    boards: np.ndarray
    imps_lost: np.ndarray


@dataclass
class ScoredResults:
    """Results after scoring: pairs, their session scores, matches, boards.

    Built by ``simcore.scoring.score_results`` from a ``Results``; consumed
    by every scheme kernel.  Sessions keep the ids of the Results; the
    schemes process them in ``order`` (date, then session id).

    Sessions (S):
        day, month, club, event, scoring, winners, kind   (copied / derived)
        pair_start  int64 (S+1)  session s owns pair entries [pair_start[s], pair_start[s+1])
        trav_start  int64 (S+1)  and travellers [trav_start[s], trav_start[s+1])
        order       int32 (S)    processing order: by (scored_on, date, session id)
        replaces    int32 (S)    session this one corrects (-1 none): a scheme
                                 removes that session's effect, then grades this one
    Pair entries (E) — one per partnership per session (teams: per pair):
        pair_players   int32 (E, 2)  the two players, lower id first
        pair_partnership int32 (E)   partnership id, stable across sessions
        pair_direction int8  (E)     NS, EW or MIXED
        pair_group     int32 (E)     competition group within the session:
                                      pairs with the same group are ranked
                                      against each other (two-winner: the
                                      direction; one-winner: 0)
        pair_team      int32 (E)     team row in Results (-1 if not teams)
        pair_boards    int32 (E)     boards actually played (sit-outs excluded)
        pair_score     float64 (E)   session score in the session's units:
                                      MP % (mp, and Swiss pairs at MP);
                                      net IMPs over the session (butler,
                                      cross_imps; and cross-IMPs against the
                                      same-direction field for team kinds);
                                      aggregate points minus the direction
                                      mean (aggregate)
        pair_beaten    float64 (E)   pairs in its group it outscored, + ½ per tie
        pair_n_ranked  int32 (E)     pairs in its group it is ranked against
        match_start    int64 (E+1)   entry e owns match rows [match_start[e], match_start[e+1])
    Match rows (R) — for Swiss and team kinds, one per pair per match:
        match_opp      int32  opposing pair entry at this pair's table
        match_mate     int32  own team-mate pair entry (-1 for Swiss pairs)
        match_opp_mate int32  opposing team's other pair entry (-1 for Swiss pairs)
        match_boards   int32  boards in the match
        match_result   float64  1 win, 0.5 tie, 0 loss (team IMPs for teams,
                                 the pair's own MP/IMP result for Swiss pairs)
        match_score    float64  the pair's (team's) net IMPs, or MP % for MP Swiss
    Travellers (T), aligned with Results travellers:
        trav_ns_mp     float64  NS match-point % on the board, 0..100,
                                Neuberg-adjusted when the board was played
                                fewer times than the most-played board
        trav_ns_entry, trav_ew_entry  int32  pair entries at the table
    """

    day: np.ndarray
    month: np.ndarray
    club: np.ndarray
    event: np.ndarray
    scoring: np.ndarray
    winners: np.ndarray
    kind: np.ndarray
    pair_start: np.ndarray
    trav_start: np.ndarray
    order: np.ndarray
    pair_players: np.ndarray
    pair_partnership: np.ndarray
    pair_direction: np.ndarray
    pair_group: np.ndarray
    pair_team: np.ndarray
    pair_boards: np.ndarray
    pair_score: np.ndarray
    pair_beaten: np.ndarray
    pair_n_ranked: np.ndarray
    match_start: np.ndarray
    match_opp: np.ndarray
    match_mate: np.ndarray
    match_opp_mate: np.ndarray
    match_boards: np.ndarray
    match_result: np.ndarray
    match_score: np.ndarray
    trav_ns_mp: np.ndarray
    trav_ns_entry: np.ndarray
    trav_ew_entry: np.ndarray
    partnership_players: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int32))
    replaces: np.ndarray | None = None

    def __post_init__(self):
        if self.replaces is None:
            self.replaces = np.full(len(self.day), -1, np.int32)
    """(K, 2) the two players of each partnership id, lower id first."""

    @property
    def n_sessions(self) -> int:
        return len(self.day)

    @property
    def n_entries(self) -> int:
        return len(self.pair_players)

    def arrays(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}
