"""Replicates in worker processes: one forked process per group of replicates, outputs in shared memory.

Replicates never exchange anything (each has its own world, bridge deal
pool, partnership table and scheme states, and its own keyed random
streams), so a run with several replicates can give each core whole
replicates instead of sharing every replicate's tasks among threads of one
process.  Threads of one process slow each other down: each task's CPU
time rises about 1.3x with two threads (shared caches, the memory
allocator, the Python glue between kernels holding the GIL), and the
two-thread engine reached 1.37-1.50x one thread on the bench; two pinned
single-thread processes each ran within 5 % of one alone.

``fork_workers(groups, work, tick)`` calls ``work(i, groups[i], forked)``
for each group of replicates: every group but the last in a forked worker
process (the parent's imported modules and loaded kernels come along:
nothing is compiled or loaded again), the last in the parent meanwhile; it
returns each group's (picklable) result.  ``tick()`` runs in the parent
about five times a second while it waits for the workers (the progress
bar).  Large outputs are not sent back: the caller allocates them with
``shared_empty`` before forking and each worker writes its own replicates'
rows.  An exception in a worker is raised in the parent (the others are
stopped); a worker that dies without a word (a crash, the OOM killer)
raises a ``RuntimeError`` naming its exit code.  Results do not depend on
it: which process runs a replicate never changes a number
(``tests/test_engine.py``).

Only where ``os.fork`` exists (Linux, macOS); the engine uses threads
otherwise, on a first run (kernels being compiled: the warm-up child, see
``engine.warmup``, and one compile instead of one per worker), and for a
single replicate.
"""

from __future__ import annotations

import mmap
import os
import pickle
import threading
import traceback

import numpy as np


def available() -> bool:
    """Whether this platform can fork workers (the engine falls back to threads otherwise)."""
    return hasattr(os, "fork")


def shared_empty(shape, dtype) -> np.ndarray:
    """An uninitialised array in anonymous shared memory: writes in a forked worker are seen by the parent."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    buf = mmap.mmap(-1, max(count * dtype.itemsize, 1))
    return np.frombuffer(buf, dtype, count=count).reshape(shape)


def shared_full(shape, fill, dtype) -> np.ndarray:
    out = shared_empty(shape, dtype)
    out.fill(fill)
    return out


def fork_workers(groups: list, work, tick=None, interval: float = 0.2) -> list:
    """``[work(i, group, forked) for i, group in enumerate(groups)]``: every group but the last in a forked
    worker process (``forked`` True), the last here, meanwhile (see the module doc); a group is a list of
    replicates (the errors name them).  This process takes a share itself because a fork and the exit of
    a process that inherited this one's few hundred MB of kernels and heap cost tens of milliseconds (a
    bench run is a few hundred), and its own heap is already faulted in."""
    from multiprocessing.connection import wait
    workers = []  # (pid, read end)
    try:
        for i, group in enumerate(groups[:-1]):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns into the caller's code
                os.close(read)
                _serve(write, lambda: work(i, group, True), group)
            os.close(write)
            workers.append((pid, os.fdopen(read, "rb")))
        results: list = [None] * len(groups)
        results[-1] = work(len(groups) - 1, groups[-1], False)
        pending = {f.fileno(): i for i, (_, f) in enumerate(workers)}
        while pending:
            ready = wait(list(pending), timeout=interval)
            if tick is not None:
                tick()
            for fd in ready:
                i = pending.pop(fd)
                pid, f = workers[i]
                data = f.read()  # the worker writes once, then exits
                workers[i] = (None, f)
                if data:
                    # its exit (unmapping its copy of this process: ~10 ms) need not delay the run
                    threading.Thread(target=os.waitpid, args=(pid, 0), daemon=True).start()
                else:
                    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
                    raise RuntimeError(f"the worker process running replicates {groups[i]} died "
                                       f"(exit code {code}) before sending its results")
                ok, value = pickle.loads(data)
                if not ok:
                    raise value
                results[i] = value
        return results
    finally:
        for pid, f in workers:
            if pid is not None:  # an error elsewhere: stop the workers still running
                try:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
            f.close()


def _serve(write: int, work, group) -> None:
    """In the worker: run ``work()``, send (ok, result or exception), exit without cleanup handlers
    (the parent's atexit handlers, buffered files and temporary folders are the parent's)."""
    code = 0
    try:
        try:
            payload = pickle.dumps((True, work()), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001  every failure goes to the parent, which raises it
            code = 1
            text = f"in the worker process running replicates {group}:\n{traceback.format_exc()}"
            try:
                exc.add_note(text)
                payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
                pickle.loads(payload)  # an exception that cannot be rebuilt is sent as text
            except Exception:  # noqa: BLE001
                payload = pickle.dumps((False, RuntimeError(text)))
        with os.fdopen(write, "wb") as out:
            out.write(payload)
    finally:
        os._exit(code)
