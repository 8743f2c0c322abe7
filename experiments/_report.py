"""What every study shares: a markdown report, figures and data files in one folder."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np


def plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    return pyplot


def fmt(v, spec: str = ".2f") -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "n/a"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return format(float(v), spec)
    return str(v)


def ci(values, name: str = "figure") -> dict:
    """{"mean", "ci": [lo, hi], "n"}: a figure over replicates with its 95 % Student-t interval."""
    from simcore.metrics import intervals
    m, lo, hi = intervals.mean_ci(np.asarray(values, float), name=name)
    return {"mean": m, "ci": [lo, hi], "n": int(len(values))}


def paired(values, baseline, name: str = "difference", lower_is_better: bool | None = None) -> dict:
    """{"diff", "ci", "verdict"}: values − baseline paired replicate by replicate, with its interval."""
    from simcore.metrics import intervals
    d, lo, hi = intervals.paired_ci(np.asarray(values, float), np.asarray(baseline, float), name=name)
    if lower_is_better is None:
        verdict = "higher" if lo > 0 else "lower" if hi < 0 else "no detectable difference"
    else:
        verdict = intervals.verdict(lo, hi, lower_is_better)
    return {"diff": d, "ci": [lo, hi], "verdict": verdict}


def show(fig: dict, digits: int = 2, pct: bool = False) -> str:
    """``2.37 [2.31, 2.43]`` from a ``ci`` or ``paired`` dict (percent with pct)."""
    m = fig["mean"] if "mean" in fig else fig["diff"]
    lo, hi = fig["ci"]
    if pct:
        return f"{100 * m:.{max(digits - 1, 0)}f} % [{100 * lo:.{max(digits - 1, 0)}f}, {100 * hi:.{max(digits - 1, 0)}f}]"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def world_note(scenario) -> str:
    """The world assumptions a study ran with, as a markdown section (every world key of the scenario)."""
    import json as _json
    from simcore.scenario import load_scenario, scenario_to_json
    sc = load_scenario(scenario) if isinstance(scenario, str) else scenario
    d = _json.loads(scenario_to_json(sc))
    lines = [f"## World assumptions\n\nScenario `{sc.name}` as run; the conclusions above depend on these "
             "world keys (the `sensitivity` study varies them):\n"]
    for section, values in d.items():
        if isinstance(values, dict) and section not in ("calendar",):
            lines.append(f"* `{section}`: " + ", ".join(f"{k} = {v}" for k, v in values.items()
                                                           if not isinstance(v, (list, dict))))
    clubs = d.get("clubs", [])
    if clubs:
        shape = [k for k in clubs[0] if k.startswith("strength")]
        lines.append("* clubs (true strength): " + "; ".join(
            f"{c.get('name')} " + ", ".join(f"{k} {c[k]}" for k in shape) for c in clubs[:12])
                     + (f"; ... ({len(clubs)} clubs)" if len(clubs) > 12 else ""))
    return "\n".join(lines)


class Report:
    """A study's output folder: ``report.md``, figures, data and ``headline.json``."""

    def __init__(self, out: Path, title: str, quick: bool, seed: int):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.title, self.quick, self.seed = title, quick, seed
        self.parts: list[str] = []
        self.started = time.perf_counter()

    def text(self, md: str) -> None:
        self.parts.append(md.strip() + "\n")

    def table(self, headers: list[str], rows: list[list], spec: str = ".2f") -> None:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(fmt(c, spec) for c in row) + " |" for row in rows]
        self.parts.append("\n".join(lines) + "\n")

    def figure(self, fig, name: str, caption: str) -> None:
        fig.tight_layout()
        fig.savefig(self.out / name, dpi=110)
        plt().close(fig)
        self.parts.append(f"![{caption}]({name})\n\n*{caption}*\n")

    def dataset(self, ds, name: str) -> Path:
        from simcore.cli.run import write_dataset
        path = self.out / name
        write_dataset(ds, path)
        return path

    def world(self, scenario) -> None:
        self.parts.append(world_note(scenario) + "\n")

    def finish(self, headline: dict) -> dict:
        wall = time.perf_counter() - self.started
        size = "quick" if self.quick else "full"
        head = (f"# {self.title}\n\nsimcore experiment, {size} size, seed {self.seed}; "
                f"{wall:.0f} s on this (shared, loaded) machine.  Every figure is a mean over replicates "
                "with its 95 % Student-t interval in brackets; differences between schemes are paired on "
                "common random numbers.\n")
        (self.out / "report.md").write_text(head + "\n" + "\n".join(self.parts))
        headline = {"wall_seconds": round(wall, 1), "quick": self.quick, "seed": self.seed, **headline}
        (self.out / "headline.json").write_text(json.dumps(headline, indent=2, default=float))
        return headline
