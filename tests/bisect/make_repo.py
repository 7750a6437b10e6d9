#!/usr/bin/env python3
"""Generates a git repository with planted performance changes, for `perfgate bisect`.

  make_repo.py --case CASE --out DIR [--commits N]

DIR (which must not exist) becomes a git repository of a simulated engine on branch
main: commit c00 (tag `good`), then N commits c01..cNN (default 32; tag `bad` on the
last) in a line. Every commit holds
  engine.conf  what a recording holds: tokens, kernels (launches per token, microseconds
               per launch), noise (engine/record.py's docstring has the format);
  build.sh     the build: exit 1 while engine.conf holds a line "syntax error";
  record.py    the recorder: 5 trials of trace-event JSON into $PERFGATE_BISECT_OUT,
               identical in every commit (copied from tests/bisect/engine/).
Most commits append a line to NOTES.md; the planted ones change engine.conf. Author,
committer, dates and configuration are fixed, so the shas depend only on the case and N.

The base engine: 8 tokens; gemm_q4 8 x 40 us, attn_flash 4 x 25 us, rmsnorm 4 x 6 us per
token (gpu_us_per_token 444); per-launch noise CV 0.03. Each kernel is its own family
(perfgate's CUDA table: gemm, attention, norm). Positions below are for N = 32; a larger N
(N < 32 is refused) moves commit k to round(k * N / 32):
  one_regression          gemm_q4 40 -> 46 us at c19 (+48 us/token, +10.8 %)
  build_break             the same, and c14..c16 fail to build (c17 repairs it)
  build_break_at_culprit  the same, and its parent and grandparent c17, c18 fail to build:
                          only the range c17..c19 can be proven
  two_regressions         gemm_q4 40 -> 46 at c11, attn_flash 25 -> 32 at c24: the
                          first is the culprit
  hidden_regression       gemm_q4 40 -> 35 us at c09 (-40 us/token), attn_flash 25 -> 35 at
                          c21 (+40 us/token, +40 % of its family): gpu_us_per_token is the
                          same at good and bad (no_regression), and
                          families/attention/gpu_us_per_token finds c21
  noise_over_step         per-launch noise CV 0.12 and a per-trial factor of CV 0.05
                          (about 5 % of gpu_us_per_token per trial, where per-launch noise
                          alone averages down to about 1.2 %); gemm_q4 40 -> 44.5 us at
                          c19 (+36 us/token, +8.1 % of the total)

The manifest goes to DIR.manifest.json (beside DIR, outside the repository): the case,
good and bad refs and shas, tokens, the expected outcome for the total, and one entry
per bisect to run (metric, expected outcome, culprits, acceptable candidates, whether
a proof is possible, and the perfgate bisect command line, with "perfgate" as argv[0]).
Exit 0, or 1 with a message on a bad argument or a failing git.
"""
import argparse
import copy
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE_FILES = ("build.sh", "record.py")
DEFAULT_COMMITS = 32
TOKENS = 8
BASE_ENGINE = {"kernels": {"gemm_q4": (8, 40.0), "attn_flash": (4, 25.0), "rmsnorm": (4, 6.0)},
               "noise": 0.03, "trial_noise": 0.0, "syntax_error": False}
TOTAL = "gpu_us_per_token"
ATTENTION = "families/attention/gpu_us_per_token"
EPOCH = 1_700_000_000  # commit k is dated EPOCH + k hours
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "Bisect Simulator",
           "GIT_AUTHOR_EMAIL": "bisect@perfgate.invalid", "GIT_COMMITTER_NAME": "Bisect Simulator",
           "GIT_COMMITTER_EMAIL": "bisect@perfgate.invalid", "TZ": "UTC"}


def kernel(name, us):
    """A change setting kernel `name` to `us` microseconds per launch."""
    def change(engine):
        launches, _ = engine["kernels"][name]
        engine["kernels"][name] = (launches, us)
    return change


def setting(key, value):
    """A change setting engine.conf's `key` ("noise", "trial_noise", "syntax_error")."""
    def change(engine):
        engine[key] = value
    return change


def case_plan(case, at):
    """(changes [(commit, change)], bisects [expectation]) of `case`; `at(k)` places commit k of 32."""
    culprit = at(19)
    regression = [(culprit, kernel("gemm_q4", 46.0))]
    one = [expect(TOTAL, "culprit", [culprit])]
    if case == "one_regression":
        return regression, one
    if case == "build_break":  # three commits that fail to build, two commits before the culprit
        broken = at(14)
        return [(broken, setting("syntax_error", True)), (broken + 3, setting("syntax_error", False))] + regression, one
    if case == "build_break_at_culprit":
        changes = [(culprit - 2, setting("syntax_error", True)), (culprit, setting("syntax_error", False))]
        return changes + regression, [expect(TOTAL, "range", [culprit], [culprit - 2, culprit - 1, culprit])]
    if case == "two_regressions":
        return ([(at(11), kernel("gemm_q4", 46.0)), (at(24), kernel("attn_flash", 32.0))],
                [expect(TOTAL, "culprit", [at(11)])])
    if case == "hidden_regression":
        return ([(at(9), kernel("gemm_q4", 35.0)), (at(21), kernel("attn_flash", 35.0))],
                [expect(TOTAL, "no_regression", []), expect(ATTENTION, "culprit", [at(21)])])
    if case == "noise_over_step":
        return ([(0, setting("noise", 0.12)), (0, setting("trial_noise", 0.05)), (culprit, kernel("gemm_q4", 44.5))],
                [expect(TOTAL, "culprit", [culprit])])
    raise ValueError(f"unknown case {case!r} (cases: {', '.join(CASES)})")


CASES = ("one_regression", "build_break", "build_break_at_culprit", "two_regressions", "hidden_regression",
         "noise_over_step")


def expect(metric, outcome, culprits, candidates=None):
    """What a correct bisect on `metric` reports (commit numbers, made shas later)."""
    return {"metric": metric, "outcome": outcome, "culprits": culprits,
            "candidates": culprits if candidates is None else candidates, "provable": outcome == "culprit"}


def engine_conf(engine):
    lines = ["# The simulated engine (tests/bisect/engine/record.py reads it).", f"tokens {TOKENS}"]
    lines += [f"kernel {name} {launches} {us}" for name, (launches, us) in engine["kernels"].items()]
    lines.append(f"noise {engine['noise']}")
    if engine["trial_noise"]:
        lines.append(f"trial_noise {engine['trial_noise']}")
    if engine["syntax_error"]:
        lines.append("syntax error")
    return "\n".join(lines) + "\n"


def git(repo, *args, date=None):
    env = dict(os.environ, **GIT_ENV)
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{date} +0000"
    done = subprocess.run(["git", "-C", repo, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {repo} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.strip()


def write(repo, name, text):
    with open(os.path.join(repo, name), "w", encoding="utf-8") as f:
        f.write(text)


def commit(repo, number):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", f"c{number:02d}", date=EPOCH + 3600 * number)
    return git(repo, "rev-parse", "HEAD")


def initial_files(repo, case, engine):
    git(repo, "init", "-q", "-b", "main")
    for name in ENGINE_FILES:
        shutil.copyfile(os.path.join(HERE, "engine", name), os.path.join(repo, name))
    write(repo, "README.md", f"A simulated engine for perfgate bisect (case {case}; tests/bisect/make_repo.py).\n")
    write(repo, "NOTES.md", "Notes\n")
    write(repo, "engine.conf", engine_conf(engine))


def make_history(repo, case, commits):
    """Creates the commits; returns (shas by commit number, bisect expectations)."""
    changes, bisects = case_plan(case, lambda k: round(k * commits / DEFAULT_COMMITS))
    engine = copy.deepcopy(BASE_ENGINE)
    shas = []
    for number in range(commits + 1):
        planted = [change for at, change in changes if at == number]
        for change in planted:
            change(engine)
        if number == 0:
            initial_files(repo, case, engine)
        elif planted:
            write(repo, "engine.conf", engine_conf(engine))
        else:
            with open(os.path.join(repo, "NOTES.md"), "a", encoding="utf-8") as f:
                f.write(f"note {number}\n")
        shas.append(commit(repo, number))
    git(repo, "tag", "good", shas[0])
    git(repo, "tag", "bad", shas[-1])
    return shas, bisects


def bisect_entry(repo, shas, expectation):
    argv = ["perfgate", "bisect", "--repo", repo, "--good", "good", "--bad", "bad", "--build", "sh build.sh",
            "--record", "python3 record.py", "--tokens", str(TOKENS)]
    if expectation["metric"] != TOTAL:
        argv += ["--metric", expectation["metric"]]
    return dict(expectation, culprits=[shas[k] for k in expectation["culprits"]],
                candidates=[shas[k] for k in expectation["candidates"]], argv=argv, command=shlex.join(argv))


def manifest(case, repo, shas, bisects):
    entries = [bisect_entry(repo, shas, b) for b in bisects]
    total = next(e["outcome"] for e in entries if e["metric"] == TOTAL)
    return {"kind": "perfgate.bisect_case", "case": case, "repo": repo, "tokens": TOKENS,
            "good": {"ref": "good", "commit": shas[0]}, "bad": {"ref": "bad", "commit": shas[-1]},
            "commits": {f"c{k:02d}": sha for k, sha in enumerate(shas)}, "total_metric_outcome": total,
            "bisects": entries}


def make_repo(case, out, commits):
    """Creates the repository at `out` and its manifest; returns the manifest."""
    if case not in CASES:
        raise ValueError(f"unknown case {case!r} (cases: {', '.join(CASES)})")
    if commits < DEFAULT_COMMITS:
        raise ValueError(f"--commits {commits}: at least {DEFAULT_COMMITS} (the planted commits' places scale up)")
    repo = os.path.abspath(out)
    if os.path.lexists(repo):
        raise ValueError(f"{repo} exists; give a new directory")
    os.makedirs(repo)
    shas, bisects = make_history(repo, case, commits)
    if git(repo, "status", "--porcelain"):
        raise RuntimeError(f"{repo}: the working tree is not clean after generation")
    result = manifest(case, repo, shas, bisects)
    with open(repo + ".manifest.json", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", required=True, help=", ".join(CASES))
    parser.add_argument("--out", required=True, help="the repository to create (must not exist)")
    parser.add_argument("--commits", type=int, default=DEFAULT_COMMITS, help="commits after the first")
    args = parser.parse_args()
    try:
        make_repo(args.case, args.out, args.commits)
    except (ValueError, RuntimeError, OSError) as e:
        sys.exit(f"make_repo.py: {e}")


if __name__ == "__main__":
    main()
