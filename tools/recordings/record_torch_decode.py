#!/usr/bin/env python3
"""Records PyTorch profiler (Kineto) traces of LLM decode on an NVIDIA GPU.

A small Llama-architecture model is built from a config with random weights (nothing
is downloaded) and decodes greedily with a static KV cache in two modes:

  eager     one Python-driven forward per token: every kernel is launched on its own
  graphs    the decode step captured once and replayed: torch.compile with
            mode="reduce-overhead" (CUDA graphs), or, if that fails, a CUDA graph
            captured by hand with torch.cuda.CUDAGraph

Each trial profiles TOKENS decode steps after a warm-up; each step runs inside
record_function("decode_step") and the prefill inside record_function("prefill"), so
perfgate can window the decode and count tokens from the trace. Output, per mode and
trial: OUT/<mode>/trial-K/trace.json.gz, plus OUT/<mode>/trial-K/meta.json and
OUT/environment.json.

Usage: python3 record_torch_decode.py --out DIR [--trials 3] [--tokens 64]
"""
import argparse
import gzip
import json
import os
import shutil
import sys
import time
import traceback

import recording_env  # beside this script: sys.path[0]


def environment():
    import torch
    import transformers
    return recording_env.environment({
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cuda_runtime": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0),
        "gpu_count": torch.cuda.device_count(),
    })


def build_model(args):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(args.seed)
    config = LlamaConfig(
        vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=args.layers,
        num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=1024,
        rms_norm_eps=1e-5, tie_word_embeddings=False)
    model = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
    return model, config


def make_cache(model, config, max_len):
    import torch
    from transformers import StaticCache
    attempts = [
        dict(config=config, max_cache_len=max_len, device="cuda", dtype=torch.bfloat16),
        dict(config=config, max_batch_size=1, max_cache_len=max_len, device="cuda", dtype=torch.bfloat16),
        dict(config=config, max_cache_len=max_len),
        dict(config=config, max_batch_size=1, max_cache_len=max_len),
    ]
    last = None
    for kwargs in attempts:  # the signature changed across transformers versions
        try:
            return StaticCache(**kwargs)
        except TypeError as e:
            last = e
    raise last


def count_launches(trace_path):
    """Kernel events and CUDA launch calls in an exported trace."""
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    counts = {"kernels": 0, "cudaLaunchKernel": 0, "cudaGraphLaunch": 0}
    for e in events:
        if e.get("cat") == "kernel":
            counts["kernels"] += 1
        name = e.get("name", "")
        if name in ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx"):
            counts["cudaLaunchKernel"] += 1
        if name in ("cudaGraphLaunch", "cuGraphLaunch"):
            counts["cudaGraphLaunch"] += 1
    return counts


class Decoder:
    """Greedy decode with a static cache; `step` is eager, compiled or a CUDA graph."""

    def __init__(self, model, config, mode, max_len):
        import torch
        self.torch = torch
        self.model = model
        self.config = config
        self.mode = mode
        self.max_len = max_len
        self.cache = make_cache(model, config, max_len)
        self.ids = torch.zeros((1, 1), dtype=torch.long, device="cuda")
        self.pos = torch.zeros((1,), dtype=torch.long, device="cuda")
        self.graph = None
        self.graph_kind = "none"
        self.compiled = None

    def _forward(self, ids, pos):
        out = self.model(input_ids=ids, past_key_values=self.cache, cache_position=pos, use_cache=True)
        return out.logits[:, -1, :].argmax(dim=-1, keepdim=True)

    def prefill(self, prompt):
        torch = self.torch
        self.cache.reset()
        pos = torch.arange(prompt.shape[1], device="cuda")
        with torch.no_grad():
            nxt = self._forward(prompt, pos)
        self.ids.copy_(nxt)
        self.pos.fill_(prompt.shape[1])
        return prompt.shape[1]

    def prepare(self, prompt, verify_replays=True):
        """Builds the graph mode once (compile or capture), outside any profile.

        verify_replays: check under the PyTorch profiler that torch.compile replays CUDA
        graphs, and capture one by hand if it does not. Off where another CUPTI client
        (perfgate's tracer) holds CUPTI: the profiler then sees nothing."""
        torch = self.torch
        if self.mode != "graphs":
            return
        try:
            self.compiled = torch.compile(self._forward, mode="reduce-overhead", fullgraph=True)
            for _ in range(2):
                self.prefill(prompt)
                for _ in range(4):
                    with torch.no_grad():
                        nxt = self.compiled(self.ids, self.pos)
                    self.ids.copy_(nxt)
                    self.pos += 1
            torch.cuda.synchronize()
            if not verify_replays:
                self.graph_kind = "torch.compile(mode='reduce-overhead'), replays not verified here"
                return
            # reduce-overhead may silently skip CUDA graphs; check that replays happen.
            from torch.profiler import ProfilerActivity, profile
            probe = "/tmp/perfgate-graph-probe.json"
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(2):
                    self.step()
                torch.cuda.synchronize()
            prof.export_chrome_trace(probe)
            if count_launches(probe)["cudaGraphLaunch"] > 0:
                self.graph_kind = "torch.compile(mode='reduce-overhead')"
                return
            print("torch.compile ran without CUDA graph replays; capturing by hand", file=sys.stderr)
        except Exception:
            traceback.print_exc()
            print("torch.compile failed; capturing a CUDA graph by hand", file=sys.stderr)
        self.compiled = None
        self.prefill(prompt)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.no_grad():
            for _ in range(3):
                self.out = self._forward(self.ids, self.pos)
        torch.cuda.current_stream().wait_stream(s)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.out = self._forward(self.ids, self.pos)
        self.graph_kind = "torch.cuda.CUDAGraph (manual capture)"

    def step(self):
        torch = self.torch
        with torch.no_grad():
            if self.mode == "graphs" and self.compiled is not None:
                nxt = self.compiled(self.ids, self.pos)
            elif self.mode == "graphs":
                self.graph.replay()
                nxt = self.out
            else:
                nxt = self._forward(self.ids, self.pos)
        self.ids.copy_(nxt)
        self.pos += 1


def record(args, mode, model, config, env):
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
    prompt = torch.randint(0, config.vocab_size, (1, args.prompt), device="cuda",
                           generator=torch.Generator(device="cuda").manual_seed(args.seed))
    dec = Decoder(model, config, mode, args.prompt + args.tokens + 16)
    dec.prepare(prompt)
    # Warm-up decode outside the profile.
    dec.prefill(prompt)
    for _ in range(8):
        dec.step()
    torch.cuda.synchronize()
    results = []
    for trial in range(1, args.trials + 1):
        trial_dir = os.path.join(args.out, mode, f"trial-{trial}")
        os.makedirs(trial_dir, exist_ok=True)
        raw = os.path.join(trial_dir, "trace.json")
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with record_function("prefill"):
                dec.prefill(prompt)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.tokens):
                with record_function("decode_step"):
                    dec.step()
            torch.cuda.synchronize()
            wall = time.perf_counter() - t0
        prof.export_chrome_trace(raw)
        launches = count_launches(raw)
        with open(raw, "rb") as f_in, gzip.GzipFile(raw + ".gz", "wb", mtime=0) as f_out:
            shutil.copyfileobj(f_in, f_out)
        os.remove(raw)
        meta = {
            "engine": f"torch-{mode}", "mode": mode, "graph_kind": dec.graph_kind, "trial": trial,
            "tokens": args.tokens, "prompt_tokens": args.prompt, "layers": args.layers,
            "decode_wall_ms": round(wall * 1e3, 3), "launch_counts": launches, "tokens_per_s": round(args.tokens / wall, 1),
            "seed": args.seed, "model": "LlamaForCausalLM from LlamaConfig, random weights, bfloat16",
            "environment": env,
        }
        with open(os.path.join(trial_dir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
            f.write("\n")
        results.append(meta)
        print(f"{mode} trial {trial}: {args.tokens} tokens in {wall * 1e3:.1f} ms "
              f"({args.tokens / wall:.0f} tok/s), {dec.graph_kind}, {launches}", flush=True)
    return results


def add_decode_arguments(ap):
    """The decode's own flags, shared with cuda_decode_target.py."""
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--prompt", type=int, default=16)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=20261130)


def have_cuda():
    import torch
    if torch.cuda.is_available():
        return True
    print("no CUDA device", file=sys.stderr)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=3)
    add_decode_arguments(ap)
    ap.add_argument("--modes", default="eager,graphs")
    args = ap.parse_args()
    if not have_cuda():
        return 3
    os.makedirs(args.out, exist_ok=True)
    env = environment()
    print(json.dumps(env, indent=2), flush=True)
    model, config = build_model(args)
    summary = {"environment": env, "command": " ".join(sys.argv), "modes": {}}
    status = 0
    for mode in args.modes.split(","):
        try:
            summary["modes"][mode] = record(args, mode, model, config, env)
        except Exception:
            traceback.print_exc()
            summary["modes"][mode] = {"error": traceback.format_exc()}
            status = 1
    with open(os.path.join(args.out, "environment.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
