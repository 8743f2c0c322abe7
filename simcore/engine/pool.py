"""Threads that take the most urgent ready task first, and do the follow-up bookkeeping themselves.

The engine's tasks form chains (pass A of a replicate, chunk after chunk;
each scheme variant's grading of a replicate, chunk after chunk).  A FIFO
pool runs them in the order they became ready, so a pass A that becomes
ready behind four grading tasks waits for them, and the chain that sets the
run's length stalls.  Here every task carries a priority (a tuple, smallest
first) and an idle thread takes the smallest; the engine submits a task only
once its inputs exist, so a thread never blocks on another task.

``drain(on_done)`` runs the tasks on the calling thread and ``threads - 1``
helper threads.  The thread that finished a task calls ``on_done`` (the
engine's bookkeeping: record the snapshot, submit the tasks it made ready)
under the pool's lock and goes straight on to the most urgent ready task:
no task's end waits for another thread to wake up and hand out the next one
(waking an idle vCPU under a hypervisor takes tens of microseconds, twice a
task with a dispatching thread).  A helper is woken only when a task is
ready that no running thread will take.  With ``threads=1`` there is no
helper: every task runs inline on the calling thread.

Which thread runs a task, and when, never changes a result: every task reads
only its inputs and writes only its own outputs (see ``simcore.engine``).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from time import perf_counter


class TaskPool:
    """``threads`` threads in all, the caller of ``drain`` one of them.

    ``submit(priority, tag, fn, *args)`` queues a task (smallest priority
    first; ties first submitted first); ``drain(on_done)`` runs every queued
    task and the ones ``on_done(tag, result, seconds)`` submits (seconds: the
    task's wall time; ``on_done`` runs under the pool's lock, one at a time),
    and returns when none is queued or running.  The first exception of a
    task or of ``on_done`` drops the tasks not started, waits for the running
    ones and is raised by ``drain``.
    """

    def __init__(self, threads: int):
        if threads < 1:
            raise ValueError(f"threads={threads!r}: give a positive integer")
        self._heap: list = []
        self._order = itertools.count()  # ties: first submitted first
        self._lock = threading.Condition()
        self._on_done = None  # the current drain's callback
        self._running = 0  # tasks taken and not finished (their on_done not yet run)
        self._idle = 0  # threads waiting for a task (drain's too)
        self._error: BaseException | None = None
        self._closed = False
        self._helpers = [threading.Thread(target=self._help, name=f"simcore-{i + 1}", daemon=True)
                         for i in range(threads - 1)]
        for t in self._helpers:
            t.start()

    @property
    def threads(self) -> int:
        """Threads that run tasks: ``drain``'s caller and the helpers."""
        return len(self._helpers) + 1

    def submit(self, priority: tuple, tag, fn, *args) -> None:
        """Queue a task; from ``on_done`` (the lock is held then) or from the caller between drains."""
        with self._lock:
            heapq.heappush(self._heap, (priority, next(self._order), tag, fn, args))

    def drain(self, on_done) -> None:
        """Run tasks on this thread and the helpers until none is queued or running (see the class)."""
        with self._lock:
            self._on_done = on_done
            self._error = None
            self._wake()
        try:
            self._loop(helper=False)
        finally:
            with self._lock:
                self._on_done = None
        if self._error is not None:
            raise self._error

    def _wake(self) -> None:
        """Wake idle helpers for the queued tasks (lock held)."""
        n = min(len(self._heap), self._idle)
        if n:
            self._lock.notify(n)

    def _take(self, helper: bool):
        """The next task (lock held), None when the caller's loop should end: for ``drain``'s thread when
        nothing is queued or running (or a task failed), for a helper when the pool closes."""
        while True:
            if self._closed:
                return None
            if self._error is not None:
                if not helper:
                    while self._running:  # the running tasks end before drain raises
                        self._lock.wait()
                    return None
            elif self._heap and self._on_done is not None:
                _, _, tag, fn, args = heapq.heappop(self._heap)
                self._running += 1
                self._wake()  # more ready than running threads take: an idle helper takes one
                return tag, fn, args
            elif not helper and not self._running:
                return None
            self._idle += 1
            self._lock.wait()
            self._idle -= 1

    def _loop(self, helper: bool) -> None:
        with self._lock:
            task = self._take(helper)
        while task is not None:
            tag, fn, args = task
            t0 = perf_counter()
            try:
                result, error = fn(*args), None
            except BaseException as e:  # handed to drain
                result, error = None, e
            seconds = perf_counter() - t0
            with self._lock:
                self._running -= 1
                if error is None and self._error is None:
                    try:
                        self._on_done(tag, result, seconds)
                    except BaseException as e:  # handed to drain
                        error = e
                if error is not None and self._error is None:
                    self._error = error
                    self._heap.clear()
                if self._error is not None or (not self._heap and not self._running):
                    self._lock.notify_all()  # drain's thread may be waiting for the end
                task = self._take(helper)

    def _help(self) -> None:
        self._loop(helper=True)

    def close(self) -> None:
        """Drop the tasks not started and wait for the running ones to end."""
        with self._lock:
            self._closed = True
            self._heap.clear()
            self._lock.notify_all()
        for t in self._helpers:
            t.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
