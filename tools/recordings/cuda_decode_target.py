#!/usr/bin/env python3
"""One Llama decode, the command that `perfgate record --backend cuda` records.

The model, cache and decode modes are record_torch_decode.py's (random weights from a
LlamaConfig, nothing downloaded): eager, or graphs (torch.compile with
mode="reduce-overhead", CUDA graphs). After the graph mode is built and a warm-up, the
prefill runs inside the NVTX range "prefill" and each of TOKENS decode steps inside
the NVTX range "decode_step" (torch.cuda.nvtx.range_push/pop), which the CUPTI tracer
turns into host annotations that window the decode and count its tokens.

--kineto FILE records the same decode under the PyTorch profiler instead
(record_function ranges of the same names; no tracer may be injected then): the
reference the tracer is checked against.

The decode's wall time goes to stdout and, when PERFGATE_TRIAL_DIR is set (perfgate
record sets it), to PERFGATE_TRIAL_DIR/target.json.

Usage: python3 cuda_decode_target.py --mode eager|graphs [--tokens 64] [--kineto FILE]
"""
import argparse
import gzip
import json
import os
import shutil
import sys
import time

import record_torch_decode as rtd  # beside this script: sys.path[0]


def decode(args, dec, prompt, ranges):
    """Prefill and TOKENS steps, each inside ranges(name); returns the decode's seconds."""
    torch = dec.torch
    torch.cuda.synchronize()
    with ranges("prefill"):
        dec.prefill(prompt)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.tokens):
        with ranges("decode_step"):
            dec.step()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


class NvtxRange:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        import torch
        torch.cuda.nvtx.range_push(self.name)

    def __exit__(self, *exc):
        import torch
        torch.cuda.nvtx.range_pop()


def run_kineto(args, dec, prompt):
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        wall = decode(args, dec, prompt, record_function)
    raw = args.kineto[:-3] if args.kineto.endswith(".gz") else args.kineto
    prof.export_chrome_trace(raw)
    if args.kineto.endswith(".gz"):
        with open(raw, "rb") as f_in, gzip.GzipFile(args.kineto, "wb", mtime=0) as f_out:
            shutil.copyfileobj(f_in, f_out)
        os.remove(raw)
    return wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["eager", "graphs"], required=True)
    rtd.add_decode_arguments(ap)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--kineto", help="record under the PyTorch profiler into this file (.json or .json.gz)")
    args = ap.parse_args()
    if not rtd.have_cuda():
        return 3
    import torch
    model, config = rtd.build_model(args)
    prompt = torch.randint(0, config.vocab_size, (1, args.prompt), device="cuda",
                           generator=torch.Generator(device="cuda").manual_seed(args.seed))
    dec = rtd.Decoder(model, config, args.mode, args.prompt + args.tokens + 16)
    # Under the tracer the profiler cannot check the replays (one CUPTI client per
    # process); the trace shows them (cudaGraphLaunch per decode step).
    dec.prepare(prompt, verify_replays="CUDA_INJECTION64_PATH" not in os.environ)
    dec.prefill(prompt)
    for _ in range(args.warmup):
        dec.step()
    torch.cuda.synchronize()
    wall = run_kineto(args, dec, prompt) if args.kineto else decode(args, dec, prompt, NvtxRange)
    result = {"mode": args.mode, "graph_kind": dec.graph_kind, "tokens": args.tokens,
              "decode_wall_ms": round(wall * 1e3, 3), "tokens_per_s": round(args.tokens / wall, 1),
              "recorded_by": "pytorch profiler" if args.kineto else "nvtx ranges (perfgate tracer when injected)",
              "cuda_injection": os.environ.get("CUDA_INJECTION64_PATH", "")}
    print(json.dumps(result), flush=True)
    trial_dir = os.environ.get("PERFGATE_TRIAL_DIR")
    if trial_dir:
        with open(os.path.join(trial_dir, "target.json"), "w") as f:
            json.dump(result, f, indent=2, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
