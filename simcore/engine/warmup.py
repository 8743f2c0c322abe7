"""Compile the scoring and scheme kernels in a second process while the run compiles the rest of
pass A (first run only).

On an empty kernel cache a run spends most of its first half minute compiling,
one kernel after another (numba compiles under one lock per process).  Pass A
(plan, seating, play, scoring) must be compiled before anything can be graded,
but the scoring and scheme kernels depend only on the array types of the
``Results``, ``ScoredResults`` and ``CardPlay`` contracts, not on what the
world and the bridge model produce.  So ``start(labels)`` spawns
``python -m simcore.engine.warmup FOLDER LABELS``, which scores three small synthetic
sessions (``scoring.score_results``, as pass A calls it) and grades a small
synthetic chunk with the run's scheme variants through the engine's own
pass-B code (``Engine._grade_chunk``), so the kernels are called with the very
types a run uses, and writes them to the shared kernel cache, while this
process compiles the plan, seating and play kernels on the other core.  The
engine waits for the child before grading its first chunk (``Warmup.wait``)
and loads the kernels from the cache instead of compiling them; if pass A
reaches scoring first it loads or compiles those kernels itself.

The work is split into jobs: scoring, then each scheme variant in the run's order (``jobs``).  The
child takes them from the front; when the run reaches its first grading it takes the ones the child
has not started from the back and compiles them itself (``Warmup.wait``), so both cores stay busy
to the end instead of one waiting for the other.  A job is taken by creating its file in a folder
the two processes share (``O_EXCL``: exactly one of them gets it).

Nothing depends on the child for correctness: if it fails, is slow or
compiled a different signature, the run compiles what it lacks itself, as
before.  A marker file in the kernel cache, keyed by the numba and Python
versions and the size and time stamp of every simcore source file (what
numba's own cache checks), says a child has run for this source tree, so
later runs start none.  No child either on a one-core machine, under
``NUMBA_DISABLE_JIT=1``, or with ``SIMCORE_NO_WARMUP=1``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def marker_path() -> Path:
    """The file saying a warm-up child has run for this exact source tree (so its kernels are cached).

    Not keyed by the schemes: once per source tree is enough to halve a first run, and a later run
    with other schemes compiles what it lacks itself, as without warm-up (a test session runs the
    engine with dozens of scheme lists; each would otherwise start a child that only loads kernels).
    The tree's digest is taken once per process (``_tree_digest``): the code a process runs is the
    code it imported, and walking the tree cost ~1.7 ms a run (``simcore bench`` runs the engine
    dozens of times).
    """
    import simcore
    root = Path(simcore.__file__).parent
    return Path(simcore.kernel_cache_dir()) / f"warm-schemes-{_tree_digest(root)}"


@functools.cache
def _tree_digest(root: Path) -> str:
    """16 hex digits of numba's and Python's versions and every source file's name, size and mtime."""
    import numba
    return source_digest(root, numba.__version__)


def source_digest(root: Path, numba_version: str) -> str:
    """16 hex digits of ``numba_version``, Python's version and every ``*.py`` file's path (relative to
    ``root``), size and mtime under ``root``: another edit, another digest."""
    h = hashlib.sha1()
    h.update(repr((numba_version, sys.version)).encode())
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def jobs(labels: list[str]) -> list[str]:
    """The warm-up's jobs: the scoring kernels, then each scheme variant in the run's order.  The child
    starts at the front, so scoring is in the cache before the run's pass A needs it (about half-way
    through the run's compiling).  With scoring last, the child was still compiling it when pass A
    got there, and the run compiled the same kernels again beside it: on a first default run both
    processes compiled ``_score_session_pairs`` and ``_session_matches`` side by side (timeline of
    each compile, loaded machine).  The run takes the scheme jobs the child has not reached from
    the back (``Warmup.wait``)."""
    return ["scoring", *labels]


def take(claims: Path, index: int) -> bool:
    """Take job ``index`` (True), unless the other process has taken it."""
    try:
        os.close(os.open(claims / str(index), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class Warmup:
    """A running warm-up child."""

    def __init__(self, proc: subprocess.Popen, marker: Path, log: Path, claims: Path, labels: list[str]):
        self.proc = proc
        self.marker = marker
        self.log = log
        self.claims = claims
        self.labels = labels

    def wait(self) -> None:
        """Compile, here, the jobs the child has not started (from the back of the list), then wait
        for the child and mark the source tree as warmed up, whether the child succeeded or not (a
        child that fails would fail again: once per source tree is enough; its log stays)."""
        todo, ok = jobs(self.labels), True
        for i in reversed(range(len(todo))):
            if self.proc.poll() is not None or not take(self.claims, i):
                break  # the child is done, or has reached the jobs left: the rest is under way there
            try:
                compile_job(todo[i])
            except Exception:  # noqa: BLE001  the run compiles what it lacks itself; the log says why
                with open(self.log, "a") as out:
                    out.write(f"in the run's process, job {todo[i]!r}:\n{traceback.format_exc()}")
                ok = False
                break
        ok = self.proc.wait() == 0 and ok
        try:
            self.marker.touch()
            if ok:
                self.log.unlink(missing_ok=True)
        except OSError:
            pass  # the run goes on; the next one may start a child again
        shutil.rmtree(self.claims, ignore_errors=True)

    def stop(self) -> None:
        """End the child if it still runs (the run failed before grading) and remove the job folder."""
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.claims, ignore_errors=True)


def start(labels: list[str]) -> Warmup | None:
    """Start compiling the scoring kernels and ``labels``' scheme kernels in a child process, unless a
    child has run for this source tree (the marker), the machine has one core, or warm-up is switched
    off; None when no child runs."""
    import numba
    if numba.config.DISABLE_JIT or os.environ.get("SIMCORE_NO_WARMUP") or _cores() < 2:
        return None
    marker = marker_path()
    if marker.exists():
        return None
    log = marker.with_suffix(".log")
    import simcore
    env = {**os.environ, "NUMBA_CACHE_DIR": simcore.kernel_cache_dir(), "NUMBA_NUM_THREADS": "1"}
    # the child imports the same simcore as this process (a checkout or an installed copy): first on its
    # path, and its working folder, which ``python -m`` puts before everything.  From the working folder
    # a run of the ``simcore`` command in a clone (the installed copy) started a child that imported the
    # clone's copy instead, whose kernels numba caches under other names (by source path): the run then
    # compiled everything again itself, 36.9 s against 18.9 s run from elsewhere (empty cache)
    root = str(Path(simcore.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        claims = Path(tempfile.mkdtemp(prefix="warm-claims-", dir=marker.parent))
        with open(log, "w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "simcore.engine.warmup", str(claims), *labels],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root)
    except OSError:
        return None  # a cache folder we cannot write to: numba will not cache either; compile here
    return Warmup(proc, marker, log, claims, list(labels))


def synthetic_chunk(n_players: int = 24, n_sessions: int = 40):
    """A small Chunk of two-winner Mitchell sessions and card-play records, with the contracts' dtypes.
    Players play most sessions, more than a history ring first holds (``schemes.decay.MIN_CAPACITY``),
    so the kernels that grow the rings compile too."""
    import numpy as np

    from simcore.scoring.synthetic import synthetic_pairs
    from simcore.results import CardPlay
    from simcore.simulate.chunk import Chunk

    scored = synthetic_pairs(n_sessions, tables=5, n_players=n_players, seed=1)
    n = 2 * n_players
    card = CardPlay(player=np.arange(n, dtype=np.int32) % n_players, day=np.full(n, scored.day[-1], np.int32),
                    boards=np.full(n, 24, np.int32), imps_lost=np.linspace(0.0, 30.0, n))
    # more partnerships than a new state holds, so the schemes' growing kernels compile too
    return Chunk(results=None, scored=scored, card=card, n_partnerships=4096,
                 player_boards=0, boards=np.zeros(n_players, np.int64), first_day=int(scored.day[0]),
                 true_pair=np.zeros(scored.n_entries))


def synthetic_results():
    """Results of three small sessions (a two-winner Mitchell at match points, a Swiss pairs at cross-IMPs,
    a Swiss teams match), travellers sorted as the contract asks: what the scoring kernels are called on."""
    import numpy as np

    from simcore.results import MOVEMENT_KINDS, SCORINGS, Results

    rows, teams = [], []  # rows: (session, round, board, table, ns pair, ew pair, NS score)
    pair = lambda k: (2 * k, 2 * k + 1)  # noqa: E731  (pair k: players 2k, 2k+1)
    scores = (420, -50, 110, 620, -100, 140, 450, -200)
    for rnd in (1, 2):  # Mitchell, 3 tables: NS pairs 0-2 stay, EW pairs 3-5 move up one table a round
        for t in range(3):
            for q in range(2):
                board = 2 * ((t - rnd) % 3) + q + 1
                rows.append((0, rnd, board, t + 1, pair(t), pair(3 + (t + rnd) % 3), scores[(t + q + rnd) % 8]))
    for t, (ns, ew) in enumerate(((0, 1), (2, 3))):  # Swiss pairs: one round, both tables play boards 1-2
        for board in (1, 2):
            rows.append((1, 1, board, t + 1, pair(ns), pair(ew), scores[(t + board) % 8]))
    teams = [(pair(0), pair(1)), (pair(2), pair(3))]  # Swiss teams: team 0 (pairs 0, 1) against team 1
    for board in (1, 2):
        rows.append((2, 1, board, 1, pair(0), pair(3), scores[board]))
        rows.append((2, 1, board, 2, pair(2), pair(1), scores[board + 3]))
    rows.sort(key=lambda r: r[:4])
    col = lambda i: np.array([r[i] for r in rows], np.int32)  # noqa: E731
    kinds = [MOVEMENT_KINDS.index(k) for k in ("mitchell", "swiss_pairs", "swiss_teams")]
    scoring = [SCORINGS.index(k) for k in ("mp", "cross_imps", "teams_imps")]
    P = 12
    return Results(
        session_names=np.array(["mitchell", "swiss pairs", "swiss teams"], object),
        session_day=np.full(3, 19000, np.int32), session_club=np.zeros(3, np.int32),
        session_event=np.zeros(3, np.int8), session_scoring=np.array(scoring, np.int8),
        session_winners=np.array([2, 1, 2], np.int8), session_kind=np.array(kinds, np.int8),
        session_movement=np.array(["mitchell", "swiss_pairs", "swiss_teams"], object),
        session_boards=np.array([6, 2, 2], np.int32),
        trav_session=col(0), trav_round=col(1), trav_board=col(2), trav_table=col(3),
        trav_ns=np.array([r[4] for r in rows], np.int32), trav_ew=np.array([r[5] for r in rows], np.int32),
        trav_ns_score=col(6), team_session=np.full(2, 2, np.int32),
        team_players=np.array([[*a, *b] for a, b in teams], np.int32), team_names=np.array(["A", "B"], object),
        player_names=np.array([f"p{i}" for i in range(P)], object), player_member=np.ones(P, bool),
        player_at_start=np.ones(P, bool), player_initial_grade=np.full(P, np.nan),
        club_names=np.array(["club"], object))


def compile_job(job: str) -> None:
    """Compile one of the ``jobs``: score synthetic results as pass A does (``"scoring"``), or
    grade a synthetic chunk with one variant the way the engine does (its kernels end up in the cache).
    Its own engine and scheme states: nothing of a run is touched."""
    import numpy as np

    if job == "scoring":
        from simcore.scoring import PartnershipTable, score_results
        results = synthetic_results()
        results.check()
        score_results(results, partnerships=PartnershipTable())
        return
    from simcore.engine import Engine, _Replicate
    from simcore.schemes import PlayerTable

    engine = Engine("default", schemes=[job], threads=1)
    chunk = synthetic_chunk()
    P = len(chunk.boards)
    players = PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan))
    rep = _Replicate(index=0, key=np.uint64(1), world=None, pool=None, players=players,
                     player_names=np.array([f"p{i}" for i in range(P)], object))
    day = int(chunk.scored.day[-1]) + 1
    for v in engine.variants:
        rep.states[v.label] = v.scheme.new_state(players, 1024)
        engine._grade_chunk(rep, v, chunk, day)
        v.scheme.revise(rep.states[v.label], np.array([day], np.int64))


def compile_schemes(labels: list[str], claims: Path | None = None) -> None:
    """Compile every job of ``jobs(labels)`` in order (a first run's kernels end up in the cache);
    with ``claims``, only those the run has not taken (``take``)."""
    for i, job in enumerate(jobs(labels)):
        if claims is None or take(claims, i):
            compile_job(job)


if __name__ == "__main__":
    import gc
    # compiling with the cyclic collector off, as the run's own process compiles (inside the engine:
    # engine.memory.no_cycle_collection): with it on, ~1 900 collections over numba's objects took
    # 2.7-3.2 s of the child's 25-30 s of CPU (gc.callbacks, the four default schemes' jobs and scoring
    # on an empty cache, this machine in a slow spell), for ~160 MB more at its peak (310 -> 474 MB)
    gc.disable()
    compile_schemes(sys.argv[2:], Path(sys.argv[1]))
    # the run waits for this process to end: skip the shutdown's garbage collections over the ~130 000
    # objects compiling leaves (0.6-0.7 s of the child's life, as for the simcore command: cli.command)
    gc.freeze()
