"""Results bundles: the CSV folder format of ``Results``, read and written.

A bundle is a folder with

* ``sessions.csv``   ``session,date,club,event_type,scoring,winners,movement``
  and optionally ``scored_on`` (ISO date the results reached the grading
  scheme; empty = the date of play) and ``replaces`` (the id of a session
  this one corrects; empty = none);
* ``travellers.csv`` ``session,round,board,table,ns1,ns2,ew1,ew2,ns_score``,
  one row per table per board, the NS score in bridge points;
* ``teams.csv``      (team sessions) ``session,team,player1,player2,player3,player4``:
  pair one is players 1–2, pair two players 3–4;
* ``players.csv``    (optional) ``player,member,at_start,initial_grade``
  (and the descriptive ``name,national_id,club_id`` that ``simcore import`` writes):
  ``member`` false for guests / unknown players, ``at_start`` true for
  players already playing when the scheme started, ``initial_grade`` an
  explicit starting grade (empty = the scheme's rule).  Absent: everyone is
  a member, new, with no explicit grade;
* ``card_play.csv``  (IMPs-lost) ``player,date,boards,imps_lost``.

Ids in files are any strings; in memory they become dense integers in order
of first appearance (players: ``players.csv`` first, then travellers and
teams), and the names are kept, so ``write_bundle`` then ``read_bundle``
gives back identical arrays.  Every problem is reported with the file, the
line, the column and the bad value.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np

from simcore.results import EVENT_TYPES, SCORINGS, TEAM_KINDS, Results, movement_kind

SESSION_COLUMNS = ("session", "date", "club", "event_type", "scoring", "winners", "movement")
SESSION_OPTIONAL = ("scored_on", "replaces")
TRAVELLER_COLUMNS = ("session", "round", "board", "table", "ns1", "ns2", "ew1", "ew2", "ns_score")
TEAM_COLUMNS = ("session", "team", "player1", "player2", "player3", "player4")
PLAYER_COLUMNS = ("player", "member", "at_start", "initial_grade")
PLAYER_INFO_COLUMNS = ("name", "national_id", "club_id")
"""Optional descriptive columns of players.csv (written by ``simcore import``), read and not used."""
CARD_PLAY_COLUMNS = ("player", "date", "boards", "imps_lost")

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


class BundleError(ValueError):
    """A problem in a bundle file, naming file, line, column and value."""


def _where(path: Path, line: int | None = None, column: str | None = None) -> str:
    text = path.name
    if line is not None:
        text += f" line {line}"
    if column is not None:
        text += f", column {column}"
    return text


def _read_csv(path: Path, required: tuple, optional: tuple = ()) -> tuple[dict, int]:
    """Columns of a CSV as lists of stripped strings; data lines start at 2.

    pandas' C parser reads the text (a million travellers in about a
    second); every check and message stays ours.
    """
    import pandas as pd
    if not path.is_file():
        raise BundleError(f"{path}: file not found")
    with open(path, encoding="utf-8-sig") as fh:
        first = fh.readline()
    if not first.strip():
        raise BundleError(f"{_where(path)}: the file is empty; expected a header {','.join(required)}")
    header = [h.strip() for h in next(csv.reader([first]))]
    missing = [c for c in required if c not in header]
    if missing:
        raise BundleError(f"{_where(path, 1)}: missing column(s) {', '.join(missing)}; "
                          f"expected {','.join(required)}")
    unknown = [c for c in header if c not in required and c not in optional]
    if unknown:
        raise BundleError(f"{_where(path, 1)}: unknown column(s) {', '.join(unknown)}; "
                          f"allowed: {','.join(required + optional)}")
    dup = [c for c in set(header) if header.count(c) > 1]
    if dup:
        raise BundleError(f"{_where(path, 1)}: column {dup[0]} appears twice")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False,
                            skip_blank_lines=False, encoding="utf-8-sig", header=0, names=header,
                            engine="c")
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+), saw (\d+)", str(exc))
        where = _where(path, int(m.group(1))) if m else _where(path)
        raise BundleError(f"{where}: {m.group(2) if m else 'wrong number of'} fields, expected "
                          f"{len(header)} ({','.join(header)})") from None
    # short rows are padded with NaN by pandas, even with na_filter off
    short = frame.isna().any(axis=1).to_numpy()
    if short.any():
        i = int(np.argmax(short))
        raise BundleError(f"{_where(path, i + 2)}: empty line or too few fields, expected {len(header)} "
                          f"({','.join(header)})")
    # str.strip over a list is several times faster than a fixed-width numpy
    # string array round trip, and keeps every character but edge whitespace
    cols = {c: [v.strip() for v in frame[c].tolist()] for c in header}
    return cols, len(frame)


def _ints(path: Path, col: str, values: list, lo: int | None = None) -> np.ndarray:
    try:
        arr = np.array(values, dtype=np.int64)
    except (ValueError, OverflowError):
        arr = None
    if arr is None:
        for i, v in enumerate(values):
            try:
                int(v)
            except ValueError:
                raise BundleError(f"{_where(path, i + 2, col)}: {v!r} is not an integer") from None
    if lo is not None and len(arr) and arr.min() < lo:
        i = int(np.argmax(arr < lo))
        raise BundleError(f"{_where(path, i + 2, col)}: {values[i]!r} must be at least {lo}")
    if len(arr) and (arr.max() > 2**31 - 1 or arr.min() < -(2**31)):
        i = int(np.argmax(np.abs(arr) > 2**31 - 1))
        raise BundleError(f"{_where(path, i + 2, col)}: {values[i]!r} is out of range")
    return arr.astype(np.int32)


def _floats(path: Path, col: str, values: list, allow_empty: bool = False, lo: float | None = None):
    out = np.empty(len(values))
    for i, v in enumerate(values):
        if v == "" and allow_empty:
            out[i] = np.nan
            continue
        try:
            x = float(v)
        except ValueError:
            raise BundleError(f"{_where(path, i + 2, col)}: {v!r} is not a number") from None
        if not np.isfinite(x) or (lo is not None and x < lo):
            rule = "a finite number" + (f" >= {lo}" if lo is not None else "")
            raise BundleError(f"{_where(path, i + 2, col)}: {v!r} must be {rule}")
        out[i] = x
    return out


def _days(path: Path, col: str, values: list, allow_empty: bool = False) -> np.ndarray:
    out = np.empty(len(values), np.int32)
    cache: dict[str, int] = {}
    for i, v in enumerate(values):
        if v == "" and allow_empty:
            out[i] = -(2**31)
            continue
        day = cache.get(v)
        if day is None:
            try:
                if not _ISO.match(v):
                    raise ValueError
                day = int(np.datetime64(v, "D").astype(np.int64))
            except ValueError:
                raise BundleError(f"{_where(path, i + 2, col)}: {v!r} is not an ISO date (YYYY-MM-DD)") from None
            cache[v] = day
        out[i] = day
    return out


def _words(path: Path, col: str, values: list, allowed: tuple) -> np.ndarray:
    lookup = {w: i for i, w in enumerate(allowed)}
    out = np.empty(len(values), np.int8)
    for i, v in enumerate(values):
        code = lookup.get(v.lower())
        if code is None:
            raise BundleError(f"{_where(path, i + 2, col)}: {v!r} is not one of {', '.join(allowed)}")
        out[i] = code
    return out


def _bools(path: Path, col: str, values: list) -> np.ndarray:
    out = np.empty(len(values), bool)
    for i, v in enumerate(values):
        low = v.lower()
        if low in _TRUE:
            out[i] = True
        elif low in _FALSE:
            out[i] = False
        else:
            raise BundleError(f"{_where(path, i + 2, col)}: {v!r} is not true or false")
    return out


class _Ids:
    """Dense ids for names, in order of first appearance."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.names: list[str] = []

    def add(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i


def _map_rowwise(ids: _Ids, path: Path, cols: dict, names: tuple) -> np.ndarray:
    """Player ids of several columns, numbered in order of first appearance row by row."""
    import pandas as pd
    n = len(cols[names[0]])
    flat = np.empty(n * len(names), object)
    for k, c in enumerate(names):
        flat[k::len(names)] = cols[c]
    empty = np.flatnonzero(flat == "")
    if len(empty):
        i, k = divmod(int(empty[0]), len(names))
        raise BundleError(f"{_where(path, i + 2, names[k])}: empty player id")
    known = np.array(ids.names, object)
    codes, uniques = pd.factorize(np.concatenate([known, flat]))  # first appearance order
    for name in uniques[len(known):]:
        ids.add(name)
    return codes[len(known):].astype(np.int32).reshape(n, len(names))


def read_bundle(path: str | os.PathLike) -> Results:
    """Read and validate a results bundle folder into a ``Results``.

    Steps: players.csv (optional), sessions.csv, travellers.csv, teams.csv
    (optional), then the cross-file checks; every error names file, line,
    column and value before anything is returned.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise BundleError(f"results bundle {str(folder)!r} is not a folder")
    players, member, at_start, initial = _read_players(folder / "players.csv")
    sess = _read_sessions(folder / "sessions.csv")
    trav = _read_travellers(folder / "travellers.csv", sess, players)
    team_session, team_players, team_names = _read_teams(folder / "teams.csv", sess, players)
    sc, kind = sess["cols"], sess["kind"]
    _check_team_sessions(folder, sc, kind, trav["session"], trav["seats"], team_session, team_players,
                         players.names)

    order = trav["order"]
    seats = trav["seats"]
    names = players.names
    results = Results(
        session_names=np.array(sc["session"], object), session_day=sess["day"], session_club=sess["club"],
        session_event=sess["event"], session_scoring=sess["scoring"],
        session_winners=sess["winners"].astype(np.int8),
        session_kind=kind, session_movement=np.array(sc["movement"], object),
        session_boards=_boards_per_session(trav["session"], trav["board"], sess["S"]),
        trav_session=trav["session"][order], trav_round=trav["round"][order], trav_board=trav["board"][order],
        trav_table=trav["table"][order],
        trav_ns=np.ascontiguousarray(seats[order, :2]), trav_ew=np.ascontiguousarray(seats[order, 2:]),
        trav_ns_score=trav["score"][order], team_session=team_session, team_players=team_players,
        team_names=team_names, player_names=np.array(names, object),
        player_member=np.array([bool(member.get(p, True)) for p in names], bool),
        player_at_start=np.array([bool(at_start.get(p, False)) for p in names], bool),
        player_initial_grade=np.array([initial.get(p, np.nan) for p in names], np.float64),
        club_names=np.array(sess["clubs"].names, object), session_scored_on=sess["scored_on"],
        session_replaces=sess["replaces"],
    )
    results.check()
    return results


def _read_players(ppath: Path) -> tuple:
    """players.csv (optional): ids in file order and the member / at_start / initial_grade maps."""
    players = _Ids()
    member = {}
    at_start = {}
    initial = {}
    if not ppath.exists():
        return players, member, at_start, initial
    pc, n = _read_csv(ppath, ("player",), PLAYER_COLUMNS[1:] + PLAYER_INFO_COLUMNS)
    for i, name in enumerate(pc["player"]):
        if name == "":
            raise BundleError(f"{_where(ppath, i + 2, 'player')}: empty player id")
        if name in players.index:
            raise BundleError(f"{_where(ppath, i + 2, 'player')}: player {name!r} listed twice")
        players.add(name)
    if "member" in pc:
        member = dict(zip(pc["player"], _bools(ppath, "member", pc["member"])))
    if "at_start" in pc:
        at_start = dict(zip(pc["player"], _bools(ppath, "at_start", pc["at_start"])))
    if "initial_grade" in pc:
        initial = dict(zip(pc["player"], _floats(ppath, "initial_grade", pc["initial_grade"], True)))
    return players, member, at_start, initial


def _read_sessions(spath: Path) -> dict:
    """sessions.csv: one entry per session (days since 1970-01-01, codes, replaced-session index)."""
    sc, S = _read_csv(spath, SESSION_COLUMNS, SESSION_OPTIONAL)
    if S == 0:
        raise BundleError(f"{_where(spath)}: no sessions")
    session_index: dict[str, int] = {}
    for i, name in enumerate(sc["session"]):
        if name == "":
            raise BundleError(f"{_where(spath, i + 2, 'session')}: empty session id")
        if name in session_index:
            raise BundleError(f"{_where(spath, i + 2, 'session')}: session {name!r} appears twice "
                              f"(first on line {session_index[name] + 2})")
        session_index[name] = i
    day = _days(spath, "date", sc["date"])
    clubs = _Ids()
    club = np.array([clubs.add(c) for c in sc["club"]], np.int32)
    event = _words(spath, "event_type", sc["event_type"], EVENT_TYPES)
    scoring = _words(spath, "scoring", sc["scoring"], SCORINGS)
    winners = _ints(spath, "winners", sc["winners"])
    bad = np.flatnonzero((winners != 1) & (winners != 2))
    if len(bad):
        i = int(bad[0])
        raise BundleError(f"{_where(spath, i + 2, 'winners')}: {sc['winners'][i]!r} must be 1 or 2")
    kind = np.empty(S, np.int8)
    for i, m in enumerate(sc["movement"]):
        try:
            kind[i] = movement_kind(m)
        except ValueError as exc:
            raise BundleError(f"{_where(spath, i + 2, 'movement')}: {exc}") from None
    scored_on = day.copy()
    if "scored_on" in sc:
        so = _days(spath, "scored_on", sc["scored_on"], allow_empty=True)
        given = so != -(2**31)
        scored_on[given] = so[given]
        late = np.flatnonzero(given & (so < day))
        if len(late):
            i = int(late[0])
            raise BundleError(f"{_where(spath, i + 2, 'scored_on')}: {sc['scored_on'][i]!r} is before "
                              f"the date of play {sc['date'][i]}")
    replaces = np.full(S, -1, np.int32)
    if "replaces" in sc:
        for i, v in enumerate(sc["replaces"]):
            if v == "":
                continue
            j = session_index.get(v)
            if j is None or j == i:
                why = "names no session in sessions.csv" if j is None else "names the session itself"
                raise BundleError(f"{_where(spath, i + 2, 'replaces')}: {v!r} {why}")
            replaces[i] = j
    return dict(cols=sc, S=S, index=session_index, day=day, clubs=clubs, club=club, event=event,
                scoring=scoring, winners=winners, kind=kind, scored_on=scored_on, replaces=replaces)


def _read_travellers(tpath: Path, sess: dict, players: _Ids) -> dict:
    """travellers.csv, checked; ``order`` sorts rows by (session, round, board, table)."""
    tc, T = _read_csv(tpath, TRAVELLER_COLUMNS)
    tsess = _lookup_sessions(tpath, tc["session"], sess["index"])
    rnd = _ints(tpath, "round", tc["round"], lo=1)
    board = _ints(tpath, "board", tc["board"], lo=1)
    table = _ints(tpath, "table", tc["table"], lo=1)
    seats = _map_rowwise(players, tpath, tc, ("ns1", "ns2", "ew1", "ew2"))
    score = _ints(tpath, "ns_score", tc["ns_score"])
    order = _check_travellers(tpath, tc, tsess, rnd, board, table, seats, sess["S"], sess["cols"]["session"])
    return dict(session=tsess, round=rnd, board=board, table=table, seats=seats, score=score, order=order)


def _read_teams(mpath: Path, sess: dict, players: _Ids) -> tuple:
    """teams.csv (optional): each team's session index, four player ids and name."""
    team_session = np.zeros(0, np.int32)
    team_players = np.zeros((0, 4), np.int32)
    team_names = np.array([], object)
    if not mpath.exists():
        return team_session, team_players, team_names
    sc, kind, session_index = sess["cols"], sess["kind"], sess["index"]
    mc, M = _read_csv(mpath, TEAM_COLUMNS)
    team_session = np.empty(M, np.int32)
    for i, name in enumerate(mc["session"]):
        j = session_index.get(name)
        if j is None:
            raise BundleError(f"{_where(mpath, i + 2, 'session')}: session {name!r} is not in sessions.csv")
        if kind[j] not in TEAM_KINDS:
            raise BundleError(f"{_where(mpath, i + 2, 'session')}: session {name!r} is a "
                              f"{sc['movement'][j]} session, not a team session")
        team_session[i] = j
    team_players = _map_rowwise(players, mpath, mc, tuple(f"player{k}" for k in range(1, 5)))
    team_names = np.array(mc["team"], object)
    seen = {}
    for i, (s, t) in enumerate(zip(team_session, mc["team"])):
        if (s, t) in seen:
            raise BundleError(f"{_where(mpath, i + 2, 'team')}: team {t!r} listed twice for session "
                              f"{sc['session'][s]!r} (first on line {seen[(s, t)]})")
        seen[(s, t)] = i + 2
    return team_session, team_players, team_names


def _lookup_sessions(path: Path, names: list, index: dict) -> np.ndarray:
    import pandas as pd
    codes = pd.Index(list(index)).get_indexer(names)
    bad = np.flatnonzero(codes < 0)
    if len(bad):
        i = int(bad[0])
        raise BundleError(f"{_where(path, i + 2, 'session')}: session {names[i]!r} is not in sessions.csv")
    return codes.astype(np.int32)


def _packed(*cols) -> np.ndarray | None:
    """One int64 key per row ordering like ``np.lexsort(cols[::-1])``, or None if it could overflow.

    The columns are non-negative integers (indices, rounds, boards, tables);
    a stable argsort of one key is several times faster than a lexsort of many.
    """
    key = np.zeros(len(cols[0]), np.int64)
    span = 1
    for c in cols:
        radix = int(c.max()) + 1 if len(c) else 1
        span *= radix
        if span >= 2**62:
            return None
        key = key * radix + c
    return key


def _sort_rows(*cols) -> np.ndarray:
    """Row order by ``cols`` (first column most significant), ties in file order."""
    key = _packed(*cols)
    if key is None:
        return np.lexsort((np.arange(len(cols[0])),) + cols[::-1])
    return np.argsort(key, kind="stable")


def _boards_per_session(tsess, board, S) -> np.ndarray:
    key = _packed(tsess, board)
    if key is None:
        pairs = np.unique(np.stack([tsess.astype(np.int64), board.astype(np.int64)], axis=1), axis=0)
        sessions = pairs[:, 0]
    else:
        sessions = np.unique(key) // (int(board.max()) + 1)
    return np.bincount(sessions, minlength=S).astype(np.int32) if len(sessions) else np.zeros(S, np.int32)


def _check_travellers(path, tc, tsess, rnd, board, table, seats, S, session_names) -> np.ndarray:
    """Check travellers across rows; returns the row order by (session, round, board, table).

    Whole-column numpy checks; the first bad row (in the order the old
    row-by-row messages used) is located only once a check has failed.
    """
    T = len(tsess)
    # a player seated twice at one table
    srt = np.sort(seats, axis=1)
    twice = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
    if len(twice):
        i = int(twice[0])
        row = [tc[c][i] for c in ("ns1", "ns2", "ew1", "ew2")]
        dup = next(p for p in row if row.count(p) > 1)
        raise BundleError(f"{_where(path, i + 2)}: player {dup!r} is seated twice at one table ({', '.join(row)})")
    # duplicate traveller: equal neighbours in (session, round, board, table) order
    order = _sort_rows(tsess, rnd, board, table)
    same = ((tsess[order][1:] == tsess[order][:-1]) & (rnd[order][1:] == rnd[order][:-1])
            & (board[order][1:] == board[order][:-1]) & (table[order][1:] == table[order][:-1]))
    if same.any():
        j = int(np.argmax(same))
        a, b = int(order[j]), int(order[j + 1])
        raise BundleError(f"{_where(path, b + 2)}: duplicate traveller (session "
                          f"{session_names[tsess[a]]!r}, round {rnd[a]}, board {board[a]}, "
                          f"table {table[a]}) already on line {a + 2}")
    # one player at two tables in the same round of a session
    player = seats.ravel()
    where = np.repeat(np.arange(T), 4)
    ts, tr, tt = tsess[where], rnd[where], table[where]
    ordr = _sort_rows(ts, tr, player, tt)
    ks = (ts[ordr], tr[ordr], player[ordr])
    tb = tt[ordr]
    clash = np.flatnonzero((ks[0][1:] == ks[0][:-1]) & (ks[1][1:] == ks[1][:-1]) & (ks[2][1:] == ks[2][:-1])
                           & (tb[1:] != tb[:-1]))
    if len(clash):
        a, b = where[ordr[clash[0]]], where[ordr[clash[0] + 1]]
        name = _player_name(tc, a, int(ks[2][clash[0]]), seats)
        raise BundleError(f"{_where(path, int(max(a, b)) + 2)}: player {name!r} sits at tables "
                          f"{table[a]} and {table[b]} in round {rnd[a]} of session "
                          f"{session_names[tsess[a]]!r} (line {int(min(a, b)) + 2})")
    # a board with one result
    sb = tsess.astype(np.int64) << 32 | board.astype(np.int64)
    bo = np.argsort(sb, kind="stable")
    sb = sb[bo]
    starts = np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]])
    counts = np.diff(np.r_[starts, T])
    single = bo[starts[counts == 1]]
    if len(single):
        i = int(single.min())
        raise BundleError(f"{_where(path, i + 2, 'board')}: board {board[i]} of session "
                          f"{session_names[tsess[i]]!r} has only one result; a board needs at least two "
                          f"to be scored")
    # every session has travellers
    empty = np.flatnonzero(np.bincount(tsess, minlength=S) == 0)
    if len(empty):
        s = int(empty[0])
        raise BundleError(f"sessions.csv line {s + 2}: session {session_names[s]!r} has no travellers "
                          f"in travellers.csv")
    return order


def _player_name(tc, row, pid, seats) -> str:
    cols = ("ns1", "ns2", "ew1", "ew2")
    for c, v in zip(cols, seats[row]):
        if v == pid:
            return tc[c][row]
    return str(pid)


def _check_team_sessions(folder, sc, kind, tsess, seats, team_session, team_players, names) -> None:
    path = folder / "teams.csv"
    for s in np.flatnonzero(np.isin(kind, list(TEAM_KINDS))):
        rows = np.flatnonzero(team_session == s)
        if not len(rows):
            raise BundleError(f"sessions.csv line {s + 2}: team session {sc['session'][s]!r} has no "
                              f"rows in teams.csv ({','.join(TEAM_COLUMNS)})")
        known = set()
        for m in rows:
            known.add(tuple(sorted(team_players[m, :2])))
            known.add(tuple(sorted(team_players[m, 2:])))
        for i in np.flatnonzero(tsess == s):
            for pair in (seats[i, :2], seats[i, 2:]):
                if tuple(sorted(pair)) not in known:
                    raise BundleError(f"travellers.csv line {i + 2}: pair {names[pair[0]]!r} & "
                                      f"{names[pair[1]]!r} of team session {sc['session'][s]!r} is in no "
                                      f"team of {path.name}")


def _iso(days: np.ndarray) -> list[str]:
    return [str(d) for d in np.asarray(days, np.int64).astype("datetime64[D]")]


def write_bundle(results: Results, path: str | os.PathLike) -> Path:
    """Write ``results`` as a bundle folder (created if needed); returns the folder."""
    results.check()
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    r = results
    dates = _iso(r.session_day)
    late = r.session_scored_on != r.session_day
    with open(folder / "sessions.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        extra = late.any() or (r.session_replaces >= 0).any()
        w.writerow(SESSION_COLUMNS + (SESSION_OPTIONAL if extra else ()))
        scored = _iso(r.session_scored_on)
        for s in range(r.n_sessions):
            row = [r.session_names[s], dates[s], r.club_names[r.session_club[s]],
                   EVENT_TYPES[r.session_event[s]], SCORINGS[r.session_scoring[s]], int(r.session_winners[s]),
                   r.session_movement[s]]
            if extra:
                row += [scored[s] if late[s] else "",
                        r.session_names[r.session_replaces[s]] if r.session_replaces[s] >= 0 else ""]
            w.writerow(row)
    names = r.player_names
    with open(folder / "travellers.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(TRAVELLER_COLUMNS)
        sess = r.session_names
        for t in range(r.n_travellers):
            w.writerow([sess[r.trav_session[t]], int(r.trav_round[t]), int(r.trav_board[t]), int(r.trav_table[t]),
                        names[r.trav_ns[t, 0]], names[r.trav_ns[t, 1]], names[r.trav_ew[t, 0]],
                        names[r.trav_ew[t, 1]], int(r.trav_ns_score[t])])
    if len(r.team_session):
        with open(folder / "teams.csv", "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(TEAM_COLUMNS)
            for m in range(len(r.team_session)):
                w.writerow([r.session_names[r.team_session[m]], r.team_names[m],
                            *(names[p] for p in r.team_players[m])])
    with open(folder / "players.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(PLAYER_COLUMNS)
        for p in range(r.n_players):
            g = r.player_initial_grade[p]
            w.writerow([names[p], "true" if r.player_member[p] else "false",
                        "true" if r.player_at_start[p] else "false", "" if np.isnan(g) else repr(float(g))])
    return folder


def read_card_play(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """``card_play.csv`` of a bundle as columns: player (names), date (days), boards, imps_lost."""
    folder = Path(path)
    cpath = folder / "card_play.csv" if folder.is_dir() else folder
    cc, n = _read_csv(cpath, CARD_PLAY_COLUMNS)
    for i, v in enumerate(cc["player"]):
        if v == "":
            raise BundleError(f"{_where(cpath, i + 2, 'player')}: empty player id")
    return {"player": np.array(cc["player"], object), "date": _days(cpath, "date", cc["date"]),
            "boards": _ints(cpath, "boards", cc["boards"], lo=0),
            "imps_lost": _floats(cpath, "imps_lost", cc["imps_lost"], lo=0.0)}


def write_card_play(table: dict, path: str | os.PathLike) -> Path:
    """Write card-play records (columns as ``read_card_play`` returns) to ``card_play.csv``."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    days = np.asarray(table["date"])
    dates = _iso(days) if days.dtype.kind in "iu" else [str(d) for d in days]
    with open(folder / "card_play.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CARD_PLAY_COLUMNS)
        for p, d, b, x in zip(table["player"], dates, table["boards"], table["imps_lost"]):
            w.writerow([p, d, int(b), repr(float(x))])
    return folder / "card_play.csv"
