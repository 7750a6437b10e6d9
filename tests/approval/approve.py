#!/usr/bin/env python3
"""Approval tests: each perfgate subcommand's output, byte for byte.

Each case runs `perfgate ARGS --format F` (or ARGS alone, for the subcommands with one
output form) from the repository root, over the bundled recordings (or, for the cases
marked `corpus`, the shared corpus read in place), and compares standard output with
tests/approval/<case>.<ext>, the approved text. Paths are given relative to the root,
so the output holds no machine's paths; the root itself is replaced by <root> where a
subcommand resolves a path.

  approve.py --perfgate BIN --root DIR --case NAME   one case, every format it has
  approve.py --list                                  the case names (for CMake)
  approve.py --perfgate BIN --root DIR --self-test   the check fails where it must

A mismatch prints a unified diff, writes the output received to <work>/<case>.<ext>
and prints the command that accepts it: PERFGATE_UPDATE_APPROVALS=1 with the same
ctest command rewrites the approved files, and is refused under CI (as golden updates
are). A wrong exit status fails too. A corpus case without the corpus skips (exit 77),
and fails under CI.
"""
import argparse
import difflib
import os
import subprocess
import sys

H200 = "fixtures/recordings"
METAL_HEAD = "output_head.fused_norm_lm_argmax"
METAL_PAIR = ["--trace", f"hf2q={H200}/decode_q4_0/hf2q", "--trace", f"llama={H200}/decode_q4_0/llama",
              "--baseline", "llama", "--tokens", f"hf2q=auto:{METAL_HEAD}", "--window", f"hf2q=label:{METAL_HEAD}",
              "--tokens", "llama=64", "--window", "llama=skip:6"]
DECODE_STEP = ["--tokens", "auto:decode_step", "--window", "label:decode_step"]
TEXT_MARKDOWN = ("text", "markdown")

# name: (arguments, formats (None: the subcommand's one output), exit status, corpus file or None)
CASES = {
    "attribute.metal_hf2q_vs_llama": (["attribute", *METAL_PAIR], TEXT_MARKDOWN, 0, None),
    "attribute.torch_h200_graphs_vs_eager": (
        ["attribute", "--trace", f"graphs={H200}/torch_decode_h200/graphs", "--trace",
         f"eager={H200}/torch_decode_h200/eager", "--baseline", "eager", *DECODE_STEP], TEXT_MARKDOWN, 0, None),
    "attribute.jax_h200": (["attribute", "--trace", f"jax_decode_h200={H200}/jax_decode_h200", *DECODE_STEP],
                           TEXT_MARKDOWN, 0, None),
    "attribute.cupti_h200_graphs_vs_eager": (
        ["attribute", "--trace", f"graphs={H200}/cuda_decode_h200/graphs", "--trace",
         f"eager={H200}/cuda_decode_h200/eager", "--baseline", "eager", *DECODE_STEP, "--all-processes"],
        TEXT_MARKDOWN, 0, None),
    "diff.metal_regressed": (
        ["diff", f"{H200}/decode_q4_0/hf2q", f"{H200}/decode_q4_0_regressed/hf2q", "--tokens", f"auto:{METAL_HEAD}",
         "--window", f"label:{METAL_HEAD}"], TEXT_MARKDOWN, 0, None),
    "diff.cupti_eager_vs_graphs": (
        ["diff", f"{H200}/cuda_decode_h200/eager", f"{H200}/cuda_decode_h200/graphs", *DECODE_STEP,
         "--all-processes", "--rows", "3"], TEXT_MARKDOWN, 0, None),
    "diff.metal_fail_on": (
        ["diff", f"{H200}/decode_q4_0/llama", f"{H200}/decode_q4_0/hf2q", "--tokens", "64", "--window", "skip:6",
         "--fail-on", "1"], TEXT_MARKDOWN, 1, None),
    "toks_ratio.one_cell": (
        ["toks-ratio", "--engine", "fixtures/toks/hf2q/qwen3.6-27b-dwq46/engine.json", "--baseline",
         "fixtures/toks/hf2q/qwen3.6-27b-dwq46/llama-bench.json", "--floor", "1.0", "--tolerance-pp", "1"],
        TEXT_MARKDOWN, 0, None),
    "toks_ratio.hf2q_policy": (
        ["toks-ratio", "--policy", "{corpus}/hf2q/perf_baseline.json", "--reports", "fixtures/toks/hf2q"],
        TEXT_MARKDOWN, 0, "hf2q/perf_baseline.json"),
    "history.hf2q_metrics_baseline": (["history", "{corpus}/hf2q/metrics_baseline.txt"], TEXT_MARKDOWN, 0,
                                      "hf2q/metrics_baseline.txt"),
    "kernel_report.candle_vs_ggml": (
        ["kernel-report", "{corpus}/hf2q/phase0-candle-perkernel.json", "--baseline",
         "{corpus}/hf2q/phase0-ggml-perkernel.json", "--top", "5"], TEXT_MARKDOWN, 0,
        "hf2q/phase0-candle-perkernel.json"),
    "attribute.nsys_h100_gpu0": (
        ["attribute", "--trace", "h100={corpus}/nsys/h100_2gpu_1s.sqlite", "--device", "0", "--tokens", "1"],
        TEXT_MARKDOWN, 0, "nsys/h100_2gpu_1s.sqlite"),
    "info.metal_trial": (["info", f"{H200}/decode_q4_0/hf2q/trial-1/metal-gpu-execution-points.xml.gz",
                          f"{H200}/decode_q4_0/hf2q/trial-1/toc.xml"], None, 0, None),
    "ane_dma.replay_m4_coreml": (["ane-dma", "replay", "fixtures/ane/m4_coreml.json"], None, 0, None),
    "ane_dma.classify": (["ane-dma", "classify", "--on-us", "785.5", "--off-us", "353.8"], None, 0, None),
    "diagnostics": (["diagnostics"], None, 0, None),
}
EXTENSIONS = {"text": "txt", "markdown": "md", None: "txt"}
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE")


def under_ci():
    """As perfgate reads it (core/environment.cc): set, and not "", "0" or "false"."""
    return any(os.environ.get(v, "").lower() not in ("", "0", "false") for v in CI_VARIABLES)


def corpus_dir(root):
    return os.environ.get("PERFGATE_CORPUS_DIR") or os.path.join(root, "..", "shared", "corpus")


def run_case(perfgate, root, args, fmt, corpus):
    """Exit status, standard output (the root and the corpus named as <root> and
    <corpus>, wherever they are) and standard error of one run."""
    argv = [perfgate, *args] + (["--format", fmt] if fmt else [])
    env = dict(os.environ, LC_ALL="C.UTF-8", TZ="UTC", NO_COLOR="1")
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, timeout=600)
    text = done.stdout.decode("utf-8", errors="replace")
    if corpus:
        text = text.replace(corpus + "/", "<corpus>/")
    text = text.replace(os.path.realpath(root) + "/", "<root>/")
    return done.returncode, text, done.stderr.decode("utf-8", errors="replace")


def check(name, perfgate, root, work, approved_dir=None):
    args, formats, status, corpus_file = CASES[name]
    corpus_arg = None
    if corpus_file:
        corpus = corpus_dir(root)
        if not os.path.isfile(os.path.join(corpus, corpus_file)):
            why = f"the shared corpus has no {corpus_file} (PERFGATE_CORPUS_DIR={corpus})"
            if under_ci():
                print(f"approval {name}: error: {why}, and under CI a missing corpus fails")
                return 1
            print(f"approval {name}: skipped: {why}")
            return 77
        corpus_arg = os.path.relpath(corpus, root)
        args = [a.replace("{corpus}", corpus_arg) for a in args]
    update = os.environ.get("PERFGATE_UPDATE_APPROVALS", "") not in ("", "0")
    if update and under_ci():
        print(f"approval {name}: error: PERFGATE_UPDATE_APPROVALS is refused under CI")
        return 2
    failed = False
    for fmt in formats or (None,):
        rc, out, err = run_case(perfgate, root, args, fmt, corpus_arg)
        label = f"{name} ({fmt or 'output'})"
        if status is not None and rc != status:
            print(f"approval {label}: exit status {rc}, expected {status}\n{err}")
            failed = True
            continue
        approved_path = os.path.join(approved_dir or os.path.join(root, "tests", "approval"),
                                     f"{name}.{EXTENSIONS[fmt]}")
        if update:
            with open(approved_path, "w", encoding="utf-8") as f:
                f.write(out)
            print(f"approval {label}: wrote {os.path.relpath(approved_path, root)}")
            continue
        try:
            with open(approved_path, encoding="utf-8") as f:
                approved = f.read()
        except FileNotFoundError:
            approved = None
        if approved == out:
            continue
        failed = True
        os.makedirs(work, exist_ok=True)
        received = os.path.join(work, f"{name}.{EXTENSIONS[fmt]}")
        with open(received, "w", encoding="utf-8") as f:
            f.write(out)
        if approved is None:
            print(f"approval {label}: no approved file {os.path.relpath(approved_path, root)}")
        else:
            diff = difflib.unified_diff(approved.splitlines(True), out.splitlines(True),
                                        f"approved {os.path.relpath(approved_path, root)}", f"received {received}")
            sys.stdout.writelines(diff)
        print(f"approval {label}: output differs; received: {received}")
    if failed:
        print(f"accept with: PERFGATE_UPDATE_APPROVALS=1 ctest --no-tests=error -R '^approval\\.{name}$'")
        return 1
    return 0


def self_test(perfgate, root):
    """The check fails on a changed line and on a missing approved file, and refuses an
    update under CI; it passes on the approved file itself."""
    import contextlib
    import io
    import shutil
    import tempfile
    name = "diagnostics"
    with tempfile.TemporaryDirectory() as tmp:
        approved = os.path.join(tmp, "approved")
        os.makedirs(approved)
        shutil.copy(os.path.join(root, "tests", "approval", f"{name}.txt"), approved)

        def run():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = check(name, perfgate, root, os.path.join(tmp, "received"), approved)
            return rc, out.getvalue()

        results = [("the approved file", run(), 0, "")]
        path = os.path.join(approved, f"{name}.txt")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        lines[1] = lines[1] + " (changed)"
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        results.append(("a changed line", run(), 1, "output differs"))
        os.remove(path)
        results.append(("no approved file", run(), 1, "no approved file"))
        saved = {v: os.environ.get(v) for v in ("CI", "PERFGATE_UPDATE_APPROVALS")}
        os.environ.update(CI="true", PERFGATE_UPDATE_APPROVALS="1")
        try:
            results.append(("an update under CI", run(), 2, "refused under CI"))
        finally:
            for v, value in saved.items():
                if value is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = value
    bad = [f"{what}: exit {rc}, expected {want}; output:\n{out}" for what, (rc, out), want, words in results
           if rc != want or words not in out]
    for line in bad:
        print(f"self-test: {line}")
    if not bad:
        print("self-test: the approved file passes; a changed line and a missing file fail; "
              "an update under CI is refused")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perfgate")
    parser.add_argument("--root")
    parser.add_argument("--case")
    parser.add_argument("--work", default=None, help="where received outputs go (default: a temporary folder)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    a = parser.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    if a.self_test:
        return self_test(os.path.abspath(a.perfgate), os.path.abspath(a.root))
    if a.case not in CASES:
        print(f"approval: unknown case '{a.case}' (known: {', '.join(CASES)})")
        return 2
    work = a.work or os.path.join(os.environ.get("TMPDIR", "/tmp"), f"perfgate-approval-{os.getpid()}")
    return check(a.case, os.path.abspath(a.perfgate), os.path.abspath(a.root), work)


if __name__ == "__main__":
    sys.exit(main())
