"""``simcore calibrate``: the bridge model against the EBU variability study (FR18).

What each figure is and how it is measured: ``simcore.bridge.calibration``.
"""

from __future__ import annotations

import json
import time

from simcore.bridge import model as bm
from simcore.bridge.calibration import FR18_HISTOGRAM, measure, verdicts

def add_arguments(parser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    parser.add_argument("--boards", type=int, default=40000,
                        help="boards per measurement (default 40000; the standard errors shrink as 1/sqrt)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")


def main(args) -> int:
    params = bm.BridgeModelParams()
    t0 = time.perf_counter()
    res = measure(params, seed=args.seed, boards=args.boards)
    res["seconds"] = time.perf_counter() - t0
    checks = verdicts(res)
    res["all_pass"] = all(ok for *_, ok in checks)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"simcore calibrate: seed {args.seed}, {args.boards} boards per measurement, "
          f"{res['seconds']:.1f} s")
    print(f"{'figure':<52} {'target':>14} {'simulated':>18}  verdict")
    for t, value, se, ok in checks:
        band = f"{t.target:g} [{t.lo:g}, {t.hi:g}]"
        print(f"{t.label:<52} {band:>14} {value:>10.3f} ± {se:<6.3f}  {'PASS' if ok else 'FAIL'}")
    print()
    print("flatness histogram (% of boards), club fields vs FR18:")
    labels = [f"{1 - (k + 1) / 10:.1f}-{1 - k / 10:.1f}" for k in range(10)]
    print("  F      " + " ".join(f"{x:>7}" for x in labels))
    print("  sim    " + " ".join(f"{x:7.1f}" for x in res["flatness_histogram"]))
    print("  FR18   " + " ".join(f"{x:7.1f}" for x in FR18_HISTOGRAM))
    print(f"  fully flat boards: {res['fully_flat_share']:.2f} % (FR18 0.3 %)")
    print("  mean F by times played: " + ", ".join(f"n={k} {v:.3f}" for k, v in res["flatness_by_tables"].items())
          + f"; large field {res['flatness_large_field']:.3f}")
    print()
    print("expected session MP % by strength gap (pair minus field; boards played 9 times):")
    print("  gap  " + " ".join(f"{k:>6}" for k in res["expected_score_by_gap"]))
    print("  E    " + " ".join(f"{v:6.2f}" for v in res["expected_score_by_gap"].values()))
    print("  50+g " + " ".join(f"{50 + float(k):6.1f}" for k in res["expected_score_by_gap"]))
    print()
    print(f"other: teams IMP sd {res['teams_imp_sd']:.2f} (FR18 6.32-6.42); Butler IMPs per cross-IMP "
          f"{res['butler_per_cross_imp']:.3f} (FR18 1.2); XRvar in strong fields {res['xrvar_strong_field']:.2f}"
          f" (FR18 over 59: 18.9); strong-field F {res['strong_field_flatness']:.3f} (FR18 0.864)")
    print(f"all targets {'PASS' if res['all_pass'] else 'FAIL'}")
    return 0
