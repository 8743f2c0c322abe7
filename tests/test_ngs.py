import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from results_factory import build, random_session
from simcore.schemes import PlayerTable, make_scheme, ngs
from simcore.scoring import PartnershipTable, score_results

N_PLAYERS = 40


def table(n, members=None, at_start=None, explicit=None):
    return PlayerTable(np.ones(n, bool) if members is None else members,
                       np.zeros(n, bool) if at_start is None else at_start,
                       np.full(n, np.nan) if explicit is None else explicit)




def scored_single(pct, boards=24, n_pairs=12, event=0, day=19000, kind=1):
    """A ScoredResults of one one-winner session: pair 0 = players (0, 1) scores pct %; others average."""
    from simcore.probes.decay import probe_results
    sc, _ = probe_results([pct], boards=boards, tables=n_pairs // 2)
    sc.event[:] = event
    sc.day[:] = day
    return sc


# --- worked examples ---------------------------------------------------------------------

def test_padding_worked_example():
    # one 24-board session with session grade 60 for a newcomer at 42 -> current grade 43.5474 (SPEC)
    scheme = ngs.NGSScheme(ngs.Params(gain=1.0))
    sc = scored_single(60.0)   # partner and field at 50 (at start); probe player 0 a newcomer at 42?
    P = int(sc.pair_players.max()) + 1
    at_start = np.ones(P, bool)
    at_start[0] = False
    explicit = np.full(P, np.nan)
    state = scheme.new_state(table(P, at_start=at_start, explicit=explicit), len(sc.partnership_players))
    out = np.full((sc.n_entries, 2), np.nan)
    before = np.full((sc.n_entries, 2), np.nan)
    scheme.apply(state, sc, out, before)
    # player 0: G = 42, partner 50, SOpp 50, p = 60: SG = 42 + (60 - 50 + 50 - 46) = 56
    sg = 42 + (60 - 50 + 50 - (42 + 50) / 2)
    w1, w2 = 24 * (2000 - 12), 276 * (2000 - 24 - 138)
    assert before[0, 0] == pytest.approx(42.0)
    assert out[0, 0] == pytest.approx((sg * w1 + 42 * w2) / (w1 + w2), abs=1e-9)
    # the SPEC figures: SG 60 from 42 gives 43.5474
    assert (60 * w1 + 42 * w2) / (w1 + w2) == pytest.approx(43.5474, abs=5e-5)


def test_spec_example_directly_through_the_decay():
    # SG exactly 60 at the default gain 2: partner at 50 and SOpp 50 need 2 (p - 50 + 50 - 46) = 18, p = 55
    scheme = ngs.NGSScheme(ngs.Params())
    assert scheme.params.gain == 2.0
    sc = scored_single(55.0)
    P = int(sc.pair_players.max()) + 1
    at_start = np.ones(P, bool)
    at_start[0] = False
    state = scheme.new_state(table(P, at_start=at_start), len(sc.partnership_players))
    out = np.full((sc.n_entries, 2), np.nan)
    scheme.apply(state, sc, out)
    assert out[0, 0] == pytest.approx(43.5474, abs=5e-5)


def test_handicaps_bands_and_expected_score():
    assert ngs.team_handicap(45.0, 24) == pytest.approx(37.03, abs=0.005)
    assert ngs.expected_score(50, 46, 49) == pytest.approx(49.0)
    assert ngs.pair_handicap(52, 46) == pytest.approx(1.0)
    assert [ngs.band_name(g) for g in (38.9, 39.0, 49.5, 50.99, 59.0, 61.5, 64, 66, 70)] == [
        "Two", "Three", "Eight", "Eight", "King", "Ace of Clubs", "Ace of Diamonds", "Ace of Hearts",
        "Ace of Spades"]


def test_aggregate_one_winner_is_refused():
    rng = np.random.default_rng(1)
    sess = random_session(rng, "mitchell", "aggregate", full=True)
    sess["winners"] = 1
    sess["kind"] = "howell"
    sc = score_results(build([sess], 60))
    scheme = ngs.NGSScheme()
    with pytest.raises(ValueError, match="aggregate-scored with one winner"):
        scheme.apply(scheme.new_state(table(60), 10), sc, np.empty((sc.n_entries, 2)))


# --- against the reference ----------------------------------------------------------------

KINDS = [("mitchell", "mp"), ("mitchell", "butler"), ("mitchell", "aggregate"), ("howell", "mp"),
         ("howell", "cross_imps"), ("swiss_pairs", "mp"), ("swiss_pairs", "butler"),
         ("multiple_teams", "teams_imps"), ("swiss_teams", "teams_imps")]


def random_history(rng, n_sessions, n_chunks, gaps=(1, 3, 7, 30, 400, 1200)):
    sessions = []
    day = 19000
    for k in range(n_sessions):
        kind, scoring = KINDS[rng.integers(len(KINDS))]
        sess = random_session(rng, kind, scoring, n_players=N_PLAYERS)
        day += int(rng.choice(gaps))  # long gaps exercise the three-year limit
        sess["day"] = day
        sess["event"] = ["club", "black", "green"][rng.integers(3)]
        sessions.append(sess)
    cuts = np.sort(rng.choice(np.arange(1, n_sessions), size=min(n_chunks - 1, n_sessions - 1), replace=False))
    return sessions, np.split(np.arange(n_sessions), cuts)


params_strategy = st.fixed_dictionaries({
    "gain": st.sampled_from([1.0, 2.0, 1.5]),
    "window": st.sampled_from([300.0, 1000.0, 2000.0]),
    "decay": st.sampled_from(["line", "exponential", "rectangle", "trapezium"]),
    "half_life": st.sampled_from([150.0, 600.0]),
    "flat": st.sampled_from([100.0, 250.0]),
    "rpcf": st.sampled_from([0.0, 0.75]),
    "rpcf_share": st.sampled_from([0.85, 0.3]),
    "weight_mode": st.sampled_from(["session", "boards"]),
    "partnership_grades": st.booleans(),
    "limit_days": st.sampled_from([1096, 200]),
    "provisional_boards": st.sampled_from([300.0, 40.0]),
    "mature_boards": st.sampled_from([1000.0, 120.0]),
})


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), params_strategy, st.integers(1, 3))
def test_kernel_matches_reference(seed, params, n_chunks):
    _compare_with_reference(seed, params, n_chunks, 12)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), params_strategy, st.integers(1, 6))
def test_long_histories_grow_the_rings_and_still_match(seed, params, n_chunks):
    """150 sessions close together in a 2000-board window: rings outgrow their first 8 slots and move
    in the pool (rings grow only when full: a 300-board window fits in 16 sessions; 90 sessions gave
    some seeds no player with more than 13, and 150 some none with more than 16)."""
    params["limit_days"] = 1096
    params["window"] = 2000.0
    sized = ngs.RING_BOARDS_PER_SESSION
    ngs.RING_BOARDS_PER_SESSION = 2000.0 / 8  # players' rings start at 8 sessions (not 96), so they grow
    try:
        state = _compare_with_reference(seed, params, n_chunks, 150, gaps=(1, 2, 3))
    finally:
        ngs.RING_BOARDS_PER_SESSION = sized
    assert state.capacity > 8


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), params_strategy, st.integers(1, 6))
def test_ring_rows_are_written_before_they_are_read(seed, params, n_chunks):
    """The ring pool is not cleared (``decay.aligned_empty``): with every row of it filled with NaN and -7
    instead, rings that grow and move in a pool that is enlarged still grade as the reference."""
    from simcore.schemes import decay
    empty = decay.aligned_empty

    def garbage(shape, dtype=np.float64, align=128, huge=False):
        out = empty(shape, dtype, align, huge)
        out.fill(np.nan if out.dtype.kind == "f" else -7)
        return out

    params["limit_days"] = 1096
    params["window"] = 2000.0
    sized = ngs.RING_BOARDS_PER_SESSION
    decay.aligned_empty, ngs.RING_BOARDS_PER_SESSION = garbage, 2000.0 / 8  # rings of 8 sessions: they grow
    try:
        state = _compare_with_reference(seed, params, n_chunks, 150, gaps=(1, 2, 3))
    finally:
        decay.aligned_empty, ngs.RING_BOARDS_PER_SESSION = empty, sized
    assert state.capacity > 8


def _compare_with_reference(seed, params, n_chunks, n_sessions, gaps=(1, 3, 7, 30, 400, 1200)):
    rng = np.random.default_rng(seed)
    if params["decay"] == "trapezium" and params["flat"] >= params["window"]:
        params["flat"] = params["window"] / 2
    p = ngs.Params(**params)
    sessions, chunks = random_history(rng, n_sessions, n_chunks, gaps)
    members = rng.random(N_PLAYERS) > 0.1
    at_start = rng.random(N_PLAYERS) < 0.5
    explicit = np.where(rng.random(N_PLAYERS) < 0.1, 47.0, np.nan)
    scheme = ngs.NGSScheme(p)
    state = scheme.new_state(table(N_PLAYERS, members, at_start, explicit), 1)
    pt = PartnershipTable()
    ref = naive.NaiveNGS(p, members, at_start, explicit, track=10**9 if p.partnership_grades else 0)
    for chunk in chunks:
        sc = score_results(build([sessions[i] for i in chunk], N_PLAYERS), partnerships=pt)
        out = np.full((sc.n_entries, 2), np.nan)
        seq = state.seq_base
        scheme.apply(state, sc, out)
        want = ref.apply(sc, N_PLAYERS, seq)
        np.testing.assert_allclose(out, want, rtol=0, atol=1e-8)
    last = sessions[-1]["day"] + 10
    got = scheme.grades(state, last)
    # no grade before a player's first graded session
    want = np.array([ref.grade(i, last) if ref.sessions.get(i, 0) else np.nan for i in range(N_PLAYERS)])
    # a player whose every session expired after reaching 300 boards is out of date: no grade
    for i in range(N_PLAYERS):
        if i in ref.hist and not ref.hist[i] and ref.ever.get(i):
            want[i] = np.nan
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8)
    # the snapshot's extras, taken in the same pass as the grades (_grades_all)
    ex = scheme.extras(state, last)
    want_ex = np.array([ref.snapshot_extras(i, last, g) for i, g in enumerate(got)])
    np.testing.assert_array_equal(ex["status"], want_ex[:, 0])
    np.testing.assert_array_equal(ex["band"], want_ex[:, 1])
    np.testing.assert_array_equal(ex["band"], ngs.band_code(got))
    np.testing.assert_array_equal(ex["boards_3y"], want_ex[:, 2])
    return state


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_compact_pool_matches_reference(seed, n):
    from simcore.schemes import decay
    rng = np.random.default_rng(seed)
    caps = rng.integers(1, 20, n)  # any capacity (rings are sized to what they hold, not to powers of two)
    gaps = rng.integers(0, 20, n)  # abandoned rows before each slice
    order = rng.permutation(n)  # slices laid out in an order unrelated to entity ids
    ent_i = np.zeros((n, decay.N_EI), np.int64)
    pos = 0
    for e in order:
        pos += gaps[e]
        ent_i[e, decay.IOFF], ent_i[e, decay.ICAP] = pos, caps[e]
        pos += caps[e]
    ring_f = rng.normal(size=(pos + 3, decay.N_RF))
    ring_i = rng.integers(0, 1000, (pos + 3, decay.N_RI)).astype(decay.RING_INT)
    rows = [tuple(f) + tuple(i) for f, i in zip(ring_f.tolist(), ring_i.tolist())]
    want_rows, want_off = naive.compact_pool(rows, {e: (int(ent_i[e, decay.IOFF]), int(caps[e])) for e in range(n)})
    used = decay.compact_pool(ring_f, ring_i, ent_i, np.argsort(ent_i[:, decay.IOFF], kind="stable"))
    assert used == len(want_rows) == caps.sum()
    got = [tuple(f) + tuple(i) for f, i in zip(ring_f[:used].tolist(), ring_i[:used].tolist())]
    assert got == want_rows
    assert {e: int(ent_i[e, decay.IOFF]) for e in range(n)} == want_off


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_prefetches_change_nothing(seed, n):
    """The prefetch helpers' plain-Python twin does nothing (``naive.prefetch``): every array is unchanged,
    wherever the rings' heads and counts point (a hint past the pool's end included)."""
    from simcore.schemes import decay
    rng = np.random.default_rng(seed)
    ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(n)
    for a in (ring_f, ring_i, ent_f, ent_i):
        assert a.ctypes.data % 64 == 0
    ent_i[:, decay.IHEAD] = rng.integers(0, decay.MIN_CAPACITY, n)
    ent_i[:, decay.ICNT] = rng.integers(0, decay.MIN_CAPACITY + 1, n)
    ent_i[-1, decay.IOFF] = len(ring_f) + rng.integers(0, 1000)  # past the end: still only a hint
    ring_f[:] = rng.normal(size=ring_f.shape)
    ent_f[:] = rng.normal(size=ent_f.shape)
    before = [a.copy() for a in (ring_f, ring_i, ent_f, ent_i)]
    for e in range(n):
        naive.prefetch(ent_f, ent_i, e)
        decay.prefetch_entity(ent_f, ent_i, e)
        decay.prefetch_ring_ends(ring_f, ring_i, ent_i, e)
    for a, b in zip((ring_f, ring_i, ent_f, ent_i), before):
        assert np.array_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(0, 120), st.sampled_from([16, 24, 96]))
def test_grow_ring_matches_reference(seed, n, spare, first):
    """Random rings (wrapped, any fill) grown one after another into a pool ``spare`` rows longer than
    their slices: each lands where the reference puts it, or the call refuses and changes nothing."""
    from simcore.schemes import decay
    rng = np.random.default_rng(seed)
    caps = rng.integers(1, 40, n)
    ent_i = np.zeros((n, decay.N_EI), np.int64)
    ent_i[:, decay.IOFF] = np.concatenate([[0], np.cumsum(caps)[:-1]])
    ent_i[:, decay.ICAP] = caps
    ent_i[:, decay.IHEAD] = rng.integers(0, caps)
    ent_i[:, decay.ICNT] = rng.integers(0, caps + 1)
    rows_n = int(caps.sum()) + spare
    ring_f = rng.normal(size=(rows_n, decay.N_RF))
    ring_i = rng.integers(0, 1000, (rows_n, decay.N_RI)).astype(decay.RING_INT)
    pool = np.array([caps.sum(), caps.sum(), first], np.int64)
    rows = [tuple(f) + tuple(i) for f, i in zip(ring_f.tolist(), ring_i.tolist())]
    rings = {e: tuple(int(x) for x in ent_i[e, [decay.IOFF, decay.ICAP, decay.IHEAD, decay.ICNT]]) for e in range(n)}
    used = int(caps.sum())
    for e in rng.integers(0, n, 6):
        want = naive.grow_ring(rows, rings, used, int(e), first)
        before = (ent_i.copy(), pool.copy())
        assert decay.grow_ring(ring_f, ring_i, ent_i, pool, int(e)) == (want is not None)
        if want is None:
            assert np.array_equal(ent_i, before[0]) and np.array_equal(pool, before[1])
            continue
        rows, rings, used = want
        got = {k: tuple(int(x) for x in ent_i[k, [decay.IOFF, decay.ICAP, decay.IHEAD, decay.ICNT]]) for k in range(n)}
        assert got == rings
        assert pool[decay.PUSED] == used and pool[decay.PCAPS] == ent_i[:, decay.ICAP].sum()
        after = [tuple(f) + tuple(i) for f, i in zip(ring_f.tolist(), ring_i.tolist())]
        for k, (off, cap, head, cnt) in rings.items():  # every live session where the reference puts it
            for i in range(cnt):
                assert after[off + (head + i) % cap] == rows[off + (head + i) % cap]


def _entity_view(decay, ring_f, ring_i, ent_f, ent_i, e):
    """One entity's ring and row as the plain-Python twin sees them."""
    ring = []
    for i in range(int(ent_i[e, decay.ICNT])):
        p = decay._phys(ent_i, e, i)
        f, k = ring_f[p], ring_i[p]
        ring.append({"e": f[decay.RE], "x": f[decay.RX], "phi": f[decay.RPHI], "g": f[decay.RG],
                     "ca": f[decay.CA], "cb": f[decay.CB], "cc": f[decay.CC], "cd": f[decay.CD],
                     "day": int(k[decay.RDAY]), "pid": int(k[decay.RPID]), "seq": int(k[decay.RSEQ]),
                     "boards": int(k[decay.RB])})
    row = {name: ent_f[e, col] for name, col in (("t", decay.ET), ("ba", decay.BA), ("bb", decay.BB),
                                                  ("bc", decay.BC), ("bd", decay.BD), ("la", decay.LA),
                                                  ("lb", decay.LB), ("lc", decay.LC), ("ld", decay.LD),
                                                  ("le", decay.LE), ("real", decay.EBOARDS))}
    row.update(total=int(ent_i[e, decay.ITOTAL]), sessions=int(ent_i[e, decay.ISESS]), lday=int(ent_i[e, decay.ILDAY]))
    return ring, row


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5))
def test_append_newest_matches_add_session_and_reference(seed, n):
    """decay.append_newest (the inlined usual case) leaves every array bit for bit as add_session does,
    and each entity as the plain-Python twin (naive.append_newest) says, wrapped rings and first
    sessions included."""
    from simcore.schemes import decay
    rng = np.random.default_rng(seed)
    ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(n)
    cap = decay.MIN_CAPACITY
    ent_i[:, decay.IHEAD] = rng.integers(0, cap, n)  # rings wrap at any capacity
    ent_f[:, decay.BA:decay.BD + 1] = rng.normal(size=(n, 4))
    ent_f[:, decay.ET] = rng.integers(0, 3000, n)
    day = np.zeros(n, np.int64) + 18000
    for _ in range(int(rng.integers(0, 2 * cap))):  # some history, oldest sessions dropped as rings fill
        e = int(rng.integers(0, n))
        if ent_i[e, decay.ICNT] >= cap - 1:
            decay.pop_oldest(ring_f, ring_i, ent_f, ent_i, e)
        day[e] += rng.integers(0, 8)
        x = int(rng.integers(1, 30))
        decay.add_session(ring_f, ring_i, ent_f, ent_i, e, rng.normal(50, 8), x, x * rng.choice([1.0, 1.3, 2.0]),
                          rng.choice([1.0, 2.0]), int(day[e]), int(rng.integers(-1, 99)), int(rng.integers(0, 10**6)),
                          0.0)
    for e in range(n):
        if ent_i[e, decay.ICNT] >= cap - 1:
            decay.pop_oldest(ring_f, ring_i, ent_f, ent_i, e)
        args = (rng.normal(50, 8), int(rng.integers(1, 30)), float(rng.integers(1, 30)) * 1.3, float(rng.choice([1.0, 2.0])),
                int(day[e] + rng.integers(0, 5)), int(rng.integers(-1, 99)), int(rng.integers(0, 10**6)))
        a = [x.copy() for x in (ring_f, ring_i, ent_f, ent_i)]
        b = [x.copy() for x in (ring_f, ring_i, ent_f, ent_i)]
        ring, row = _entity_view(decay, *a, e)
        decay.append_newest(*a, e, *args)
        decay.add_session(*b, e, *args, 0.0)
        for got, want in zip(a, b):  # (EINIT is NaN: no initial grade set)
            assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f")
        naive.append_newest(ring, row, *args)
        assert (ring, row) == _entity_view(decay, *a, e)
        ring_f, ring_i, ent_f, ent_i = a


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["line", "rectangle"]), st.integers(1, 6))
def test_one_segment_grade_matches_current_grade_and_reference(seed, shape, n):
    """decay.current_grade_one_segment (inlined for line and rectangle) gives current_grade's grade bit
    for bit, and the plain-Python twin's (naive.grade_from_ring) to rounding: rings with the oldest
    session inside the window, straddling its end, alone, empty; padded and not."""
    from simcore.schemes import decay
    rng = np.random.default_rng(seed)
    window = float(rng.choice([300.0, 1000.0, 2000.0]))
    sh = decay.kernel_shape(shape, window)
    ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(n)
    ent_i[:, decay.IHEAD] = rng.integers(0, decay.MIN_CAPACITY, n)
    ent_f[:, decay.ET] = rng.integers(0, 3000, n)
    ent_f[:, decay.EINIT] = rng.choice([np.nan, 42.0, 50.0], n)
    pad = float(rng.choice([0.0, 300.0]))
    for e in range(n):
        for _ in range(int(rng.integers(0, decay.MIN_CAPACITY - 1))):
            x = int(rng.integers(1, 40))
            decay.append_newest(ring_f, ring_i, ent_f, ent_i, e, rng.normal(50, 8), x, float(x), float(rng.choice([1.0, 2.0])),
                                18000, 1, 0)
        # drop sessions wholly beyond the window, as every caller does before a grade
        while ent_i[e, decay.ICNT] and ent_f[e, decay.ET] - ring_f[decay._phys(ent_i, e, 0), decay.RE] >= window:
            decay.pop_oldest(ring_f, ring_i, ent_f, ent_i, e)
        ent_i[e, decay.IEVER] = rng.integers(0, 2)
        got = decay.current_grade_one_segment(ring_f, ent_f, ent_i, e, sh, pad)
        want = decay.current_grade(ring_f, ent_f, ent_i, e, sh, pad)
        assert got == want or (np.isnan(got) and np.isnan(want))
        ring, row = _entity_view(decay, ring_f, ring_i, ent_f, ent_i, e)
        ref = naive.grade_from_ring(ring, row["t"], ent_f[e, decay.EINIT], bool(ent_i[e, decay.IEVER]), row["real"], pad,
                                    shape, window)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-9, nan_ok=True)


def test_players_rings_start_sized_for_the_window_in_player_order():
    """new_state: every player's ring starts with room for the window's sessions (2000 boards -> 96), one
    after another in player order; tracked partnerships at MIN_CAPACITY after them; a player who holds
    no more than that never moves (same grades as the reference: test_kernel_matches_reference)."""
    from simcore.schemes import decay
    P = N_PLAYERS
    scheme = ngs.NGSScheme(ngs.Params(partnership_grades=True))
    state = scheme.new_state(table(P), 5)
    ei = state.ent_i
    assert (ei[:P, decay.ICAP] == 96).all() and (ei[P:, decay.ICAP] == decay.MIN_CAPACITY).all()
    assert np.array_equal(ei[:, decay.IOFF], np.concatenate([[0], np.cumsum(ei[:-1, decay.ICAP])]))
    assert state.pool[decay.PUSED] == state.pool[decay.PCAPS] == ei[:, decay.ICAP].sum()
    rng = np.random.default_rng(3)
    sessions, chunks = random_history(rng, 20, 3, gaps=(1, 2))
    offsets = ei[:P, decay.IOFF].copy()
    pt = PartnershipTable()
    for chunk in chunks:
        state = scheme.grow(state, 1)
        scheme.apply(state, score_results(build([sessions[i] for i in chunk], N_PLAYERS), partnerships=pt), None)
    assert state.ent_i[:P, decay.ICNT].max() > 0
    assert np.array_equal(state.ent_i[:P, decay.IOFF], offsets)
    small = ngs.NGSScheme(ngs.Params(window=300.0)).new_state(table(P), 1)  # 300 boards: 16 sessions
    assert (small.ent_i[:, decay.ICAP] == decay.MIN_CAPACITY).all()


def test_growing_rings_keeps_every_ring_in_order_and_the_pool_bounded():
    """Rings filled and grown at random (``grow_ring``, then ``enlarge`` when the pool is short and
    ``reclaim`` after each round, as NGS's apply does): sessions stay in order, slices never overlap,
    the rows handed out stay within MAX_SLACK of the capacities and the pool within twice that."""
    from simcore.schemes import decay
    rng = np.random.default_rng(4)
    n = 7
    ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(n, 24)
    logical = {}
    for e in range(n):  # a wrapped ring: head part way round, rows tagged (entity, logical index)
        cnt = int(rng.integers(0, 15))
        ent_i[e, decay.IHEAD] = rng.integers(0, 16)
        ent_i[e, decay.ICNT] = cnt
        for i in range(cnt):
            ring_f[decay._phys(ent_i, e, i), decay.RG] = 1000 * e + i
        logical[e] = cnt
    compactions = enlargements = 0
    for step in range(40):  # fill random rings to the brim: each grows, at the pool's end, which compacts
        for e in rng.choice(n, size=3, replace=False):
            e = int(e)
            while ent_i[e, decay.ICNT] < ent_i[e, decay.ICAP] - 1:
                ring_f[decay._phys(ent_i, e, logical[e]), decay.RG] = 1000 * e + logical[e]
                logical[e] += 1
                ent_i[e, decay.ICNT] += 1
            cap = int(ent_i[e, decay.ICAP])
            while not decay.grow_ring(ring_f, ring_i, ent_i, pool, e):
                ring_f, ring_i = decay.enlarge(ring_f, ring_i, ent_i, pool)
                enlargements += 1
            assert ent_i[e, decay.ICAP] >= max(24 if cap < 24 else cap + cap // 4, logical[e] + 2)
        used = int(pool[decay.PUSED])
        decay.reclaim(ring_f, ring_i, ent_i, pool)
        compactions += int(pool[decay.PUSED]) < used
        caps = ent_i[:, decay.ICAP]
        assert pool[decay.PCAPS] == caps.sum()
        assert pool[decay.PUSED] <= (1 + decay.MAX_SLACK) * caps.sum()
        assert len(ring_f) <= max(4 * caps.sum(), n * decay.RESERVE_PER_ENTITY)
        spans = sorted((int(o), int(o + c)) for o, c in zip(ent_i[:, decay.IOFF], caps))
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])) and spans[-1][1] <= pool[decay.PUSED]
        for e, cnt in logical.items():
            got = [ring_f[decay._phys(ent_i, e, i), decay.RG] for i in range(cnt)]
            assert got == [1000 * e + i for i in range(cnt)]
    assert compactions > 0 and enlargements > 0


def test_enlarge_makes_room_for_a_first_growth_beyond_every_ring():
    """All rings at 16, a first growth to 96 and a tail shorter than that (the pool's reserve used
    up, as by partnerships added later): enlarge leaves room for it."""
    from simcore.schemes import decay
    ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(3, 96)
    ring_f, ring_i = ring_f[:int(pool[decay.PUSED]) + 80], ring_i[:int(pool[decay.PUSED]) + 80]
    ent_i[1, decay.ICNT] = 15
    assert not decay.grow_ring(ring_f, ring_i, ent_i, pool, 1)
    ring_f, ring_i = decay.enlarge(ring_f, ring_i, ent_i, pool)
    assert decay.grow_ring(ring_f, ring_i, ent_i, pool, 1) and ent_i[1, decay.ICAP] == 96


# --- rules ---------------------------------------------------------------------------------

def run(scheme, sessions, P=N_PLAYERS, members=None, at_start=None):
    sc = score_results(build(sessions, P))
    state = scheme.new_state(table(P, members, at_start), len(sc.partnership_players))
    out = np.full((sc.n_entries, 2), np.nan)
    before = np.full((sc.n_entries, 2), np.nan)
    scheme.apply(state, sc, out, before)
    return sc, state, out, before


def test_unknown_pairs_cause_no_drift():
    rng = np.random.default_rng(3)
    sess = random_session(rng, "howell", "mp", n_players=N_PLAYERS, full=True)
    members = np.ones(N_PLAYERS, bool)
    members[list(sess["rows"][0][3])[:1]] = False  # one guest in one pair
    scheme = ngs.NGSScheme(ngs.Params(gain=1.0, pad_boards=0.0))
    sc, state, out, before = run(scheme, [sess], members=members, at_start=np.ones(N_PLAYERS, bool))
    known = np.isfinite(before[:, 0])
    assert (~known).sum() == 1  # the guest's pair is not graded
    # FR 12 gives the unknown pair an assumed grade from the field, SoF = (members' grades + unknowns'
    # scores) / members, so that with par taken against SoF the known players' session grades average
    # their current grades.  SPEC's SOpp leaves out a pair's own players; then, with n pairs, all known
    # players at 50 and the unknown pair s % above average, each known player's session grade (= his
    # new grade: no padding) exceeds his current grade by s / (n - 1)^2 on average -- exactly.
    n = len(known)
    s_unknown = sc.pair_score[~known][0] - 50.0
    assert np.mean(out[known] - before[known]) == pytest.approx(s_unknown / (n - 1) ** 2, abs=1e-9)
    assert s_unknown != 0


def test_session_with_too_few_known_pairs_is_not_graded():
    rng = np.random.default_rng(4)
    sess = random_session(rng, "howell", "mp", n_players=N_PLAYERS, full=True)
    pairs = {tuple(sorted(map(int, r[3]))) for r in sess["rows"]} | {tuple(sorted(map(int, r[4]))) for r in sess["rows"]}
    members = np.ones(N_PLAYERS, bool)
    for a, _ in list(pairs)[: len(pairs) // 3 + 1]:  # a third or more unknown
        members[a] = False
    _, _, out, _ = run(ngs.NGSScheme(), [sess], members=members)
    assert np.isnan(out).all()


def test_rpcf_pulls_an_exclusive_pair_together():
    from simcore.probes.decay import probe_results
    # players 0 and 1 always together, starting 10 points apart; pair scores exactly par every session
    sessions = []
    for k in range(60):
        sc, _ = probe_results([50.0], boards=24, tables=6)
    # build directly: identical sessions with the pair (0, 1) at par 50 against a field of 50s
    def gaps(rpcf):
        scheme = ngs.NGSScheme(ngs.Params(rpcf=rpcf, pad_boards=0.0))
        P = 1000
        explicit = np.full(P, np.nan)
        explicit[0], explicit[1] = 55.0, 45.0
        state = scheme.new_state(table(P, at_start=np.ones(P, bool), explicit=explicit), 1)
        for k in range(40):
            sc, _ = probe_results([50.0], boards=24, tables=6)
            sc.pair_players[0] = (0, 1)
            sc.day[:] = 19000 + 7 * k
            shift = 2 + k * 22
            sc.pair_players[1:] = sc.pair_players[1:] % 20 + 2 + shift % 900
            sc.partnership_players = np.unique(np.sort(sc.pair_players, axis=1), axis=0)
            ids = {tuple(p): i for i, p in enumerate(sc.partnership_players.tolist())}
            sc.pair_partnership = np.array([ids[tuple(sorted(p))] for p in sc.pair_players.tolist()], np.int32)
            scheme.apply(state, sc, np.full((sc.n_entries, 2), np.nan))
        g = scheme.grades(state, 19000 + 7 * 40)
        return g[0] - g[1]
    assert gaps(0.0) == pytest.approx(10.0, abs=1e-6)  # no evidence: the difference stays
    assert gaps(0.75) < 5.0                             # RPCF converges it


def test_snapshot_grades_are_recomputed_after_every_apply():
    """grades() keeps its last answer for the same snapshot's extras(); an apply in between must not reuse it."""
    sessions, _ = random_history(np.random.default_rng(7), 12, 1, gaps=(1,))
    day = sessions[-1]["day"] + 1
    halves = (range(6), range(6, 12))

    def graded(peek):
        scheme = ngs.NGSScheme()
        state = scheme.new_state(table(N_PLAYERS), 1)
        pt = PartnershipTable()
        for half in halves:
            if peek:
                scheme.grades(state, day)
            sc = score_results(build([sessions[i] for i in half], N_PLAYERS), partnerships=pt)
            scheme.apply(state, sc, np.full((sc.n_entries, 2), np.nan))
        return scheme.grades(state, day), scheme.extras(state, day)["band"]

    got, band = graded(peek=True)
    want, _ = graded(peek=False)
    assert np.isfinite(want).sum() > 10
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(band, ngs.band_code(want))


def test_status_codes():
    from simcore.probes.decay import probe_results
    scheme = ngs.NGSScheme()
    sc, players = probe_results([50.0] * 60, boards=25, tables=6, sessions_per_week=2)
    state = scheme.new_state(players, len(sc.partnership_players))
    scheme.apply(state, sc, np.full((sc.n_entries, 2), np.nan))
    day = int(sc.day[-1])
    ex = scheme.extras(state, day)
    assert ex["status"][0] == 2 and ex["boards_3y"][0] == 1500  # 60 x 25 boards: mature
    assert ex["status"][1] == 0                                   # a partner with one session: provisional
    later = scheme.extras(state, day + 1200)
    assert later["status"][0] == 3 and np.isnan(scheme.grades(state, day + 1200)[0])  # out of date


def test_late_scored_and_corrected_sessions():
    rng = np.random.default_rng(9)
    sessions = [random_session(rng, "howell", "mp", n_players=N_PLAYERS, full=True) for _ in range(4)]
    for k, s_ in enumerate(sessions):
        s_["day"] = 19000 + 7 * k
    res = build(sessions, N_PLAYERS)
    res.session_scored_on = res.session_day.copy()
    res.session_scored_on[1] = res.session_day[3] + 1      # session 1 reached the scheme last
    res.session_replaces = np.full(4, -1, np.int32)
    p = ngs.Params(pad_boards=0.0)
    sc = score_results(res)
    assert list(sc.order) == [0, 2, 3, 1]
    scheme = ngs.NGSScheme(p)
    state = scheme.new_state(table(N_PLAYERS, at_start=np.ones(N_PLAYERS, bool)), len(sc.partnership_players))
    out = np.full((sc.n_entries, 2), np.nan)
    scheme.apply(state, sc, out)
    ref = naive.NaiveNGS(p, np.ones(N_PLAYERS, bool), np.ones(N_PLAYERS, bool), np.full(N_PLAYERS, np.nan), 0)
    np.testing.assert_allclose(out, ref.apply(sc, N_PLAYERS), atol=1e-9)
    # a correction: session 2 replaced by a later-scored copy with other scores
    sessions.append(dict(sessions[2], rows=[r[:5] + ((r[5] + 30),) for r in sessions[2]["rows"]], day=sessions[2]["day"]))
    res2 = build(sessions, N_PLAYERS)
    res2.session_scored_on = res2.session_day.copy()
    res2.session_scored_on[4] = res2.session_day[3] + 2
    res2.session_replaces = np.array([-1, -1, -1, -1, 2], np.int32)
    sc2 = score_results(res2)
    scheme2 = ngs.NGSScheme(p)
    state2 = scheme2.new_state(table(N_PLAYERS, at_start=np.ones(N_PLAYERS, bool)), len(sc2.partnership_players))
    out2 = np.full((sc2.n_entries, 2), np.nan)
    scheme2.apply(state2, sc2, out2)
    ref2 = naive.NaiveNGS(p, np.ones(N_PLAYERS, bool), np.ones(N_PLAYERS, bool), np.full(N_PLAYERS, np.nan), 0)
    np.testing.assert_allclose(out2, ref2.apply(sc2, N_PLAYERS), atol=1e-9)
    assert sum(len(h) for h in ref2.hist.values()) == sum(int(state2.ent_i[i, 1]) for i in range(N_PLAYERS))


def test_gain_two_gives_full_credit():
    # two players at 50, par 50, score 60 with fresh partners: gain 2 -> session grade 70 (full credit)
    from simcore.probes.decay import grade_path
    g1 = grade_path("ngs(gain=1,pad_boards=0)", [60.0])[0]
    g2 = grade_path("ngs(gain=2,pad_boards=0)", [60.0])[0]
    assert g1 == pytest.approx(60.0) and g2 == pytest.approx(70.0)


def test_variants_parse():
    s = make_scheme("ngs", {"decay": "exponential", "half_life": "500", "window": "1000"})
    assert s.params.decay == "exponential" and s.params.half_life == 500.0
    with pytest.raises(ValueError, match="flat=2500"):
        make_scheme("ngs", {"decay": "trapezium", "flat": "2500"})


def _walk_ahead(ss, pp, rg, ahead, first_index, n_steps, out):
    """Step ``_keep_ahead`` once per graded entry, recording each stage's cursor (order index, entry,
    entries stepped) after every step."""
    ngs._start_ahead(ahead, first_index, rg.member.shape[0], 0)
    for i in range(n_steps):
        ahead[ngs.A_DONE] += 1
        ngs._keep_ahead(ss, pp, rg, ahead)
        for st in range(3):
            for j in range(3):
                out[i, st, j] = ahead[1 + 3 * st + j]


_walk_ahead_jit = None


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_prefetch_cursors_walk_the_graded_entries_in_order(seed, first_index):
    """``_keep_ahead`` (a hint, but a cursor that skipped or repeated entries, or ran past the end, would
    spend its prefetches on nothing): stepped once per graded entry, each stage has stepped
    AHEAD_ENTRIES[stage] entries past those graded (fewer at the end), through the entries of the
    sessions from ``first_index`` on in processing order, online sessions passed over (naive: the
    list of those entries), and its next entry is the next of that list."""
    global _walk_ahead_jit
    import numba
    from simcore.results import KIND_ONLINE
    if _walk_ahead_jit is None:
        _walk_ahead_jit = numba.njit(_walk_ahead)
    rng = np.random.default_rng(seed)
    sessions, _ = random_history(rng, 10, 1)
    sc = score_results(build(sessions, N_PLAYERS))
    sc.kind[rng.random(sc.n_sessions) < 0.3] = KIND_ONLINE
    scheme = ngs.NGSScheme()
    state = scheme.new_state(table(N_PLAYERS), 1)
    scheme.grow(state, int(sc.pair_partnership.max()) + 1)
    ss = ngs.Sessions(sc.order, sc.day, sc.kind, sc.scoring, sc.winners, sc.event, sc.replaces, sc.pair_start)
    pp = ngs.Pairs(sc.pair_players, sc.pair_group, sc.pair_boards, sc.pair_score, sc.pair_partnership,
                   sc.match_start, sc.match_opp)
    first_index = min(first_index, sc.n_sessions - 1)
    stream = [e for s in sc.order[first_index:] if sc.kind[s] != KIND_ONLINE
              for e in range(sc.pair_start[s], sc.pair_start[s + 1])]

    def next_entry(k, e):  # the entry a cursor at (k, e) steps next, None past the end
        while k < sc.n_sessions:
            s = sc.order[k]
            e = sc.pair_start[s] if e < 0 else e
            if sc.kind[s] != KIND_ONLINE and e < sc.pair_start[s + 1]:
                return e
            k, e = k + 1, -1
        return None

    n_steps = len(stream) + 3
    out = np.zeros((n_steps, 3, 3), np.int64)
    _walk_ahead_jit(ss, pp, scheme._rings(state), np.zeros(ngs.N_AHEAD, np.int64), first_index, n_steps, out)
    for i in range(n_steps):
        for stage in range(3):
            k, e, stepped = out[i, stage]
            want = min(i + 1 + ngs.AHEAD_ENTRIES[stage], len(stream))
            assert stepped == want
            assert next_entry(k, e) == (stream[want] if want < len(stream) else None)


def test_partnership_rows_follow_the_table_chunk_by_chunk():
    """apply writes each partnership's lower-id player (RPCF's side of a count) only for the partnerships
    new since the last chunk of the same table; a different table (a new array) is written whole."""
    rng = np.random.default_rng(7)
    sessions, chunks = random_history(rng, 30, 5)
    scheme = ngs.NGSScheme()
    state = scheme.new_state(table(N_PLAYERS), 1)
    pt = PartnershipTable()
    for chunk in chunks:
        sc = score_results(build([sessions[i] for i in chunk], N_PLAYERS), partnerships=pt)
        scheme.apply(state, sc, None)
        K = len(sc.partnership_players)
        assert np.array_equal(state.pairs[:K, ngs.PAIR_LOW], sc.partnership_players[:, 0])
        assert (state.pairs[K:, ngs.PAIR_LOW] == -1).all()
    # the same ids for other players (results from elsewhere): every row rewritten
    sc = score_results(build([sessions[i] for i in chunks[0]], N_PLAYERS))
    sc.partnership_players = (sc.partnership_players + 1) % N_PLAYERS
    scheme.apply(state, sc, None)
    K = len(sc.partnership_players)
    assert np.array_equal(state.pairs[:K, ngs.PAIR_LOW], sc.partnership_players[:, 0])
