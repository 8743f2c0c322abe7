"""PBN 2.1 results files -> ``ImportedSession`` list.

Two shapes, both read (fixtures in ``tests/data/import/``):

* per-table records — one game per table per board: ``Board``, ``North``,
  ``East``, ``South``, ``West``, ``Vulnerable``, ``Dealer``, ``Deal``,
  ``Declarer``, ``Contract``, ``Result`` (tricks taken by declarer, or
  ``=``/``+1``/``-2``) and optional ``Score`` (``NS 420``); the NS score is
  computed from contract, declarer, tricks and vulnerability when no
  ``Score`` is given.  A pair is its two players' names; a pair that never
  changes direction makes the session two-winner (Mitchell), else
  one-winner (Howell);
* ``ScoreTable`` per board (columns ``PairId_NS``, ``PairId_EW``,
  ``Contract``, ``Declarer``, ``Result``, ``Score_NS`` / ``Score_EW``...)
  with a ``TotalScoreTable`` (``PairId``, ``Direction``, ``Names``,
  ``TotalPercentage`` / ``Percentage``...) giving the pairs, their names and
  the published percentages.

Pair labels used as players' names (``North`` and ``South`` both ``Pair 3``,
or a ``Names`` entry that is not two names joined by `` - ``, `` & ``,
`` and `` or ``/``) become pair identities: two players ``LABEL#1`` and
``LABEL#2`` standing for the pair; a bare pair number is scoped to its
session (``Oakfield|2024-03-05|3``), since numbers are reused every week.

Lines are split on any line ending (CRLF common); ``%`` lines, ``;``
comments and ``{...}`` commentary are skipped; tags of one game run until a
blank line.  Event = ``Event``, club = ``Site``, date = ``Date``
(``yyyy.mm.dd``).
"""

from __future__ import annotations

import re

from simcore.io.imported import (ImportedSession, Pair, Player, Traveller, clean_name, decimals_of, fail,
                                 ns_score_of, number, parse_artificial, parse_date, parse_tricks,
                                 parse_contract)

_TAG = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"(.*)"\s*\]\s*$')
_SPLIT = re.compile(r"\s+-\s+|\s*&\s*|\s+and\s+|\s*/\s*", re.I)
_NUMBER_LABEL = re.compile(r"^(pair\s*)?\d+\s*(ns|ew)?$", re.I)
_COLUMN = re.compile(r"^([A-Za-z_]+)(?:\\(\d+)([LR]?))?$")


def _games(path, text):
    """[(tags, table rows, first line number)] — one per game (tag section)."""
    games, tags, rows, start, table_open = [], {}, [], 0, False
    depth = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if depth:  # inside {...} commentary
            depth = 0 if "}" in line else depth
            continue
        if line.startswith("{") and "}" not in line:
            depth = 1
            continue
        if line.startswith("%") or line.startswith(";"):
            continue
        if not line:
            if tags:
                games.append((tags, rows, start))
            tags, rows, table_open = {}, [], False
            continue
        m = _TAG.match(line)
        if m:
            name, value = m.group(1), m.group(2)
            if not tags:
                start = n
            if name in tags and name not in ("Note",):
                fail(path, f"line {n}", f"tag [{name}] appears twice in one game")
            tags[name] = value
            table_open = name in ("ScoreTable", "TotalScoreTable", "OptimumResultTable")
            if table_open:
                tags[name + "@line"] = n
                rows.append((name, n, None))
            continue
        if table_open:
            rows.append((rows[-1][0], n, _cells(line)))
    if tags:
        games.append((tags, rows, start))
    return games


def _cells(line):
    out, i = [], 0
    for m in re.finditer(r'"([^"]*)"|(\S+)', line):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out


def _columns(path, line, spec):
    cols = []
    for part in spec.split(";"):
        m = _COLUMN.match(part.strip())
        if not m:
            fail(path, f"line {line}", f"table column {part!r} is not NAME\\WIDTH")
        cols.append(m.group(1))
    return cols


def _table(path, tags, rows, name):
    """The rows of table ``name`` as dicts (with their line numbers)."""
    if name not in tags:
        return []
    cols = _columns(path, tags[name + "@line"], tags[name])
    out = []
    for tname, line, cells in rows:
        if tname != name or cells is None:
            continue
        if len(cells) != len(cols):
            fail(path, f"line {line}", f"{name} row has {len(cells)} values for {len(cols)} columns "
                 f"({';'.join(cols)})")
        out.append((line, dict(zip(cols, cells))))
    return out


def read_pbn(path, data: bytes) -> list[ImportedSession]:
    path = str(path)
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    games = _games(path, text)
    if not games:
        fail(path, "", "no PBN games (tag sections)")
    # inherited tags: PBN lets "#" repeat the previous game's value
    prev: dict = {}
    for tags, _, _ in games:
        for k, v in list(tags.items()):
            if v == "#" and k in prev:
                tags[k] = prev[k]
        prev.update(tags)
    totals = [g for g in games if "TotalScoreTable" in g[0]]
    if any("ScoreTable" in g[0] for g in games):
        return _from_score_tables(path, games, totals)
    sessions = _from_tables(path, games)
    _attach_totals(path, sessions, totals)
    return sessions


def _attach_totals(path, sessions, totals):
    """Published percentages of per-table files, matched to pairs by their ``Names``."""
    by_key = {(s.event, s.club, s.day, s.section): s for s in sessions}
    for tags, rows, line in totals:
        s = by_key.get(_key(path, tags, line))
        if s is None:
            continue
        index = {}
        for label, pair in s.pairs.items():
            index[frozenset(s.players[p].name for p in pair.players)] = label
        for ln, row in _table(path, tags, rows, "TotalScoreTable"):
            names = clean_name(row.get("Names", ""))
            parts = [clean_name(x) for x in _SPLIT.split(names)] if names else []
            key = frozenset(parts) if len(parts) == 2 else frozenset([names])
            label = index.get(key)
            if label is None:
                fail(path, f"line {ln}", f"TotalScoreTable names {names!r}, who played no board in the file")
            pct_text = row.get("TotalPercentage") or row.get("Percentage") or ""
            if pct_text:
                s.pairs[label].published = number(pct_text, path, f"line {ln} TotalPercentage", "percentage")
                s.pairs[label].decimals = decimals_of(pct_text)


def _key(path, tags, line):
    if "Date" not in tags:
        fail(path, f"line {line}", "no [Date] tag")
    return (clean_name(tags.get("Event", "")) or "PBN session", clean_name(tags.get("Site", "")),
            parse_date(tags["Date"], path, f"line {line} [Date]"), clean_name(tags.get("Section", "")))


def _session(path, tags, line, key_cache):
    key = _key(path, tags, line)
    event, club, day, section = key
    if key not in key_cache:
        scoring = tags.get("Scoring", "MP").upper()
        sc = "butler" if "BUTLER" in scoring else ("cross_imps" if "IMP" in scoring else "mp")
        key_cache[key] = ImportedSession(source=path, event=event, club=club, day=day, event_type="club",
                                         scoring=sc, winners=2, movement="mitchell", section=section,
                                         program=clean_name(tags.get("Generator", "")) or "PBN")
    return key_cache[key]


def _identity(s: ImportedSession, label: str) -> tuple:
    """Two player ids standing for a pair known only by a label."""
    # a pair number ("3", "Pair 3", "3NS") is reused every week: scope it to its session
    scoped = f"{s.club}|{s.date}|{label}" if _NUMBER_LABEL.match(label) else label
    ids = (f"{scoped}#1", f"{scoped}#2")
    for pid in ids:
        s.players.setdefault(pid, Player(pid, label))
    return ids


def _person(s: ImportedSession, name: str) -> str:
    s.players.setdefault(name, Player(name, name))
    return name


def _from_tables(path, games):
    cache: dict = {}
    seen_dir: dict = {}
    for tags, _, line in games:
        if "Board" not in tags:
            continue
        s = _session(path, tags, line, cache)
        where = f"line {line} (board {tags.get('Board')})"
        try:
            board = int(tags["Board"])
        except ValueError:
            fail(path, f"line {line} [Board]", f"{tags['Board']!r} is not a board number")
        names = {seat: clean_name(tags.get(seat, "")) for seat in ("North", "East", "South", "West")}
        for seat, nm in names.items():
            if not nm:
                fail(path, f"{where} [{seat}]", "no player name")
        labels, seat_ids = [], {}
        for a, b, d in (("North", "South", "NS"), ("East", "West", "EW")):
            if names[a] == names[b]:
                players = _identity(s, names[a])
                label = names[a]
            else:
                players = (_person(s, names[a]), _person(s, names[b]))
                label = f"{names[a]} - {names[b]}"
                alt = f"{names[b]} - {names[a]}"
                if alt in s.pairs:
                    label = alt
            seat_ids[a[0]], seat_ids[b[0]] = players
            if label not in s.pairs:
                s.pairs[label] = Pair(label, players, d)
            seen_dir.setdefault((id(s), label), set()).add(d)
            labels.append(label)
        contract = tags.get("Contract", "")
        declarer = tags.get("Declarer", "")
        score_tag = tags.get("Score", "").strip()
        art = parse_artificial(contract) or parse_artificial(score_tag.split()[-1] if score_tag else "")
        if art:
            s.travellers.append(Traveller(board, labels[0], labels[1], None, art, contract, declarer, None, "",
                                          where))
            continue
        if score_tag:
            parts = score_tag.split()
            try:
                value = int(parts[-1])
            except ValueError:
                fail(path, f"{where} [Score]", f"{score_tag!r} is not a score such as 'NS 420'")
            ns_score = -value if parts[0].upper() == "EW" else value
        else:
            if not contract:
                fail(path, where, "no [Contract] and no [Score]")
            ns_score = ns_score_of(board, contract, declarer, tags.get("Result", ""), path, where,
                                   tags.get("Vulnerable"))
        level = parse_contract(contract, path, where)[0] if contract else 0
        tricks = parse_tricks(tags.get("Result", ""), level, path, where) if level and tags.get("Result") else None
        if "Deal" in tags:
            s.deals[board] = (tags.get("Dealer", "N"), tags.get("Vulnerable", ""), tags["Deal"])
        s.travellers.append(Traveller(board, labels[0], labels[1], ns_score, None, contract, declarer, tricks,
                                      "", where, seat_ids))
    if not cache:
        fail(path, "", "no game with a [Board] tag")
    for s in cache.values():
        mixed = any(len(seen_dir.get((id(s), p), ())) > 1 for p in s.pairs)
        if mixed:
            s.winners, s.movement = 1, "howell"
            for p in s.pairs.values():
                p.direction = ""
    return list(cache.values())


def _from_score_tables(path, games, totals):
    cache: dict = {}
    sessions = []
    for tags, rows, line in games:
        if "ScoreTable" not in tags and "TotalScoreTable" not in tags:
            continue
        s = _session(path, tags, line, cache)
        if s not in sessions:
            sessions.append(s)
    for tags, rows, line in totals:
        s = _session(path, tags, line, cache)
        for ln, row in _table(path, tags, rows, "TotalScoreTable"):
            pid = row.get("PairId")
            if not pid:
                fail(path, f"line {ln}", "TotalScoreTable has no PairId column")
            direction = (row.get("Direction") or "").upper()
            label = f"{pid}{direction}" if direction in ("NS", "EW") else pid
            names = clean_name(row.get("Names", ""))
            parts = [clean_name(x) for x in _SPLIT.split(names)] if names else []
            if len(parts) == 2 and all(parts):
                players = (_person(s, parts[0]), _person(s, parts[1]))
            else:
                players = _identity(s, names or pid)
            pct_text = row.get("TotalPercentage") or row.get("Percentage") or ""
            published = number(pct_text, path, f"line {ln} TotalPercentage", "percentage") if pct_text else None
            s.pairs[label] = Pair(label, players, direction if direction in ("NS", "EW") else "", published,
                                  decimals_of(pct_text))
    for s in sessions:
        if not s.pairs:
            fail(path, "", f"session {s.event!r}: no TotalScoreTable naming the pairs")
        if not any(p.direction for p in s.pairs.values()):
            s.winners, s.movement = 1, "howell"
    for tags, rows, line in games:
        if "ScoreTable" not in tags:
            continue
        s = _session(path, tags, line, cache)
        try:
            board = int(tags.get("Board", ""))
        except ValueError:
            fail(path, f"line {line} [Board]", f"{tags.get('Board')!r} is not a board number")
        if "Deal" in tags:
            s.deals[board] = (tags.get("Dealer", "N"), tags.get("Vulnerable", ""), tags["Deal"])
        for ln, row in _table(path, tags, rows, "ScoreTable"):
            where = f"line {ln} (board {board})"
            ns = _pair(path, s, row.get("PairId_NS", ""), "NS", where)
            ew = _pair(path, s, row.get("PairId_EW", ""), "EW", where)
            contract = row.get("Contract", "")
            declarer = row.get("Declarer", "")
            sns, sew = row.get("Score_NS", "-"), row.get("Score_EW", "-")
            art = parse_artificial(contract) or parse_artificial(sns)
            if art:
                s.travellers.append(Traveller(board, ns, ew, None, art, contract, declarer, None, "", where))
                continue
            if sns not in ("", "-"):
                ns_score = int(number(sns, path, f"{where} Score_NS", "score"))
            elif sew not in ("", "-"):
                ns_score = -int(number(sew, path, f"{where} Score_EW", "score"))
            else:
                ns_score = ns_score_of(board, contract, declarer, row.get("Result", ""), path, where,
                                       tags.get("Vulnerable"))
            s.travellers.append(Traveller(board, ns, ew, ns_score, None, contract, declarer, None, "", where))
    return sessions


def _pair(path, s, pid, side, where):
    for cand in (pid, f"{pid}{side}"):
        if cand in s.pairs:
            return cand
    fail(path, where, f"pair {pid!r} is not in the TotalScoreTable ({', '.join(list(s.pairs)[:12])})")
