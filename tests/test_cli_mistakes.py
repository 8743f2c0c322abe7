"""Everyday mistakes at the command line (issue 16).

Each mistake must end with a non-zero exit, no traceback, and a message
naming the option, key, file or value that is wrong — before any work
starts.  "Before any work" is enforced, not assumed: the ``no_work``
fixture makes the engine, every scheme's ``apply``, bundle scoring, the
dask cluster and the studies raise if they are reached.  Commands run
in-process through ``simcore.cli.main`` (a subprocess costs 1–2 s of
imports each); the interrupt cases raise KeyboardInterrupt where Ctrl-C
would land.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from simcore.cli import main

HERE = Path(__file__).parent
BUNDLE = HERE / "data" / "bundle_small"


class WorkStarted(AssertionError):
    pass


def _boom(*args, **kwargs):
    raise WorkStarted("work started before the mistake was reported")


@pytest.fixture
def no_work(monkeypatch, tmp_path):
    """Any simulation, grading, scoring, cluster or study raises; the test runs in an empty folder."""
    import importlib

    from simcore.cli import SUBCOMMANDS
    from simcore.engine import Engine
    from simcore.engine import sweep as sw
    from simcore.schemes import make_scheme, scheme_names
    from simcore.scoring import score_results
    # every module that binds score_results at import is imported now, before the patch: one first
    # imported while it is patched would keep the patched function after the test
    for modname in [m for m, _ in SUBCOMMANDS.values()] + ["simcore.engine.replay", "simcore.io.importer",
                                                          "simcore.metrics.describe"]:
        importlib.import_module(modname)
    monkeypatch.setattr(Engine, "run", _boom)
    for module in list(sys.modules.values()):  # wherever score_results is bound (engine, replay, ...)
        if getattr(module, "__name__", "").startswith("simcore") and \
                getattr(module, "score_results", None) is score_results:
            monkeypatch.setattr(module, "score_results", _boom)
    for name in scheme_names():
        try:
            scheme = make_scheme(name, {})
        except ImportError:  # an optional peer scheme not installed here: it cannot start either
            continue
        monkeypatch.setattr(type(scheme), "apply", _boom)
    monkeypatch.setattr(sw, "_make_client", _boom)
    monkeypatch.setattr(sw, "run_point", _boom)
    from experiments import STUDIES
    for modname in STUDIES.values():
        monkeypatch.setattr(importlib.import_module(modname), "run", _boom)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def fails(capsys, argv, *needles, code=None):
    """Run ``simcore ARGV``; assert a non-zero exit, no traceback and every needle in the message."""
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    out, err = capsys.readouterr()
    assert rc != 0 and (code is None or rc == code), (argv, rc, err)
    assert "Traceback" not in out + err, err
    message = err.strip().splitlines()[-1]
    for needle in needles:
        assert str(needle) in message, (argv, needle, message)
    return message


def toml(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- simcore run: scenario, options, schemes ------------------------------------------

SCENARIO_MISTAKES = [
    ("unknown scenario", None, ["nosuch"]),
    ("misspelt key", "[players]\nactivty_mean = 1.0\n", ["activty_mean", "unknown key"]),
    ("misspelt table", "[player]\nactivity_mean = 1.0\n", ["player", "unknown key"]),
    ("wrong type", '[mixing]\ntravel_rate = "lots"\n', ["mixing.travel_rate", "'lots'"]),
    ("bad range", "[players]\nleave_rate = 2\n", ["players.leave_rate", "2"]),
    ("bad choice", '[calendar]\nsnapshot = "daily"\n', ["calendar.snapshot", "'daily'"]),
    ("bad date", '[calendar]\nstart = "6/1/2020"\n', ["calendar.start", "6/1/2020"]),
    ("not TOML", "[players\nactivity_mean = 1.0\n", ["not valid TOML"]),
]


@pytest.mark.parametrize("what,text,needles", SCENARIO_MISTAKES, ids=[m[0] for m in SCENARIO_MISTAKES])
def test_run_scenario_mistakes(no_work, tmp_path, capsys, what, text, needles):
    if text is None:
        fails(capsys, ["run", "nosuch"], *needles)
        return
    text = 'name = "mine"\n[[clubs]]\nname = "A"\n[[clubs.sessions]]\nweekday = "mon"\n' + text \
        if not text.startswith("[players\n") else text
    path = toml(tmp_path, "mine.toml", text)
    fails(capsys, ["run", path], str(path), *needles)


OPTION_MISTAKES = [
    (["--replicates", "0"], ["--replicates", "0"]),
    (["--seed", "-1"], ["--seed", "-1"]),
    (["--years", "0"], ["--years", "0"]),
    (["--years", "500"], ["--years", "500"]),
    (["--years", "five"], ["--years", "five"]),
    (["--threads", "0"], ["--threads", "0"]),
    (["--snapshot", "daily"], ["--snapshot", "daily"]),
    (["--schemes", "nope"], ["--schemes", "nope"]),
    (["--schemes", "ngs(gain=x)"], ["gain", "'x'"]),
    (["--schemes", "ngs(bogus=1)"], ["bogus"]),
    (["--schemes", "ngs(gain=2"], ["ngs(gain=2"]),
    (["--schemes", "ngs,ngs"], ["'ngs'", "twice"]),
    (["--schemes", "ppi(m_frequent=-5)"], ["m_frequent", "-5"]),
]


@pytest.mark.parametrize("argv,needles", OPTION_MISTAKES, ids=[" ".join(m[0]) for m in OPTION_MISTAKES])
def test_run_option_mistakes(no_work, capsys, argv, needles):
    fails(capsys, ["run", *argv], *needles)
    assert not any(no_work.iterdir()), "an output folder was left behind"


# --- simcore run: output paths -----------------------------------------------------------

def test_run_output_path_mistakes(no_work, tmp_path, capsys):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    fails(capsys, ["run", "--out", "/dev/null/x.nc"], "--out", "/dev/null")
    fails(capsys, ["run", "--outdir", a_file], "--outdir", str(a_file), "not a folder")
    fails(capsys, ["run", "--outdir", a_file / "sub"], "--outdir", str(a_file))
    fails(capsys, ["run", "--outdir", "/proc/simcore-nowhere/out"], "--outdir", "/proc/simcore-nowhere")
    fails(capsys, ["run", "--out", "/sys/simcore-test.nc"], "--out", "/sys")  # read-only even for root
    fails(capsys, ["run", "--out", tmp_path], "--out", str(tmp_path), "folder")
    fails(capsys, ["run", "--bundle", a_file], "--bundle", str(a_file))
    # nothing was created by the checks that passed before a later one failed
    assert not any(no_work.iterdir()), list(no_work.iterdir())


def test_run_refuses_a_folder_holding_another_run(no_work, tmp_path, capsys):
    out = tmp_path / "earlier"
    out.mkdir()
    (out / "results.nc").write_text("from another run")
    (out / "summary.json").write_text(json.dumps({"run": {"identity": {"scenario": "default", "years": 2}}}))
    fails(capsys, ["run", "--outdir", out, "--years", "1"], "--outdir", str(out), "--overwrite", "years 2")
    (out / "summary.json").unlink()  # files of an unknown run: refused too
    fails(capsys, ["run", "--outdir", out], "--outdir", "results.nc", "--overwrite")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "sessions.csv").write_text("session\n")
    fails(capsys, ["run", "--outdir", tmp_path / "new", "--bundle", bundle], "--bundle", "sessions.csv",
          "--overwrite")
    assert not (tmp_path / "new").exists()  # created by the check, removed again when the next one failed


def test_default_folder_differs_between_runs_that_differ():
    from simcore.cli.run import default_outdir
    base = {"scenario": "default", "years": 5.0, "replicates": 1, "seed": 0,
            "schemes": ["ngs", "ppi", "elo-pairs", "imps-lost"], "snapshot": "monthly"}
    names = {default_outdir(base, "monthly"), default_outdir({**base, "years": 2.0}, "monthly"),
             default_outdir({**base, "replicates": 3}, "monthly"), default_outdir({**base, "seed": 1}, "monthly"),
             default_outdir({**base, "schemes": ["ngs"]}, "monthly"),
             default_outdir({**base, "snapshot": "weekly"}, "monthly")}
    assert len(names) == 6
    assert default_outdir(base, "monthly") == Path("simcore-out/default-5y-1r-seed0")


# --- simcore grade ----------------------------------------------------------------------

def _bundle_copy(tmp_path, **replace):
    folder = tmp_path / "bundle"
    folder.mkdir()
    for f in BUNDLE.iterdir():
        (folder / f.name).write_text(replace.get(f.name, f.read_text()))
    return folder


def test_grade_mistakes(no_work, tmp_path, capsys):
    out = tmp_path / "g.csv"
    fails(capsys, ["grade", tmp_path / "missing", "--scheme", "ngs", "--out", out], str(tmp_path / "missing"))
    no_trav = _bundle_copy(tmp_path)
    (no_trav / "travellers.csv").unlink()
    fails(capsys, ["grade", no_trav, "--scheme", "ngs", "--out", out], "travellers.csv")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "sessions.csv").write_text((BUNDLE / "sessions.csv").read_text())
    trav = (BUNDLE / "travellers.csv").read_text().splitlines()
    trav[3] = trav[3].rsplit(",", 1)[0] + ",lots"
    (bad / "travellers.csv").write_text("\n".join(trav) + "\n")
    fails(capsys, ["grade", bad, "--scheme", "ngs", "--out", out], "travellers.csv", "ns_score", "lots")
    no_card = tmp_path / "no-card"
    no_card.mkdir()
    (no_card / "sessions.csv").write_text((BUNDLE / "sessions.csv").read_text())
    fails(capsys, ["grade", no_card, "--scheme", "imps-lost", "--out", out], "card_play.csv")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ngs", "--set", "gain=x", "--out", out], "gain", "'x'")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ngs", "--set", "bogus=1", "--out", out], "bogus")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ngs", "--set", "gain", "--out", out], "--set", "gain")
    fails(capsys, ["grade", BUNDLE, "--scheme", "nope", "--out", out], "--scheme", "nope")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ngs", "--out", "/dev/null/g.csv"], "--out", "/dev/null")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ngs", "--out", tmp_path], "--out", "folder")
    fails(capsys, ["grade", BUNDLE, "--scheme", "ppi", "--out", out, "--partnerships", tmp_path / "p.csv"],
          "--partnerships")
    fails(capsys, ["grade", BUNDLE, "--scheme", "elo-pairs", "--out", out, "--partnerships", "/dev/null/p.csv"],
          "--partnerships", "/dev/null")
    assert not out.exists()


# --- simcore sweep ----------------------------------------------------------------------

SWEEP_HEAD = 'name = "s"\nscenario = "default"\nschemes = ["ngs"]\nyears = 0.5\n'
SWEEP_MISTAKES = [
    ("wrong-type grid value", SWEEP_HEAD + '[grid]\n"mixing.travel_rate" = [0.0, "lots"]\n',
     ["[grid]", "mixing.travel_rate", "'lots'"]),
    ("bad grid key", SWEEP_HEAD + '[grid]\n"mixing.travl_rate" = [0.0, 0.1]\n', ["[grid]", "mixing.travl_rate"]),
    ("grid value out of range", SWEEP_HEAD + '[grid]\n"players.leave_rate" = [0.1, 3]\n',
     ["players.leave_rate", "3"]),
    ("grid point breaking a joint rule", SWEEP_HEAD +
     '[grid]\n"partnerships.regular_share" = [0.5, 0.8]\n"partnerships.near_exclusive_share" = [0.1, 0.3]\n',
     ["regular_share = 0.8", "near_exclusive_share = 0.3"]),
    ("unknown top-level key", SWEEP_HEAD + "replicate = 2\n", ["replicate"]),
    ("bad scheme string", 'name = "s"\nscenario = "default"\nschemes = ["ngs(gain=lots)"]\n', ["gain", "lots"]),
    ("unknown scenario", 'name = "s"\nscenario = "nosuch"\nschemes = ["ngs"]\n', ["scenario", "nosuch"]),
    ("not TOML", 'name = "s" scenario\n', ["not valid TOML"]),
]


@pytest.mark.parametrize("what,text,needles", SWEEP_MISTAKES, ids=[m[0] for m in SWEEP_MISTAKES])
def test_sweep_file_mistakes(no_work, tmp_path, capsys, what, text, needles):
    path = toml(tmp_path, "sweep.toml", text)
    fails(capsys, ["sweep", path, "--out", tmp_path / "o"], str(path), *needles)
    assert not (tmp_path / "o").exists()


def test_sweep_option_mistakes(no_work, tmp_path, capsys):
    path = toml(tmp_path, "sweep.toml", SWEEP_HEAD)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    fails(capsys, ["sweep", tmp_path / "missing.toml"], "missing.toml")
    fails(capsys, ["sweep", path, "--out", a_file], "--out", str(a_file))
    fails(capsys, ["sweep", path, "--out", "/dev/null/o"], "--out", "/dev/null")
    fails(capsys, ["sweep", path, "--workers", "0"], "--workers", "0")
    fails(capsys, ["sweep", path, "--retries", "-1"], "--retries", "-1")


# --- scenarios, experiment ------------------------------------------------------------------

def test_scenarios_and_experiment_mistakes(no_work, capsys):
    fails(capsys, ["scenarios", "nosuch"], "nosuch")
    fails(capsys, ["scenarios", "--all"], "--all")
    fails(capsys, ["experiment", "nosuch"], "nosuch")
    fails(capsys, ["experiment", "diffusion", "--seed", "-1"], "--seed", "-1")
    fails(capsys, ["experiment", "diffusion", "--out", "/dev/null/e"], "--out", "/dev/null")
    fails(capsys, ["nosuchcommand"], "nosuchcommand")


# --- interrupts ---------------------------------------------------------------------------------

def test_interrupted_run_says_one_line_and_leaves_no_folder(tmp_path, capsys, monkeypatch):
    from simcore.engine import Engine

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(Engine, "run", interrupted)
    out = tmp_path / "o"
    rc = main(["run", "--outdir", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 130 and "Traceback" not in err
    assert err.strip() == "simcore run: interrupted"
    assert not out.exists()


class _Future:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def result(self):
        return self.fn(*self.args)


class _Client:
    def submit(self, fn, *args, **kwargs):
        return _Future(fn, args)

    def run(self, fn):
        fn()

    def close(self):
        pass


def test_interrupted_sweep_says_how_many_points_are_kept(tmp_path, capsys, monkeypatch):
    """Ctrl-C after the first point arrived: one line, the point kept, exit 130."""
    import dask.distributed

    from simcore.engine import sweep as sw
    path = toml(tmp_path, "sweep.toml", 'name = "s"\nscenario = "default"\nschemes = ["ngs"]\n'
                'runner = "sweep_runner:run"\n[grid]\nscale = [1, 2, 3]\n')

    def one_then_ctrl_c(futures):
        yield next(iter(futures))
        raise KeyboardInterrupt

    monkeypatch.setattr(sw, "_make_client", lambda scheduler, workers: (_Client(), None))
    monkeypatch.setattr(dask.distributed, "as_completed", one_then_ctrl_c)
    rc = main(["sweep", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 130 and "Traceback" not in err
    assert err.strip() == "simcore sweep: interrupted: 1 of 3 points kept; rerun the same command to resume"
    assert len(list((tmp_path / "o" / "points").glob("*.nc"))) == 1


def test_import_and_describe_check_out_first(no_work, tmp_path, capsys):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    fails(capsys, ["import", BUNDLE, "--out", "/dev/null/x"], "--out", "/dev/null")
    fails(capsys, ["import", BUNDLE, "--out", a_file], "--out", str(a_file))
    fails(capsys, ["describe", BUNDLE, "--out", "/dev/null/x"], "--out", "/dev/null")
    fails(capsys, ["describe", BUNDLE, "--out", a_file], "--out", str(a_file))
