"""Compile the scheme kernels in a second process while the run compiles pass A (first run only).

On an empty kernel cache a run spends most of its first half minute compiling,
one kernel after another (numba compiles under one lock per process).  Pass A
(plan, seating, play, scoring) must be compiled before anything can be graded,
but the schemes' kernels depend only on the array types of the
``ScoredResults`` and ``CardPlay`` contracts, not on pass A's output.  So
``start(labels)`` spawns ``python -m simcore.engine.warmup LABELS``, which
grades a small synthetic chunk with the run's scheme variants through the
engine's own pass-B code (``Engine._grade_chunk``, so the kernels are called
with the very types a run uses) and writes them to the shared kernel cache,
while this process compiles pass A on the other core.  Before grading its
first chunk the engine waits for the child (``Warmup.wait``) and then loads
the scheme kernels from the cache instead of compiling them.

Nothing depends on the child for correctness: if it fails, is slow or
compiled a different signature, the run compiles what it lacks itself, as
before.  A marker file in the kernel cache, keyed by the schemes' names, the
numba and Python versions and the size and time stamp of every simcore source
file (what numba's own cache checks), says the kernels are already there, so
later runs start no child.  No child either on a one-core machine, under
``NUMBA_DISABLE_JIT=1``, or with ``SIMCORE_NO_WARMUP=1``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def marker_path(labels: list[str]) -> Path:
    """The file saying the kernels of these variants' schemes are in the cache for this exact source
    tree.  Keyed by scheme name, not variant: parameters are values, not types, for the kernels
    (a variant that does compile another kernel just compiles it in the run, as without warm-up)."""
    import numba

    import simcore
    from simcore.schemes import parse_variant
    names = sorted({parse_variant(label)[0] for label in labels})
    h = hashlib.sha1()
    h.update(repr((names, numba.__version__, sys.version)).encode())
    root = Path(simcore.__file__).parent
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return Path(simcore.kernel_cache_dir()) / f"warm-schemes-{h.hexdigest()[:16]}"


class Warmup:
    """A running warm-up child."""

    def __init__(self, proc: subprocess.Popen, marker: Path, log: Path):
        self.proc = proc
        self.marker = marker
        self.log = log

    def wait(self) -> None:
        """Wait for the child; if it succeeded, mark its kernels as cached for later runs."""
        if self.proc.wait() == 0:
            self.marker.touch()
            self.log.unlink(missing_ok=True)  # kept only when the child failed


def start(labels: list[str]) -> Warmup | None:
    """Start compiling ``labels``' scheme kernels in a child process, unless they are cached already
    (the marker), the machine has one core, or warm-up is switched off; None when no child runs."""
    import numba
    if numba.config.DISABLE_JIT or os.environ.get("SIMCORE_NO_WARMUP") or _cores() < 2:
        return None
    marker = marker_path(labels)
    if marker.exists():
        return None
    marker.parent.mkdir(parents=True, exist_ok=True)
    log = marker.with_suffix(".log")
    import simcore
    env = {**os.environ, "NUMBA_CACHE_DIR": simcore.kernel_cache_dir(), "NUMBA_NUM_THREADS": "1"}
    # the child imports the same simcore as this process (a checkout or an installed copy)
    root = str(Path(simcore.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "simcore.engine.warmup", *labels],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
    return Warmup(proc, marker, log)


def synthetic_chunk(n_players: int = 120, n_sessions: int = 12):
    """A small Chunk of two-winner Mitchell sessions and card-play records, with the contracts' dtypes."""
    import numpy as np

    from simcore.bench.synthetic import synthetic_pairs
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


def compile_schemes(labels: list[str]) -> None:
    """Grade a synthetic chunk with every variant in ``labels`` the way the engine does (first run's
    kernels end up in the cache)."""
    import numpy as np

    from simcore.engine import Engine, _Replicate
    from simcore.schemes import PlayerTable

    engine = Engine("default", schemes=labels, threads=1)
    chunk = synthetic_chunk()
    P = len(chunk.boards)
    players = PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan))
    rep = _Replicate(index=0, key=np.uint64(1), world=None, pool=None, players=players,
                     player_names=np.array([f"p{i}" for i in range(P)], object))
    for v in engine.variants:
        rep.states[v.label] = v.scheme.new_state(players, 1024)
    day = int(chunk.scored.day[-1]) + 1
    for v in engine.variants:
        engine._grade_chunk(rep, v, chunk, day)
        v.scheme.revise(rep.states[v.label], np.array([day], np.int64))


if __name__ == "__main__":
    compile_schemes(sys.argv[1:])
