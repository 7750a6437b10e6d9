#!/usr/bin/env python3
"""Records JAX profiler traces (XLA's trace-event dialect) of LLM decode on an NVIDIA GPU.

A small decoder-only transformer (RMSNorm, rotary attention over a static KV cache,
SwiGLU MLP) is written in plain jax.numpy with random bfloat16 weights (nothing is
downloaded). It prefills a random prompt, then decodes greedily one jitted step per
token. Each trial is one `jax.profiler.trace(..., create_perfetto_trace=True)` session
after a warm-up (compilation happens outside the trace): the prefill runs inside
`TraceAnnotation("prefill")` and each decode step inside
`StepTraceAnnotation("decode_step", step_num=i)`, and each step ends with
`block_until_ready`, so every kernel of step i runs while step i's host range is open.

Independent check: after each trial the XSpace the profiler wrote (`*.xplane.pb`) is
read through `jax.profiler.ProfileData` (JAX's own profiler data, not the perfetto JSON
perfgate reads) and the kernels on the device plane's stream lines (`Stream #...`) are
counted, in all and per decode step (a kernel belongs to the step whose host range
contains its start). Those counts go into meta.json.

Output: OUT/trial-K/trace.json.gz (the perfetto_trace.json.gz the profiler wrote),
OUT/trial-K/meta.json, OUT/trial-K/xplane_summary.json (every plane and line of the
XSpace with its event count) and OUT/environment.json.

Usage: python3 record_jax_decode.py --out DIR [--trials 3] [--tokens 64]

fixtures/recordings/jax_decode_h200 is DIR's trial-K/{trace.json.gz,meta.json} and
environment.json from `--out /tmp/jaxout` on an H200 (the .xplane.pb and
xplane_summary.json files are left out); its README gives the machine and the figures.
"""
import argparse
import glob
import json
import os
import shutil
import sys
import time
import traceback

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import recording_env  # noqa: E402  (beside this script: sys.path[0])


def environment():
    import jaxlib
    return recording_env.environment({
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "devices": [str(d) for d in jax.devices()],
        "device_kind": jax.devices()[0].device_kind,
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
    })


def init_params(args):
    key = jax.random.PRNGKey(args.seed)
    d, f, v = args.hidden, args.intermediate, args.vocab
    hd = d // args.heads
    kv = args.kv_heads * hd

    def dense(k, shape):
        return (jax.random.normal(k, shape, jnp.float32) * (shape[0] ** -0.5)).astype(jnp.bfloat16)

    keys = jax.random.split(key, 2 + 7 * args.layers)
    layers = []
    for i in range(args.layers):
        k = keys[2 + 7 * i: 9 + 7 * i]
        layers.append({
            "attn_norm": jnp.ones((d,), jnp.bfloat16),
            "wq": dense(k[0], (d, d)), "wk": dense(k[1], (d, kv)), "wv": dense(k[2], (d, kv)),
            "wo": dense(k[3], (d, d)),
            "mlp_norm": jnp.ones((d,), jnp.bfloat16),
            "w_gate": dense(k[4], (d, f)), "w_up": dense(k[5], (d, f)), "w_down": dense(k[6], (f, d)),
        })
    return {"embed": dense(keys[0], (v, d)), "layers": layers,
            "final_norm": jnp.ones((d,), jnp.bfloat16), "lm_head": dense(keys[1], (d, v))}


def rms_norm(x, w):
    x32 = x.astype(jnp.float32)
    x32 = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-6)
    return (x32 * w.astype(jnp.float32)).astype(x.dtype)


def rope(x, pos, head_dim):
    # x: [T, H, hd]; pos: [T]
    half = head_dim // 2
    freq = 1.0 / (10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
    ang = pos.astype(jnp.float32)[:, None] * freq[None, :]
    cos, sin = jnp.cos(ang)[:, None, :], jnp.sin(ang)[:, None, :]
    x1, x2 = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).astype(x.dtype)


def forward(params, cache, ids, start, cfg):
    """Runs tokens `ids` ([T]) at positions start.. start+T-1; returns logits of the last
    token and the updated cache (k, v: [L, max_len, kv_heads, hd])."""
    heads, kv_heads, max_len = cfg
    T = ids.shape[0]
    x = params["embed"][ids]
    d = x.shape[-1]
    hd = d // heads
    pos = start + jnp.arange(T)
    k_cache, v_cache = cache
    new_k, new_v = [], []
    mask = jnp.arange(max_len)[None, :] <= pos[:, None]  # [T, max_len]
    for li, layer in enumerate(params["layers"]):
        h = rms_norm(x, layer["attn_norm"])
        q = rope((h @ layer["wq"]).reshape(T, heads, hd), pos, hd)
        k = rope((h @ layer["wk"]).reshape(T, kv_heads, hd), pos, hd)
        v = (h @ layer["wv"]).reshape(T, kv_heads, hd)
        kc = jax.lax.dynamic_update_slice(k_cache[li], k, (start, 0, 0))
        vc = jax.lax.dynamic_update_slice(v_cache[li], v, (start, 0, 0))
        new_k.append(kc)
        new_v.append(vc)
        rep = heads // kv_heads
        kr = jnp.repeat(kc, rep, axis=1)  # [max_len, heads, hd]
        vr = jnp.repeat(vc, rep, axis=1)
        s = jnp.einsum("thd,shd->hts", q, kr).astype(jnp.float32) * (hd ** -0.5)
        s = jnp.where(mask[None, :, :], s, -1e30)
        p = jax.nn.softmax(s, axis=-1).astype(x.dtype)
        o = jnp.einsum("hts,shd->thd", p, vr).reshape(T, d)
        x = x + o @ layer["wo"]
        h = rms_norm(x, layer["mlp_norm"])
        x = x + (jax.nn.silu(h @ layer["w_gate"]) * (h @ layer["w_up"])) @ layer["w_down"]
    x = rms_norm(x[-1:], params["final_norm"])
    logits = (x @ params["lm_head"]).astype(jnp.float32)
    return logits[0], (jnp.stack(new_k), jnp.stack(new_v))


def make_steps(args):
    cfg = (args.heads, args.kv_heads, args.max_len)

    @jax.jit
    def prefill(params, cache, prompt):
        logits, cache = forward(params, cache, prompt, 0, cfg)
        return jnp.argmax(logits).astype(jnp.int32), cache

    @jax.jit
    def decode_step(params, cache, token, pos):
        logits, cache = forward(params, cache, token[None], pos, cfg)
        return jnp.argmax(logits).astype(jnp.int32), cache

    return prefill, decode_step


def empty_cache(args):
    hd = args.hidden // args.heads
    shape = (args.layers, args.max_len, args.kv_heads, hd)
    return (jnp.zeros(shape, jnp.bfloat16), jnp.zeros(shape, jnp.bfloat16))


def run_decode(args, params, prompt, prefill, decode_step, annotate):
    cache = empty_cache(args)
    ctx = jax.profiler.TraceAnnotation("prefill") if annotate else _null()
    with ctx:
        token, cache = prefill(params, cache, prompt)
        token.block_until_ready()
    tokens = []
    t0 = time.perf_counter()
    for i in range(args.tokens):
        pos = jnp.int32(prompt.shape[0] + i)
        ctx = jax.profiler.StepTraceAnnotation("decode_step", step_num=i) if annotate else _null()
        with ctx:
            token, cache = decode_step(params, cache, token, pos)
            token.block_until_ready()
        tokens.append(int(token))
    return tokens, time.perf_counter() - t0


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def stat_dict(obj):
    out = {}
    try:
        for name, value in obj.stats:
            out[str(name)] = value if isinstance(value, (int, float, str)) else str(value)
    except Exception as e:  # stats are optional for the count
        out["_error"] = repr(e)
    return out


def read_xspace(xplane_path, tokens):
    """Counts kernels on the device plane's stream lines, in all and per decode step,
    from the XSpace (ProfileData), and lists every plane and line."""
    from jax.profiler import ProfileData
    data = ProfileData.from_file(xplane_path)
    planes = []
    host_steps = []
    device_kernels = []  # (start_ns, end_ns, name, line)
    for plane in data.planes:
        lines = []
        for line in plane.lines:
            events = list(line.events)
            sample = [{"name": e.name, "start_ns": e.start_ns, "duration_ns": e.duration_ns,
                       "stats": stat_dict(e)} for e in events[:3]]
            lines.append({"name": line.name, "events": len(events), "sample": sample})
            if plane.name.startswith("/device:GPU") and line.name.startswith("Stream #"):
                for e in events:
                    device_kernels.append((e.start_ns, e.start_ns + e.duration_ns, e.name, line.name))
            if plane.name.startswith("/host:CPU"):
                for e in events:
                    if e.name == "decode_step":
                        host_steps.append((e.start_ns, e.start_ns + e.duration_ns))
        planes.append({"name": plane.name, "lines": lines})
    host_steps.sort()
    per_step = [0] * len(host_steps)
    outside = 0
    for start, _end, _name, _line in device_kernels:
        hit = [i for i, (a, b) in enumerate(host_steps) if a <= start <= b]
        if hit:
            per_step[hit[0]] += 1
        else:
            outside += 1
    names = {}
    for start, end, name, _line in device_kernels:
        if any(a <= start <= b for a, b in host_steps):
            n = names.setdefault(name, [0, 0])
            n[0] += 1
            n[1] += end - start
    check = {
        "method": "jax.profiler.ProfileData over the trial's .xplane.pb: events on lines named "
                  "'Stream #...' of planes named '/device:GPU...', assigned to the host "
                  "'decode_step' range (plane '/host:CPU') containing their start",
        "host_decode_steps": len(host_steps),
        "stream_kernels_total": len(device_kernels),
        "stream_kernels_in_decode_steps": sum(per_step),
        "stream_kernels_outside_decode_steps": outside,
        "kernels_per_step": per_step,
        "decode_kernel_names": {k: {"count": v[0], "gpu_ns": v[1]} for k, v in sorted(names.items())},
        "expected_tokens": tokens,
    }
    return planes, check


def record(args, env):
    params = init_params(args)
    prefill, decode_step = make_steps(args)
    prompt = jax.random.randint(jax.random.PRNGKey(args.seed + 1), (args.prompt,), 0, args.vocab, jnp.int32)
    # Warm-up: compile both steps and run a whole decode once outside any trace.
    run_decode(args, params, prompt, prefill, decode_step, annotate=False)
    results = []
    for trial in range(1, args.trials + 1):
        trial_dir = os.path.join(args.out, f"trial-{trial}")
        log_dir = os.path.join(args.scratch, f"trial-{trial}")
        os.makedirs(trial_dir, exist_ok=True)
        shutil.rmtree(log_dir, ignore_errors=True)
        with jax.profiler.trace(log_dir, create_perfetto_trace=True):
            tokens, wall = run_decode(args, params, prompt, prefill, decode_step, annotate=True)
        perfetto = glob.glob(os.path.join(log_dir, "**", "perfetto_trace.json.gz"), recursive=True)
        xplanes = glob.glob(os.path.join(log_dir, "**", "*.xplane.pb"), recursive=True)
        meta = {"trial": trial, "tokens": args.tokens, "prompt_tokens": args.prompt,
                "decode_wall_s": wall, "generated": tokens[:8],
                "files": [os.path.relpath(p, log_dir) for p in perfetto + xplanes]}
        if perfetto:
            shutil.copy(perfetto[0], os.path.join(trial_dir, "trace.json.gz"))
        if xplanes:
            try:
                planes, check = read_xspace(xplanes[0], args.tokens)
                meta["independent_count"] = check
                with open(os.path.join(trial_dir, "xplane_summary.json"), "w") as f:
                    json.dump(planes, f, indent=1, sort_keys=True, default=str)
            except Exception:
                meta["independent_count_error"] = traceback.format_exc()
            if trial == 1:
                shutil.copy(xplanes[0], os.path.join(args.out, "trial-1.xplane.pb"))
        meta["environment"] = env
        with open(os.path.join(trial_dir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
        print(f"trial {trial}: {args.tokens} tokens in {wall * 1000:.1f} ms, files {meta['files']}, "
              f"check {json.dumps({k: v for k, v in meta.get('independent_count', {}).items() if k in ('host_decode_steps', 'stream_kernels_total', 'stream_kernels_in_decode_steps', 'stream_kernels_outside_decode_steps')})}",
              flush=True)
        results.append(meta)
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--scratch", default="/tmp/jax_profiles")
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--prompt", type=int, default=16)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=2816)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--seed", type=int, default=20261201)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    env = environment()
    print(json.dumps(env), flush=True)
    results = record(args, env)
    summary = {"environment": env, "command": " ".join(sys.argv), "args": vars(args),
               "trials": [{k: v for k, v in r.items() if k != "environment"} for r in results]}
    with open(os.path.join(args.out, "environment.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True, default=str)


if __name__ == "__main__":
    main()
