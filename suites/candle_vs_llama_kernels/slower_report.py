#!/usr/bin/env python3
"""Writes a copy of a per-kernel timing report with every timing figure (us_*, *_ns)
of every kernel multiplied by FACTOR, for the suite's gate-bites test.

Usage: slower_report.py IN.json OUT.json FACTOR
"""
import json
import sys


def main(src, dst, factor):
    with open(src) as f:
        report = json.load(f)
    for kernel in report["kernels"]:
        for key, value in kernel.items():
            if isinstance(value, (int, float)) and (key.startswith("us_") or key.endswith("_ns")):
                kernel[key] = value * factor
    with open(dst, "w") as f:
        json.dump(report, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))
