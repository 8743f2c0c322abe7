"""Real results files -> a results bundle simcore grades, with simcore's own percentages.

``import_paths(paths, out)`` reads every file (USEBIO, PBN, BridgeWebs; told
from the content), drops repeated exports of a session, and writes a bundle:

* ``sessions.csv``, ``travellers.csv`` (real results only), ``teams.csv``
  (team events) — as ``simcore.io.bundle`` documents;
* ``players.csv``   ``player,name,national_id,club_id,member``: the id is the
  national id when a file gives one, else the name; ``member`` is false for
  players without a national id when the import has national ids at all (the
  NGS's "unknown players");
* ``artificial.csv`` ``session,board,ns_pair,ew_pair,score``: the tables
  given an artificial score (``A6040``...), kept apart because a traveller
  holds bridge points.  Schemes grade each pair on the boards it played; the
  artificial boards count in ``session_scores.csv``;
* ``session_scores.csv`` ``session,pair,direction,player1,player2,percentage,published_percentage``:
  ``percentage`` computed by simcore's scoring (``simcore.scoring``, with
  Neuberg for boards played fewer times) from ``travellers.csv`` plus the
  artificial scores under the chosen rule (``simcore.scoring.adjusted``) —
  never copied; in IMP-scored pair events it is the pair's net IMPs, in team
  events the team's IMPs over its matches; ``published_percentage`` is what
  the file says (empty if nothing);
* ``card_play.csv`` with ``--card-play`` (see ``simcore.io.card_play``).

The same session exported twice (same event name, club, date and section)
is read once: the file modified last wins (ties: the one later in path
order), and a note names both files.

Rounds: USEBIO, PBN and BridgeWebs travellers do not say in which round a
board was played, so each meeting of two pairs (two teams in team events)
becomes one round, numbered in order of its first board.  PPI, which
applies boards in the order played, sees the meetings in that order.

Nothing is written to ``out`` unless the whole import succeeds: the bundle
is built in a temporary folder next to it and renamed at the end.
"""

from __future__ import annotations

import csv
import gc
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simcore.io.detect import find_files, read_any
from simcore.io.imported import ImportedSession, ImportFileError
from simcore.scoring.adjusted import check_rule, session_imps, session_percent

SCORE_COLUMNS = ("session", "pair", "direction", "player1", "player2", "percentage", "published_percentage")
ARTIFICIAL_COLUMNS = ("session", "board", "ns_pair", "ew_pair", "score")


@dataclass
class ImportSummary:
    """What an import read and how far simcore's percentages are from the published ones."""
    files: int = 0
    sessions: int = 0
    travellers: int = 0
    artificial: int = 0
    pairs: int = 0
    players: int = 0
    worst_mp: float = float("nan")
    worst_mp_session: str = ""
    worst_mp_rounding: float = float("nan")
    worst_imps: float = float("nan")
    worst_imps_session: str = ""
    notes: list = field(default_factory=list)
    formats: dict = field(default_factory=dict)

    def line(self) -> str:
        text = (f"{self.sessions} sessions, {self.travellers} travellers, {self.pairs} pairs "
                f"({self.players} players, {self.files} files")
        text += (", " + ", ".join(f"{n} {f}" for f, n in sorted(self.formats.items()))) if self.formats else ""
        text += ")"
        if np.isfinite(self.worst_mp):
            text += (f"; worst |percentage - published| {self.worst_mp:.4f} MP % in {self.worst_mp_session}"
                     f" (file rounding {self.worst_mp_rounding:g})")
        else:
            text += "; no published percentages to compare"
        if np.isfinite(self.worst_imps):
            text += f"; worst |IMPs - published| {self.worst_imps:.2f} in {self.worst_imps_session}"
        if self.artificial:
            text += f"; {self.artificial} artificial scores"
        return text


# --- reading ---------------------------------------------------------------------

def read_sessions(paths, notes: list | None = None, formats: dict | None = None):
    """Every session in ``paths`` (files / folders), repeated exports removed; (sessions, files read)."""
    notes = notes if notes is not None else []
    formats = formats if formats is not None else {}
    found = find_files(paths)
    sessions: list[ImportedSession] = []
    n_files = 0
    skipped = []
    for order, (path, named, fmt, got, mtime) in enumerate(_read_all(found)):
        if fmt is None:
            if named:
                raise ImportFileError(f"{path}: not a USEBIO XML, PBN or BridgeWebs CSV file "
                                      f"(told from its content)")
            skipped.append(str(path))
            continue
        n_files += 1
        formats[fmt] = formats.get(fmt, 0) + 1
        for s in got:
            s.mtime = mtime
            s.order = order
        sessions += got
    if skipped:
        notes.append(f"skipped {len(skipped)} file(s) that are not results files: "
                     f"{', '.join(skipped[:5])}{' ...' if len(skipped) > 5 else ''}")
    if not sessions:
        raise ImportFileError(f"no results files found in {', '.join(str(p) for p in paths)}")
    return _drop_repeats(sessions, notes), n_files


def _read_chunk(chunk):
    gc.disable()  # in a worker process: see build_bundle
    out = []
    for path, named in chunk:
        fmt, got = read_any(path)
        out.append((path, named, fmt, got, path.stat().st_mtime))
    return out


PARALLEL_FROM = 256
"""Files from which reading is spread over worker processes (a national year: ~20 000 files)."""


def _read_all(found):
    """(path, named, format, sessions, mtime) of every file, in order; on several processes when many.

    Reading is pure Python per file (XML parsing, checks), so worker processes
    (one per core) share it; the results come back in file order, so the
    import is the same whatever the number of processes.
    """
    workers = min(os.cpu_count() or 1, 8)
    if len(found) < PARALLEL_FROM or workers < 2:
        yield from _read_chunk(found)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    size = max(16, len(found) // (workers * 8))
    chunks = [found[i:i + size] for i in range(0, len(found), size)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for part in pool.map(_read_chunk, chunks):
            yield from part


def _drop_repeats(sessions, notes) -> list:
    keep: dict[tuple, ImportedSession] = {}
    for s in sessions:
        old = keep.get(s.key)
        if old is None:
            keep[s.key] = s
            continue
        if old.source == s.source:
            raise ImportFileError(f"{s.source}: session {s.name!r} appears twice in the same file")
        newer, older = (s, old) if (s.mtime, s.order) >= (old.mtime, old.order) else (old, s)
        notes.append(f"session {s.name!r} is in {older.source} and {newer.source}: "
                     f"using {newer.source} (modified later)")
        keep[s.key] = newer
    return sorted(keep.values(), key=lambda s: (s.day, s.club, s.event, s.section))


# --- bundle ----------------------------------------------------------------------

def _rounds(s: ImportedSession, teams: bool):
    """Round and table of each real traveller: one round per meeting, in order of first board."""
    first: dict = {}
    keys = []
    for t in s.travellers:
        if teams:
            key = frozenset((s.pairs[t.ns].team, s.pairs[t.ew].team))
        else:
            key = (t.ns, t.ew)
        keys.append(key)
        first[key] = min(first.get(key, t.board), t.board)
    order = sorted(first, key=lambda k: (first[k], sorted(k) if teams else k))
    rnd = {k: i + 1 for i, k in enumerate(order)}
    out = []
    for t, key in zip(s.travellers, keys):
        if teams:
            # table 1: the lower-sorted team sits NS
            table = 1 if s.pairs[t.ns].team == sorted(key)[0] else 2
        else:
            table = 1
        out.append((rnd[key], table))
    return out


def _check_session(s: ImportedSession) -> None:
    """A pair plays a board once; a board needs two real results (the rest may be artificial)."""
    seen = {}
    for t in s.travellers:
        for side in (t.ns, t.ew):
            prev = seen.get((side, t.board))
            if prev is not None:
                raise ImportFileError(f"{s.source}, {t.where}: pair {side!r} already played board {t.board} "
                                      f"({prev})")
            seen[(side, t.board)] = t.where
        if t.ns == t.ew:
            raise ImportFileError(f"{s.source}, {t.where}: pair {t.ns!r} is both NS and EW")
    real: dict = {}
    for t in s.travellers:
        if t.ns_score is not None:
            real[t.board] = real.get(t.board, 0) + 1
    for b, n in sorted(real.items()):
        if n == 1:
            raise ImportFileError(f"{s.source}: session {s.name!r}, board {b} has only one real result "
                                  f"(the others artificial or missing); a board needs two to be scored")
    if not real:
        raise ImportFileError(f"{s.source}: session {s.name!r} has no real results")


def _quote(text: str) -> str:
    """A CSV field as csv.writer would write it (quoted only when it must be)."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_bundle_files(sessions, folder: Path) -> dict:
    """sessions.csv, travellers.csv, teams.csv, players.csv and artificial.csv of ``sessions``."""
    players: dict = {}
    for s in sessions:
        for pid, p in s.players.items():
            players.setdefault(pid, p)
    any_national = any(p.national_id for p in players.values())
    n_art = 0
    with open(folder / "players.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(("player", "name", "national_id", "club_id", "member"))
        for pid, p in players.items():
            member = bool(p.national_id) or not any_national
            w.writerow((pid, p.name, p.national_id, p.club_id, "true" if member else "false"))
    has_teams = any(s.teams for s in sessions)
    with open(folder / "sessions.csv", "w", newline="") as fs, \
            open(folder / "travellers.csv", "w", newline="") as ft, \
            open(folder / "artificial.csv", "w", newline="") as fa:
        ws, wt, wa = (csv.writer(f, lineterminator="\n") for f in (fs, ft, fa))
        ws.writerow(("session", "date", "club", "event_type", "scoring", "winners", "movement"))
        wt.writerow(("session", "round", "board", "table", "ns1", "ns2", "ew1", "ew2", "ns_score"))
        wa.writerow(ARTIFICIAL_COLUMNS)
        tm = None
        if has_teams:
            tm_fh = open(folder / "teams.csv", "w", newline="")
            tm = csv.writer(tm_fh, lineterminator="\n")
            tm.writerow(("session", "team", "player1", "player2", "player3", "player4"))
        try:
            for s in sessions:
                _check_session(s)
                name = s.name
                ws.writerow((name, s.date, s.club, s.event_type, s.scoring, s.winners,
                             f"{s.movement}:{s.program or 'imported'}"))
                teams = bool(s.teams)
                rt = _rounds(s, teams)
                q = _quote(name)
                seats = {label: ",".join(_quote(p) for p in pair.players) for label, pair in s.pairs.items()}
                lines = []
                for t, (rnd, table) in zip(s.travellers, rt):
                    if t.ns_score is None:
                        n_art += 1
                        wa.writerow((name, t.board, t.ns, t.ew, f"A{int(t.artificial[0]):02d}{int(t.artificial[1]):02d}"))
                        continue
                    lines.append(f"{q},{rnd},{t.board},{table},{seats[t.ns]},{seats[t.ew]},{t.ns_score}\n")
                ft.write("".join(lines))
                if teams and tm is not None:
                    for team, (p1, p2) in s.teams.items():
                        tm.writerow((name, team) + tuple(s.pairs[p1].players) + tuple(s.pairs[p2].players))
        finally:
            if tm is not None:
                tm_fh.close()
    return {"players": len(players), "artificial": n_art}


def session_scores(sessions, results, scored, rule: str = "ebu") -> dict:
    """The ``SCORE_COLUMNS`` table: simcore's session result of every pair beside the published one."""
    check_rule(rule)
    names = np.asarray(results.player_names, object)
    index = {n: i for i, n in enumerate(names)}
    sess_index = {n: i for i, n in enumerate(results.session_names)}
    rows = []
    for s in sessions:
        k = sess_index[s.name]
        e0, e1 = int(scored.pair_start[k]), int(scored.pair_start[k + 1])
        entry = {}
        for e in range(e0, e1):
            entry[tuple(int(x) for x in scored.pair_players[e])] = e
        art: dict = {}
        for t in s.travellers:
            if t.ns_score is None:
                art.setdefault(t.ns, []).append(t.artificial[0])
                art.setdefault(t.ew, []).append(t.artificial[1])
        for label, pair in s.pairs.items():
            ids = tuple(sorted(index[p] for p in pair.players if p in index))
            e = entry.get(ids) if len(ids) == 2 else None
            if e is None and label not in art:
                continue  # listed but never played (e.g. a withdrawn pair)
            if s.scoring == "teams_imps":
                ms, me = int(scored.match_start[e]), int(scored.match_start[e + 1])
                value = float(np.sum(scored.match_score[ms:me]))
            elif s.scoring == "mp":
                played = float(scored.pair_score[e]) if e is not None else np.nan
                boards = int(scored.pair_boards[e]) if e is not None else 0
                value = session_percent(played, boards, art.get(label, []), rule)
            else:
                played = float(scored.pair_score[e]) if e is not None else 0.0
                value = session_imps(played, art.get(label, []), rule)
            rows.append((s.name, label, pair.direction or "-", pair.players[0], pair.players[1], value,
                         pair.published, pair.decimals, s.scoring))
    return rows


def write_scores(rows, path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(SCORE_COLUMNS)
        for r in rows:
            w.writerow(r[:5] + (repr(float(r[5])), "" if r[6] is None else f"{r[6]:.{r[7]}f}"))


def compare(rows, summary: ImportSummary) -> None:
    """Worst |computed - published| over MP sessions and over IMP pair sessions."""
    for r in rows:
        if r[6] is None:
            continue
        diff = abs(r[5] - r[6])
        if r[8] == "mp":
            if not diff <= summary.worst_mp:  # also replaces the initial NaN
                summary.worst_mp, summary.worst_mp_session = diff, r[0]
                summary.worst_mp_rounding = 0.5 * 10.0 ** -r[7]
        elif r[8] in ("butler", "cross_imps", "teams_imps"):
            if not diff <= summary.worst_imps:
                summary.worst_imps, summary.worst_imps_session = diff, r[0]


def import_paths(paths, out, *, rule: str = "ebu", card_play: bool = False, force: bool = False):
    """Import ``paths`` into the bundle folder ``out``; returns (summary, Results, ScoredResults).

    ``out`` must not exist unless ``force`` (then it is replaced, only once
    the new bundle is complete).
    """
    check_rule(rule)
    out = Path(out)
    if out.exists() and not force and (not out.is_dir() or any(out.iterdir())):
        raise ImportFileError(f"--out {out}: already exists and is not empty (use --overwrite to replace it)")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise ImportFileError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
    try:
        summary, results, scored = build_bundle(paths, tmp, rule=rule, card_play=card_play)
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary, results, scored


def build_bundle(paths, folder: Path, *, rule: str = "ebu", card_play: bool = False):
    """Write the whole bundle into the existing folder ``folder``; (summary, Results, ScoredResults)."""
    # millions of small objects (a traveller each) and no reference cycles: the cyclic garbage
    # collector would rescan them all again and again as they accumulate
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_bundle(paths, folder, rule, card_play)
    finally:
        if enabled:
            gc.enable()


def _expected_plays(sessions, results) -> np.ndarray:
    """Times each board of each session was played, artificial tables included (Neuberg's N)."""
    out = np.zeros(results.n_sessions, np.int64)
    where = {n: i for i, n in enumerate(results.session_names)}
    for s in sessions:
        count: dict = {}
        for t in s.travellers:
            count[t.board] = count.get(t.board, 0) + 1
        out[where[s.name]] = max(count.values(), default=0)
    return out


def _build_bundle(paths, folder: Path, rule: str, card_play: bool):
    from simcore.io.bundle import read_bundle
    from simcore.scoring import score_results
    summary = ImportSummary()
    sessions, summary.files = read_sessions(paths, summary.notes, summary.formats)
    counts = write_bundle_files(sessions, folder)
    results = read_bundle(folder)
    scored = score_results(results, expected_plays=_expected_plays(sessions, results))
    rows = session_scores(sessions, results, scored, rule)
    write_scores(rows, folder / "session_scores.csv")
    if card_play:
        from simcore.io.card_play import write_card_play
        summary.notes += write_card_play(sessions, folder / "card_play.csv")
    summary.sessions = len(sessions)
    summary.travellers = results.n_travellers
    summary.artificial = counts["artificial"]
    summary.pairs = len(rows)
    summary.players = counts["players"]
    compare(rows, summary)
    return summary, results, scored
