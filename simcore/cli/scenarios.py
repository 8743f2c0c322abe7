"""``simcore scenarios [NAME] [--all]``: list the built-in scenarios, or print one as TOML.

``simcore scenarios NAME`` prints the built-in's file as written (only the
keys that differ from the defaults); ``--all`` prints every key with its
value and a one-line comment (meaning, allowed values, default): a complete
template for a scenario of your own, which loads back unchanged.
"""

from __future__ import annotations

from simcore.scenario import list_scenarios, load_scenario, scenario_text, scenario_to_toml


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", help="print this built-in scenario (or scenario file) as TOML")
    parser.add_argument("--all", action="store_true",
                        help="print every key with its value, default and a one-line comment")


def main(args) -> int:
    if args.name:
        print(scenario_to_toml(load_scenario(args.name)) if args.all else scenario_text(args.name), end="")
        return 0
    if args.all:
        from simcore.errors import UsageError
        raise UsageError("--all: name a scenario, e.g. 'simcore scenarios default --all'")
    rows = list_scenarios()
    width = max(map(len, rows))
    for name, text in rows.items():
        print(f"{name:<{width}}  {text}")
    return 0
