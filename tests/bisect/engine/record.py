#!/usr/bin/env python3
"""The simulated engine's recorder (tests/bisect/make_repo.py commits it unchanged).

Reads engine.conf in the working directory and writes a recording of 5 trials,
$PERFGATE_BISECT_OUT/trial-1/trace.json ... trial-5/trace.json, in PyTorch
profiler (Kineto) trace-event JSON: per decode token, per `kernel` line, per launch,
one cudaLaunchKernel runtime event on the host thread and one kernel event on GPU 0,
stream 7, joined by their correlation id.

engine.conf, one setting a line ("#" starts a comment):
  tokens N                  decode tokens per trial
  kernel NAME LAUNCHES US   a kernel launched LAUNCHES times per token, US microseconds each
  noise CV                  coefficient of variation of each launch's duration (default 0)
  trial_noise CV            coefficient of variation of one factor per trial that scales
                            every launch of that trial (clock drift; default 0)

A launch lasts US * T * L, where T (one per trial) and L (one per launch) are
lognormal with mean 1 and the CVs above (sigma^2 = ln(1 + CV^2), mu = -sigma^2 / 2),
so a trial's GPU time per token is about sum(LAUNCHES * US). The noise is drawn from
random.Random seeded by the text "SEED:COMMIT:ATTEMPT:TRIAL" (SEED = $BISECT_SIM_SEED,
default 0; COMMIT and ATTEMPT = $PERFGATE_BISECT_COMMIT and $PERFGATE_BISECT_ATTEMPT),
so a recording is reproducible and every attempt at every commit differs.
Any other line, a missing variable, or an output directory that is missing or not
empty: a message and exit 1.
"""
import json
import math
import os
import random
import sys

TRIALS = 5
HOST_PID = 4242
DEVICE = 0
STREAM = 7
LAUNCH_NS = 4_000  # a cudaLaunchKernel call's duration
LAUNCH_GAP_NS = 6_000  # from one launch call to the next
GPU_GAP_NS = 1_000  # idle GPU time between two kernels


def fail(message):
    sys.exit(f"record.py: {message}")


def parse_conf(path):
    """engine.conf -> {"tokens": int, "kernels": [(name, launches, us)], "noise": cv, "trial_noise": cv}."""
    conf = {"tokens": None, "kernels": [], "noise": 0.0, "trial_noise": 0.0}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            try:
                parse_setting(conf, words)
            except (ValueError, IndexError) as e:
                fail(f"{path}:{number}: {e}: {line.strip()!r}")
    if conf["tokens"] is None or not conf["kernels"]:
        fail(f"{path}: needs a 'tokens' line and at least one 'kernel' line")
    return conf


def parse_setting(conf, words):
    if not words:
        return
    key, values = words[0], words[1:]
    if key == "tokens" and len(values) == 1 and int(values[0]) > 0:
        conf["tokens"] = int(values[0])
    elif key == "kernel" and len(values) == 3 and int(values[1]) > 0 and float(values[2]) > 0:
        conf["kernels"].append((values[0], int(values[1]), float(values[2])))
    elif key in ("noise", "trial_noise") and len(values) == 1 and float(values[0]) >= 0:
        conf[key] = float(values[0])
    else:
        raise ValueError("not a setting (tokens N, kernel NAME LAUNCHES US, noise CV, trial_noise CV)")


def lognormal(rng, cv):
    """A lognormal factor of mean 1 and coefficient of variation `cv`."""
    sigma = math.sqrt(math.log1p(cv * cv))
    return rng.lognormvariate(-sigma * sigma / 2, sigma)


def micros(ns):
    return round(ns / 1000, 3)


def event(cat, name, pid, tid, ts_ns, dur_ns, args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
            "ts": micros(ts_ns), "dur": micros(dur_ns), "args": args}


def metadata():
    def named(kind, pid, tid, name):
        return {"name": kind, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": {"name": name}}
    return [named("process_name", HOST_PID, 0, "python3"),
            named("thread_name", HOST_PID, HOST_PID, f"thread {HOST_PID} (python3)"),
            named("process_name", DEVICE, 0, f"GPU {DEVICE}"),
            named("thread_name", DEVICE, STREAM, f"stream {STREAM}")]


def trial_events(conf, rng):
    """Every launch of every token: its launch call and its kernel."""
    events = metadata()
    trial_factor = lognormal(rng, conf["trial_noise"])
    cpu_ns, gpu_ns, correlation = 1_000_000, 1_000_000, 0
    for _ in range(conf["tokens"]):
        for name, launches, us in conf["kernels"]:
            for _ in range(launches):
                correlation += 1
                dur_ns = round(us * 1000 * trial_factor * lognormal(rng, conf["noise"]))
                gpu_ns = max(gpu_ns, cpu_ns + LAUNCH_NS)
                events.append(event("cuda_runtime", "cudaLaunchKernel", HOST_PID, HOST_PID, cpu_ns, LAUNCH_NS,
                                    {"External id": correlation, "cbid": 211, "correlation": correlation}))
                events.append(event("kernel", name, DEVICE, STREAM, gpu_ns, dur_ns,
                                    {"External id": correlation, "device": DEVICE, "context": 1,
                                     "stream": STREAM, "correlation": correlation}))
                cpu_ns += LAUNCH_GAP_NS
                gpu_ns += dur_ns + GPU_GAP_NS
    return events


def environment(name):
    value = os.environ.get(name)
    if not value:
        fail(f"${name} is not set (perfgate bisect sets it)")
    return value


def main():
    out = environment("PERFGATE_BISECT_OUT")
    commit = environment("PERFGATE_BISECT_COMMIT")
    attempt = environment("PERFGATE_BISECT_ATTEMPT")
    seed = os.environ.get("BISECT_SIM_SEED", "0")
    if not os.path.isdir(out) or os.listdir(out):
        fail(f"$PERFGATE_BISECT_OUT {out!r} is not an empty directory")
    conf = parse_conf("engine.conf")
    for trial in range(1, TRIALS + 1):
        rng = random.Random(f"{seed}:{commit}:{attempt}:{trial}")
        trace = {"schemaVersion": 1, "deviceProperties": [{"id": DEVICE, "name": "Simulated GPU"}],
                 "traceEvents": trial_events(conf, rng)}
        os.makedirs(os.path.join(out, f"trial-{trial}"))
        with open(os.path.join(out, f"trial-{trial}", "trace.json"), "w", encoding="utf-8") as f:
            json.dump(trace, f)


if __name__ == "__main__":
    main()
