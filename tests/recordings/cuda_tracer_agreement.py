#!/usr/bin/env python3
"""Independent figures of the CUDA decode recordings of fixtures/recordings/cuda_decode_h200
(perfgate's CUPTI tracer) and cuda_decode_h200_kineto (the PyTorch profiler), and the
agreement issue 16 asks of them: per mode, kernels per decode token exactly equal,
kernel-us per token within 2 %, per kernel name the same count per token.

Standard library only (gzip + json; times parsed as Decimal, so microsecond texts
become nanoseconds exactly). It does not share perfgate's method:
  tracer trace: tokens = the NVTX `decode_step` ranges (user_annotation events); a
    kernel is in the decode when the launch call carrying its args.correlation starts
    inside one of them on the same pid and tid;
  Kineto trace: tokens = the distinct External ids of the `decode_step`
    gpu_user_annotation events; a kernel is in the decode when it lies inside one of
    them on its device and stream.
It prints, per trace: tokens, kernels, kernels/token, kernel us/token, graph launches
per token (cudaGraphLaunch calls inside the steps), kernel launches per token, and
with --names the per-token count of each kernel name.

Usage: python3 tests/recordings/cuda_tracer_agreement.py [--check] [--names] FIXTURES_DIR
  (FIXTURES_DIR: the repository's fixtures/recordings)
"""
import argparse
import collections
import decimal
import gzip
import json
import os
import sys

D = decimal.Decimal


def ns(text):
    return int((D(text) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=D, parse_int=D)["traceEvents"]


def complete(events, cat):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") == cat]


def span(e):
    start = ns(e["ts"])
    return start, start + ns(e["dur"])


def tracer_figures(events):
    steps = collections.defaultdict(list)
    for e in complete(events, "user_annotation"):
        if e["name"] == "decode_step":
            steps[(int(e["pid"]), int(e["tid"]))].append(span(e))
    calls = {}
    for cat in ("cuda_runtime", "cuda_driver"):
        for e in complete(events, cat):
            a, _ = span(e)
            lane = (int(e["pid"]), int(e["tid"]))
            inside = any(s <= a <= t for s, t in steps.get(lane, []))
            calls[int(e["args"]["correlation"])] = (e["name"], inside)
    kernels = [e for e in complete(events, "kernel") if calls.get(int(e["args"]["correlation"]), ("", False))[1]]
    launch_names = collections.Counter(n for n, inside in calls.values() if inside)
    tokens = sum(len(v) for v in steps.values())
    return tokens, kernels, launch_names


def kineto_figures(events):
    steps = {}
    for e in complete(events, "gpu_user_annotation"):
        if e["name"] == "decode_step":
            s, t = span(e)
            steps.setdefault(int(e["args"]["External id"]), []).append((int(e["pid"]), int(e["tid"]), s, t))
    spans = [x for v in steps.values() for x in v]
    kernels = []
    for e in complete(events, "kernel"):
        s, t = span(e)
        if any(p == int(e["pid"]) and q == int(e["tid"]) and a <= s and t <= b for p, q, a, b in spans):
            kernels.append(e)
    corr = {int(k["args"]["correlation"]) for k in kernels}
    launch_names = collections.Counter(e["name"] for cat in ("cuda_runtime", "cuda_driver")
                                       for e in complete(events, cat) if int(e["args"].get("correlation", -1)) in corr)
    return len(steps), kernels, launch_names


def summary(tokens, kernels, launch_names):
    total = sum(ns(k["dur"]) for k in kernels)
    graph = sum(v for n, v in launch_names.items() if "GraphLaunch" in n)
    launch = sum(v for n, v in launch_names.items() if "LaunchKernel" in n)
    names = collections.Counter(k["name"] for k in kernels)
    return {"tokens": tokens, "kernels": len(kernels), "kernels_per_token": D(len(kernels)) / tokens,
            "kernel_us_per_token": D(total) / 1000 / tokens, "graph_launches_per_token": D(graph) / tokens,
            "kernel_launches_per_token": D(launch) / tokens, "names": names}


def show(label, s, names):
    print(f"{label}: tokens {s['tokens']}, kernels {s['kernels']} ({s['kernels_per_token']:.3f}/token), "
          f"{s['kernel_us_per_token']:.3f} kernel-us/token, graph launches {s['graph_launches_per_token']:.3f}/token, "
          f"kernel launches {s['kernel_launches_per_token']:.3f}/token, {len(s['names'])} kernel names")
    if names:
        for n, c in sorted(s["names"].items(), key=lambda x: -x[1]):
            print(f"    {D(c) / s['tokens']:9.3f}/token  {n[:150]}")


def agree(mode, tracer, kineto):
    problems = []
    if tracer["kernels_per_token"] != kineto["kernels_per_token"]:
        problems.append(f"kernels/token {tracer['kernels_per_token']} vs {kineto['kernels_per_token']}")
    rel = abs(tracer["kernel_us_per_token"] - kineto["kernel_us_per_token"]) / kineto["kernel_us_per_token"]
    if rel > D("0.02"):
        problems.append(f"kernel-us/token differ by {rel * 100:.2f} % (over 2 %)")
    per_token = lambda s: {n: D(c) / s["tokens"] for n, c in s["names"].items()}
    if per_token(tracer) != per_token(kineto):
        problems.append("per-kernel-name counts differ: " +
                        str(sorted(set(per_token(tracer).items()) ^ set(per_token(kineto).items()))[:4]))
    print(f"{mode}: kernel-us/token differ by {rel * 100:.3f} %; " + ("AGREE" if not problems else "DISAGREE: " +
                                                                      "; ".join(problems)))
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 unless every tracer trial agrees with Kineto")
    ap.add_argument("--names", action="store_true")
    ap.add_argument("fixtures")
    args = ap.parse_args()
    ok = True
    for mode in ("eager", "graphs"):
        ref = summary(*kineto_figures(load(os.path.join(args.fixtures, "cuda_decode_h200_kineto", mode, "trial-1",
                                                        "trace.json.gz"))))
        show(f"{mode} pytorch-profiler trial-1", ref, args.names)
        for k in (1, 2, 3):
            s = summary(*tracer_figures(load(os.path.join(args.fixtures, "cuda_decode_h200", mode, f"trial-{k}",
                                                          "trace.json.gz"))))
            show(f"{mode} tracer trial-{k}", s, args.names)
            ok = agree(f"{mode} tracer trial-{k}", s, ref) and ok
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
