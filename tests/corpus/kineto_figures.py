#!/usr/bin/env python3
"""Independent figures of the Kineto corpus traces, for tests/unit/json_trace/corpus_kineto_test.cc.

Reads each trace with the standard library only (gzip + json, numbers parsed as
Decimal so that microsecond texts become nanoseconds exactly, rounded half away from
zero) and prints, per trace:
  kernels, kernel_ns (summed kernel durations), memcpys, memsets, copy ns,
  distinct kernel names, kernels per device (args.device, else pid),
  launches by kind (the distinct runtime/driver calls whose args.correlation a kernel
  carries: *GraphLaunch* -> graph, *LaunchKernel* / *LaunchCooperativeKernel* ->
  kernel, anything else -> other), kernels launched by a graph launch, kernels
  without such a call,
  events and those attribution does not use (all but the kept categories and the
  process_name / thread_name metadata), the args.stream / args.device values a strict
  read ignores (json.ignored_field), the runtime and driver calls (every complete
  event of those categories),
  and the instances of every user annotation name given with --label (one instance
  per (pid, tid, ts) on the host, per (pid, External id) on the GPU), with the
  instances that contain the launch call of at least one kernel (the token count) and
  the kernels whose launch call (else the kernel) starts between the first instance's
  start and the last one's end (the label window); for GPU annotations (on a kernel's
  device and stream) the instances that contain a kernel. --label-prefix counts the
  annotations whose name starts with its text.
With --names it also prints count, sum, min and max ns per exact kernel name.

Usage: python3 tests/corpus/kineto_figures.py [--names] [--label NAME]... CORPUS_DIR/kineto/.../FILE.json.gz ...
"""
import argparse
import collections
import decimal
import gzip
import json
import sys

KERNEL_CATS = {"kernel"}
MEMCPY_CATS = {"gpu_memcpy", "memcpy"}
MEMSET_CATS = {"gpu_memset", "memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "runtime", "driver"}
ANNOTATION_CATS = {"user_annotation", "gpu_user_annotation"}
KEPT_CATS = KERNEL_CATS | MEMCPY_CATS | MEMSET_CATS | RUNTIME_CATS | ANNOTATION_CATS
KEPT_METADATA = {"process_name", "thread_name"}


def ns(us):
    """Microseconds (a Decimal or int from the file) -> integer nanoseconds, half away from zero."""
    return int((decimal.Decimal(us) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def launch_kind(name):
    if "GraphLaunch" in name:
        return "graph"
    if "LaunchKernel" in name or "LaunchCooperativeKernel" in name:
        return "kernel"
    return "other"


def load(path):
    with gzip.open(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def label_figures(label, named, events, kernels, runtime, used, cat):
    """Instances of the annotations `named` picks, those around kernels, and the kernels in the window."""
    host = {(e["pid"], e["tid"], e["ts"]): e for e in events if cat(e) == "user_annotation" and named(e["name"])}
    gpu_events = [e for e in events if cat(e) == "gpu_user_annotation" and named(e["name"])]
    gpu = {(e["pid"], e.get("args", {}).get("External id")) for e in gpu_events}
    around = 0
    for a in host.values():
        start, end = ns(a["ts"]), ns(a["ts"]) + ns(a["dur"])
        if any(c["pid"] == a["pid"] and c["tid"] == a["tid"] and start <= ns(c["ts"]) and
               ns(c["ts"]) + ns(c["dur"]) <= end for c in used.values()):
            around += 1
    gpu_around = set()
    for a in gpu_events:
        start, end = ns(a["ts"]), ns(a["ts"]) + ns(a["dur"])
        if any(k["pid"] == a["pid"] and k["tid"] == a["tid"] and start <= ns(k["ts"]) and
               ns(k["ts"]) + ns(k["dur"]) <= end for k in kernels):
            gpu_around.add((a["pid"], a.get("args", {}).get("External id")))
    inside = 0
    if host:
        first = min(ns(a["ts"]) for a in host.values())
        last = max(ns(a["ts"]) + ns(a["dur"]) for a in host.values())
        for k in kernels:
            call = runtime.get(k.get("args", {}).get("correlation"))
            t = ns((call or k)["ts"])
            inside += first <= t <= last
    print("  label %r host_instances %d gpu_instances %d host_instances_around_launches %d "
          "gpu_instances_around_kernels %d kernels_launched_inside %d" %
          (label, len(host), len(gpu), around, len(gpu_around), inside))


def figures(path, labels, prefixes, names):
    everything = load(path)
    events = [e for e in everything if isinstance(e, dict) and e.get("ph") == "X"]
    cat = lambda e: str(e.get("cat", "")).lower()
    kept = sum(1 for e in events if cat(e) in KEPT_CATS)
    kept += sum(1 for e in everything if e.get("ph") == "M" and e.get("name") in KEPT_METADATA)
    kernels = [e for e in events if cat(e) in KERNEL_CATS]
    memcpys = [e for e in events if cat(e) in MEMCPY_CATS]
    memsets = [e for e in events if cat(e) in MEMSET_CATS]
    runtime = {}
    for e in events:
        corr = e.get("args", {}).get("correlation")
        if cat(e) in RUNTIME_CATS and corr is not None:
            runtime.setdefault(corr, e)  # the first call with the id wins
    print(path.split("/")[-1])
    print("  kernels %d kernel_ns %d" % (len(kernels), sum(ns(e["dur"]) for e in kernels)))
    print("  memcpys %d memcpy_ns %d memsets %d memset_ns %d" %
          (len(memcpys), sum(ns(e["dur"]) for e in memcpys), len(memsets), sum(ns(e["dur"]) for e in memsets)))
    print("  events %d not_used %d" % (len(everything), len(everything) - kept))
    # args.stream / args.device matter only on GPU work: elsewhere a value that is not a
    # non-negative integer ("0x0" on HIP runtime calls, -1 on cuda_sync) is ignored.
    gpu_cats = KERNEL_CATS | MEMCPY_CATS | MEMSET_CATS
    ignored = sum(1 for e in events if cat(e) not in gpu_cats for k in ("stream", "device")
                  if k in e.get("args", {}) and not (type(e["args"][k]) is int and e["args"][k] >= 0))
    print("  ignored_fields %d" % ignored)
    # Every complete event of a runtime or driver category is a RuntimeCall, with or
    # without args.correlation (reader_test.cc's runtime_calls.size()).
    print("  runtime_calls %d" % sum(1 for e in events if cat(e) in RUNTIME_CATS))
    print("  distinct_kernel_names %d" % len({e["name"] for e in kernels}))
    per_device = collections.Counter(e.get("args", {}).get("device", e.get("pid")) for e in kernels)
    print("  kernels_per_device " + ", ".join("%s: %d" % kv for kv in sorted(per_device.items())))
    used = {}
    unlaunched = 0
    graph_kernels = 0
    for k in kernels:
        call = runtime.get(k.get("args", {}).get("correlation"))
        if call is None:
            unlaunched += 1
        else:
            used[id(call)] = call
            graph_kernels += launch_kind(call["name"]) == "graph"
    kinds = collections.Counter(launch_kind(c["name"]) for c in used.values())
    print("  launches kernel %d graph %d other %d graph_kernels %d unlaunched_kernels %d" %
          (kinds["kernel"], kinds["graph"], kinds["other"], graph_kernels, unlaunched))
    print("  launch_names " + ", ".join("%s x%d" % kv for kv in
                                         sorted(collections.Counter(c["name"] for c in used.values()).items())))
    for label in labels:
        label_figures(label, lambda n, label=label: n == label, events, kernels, runtime, used, cat)
    for prefix in prefixes:
        label_figures("prefix:" + prefix, lambda n, prefix=prefix: n.startswith(prefix), events, kernels, runtime,
                      used, cat)
    if names:
        stats = {}
        for k in kernels:
            d = ns(k["dur"])
            s = stats.setdefault(k["name"], [0, 0, d, d])
            s[0] += 1
            s[1] += d
            s[2] = min(s[2], d)
            s[3] = max(s[3], d)
        for name, (n, total, lo, hi) in sorted(stats.items(), key=lambda kv: (-kv[1][1], kv[0])):
            print("    name count %d sum %d min %d max %d %s" % (n, total, lo, hi, name[:90]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--names", action="store_true", help="per exact kernel name: count, sum, min, max ns")
    parser.add_argument("--label", action="append", default=[], help="an annotation name to count (repeatable)")
    parser.add_argument("--label-prefix", action="append", default=[],
                        help="count the annotations whose name starts with this (repeatable)")
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args()
    for path in args.traces:
        figures(path, args.label, args.label_prefix, args.names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
