#!/usr/bin/env python3
"""Independent count of an hf2q counter-report history (stdlib only).

Reads a file like hf2q's metrics_baseline.txt without perfgate's reader (see
reports_of for the rule), and prints what tests/unit/counters assert on the real file:

    reports N
    keys N                    (distinct keys over all reports)
    report K title <first comment line>
    report K <key> <text> int|float|text

Usage: counter_history.py FILE [KEY ...]   (default keys: median_tok_per_sec
dispatches_per_token forward_count model)
"""
import re
import sys

NUMBER = re.compile(r"[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$")


def reports_of(path):
    """Splits at every `model:` line (each hf2q report opens with its model), a rule
    other than perfgate's (`# ====` blocks and comment paragraphs). A report's title is
    the first line of the last run of comment lines above its `model:` line, rule
    lines left out."""
    with open(path, encoding="utf-8") as f:
        lines = [l.strip() for l in f]
    reports = []
    for i, line in enumerate(lines):
        if not line.startswith("model:"):
            continue
        j = i - 1
        block = []
        while j >= 0 and lines[j].startswith("#"):
            text = lines[j][1:].strip()
            if not (len(text) >= 4 and set(text) == {"="}):
                block.insert(0, text)
            j -= 1
        title = next((t for t in block if t), None)
        reports.append({"title": title, "start": i, "values": {}})
    for n, r in enumerate(reports):
        stop = reports[n + 1]["start"] if n + 1 < len(reports) else len(lines)
        for line in lines[r["start"]:stop]:
            if line and not line.startswith("#"):
                key, _, value = line.partition(":")
                r["values"][key.strip()] = value.strip()
    return reports


def kind(text):
    m = NUMBER.match(text)
    if not m:
        return "text"
    return "float" if (m.group(1) or m.group(2)) else "int"


def main():
    path = sys.argv[1]
    keys = sys.argv[2:] or ["median_tok_per_sec", "dispatches_per_token", "forward_count", "model"]
    reports = reports_of(path)
    print("reports", len(reports))
    keys_seen = []
    for r in reports:
        keys_seen += [k for k in r["values"] if k not in keys_seen]
    print("keys", len(keys_seen))
    for i, r in enumerate(reports, 1):
        print("report", i, "title", r["title"])
        for k in keys:
            if k in r["values"]:
                print("report", i, k, r["values"][k], kind(r["values"][k]))
            else:
                print("report", i, k, "(absent)")


if __name__ == "__main__":
    main()
