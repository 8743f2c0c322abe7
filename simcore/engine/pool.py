"""Worker threads that take the most urgent ready task first.

The engine's tasks form chains (pass A of a replicate, chunk after chunk;
each scheme variant's grading of a replicate, chunk after chunk).  A FIFO
pool runs them in the order they became ready, so a pass A that becomes
ready behind four grading tasks waits for them, and the chain that sets the
run's length stalls.  Here every task carries a priority (a tuple, smallest
first) and an idle worker takes the smallest; the engine submits a task only
once its inputs exist, so a worker never blocks on another task.

Which task runs when never changes a result: every task reads only its
inputs and writes only its own outputs (see ``simcore.engine``).
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading


class TaskPool:
    """``threads`` workers; ``submit(priority, tag, fn, *args)``, then ``finished()`` yields
    ``(tag, result, seconds)`` in completion order (seconds: the task's wall time) and raises
    the first task's exception."""

    def __init__(self, threads: int):
        self._heap: list = []
        self._order = itertools.count()  # ties: first submitted first
        self._ready = threading.Condition()
        self._done: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = False
        self._workers = [threading.Thread(target=self._work, name=f"simcore-{i}", daemon=True)
                         for i in range(threads)]
        for t in self._workers:
            t.start()

    def submit(self, priority: tuple, tag, fn, *args) -> None:
        with self._ready:
            heapq.heappush(self._heap, (priority, next(self._order), tag, fn, args))
            self._ready.notify()

    def finished(self):
        """The next finished task: (tag, result, wall seconds); blocks until one is."""
        tag, result, error, seconds = self._done.get()
        if error is not None:
            raise error
        return tag, result, seconds

    def _work(self) -> None:
        from time import perf_counter
        while True:
            with self._ready:
                while not self._heap and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return
                _, _, tag, fn, args = heapq.heappop(self._heap)
            t0 = perf_counter()
            try:
                self._done.put((tag, fn(*args), None, perf_counter() - t0))
            except BaseException as e:  # handed to the caller of finished()
                self._done.put((tag, None, e, perf_counter() - t0))

    def close(self) -> None:
        """Drop the tasks not started and wait for the running ones to end."""
        with self._ready:
            self._closed = True
            self._heap.clear()
            self._ready.notify_all()
        for t in self._workers:
            t.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
