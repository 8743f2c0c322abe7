"""Scenarios: the description of a simulated bridge world.

A scenario is a TOML file with the structure of the dataclasses below; every
field has a documented default, so a scenario names only what differs.
``load_scenario(name_or_path)`` reads a built-in (``simcore/scenario/builtin/``) or
a file and validates it: an unknown key, a wrong type, an out-of-range
number or an unknown word is an error naming the key path (for example
``clubs[2].sessions[0].weekday``), the bad value and what is allowed.

Units: strengths and bonuses in grade points (50 = national average; a
player's true strength is the MP % they would average partnering an equal
player against an average field), activity in sessions per week, rates per
year unless stated, dates ISO.

The structure (``simcore scenarios default --all`` prints a complete example,
every key with a one-line comment; ``scenario_to_toml`` writes it)::

    name, description
    [calendar]      start, years, snapshot
    [players]       activity, skill change, joining and leaving
    [partnerships]  regular / near-exclusive shares and bonuses, guests
    [mixing]        multi-club members, travelling, isolation end date
    [[clubs]]       size, strength, weekly sessions (count = k similar clubs)
    [[events]]      county / national events: movement, frequency, entry bias
    [online]        a BCL-like online room
    [reporting]     late-scored sessions
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from simcore.movements.registry import MOVEMENTS, SEAT_ROOM
from simcore.results import EVENT_TYPES, SCORINGS

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _f(default, help, lo=None, hi=None, choices=None):  # noqa: A002
    meta = {"help": help}
    if lo is not None:
        meta["min"] = lo
    if hi is not None:
        meta["max"] = hi
    if choices is not None:
        meta["choices"] = choices
    if isinstance(default, (list, tuple)):
        return field(default_factory=lambda: tuple(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Calendar:
    start: str = _f("2020-01-06", "first day simulated (ISO date); weeks start on this weekday")
    years: float = _f(5.0, "simulated years", lo=0.02, hi=100)
    snapshot: str = _f("monthly", "how often grades and true strengths are recorded",
                       choices=("weekly", "monthly"))


@dataclass(frozen=True)
class Players:
    activity_mean: float = _f(0.8, "median sessions a week of a 50-strength player", lo=0.01, hi=14)
    activity_sigma: float = _f(0.7, "sd of log activity (heavy tail)", lo=0, hi=3)
    activity_cap: float = _f(6.0, "most sessions a player plays in a week", lo=0.1, hi=21)
    activity_strength: float = _f(0.03, "log activity per grade point of strength (stronger players "
                                  "play more: NGS FR 1)", lo=-0.5, hi=0.5)
    learner_share: float = _f(0.15, "share of newcomers who improve over their first years", lo=0, hi=1)
    learner_gain: float = _f(6.0, "grade points a learner gains", lo=0, hi=40)
    learner_years: float = _f(3.0, "years over which a learner improves", lo=0.1, hi=30)
    step_rate: float = _f(0.02, "chance a year of a step change ('after a course of lessons')", lo=0, hi=1)
    step_size: float = _f(3.0, "grade points of a step change", lo=-30, hi=30)
    decline_share: float = _f(0.2, "share of players slowly declining", lo=0, hi=1)
    decline_per_year: float = _f(0.3, "grade points a year a decliner loses", lo=0, hi=10)
    join_rate: float = _f(0.06, "newcomers a year, as a share of the starting population", lo=0, hi=2)
    leave_rate: float = _f(0.05, "chance a year that a player leaves", lo=0, hi=1)
    newcomer_offset: float = _f(-6.0, "newcomers' mean strength relative to their club's mean "
                                "(new players are weaker: why NGS starts them at 42)", lo=-30, hi=30)
    newcomer_sd: float = _f(5.0, "sd of newcomers' strength", lo=0, hi=20)
    return_share: float = _f(0.1, "share of leavers who come back after 3–5 years (NGS FR 11)", lo=0, hi=1)
    card_play_correlation: float = _f(
        0.7, "correlation of a player's card play (declarer play, read by IMPs-lost) with their true strength "
        "(read by the result-based schemes).  No published figure found: a moderate assumption", lo=0, hi=1)
    card_play_sd: float = _f(5.5, "sd of card play over the players (grade points; default the clubs' sd of "
                             "true strength)", lo=0, hi=30)


@dataclass(frozen=True)
class Partnerships:
    regular_share: float = _f(0.5, "share of players in a regular partnership", lo=0, hi=1)
    regular_rate: float = _f(0.65, "share of a regular player's sessions played with the partner", lo=0, hi=1)
    near_exclusive_share: float = _f(0.1, "share of players in near-exclusive partnerships (> 85 %: "
                                     "the Aces-and-Eights population)", lo=0, hi=1)
    near_exclusive_rate: float = _f(0.95, "share of a near-exclusive player's sessions with the partner",
                                    lo=0.85, hi=1)
    regular_bonus: float = _f(1.0, "true-performance bonus of a regular partnership (grade points)", lo=-10, hi=10)
    near_exclusive_bonus: float = _f(2.0, "bonus of a near-exclusive partnership (NGS FAQ 8: up to ≈ 2)",
                                     lo=-10, hi=10)
    near_exclusive_correlation: float = _f(
        0.5, "correlation of partners' true strengths in near-exclusive partnerships (0 = partners "
        "drawn at random from the club, 1 = players paired with the nearest in strength).  No published "
        "figure found; a moderate assumption, swept by the sensitivity study", lo=0, hi=1)
    regular_correlation: float = _f(0.5, "correlation of partners' true strengths in regular "
                                    "partnerships (as near_exclusive_correlation)", lo=0, hi=1)
    pickup_correlation: float = _f(0.3, "correlation of true strengths of the two players a session's "
                                   "partnership desk pairs up (0 = a random draw)", lo=0, hi=1)
    form_sd: float = _f(1.0, "sd of a pair's form in one session (grade points)", lo=0, hi=10)
    odd_player: str = _f("guest", "what the odd pick-up player does: play with a guest or sit out",
                         choices=("guest", "sit_out"))
    guest_share: float = _f(0.05, "guests (non-members) per club member", lo=0, hi=2)
    guest_strength_offset: float = _f(-5.0, "guests' mean strength relative to the club mean", lo=-30, hi=30)
    triangles: int = _f(0, "triangle structures per club: A plays with B or C, B and C with A only "
                        "(NGS FAQ 15, FR 13)", lo=0, hi=1000)


@dataclass(frozen=True)
class Mixing:
    multi_club_share: float = _f(0.1, "share of players who are members of a second club", lo=0, hi=1)
    second_club_weight: float = _f(0.5, "weight of a second club's sessions against the home club's",
                                   lo=0, hi=10)
    travel_rate: float = _f(0.02, "chance a session is played at a random other club", lo=0, hi=1)
    isolation_ends: str = _f("", "ISO date before which no player ever plays outside their home club "
                             "(no second clubs, travel or events); empty = never isolated")


@dataclass(frozen=True)
class Reporting:
    late_share: float = _f(0.0, "share of sessions whose results reach the grading schemes late, after "
                           "sessions played later (NGS files them by date of play; no published rate, so off "
                           "by default).  A late session is processed at the latest at the end of its "
                           "snapshot period (the engine grades period by period)", lo=0, hi=1)
    late_days: int = _f(14, "mean delay of a late session in days (uniform 1 .. 2 x late_days - 1)", lo=1, hi=365)
    corrected_share: float = _f(0.0, "share of sessions first published with a scoring error (one traveller's NS "
                                "score entered with the wrong sign) and corrected later by a session that replaces "
                                "it (no published rate, so off by default).  Like a late session, the correction "
                                "is processed at the latest at the end of its snapshot period", lo=0, hi=1)
    corrected_days: int = _f(7, "days from a session's first publication to its correction", lo=1, hi=365)


# A club session or an event may run any movement of the registry except the online room: the
# room is not a scheduled session (its partners and tables are drawn afresh each round) and has
# its own [online] table.
SESSION_MOVEMENTS = tuple(m.name for m in MOVEMENTS if m.seating != SEAT_ROOM)


@dataclass(frozen=True)
class ClubSession:
    weekday: str = _f("mon", "day of the week", choices=WEEKDAYS)
    movement: str = _f("mitchell", "movement kind", choices=SESSION_MOVEMENTS)
    scoring: str = _f("mp", "scoring", choices=SCORINGS)
    boards: int = _f(24, "boards in the session (target)", lo=2, hi=60)
    event_type: str = _f("club", "event type (NGS weighting)", choices=EVENT_TYPES)
    winners: int = _f(2, "1 (arrow-switched / one-winner) or 2", lo=1, hi=2)
    max_tables: int = _f(30, "largest field the session takes", lo=2, hi=500)


@dataclass(frozen=True)
class Club:
    name: str = _f("club", "name (with count > 1, clubs are named name-1, name-2, …)")
    count: int = _f(1, "number of similar clubs this entry describes", lo=1, hi=100000)
    members: int = _f(100, "members of each club at the start", lo=4, hi=1000000)
    strength_mean: float = _f(50.0, "mean true strength of the members", lo=0, hi=100)
    strength_mean_sd: float = _f(0.0, "sd of club means between the clubs of this entry", lo=0, hi=20)
    strength_sd: float = _f(5.5, "sd of true strength within a club", lo=0, hi=30)
    strength_skew: float = _f(0.0, "skewness of true strength within a club (0 = normal; negative = a "
                              "longer weak tail); a skew-normal with the given mean and sd", lo=-0.95, hi=0.95)
    isolated: bool = _f(False, "members never play elsewhere and no one visits")
    sessions: tuple = _f((), "weekly sessions ([[clubs.sessions]] tables)")


@dataclass(frozen=True)
class Event:
    name: str = _f("county", "name")
    every: str = _f("month", "how often the event runs", choices=("week", "month", "quarter", "year"))
    week: int = _f(1, "which week of the period it runs in (1 = first)", lo=1, hi=52)
    weekday: str = _f("sun", "day of the week", choices=WEEKDAYS)
    movement: str = _f("swiss_pairs", "movement kind", choices=SESSION_MOVEMENTS)
    scoring: str = _f("mp", "scoring", choices=SCORINGS)
    boards: int = _f(28, "boards", lo=2, hi=120)
    event_type: str = _f("black", "event type (NGS weighting: green events count double)",
                         choices=EVENT_TYPES)
    winners: int = _f(1, "1 or 2", lo=1, hi=2)
    entry_rate: float = _f(0.04, "chance an active 50-strength player enters a given running", lo=0, hi=1)
    entry_strength: float = _f(0.12, "log-odds of entering per grade point of strength (stronger fields)",
                               lo=-2, hi=2)
    max_tables: int = _f(60, "largest field", lo=2, hi=2000)
    count: int = _f(1, "parallel instances (e.g. one per county); a player enters the instance of "
                    "their home club's index modulo count", lo=1, hi=10000)


@dataclass(frozen=True)
class Online:
    members: int = _f(0, "members of the online room (0 = no room)", lo=0, hi=10000000)
    strength_mean: float = _f(50.0, "mean true strength of online members", lo=0, hi=100)
    strength_sd: float = _f(5.0, "sd of their true strength", lo=0, hi=30)
    strength_skew: float = _f(0.0, "skewness of their true strength (0 = normal; negative = a longer "
                              "weak tail)", lo=-0.95, hi=0.95)
    tourneys_per_day: int = _f(4, "tourneys a day", lo=1, hi=200)
    boards: int = _f(12, "boards in a tourney", lo=2, hi=60)
    boards_per_round: int = _f(2, "boards per round (partners and tables change each round)", lo=1, hi=30)
    guest_share: float = _f(0.05, "share of the room who are guest members (PPI: their boards don't count)",
                            lo=0, hi=1)
    keep_partner: float = _f(0.3, "share of players who enter with their regular partner", lo=0, hi=1)
    max_tables: int = _f(500, "largest tourney", lo=2, hi=100000)


@dataclass(frozen=True)
class Scenario:
    name: str = _f("custom", "scenario name")
    description: str = _f("", "one line saying what the scenario stresses")
    calendar: Calendar = field(default_factory=Calendar, metadata={"help": "[calendar]"})
    players: Players = field(default_factory=Players, metadata={"help": "[players]"})
    partnerships: Partnerships = field(default_factory=Partnerships, metadata={"help": "[partnerships]"})
    mixing: Mixing = field(default_factory=Mixing, metadata={"help": "[mixing]"})
    clubs: tuple = _f((), "[[clubs]]")
    events: tuple = _f((), "[[events]]")
    online: Online = field(default_factory=Online, metadata={"help": "[online]"})
    reporting: Reporting = field(default_factory=Reporting, metadata={"help": "[reporting]"})

    @property
    def n_club_members(self) -> int:
        return sum(c.count * c.members for c in self.clubs)


_NESTED = {"calendar": Calendar, "players": Players, "partnerships": Partnerships, "mixing": Mixing,
           "online": Online, "reporting": Reporting}
_LISTS = {"clubs": Club, "events": Event}


def _type_of(f: dataclasses.Field):
    t = f.type if isinstance(f.type, type) else {"str": str, "int": int, "float": float, "bool": bool,
                                                 "tuple": tuple}.get(str(f.type), object)
    return t


def _check_value(path: str, f: dataclasses.Field, value: Any):
    raw = value
    want = _type_of(f)
    if want is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{path} = {value!r}: expected a number")
        value = float(value)
    elif want is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{path} = {value!r}: expected an integer")
    elif want is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{path} = {value!r}: expected true or false")
    elif want is str:
        if not isinstance(value, str):
            raise ValueError(f"{path} = {value!r}: expected a string")
        if f.metadata.get("choices"):
            value = value.lower()
    meta = f.metadata
    if "choices" in meta and value not in meta["choices"]:
        raise ValueError(f"{path} = {raw!r}: allowed values are {', '.join(map(str, meta['choices']))}")
    if "min" in meta and value < meta["min"]:
        raise ValueError(f"{path} = {raw!r}: must be at least {meta['min']}")
    if "max" in meta and value > meta["max"]:
        raise ValueError(f"{path} = {raw!r}: must be at most {meta['max']}")
    return value


def _build(cls, data: Any, path: str):
    if not isinstance(data, dict):
        raise ValueError(f"{path or 'scenario'}: expected a table, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [k for k in data if k not in fields]
    if unknown:
        where = f"{path}." if path else ""
        raise ValueError(f"{where}{unknown[0]}: unknown key; allowed keys here: {', '.join(fields)}")
    kwargs = {}
    for key, value in data.items():
        p = f"{path}.{key}" if path else key
        if key in _NESTED and cls is Scenario:
            kwargs[key] = _build(_NESTED[key], value, p)
        elif key in _LISTS and cls is Scenario:
            if not isinstance(value, list):
                raise ValueError(f"{p}: expected a list of tables ([[{key}]])")
            kwargs[key] = tuple(_build(_LISTS[key], v, f"{p}[{i}]") for i, v in enumerate(value))
        elif key == "sessions" and cls is Club:
            if not isinstance(value, list):
                raise ValueError(f"{p}: expected a list of tables ([[clubs.sessions]])")
            kwargs[key] = tuple(_build(ClubSession, v, f"{p}[{i}]") for i, v in enumerate(value))
        else:
            kwargs[key] = _check_value(p, fields[key], value)
    return cls(**kwargs)


def scenario_from_dict(data: dict) -> Scenario:
    """Validate a nested dict (as read from TOML or JSON) into a Scenario."""
    sc = _build(Scenario, data, "")
    _check_scenario(sc)
    return sc


def _check_scenario(sc: Scenario) -> None:
    if not _ISO.match(sc.calendar.start):
        raise ValueError(f"calendar.start = {sc.calendar.start!r}: expected an ISO date (YYYY-MM-DD)")
    _date(sc.calendar.start, "calendar.start")
    if sc.mixing.isolation_ends:
        _date(sc.mixing.isolation_ends, "mixing.isolation_ends")
    if not sc.clubs and sc.online.members == 0:
        raise ValueError("clubs: a scenario needs at least one [[clubs]] entry or an [online] room")
    for i, c in enumerate(sc.clubs):
        if not c.sessions:
            raise ValueError(f"clubs[{i}].sessions: club {c.name!r} has no weekly sessions")
        for j, s in enumerate(c.sessions):
            _check_session(f"clubs[{i}].sessions[{j}]", s)
    for i, e in enumerate(sc.events):
        _check_session(f"events[{i}]", e)
    p = sc.partnerships
    if p.regular_share + p.near_exclusive_share > 1:
        raise ValueError(f"partnerships.regular_share + partnerships.near_exclusive_share = "
                         f"{p.regular_share + p.near_exclusive_share}: the two shares must add up to at most 1")


def _check_session(path: str, s) -> None:
    if s.movement in ("multiple_teams", "swiss_teams") and s.scoring != "teams_imps":
        raise ValueError(f"{path}.scoring = {s.scoring!r}: team movements are scored teams_imps")
    if s.movement not in ("multiple_teams", "swiss_teams") and s.scoring == "teams_imps":
        raise ValueError(f"{path}.scoring = 'teams_imps': only team movements (multiple_teams, swiss_teams) "
                         "are scored teams_imps")
    if s.scoring == "aggregate" and s.winners != 2:
        raise ValueError(f"{path}.winners = {s.winners}: aggregate scoring needs two winners (NGS FR 9)")
    if s.movement == "howell" and s.winners != 1:
        raise ValueError(f"{path}.winners = {s.winners}: a Howell is a one-winner movement")


def _date(text: str, path: str) -> int:
    import numpy as np
    try:
        if not _ISO.match(text):
            raise ValueError
        return int(np.datetime64(text, "D").astype(np.int64))
    except ValueError:
        raise ValueError(f"{path} = {text!r}: expected an ISO date (YYYY-MM-DD)") from None


def scenario_to_dict(sc: Scenario) -> dict:
    """Plain nested dict (JSON-able) of a scenario: ``scenario_from_dict`` reverses it."""
    def conv(x):
        if dataclasses.is_dataclass(x):
            return {f.name: conv(getattr(x, f.name)) for f in dataclasses.fields(x)}
        if isinstance(x, tuple):
            return [conv(v) for v in x]
        return x
    return conv(sc)


def scenario_to_json(sc: Scenario) -> str:
    return json.dumps(scenario_to_dict(sc), sort_keys=True)


def scenario_from_json(text: str) -> Scenario:
    return scenario_from_dict(json.loads(text))


def with_overrides(sc: Scenario, overrides: dict[str, Any]) -> Scenario:
    """A copy with dotted keys changed, e.g. ``{"mixing.travel_rate": 0.05, "clubs[0].members": 80}``."""
    data = scenario_to_dict(sc)
    for dotted, value in overrides.items():
        node = data
        parts = re.findall(r"[^.\[\]]+|\[\d+\]", dotted)
        if not parts:
            raise ValueError(f"override key {dotted!r} is empty")
        for k, part in enumerate(parts):
            last = k == len(parts) - 1
            if part.startswith("["):
                i = int(part[1:-1])
                if not isinstance(node, list) or i >= len(node):
                    raise ValueError(f"override {dotted!r}: index {i} is out of range")
                if last:
                    node[i] = value
                else:
                    node = node[i]
            else:
                if not isinstance(node, dict) or part not in node:
                    raise ValueError(f"override {dotted!r}: no key {part!r} there")
                if last:
                    node[part] = value
                else:
                    node = node[part]
    return scenario_from_dict(data)


# --- every key, as TOML ----------------------------------------------------------------

def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_keys(obj, skip=()) -> list[str]:
    """``key = value  # help (default d)`` for every plain field of a scenario dataclass."""
    rows = []
    for f in dataclasses.fields(obj):
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        default = f.default if f.default is not dataclasses.MISSING else None
        note = f.metadata.get("help", "")
        if "choices" in f.metadata:
            note += f"; one of {', '.join(map(str, f.metadata['choices']))}"
        elif "min" in f.metadata or "max" in f.metadata:
            note += f"; {f.metadata.get('min', '')}..{f.metadata.get('max', '')}"
        if default is not None and value != default:
            note += f" (default {_toml_value(default)})"
        rows.append((f"{f.name} = {_toml_value(value)}", note))
    width = min(max((len(k) for k, _ in rows), default=0), 32)  # a long description must not push every comment
    return [f"{k:<{width}}  # {note}" for k, note in rows]


def scenario_to_toml(sc: Scenario) -> str:
    """Every key of a scenario as TOML, each with a one-line comment (what it means, the allowed
    values, and the default where the value differs); ``load_scenario`` reads it back unchanged.

    A scenario without county events or an online room still shows their keys, commented out, so
    the text is a complete template.
    """
    lines = ["# every key of this scenario with a one-line comment; keys left out of a scenario file take",
             "# their defaults.  Units: strengths in grade points (50 = national average), activity in",
             "# sessions a week, rates per year unless stated, dates ISO (YYYY-MM-DD).", ""]
    lines += _toml_keys(sc, skip=(*_NESTED, *_LISTS))
    for key in ("calendar", "players", "partnerships", "mixing", "reporting", "online"):  # online last (below)
        lines += ["", f"[{key}]", *_toml_keys(getattr(sc, key))]
    if not sc.online.members:
        lines[-len(_toml_keys(sc.online)) - 1] += "  # members = 0: no online room"
    for club in sc.clubs:
        lines += ["", "[[clubs]]", *_toml_keys(club, skip=("sessions",))]
        for session in club.sessions:
            lines += ["[[clubs.sessions]]", *_toml_keys(session)]
    if not sc.clubs:
        lines += ["", "# no clubs; a club looks like this:", "# [[clubs]]",
                  *(f"# {row}" for row in _toml_keys(Club(), skip=("sessions",))), "# [[clubs.sessions]]",
                  *(f"# {row}" for row in _toml_keys(ClubSession()))]
    for event in sc.events:
        lines += ["", "[[events]]", *_toml_keys(event)]
    if not sc.events:
        lines += ["", "# no county or national events; an event looks like this:", "# [[events]]",
                  *(f"# {row}" for row in _toml_keys(Event()))]
    return "\n".join(lines) + "\n"


# --- built-ins and files ------------------------------------------------------------

def _builtin_dir():
    return resources.files("simcore.scenario") / "builtin"


def list_scenarios() -> dict[str, str]:
    """Built-in scenario names and their one-line descriptions."""
    out = {}
    for entry in sorted(_builtin_dir().iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            sc = load_scenario(entry.name[:-5])
            out[sc.name] = sc.description
    return out


def scenario_text(name: str) -> str:
    entry = _builtin_dir() / f"{name}.toml"
    if not entry.is_file():
        raise ValueError(f"unknown scenario {name!r}; built-ins: {', '.join(_builtin_names())}")
    return entry.read_text()


def _builtin_names() -> list[str]:
    return sorted(e.name[:-5] for e in _builtin_dir().iterdir() if e.name.endswith(".toml"))


def load_scenario(name_or_path: str | Path | Scenario) -> Scenario:
    """A built-in scenario by name, or a scenario TOML file by path."""
    if isinstance(name_or_path, Scenario):
        return name_or_path
    text = None
    source = str(name_or_path)
    if isinstance(name_or_path, str) and (_builtin_dir() / f"{name_or_path}.toml").is_file():
        text = (_builtin_dir() / f"{name_or_path}.toml").read_text()
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(f"unknown scenario {source!r}: not a built-in ({', '.join(_builtin_names())}) "
                             "and no such file")
        text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from None
    try:
        return scenario_from_dict(data)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
