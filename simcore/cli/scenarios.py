"""``simcore scenarios [NAME]``: list the built-in scenarios, or print one's TOML."""

from __future__ import annotations

from simcore.scenario import list_scenarios, scenario_text

def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", help="print this built-in scenario's TOML")


def main(args) -> int:
    if args.name:
        print(scenario_text(args.name), end="")
        return 0
    rows = list_scenarios()
    width = max(map(len, rows))
    for name, text in rows.items():
        print(f"{name:<{width}}  {text}")
    return 0
