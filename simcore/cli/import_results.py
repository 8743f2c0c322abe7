"""Import real club results (USEBIO XML, PBN, BridgeWebs CSV) into a results bundle.

  simcore import PATH... --out DIR [--artificial ebu|flat] [--card-play] [--overwrite]

PATH: files or folders (walked recursively); each file's format is told from
its content, not its extension; files in folders that are no results file
are skipped with a note.  DIR gets sessions.csv, travellers.csv, teams.csv
(team events), players.csv, artificial.csv and session_scores.csv — whose
``percentage`` is simcore's own scoring of the travellers (Neuberg for boards
played fewer times, artificial scores by the --artificial rule) beside the
file's ``published_percentage``.  ``simcore grade DIR`` then grades it.

One line is printed: sessions, travellers, pairs, and the worst
|percentage - published| with the session it is in.  The same session
exported twice (same event, club, date and section) is read once: the file
modified last replaces the earlier one, with a note.  Nothing is written to
DIR unless the whole import succeeds.
"""

from __future__ import annotations

import argparse
import sys

from simcore.scoring.adjusted import ARTIFICIAL_RULES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="results files or folders")
    parser.add_argument("--out", required=True, metavar="DIR", help="bundle folder to write (must not exist, "
                        "or be empty, unless --overwrite)")
    parser.add_argument("--artificial", default="ebu", choices=ARTIFICIAL_RULES,
                        help="artificial-score rule: ebu (average-plus 60%% or the pair's session %% if higher, "
                             "average-minus 40%% or lower; default) or flat (the figures as written)")
    parser.add_argument("--card-play", action="store_true",
                        help="solve PBN deals double-dummy (needs endplay) and write card_play.csv")
    parser.add_argument("--overwrite", action="store_true", dest="force",
                        help="replace DIR if it exists (only once the new bundle is complete)")


def main(args) -> int:
    from simcore.cli.paths import Outputs
    from simcore.io.importer import import_paths
    with Outputs() as outputs:  # --out checked before any file is read
        outputs.place(args.out, "--out")
        summary, _, _ = import_paths(args.paths, args.out, rule=args.artificial, card_play=args.card_play,
                                     force=args.force)
    for note in summary.notes:
        print(f"note: {note}", file=sys.stderr)
    print(summary.line())
    return 0
