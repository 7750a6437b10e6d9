#!/usr/bin/env python3
"""Independent per-name figures of a Kineto trace's kernels, for
tests/unit/diff/diff_recordings_test.cc: every complete event of category "kernel",
read with the standard library only (gzip + json), summed by exact name.

Prints one JSON object: {"total_us": T, "kernels": {NAME: [count, sum_us, median_us]}},
the median being the middle call's duration (the mean of the middle two).

Usage: python3 tests/corpus/kernel_sums.py TRACE.json[.gz]
"""
import gzip
import json
import statistics
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read())
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls = {}
    for e in events:
        if e.get("cat") == "kernel" and e.get("ph") == "X":
            calls.setdefault(e["name"], []).append(float(e["dur"]))
    out = {"total_us": sum(sum(v) for v in calls.values()),
           "kernels": {n: [len(v), sum(v), statistics.median(v)] for n, v in calls.items()}}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
