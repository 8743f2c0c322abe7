"""engine.pool: the most urgent ready task first, and a task's error reaches the caller."""

import threading

import pytest

from simcore.engine.pool import TaskPool


def test_one_worker_takes_the_smallest_priority_first():
    gate = threading.Event()
    order = []
    with TaskPool(1) as pool:
        pool.submit((0,), "gate", gate.wait)  # holds the worker while the rest queue up
        for prio, tag in [((2, 0), "c"), ((1, 5), "b"), ((1, 1), "a"), ((3,), "d")]:
            pool.submit(prio, tag, order.append, tag)
        gate.set()
        done = [pool.finished()[0] for _ in range(5)]
    assert order == ["a", "b", "c", "d"]
    assert done == ["gate", "a", "b", "c", "d"]


def test_a_task_error_is_raised_by_finished_with_the_task_named():
    def fail():
        raise ValueError("chunk 3 of replicate 1")

    with TaskPool(2) as pool:
        pool.submit((0,), "ok", lambda: 7)
        pool.submit((1,), "bad", fail)
        seen = {}
        with pytest.raises(ValueError, match="chunk 3 of replicate 1"):
            for _ in range(2):
                tag, result, seconds = pool.finished()
                seen[tag] = result
                assert seconds >= 0
    assert seen in ({}, {"ok": 7})


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
