"""Numba flags for every simcore kernel, in one place.

All kernels are compiled with ``cache=True`` so a fresh process loads them
from the kernel cache (``simcore.kernel_cache_dir()``: one folder outside
the source tree that every way of running simcore shares) instead of
recompiling, and with ``error_model="numpy"``
so a division never raises from inside a kernel (inputs are validated at the
Python boundary before any kernel runs).  ``fastmath`` stays off: results must
be bit-identical whatever the machine's thread count.

``kernel(refcount=False)`` compiles a kernel without numba's reference
counting (numba's ``_nrt=False``).  Numba otherwise wraps every array
argument of every call between kernels in an ``NRT_incref``/``NRT_decref``
pair; for the small helpers of a hot call tree (an NGS grade passes ~40
arrays down its calls) that is most of the cost: a grade took 367 ns with it
and 125 ns without.  Only kernels that allocate nothing may use it — numba
refuses to compile one that does — and the arrays they get are kept alive by
the Python caller anyway.

``kernel(helper=True)`` (or ``helper``) is for a kernel called only from other kernels.  Numba
otherwise builds, for every jitted function, a CPython entry wrapper that unboxes each argument
(each array of each named tuple) and a C-callable wrapper, both compiled through LLVM although a
helper is never entered from Python.  A helper gets neither (numba's ``no_cpython_wrapper`` and
``no_cfunc_wrapper``); its dispatcher (``_Helper``) runs the plain-Python function when it *is*
called from Python — a plain-Python twin calling ``caller.py_func``, which calls the helper, or a
test — instead of jumping into the missing wrapper (a segfault).  Kernels calling it get the same
machine code as before: only compile time changes.

``helper(forceinline=True)`` (``kernel(forceinline=True)`` for one a test also calls from Python) is
for a small helper that must be inlined where it is called (a call in a hot loop costs more than its
body).  numba's ``inline="always"`` does that on numba's IR: every call site gets a copy of the
callee's bytecode translated, typed and lowered again inside the caller's compile
(``schemes.decay._phys`` alone was inlined at dozens of sites).  ``forceinline`` (numba's own
option: LLVM's ``alwaysinline`` attribute) compiles the helper once and LLVM pastes its optimised
code into each caller: the same operations, so the same results bit for bit; the NGS kernels of a
first run compiled in 13.2 s of CPU instead of 22.9 (loaded machine), and NGS's national kernel ran
within the noise of before (+2 % on the minimum, +5 % on the median of five interleaved pairs).
Every other kernel is compiled with ``forceinline=False`` set, not left to inherit: numba gives a
kernel first compiled while a forceinline caller is being compiled that caller's flag
(``ConfigStack``), and a large helper would then be pasted into every site too.

Set ``NUMBA_DISABLE_JIT=1`` to run every kernel as plain Python (coverage
runs, debugging); the decorators below then return the function unchanged.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

import numba
from numba.core import event as _event
from numba.core import types
from numba.core.errors import TypingError
from numba.core.registry import CPUDispatcher

import simcore

if not numba.config.CACHE_DIR:  # numba was imported before simcore: point it at simcore's cache all the same
    numba.config.CACHE_DIR = os.environ.get("NUMBA_CACHE_DIR") or simcore.kernel_cache_dir()

JIT_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", fastmath=False)


def _plain_shape_error() -> None:
    """Give a slice assigned from an array of another shape numba's plain message (its generic
    target's "cannot assign slice from input of different size") instead of its CPU message.

    The CPU message spells both shapes out, and formatting them compiles numba's string machinery
    (str and repr of integers, join, concatenation): about 40 functions, 2.6-2.8 s of CPU in each
    process of a first run (its compile events, loaded machine), for an error our kernels never
    raise (their arrays are sized by the Python layer).  Only that error's text changes; a warm run
    loads kernels from the cache and compiles nothing either way.
    """
    from numba.core.typing.templates import builtin_registry
    from numba.np import arrayobj
    cpu = getattr(arrayobj, "ol_raise_with_shape_context_cpu", None)
    generic = getattr(arrayobj, "ol_raise_with_shape_context_generic", None)
    if cpu is None or generic is None:  # another numba: leave it as it is
        return
    for template in builtin_registry.functions:
        if getattr(template, "_overload_func", None) is cpu:
            template._overload_func = staticmethod(generic)


_plain_shape_error()


def _cheap_flags_hash() -> None:
    """Give numba's compile ``Flags`` the hash they have, computed once per class, and an equality
    that first compares the options set.

    numba keys its cache of overload implementations (``templates._get_impl``) by the flags of the
    kernel being compiled, and ``TargetConfig.__hash__`` builds the dict of all ~45 options (one
    property call each) only to hash their sorted *names* — the same number for every ``Flags`` —
    and ``__eq__`` builds two of those dicts; ~7 % of a first run's compile CPU went there (cProfile
    of the NGS warm-up job: 5.8 of 76 s).  The replacements return the same values: the hash of the
    sorted option names, and equality true when both hold the same options set, else numba's own
    comparison.  Applied only when numba's methods are the ones read here (source compared), so
    another numba is left as it is.
    """
    import inspect

    from numba.core import targetconfig
    from numba.core.compiler import Flags
    base = targetconfig.TargetConfig
    try:
        same = (inspect.getsource(base.__hash__).split() == "def __hash__(self): return hash(tuple(sorted(self.values())))".split()
                and "__hash__" not in Flags.__dict__ and "__eq__" not in Flags.__dict__)
    except (OSError, TypeError):  # no source: leave numba as it is
        same = False
    if not same:
        return
    numba_eq = base.__eq__
    names_hash = hash(tuple(sorted(Flags.options)))

    def __hash__(self):
        return names_hash if type(self) is Flags else base.__hash__(self)

    def __eq__(self, other):
        if type(other) is type(self) and self._values == other._values:
            return True
        return numba_eq(self, other)

    Flags.__hash__ = __hash__
    Flags.__eq__ = __eq__


_cheap_flags_hash()


def _numba_code_is(functions, sha1: str) -> bool:
    """Is the source of numba's ``functions`` (concatenated in order) the code a patch below was written
    against (``sha1`` of it)?  Each patch applies only then, so another numba is left as it is."""
    import hashlib
    import inspect
    try:
        source = "".join(inspect.getsource(f) for f in functions)
    except (OSError, TypeError):
        return False
    return hashlib.sha1(source.encode()).hexdigest() == sha1


def _overload_impls_by_inherited_flags() -> None:
    """Key numba's cache of ``@overload`` implementations (``np.empty``, ``max``, ``arr.sum``...) by
    the caller's flags that such an implementation inherits, not by all of them.

    ``_OverloadFunctionTemplate._get_impl`` caches the dispatcher it builds for an overload by the
    argument types and the whole ``Flags`` of the kernel being compiled; on a miss it builds a new
    dispatcher and compiles the implementation again.  Our kernels differ in flags the
    implementation never sees (a helper's ``no_cpython_wrapper``, a parallel kernel's
    ``auto_parallel``...), so ``np.empty(n, np.int64)`` was compiled four times and ``max`` of two
    int64 five times: 69 overload compiles for 41 signatures in a one-process first default run, 52
    with this key (its compile events; ``np.empty``'s 1.2 s -> 0.6 s of CPU, loaded machine).  An overload's compile takes from the caller only ``nrt``,
    ``fastmath``, ``error_model`` and ``forceinline`` (``CPUTargetOptions.finalize``'s
    ``inherit_if_not_set``), so those four are the key: the same implementation is compiled from
    the same flags, and kernels get the same code.  (~70 000 lookups in a first run: the key is read
    from the options set, not through the options' properties.)  Applied only when numba's two methods are the
    ones read here (sha1 of their source), so another numba is left as it is.
    """
    from numba.core import cpu, targetconfig
    from numba.core.compiler import Flags
    from numba.core.typing import templates
    template = templates._OverloadFunctionTemplate
    if (not _numba_code_is((template._get_impl, cpu.CPUTargetOptions.finalize),
                           "4a433a2a21d8b37aa9d136ffee25880f63be9a4b")
            or not isinstance(getattr(Flags(), "_values", None), dict)):
        return

    def _get_impl(self, args, kws):
        flags = targetconfig.ConfigStack.top_or_none()
        if type(flags) is Flags:  # what the implementation's compile inherits from the caller
            # read from the options set (an option left at its default gives another key: a
            # compile more, never a wrong one); the properties cost ~12 us a call, ~70 000 calls
            values = flags._values
            fastmath = values.get("fastmath")
            flags = ("inherited", values.get("nrt"), values.get("error_model"), values.get("forceinline"),
                     None if fastmath is None else frozenset(fastmath.flags))
        cache_key = self.context, tuple(args), tuple(kws.items()), flags
        try:
            impl, args = self._impl_cache[cache_key]
            return impl, args
        except KeyError:
            pass
        impl, args = self._build_impl(cache_key, args, kws)
        return impl, args

    template._get_impl = _get_impl


_overload_impls_by_inherited_flags()


def _cache_loads_without_registry_refresh() -> None:
    """Load a kernel from the kernel cache without first filling numba's compile registries.

    numba's ``Cache.load_overload`` calls ``target_context.refresh()`` before it loads a cached
    kernel: the first call in a process imports numba's whole library of typing and lowering
    implementations (``CPUContext.load_additional_registries``: linear algebra, typed containers,
    jitclass, datetimes, random generators...) and installs their registries, 0.44 s of a warm
    run's life (loaded machine) for code that is only loaded, never compiled.  Loaded code needs of
    all that only numba's runtime (NRT), which that refresh initialises first: that is done here
    (``rtsys.initialize``, as the refresh does it).  A compile still gets every registry: numba's
    compiler refreshes both contexts itself (``CompilerBase.__init__``).  Applied only when those
    three numba methods are the ones read here (sha1 of their source), so another numba is left as
    it is.
    """
    from numba.core import caching, compiler, cpu
    from numba.core.runtime import rtsys
    if not _numba_code_is((caching.Cache.load_overload, cpu.CPUContext.load_additional_registries,
                           compiler.CompilerBase.__init__), "696264315a567ee1b4b16be4ba08d029ebfd657f"):
        return

    def load_overload(self, sig, target_context):
        if type(target_context) is cpu.CPUContext:
            rtsys.initialize(target_context)
        else:
            target_context.refresh()
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload


_cache_loads_without_registry_refresh()


# sha1 of the source of the numba methods ``_link_only_pipeline`` relies on (numba 0.68.1), in this
# order: a numba whose code differs compiles helpers as stock numba does
_LINK_ONLY_NUMBA_SHA1 = "8c5f7d3c21b82474c114cc39b303e6f9b88e6085"


def _link_only_pipeline():
    """numba's compiler, except that a helper's code library gets no machine code of its own: the
    ``pipeline_class`` of ``kernel(helper=True)``; None (stock numba) when numba's code differs.

    numba finalises every library it compiles the same way: optimise the module, add it to the JIT
    engine and emit machine code for it.  A helper has no Python or C entry, and the kernels that
    call it link the library's optimised module into their own (``add_linking_library``) and run
    their own copy — always so when they are loaded from the kernel cache — so that machine code
    is never used.  Emitting it was ~3 s of CPU in each process of a first run (cprof2 table,
    loaded machine).  A helper's library (``_LinkOnlyLibrary``) is optimised as before (callers
    link that module) but adds to the engine only a module holding its environment pointers
    (``NumbaEnv`` globals, which ``set_env`` fills and the linked copies in callers resolve to, as
    they resolve to the helper's own module in stock numba); that module's object code is what the
    kernel cache stores beside the linking bitcode, so numba's own ``_unserialize`` loads it.  The
    callers' machine code is the same as before (the module they link is the same), so results
    are too; a library with calls left for numba's runtime linker (recursion) is finalised as stock.
    """
    import weakref

    import llvmlite.binding as ll
    import llvmlite.ir as llvmir
    from numba.core import codegen, compiler, cpu
    from numba.core.codegen import JITCodeLibrary, RuntimeLinker

    relied_on = (codegen.CPUCodeLibrary._finalize_final_module, JITCodeLibrary._finalize_specific,
                 codegen.CPUCodeLibrary.serialize_using_object_code, codegen.CPUCodeLibrary._object_compiled_hook,
                 codegen.CPUCodeLibrary._unserialize, codegen.JITCPUCodegen._add_module,
                 codegen.JITCPUCodegen.set_env, compiler.CompilerBase.compile_extra, cpu.CPUContext.get_executable)
    if not _numba_code_is(relied_on, _LINK_ONLY_NUMBA_SHA1):
        return None

    class _LinkOnlyLibrary(JITCodeLibrary):
        def _finalize_final_module(self):
            module = self._final_module
            if any(gv.name.startswith(RuntimeLinker.PREFIX) for gv in module.global_variables):
                return super()._finalize_final_module()
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            envs = self._codegen._create_empty_module(self.name + ".env")
            for gv in module.global_variables:
                if not gv.is_declaration and gv.linkage == ll.Linkage.common:
                    env = llvmir.GlobalVariable(envs, llvmir.IntType(8).as_pointer(), name=gv.name)
                    env.linkage = "common"  # as numba's declare_env_global
                    env.initializer = llvmir.Constant(env.type.pointee, None)
            env_module = ll.parse_assembly(str(envs))
            # the object cache hook stores this module's object code as the library's (what the
            # kernel cache saves and numba's _unserialize loads)
            env_module._CPUCodeLibrary__library = weakref.proxy(self)
            self._env_module = env_module
            cleanup = self._codegen._add_module(env_module)
            if cleanup:
                weakref.finalize(self, cleanup)
            self._codegen._engine.finalize_object()
            self._finalized = True

    class _LinkOnlyCompiler(compiler.Compiler):
        def compile_extra(self, func):
            if self.state.library is None:
                self.state.library = _LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
                self.state.library.enable_object_caching()
            return super().compile_extra(func)

    return _LinkOnlyCompiler


_HELPER_PIPELINE = _link_only_pipeline()


class _Kernel(CPUDispatcher):
    """numba's dispatcher, except that a call from another kernel compiles one specialisation for
    plain argument types, not one per pattern of constants at the call sites.

    numba types a constant argument of a kernel-to-kernel call as a literal (``Literal[int](0)``,
    ``Literal[bool](False)``) and compiles a separate copy of the callee for every mix of literals
    and variables it is called with: one helper of the weekly plan was compiled ten times, the
    table-adding helper of the bridge model nine.  Likewise an int32 and an int64 index gave two
    copies of each decay helper.  At a kernel-to-kernel call, constants are cast to their plain
    type (what numba does anyway for a call from Python) and signed integers narrower than 64
    bits to int64, so each callee compiles once per plain signature.  Only compile time changes:
    the values computed are the same (numba does integer arithmetic in int64 whatever the
    narrower operands; no fastmath, so LLVM folds constants exactly).  A kernel that cannot be
    typed that way still gets its literal or narrow specialisation.
    """

    def get_call_template(self, args, kws):
        plain = tuple(_plain(a) for a in args)
        plain_kws = {k: _plain(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain, plain_kws)
            except TypingError:
                pass
        return super().get_call_template(args, kws)


class _Helper(_Kernel):
    """A kernel compiled without Python entry wrapper (``kernel(helper=True)``): called from
    Python, it runs its plain-Python function (``py_func``), as under ``NUMBA_DISABLE_JIT``."""

    def __call__(self, *args, **kws):
        return self.py_func(*args, **kws)


def _plain(t):
    """The argument type a kernel is specialised for: no literal, and a signed integer as int64."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def _jit(fn, opts):
    if numba.config.DISABLE_JIT:
        return fn
    opts = dict(opts)
    cache = opts.pop("cache")
    cls = _Helper if opts.get("no_cpython_wrapper") else _Kernel
    # what numba.njit passes its dispatcher, with our dispatcher class
    pipeline = {"pipeline_class": _HELPER_PIPELINE} if cls is _Helper and _HELPER_PIPELINE is not None else {}
    dispatcher = cls(py_func=fn, locals={}, targetoptions={**opts, "nopython": True, "boundscheck": None}, **pipeline)
    if cache:
        dispatcher.enable_caching()
    return dispatcher


def kernel(fn=None, *, refcount: bool = True, helper: bool = False, **extra):
    """Decorate a serial numba kernel with the project's flags (``refcount=False``, ``helper=True``:
    see above)."""
    opts = {**JIT_OPTIONS, "forceinline": False, **extra}
    if not refcount:
        opts["_nrt"] = False
    if helper:
        opts.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    if fn is None:
        return lambda f: _jit(f, opts)
    return _jit(fn, opts)


def helper(fn=None, *, refcount: bool = True, **extra):
    """Decorate a kernel called only from other kernels: ``kernel(helper=True)``; ``forceinline=True``
    to have LLVM inline it at every call site (see above)."""
    return kernel(fn, refcount=refcount, helper=True, **extra)


def parallel_kernel(fn=None, **extra):
    """Decorate a kernel whose outer loop is ``numba.prange``.

    Only loops over independent items (replicates, sessions, scheme variants)
    may be parallel: no cross-thread reductions, so the result never depends
    on the thread count.
    """
    opts = {**JIT_OPTIONS, "forceinline": False, "parallel": True, **extra}
    if fn is None:
        return lambda f: _jit(f, opts)
    return _jit(fn, opts)


prange = numba.prange


class CompileWatch(_event.Listener):
    """Counts numba compilations and the wall time they take.

    numba fires ``numba:compile`` only on a cache miss, so on a warm cache
    this sees nothing.  Compilation runs under numba's global compiler lock
    (one at a time, whatever the thread), so one depth counter finds the
    outermost compile; the functions a kernel calls compile inside it.
    ``waiting()`` marks time spent waiting for kernels compiled elsewhere
    (``engine.warmup``'s child process) as compiling too; the seconds are
    those of the union of both, whatever threads they run in.

    count: functions compiled (callees included).  seconds: wall time in
    outermost compilations.  ``on_change(watch)`` is called when a compile
    starts or ends and, while one runs, about every half second.
    """

    def __init__(self, on_change=None):
        self.on_change = on_change
        self.count = 0
        self.seconds = 0.0
        self.depth = 0
        self._started = 0.0
        self._lock = threading.Lock()

    @property
    def compiling(self) -> bool:
        return self.depth > 0

    def elapsed(self) -> float:
        """Seconds compiled so far, the running compilation included."""
        return self.seconds + (time.perf_counter() - self._started if self.depth else 0.0)

    def _enter(self, counts: bool):
        with self._lock:
            if self.depth == 0:
                self._started = time.perf_counter()
            self.depth += 1
            self.count += counts
            outermost = self.depth == 1
        if self.on_change is not None and outermost:
            self.on_change(self)

    def _exit(self):
        with self._lock:
            self.depth -= 1
            outermost = self.depth == 0
            if outermost:
                self.seconds += time.perf_counter() - self._started
        if self.on_change is not None and outermost:
            self.on_change(self)

    def on_start(self, event):
        self._enter(True)

    def on_end(self, event):
        self._exit()

    @contextmanager
    def waiting(self):
        """Within the block, count the time as compiling (no function is counted)."""
        self._enter(False)
        try:
            yield
        finally:
            self._exit()


@contextmanager
def watch_compiles(on_change=None, tick: float = 0.5):
    """Within the block, count numba compilations (``CompileWatch``); yields the watch."""
    watch = CompileWatch(on_change)
    stop = threading.Event()
    ticker = None
    if on_change is not None:
        def tick_loop():
            while not stop.wait(tick):
                if watch.compiling:
                    on_change(watch)
        ticker = threading.Thread(target=tick_loop, name="simcore-compile-ticker", daemon=True)
        ticker.start()
    with _event.install_listener("numba:compile", watch):
        try:
            yield watch
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
