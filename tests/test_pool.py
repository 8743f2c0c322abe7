"""engine.pool: the most urgent ready task first, bookkeeping on the finishing thread, errors reach drain."""

import threading

import pytest

from simcore.engine.pool import TaskPool


def test_one_thread_runs_inline_smallest_priority_first():
    order, done, threads = [], [], set()

    def note(tag):
        order.append(tag)
        threads.add(threading.get_ident())

    with TaskPool(1) as pool:
        for prio, tag in [((2, 0), "c"), ((1, 5), "b"), ((1, 1), "a"), ((3,), "d")]:
            pool.submit(prio, tag, note, tag)
        pool.drain(lambda tag, result, seconds: done.append(tag))
    assert order == ["a", "b", "c", "d"] == done
    assert threads == {threading.get_ident()}  # no helper thread: inline on the caller


def test_on_done_submits_follow_ups_and_drain_waits_for_all_of_them():
    """A chain per key: each finished link submits the next from on_done; two threads run the chains."""
    seen, threads = [], set()

    def link(key, i):
        threads.add(threading.get_ident())
        return key, i

    with TaskPool(2) as pool:
        def on_done(tag, result, seconds):
            assert result == tag and seconds >= 0
            seen.append(tag)
            key, i = tag
            if i < 49:
                pool.submit((i + 1, key), (key, i + 1), link, key, i + 1)

        for key in range(3):
            pool.submit((0, key), (key, 0), link, key, 0)
        pool.drain(on_done)
        assert sorted(seen) == [(k, i) for k in range(3) for i in range(50)]
        for key in range(3):  # each chain in order
            assert [i for k, i in seen if k == key] == list(range(50))
        seen.clear()
        pool.submit((0,), ("again", 49), link, "again", 49)  # the pool serves a second drain
        pool.drain(on_done)
        assert seen == [("again", 49)]


def test_a_task_error_is_raised_by_drain_with_the_task_named():
    def fail():
        raise ValueError("chunk 3 of replicate 1")

    with TaskPool(2) as pool:
        pool.submit((0,), "ok", lambda: 7)
        pool.submit((1,), "bad", fail)
        for i in range(20):
            pool.submit((2, i), ("late", i), lambda: 0)
        seen = {}
        with pytest.raises(ValueError, match="chunk 3 of replicate 1"):
            pool.drain(lambda tag, result, seconds: seen.__setitem__(tag, result))
    assert seen.get("ok", 7) == 7
    assert len(seen) < 21  # the queued tasks were dropped


def test_an_on_done_error_is_raised_by_drain():
    def on_done(tag, result, seconds):
        raise KeyError(f"bookkeeping of {tag}")

    with TaskPool(2) as pool:
        pool.submit((0,), "t", lambda: 1)
        with pytest.raises(KeyError, match="bookkeeping of t"):
            pool.drain(on_done)


def test_schedule_replay_of_a_two_chunk_replicate():
    """experiments.engine_schedule's replays, worked by hand: play, score and grade 1 s each, 2 workers.
    Engine: play0 | score0 + play1 | grade0 + score1 | grade1 = 4 s.  Barrier: pass A0 (2 s) |
    A1 beside grade0 (2 s) | grade1 = 5 s."""
    from experiments.engine_schedule import replay_barrier, replay_engine
    play = {(0, 0): 1.0, (0, 1): 1.0}
    score = dict(play)
    grade = {(0, 0, 0): 1.0, (0, 0, 1): 1.0}
    assert replay_engine(play, score, grade, 1, 1, 2, 2) == 4.0
    assert replay_barrier(play, score, grade, 1, 1, 2, 2) == 5.0
    assert replay_engine(play, score, grade, 1, 1, 2, 1) == 6.0 == replay_barrier(play, score, grade, 1, 1, 2, 1)
