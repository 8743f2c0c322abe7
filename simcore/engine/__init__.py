"""The engine: every scheme variant grades the same simulated world.

``run(scenario, schemes=..., replicates=R, years=Y, seed=S)`` simulates R
independent replicate populations of a scenario week by week and grades
every session under every requested scheme variant from the very same
results (common random numbers), recording snapshots of true strengths and
grades.  It returns an ``xarray.Dataset`` (see ``engine.dataset.DATASET_DOC``).

The calendar is cut into chunks that end at snapshot times (every week or
at the first week of each month).  For each chunk and replicate:

* pass A (simulation, never reads a grade; ``simulate.chunk.play_chunk``, then ``score_chunk``):
  the world plans who plays where with whom, each session is seated by its
  movement (``movements.seating``), played (``simulate.play``: bridge model
  scores and card play), assembled as ``Results`` and scored
  (``scoring.score_results``);
* pass B (grading): every scheme variant applies the chunk's
  ``ScoredResults`` (IMPs-lost: the chunk's card-play records) to its state;
* at the chunk's end every variant's grades and the true strengths are
  recorded.

Parallelism: pass A of a (replicate, chunk) and pass B of a (replicate,
variant, chunk) are tasks on a pool of threads running nogil numba kernels
(``engine.pool``), each submitted as soon as its inputs exist, pass A first:
pass A runs up to ``LOOKAHEAD`` - 1 chunks ahead of grading, and replicates
and variants never wait for each other.  With several replicates and cores
(and the kernels already compiled), the replicates are dealt to forked
worker processes instead, one a core, each running its replicates' tasks so
(``engine.processes``: threads of one process slow each other's tasks
down).  Every task's output depends only on its inputs and every random
draw comes from a stream keyed by (replicate key, unit), so the Dataset is
bit-identical whatever the thread count or process layout.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from simcore.bridge.model import BridgeModelParams, build_pool
from simcore.engine import processes
from simcore.engine.dataset import build_dataset, extra_variable, player_labels
from simcore.engine.pool import TaskPool
from simcore.engine.session_stats import fr18_chunk
from simcore.results import Results, days_to_months
from simcore.rng import child_key, replicate_keys
from simcore.scenario import Scenario, load_scenario, with_overrides
from simcore.schemes import (CARD_PLAY, PlayerTable, default_schemes, make_scheme, parse_variant, scheme_names,
                             split_variants, variant_label)
from simcore.scoring import PartnershipTable
from simcore.simulate.chunk import Chunk, PassA, Played, play_chunk, score_chunk
from simcore.world import World, active_on, build_world, strength_on

# chunks of a replicate played but not yet graded by every variant, at most (the one being played
# counted): 2 lets the play and scoring of the next chunk run beside the grading of this one, as much
# memory as before this scheduler (a national month's results: ~0.1 GB a chunk).  Replaying the task
# CPU times of a national decade on two idle workers: 46.8 s with 2, 46.4 s with 3 (-1 %; +1 chunk)
LOOKAHEAD = 2

# --- scheme variants --------------------------------------------------------------

@dataclass
class Variant:
    """A scheme with parameter overrides, labelled e.g. ``ngs(gain=2)``."""

    label: str
    name: str
    overrides: dict
    scheme: object


def resolve_schemes(schemes) -> list[Variant]:
    """Variants from ``"ngs,ngs(gain=2),ppi"`` or a list of such strings; None: the default variants."""
    if schemes is None:
        schemes = default_schemes()
    items = split_variants(schemes) if isinstance(schemes, str) else list(schemes)
    if not items:
        raise ValueError("no scheme given; choose from " + ", ".join(scheme_names()))
    out, seen = [], set()
    for text in items:
        name, overrides = parse_variant(text)
        try:
            scheme = make_scheme(name, overrides)
        except ModuleNotFoundError:
            raise ValueError(f"scheme {name!r} is not available in this build") from None
        label = variant_label(name, overrides)
        if label in seen:
            raise ValueError(f"scheme variant {label!r} is given twice")
        seen.add(label)
        out.append(Variant(label, name, overrides, scheme))
    return out


def _extra_rows(variants) -> dict[str, list[int]]:
    """Dataset extra variable -> the indices of the variants that publish it, in order."""
    rows: dict[str, list[int]] = {}
    for j, v in enumerate(variants):
        for key in v.scheme.snapshot_extras:
            rows.setdefault(extra_variable(v.name, key), []).append(j)
    return rows


# --- calendar chunks ------------------------------------------------------------------

def chunk_weeks(world: World, snapshot: str) -> list[tuple[int, int]]:
    """[(first_week, stop_week)]: chunks ending at each snapshot."""
    n = world.n_weeks
    if snapshot == "weekly":
        ends = list(range(1, n + 1))
    else:
        starts = world.start_day + 7 * np.arange(n + 1)
        months = days_to_months(starts)
        ends = [w for w in range(1, n + 1) if months[w] != months[w - 1]]
        if not ends or ends[-1] != n:
            ends.append(n)
    out, first = [], 0
    for e in ends:
        out.append((first, e))
        first = e
    return out


# the threads' snapshot arrays (``Engine._outputs``): every cell is written by the run (a test swaps in a
# marker-filled allocator)
_output_array = np.empty


# --- replicate state -----------------------------------------------------------------

@dataclass
class _Replicate:
    index: int
    key: np.uint64
    world: World
    pool: object
    players: PlayerTable
    player_names: np.ndarray
    partnerships: PartnershipTable = field(default_factory=PartnershipTable)
    states: dict = field(default_factory=dict)
    n_sessions: int = 0
    boards: np.ndarray | None = None
    bundle_parts: list = field(default_factory=list)
    card_records: list = field(default_factory=list)


def _digest(chunk: Chunk, card: bool) -> str:
    """Fingerprint of the results a pass-B task graded (for the same-results test)."""
    import hashlib
    h = hashlib.sha1()
    if card:
        for a in (chunk.card.player, chunk.card.boards, chunk.card.imps_lost):
            h.update(np.ascontiguousarray(a).tobytes())
    else:
        r, sc = chunk.results, chunk.scored
        for a in (r.trav_ns, r.trav_ew, r.trav_board, r.trav_ns_score, sc.trav_ns_mp, sc.pair_score):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class _Progress:
    """The run's progress bar (weeks simulated, throughput) and, while numba compiles kernels on a
    first run, a line saying so with the count of functions compiled and the seconds spent."""

    def __init__(self, name: str):
        self.name = name
        self.bar = None
        self.note = None
        self.rate = ""
        import threading
        self.lock = threading.Lock()

    def start(self, weeks: int):
        from tqdm import tqdm
        with self.lock:
            self.bar = tqdm(total=weeks, unit="week", desc=f"simcore {self.name}", dynamic_ncols=True)
        return self.bar

    def advance(self, weeks: int, rate: float) -> None:
        with self.lock:
            self.rate = f"{rate:.1f} M player-boards/s"
            self.bar.set_postfix_str(self.rate, refresh=False)
            self.bar.update(weeks)

    def compiling(self, watch) -> None:
        """``watch_compiles`` callback (any thread): one line, kept above the bar until the run ends
        (on a terminal; elsewhere it is said once, so logs do not fill with updates)."""
        import sys

        from tqdm import tqdm
        with self.lock:
            if not sys.stderr.isatty():
                if self.note is None:
                    self.note = True
                    tqdm.write("compiling kernels (first run only) ...", file=sys.stderr)
                return
            if self.note is None:
                self.note = tqdm(total=0, bar_format="{desc}", leave=True)
            state = (f"{watch.count} functions, {watch.elapsed():.0f} s" if watch.compiling else
                     f"{watch.count} functions in {watch.elapsed():.1f} s (cached for later runs)")
            self.note.set_description_str(f"compiling kernels (first run only): {state}")

    def close(self) -> None:
        with self.lock:
            if self.note is not None and self.note is not True:  # ``in`` would call tqdm's __eq__
                self.note.close()
            self.note = None
            if self.bar is not None:
                self.bar.close()


class _WorkerProgress:
    """A share's progress (``Engine._run_processes``): weeks shown and throughput, written to a row of
    shared memory the parent reads to draw the bar."""

    def __init__(self, row: np.ndarray, tick=None):
        self.row = row
        self.tick = tick  # in the parent's own share: redraw the bar now

    def start(self, weeks: int):
        return self

    def advance(self, weeks: int, rate: float) -> None:
        self.row[1] = rate
        self.row[0] += weeks  # last: the parent reads the weeks, then the rate
        if self.tick is not None:
            self.tick()


class Engine:
    """One run: configuration, replicate states, snapshots; ``run()`` drives it."""

    def __init__(self, scenario, schemes=None, replicates=1, years=None, seed=0, snapshot=None,
                 threads=None, trace=False, bundle_dir=None, model: BridgeModelParams | None = None,
                 progress=False, session_stats=False, processes=True):
        sc = load_scenario(scenario) if not isinstance(scenario, Scenario) else scenario
        if years is not None:
            if isinstance(years, bool) or not isinstance(years, (int, float)) or not 0 < years <= 100:
                raise ValueError(f"years={years!r}: give a number of years in (0, 100]")
            sc = with_overrides(sc, {"calendar.years": float(years)})
        if snapshot is not None:
            sc = with_overrides(sc, {"calendar.snapshot": snapshot})
        if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
            raise ValueError(f"replicates={replicates!r}: give a positive integer")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed={seed!r}: give a non-negative integer")
        if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
            raise ValueError(f"threads={threads!r}: give a positive integer")
        if not isinstance(processes, bool):
            raise ValueError(f"processes={processes!r}: give True (worker processes where the run allows) or False")
        self.scenario = sc
        self.variants = resolve_schemes(schemes)
        self.replicates = int(replicates)
        self.seed = int(seed)
        self.threads = int(threads or os.cpu_count() or 1)
        self.processes = processes  # may replicates run in worker processes (``_worker_processes``)
        self.workers = 1  # worker processes of the last run (1: threads of this process)
        self.trace = bool(trace)
        self.bundle_dir = bundle_dir
        self.model = model or BridgeModelParams()
        self.progress = progress
        self.card_play = any(v.scheme.reads == CARD_PLAY for v in self.variants)
        self.session_stats = bool(session_stats)
        self.trace_rows: list = []
        self.graded: dict = {}  # with trace: (replicate, variant) -> digests of what it graded
        self.timing = {"pass_a": 0.0, "pass_b": 0.0, "snapshot": 0.0}
        self.compile_seconds = 0.0  # seconds of the last run spent compiling kernels (first run only)
        self._worker_compile_seconds = 0.0

    # -- setup -------------------------------------------------------------------------
    def _new_replicate(self, r: int, key, world: World | None = None) -> _Replicate:
        world = world if world is not None else build_world(self.scenario, key)
        P = world.n_players
        players = PlayerTable(world.member.copy(), world.at_start.copy(), np.full(P, np.nan))
        pool = build_pool(self.model, child_key(key, 0xB0A7D))
        rep = _Replicate(index=r, key=np.uint64(key), world=world, pool=pool, players=players,
                         player_names=np.array([f"p{i}" for i in range(P)], object))
        rep.boards = np.zeros(P, np.int64)
        for v in self.variants:
            rep.states[v.label] = v.scheme.new_state(players, 1024)
        return rep

    # -- pass A ------------------------------------------------------------------------
    def _pass_a(self, rep: _Replicate, first_week: int, stop_week: int) -> Chunk:
        """Pass A of one chunk in one call (the run splits it into ``_play`` and ``_score`` tasks)."""
        return self._score(rep, self._play(rep, first_week, stop_week))

    def _play(self, rep: _Replicate, first_week: int, stop_week: int) -> Played:
        """Plan, seat and play a chunk.  Chunks of a replicate are played in order (their sessions are
        numbered on from the last chunk's), but may run beside the scoring of earlier ones."""
        w = rep.world
        setup = PassA(rep.key, rep.pool, self.model, self.scenario.partnerships.form_sd, self.card_play,
                      w.card_play - w.base_strength)
        played = play_chunk(w, first_week, stop_week, setup, first_session=rep.n_sessions, players=rep.players,
                            player_names=rep.player_names)
        rep.n_sessions += played.n_sessions
        return played

    def _score(self, rep: _Replicate, played: Played) -> Chunk:
        """Score a played chunk; a replicate's chunks in order (its partnership table grows)."""
        chunk = score_chunk(played, rep.partnerships, self.card_play, rep.world.n_players)
        if rep.index == 0 and self.bundle_dir is not None:
            rep.bundle_parts.append(chunk.results)
            if chunk.card is not None:
                rep.card_records.append(chunk.card)
        return chunk

    # -- pass B ------------------------------------------------------------------------
    def _pass_b(self, rep: _Replicate, v: Variant, chunk: Chunk):
        state = rep.states[v.label]
        if self.trace:
            self.graded.setdefault((rep.index, v.label), []).append(_digest(chunk, v.scheme.reads == CARD_PLAY))
        if v.scheme.reads == CARD_PLAY:
            card = chunk.card
            out = np.empty((len(card.player), len(v.scheme.out_columns)))
            v.scheme.apply_trusted(state, card, out)  # pass A's own records (score_chunk), checked where made
            return (("card", out) if (self.trace and rep.index == 0) else None), None
        state = v.scheme.grow(state, max(chunk.n_partnerships, 1))
        rep.states[v.label] = state
        stats = None
        if self.session_stats:
            before = v.scheme.grades(state, chunk.first_day)
            stats = fr18_chunk(chunk.results, chunk.scored, before, chunk.true_pair)
        tracing = self.trace and rep.index == 0
        if not tracing and v.scheme.optional_out_after:
            out = None  # nobody reads the post-session grades: the scheme may skip them
        else:
            out = np.full((chunk.scored.n_entries, 2), np.nan)
        # a corrected session counted once; the chunk is simcore's own scoring, checked where it is made
        v.scheme.apply_trusted(state, v.scheme.for_grading(chunk.scored), out)
        return (("sessions", out) if tracing else None), stats

    def _grade_chunk(self, rep: _Replicate, v: Variant, chunk: Chunk, day: int):
        """Pass B, then the variant's snapshot on ``day``: (traced, stats, grades, int8 extras by name)."""
        traced, stats = self._pass_b(rep, v, chunk)
        state = rep.states[v.label]
        grades_now = v.scheme.grades(state, day)
        extras_now = {}
        keep = v.scheme.snapshot_extras
        if keep:
            more = v.scheme.extras(state, day)
            for key in keep:
                values = np.asarray(more[key])
                if values.dtype.kind not in "biu":  # codes as floats, NaN for none (-1); bools and ints as they are
                    values = np.asarray(values, np.float64)
                    values = np.where(np.isnan(values), -1, values)
                extras_now[extra_variable(v.name, key)] = values.astype(np.int8)
        return traced, stats, grades_now, extras_now

    def _wait_warmup(self) -> None:
        """A task: compile the warm-up jobs the child has not started, then wait for it (``engine.warmup``)."""
        with self._compile_watch.waiting():
            self._warmup.wait()

    # -- the run -----------------------------------------------------------------------
    def run(self):
        """Simulate and grade; returns the Dataset.  Time spent compiling kernels (a first run only)
        is kept in ``compile_seconds`` and out of the throughput shown."""
        from simcore._jit import watch_compiles
        from simcore.engine import memory, warmup
        self._progress = _Progress(self.scenario.name) if self.progress else None
        self._worker_compile_seconds = 0.0  # the slowest worker's compiling, this run
        # on a first run, the schemes' kernels compile in a child process meanwhile (engine.warmup)
        self._warmup = warmup.start([v.label for v in self.variants])
        memory.keep_freed_memory()  # a chunk's freed arrays serve the next one (engine.memory)
        try:
            with (memory.no_cycle_collection(),
                  memory.small_pages(),  # numpy's huge-page advice costs system time here (engine.memory)
                  watch_compiles(self._progress.compiling if self._progress else None) as watch):
                self._compile_watch = watch
                return self._run()
        finally:
            if self._warmup is not None:
                self._warmup.stop()  # still running only if the run failed before grading
            self.compile_seconds = watch.seconds + self._worker_compile_seconds
            if self._progress is not None:
                self._progress.close()

    def _worker_processes(self) -> int:
        """Worker processes for this run: one per core up to one per replicate (``engine.processes``), or
        1 (threads of this process): a single replicate, one thread, a first run (kernels being
        compiled), ``processes=False``, or no ``fork`` here."""
        if (not self.processes or self.replicates < 2 or self.threads < 2 or self._warmup is not None
                or not processes.available()):
            return 1
        return min(self.threads, self.replicates)

    def _run(self):
        keys = replicate_keys(self.seed, self.replicates)
        self.workers = workers = self._worker_processes()
        if workers > 1:
            return self._run_processes(keys, workers)
        with TaskPool(self.threads) as pool:
            reps = self._build_replicates(pool, keys, range(self.replicates))
            out = self._outputs(reps[0].world, _output_array)
            self._run_chunks(pool, reps, out)
        return self._dataset(out, [player_labels(rep.world) for rep in reps.values()])

    def _build_replicates(self, pool: TaskPool, keys, indices, world0: World | None = None) -> dict:
        """{replicate: _Replicate} for ``indices``, built on ``pool`` (replicate 0 on ``world0`` if given)."""
        reps = {}

        def built(r, rep, seconds):
            reps[r] = rep

        for r in indices:
            pool.submit((0, r), r, self._new_replicate, r, keys[r], world0 if r == 0 else None)
        pool.drain(built)
        return dict(sorted(reps.items()))

    def _run_processes(self, keys, workers: int):
        """The run with replicates dealt round-robin to ``workers`` processes (``engine.processes``): forked
        ones, and this one, which takes a smallest share (replicate 0's on the world it built to size the
        outputs if the shares are even); each runs its replicates' tasks on ``threads // workers`` threads (``_share``).  The
        snapshots land in shared memory, the rest (world labels, FR18 sums, timings, traces) comes back
        when a worker's share ends."""
        processes.ready(workers)
        world0 = build_world(self.scenario, keys[0])
        out = self._outputs(world0, processes.shared_empty)
        groups = [list(range(i, self.replicates, workers)) for i in range(workers)]
        # the last share is this process's: a smallest one (it builds the Dataset after), replicate 0's if
        # the shares are even (its world is world 0)
        groups.sort(key=lambda g: (-len(g), 0 in g))
        shown = processes.shared_full((workers, 2), 0.0, np.float64)  # per share: weeks shown, M pb/s
        if self._progress is not None:
            self._progress.start(world0.n_weeks)
        started = time.perf_counter()

        bar, done = self._progress, [0.0]

        def tick():
            # the bar (this process's _Progress): as far as the slowest share has got
            weeks = shown[:, 0].min()
            if weeks > done[0]:
                bar.advance(int(weeks - done[0]), float(shown[:, 1].sum()))
                done[0] = weeks

        work = _Share(self, keys, out, shown, tick if bar is not None else None, world0)
        results = processes.fork_workers(groups, work, work.tick)
        self.elapsed = time.perf_counter() - started
        players, fr18 = {}, {}
        for i, res in enumerate(results):
            players.update(res["players"])
            for key, arr in res["fr18"].items():
                merged = fr18.setdefault(key, np.full(arr.shape, np.nan))
                merged[groups[i]] = arr[groups[i]]
            if "timing" in res:  # a forked worker's share
                for key, seconds in res["timing"].items():
                    self.timing[key] += seconds
                self.player_boards += res["player_boards"]
                self.trace_rows += res["trace_rows"]
                self.graded.update(res["graded"])
                self._worker_compile_seconds = max(self._worker_compile_seconds, res["compile_seconds"])
        out["fr18"] = fr18
        return self._dataset(out, [players[r] for r in range(self.replicates)])

    def _share(self, i: int, group: list, forked: bool, job: _Share) -> dict:
        """Replicates ``group`` of a run in worker processes, share ``i`` (``_run_processes``): built and run
        on ``threads // workers`` threads, their snapshots written to ``job.out``'s shared arrays; returns
        their world labels and FR18 sums and, in a worker (``forked``), its timings, traces and compiling."""
        if forked and "_compile_watch" not in vars(self):
            return self._kept_share(i, group, job)
        # each share's progress goes to its row of shared memory; the parent draws the bar from them
        # (while it waits for the workers, and as its own share advances)
        bar = self._progress
        if self.progress:
            self._progress = _WorkerProgress(job.shown[i], None if forked else job.tick)
        if forked:  # a worker reports only its own share's timings and traces
            self._compile_watch.on_change = None
            self.timing, self.trace_rows, self.graded = dict.fromkeys(self.timing, 0.0), [], {}
            compiled_before = self._compile_watch.seconds
        try:
            with TaskPool(max(1, self.threads // len(job.shown))) as pool:
                reps = self._build_replicates(pool, job.keys, group, job.world0)
                self._run_chunks(pool, reps, job.out)
        finally:
            self._progress = bar
        share = {"players": {r: player_labels(rep.world) for r, rep in reps.items()}, "fr18": job.out["fr18"]}
        if forked:  # this process's own share wrote the rest into self already
            share.update(timing=self.timing, player_boards=self.player_boards, trace_rows=self.trace_rows,
                         graded=self.graded, compile_seconds=self._compile_watch.seconds - compiled_before)
        return share

    def _kept_share(self, i: int, group: list, job: _Share) -> dict:
        """``_share`` in a kept worker (``processes.keep_workers``), on a copy of the engine sent for it:
        the run's settings that ``run`` makes in the parent (no warm-up child, the collector off,
        compilations counted)."""
        from simcore._jit import watch_compiles
        from simcore.engine import memory
        self._warmup, self._progress = None, None
        with memory.no_cycle_collection(), watch_compiles(None) as watch:
            self._compile_watch = watch
            return self._share(i, group, True, job)

    def __getstate__(self):
        # a copy for a kept worker: without this run's progress bar, compile watch and warm-up child, nor
        # the traces of earlier runs (a worker reports its share's own)
        state = {k: v for k, v in vars(self).items() if k not in ("_progress", "_compile_watch", "_warmup")}
        return {**state, "trace_rows": [], "graded": {}}

    def _outputs(self, world0: World, empty) -> dict:
        """The run's calendar chunks and its snapshot arrays, from ``empty(shape, dtype)`` (``np.empty``;
        ``processes.shared_empty`` for worker processes): grade (R, V, T, P), truth, active, boards
        (R, T, P), each extra's int8 codes (R, variants publishing it, T, P); fr18 (filled as it comes).

        Not filled: the run writes every cell, a whole (replicate, chunk) row of truth, active and boards
        when the chunk is scored and a whole (replicate, variant, chunk) row of grade and of the variant's
        extras when it is graded (``_run_chunks``; a test runs on arrays filled with a marker and finds
        none left).  A national decade's 0.3 GB were filled before the first chunk, with the second core
        idle, and written again by the snapshots."""
        chunks = chunk_weeks(world0, self.scenario.calendar.snapshot)
        n_t, P, V, R = len(chunks), world0.n_players, len(self.variants), self.replicates
        days = [world0.start_day + 7 * stop for _, stop in chunks]
        # int8 codes of the variants that publish each extra only (the Dataset's (R, V, T, P) with -1
        # for the others is laid out at the end, once the schemes' state is freed: 4x less at national scale)
        extra_rows = _extra_rows(self.variants)
        return {"chunks": chunks, "days": days, "times": np.array(days, "datetime64[D]"),
                "grade": empty((R, V, n_t, P), np.float32), "truth": empty((R, n_t, P), np.float32),
                "active": empty((R, n_t, P), bool), "boards": empty((R, n_t, P), np.int32),
                "extra_rows": extra_rows,
                "extras": {name: empty((R, len(rows), n_t, P), np.int8) for name, rows in extra_rows.items()},
                "fr18": {}}

    def _dataset(self, out: dict, players: list):
        """The Dataset from the filled outputs and each replicate's ``player_labels``."""
        R, V, n_t, P = out["grade"].shape
        extras = {}
        for name, codes in out["extras"].items():
            full = np.full((R, V, n_t, P), -1, np.int8)
            full[:, out["extra_rows"][name]] = codes
            extras[name] = full
        out["extras"].clear()
        return build_dataset(self.scenario, self.seed, self.variants, players, out["times"], out["grade"],
                             out["truth"], out["active"], out["boards"], extras, out["fr18"])

    def _run_chunks(self, pool: TaskPool, reps: dict, snaps: dict):
        """Every replicate's pass A and every (replicate, variant)'s grading as tasks on ``pool``, for the
        replicates of ``reps`` ({replicate: _Replicate}); snapshots go to their rows of ``snaps`` (``_outputs``).

        Pass A is two tasks a chunk: ``_play`` (plan, seat, play) and
        ``_score``; only scoring carries state from chunk to chunk (the
        partnership table), so the play of chunk c + 1 runs beside the
        scoring of chunk c and the grading of chunk c - 1.  A task is
        submitted once its inputs exist: the play of chunk c once the play
        of c - 1 is done and fewer than ``LOOKAHEAD`` of the replicate's
        chunks are played but not yet graded by every variant (the chunks'
        results are the run's working memory); the scoring of c once its
        play and the scoring of c - 1 are done; the grading of c by a
        variant once the scoring of c and that variant's grading of c - 1
        are done.  Pass A goes first, oldest chunk first (everything waits
        for it), then the oldest chunk's grading, the variant that took
        longest last time first, so both cores stay busy and the tail is
        short.  On a pool of one thread (``threads=1``, or a worker
        process's share) nothing runs beside anything, so the order is
        chosen for the caches instead: a chunk is played, scored and graded
        by every variant before the next chunk is played, and one replicate
        ends before the next begins (its results and the variants' state
        are then still in cache when the next task reads them).  The thread
        that finished a task records its snapshot and
        submits the tasks it made ready (``on_done``, under the pool's
        lock), then takes the next; each snapshot lands in its own
        (replicate, variant, chunk) cell, so the order tasks finish in does
        not matter.
        """
        chunks, days, times = snaps["chunks"], snaps["days"], snaps["times"]
        grade, truth, active, boards = snaps["grade"], snaps["truth"], snaps["active"], snaps["boards"]
        extras, extra_rows, fr18 = snaps["extras"], snaps["extra_rows"], snaps["fr18"]
        n_t, V, R = len(chunks), len(self.variants), self.replicates
        bar = self._progress.start(reps[min(reps)].world.n_weeks) if self._progress else None
        started = time.perf_counter()
        compiled_before = self._compile_watch.elapsed()
        player_boards = 0

        simulated = [{} for _ in range(R)]  # replicate -> {chunk: Chunk} scored, not yet graded by all
        left = [{} for _ in range(R)]  # replicate -> {chunk: variants still to grade it}, from its play on
        played = [{} for _ in range(R)]  # replicate -> {chunk: Played} played, not yet scored
        next_play, next_score = [0] * R, [0] * R  # next chunk to play, to score, per replicate
        play_busy, score_busy = [False] * R, [False] * R
        next_b = [[0] * V for _ in range(R)]  # next chunk to grade, per (replicate, variant)
        b_busy = [[False] * V for _ in range(R)]
        last_seconds = [[0.0] * V for _ in range(R)]
        finished = [[0] * n_t for _ in range(R)]  # tasks finished per (replicate, chunk): play, scoring, gradings
        replicate_weeks = 0  # weeks finished by every task of a replicate, summed over the replicates
        shown = 0  # weeks shown on the progress bar: the replicates' mean, as far as it is a whole week
        waiting_warmup = self._warmup is not None
        alone = pool.threads == 1  # priorities for the caches (above): replicate, chunk, then play, score, grading

        def priority(r: int, c: int, stage: int, shared: tuple) -> tuple:
            return (r, c, stage) if alone else shared

        def submit_ready(r: int) -> None:
            c = next_play[r]
            if not play_busy[r] and c < n_t and len(left[r]) < LOOKAHEAD:
                play_busy[r] = True
                left[r][c] = V
                pool.submit(priority(r, c, 0, (0, c, 1, r)), ("play", r, c), self._play, reps[r], *chunks[c])
            c = next_score[r]
            if not score_busy[r] and c in played[r]:
                score_busy[r] = True
                pool.submit(priority(r, c, 1, (0, c, 0, r)), ("score", r, c), self._score, reps[r], played[r].pop(c))
            if waiting_warmup:
                return
            for j, v in enumerate(self.variants):
                c = next_b[r][j]
                if not b_busy[r][j] and c in simulated[r]:
                    b_busy[r][j] = True
                    pool.submit(priority(r, c, 2 + j, (1, c, -last_seconds[r][j], r, j)), ("b", r, j, c),
                                self._grade_chunk, reps[r], v, simulated[r][c], days[c])

        def on_done(tag, out, seconds) -> None:
            # the bookkeeping of a finished task, on the thread that ran it, under the pool's lock
            nonlocal waiting_warmup, shown, replicate_weeks, player_boards
            t0 = time.perf_counter()
            kind, r, c = tag[0], tag[1], tag[-1]
            if kind == "play":
                self.timing["pass_a"] += seconds
                played[r][c] = out
                play_busy[r], next_play[r] = False, c + 1
            elif kind == "score":
                self.timing["pass_a"] += seconds
                simulated[r][c] = out
                score_busy[r], next_score[r] = False, c + 1
                rep = reps[r]
                rep.boards += out.boards  # in chunk order: a replicate's chunks are scored in order
                truth[r, c] = strength_on(rep.world, days[c])
                active[r, c] = active_on(rep.world, days[c])
                boards[r, c] = rep.boards
                player_boards += out.player_boards
                if waiting_warmup is True:
                    # on a first run the schemes' kernels compile in a child meanwhile: once pass A is
                    # compiled here, a task compiles the jobs the child has not started, then waits for
                    # it; grading starts after it (compiling time too: kept out of the throughput)
                    waiting_warmup = "task"
                    pool.submit((-1,), ("warmup", r, c), self._wait_warmup)
            elif kind == "warmup":
                waiting_warmup = False
                for q in reps:
                    submit_ready(q)
                self.timing["snapshot"] += time.perf_counter() - t0
                return
            else:
                j = tag[2]
                self.timing["pass_b"] += seconds
                last_seconds[r][j] = seconds
                traced, stats, grades_now, extras_now = out
                chunk = simulated[r][c]
                if traced is not None:
                    self._record_trace(self.variants[j], chunk, traced)
                if stats is not None:
                    for key, value in stats.items():
                        arr = fr18.setdefault(key, np.full((R, V, n_t), np.nan))
                        arr[r, j, c] = value
                grade[r, j, c] = grades_now
                for name, values in extras_now.items():
                    extras[name][r, extra_rows[name].index(j), c] = values
                b_busy[r][j], next_b[r][j] = False, c + 1
                left[r][c] -= 1
                if not left[r][c]:  # graded by every variant: its results can go
                    del left[r][c], simulated[r][c]
            finished[r][c] += 1
            submit_ready(r)
            self.timing["snapshot"] += time.perf_counter() - t0
            if finished[r][c] == 2 + V:
                first, stop = chunks[c]
                replicate_weeks += stop - first
                weeks = replicate_weeks // len(reps)
                if bar is not None and weeks > shown:
                    # compilation (a first run only) is not simulation: keep it out of the throughput
                    elapsed = time.perf_counter() - started - (self._compile_watch.elapsed() - compiled_before)
                    self._progress.advance(weeks - shown, player_boards / max(elapsed, 1e-9) / 1e6)
                    shown = weeks

        for r in reps:
            submit_ready(r)
        pool.drain(on_done)
        # a retrospective scheme (offline(smooth=true)) re-reads its snapshots from all the results
        for j, v in enumerate(self.variants):
            for r, rep in reps.items():
                revised = v.scheme.revise(rep.states[v.label], times.astype(np.int64))
                if revised is not None:
                    grade[r, j] = revised
        self.elapsed = time.perf_counter() - started
        self.player_boards = player_boards
        if self.bundle_dir is not None and 0 in reps:
            self._write_bundle(reps[0])
        for rep in reps.values():
            rep.states.clear()  # the schemes' state (NGS's rings: GBs at scale) is not needed to label the Dataset

    def _record_trace(self, v: Variant, chunk: Chunk, traced):
        kind, out = traced
        if kind == "card":
            card = chunk.card
            self.trace_rows.append((v.label, "card", card.player.copy(), card.day.copy(), out.copy()))
            return
        sc = chunk.scored
        sess = np.repeat(np.arange(sc.n_sessions), np.diff(sc.pair_start))
        self.trace_rows.append((v.label, "sessions", chunk.results.session_names[sess], sc.day[sess],
                                sc.pair_players.copy(), out.copy(), sc.order.copy(), sess))

    def trace_table(self, label: str) -> dict:
        """Rows the engine graded for variant ``label`` in replicate 0, like ``simcore grade``'s output."""
        parts = [t for t in self.trace_rows if t[0] == label]
        if not parts:
            raise ValueError(f"no trace for {label!r}: run with trace=True and that scheme")
        if parts[0][1] == "card":
            return {"player": np.concatenate([p[2] for p in parts]), "day": np.concatenate([p[3] for p in parts]),
                    "rows": np.concatenate([p[4] for p in parts])}
        cols = {"session": [], "day": [], "player": [], "grade": []}
        for _, _, names, days, players, out, order, sess in parts:
            rank = np.empty(len(order), np.int64)
            rank[order] = np.arange(len(order))
            idx = np.lexsort((np.arange(len(sess)), rank[sess]))  # sessions in processing order
            for e in idx:
                for k in range(2):
                    if not np.isnan(out[e, k]):
                        cols["session"].append(names[e])
                        cols["day"].append(days[e])
                        cols["player"].append(players[e, k])
                        cols["grade"].append(out[e, k])
        return {k: np.asarray(v) for k, v in cols.items()}

    def _write_bundle(self, rep: _Replicate) -> None:
        from simcore.io.bundle import write_bundle, write_card_play
        parts = rep.bundle_parts
        offs = np.cumsum([0] + [p.n_sessions for p in parts])
        cat = lambda f: np.concatenate([getattr(p, f) for p in parts])  # noqa: E731
        res = Results(
            session_names=cat("session_names"), session_day=cat("session_day"), session_club=cat("session_club"),
            session_event=cat("session_event"), session_scoring=cat("session_scoring"),
            session_winners=cat("session_winners"), session_kind=cat("session_kind"),
            session_movement=cat("session_movement"), session_boards=cat("session_boards"),
            trav_session=np.concatenate([p.trav_session + o for p, o in zip(parts, offs)]).astype(np.int32),
            trav_round=cat("trav_round"), trav_board=cat("trav_board"), trav_table=cat("trav_table"),
            trav_ns=cat("trav_ns"), trav_ew=cat("trav_ew"), trav_ns_score=cat("trav_ns_score"),
            team_session=np.concatenate([p.team_session + o for p, o in zip(parts, offs)]).astype(np.int32),
            team_players=cat("team_players").reshape(-1, 4), team_names=cat("team_names"),
            player_names=rep.player_names, player_member=rep.players.member,
            player_at_start=rep.players.at_start, player_initial_grade=rep.players.initial_grade,
            club_names=parts[0].club_names, session_scored_on=cat("session_scored_on"),
            session_replaces=np.concatenate([np.where(p.session_replaces >= 0, p.session_replaces + o, -1)
                                             for p, o in zip(parts, offs)]).astype(np.int32))
        write_bundle(res, self.bundle_dir)
        if rep.card_records:
            recs = rep.card_records
            write_card_play({"player": rep.player_names[np.concatenate([c.player for c in recs])],
                             "date": np.concatenate([c.day for c in recs]),
                             "boards": np.concatenate([c.boards for c in recs]),
                             "imps_lost": np.concatenate([c.imps_lost for c in recs])}, self.bundle_dir)

class _Share:
    """``share(i, group, forked)``: ``Engine._share`` of one run in worker processes.  A kept worker is
    sent a pickled copy (``processes.keep_workers``): the engine (``Engine.__getstate__``), the keys and
    the shared outputs, not the progress tick nor world 0 (this process's own share's alone)."""

    def __init__(self, engine: Engine, keys, out: dict, shown: np.ndarray, tick=None, world0: World | None = None):
        self.engine, self.keys, self.out, self.shown, self.tick, self.world0 = engine, keys, out, shown, tick, world0

    def __call__(self, i: int, group: list, forked: bool) -> dict:
        return self.engine._share(i, group, forked, self)

    def __getstate__(self):
        return {**vars(self), "tick": None, "world0": None}


def run(scenario="default", schemes=None, replicates=1, years=None, seed=0, snapshot=None,
        threads=None, progress=False, trace=False, bundle=None, model=None, session_stats=False):
    """Simulate ``scenario`` and grade it under every scheme variant; returns the Dataset.

    scenario: built-in name, TOML path or Scenario.  schemes: variants, e.g.
    ``"ngs,ngs(gain=2),ppi"`` or a list (default: every scheme's default variants).  replicates: independent populations.
    years: overrides the scenario's calendar.  seed: the one seed of the run.
    snapshot: "weekly" or "monthly" (default: the scenario's).  threads:
    cores to use (default: all): worker threads or, with several replicates,
    worker processes (``engine.processes``); the result does not depend on it.
    bundle: a folder to write replicate 0's results to (a results bundle).
    session_stats: also record FR18's variance decomposition terms per chunk
    (``metrics.fr18`` reads them).
    """
    engine = Engine(scenario, schemes, replicates, years, seed, snapshot, threads, trace, bundle, model, progress,
                    session_stats)
    return engine.run()
