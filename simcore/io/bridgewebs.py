"""BridgeWebs CSV exports (``#SCORES`` / ``#TRAVELLERS`` sections) -> ``ImportedSession``.

A file is a run of sections, each a ``#NAME`` line, a header row and data
rows up to the next ``#`` line:

* ``#EVENT`` (optional): ``Club``, ``Event``, ``Date`` (dd/mm/yyyy or
  yyyymmdd), optionally ``Winners`` (1 or 2) and ``Type`` (club / black /
  green); without it the event is the file name and the date must appear as
  ``Date,VALUE`` on a line before the first section;
* ``#SCORES``: ``Pair``, ``Dir`` (NS / EW, empty in one-winner events),
  ``Player1``, ``Player2`` (or ``Names`` joined by `` & `` / `` - ``),
  optional ``Id1``, ``Id2`` (national ids), ``Percentage``;
* ``#TRAVELLERS``: ``Board``, ``NS``, ``EW``, ``Contract``, ``By``,
  ``Tricks``, ``NSScore``, ``EWScore`` (one of the two filled; an artificial
  score such as ``A6040`` in ``NSScore`` or ``Contract``).

Column names are matched without regard to case, spaces or underscores.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from simcore.io.imported import (ImportedSession, Pair, Player, Traveller, clean_name, decimals_of, fail,
                                 ns_score_of, number, parse_artificial, parse_date, player_id)

ALIASES = {
    "pair": ("pair", "pairno", "pairnumber", "no"), "dir": ("dir", "direction"),
    "player1": ("player1", "name1"), "player2": ("player2", "name2"), "names": ("names", "pairnames"),
    "id1": ("id1", "ebu1", "natid1"), "id2": ("id2", "ebu2", "natid2"),
    "percentage": ("percentage", "pct", "%", "score%"),
    "board": ("board", "bd"), "ns": ("ns", "nspair"), "ew": ("ew", "ewpair"), "contract": ("contract",),
    "by": ("by", "declarer", "playedby"), "tricks": ("tricks", "result"),
    "nsscore": ("nsscore", "scorens"), "ewscore": ("ewscore", "scoreew"),
    "club": ("club",), "event": ("event", "eventname"), "date": ("date",), "winners": ("winners",),
    "type": ("type", "eventtype"),
}
_SPLIT = re.compile(r"\s+&\s+|\s+-\s+|\s+and\s+", re.I)


def _key(h: str) -> str:
    return re.sub(r"[\s_]", "", h.strip().lower())


def _sections(path, text):
    sections, current, pre = {}, None, {}
    for n, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not any(c.strip() for c in row):
            continue
        first = row[0].strip()
        if first.startswith("#"):
            current = first[1:].strip().upper()
            sections[current] = {"header": None, "rows": [], "line": n}
            continue
        if current is None:
            if len(row) >= 2:
                pre[_key(first)] = row[1].strip()
            continue
        sec = sections[current]
        if sec["header"] is None:
            cols = {}
            for i, h in enumerate(row):
                k = _key(h)
                for name, al in ALIASES.items():
                    if k in al and name not in cols:
                        cols[name] = i
            sec["header"] = cols
            continue
        sec["rows"].append((n, row))
    return sections, pre


def _get(row, cols, name):
    i = cols.get(name)
    return row[i].strip() if i is not None and i < len(row) else ""


def read_bridgewebs(path, data: bytes) -> list[ImportedSession]:
    path = str(path)
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    sections, pre = _sections(path, text)
    for need in ("SCORES", "TRAVELLERS"):
        if need not in sections:
            fail(path, "", f"no #{need} section")
    info = dict(pre)
    if "EVENT" in sections and sections["EVENT"]["rows"]:
        ev = sections["EVENT"]
        line, row = ev["rows"][0]
        info.update({k: _get(row, ev["header"], k) for k in ("club", "event", "date", "winners", "type")})
        where_date = f"line {line}, column Date"
    else:
        where_date = "Date line"
    if not info.get("date"):
        fail(path, "", "no event date (a #EVENT section with a Date column, or a 'Date,dd/mm/yyyy' line)")
    day = parse_date(info["date"], path, where_date)
    winners_text = info.get("winners") or ""
    sc = sections["SCORES"]
    cols = sc["header"] or {}
    if "pair" not in cols:
        fail(path, f"line {sc['line'] + 1}", "#SCORES header has no Pair column")
    any_dir = any(_get(r, cols, "dir") for _, r in sc["rows"])
    winners = int(winners_text) if winners_text in ("1", "2") else (2 if any_dir else 1)
    etype = (info.get("type") or "club").lower()
    if etype not in ("club", "black", "green"):
        fail(path, "#EVENT Type", f"{etype!r} is not club, black or green")
    s = ImportedSession(source=path, event=clean_name(info.get("event")) or Path(path).stem,
                        club=clean_name(info.get("club")), day=day, event_type=etype, scoring="mp",
                        winners=winners, movement="mitchell" if winners == 2 else "howell", program="BridgeWebs")
    for line, row in sc["rows"]:
        where = f"line {line}"
        num = _get(row, cols, "pair")
        direction = _get(row, cols, "dir").upper() if winners == 2 else ""
        if direction not in ("", "NS", "EW"):
            fail(path, f"{where}, column Dir", f"{direction!r} is not NS or EW")
        names = [_get(row, cols, "player1"), _get(row, cols, "player2")]
        if not all(names):
            parts = _SPLIT.split(_get(row, cols, "names"))
            names = parts if len(parts) == 2 else names
        if not all(names):
            fail(path, where, f"pair {num!r} does not name two players")
        ids = []
        for nm, idc in zip(names, ("id1", "id2")):
            nat = _get(row, cols, idc)
            pid = player_id(clean_name(nm), nat)
            s.players.setdefault(pid, Player(pid, clean_name(nm), nat))
            ids.append(pid)
        pct = _get(row, cols, "percentage")
        label = f"{num}{direction}"
        s.pairs[label] = Pair(label, tuple(ids), direction,
                              number(pct, path, f"{where}, column Percentage", "percentage") if pct else None,
                              decimals_of(pct))
    tr = sections["TRAVELLERS"]
    tcols = tr["header"] or {}
    for need in ("board", "ns", "ew"):
        if need not in tcols:
            fail(path, f"line {tr['line'] + 1}", f"#TRAVELLERS header has no {need} column")
    for line, row in tr["rows"]:
        where = f"line {line}"
        bt = _get(row, tcols, "board")
        try:
            board = int(bt)
        except ValueError:
            fail(path, f"{where}, column Board", f"{bt!r} is not a board number")
        ns = _lookup(path, s, _get(row, tcols, "ns"), "NS", where)
        ew = _lookup(path, s, _get(row, tcols, "ew"), "EW", where)
        contract, by = _get(row, tcols, "contract"), _get(row, tcols, "by")
        nss, ews = _get(row, tcols, "nsscore"), _get(row, tcols, "ewscore")
        art = parse_artificial(nss) or parse_artificial(contract)
        if art:
            s.travellers.append(Traveller(board, ns, ew, None, art, contract, by, None, "", where))
            continue
        if nss:
            score = int(number(nss, path, f"{where}, column NSScore", "score"))
        elif ews:
            score = -int(number(ews, path, f"{where}, column EWScore", "score"))
        else:
            score = ns_score_of(board, contract, by, _get(row, tcols, "tricks"), path, where)
        s.travellers.append(Traveller(board, ns, ew, score, None, contract, by, None, "", where))
    return [s]


def _lookup(path, s, num, side, where):
    for cand in (f"{num}{side}", num):
        if cand in s.pairs:
            return cand
    fail(path, where, f"pair {num!r} is not in #SCORES ({', '.join(list(s.pairs)[:12])})")
