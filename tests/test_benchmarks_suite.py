"""The asv suite loads: asv imports every module of ``benchmarks/`` as ``benchmarks.<name>`` to find its
benchmarks (any function or method named ``time_``, ``timeraw_``, ``mem_``, ``peakmem_``, ``track_``), so
one module that fails to import, or a helper script with such a name, fails ``asv check`` and every run."""
import importlib
import inspect
import pkgutil

import benchmarks

ASV_PREFIXES = ("time_", "timeraw_", "mem_", "peakmem_", "track_")


def _modules():
    return [m.name for m in pkgutil.iter_modules(benchmarks.__path__)]


def test_every_benchmarks_module_imports_as_asv_imports_it():
    names = _modules()
    assert "bench_pipeline" in names and "_ab" in names
    for name in names:
        importlib.import_module(f"benchmarks.{name}")


def test_helper_scripts_define_nothing_asv_would_time():
    """The ``_*.py`` tools (A/B scripts, shared helpers) are run by hand: nothing in them is a benchmark."""
    for name in _modules():
        if not name.startswith("_"):
            continue
        mod = importlib.import_module(f"benchmarks.{name}")
        found = [attr for attr, value in vars(mod).items()
                 if attr.startswith(ASV_PREFIXES) and (inspect.isfunction(value) or inspect.isclass(value))
                 and getattr(value, "__module__", None) == mod.__name__]
        for cls in (v for v in vars(mod).values() if inspect.isclass(v) and v.__module__ == mod.__name__):
            found += [f"{cls.__name__}.{a}" for a in vars(cls) if a.startswith(ASV_PREFIXES)]
        assert not found, f"benchmarks/{name}.py: {found} would be collected by asv"
