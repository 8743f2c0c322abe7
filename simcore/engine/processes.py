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

Kept workers (``keep_workers()``, for a process that runs many Engines:
``simcore bench``).  A fork per run costs more than the fork: after it,
every first write to a page of the parent's warm heap, in either process,
is a copy-on-write fault (the bench workload: ~10 000 faults a process a
run, ~6 000 of them building the replicate, where one process alone reuses
its freed heap with none), and the parent pays the fork's page-table copy
(~5 ms) before any share starts.  Within ``keep_workers()`` the workers are
forked once, at the first run that needs them, and serve each later run's
shares: a share goes to a worker as a picklable callable over a Unix
socket, the shared outputs by reference (``shared_empty``'s arrays live in
memfds, and their descriptors travel with the message), and the result
comes back on the socket.  Failure handling is as strict as with a fork a
run: an exception in a worker is raised in the parent; a worker that dies
(or, on an error elsewhere, is still running: it is killed) is named,
reaped and replaced at the next run; leaving the block (or this process
exiting) closes the sockets, the workers exit on end-of-file and are
reaped.  A kept worker runs the code and module state of the moment it was
forked (a patch made after that is not seen); no result depends on it.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import pickle
import socket
import struct
import threading
import traceback
import weakref

import numpy as np


def available() -> bool:
    """Whether this platform can fork workers (the engine falls back to threads otherwise)."""
    return hasattr(os, "fork")


_MEMFDS: dict[int, int] = {}  # id(mmap of a shared array) -> its memfd (sent with a kept worker's job)


def shared_empty(shape, dtype) -> np.ndarray:
    """An uninitialised array in shared memory: writes in a forked or kept worker are seen by the parent
    (a memfd where the platform has them, so a kept worker can be sent it; anonymous shared memory else)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    size = max(count * dtype.itemsize, 1)
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("simcore-shared", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, size)
            buf = mmap.mmap(fd, size)
        except BaseException:
            os.close(fd)
            raise
        _MEMFDS[id(buf)] = fd
        weakref.finalize(buf, _forget_memfd, id(buf), fd)
    else:
        buf = mmap.mmap(-1, size)
    return np.frombuffer(buf, dtype, count=count).reshape(shape)


def _forget_memfd(key: int, fd: int) -> None:
    _MEMFDS.pop(key, None)
    os.close(fd)


def shared_full(shape, fill, dtype) -> np.ndarray:
    """``np.full`` in shared memory.  The kernel hands out new shared pages zeroed: a zero fill is left to
    it, so the pages are first touched (faulted in) where they are written, by the process writing them."""
    out = shared_empty(shape, dtype)
    if np.any(np.asarray(fill, dtype) != 0) or np.signbit(np.asarray(fill, dtype)).any():
        out.fill(fill)
    return out


def fork_workers(groups: list, work, tick=None, interval: float = 0.2) -> list:
    """``[work(i, group, forked) for i, group in enumerate(groups)]``: every group but the last in a forked
    worker process (``forked`` True), the last here, meanwhile (see the module doc); a group is a list of
    replicates (the errors name them).  This process takes a share itself because a fork and the exit of
    a process that inherited this one's few hundred MB of kernels and heap cost tens of milliseconds (a
    bench run is a few hundred), and its own heap is already faulted in."""
    kept = _kept
    if kept is not None and len(groups) > 1 and kept.lock.acquire(blocking=False):
        try:  # another thread's run holds the kept workers: this one forks its own
            return kept.run(groups, work, tick, interval)
        finally:
            kept.lock.release()
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
        def receive(i):
            pid, f = workers[i]
            data = f.read()  # the worker writes once, then exits
            workers[i] = (None, f)
            if data:
                # its exit (unmapping its copy of this process: ~10 ms) need not delay the run
                threading.Thread(target=os.waitpid, args=(pid, 0), daemon=True).start()
                return data
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

        pending = {f.fileno(): i for i, (_, f) in enumerate(workers)}
        return _gather(groups, work, pending, receive, tick, interval)
    finally:
        for pid, f in workers:
            if pid is not None:  # an error elsewhere: stop the workers still running
                try:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
            f.close()


def _outcome(work, group) -> tuple[bool, bytes]:
    """In a worker: run ``work()``; (ok, pickled (ok, result or exception)) for the parent."""
    try:
        return True, pickle.dumps((True, work()), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001  every failure goes to the parent, which raises it
        text = f"in the worker process running replicates {group}:\n{traceback.format_exc()}"
        try:
            exc.add_note(text)
            payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(payload)  # an exception that cannot be rebuilt is sent as text
        except Exception:  # noqa: BLE001
            payload = pickle.dumps((False, RuntimeError(text)))
        return False, payload


def _serve(write: int, work, group) -> None:
    """In the worker: run ``work()``, send (ok, result or exception), exit without cleanup handlers
    (the parent's atexit handlers, buffered files and temporary folders are the parent's)."""
    code = 1
    try:
        ok, payload = _outcome(work, group)
        code = 0 if ok else 1
        with os.fdopen(write, "wb") as out:
            out.write(payload)
    finally:
        os._exit(code)


def _gather(groups: list, work, pending: dict, receive, tick, interval: float) -> list:
    """This process's share (the last group), then each worker's result as it arrives, for
    ``fork_workers`` and the kept workers alike.  ``pending`` maps a descriptor to its worker's index;
    an index is taken out before its worker is read, so the caller's cleanup finds the workers still
    running there.  ``receive(i)`` returns worker ``i``'s pickled outcome, or its exit code (an int)
    when it died without sending one: raised here as a ``RuntimeError`` naming its replicates, as is
    a worker's own exception."""
    from multiprocessing.connection import wait
    results: list = [None] * len(groups)
    results[-1] = work(len(groups) - 1, groups[-1], False)
    while pending:
        ready = wait(list(pending), timeout=interval)
        if tick is not None:
            tick()
        for fd in ready:
            i = pending.pop(fd)
            data = receive(i)
            if isinstance(data, int):
                raise RuntimeError(f"the worker process running replicates {groups[i]} died "
                                   f"(exit code {data}) before sending its results")
            ok, value = pickle.loads(data)
            if not ok:
                raise value
            results[i] = value
    return results


# --- kept workers ----------------------------------------------------------------------

_kept: _KeptWorkers | None = None  # the pool of the innermost ``keep_workers()`` block


@contextlib.contextmanager
def keep_workers():
    """Within the block, runs in worker processes reuse the same workers (see the module doc); nested
    blocks share the outer one's.  Where memfds or descriptor passing are missing, a fork a run as before."""
    global _kept
    if _kept is not None or not (available() and hasattr(os, "memfd_create") and hasattr(socket, "send_fds")):
        yield
        return
    _kept = pool = _KeptWorkers()
    try:
        yield
    finally:
        _kept = None
        pool.close()


def ready(workers: int) -> None:
    """Within ``keep_workers()``: fork the kept workers a run of ``workers`` shares needs now, before the
    run allocates anything (a worker forked later would keep its copy of the run's objects, and its map of
    the run's shared outputs, all its life).  Elsewhere nothing."""
    kept = _kept
    if kept is not None and kept.lock.acquire(blocking=False):
        try:
            kept.ready(workers - 1)
        finally:
            kept.lock.release()


_HEADER = struct.Struct("<QI")  # a message: payload bytes and descriptors (sent with the header), then the payload


def _send(sock: socket.socket, data: bytes, fds=()) -> None:
    header = _HEADER.pack(len(data), len(fds))
    if fds:
        socket.send_fds(sock, [header], list(fds))
    else:
        sock.sendall(header)
    sock.sendall(data)


def _recv_exact(sock: socket.socket, n: int) -> bytearray:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise EOFError("the other end closed the socket within a message")
        got += k
    return buf


def _recv(sock: socket.socket):
    """(payload, descriptors) of the next message; None at end-of-file before one."""
    header, fds, _, _ = socket.recv_fds(sock, _HEADER.size, 64)
    if not header:
        return None
    if len(header) < _HEADER.size:
        header += _recv_exact(sock, _HEADER.size - len(header))
    n, _ = _HEADER.unpack(header)
    return _recv_exact(sock, n), fds


class _Pickler(pickle.Pickler):
    """Pickles ``shared_empty``'s arrays (and views of them) by reference: memfd, offset, shape, strides."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fds: list[int] = []

    def persistent_id(self, obj):
        if type(obj) is not np.ndarray:
            return None
        base = obj
        while isinstance(base, np.ndarray):
            base = base.base
        if isinstance(base, memoryview):  # numpy's frombuffer holds the mmap through one
            base = base.obj
        fd = _MEMFDS.get(id(base)) if isinstance(base, mmap.mmap) else None
        if fd is None:
            return None
        if fd not in self.fds:
            self.fds.append(fd)
        offset = obj.__array_interface__["data"][0] - np.frombuffer(base, np.uint8).ctypes.data
        return ("memfd", self.fds.index(fd), len(base), offset, obj.shape, obj.strides, obj.dtype.str)


class _Unpickler(pickle.Unpickler):
    def __init__(self, data, fds):
        super().__init__(io.BytesIO(data))
        self.fds, self.maps = fds, {}

    def persistent_load(self, pid):
        _, k, size, offset, shape, strides, dtype = pid
        if k not in self.maps:
            self.maps[k] = mmap.mmap(self.fds[k], size)
        return np.ndarray(shape, np.dtype(dtype), buffer=self.maps[k], offset=offset, strides=strides)


def _exit_code(pid: int) -> int:
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


class _KeptWorkers:
    """Worker processes serving shares over Unix sockets, forked when first needed (``keep_workers``)."""

    def __init__(self):
        self.workers: list = []  # (pid, socket)
        self.lock = threading.Lock()  # one run at a time uses (and reaps, forks) the workers

    def _spawn(self) -> None:
        global _kept
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            try:
                _kept = None
                ours.close()
                for _, other in self.workers:  # the others' sockets are the parent's alone (their end-of-file)
                    other.close()
                _serve_kept(theirs)
                os._exit(0)
            finally:
                os._exit(1)
        theirs.close()
        self.workers.append((pid, ours))

    def ready(self, n: int) -> None:
        """``n`` live workers at least: the dead reaped (one that died between runs: a Ctrl-C, the OOM
        killer), new ones forked."""
        for k, (pid, sock) in enumerate(self.workers):
            if os.waitpid(pid, os.WNOHANG)[0]:
                sock.close()
                self.workers[k] = None
        self.workers = [w for w in self.workers if w is not None]
        while len(self.workers) < n:
            self._spawn()

    def run(self, groups: list, work, tick, interval: float) -> list:
        """``fork_workers`` on the kept workers: ``work`` must pickle (see ``_Pickler``)."""
        self.ready(len(groups) - 1)
        busy = {}  # socket descriptor -> worker (and group) index
        try:
            for i, group in enumerate(groups[:-1]):
                buf = io.BytesIO()
                pickler = _Pickler(buf)
                pickler.dump((work, i, group))
                pid, sock = self.workers[i]
                busy[sock.fileno()] = i
                try:
                    _send(sock, buf.getbuffer(), pickler.fds)
                except OSError:
                    del busy[sock.fileno()]
                    code = self._drop(i, kill=False)
                    raise RuntimeError(f"the worker process for replicates {group} died (exit code {code}) "
                                       "before it was sent its share") from None

            def receive(i):
                try:
                    message = _recv(self.workers[i][1])
                except (EOFError, OSError):
                    message = None
                return self._drop(i, kill=False) if message is None else message[0]

            return _gather(groups, work, busy, receive, tick, interval)
        finally:
            for i in busy.values():  # an error elsewhere: stop the workers still running
                self._drop(i, kill=True)
            self.workers = [w for w in self.workers if w is not None]

    def _drop(self, i: int, kill: bool) -> int:
        """Reap worker ``i`` (killing it first if asked); its exit code."""
        pid, sock = self.workers[i]
        self.workers[i] = None
        sock.close()
        if kill:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        return _exit_code(pid)

    def close(self) -> None:
        """Close the sockets; the workers exit on end-of-file and are reaped here."""
        with self.lock:  # after a run another thread has going on them
            workers, self.workers = [w for w in self.workers if w is not None], []
        for _, sock in workers:
            sock.close()
        for pid, _ in workers:
            _exit_code(pid)


def _serve_kept(sock: socket.socket) -> None:
    """A kept worker's loop: take a share, send its outcome; exit at end-of-file (the parent left
    ``keep_workers()`` or ended) or on any failure outside a share."""
    while True:
        message = _recv(sock)
        if message is None:
            return
        data, fds = message
        try:
            try:
                work, i, group = _Unpickler(data, fds).load()
            finally:
                for fd in fds:  # the maps keep the memory
                    os.close(fd)
        except BaseException as exc:  # noqa: BLE001
            _send(sock, _outcome(lambda: _raise(exc), "of this message")[1])
            continue
        _, payload = _outcome(lambda: work(i, group, True), group)
        del work  # the run's shared outputs are unmapped now, not at the next message
        _send(sock, payload)


def _raise(exc):
    raise exc
