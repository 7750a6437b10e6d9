#!/usr/bin/env python3
"""hf2q_decode_benchmark's output as Google Benchmark's compare.py reads it.

Usage: benchmark_interop_test.py CASE --bench PROGRAM --perfgate CLI --fixtures DIR
                                 --corpus CORPUS_DIR --work DIR
CASE:
  shape       the JSON output has the keys and types of compare.py's own test inputs
              (CORPUS_DIR/gbench/*.json). Without the corpus: a failure under CI
              (CI or another CI variable set, as perfgate detects CI), else exit
              status 77 (CTest: skipped, visibly), as the SVG picture tests.
  shape_without_corpus
              the rule above, checked: `shape` with no corpus under CI=true, CI=1
              and GITHUB_ACTIONS=true fails; with CI unset, "", 0 or false it exits 77.
  values      one repetition per recorded trial, aggregates that agree with the
              repetitions, and per-trial submissions/token equal to `perfgate attribute
              --format json`'s per-trial submissions / tokens.
  regression  compare.py's pairing (by name, repetition by repetition) flags
              hf2q/submissions_per_token at +0.044 on the regressed recording, and
              names pair between a 3-trial and a 4-trial recording.
  repetitions --benchmark_repetitions other than the trial count is an error (exit 2).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

FIGURE = "hf2q_decode/hf2q/submissions_per_token"
OUTPUT_HEAD = "output_head.fused_norm_lm_argmax"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


# The variables perfgate reads as "running under CI" (framework/src/core/environment.cc),
# and its reading of them: set, and not "", "0" or "false" (any case).
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE")


def ci_variable(env):
    for var in CI_VARIABLES:
        value = env.get(var)
        if value is not None and value not in ("", "0") and value.lower() != "false":
            return var
    return None


def check_shape_without_corpus(args):
    base = {k: v for k, v in os.environ.items() if k not in CI_VARIABLES}
    cases = [({"CI": "true"}, 1), ({"CI": "1"}, 1), ({"GITHUB_ACTIONS": "true"}, 1),
             ({}, 77), ({"CI": ""}, 77), ({"CI": "0"}, 77), ({"CI": "FALSE"}, 77)]
    for extra, expected in cases:
        cmd = [sys.executable, os.path.abspath(__file__), "shape", "--bench", args.bench,
               "--perfgate", args.perfgate, "--fixtures", args.fixtures,
               "--corpus=" + os.path.join(args.work, "no-corpus"), "--work", args.work]
        p = subprocess.run(cmd, env={**base, **extra}, capture_output=True, text=True)
        if p.returncode != expected:
            fail("shape without the corpus, %s: exit %d, expected %d\n%s%s" % (
                extra or "no CI variable", p.returncode, expected, p.stdout, p.stderr))
    print("shape without the corpus: fails under CI, skips (77) elsewhere")


def run_bench(args, out, recordings=None, extra=()):
    env = dict(os.environ)
    env.pop("PERFGATE_RECORD", None)
    env.pop("BENCHMARK_REPETITIONS", None)
    if recordings:
        env["PERFGATE_RECORDINGS"] = recordings
    else:
        env.pop("PERFGATE_RECORDINGS", None)
    cmd = [args.bench, "--benchmark_out=" + out, "--benchmark_out_format=json",
           "--benchmark_format=console", *extra]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (cmd, p.returncode, p.stderr))
    def strict(constant):  # NaN and Infinity are not JSON; strict parsers reject them
        fail("%s holds %s" % (out, constant))
    with open(out) as f:
        return json.load(f, parse_constant=strict)


# --- the shape compare.py's inputs have, derived from the corpus -------------------

def json_type(v):
    # JSON has one number type; the corpus writes 10 and 0.01 for the same key.
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def corpus_shape(corpus):
    """Per run_type, the union of keys of the corpus entries of that run_type (entries
    without run_type are the older format, iterations by compare.py's reading), with
    the JSON types each key takes. Complexity aggregates (BigO, RMS: big_o, rms, ...)
    are left out: a suite figure has no complexity. Context: keys and types of every
    corpus context."""
    keys = {"iteration": {}, "aggregate": {}}
    context = {}
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".json"))
    if not files:
        fail("no compare.py inputs in " + corpus)
    for name in files:
        with open(os.path.join(corpus, name)) as f:
            doc = json.load(f)
        for k, v in doc.get("context", {}).items():
            context.setdefault(k, set()).add(json_type(v))
        for b in doc["benchmarks"]:
            if b.get("aggregate_name") in ("BigO", "RMS"):
                continue
            rt = b.get("run_type", "iteration")
            for k, v in b.items():
                keys[rt].setdefault(k, set()).add(json_type(v))
    return keys, context


def check_shape(doc, corpus):
    keys, context = corpus_shape(corpus)
    for k, types in context.items():
        if k not in doc.get("context", {}):
            fail("context lacks '%s' (every corpus context has it)" % k)
        if json_type(doc["context"][k]) not in types:
            fail("context '%s' is %s; the corpus has %s" % (k, json_type(doc["context"][k]), types))
    for b in doc["benchmarks"]:
        rt = b.get("run_type")
        if rt not in keys:
            fail("%s: run_type %r is not one of the corpus's %s" % (b["name"], rt, sorted(keys)))
        for k, types in keys[rt].items():
            if k not in b:
                fail("%s (%s) lacks '%s', which the corpus's %s entries have" % (b["name"], rt, k, rt))
            if json_type(b[k]) not in types:
                fail("%s: '%s' is %s; the corpus has %s" % (b["name"], k, json_type(b[k]), types))
        for k in ("repetitions", "time_unit", "label"):  # not all in the corpus; compare.py reads them
            if k not in b:
                fail("%s lacks '%s'" % (b["name"], k))
    print("shape: %d entries match the keys and types of %d corpus key sets" % (
        len(doc["benchmarks"]), sum(len(v) for v in keys.values())))


# --- values -----------------------------------------------------------------------

def series(doc, name):
    reps = [b for b in doc["benchmarks"] if b["name"] == name and b["run_type"] == "iteration"]
    aggs = {b["aggregate_name"]: b for b in doc["benchmarks"]
            if b["run_type"] == "aggregate" and b["run_name"] == name}
    return reps, aggs


def close(a, b, rel=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def attributed_submissions_per_token(args):
    """Per-trial submissions / tokens of the hf2q recording, from the CLI's JSON."""
    cmd = [args.perfgate, "attribute", "--trace",
           "hf2q=" + os.path.join(args.fixtures, "decode_q4_0", "hf2q"),
           "--tokens", "auto:" + OUTPUT_HEAD, "--window", "label:" + OUTPUT_HEAD,
           "--process", "hf2q", "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("perfgate attribute exited %d: %s" % (p.returncode, p.stderr))
    trials = json.loads(p.stdout)["engines"]["hf2q"]["trials"]
    trials.sort(key=lambda t: t["path"])
    return [t["items"] / t["tokens"] for t in trials]


def check_values(doc, args):
    reps, aggs = series(doc, FIGURE)
    expected = attributed_submissions_per_token(args)
    if len(reps) != len(expected) or len(expected) != 3:
        fail("%s: %d repetitions for %d recorded trials" % (FIGURE, len(reps), len(expected)))
    for i, (b, want) in enumerate(zip(reps, expected)):
        if b["repetition_index"] != i or b["repetitions"] != len(expected) or b["iterations"] != 1:
            fail("%s repetition %d: index %s of %s, %s iterations" % (
                FIGURE, i, b["repetition_index"], b["repetitions"], b["iterations"]))
        for k in ("real_time", "cpu_time", "submissions_per_token"):
            if not close(b[k], want):
                fail("%s trial %d: %s = %r, attributed %r" % (FIGURE, i + 1, k, b[k], want))
        if b["label"] != "submissions/token":
            fail("%s: label %r" % (FIGURE, b["label"]))
    # Aggregates: the same statistic in Time, CPU and the counter, computed here
    # from the per-trial values with Python's statistics module.
    mean = statistics.mean(expected)
    stddev = statistics.stdev(expected)
    want = {"mean": mean, "median": statistics.median(expected), "stddev": stddev, "cv": stddev / mean}
    for agg, value in want.items():
        b = aggs.get(agg)
        if b is None:
            fail("%s has no %s aggregate" % (FIGURE, agg))
        for k in ("real_time", "cpu_time", "submissions_per_token"):
            # Google Benchmark's stddev (sum of squares less the squared mean) and
            # Python's (two-pass) agree to about 1e-10 here, not to the last bit.
            if not close(b[k], value, 1e-12 if agg in ("mean", "median") else 1e-9):
                fail("%s_%s: %s = %r, expected %r" % (FIGURE, agg, k, b[k], value))
    # Every figure: Time = CPU, no trial count in the name, one repetition per trial;
    # only figures without a sample per trial (kernel-family sizes, the p50 of a
    # bucket some trial lacks) have one repetition, and say so in their label.
    whole = set()
    for b in doc["benchmarks"]:
        if b["real_time"] != b["cpu_time"]:
            fail("%s: real_time %r != cpu_time %r" % (b["name"], b["real_time"], b["cpu_time"]))
        if "iterations:" in b["name"] or "repeats:" in b["name"]:
            fail("%s: a trial count in the name" % b["name"])
        once = "(one value for the recording, not per trial)" in b["label"]
        if b["repetitions"] != (1 if once else 3):
            fail("%s (%s): %d repetitions" % (b["name"], b["label"], b["repetitions"]))
        if once:
            if "/kernel_families/" not in b["name"] and not b["name"].endswith("/p50_us"):
                fail("%s has one repetition but a sample per trial is expected" % b["name"])
            whole.add(b["name"])
    if "hf2q_decode/hf2q/kernel_families/argmax" not in whole:
        fail("the kernel family argmax is not a one-repetition benchmark: %s" % sorted(whole))
    print("values: %s = %s per trial, as attributed; aggregates %s" % (FIGURE, expected, want))


# --- compare.py's pairing ---------------------------------------------------------

def calculate_change(old, new):
    """compare.py's relative difference (tools/gbench/report.py, calculate_change)."""
    if old == 0 and new == 0:
        return 0.0
    if old == 0:
        return (new - old) / ((old + new) / 2)
    return (new - old) / abs(old)


def difference_report(old, new):
    """compare.py's pairing (report.py, partition_benchmarks / get_difference_report):
    names of `old` in order that `new` also has, the entries of each name with the
    first entry's time_unit, paired index by index up to the shorter list."""
    def unique_names(doc):
        seen = []
        for b in doc["benchmarks"]:
            if b["name"] not in seen:
                seen.append(b["name"])
        return seen
    new_names = set(unique_names(new))
    report = {}
    for name in unique_names(old):
        if name not in new_names:
            continue
        unit = next(b["time_unit"] for b in old["benchmarks"] if b["name"] == name)
        lhs = [b for b in old["benchmarks"] if b["name"] == name and b["time_unit"] == unit]
        rhs = [b for b in new["benchmarks"] if b["name"] == name and b["time_unit"] == unit]
        report[name] = [(calculate_change(a["real_time"], b["real_time"]),
                         calculate_change(a["cpu_time"], b["cpu_time"]))
                        for a, b in zip(lhs, rhs)]
    return report


def print_rows(old, new, names):
    """The rows compare.py prints for `names`, in report.py's print_difference_report
    format (name, Time and CPU change, then Time old/new and CPU old/new)."""
    width = max(len(n) for n in names) + 2
    print("%-*sTime             CPU      Time Old      Time New       CPU Old       CPU New" % (width + 12, "Benchmark"))
    report = difference_report(old, new)
    for name in names:
        lhs = [b for b in old["benchmarks"] if b["name"] == name]
        rhs = [b for b in new["benchmarks"] if b["name"] == name]
        for (time, cpu), a, b in zip(report[name], lhs, rhs):
            print("{:<{}s}{:+16.4f}{:+16.4f}{:14.0f}{:14.0f}{:14.0f}{:14.0f}".format(
                name, width, time, cpu, a["real_time"], b["real_time"], a["cpu_time"], b["cpu_time"]))


def assemble(work, name, hf2q_src, llama_src, extra_trial=None):
    """A recordings directory of symbolic links; extra_trial copies hf2q's trial-1 as
    trial-N (a fourth trial, so the trial count differs)."""
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "hf2q"))
    for t in sorted(os.listdir(hf2q_src)):
        os.symlink(os.path.join(hf2q_src, t), os.path.join(d, "hf2q", t))
    if extra_trial:
        shutil.copytree(os.path.join(hf2q_src, "trial-1"), os.path.join(d, "hf2q", extra_trial))
    os.symlink(llama_src, os.path.join(d, "llama"))
    return d


def check_regression(args):
    usual = os.path.join(args.fixtures, "decode_q4_0")
    old = run_bench(args, os.path.join(args.work, "usual.json"))
    regressed_dir = assemble(args.work, "regressed", os.path.join(args.fixtures, "decode_q4_0_regressed", "hf2q"),
                             os.path.join(usual, "llama"))
    new = run_bench(args, os.path.join(args.work, "regressed.json"), regressed_dir)
    report = difference_report(old, new)
    for name in (FIGURE, FIGURE + "_mean", FIGURE + "_median"):
        rows = report.get(name)
        if not rows:
            fail("compare.py's pairing finds no %s in both runs" % name)
        for time, cpu in rows:
            if not (0.040 < time < 0.048 and time == cpu):
                fail("%s: Time %+.4f CPU %+.4f, expected about +0.044" % (name, time, cpu))
    print("regression: %s Time/CPU %s" % (FIGURE, ["%+.4f" % t for t, _ in report[FIGURE]]))
    print_rows(old, new, [FIGURE, FIGURE + "_mean", FIGURE + "_median", "hf2q_decode/hf2q/gpu_us_per_token_median"])
    # The unchanged baseline stays at +0.0000.
    for time, cpu in report["hf2q_decode/llama/submissions_per_token"]:
        if time != 0.0 or cpu != 0.0:
            fail("llama/submissions_per_token moved: %+.4f" % time)
    # Names pair across trial counts: four trials against three.
    four_dir = assemble(args.work, "four_trials", os.path.join(usual, "hf2q"), os.path.join(usual, "llama"),
                        extra_trial="trial-4")
    four = run_bench(args, os.path.join(args.work, "four_trials.json"), four_dir)
    old_names = {b["name"] for b in old["benchmarks"]}
    four_names = {b["name"] for b in four["benchmarks"]}
    if old_names != four_names:
        fail("names differ between 3 and 4 trials: %s" % sorted(old_names ^ four_names))
    reps, _ = series(four, FIGURE)
    if len(reps) != 4 or any(b["repetitions"] != 4 for b in reps):
        fail("4 trials gave %d repetitions of %s" % (len(reps), FIGURE))
    pairs = difference_report(old, four)[FIGURE]
    if len(pairs) != 3:
        fail("compare.py would pair %d repetitions of 3 vs 4" % len(pairs))
    print("trial counts: %d names pair between 3 and 4 trials" % len(old_names))


def check_repetitions(args):
    env = dict(os.environ)
    env.pop("PERFGATE_RECORDINGS", None)
    env.pop("BENCHMARK_REPETITIONS", None)
    for flag in ("--benchmark_repetitions=5", "--benchmark_repetitions=2"):
        p = subprocess.run([args.bench, flag], env=env, capture_output=True, text=True)
        if p.returncode != 2 or "error[benchmark.repetitions]" not in p.stderr or \
                "hf2q_decode/hf2q: 3 trials" not in p.stderr or p.stdout.strip():
            fail("%s: exit %d, stdout %r, stderr %r" % (flag, p.returncode, p.stdout[:200], p.stderr))
    env["BENCHMARK_REPETITIONS"] = "5"  # Google Benchmark's environment default
    p = subprocess.run([args.bench], env=env, capture_output=True, text=True)
    if p.returncode != 2:
        fail("BENCHMARK_REPETITIONS=5: exit %d" % p.returncode)
    env.pop("BENCHMARK_REPETITIONS")
    doc = run_bench(args, os.path.join(args.work, "three.json"), extra=["--benchmark_repetitions=3"])
    reps, _ = series(doc, FIGURE)
    if len(reps) != 3:
        fail("--benchmark_repetitions=3 gave %d repetitions" % len(reps))
    print("repetitions: 5, 2 and BENCHMARK_REPETITIONS=5 refused (exit 2); 3 (the trial count) runs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["shape", "shape_without_corpus", "values", "regression", "repetitions"])
    for opt in ("bench", "perfgate", "fixtures", "corpus", "work"):
        ap.add_argument("--" + opt, required=True)
    args = ap.parse_args()
    args.fixtures = os.path.abspath(args.fixtures)  # symbolic links point here
    os.makedirs(args.work, exist_ok=True)
    if args.case == "shape":
        gbench = os.path.join(args.corpus, "gbench") if args.corpus else ""
        if not gbench or not os.path.isdir(gbench):
            ci = ci_variable(os.environ)
            if ci:
                fail("no compare.py inputs under PERFGATE_CORPUS_DIR='%s' (gbench/), and %s is set: "
                     "under CI the shape check must run; configure with -DPERFGATE_CORPUS_DIR=<shared/corpus>"
                     % (args.corpus, ci))
            print("SKIPPED: no compare.py inputs under PERFGATE_CORPUS_DIR='%s' (gbench/); "
                  "set it to shared/corpus to run this test" % args.corpus)
            sys.exit(77)
        check_shape(run_bench(args, os.path.join(args.work, "shape.json")), gbench)
    elif args.case == "shape_without_corpus":
        check_shape_without_corpus(args)
    elif args.case == "values":
        check_values(run_bench(args, os.path.join(args.work, "values.json")), args)
    elif args.case == "regression":
        check_regression(args)
    else:
        check_repetitions(args)


if __name__ == "__main__":
    main()
