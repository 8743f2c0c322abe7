"""Issue 18's targets, before and after: an older revision against the working tree, interleaved.

    python3 benchmarks/_targets.py REV [--rounds N] [--only bench,national,acbl,peers,warm,cold]

Extracts REV's tree (``git worktree``) beside the working tree and runs each
target's command in fresh processes, alternating old and new round by round
(this VM's speed drifts by tens of percent over minutes, so only what ran
side by side is compared), and prints each figure's values, medians and the
per-round new/old ratios:

* ``bench``: ``simcore bench --json --scaling --no-python`` (one thread, two
  cores, the fused floor and the ratio to it);
* ``national``: ``/usr/bin/time -v simcore run national --years 10 --no-figures``
  (wall, user and system CPU, peak memory);
* ``acbl``: the same for ``acbl --years 1``;
* ``peers``: ``simcore bench --peers --json`` (ns per player-session);
* ``warm``: ``simcore run --years 0.1 --no-figures`` with the kernels cached
  (wall, and its overhead: wall minus the engine seconds the run reports);
* ``cold``: a fresh clone of each tree, a fresh venv, ``pip install .``, then
  ``simcore run --years 0.1 --no-figures`` in the clone with an empty kernel
  cache (the install is not timed).

Each side runs with ``PYTHONPATH`` set to its tree (``cold`` in its own venv);
each tree's kernel cache is warmed first.  Nothing here changes a result.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ("bench", "national", "acbl", "peers", "warm", "cold")


def _run(tree: str, args: list[str], env: dict | None = None, timed: bool = False) -> tuple[str, str, float]:
    """``python3 -m simcore ARGS`` on ``tree`` (with /usr/bin/time -v when ``timed``): (stdout, stderr, wall)."""
    cmd = [sys.executable, "-m", "simcore", *args]
    if timed:
        cmd = ["/usr/bin/time", "-v", *cmd]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=tree, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=tree, **(env or {})))
    wall = time.perf_counter() - t0
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)} in {tree} failed:\n{p.stderr[-3000:]}")
    return p.stdout, p.stderr, wall


def _time_v(stderr: str) -> dict:
    """Wall, user, system seconds and peak GB from ``/usr/bin/time -v``."""
    def field(name):
        return re.search(rf"{name}: (.*)", stderr).group(1).strip()
    h, m, s = (["0"] + field(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)").split(":"))[-3:]
    return {"wall_s": 3600 * float(h) + 60 * float(m) + float(s), "user_s": float(field("User time \\(seconds\\)")),
            "sys_s": float(field("System time \\(seconds\\)")),
            "peak_gb": float(field("Maximum resident set size \\(kbytes\\)")) / 1e6}


def measure(target: str, tree: str, tmp: str) -> dict:
    out = os.path.join(tmp, "out")
    if target == "bench":
        stdout, _, _ = _run(tree, ["bench", "--json", "--scaling", "--no-python"])
        d = json.loads(stdout)
        return {k: d[k] for k in ("ns_per_player_board_1_thread", "ns_per_player_board", "speedup",
                                  "floor_ns_per_player_board", "ratio_to_floor")}
    if target in ("national", "acbl"):
        years = "10" if target == "national" else "1"
        _, err, _ = _run(tree, ["run", target, "--years", years, "--no-figures", "--no-progress", "--overwrite",
                                "--outdir", out], timed=True)
        return _time_v(err)
    if target == "peers":
        stdout, _, _ = _run(tree, ["bench", "--peers", "--json"])
        return dict(json.loads(stdout)["ns_per_player_session"])
    if target == "warm":
        stdout, _, wall = _run(tree, ["run", "--years", "0.1", "--no-figures", "--json", "--overwrite",
                                      "--outdir", out])
        engine = json.loads(stdout)["run"]["wall_seconds"]
        return {"wall_s": wall, "overhead_s": wall - engine}
    if target == "cold":
        return _cold(tree, tmp)
    raise ValueError(target)


def _cold(tree: str, tmp: str) -> dict:
    """A fresh clone of ``tree``'s commit and working changes, a fresh venv and ``pip install .`` (not timed),
    then the first run with an empty kernel cache (timed), in the clone, where a new user runs it (there the
    installed command's warm-up child imported the clone's copy before f11c8f0)."""
    clone = os.path.join(tmp, "clone")
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", tree, clone], check=True)
    diff = subprocess.run(["git", "-C", tree, "diff", "HEAD"], capture_output=True, check=True).stdout
    if diff:  # the working tree's uncommitted changes too
        subprocess.run(["git", "-C", clone, "apply", "-"], input=diff, check=True)
    venv = os.path.join(tmp, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "."], cwd=clone, check=True,
                   capture_output=True)
    cache = tempfile.mkdtemp(dir=tmp)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    t0 = time.perf_counter()
    p = subprocess.run([os.path.join(venv, "bin", "simcore"), "run", "--years", "0.1", "--no-figures",
                        "--no-progress", "--overwrite", "--outdir", os.path.join(tmp, "cold-out")], cwd=clone,
                       capture_output=True, text=True, env=dict(env, SIMCORE_CACHE_DIR=cache))
    wall = time.perf_counter() - t0
    if p.returncode:
        raise RuntimeError(p.stderr[-3000:])
    compiling = re.search(r"plus ([0-9.]+) s compiling", p.stdout)
    return {"wall_s": wall, "compile_s": float(compiling.group(1)) if compiling else float("nan")}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the older revision (before)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=",".join(TARGETS), help="comma-separated targets (default: all)")
    a = ap.parse_args(argv)
    targets = [t for t in a.only.split(",") if t]
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        ap.error(f"--only: unknown target(s) {', '.join(bad)}; choose from {', '.join(TARGETS)}")
    tmp = tempfile.mkdtemp(prefix="simcore-targets-")
    old = os.path.join(tmp, "old")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "-f", "--detach", old, a.rev], check=True,
                   capture_output=True)
    trees = {"old": old, "new": ROOT}
    try:
        for tree in trees.values():  # kernels compiled (or loaded) and cached before anything is timed
            _run(tree, ["run", "--years", "0.05", "--no-figures", "--no-progress", "--overwrite", "--outdir",
                        os.path.join(tmp, "warmup")])
        for target in targets:
            rows = {"old": [], "new": []}
            for r in range(a.rounds):
                for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    rows[side].append(measure(target, trees[side], tmp))
                    print(f"{target} round {r} {side}: {json.dumps(rows[side][-1])}", flush=True)
            for key in rows["old"][0]:
                o = [x[key] for x in rows["old"]]
                n = [x[key] for x in rows["new"]]
                ratios = [b / a for a, b in zip(o, n) if a]
                print(f"{target:9s} {key:30s} old {_fmt(o)}  new {_fmt(n)}  new/old per round "
                      f"{', '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f})",
                      flush=True)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", old], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _fmt(values) -> str:
    return f"{', '.join(f'{v:.4g}' for v in values)} (median {statistics.median(values):.4g})"


if __name__ == "__main__":
    main()
