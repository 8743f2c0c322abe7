"""The data flows one way: a stage imports only earlier stages (and the shared base modules).

scenario → world → movements → bridge → scoring → schemes → metrics → engine, with
``simulate`` (pass A: plans, seats, plays and scores a chunk, so it uses the stages before
it up to scoring) after scoring, ``io`` (results files in and out) beside scoring, and the
entry points (``cli``,
``bench``, ``probes``) after everything.  No stage imports an entry point.  The few
imports that run against the flow are listed in ``AGAINST_THE_FLOW`` with the reason;
a new one fails here until it is moved or argued for.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "simcore"
BASE = {"results", "rng", "_jit", "_xarray", "errors"}
RANK = {"scenario": 1, "world": 2, "movements": 3, "bridge": 4, "scoring": 5, "io": 5, "simulate": 6,
        "schemes": 7, "metrics": 8, "engine": 9, "probes": 10, "bench": 10, "cli": 10}
ENTRY = {"probes", "bench", "cli"}
AGAINST_THE_FLOW = {
    ("scenario/__init__.py", "movements"): "a scenario's movement names are checked against the registry",
    ("movements/swiss.py", "scoring"): "Swiss pairing ranks by standings in victory points",
    ("bridge/calibration.py", "scoring"): "FR18 calibration match-points the model's own boards",
    ("bridge/mitchell.py", "scoring"): "the internal full Mitchell is match-pointed for the calibration",
    ("schemes/peers.py", "metrics"): "the peers' linear map is fitted on graded players (metrics.graded_mask)",
}


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "simcore":
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names] if node.module == "simcore" \
                else [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] == "simcore"]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if len(parts) > 1:
                yield parts[1]


def _stage(rel: Path) -> str:
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def backward_imports(root: Path = ROOT) -> list[tuple[str, str]]:
    """(file, imported stage) for every import of a later stage or an entry point, allowed or not."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        src = _stage(rel)
        if src not in RANK:
            continue  # the base modules (results.py takes its kind codes from the movement
            # registry), simcore/__init__ (the public API) and __main__
        for dst in set(_imports(path)):
            if dst in BASE or dst == src or dst not in RANK:
                continue
            if (dst in ENTRY and src not in ENTRY) or RANK[dst] > RANK[src]:
                found.append((rel.as_posix(), dst))
    return found


def test_no_stage_imports_a_later_stage_or_an_entry_point():
    unexpected = [edge for edge in backward_imports() if edge not in AGAINST_THE_FLOW]
    assert not unexpected, f"imports against the data flow: {unexpected}"


def test_every_listed_exception_still_exists():
    stale = set(AGAINST_THE_FLOW) - set(backward_imports())
    assert not stale, f"no longer imported, remove from AGAINST_THE_FLOW: {sorted(stale)}"


def test_the_scan_finds_a_backward_import(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text("from simcore.bench.synthetic import synthetic_pairs\n")
    (tmp_path / "world").mkdir()
    (tmp_path / "world" / "y.py").write_text("def f():\n    from simcore import schemes\n")
    assert sorted(backward_imports(tmp_path)) == [("engine/x.py", "bench"), ("world/y.py", "schemes")]
