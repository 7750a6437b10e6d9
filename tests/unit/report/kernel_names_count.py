#!/usr/bin/env python3
"""Independent per-kernel-name figures of PyTorch-profiler traces, for the report tests.

Reads each trace-event JSON file given (gzip or plain) with the standard library only:
the kernels ("cat": "kernel") that lie inside the decode window, from the start of
the first "decode_step" gpu_user_annotation to the end of the last, grouped by their
exact name. Times are converted from the trace's microsecond text to integer
nanoseconds exactly (Decimal, half-up on the first dropped digit); a kernel's end is
its start plus its duration. Prints, per name: per-trial count, summed ns, min and
max ns, and the tokens (decode_step instances) per trial, as JSON.

    python3 tests/unit/report/kernel_names_count.py \
        fixtures/recordings/torch_decode_h200/graphs/trial-{1,2,3}/trace.json.gz
"""
import decimal
import gzip
import json
import sys


def ns(text):
    return int((decimal.Decimal(text) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=str, parse_int=str)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def trial(path, label="decode_step"):
    events = load(path)
    steps = [e for e in events if e.get("cat") == "gpu_user_annotation" and e.get("name") == label]
    start = min(ns(e["ts"]) for e in steps)
    end = max(ns(e["ts"]) + ns(e["dur"]) for e in steps)
    names = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        s, d = ns(e["ts"]), ns(e["dur"])
        if s < start or s + d > end:
            continue
        k = names.setdefault(e["name"], {"count": 0, "sum_ns": 0, "min_ns": d, "max_ns": d})
        k["count"] += 1
        k["sum_ns"] += d
        k["min_ns"] = min(k["min_ns"], d)
        k["max_ns"] = max(k["max_ns"], d)
    return {"path": path, "tokens": len(steps), "kernels": names}


if __name__ == "__main__":
    json.dump([trial(p) for p in sys.argv[1:]], sys.stdout, indent=1, sort_keys=True)
    print()
