"""The movement registry: one record per movement kind.

Everything the rest of simcore needs to know about a kind of movement is in
its ``Movement`` record below: its code (the integer stored in ``Results``,
bundles and golden files — never renumber), its name (the word in files),
its builder (the ``Schedule`` generator of its module), its layout rule
(which movement, boards a round and rounds a club runs for a field), whether
its entrants are teams, whether it is played as matches, its default
winners, its strength-of-opponents rule and how a session of it is seated
in the simulator.  ``results.py``, ``movements.generate``/``choose_layout``,
the seating, the play kernels, scoring and the schemes derive their tables
from these records, so a new movement is its module plus one record here.

This module imports nothing heavy (no numpy, no numba, no movement module):
``results.py``, the shared data contract, takes its codes from it.  The
builders are imported when first called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

# kind codes: stored in Results, bundles and golden files — append, never renumber
KIND_MITCHELL, KIND_HOWELL, KIND_SWISS_PAIRS, KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS, KIND_ONLINE = range(6)

NS, EW, MIXED = 0, 1, -1
"""Pair directions; MIXED for a pair that changed direction (Howell)."""

# strength-of-opponents rules (SPEC §1.2, seed 001; ``schemes.field.strength_of_opponents``)
SOPP_FIELD = "field"  # the other pairs of the pair's group: everyone (one-winner) or its direction (two-winner)
SOPP_MATCHES = "matches"  # the opponents at its table, match by match, averaged over its matches

# how the simulator seats a session (``movements.seating``, ``simulate.play``)
SEAT_TEMPLATE = "template"  # fixed rows for the field size, memoised
SEAT_STANDINGS = "standings"  # rounds paired while playing, from the standings (Swiss)
SEAT_ROOM = "room"  # partners and tables drawn afresh each round (online room)

MATCH_BOARDS = 4  # boards a match in Swiss and team events
MAX_FULL_HOWELL = 8  # clubs play full Howells up to 8 tables, shortened ones beyond
MAX_ROUND_ROBIN_TEAMS = 40  # more teams than this play Swiss teams
MIN_MITCHELL_PAIRS = 8  # under 4 full tables clubs play a Howell
MAX_HOWELL_PAIRS = 40  # beyond 20 tables: an arrow-switched Mitchell


class Layout(NamedTuple):
    """The movement run for a field: ``generate(name, n, boards, **dict(options))``."""

    name: str
    code: int
    n: int
    boards: int
    options: tuple  # ((option, value), ...)


@dataclass(frozen=True)
class Movement:
    """One kind of movement.

    code      int code in Results (``session_kind``), bundles and goldens
    name      the word in files (a session's movement name starts with it)
    entrants  what ``n_entrants`` counts: "pairs", "teams" or "room players"
    builder   ``f(n_entrants, boards, **options) -> Schedule`` (its module's generator)
    layout    ``f(n_entrants, target_boards, winners) -> Layout``: the movement a club
              runs for the field (may hand over to another kind, e.g. a small
              Mitchell field plays a Howell)
    is_team   entrants are teams of two pairs (team IMPs between two rooms)
    is_match  played as matches against one opponent a round (Swiss): scoring
              writes match rows, standings decide the next round
    winners   2 (ranked within its direction) or 1 (against every pair) by default
    sopp      SOPP_FIELD or SOPP_MATCHES
    seating   SEAT_TEMPLATE, SEAT_STANDINGS or SEAT_ROOM
    seeded    the builder takes ``seed=`` (a random draw)
    sizes     the sizes the builder accepts, in words
    """

    code: int
    name: str
    entrants: str
    builder: Callable
    layout: Callable
    is_team: bool
    is_match: bool
    winners: int
    sopp: str
    seating: str
    seeded: bool
    sizes: str


# --- builders: imported on first call, so this module stays light ------------------------

def _mitchell(n, boards, **options):
    from simcore.movements.mitchell import mitchell
    return mitchell(n, boards, **options)


def _howell(n, boards, **options):
    from simcore.movements.howell import howell
    return howell(n, boards, **options)


def _multiple_teams(n, boards, **options):
    from simcore.movements.teams import multiple_teams
    return multiple_teams(n, boards, **options)


def _swiss_pairs(n, boards, **options):
    from simcore.movements.swiss import swiss_pairs
    return swiss_pairs(n, boards, **options)


def _swiss_teams(n, boards, **options):
    from simcore.movements.swiss import swiss_teams
    return swiss_teams(n, boards, **options)


def _online(n, boards, **options):
    from simcore.movements.online import online_room
    return online_room(n, boards, **options)


# --- layout rules: every "which movement for this field" rule is here -----------------------

def _mitchell_layout(n, target, winners):
    """T = ceil(n/2) tables (odd n: a sit-out), skip for even T; boards a round so the rounds played
    (at most T−1 or T) give about ``target``; one-winner arrow-switches the last quarter of the rounds.
    Fewer than 8 pairs play a Howell."""
    if n < MIN_MITCHELL_PAIRS:
        return _howell_layout(n, target, 1)
    T = (n + 1) // 2
    top = T - 1 if T % 2 == 0 else T  # a skip Mitchell's rounds
    bpr = max(1, min(36, int(round(target / top))))
    rounds = max(1, min(top, int(round(target / bpr))))
    arrow = max(1, rounds // 4) if winners == 1 else 0
    return Layout("mitchell", KIND_MITCHELL, n, bpr, (("rounds", rounds), ("arrow_switch", arrow)))


def _howell_layout(n, target, winners):
    """Full (2T−1 rounds) up to 8 tables; shortened beyond (3 boards a round, about target/3 rounds).
    More than 40 pairs play an arrow-switched Mitchell."""
    if n > MAX_HOWELL_PAIRS:
        return _mitchell_layout(n, target, 1)
    T = (n + 1) // 2
    full = 2 * T - 1
    if T <= MAX_FULL_HOWELL:
        return Layout("howell", KIND_HOWELL, n, max(1, int(round(target / full))), ())
    rounds = max(2, min(full, int(round(target / 3))))
    return Layout("howell", KIND_HOWELL, n, 3, (("rounds", rounds),))


def _match_layout(code):
    def layout(n, target, winners):
        """Matches of 4 boards, about target/4 rounds (at most what the field allows)."""
        top = n - 1 if n % 2 == 0 else n
        rounds = max(1, min(top, int(round(target / MATCH_BOARDS))))
        return Layout(MOVEMENTS[code].name, code, n, MATCH_BOARDS, (("rounds", rounds),))
    return layout


def _multiple_teams_layout(n, target, winners):
    """A round robin of 4-board matches; more than 40 teams play Swiss teams."""
    if n > MAX_ROUND_ROBIN_TEAMS:
        return _match_layout(KIND_SWISS_TEAMS)(n, target, winners)
    return _match_layout(KIND_MULTIPLE_TEAMS)(n, target, winners)


def _online_layout(n, target, winners):
    """2 boards a round, target/2 rounds."""
    return Layout("online", KIND_ONLINE, n, 2, (("rounds", max(1, target // 2)),))


# --- the records ------------------------------------------------------------------------------

MOVEMENTS: tuple[Movement, ...] = (
    Movement(KIND_MITCHELL, "mitchell", "pairs", _mitchell, _mitchell_layout, is_team=False, is_match=False,
             winners=2, sopp=SOPP_FIELD, seating=SEAT_TEMPLATE, seeded=False,
             sizes="5..60 pairs (3..30 tables; an odd count gets a sit-out); even tables: skip (T-1 rounds) or "
                   "relay (T rounds); rounds=1..max; arrow_switch=0..rounds"),
    Movement(KIND_HOWELL, "howell", "pairs", _howell, _howell_layout, is_team=False, is_match=False,
             winners=1, sopp=SOPP_FIELD, seating=SEAT_TEMPLATE, seeded=False,
             sizes="5..40 pairs (3..20 tables; odd → sit-out); full (2T-1 rounds) for 3..10 tables; "
                   "shortened rounds=2..2T-1 for any size"),
    Movement(KIND_SWISS_PAIRS, "swiss_pairs", "pairs", _swiss_pairs, _match_layout(KIND_SWISS_PAIRS),
             is_team=False, is_match=True, winners=1, sopp=SOPP_MATCHES, seating=SEAT_STANDINGS, seeded=True,
             sizes="4..400 pairs; rounds=1..n-1 (n if odd: a bye each round)"),
    Movement(KIND_MULTIPLE_TEAMS, "multiple_teams", "teams", _multiple_teams, _multiple_teams_layout,
             is_team=True, is_match=False, winners=2, sopp=SOPP_FIELD, seating=SEAT_TEMPLATE, seeded=False,
             sizes="3..40 teams (odd → a bye); rounds=1..n-1 (n if odd)"),
    Movement(KIND_SWISS_TEAMS, "swiss_teams", "teams", _swiss_teams, _match_layout(KIND_SWISS_TEAMS),
             is_team=True, is_match=True, winners=2, sopp=SOPP_MATCHES, seating=SEAT_STANDINGS, seeded=True,
             sizes="4..400 teams; rounds=1..n-1 (n if odd: a bye each round)"),
    Movement(KIND_ONLINE, "online", "room players", _online, _online_layout, is_team=False, is_match=False,
             winners=1, sopp=SOPP_FIELD, seating=SEAT_ROOM, seeded=True,
             sizes="8..100000 room players; rounds=1..200; fixed_pairs=0..n/2"),
)
assert [m.code for m in MOVEMENTS] == list(range(len(MOVEMENTS))), "codes are the records' positions"

# --- tables derived from the records --------------------------------------------------------

MOVEMENT_KINDS = tuple(m.name for m in MOVEMENTS)
"""Movement names; code = index."""
BY_NAME = {m.name: m for m in MOVEMENTS}
MATCH_KINDS = tuple(m.code for m in MOVEMENTS if m.is_match)
TEAM_KINDS = tuple(m.code for m in MOVEMENTS if m.is_team)
SOPP_MATCH_KINDS = tuple(m.code for m in MOVEMENTS if m.sopp == SOPP_MATCHES)


def movement(kind) -> Movement:
    """The record of a kind given by code or name; ValueError naming the choices."""
    if isinstance(kind, str):
        m = BY_NAME.get(kind.strip().lower())
    else:
        m = MOVEMENTS[int(kind)] if 0 <= int(kind) < len(MOVEMENTS) else None
    if m is None:
        raise ValueError(f"unknown movement kind {kind!r}: choose from {', '.join(MOVEMENT_KINDS)}")
    return m


def kind_flags(predicate) -> list[bool]:
    """``[predicate(record) for every code]``: a lookup table by kind code (numpy-ready for kernels)."""
    return [bool(predicate(m)) for m in MOVEMENTS]
