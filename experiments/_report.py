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

    def finish(self, headline: dict) -> dict:
        wall = time.perf_counter() - self.started
        size = "quick" if self.quick else "full"
        head = (f"# {self.title}\n\nsimcore experiment, {size} size, seed {self.seed}; "
                f"{wall:.0f} s on this machine.\n")
        (self.out / "report.md").write_text(head + "\n" + "\n".join(self.parts))
        headline = {"wall_seconds": round(wall, 1), "quick": self.quick, "seed": self.seed, **headline}
        (self.out / "headline.json").write_text(json.dumps(headline, indent=2, default=float))
        return headline
