#!/usr/bin/env python3
"""Independent figures of XLA-dialect traces (the JAX recordings), for tests/unit/json_trace/xla_recording_test.cc.

Reads each trace.json.gz with the standard library only (gzip + json) and classifies
its events by the process and thread names alone, as FORMAT.md's "XLA's dialect"
describes, without perfgate's code:
  python      host complete events named `$...` (the Python tracer's ranges)
  sort_index  process_sort_index and thread_sort_index metadata events
  empty       `{}` events (XLA's writer closes traceEvents with one)
  device_args complete events with an args.device that is not a non-negative integer
              (the string "0" on command_buffer TraceMe ranges: json.ignored_field)
  host_calls  other host complete events with args.correlation_id (launch calls)
  stream      complete events on the "Stream #N..." threads of "/device:GPU:K"
              processes, and those whose name does not start with Memcpy (kernels)
  other_device complete events on any other thread of a device process

Usage: python3 tests/corpus/xla_figures.py fixtures/recordings/jax_decode_h200/trial-*/trace.json.gz
"""
import gzip
import json
import re
import sys

STREAM = re.compile(r"Stream #[0-9]")


def figures(path):
    with gzip.open(path, "rb") as f:
        events = json.load(f)["traceEvents"]
    metadata = [e for e in events if e.get("ph") == "M"]
    processes = {e["pid"]: e["args"]["name"] for e in metadata if e.get("name") == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in metadata if e.get("name") == "thread_name"}
    complete = [e for e in events if e.get("ph") == "X"]
    host = [e for e in complete if processes.get(e["pid"], "").startswith("/host:")]
    device = [e for e in complete if processes.get(e["pid"], "").startswith("/device:")]
    stream = [e for e in device if processes[e["pid"]].startswith("/device:GPU:") and
              STREAM.match(threads.get((e["pid"], e["tid"]), ""))]
    python = [e for e in host if e["name"].startswith("$")]
    calls = [e for e in host if not e["name"].startswith("$") and "correlation_id" in e.get("args", {})]
    bad_device = [e for e in complete if "device" in e.get("args", {}) and
                  not (type(e["args"]["device"]) is int and e["args"]["device"] >= 0)]
    print(path)
    print("  python %d sort_index %d empty %d device_args %d host_calls %d" %
          (len(python), sum(1 for e in metadata if e.get("name") in ("process_sort_index", "thread_sort_index")),
           sum(1 for e in events if e == {}), len(bad_device), len(calls)))
    print("  stream %d stream_kernels %d other_device %d" %
          (len(stream), sum(1 for e in stream if not e["name"].startswith("Memcpy")), len(device) - len(stream)))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        figures(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
