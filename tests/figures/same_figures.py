#!/usr/bin/env python3
"""Same figures: two perfgate binaries' JSON reports compared field by field.

Runs every case below with both binaries, `--format json` to standard output, from the
repository root with relative paths, and compares the two JSON documents field by
field: numbers exactly (an integer and a double are different; NaN and infinities are
null in perfgate's JSON), strings, missing and extra keys, key order, array lengths.
The exit statuses are compared too (and each must be the case's expected one), and
standard error wherever either run fails. A change of what `perfgate attribute`,
`diff`, `kernel-report`, `toks-ratio` or `history` computes shows here as one line
per field:

  CASE /json/pointer: before X, after Y (relative difference R)

then `N cases, M identical, K differ, S skipped`. The cases cover every subcommand on
every bundled recording it applies to, and every file of the shared corpus
(PERFGATE_CORPUS_DIR, default ../shared/corpus beside the repository root): each
trace file under `attribute` (and `diff` where two of a kind exist), the per-kernel
reports under `kernel-report` and `diff`, the policy under `toks-ratio`, the counter
history under `history`. Files no subcommand reads are run as the refusals they are
(exit 2, standard error compared). A corpus file that no case names fails the run,
so that a new one gets a case.

  same_figures.py --before OLD/perfgate --after NEW/perfgate [--corpus DIR] [--only CASE]...
  same_figures.py --list             the case names
  same_figures.py --self-test        the check fails where it must

Exit 0 when every case gives the same figures, 1 when any differs (or a corpus file is
in no case), 2 on a usage error (a binary missing, an unknown case). A case whose
corpus file is missing is skipped and counted as skipped; under CI (CI or another CI
variable set, as perfgate reads them) a missing corpus fails instead. `--skipped-status
77` makes a run with skipped cases and no difference exit 77 (CTest: skipped).
How to use it before and after a change: docs/development.md.
"""
import argparse
import concurrent.futures
import fnmatch
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_schema  # noqa: E402  (beside this script)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------------------- cases
R = "fixtures/recordings"
METAL_HEAD = "output_head.fused_norm_lm_argmax"
METAL_PAIR = ["--trace", f"hf2q={R}/decode_q4_0/hf2q", "--trace", f"llama={R}/decode_q4_0/llama",
              "--baseline", "llama", "--tokens", f"hf2q=auto:{METAL_HEAD}", "--window", f"hf2q=label:{METAL_HEAD}",
              "--tokens", "llama=64", "--window", "llama=skip:6"]
METAL_ONE = ["--tokens", f"auto:{METAL_HEAD}", "--window", f"label:{METAL_HEAD}"]
DECODE_STEP = ["--tokens", "auto:decode_step", "--window", "label:decode_step"]
TOKS = "fixtures/toks/hf2q"
COUNTERS = "fixtures/counters/decode_q4_0/hf2q"
C = "{corpus}"  # replaced by the corpus directory, relative to the root
K = f"{C}/kineto"
H100 = f"{C}/nsys/h100_2gpu_1s.sqlite"
ATEN_MM = ["--tokens", "auto:aten::mm", "--window", "label:aten::mm"]
SGLANG = f"{K}/tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz"
VLLM = f"{K}/tracelens/inference_vllm_decode_full_graph_execution.json.gz"
CANDLE = f"{C}/hf2q/phase0-candle-perkernel.json"
GGML = f"{C}/hf2q/phase0-ggml-perkernel.json"
HISTORY_COUNTERS = ("median_tok_per_sec,p95_tok_per_sec,dispatches_per_token,norm_dispatches_per_token,"
                    "moe_dispatches_per_layer,total_dispatches,model,hardware")

# name: (arguments without --format json, the exit status both runs must have)
CASES = {
    # attribute on the bundled recordings: the approval cases, and the options that
    # take another path through attribution (seed-compat, every process, counters).
    "attribute.metal_hf2q_vs_llama": (["attribute", *METAL_PAIR], 0),
    # The seed's method: the whole trace over a given token count (no auto count).
    "attribute.metal_hf2q_vs_llama_seed_compat": (
        ["attribute", "--trace", f"hf2q={R}/decode_q4_0/hf2q", "--trace", f"llama={R}/decode_q4_0/llama",
         "--baseline", "llama", "--tokens", "64", "--seed-compat"], 0),
    "attribute.metal_hf2q_all_processes": (
        ["attribute", "--trace", f"hf2q={R}/decode_q4_0/hf2q", *METAL_ONE, "--all-processes"], 0),
    "attribute.metal_regressed": (["attribute", "--trace", f"hf2q={R}/decode_q4_0_regressed/hf2q", *METAL_ONE], 0),
    "attribute.metal_trial_with_counters": (
        ["attribute", "--trace", f"hf2q={R}/decode_q4_0/hf2q/trial-1", *METAL_ONE,
         "--counters", f"hf2q={COUNTERS}/trial-1/counters.txt"], 0),
    "attribute.torch_h200_graphs_vs_eager": (
        ["attribute", "--trace", f"graphs={R}/torch_decode_h200/graphs", "--trace",
         f"eager={R}/torch_decode_h200/eager", "--baseline", "eager", *DECODE_STEP], 0),
    "attribute.cupti_h200_graphs_vs_eager": (
        ["attribute", "--trace", f"graphs={R}/cuda_decode_h200/graphs", "--trace",
         f"eager={R}/cuda_decode_h200/eager", "--baseline", "eager", *DECODE_STEP, "--all-processes"], 0),
    "attribute.cupti_kineto_h200_graphs_vs_eager": (
        ["attribute", "--trace", f"graphs={R}/cuda_decode_h200_kineto/graphs", "--trace",
         f"eager={R}/cuda_decode_h200_kineto/eager", "--baseline", "eager", *DECODE_STEP, "--all-processes"], 0),
    # The CUPTI tracer's trial against the Kineto trace of the same session (one trial
    # each: the recordings are the bundle's largest, and the cases above read them whole).
    "attribute.cupti_vs_its_kineto_reference": (
        ["attribute", "--trace", f"cupti={R}/cuda_decode_h200/eager/trial-1", "--trace",
         f"kineto={R}/cuda_decode_h200_kineto/eager", "--baseline", "kineto", *DECODE_STEP, "--all-processes"], 0),
    "attribute.jax_h200": (["attribute", "--trace", f"jax_decode_h200={R}/jax_decode_h200", *DECODE_STEP], 0),
    # diff on the bundled recordings.
    "diff.metal_regressed": (
        ["diff", f"{R}/decode_q4_0/hf2q", f"{R}/decode_q4_0_regressed/hf2q", *METAL_ONE], 0),
    "diff.metal_fail_on": (
        ["diff", f"{R}/decode_q4_0/llama", f"{R}/decode_q4_0/hf2q", "--tokens", "64", "--window", "skip:6",
         "--fail-on", "1"], 1),
    # One trial a side, for time (attribute.torch_h200_graphs_vs_eager's movers are the
    # diff of the whole recordings).
    "diff.torch_eager_vs_graphs_trial_1": (
        ["diff", f"{R}/torch_decode_h200/eager/trial-1", f"{R}/torch_decode_h200/graphs/trial-1", *DECODE_STEP], 0),
    "diff.cupti_eager_vs_graphs": (["diff", f"{R}/cuda_decode_h200/eager", f"{R}/cuda_decode_h200/graphs",
                                    *DECODE_STEP, "--all-processes"], 0),
    "diff.cupti_kineto_eager_vs_graphs": (
        ["diff", f"{R}/cuda_decode_h200_kineto/eager", f"{R}/cuda_decode_h200_kineto/graphs", *DECODE_STEP,
         "--all-processes"], 0),
    "diff.kineto_reference_vs_cupti": (
        ["diff", f"{R}/cuda_decode_h200_kineto/eager", f"{R}/cuda_decode_h200/eager/trial-1", "--names", "kineto,cupti",
         *DECODE_STEP, "--all-processes"], 0),
    "diff.jax_trial_1_vs_3": (["diff", f"{R}/jax_decode_h200/trial-1", f"{R}/jax_decode_h200/trial-3",
                               *DECODE_STEP], 0),
    # toks-ratio on the bundled reports, one cell at a time (every cell, both llama-bench
    # forms), and a pp test.
    **{f"toks_ratio.{cell}": (
        ["toks-ratio", "--engine", f"{TOKS}/{cell}/engine.json", "--baseline", f"{TOKS}/{cell}/{bench}",
         "--floor", "1.0", "--tolerance-pp", "1"], status)
       for cell, bench, status in [("gemma-26B-dwq", "llama-bench.jsonl", 0),
                                   ("qwen3.6-27b-dwq46", "llama-bench.json", 0),
                                   ("qwen3.6-27b-dwq48", "llama-bench.jsonl", 0),
                                   ("qwen3.6-35b-a3b-apex", "llama-bench.jsonl", 0),
                                   ("qwen3.6-35b-a3b-dwq46", "llama-bench.json", 1),
                                   ("qwen3.6-35b-a3b-dwq48", "llama-bench.json", 0)]},
    # pp512: only the llama-bench reports hold it (the engine reports are tg only), so
    # one llama-bench form against the other (two models: toks.model_mismatch too).
    "toks_ratio.pp512_jsonl_vs_json": (
        ["toks-ratio", "--engine", f"{TOKS}/gemma-26B-dwq/llama-bench.jsonl", "--baseline",
         f"{TOKS}/qwen3.6-27b-dwq46/llama-bench.json", "--floor", "1.0", "--test", "pp512"], 0),
    # history on the bundled counter reports (one report each).
    **{f"history.counters_trial_{k}": (["history", f"{COUNTERS}/trial-{k}/counters.txt"], 0) for k in (1, 2, 3)},
    "history.counters_trial_1_chosen": (["history", f"{COUNTERS}/trial-1/counters.txt", "--counters",
                                         "dispatches_per_token,norm_dispatches_per_token,moe_dispatches_per_layer,"
                                         "total_sampler_sync,median_tok_per_sec"], 0),
    # --- the shared corpus ---
    # attribute on every Kineto trace, the whole trace as one token; the decode traces
    # also over their decode-step annotations.
    **{f"attribute.corpus.{re.sub(r'[^A-Za-z0-9]+', '_', f.split('/')[1].split('.json')[0])[:48]}": (
        ["attribute", "--trace", f"trace={K}/{f}", "--tokens", "1"], status)
       for f, status in [
           ("hta/alexnet_benchmark_result_2869224_1695835535_trace.json.gz", 0),
           ("hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0),
           ("hta/cuda_event_sync_event_sync_trace.json.gz", 0),
           ("hta/cuda_event_sync_multi_stream_event_sync_trace.json.gz", 0),
           ("hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz", 2),  # no kernel events
           ("hta/execution_trace_benchmark_simple_add_trace.json.gz", 0),
           ("hta/ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 0),
           ("hta/trace_diff_control_control.json.gz", 0),
           ("hta/trace_diff_test_test.json.gz", 0),
           ("hta/triton_example_triton_example.json.gz", 0),
           ("tracelens/b200_eager_trace.json.gz", 0),
           ("tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz", 0),
           ("tracelens/inference_vllm_decode_full_graph_execution.json.gz", 0),
           ("tracelens/torch_compile_triton_trace.json.gz", 0)]},
    "attribute.corpus.sglang_decode_steps": (
        ["attribute", "--trace", f"sglang={SGLANG}", "--tokens", "auto-prefix:step[DECODE",
         "--window", "label-prefix:step[DECODE"], 0),
    "attribute.corpus.vllm_execute_steps": (
        ["attribute", "--trace", f"vllm={VLLM}", "--tokens", "auto-prefix:execute_", "--window",
         "label-prefix:execute_"], 0),
    "attribute.corpus.sglang_vs_vllm": (
        ["attribute", "--trace", f"sglang={SGLANG}", "--trace", f"vllm={VLLM}", "--baseline", "vllm",
         "--tokens", "1"], 0),
    # Nsight Systems exports: the 2-GPU one per device (as suites/nsys_h100), and
    # without a device (refused: several devices).
    "attribute.corpus.nsys_mock": (["attribute", "--trace", f"mock={C}/nsys/mock.sqlite", "--tokens", "1"], 0),
    "attribute.corpus.nsys_h100_gpu1_vs_gpu0": (
        ["attribute", "--trace", f"gpu0={H100}", "--trace", f"gpu1={H100}", "--device", "gpu0=0", "--device",
         "gpu1=1", "--baseline", "gpu0", *ATEN_MM], 0),
    "attribute.corpus.nsys_h100_whole_gpu1": (
        ["attribute", "--trace", f"gpu1={H100}", "--device", "1", "--tokens", "1"], 0),
    "attribute.corpus.nsys_h100_no_device": (["attribute", "--trace", f"h100={H100}", "--tokens", "1"], 2),
    # xctrace exports: the one execution-points export (every process: it has no
    # submission map), and every other file refused as it is (no execution points, a TOC,
    # not a trace).
    "attribute.corpus.xctrace_jsama_execution_points": (
        ["attribute", "--trace",
         f"solo={C}/xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml",
         "--all-processes", "--tokens", "1"], 0),
    "attribute.corpus.xctrace_jsama_needs_submission_map": (
        ["attribute", "--trace",
         f"solo={C}/xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml",
         "--tokens", "1"], 2),
    **{f"attribute.corpus.xctrace_refused_{re.sub(r'[^A-Za-z0-9]+', '_', f.split('/')[-1].rsplit('.', 1)[0])}": (
        ["attribute", "--trace", f"x={C}/xctrace/{f}", "--tokens", "1"], 2)
       for f in ["JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml",
                 "probe-cli/fixture-metal-system-trace.toc.xml",
                 "probe-cli/fixture-system-trace.toc.xml",
                 "probe-cli/fixture-time-profiler.toc.xml",
                 "probe-cli/metal-system-trace.metal-gpu-intervals.xml",
                 "probe-cli/schema-spike-results.json",
                 "xctrace-query-mcp-server/display-surface-swap.xml",
                 "xctrace-query-mcp-server/display-vsyncs-interval.xml",
                 "xctrace-query-mcp-server/displayed-surfaces-interval.xml",
                 "xctraceprof/cpu-profile.xml",
                 "xctraceprof/time-prof-toc.xml",
                 "xctraceprof/time-profile.xml"]},
    # diff of corpus traces of one kind.
    "diff.corpus.hta_trace_diff_control_vs_test": (
        ["diff", f"{K}/hta/trace_diff_control_control.json.gz", f"{K}/hta/trace_diff_test_test.json.gz",
         "--tokens", "1"], 0),
    "diff.corpus.event_sync_vs_multi_stream": (
        ["diff", f"{K}/hta/cuda_event_sync_event_sync_trace.json.gz",
         f"{K}/hta/cuda_event_sync_multi_stream_event_sync_trace.json.gz", "--tokens", "1"], 0),
    "diff.corpus.triton_example_vs_torch_compile": (
        ["diff", f"{K}/hta/triton_example_triton_example.json.gz", f"{K}/tracelens/torch_compile_triton_trace.json.gz",
         "--tokens", "1"], 0),
    "diff.corpus.sglang_vs_vllm_decode": (["diff", SGLANG, VLLM, "--tokens", "1"], 0),
    "diff.corpus.nsys_h100_gpu0_vs_gpu1": (
        ["diff", H100, H100, "--names", "gpu0,gpu1", "--device", "gpu0=0", "--device", "gpu1=1", *ATEN_MM], 0),
    "diff.corpus.nsys_mock_vs_h100_gpu0": (
        ["diff", f"{C}/nsys/mock.sqlite", H100, "--device", "h100_2gpu_1s.sqlite=0", "--tokens", "1"], 0),
    "diff.corpus.perkernel_ggml_vs_candle": (["diff", GGML, CANDLE], 0),
    "diff.corpus.perkernel_candle_vs_ggml": (["diff", CANDLE, GGML], 0),
    # kernel-report on the per-kernel reports, alone and against each other.
    "kernel_report.corpus.candle": (["kernel-report", CANDLE], 0),
    "kernel_report.corpus.ggml": (["kernel-report", GGML], 0),
    "kernel_report.corpus.candle_vs_ggml": (["kernel-report", CANDLE, "--baseline", GGML], 0),
    "kernel_report.corpus.ggml_vs_candle": (["kernel-report", GGML, "--baseline", CANDLE], 0),
    # toks-ratio: hf2q's own policy over the bundled reports.
    "toks_ratio.corpus.hf2q_policy": (["toks-ratio", "--policy", f"{C}/hf2q/perf_baseline.json", "--reports", TOKS], 0),
    "toks_ratio.corpus.hf2q_policy_tg256": (
        ["toks-ratio", "--policy", f"{C}/hf2q/perf_baseline.json", "--reports", TOKS, "--test", "tg256"], 0),
    # history: hf2q's counter-report history.
    "history.corpus.hf2q_metrics_baseline": (["history", f"{C}/hf2q/metrics_baseline.txt"], 0),
    "history.corpus.hf2q_metrics_baseline_chosen": (
        ["history", f"{C}/hf2q/metrics_baseline.txt", "--counters", HISTORY_COUNTERS], 0),
    # Google Benchmark JSON: no report subcommand reads it (hf2q_decode's benchmark
    # writes it for compare.py); each refuses it, the same way before and after.
    "kernel_report.corpus.gbench_refused": (["kernel-report", f"{C}/gbench/test1_run1.json"], 2),
    "toks_ratio.corpus.gbench_refused": (
        ["toks-ratio", "--engine", f"{C}/gbench/test1_run1.json", "--baseline", f"{C}/gbench/test1_run2.json",
         "--floor", "1"], 2),
    "diff.corpus.gbench_refused": (["diff", f"{C}/gbench/test1_run1.json", f"{C}/gbench/test1_run2.json"], 2),
}

# Corpus files that no case names, and why (every other file must be in a case).
NOT_IN_A_CASE = {
    "README.md": "the corpus's own description",
    "gbench/*": "Google Benchmark JSON, which no report subcommand reads: test1_run1/run2 stand for them all "
                "in the *.gbench_refused cases",
}

# Fields that differ between two binaries whatever they compute, replaced by
# "<normalised>" in both documents before the comparison. Pointers, as regexes.
NORMALISED = [
    # perfgate's own version and the commit it was built from (`perfgate --version`):
    # the report of every subcommand that writes them, and the diff inside an
    # attribution's `movers`. A report's own `commit` (a per-kernel report's
    # metadata) is data, and compared.
    (re.compile(r"^(/movers)?/perfgate/(version|commit)$"), "the binary's version and build commit"),
]


def path_placeholders(root, corpus):
    """Where the repository and the corpus are (as given, and with symlinks resolved),
    written <root>/ and <corpus>/ in the documents and standard error: where a binary
    makes a path absolute, one may resolve symlinks where the other does not, and the
    checkout's location is no figure. A path one writes relative and the other absolute
    still differs. Longest first, so that a corpus inside the root stays <corpus>."""
    pairs = {}
    for path, placeholder in ((root, "<root>/"), (corpus, "<corpus>/")):
        for form in (os.path.realpath(path), os.path.abspath(path)):
            pairs[form.rstrip("/") + "/"] = placeholder
    return sorted(pairs.items(), key=lambda p: -len(p[0]))


CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE")
MISSING = object()


def under_ci():
    """As perfgate reads it (core/environment.cc): set, and not "", "0" or "false"."""
    return any(os.environ.get(v, "").lower() not in ("", "0", "false") for v in CI_VARIABLES)


def corpus_files(args):
    """The corpus files (relative to the corpus) a case's arguments name."""
    found = []
    for a in args:
        for m in re.finditer(r"\{corpus\}/([^,=\s]+)", a):
            found.append(m.group(1))
    return found


# ---------------------------------------------------------------------- comparison
def pointer_token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def shown(value, limit=120):
    if value is MISSING:
        return "(missing)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "double"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def relative_difference(a, b):
    if a == 0:
        return "inf" if b != 0 else "0"
    return f"{(b - a) / abs(a):+.3g}"


def compare(before, after, ptr="", out=None):
    """Every difference between two JSON values, as (pointer, text) in document order."""
    out = [] if out is None else out
    ka, kb = kind(before), kind(after)
    if ka != kb:
        out.append((ptr, f"before {shown(before)}, after {shown(after)} ({ka} vs {kb})"))
    elif ka == "object":
        for key in before:
            if key not in after:
                out.append((f"{ptr}/{pointer_token(key)}", f"before {shown(before[key])}, after (missing)"))
            else:
                compare(before[key], after[key], f"{ptr}/{pointer_token(key)}", out)
        for key in after:
            if key not in before:
                out.append((f"{ptr}/{pointer_token(key)}", f"before (missing), after {shown(after[key])}"))
        common_a = [k for k in before if k in after]
        common_b = [k for k in after if k in before]
        if common_a != common_b:
            out.append((ptr or "/", f"key order: before {shown(common_a)}, after {shown(common_b)}"))
    elif ka == "array":
        for i, (x, y) in enumerate(zip(before, after)):
            compare(x, y, f"{ptr}/{i}", out)
        if len(before) != len(after):
            extra = before[len(after):] if len(before) > len(after) else after[len(before):]
            side = "before" if len(before) > len(after) else "after"
            out.append((ptr or "/", f"array length: before {len(before)}, after {len(after)} "
                                    f"(only {side}: {shown(extra)})"))
    elif ka in ("integer", "double"):
        # Exact: perfgate writes every double as the shortest text that reads back as
        # it, so equal doubles are equal texts and 1 ulp is a difference.
        if before != after or (ka == "double" and math.copysign(1, before) != math.copysign(1, after)):
            out.append((ptr, f"before {before!r}, after {after!r} (relative difference "
                             f"{relative_difference(before, after)})"))
    elif before != after:
        out.append((ptr, f"before {shown(before)}, after {shown(after)}"))
    return out


def normalise(value, paths, ptr=""):
    """The document with NORMALISED fields replaced and the root's and corpus's paths
    written as placeholders."""
    if any(rx.search(ptr) for rx, _ in NORMALISED):
        return "<normalised>"
    if isinstance(value, dict):
        return {k: normalise(v, paths, f"{ptr}/{pointer_token(k)}") for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, paths, f"{ptr}/{i}") for i, v in enumerate(value)]
    if isinstance(value, str):
        return normalise_text(value, paths)
    return value


def normalise_text(text, paths):
    for path, placeholder in paths:
        text = text.replace(path, placeholder)
    return text


def parse(text):
    """A JSON document with its key order kept and no duplicate key lost."""
    def pairs(items):
        d = {}
        for k, v in items:
            if k in d:
                raise ValueError(f"duplicate key {k!r}")
            d[k] = v
        return d
    return json.loads(text, object_pairs_hook=pairs)


# ---------------------------------------------------------------------------- runs
def run_one(binary, args, root):
    env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
    try:
        done = subprocess.run([binary, *args, "--format", "json"], cwd=root, env=env, capture_output=True,
                              timeout=600)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out after 600 s"
    return done.returncode, done.stdout, done.stderr


def check_case(name, before_bin, after_bin, root, corpus):
    """(status, lines): status "identical", "differ" or "skipped"."""
    args, expected = CASES[name]
    needed = corpus_files(args)
    if needed:
        missing = [f for f in needed if not os.path.isfile(os.path.join(corpus, f))]
        if missing:
            why = f"the corpus has no {missing[0]} (corpus: {corpus}; --corpus or PERFGATE_CORPUS_DIR)"
            if under_ci():
                return "differ", [f"{name}: error: {why}, and under CI a missing corpus fails"]
            return "skipped", [f"{name}: skipped: {why}"]
        rel = os.path.relpath(corpus, root)
        args = [a.replace("{corpus}", rel) for a in args]
    paths = path_placeholders(root, corpus)
    runs = [run_one(b, args, root) for b in (before_bin, after_bin)]
    (rc_a, out_a, err_a), (rc_b, out_b, err_b) = runs
    lines = []
    if rc_a != rc_b:
        lines.append(f"{name} exit status: before {rc_a}, after {rc_b}")
    if rc_a != expected or rc_b != expected:
        lines.append(f"{name} exit status: expected {expected}, before {rc_a}, after {rc_b}")
    if rc_a != 0 or rc_b != 0:
        ea = normalise_text(err_a.decode("utf-8", "replace"), paths).splitlines()
        eb = normalise_text(err_b.decode("utf-8", "replace"), paths).splitlines()
        if ea != eb:
            i = next((i for i, (x, y) in enumerate(zip(ea, eb)) if x != y), min(len(ea), len(eb)))
            lines.append(f"{name} stderr line {i + 1}: before {shown(ea[i] if i < len(ea) else MISSING)}, "
                         f"after {shown(eb[i] if i < len(eb) else MISSING)}")
    docs = []
    for side, out in (("before", out_a), ("after", out_b)):
        if not out.strip():
            docs.append(MISSING)
            continue
        try:
            docs.append(normalise(parse(out.decode("utf-8")), paths))
        except ValueError as e:
            docs.append(MISSING)
            lines.append(f"{name} stdout: {side} is not JSON ({e})")
    if docs[0] is MISSING and docs[1] is not MISSING:
        lines.append(f"{name} stdout: before wrote no JSON, after {shown(docs[1], 60)}")
    elif docs[1] is MISSING and docs[0] is not MISSING:
        lines.append(f"{name} stdout: before {shown(docs[0], 60)}, after wrote no JSON")
    elif docs[0] is not MISSING:
        try:
            before, after = report_schema.comparable(docs[0], docs[1])
        except report_schema.SchemaError as e:
            return "differ", lines + [f"{name} schema 5 to 6: {e}"]
        lines += [f"{name} {ptr or '/'}: {text}" for ptr, text in compare(before, after)]
    return ("differ" if lines else "identical"), lines


def uncovered_corpus_files(corpus):
    named = {f for args, _ in CASES.values() for f in corpus_files(args)}
    left = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames.sort()
        for fn in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, fn), corpus)
            if rel not in named and not any(fnmatch.fnmatch(rel, p) for p in NOT_IN_A_CASE):
                left.append(rel)
    return left


def select(patterns):
    """The cases matching any pattern, and the patterns that match none."""
    chosen = [n for n in CASES if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in CASES)]
    return chosen, unknown


def run(a):
    for side, binary in (("--before", a.before), ("--after", a.after)):
        if not binary:
            print(f"same_figures: error: {side} BIN is required")
            return 2
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            print(f"same_figures: error: {side} {binary}: no such executable")
            return 2
    root = os.path.abspath(a.root)
    corpus = a.corpus or os.environ.get("PERFGATE_CORPUS_DIR") or os.path.join(root, "..", "shared", "corpus")
    corpus = os.path.abspath(corpus)
    if a.only:
        names, unknown = select(a.only)
        if unknown:
            print(f"same_figures: error: no case matches {', '.join(unknown)} (--list lists them)")
            return 2
    else:
        names = list(CASES)
    before, after = os.path.abspath(a.before), os.path.abspath(a.after)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda n: check_case(n, before, after, root, corpus), names))
    counts = {"identical": 0, "differ": 0, "skipped": 0}
    for name, (status, lines) in zip(names, results):
        counts[status] += 1
        limit = a.max_per_case
        for line in lines if not limit else lines[:limit]:
            print(line)
        if limit and len(lines) > limit:
            print(f"{name}: … {len(lines) - limit} more differences (--max-per-case 0 shows all)")
    uncovered = uncovered_corpus_files(corpus) if not a.only and os.path.isdir(corpus) else []
    for rel in uncovered:
        print(f"corpus file in no case: {rel} (add a case to tests/figures/same_figures.py, or a reason to "
              f"NOT_IN_A_CASE)")
    skipped = f", {counts['skipped']} skipped" if counts["skipped"] else ""
    print(f"{len(names)} cases, {counts['identical']} identical, {counts['differ']} differ{skipped}")
    if counts["differ"] or uncovered:
        return 1
    return a.skipped_status if counts["skipped"] else 0


# ------------------------------------------------------------------------ self-test
SELF_TEST_DOC = {
    "buckets": {"xs_<2us": {"lo_ns": 0, "hi_ns": 2000}, "sm_2_8us": {"lo_ns": 2000, "hi_ns": 8000}},
    "engines": {"hf2q": {"median_gpu_us_per_token": 9718.123456789, "gpu_us_per_token_per_trial": [9701.5, 9718.25,
                                                                                                    9730.0],
                         "kernel_names": {"a/b~c": {"family": "moe_mv", "count": 3}}, "n_trials": 3}},
    "movers": {"perfgate": {"commit": "0" * 40, "version": "0.2.0"}, "total": {"delta_pct": 0.30000000000000004}},
    "perfgate": {"commit": "0" * 40, "version": "0.2.0"},
    "engine": {"metadata": {"commit": "ba5f446a"}},
    "schema_version": 5,
}


def self_test():
    """Runs the script on stand-in binaries that print a document (and exit as told),
    and checks that each change is reported at its pointer with exit 1, that the
    normalised fields are not, and that a missing binary is a usage error."""
    import copy
    import tempfile
    case = "history.counters_trial_1"  # any case: the stand-ins ignore their arguments

    def mutated(change):
        d = copy.deepcopy(SELF_TEST_DOC)
        change(d)
        return d

    def ulp(d):
        e = d["engines"]["hf2q"]
        e["median_gpu_us_per_token"] = math.nextafter(e["median_gpu_us_per_token"], math.inf)

    def drop(d):
        del d["engines"]["hf2q"]["n_trials"]

    def append(d):
        d["engines"]["hf2q"]["gpu_us_per_token_per_trial"].append(9740.0)

    def as_double(d):
        d["schema_version"] = 5.0

    def rename_family(d):
        d["engines"]["hf2q"]["kernel_names"]["a/b~c"]["family"] = "dense_mv"

    def reorder(d):
        d["buckets"] = dict(reversed(list(d["buckets"].items())))

    def new_build(d):
        for p in (d["perfgate"], d["movers"]["perfgate"]):
            p.update(commit="f" * 40, version="0.3.0")

    def their_commit(d):
        d["engine"]["metadata"]["commit"] = "0000000"

    ptr = f"{case} /engines/hf2q"
    scenarios = [
        # (what, after document, after's exit status and stderr, expected exit, expected lines)
        ("the same document", SELF_TEST_DOC, 0, "", 0, ["1 cases, 1 identical, 0 differ"]),
        ("another build's version and commit", mutated(new_build), 0, "", 0, ["1 cases, 1 identical, 0 differ"]),
        ("a number changed by 1 ulp", mutated(ulp), 0, "", 1,
         [f"{ptr}/median_gpu_us_per_token: before 9718.123456789, after 9718.123456789002 (relative difference",
          "1 cases, 0 identical, 1 differ"]),
        ("a key removed", mutated(drop), 0, "", 1, [f"{ptr}/n_trials: before 3, after (missing)"]),
        ("an array element added", mutated(append), 0, "", 1,
         [f"{ptr}/gpu_us_per_token_per_trial: array length: before 3, after 4 (only after: [9740.0])"]),
        ("an integer written as a double", mutated(as_double), 0, "", 1,
         [f"{case} /schema_version: before 5, after 5.0 (integer vs double)"]),
        ("a string under a key holding / and ~", mutated(rename_family), 0, "", 1,
         [f"{ptr}/kernel_names/a~1b~0c/family: before \"moe_mv\", after \"dense_mv\""]),
        ("the bands in another order", mutated(reorder), 0, "", 1,
         [f"{case} /buckets: key order: before [\"xs_<2us\", \"sm_2_8us\"], after [\"sm_2_8us\", \"xs_<2us\"]"]),
        ("a report's own commit", mutated(their_commit), 0, "", 1,
         [f"{case} /engine/metadata/commit: before \"ba5f446a\", after \"0000000\""]),
        ("another exit status", SELF_TEST_DOC, 2, "x: error[attr.empty_window]: no work\n", 1,
         [f"{case} exit status: before 0, after 2", f"{case} exit status: expected 0, before 0, after 2",
          f"{case} stderr line 1: before (missing), after \"x: error[attr.empty_window]: no work\""]),
        ("no JSON", None, 0, "", 1, [f"{case} stdout: after is not JSON"]),
    ]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        def stand_in(name, doc, status, stderr):
            text = "{not json" if doc is None else json.dumps(doc, indent=2)
            doc_path = os.path.join(tmp, name + ".json")
            with open(doc_path, "w", encoding="utf-8") as f:
                f.write(text)
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"#!{sys.executable}\nimport sys\nsys.stdout.write(open({doc_path!r}).read())\n"
                        f"sys.stderr.write({stderr!r})\nsys.exit({status})\n")
            os.chmod(path, 0o755)
            return path

        before = stand_in("before", SELF_TEST_DOC, 0, "")

        def scenario(i):
            what, doc, status, stderr, want_rc, want_lines = scenarios[i]
            after = stand_in(f"after{i}", doc, status, stderr)
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--before", before, "--after", after,
                                   "--only", case], capture_output=True, text=True)
            missing = [w for w in want_lines if w not in done.stdout]
            if done.returncode != want_rc or missing:
                return (f"{what}: exit {done.returncode} (expected {want_rc}); missing {missing}; "
                        f"output:\n{done.stdout}{done.stderr}")
            return None

        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            problems += [p for p in pool.map(scenario, range(len(scenarios))) if p]
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--before", os.path.join(tmp, "nothing"),
                               "--after", before, "--only", case], capture_output=True, text=True)
        if done.returncode != 2 or "no such executable" not in done.stdout:
            problems.append(f"a missing binary: exit {done.returncode} (expected 2); output:\n{done.stdout}")
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--before", before, "--after", before,
                               "--only", "no.such.case"], capture_output=True, text=True)
        if done.returncode != 2:
            problems.append(f"an unknown case: exit {done.returncode} (expected 2); output:\n{done.stdout}")
    problems += [f"schema 5 to 6: {p}" for p in report_schema.self_test()]
    for p in problems:
        print(f"self-test: {p}")
    if not problems:
        print(f"self-test: {len(scenarios) + 2} scenarios: a 1-ulp number, a removed key, an added array element, "
              "an integer as a double, a changed string, a new key order, another exit status and a non-JSON "
              "output are each reported at their pointer with exit 1; another build's version and commit are not; "
              "a missing binary and an unknown case are usage errors; a schema 5 report rewritten in schema 6's "
              "keys equals the schema 6 report of its figures")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the perfgate binary before the change (the reference)")
    parser.add_argument("--after", help="the perfgate binary after the change")
    parser.add_argument("--corpus", help="the shared corpus (default: $PERFGATE_CORPUS_DIR, else ../shared/corpus "
                                         "beside the root)")
    parser.add_argument("--root", default=ROOT, help="the repository whose fixtures the cases read (default: this "
                                                      "script's)")
    parser.add_argument("--only", action="append", metavar="CASE",
                        help="run only this case (a glob: 'diff.*'); repeatable")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="cases run at once (default 1)")
    parser.add_argument("--max-per-case", type=int, default=100,
                        help="difference lines printed per case (default 100; 0: all)")
    parser.add_argument("--skipped-status", type=int, default=0,
                        help="exit status when cases were skipped and none differs (CTest: 77)")
    parser.add_argument("--list", action="store_true", help="print the case names")
    parser.add_argument("--self-test", action="store_true", help="show that the check fails where it must")
    a = parser.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    if a.self_test:
        return self_test()
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
