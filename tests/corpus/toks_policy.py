#!/usr/bin/env python3
"""Independent figures of shared/corpus/hf2q/perf_baseline.json read as a ratio-floor
policy (stdlib only), for tests/unit/toks/policy_test.cc: per cell its ratio_floor and
the lowest ratio that passes (floor - _tolerance_pp / 100), the tolerance, and how many
'_' commentary keys the file holds at every level.

    python3 tests/corpus/toks_policy.py $PERFGATE_CORPUS_DIR/hf2q/perf_baseline.json
"""
import json
import sys


def commentary(v):
    if isinstance(v, dict):
        return sum((k.startswith("_")) + commentary(x) for k, x in v.items())
    if isinstance(v, list):
        return sum(commentary(x) for x in v)
    return 0


def main(path):
    with open(path) as f:
        doc = json.load(f)
    tol = doc["_tolerance_pp"]
    print("tolerance_pp", tol)
    print("commentary_keys", commentary(doc))
    cells = {k: v for k, v in doc["cells"].items() if not k.startswith("_")}
    print("cells", len(cells))
    for name in sorted(cells):
        floor = cells[name]["ratio_floor"]
        print("cell", name, "floor", floor, "lowest_passing", round(floor - tol / 100, 12))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
