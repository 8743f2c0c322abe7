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
