#!/usr/bin/env python3
"""Runs `perfgate bisect` many times over the planted cases of make_repo.py and tallies it.

  simulate.py --perfgate PATH [--runs 100] [--cases a,b,...] [--work DIR] [--json OUT]
              [-- MORE BISECT ARGUMENTS (--alpha 0.01, --max-trials 50, ...)]

For each case, make_repo.py generates the repository once (DIR/repos/CASE, its manifest
beside it); then for each seed 1..runs and each bisect the manifest lists, the
manifest's command runs with BISECT_SIM_SEED=seed (the recorder's noise), with `python3`
this script's interpreter (DIR/bin first on PATH), a fresh --work directory (nothing
reused), --log, --format json and the arguments after `--`. Each run is classified from its JSON report against
the manifest:
  right         the expected outcome: a proven culprit that is an expected culprit, the
                range the case allows (every candidate acceptable, the truth among
                them), or no_regression where good and bad do not differ
  proven wrong  a proven culprit that is not an expected one, a culprit proven where the
                case allows only a range (git cannot prove more), or outcome "range"
                with no expected culprit among the candidates: must never happen
  range ∋ truth not proven, and the candidates hold an expected culprit
  range ∌ truth not proven, not "range", and candidates that miss every expected culprit
  uncertain, no_regression, undecided: the outcomes so named
and its recordings taken (mean and max over the runs) and wall time (mean) are kept.
A run is an error when perfgate exits with anything but 0 or 1, when its exit status
disagrees with "proven", when the report breaks the contract (kind, schema_version,
outcome, good and bad shas, culprit and candidates), or when the repository is left
changed: `git bisect log` must fail (no bisect in progress), HEAD must be the branch
and commit it was, and the working tree clean (the repository is then put back, so the
next run starts as this one did). A run's work directory is removed
unless the run was wrong, an error or a range without the truth; its log and report
stay under DIR/runs.

DIR (default: a new temporary directory) must be new, empty, or one a former
simulation made (it is emptied). Prints one row per bisect (case, metric) and each
error; --json writes the tally and every run. Exit 0; 1 when any run was proven wrong
or an error; 2 on a usage error.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_repo  # noqa: E402  (beside this script)

MARKER = ".bisect-simulation"
RUN_TIMEOUT_S = 900
OUTCOMES = ("culprit", "uncertain", "range", "no_regression", "undecided")
COLUMNS = ("right", "proven_wrong", "range_with_truth", "range_without_truth", "uncertain", "no_regression",
           "undecided", "errors")


class UsageError(Exception):
    pass


def prepare_work(work):
    """Creates or empties the simulation's directory; refuses one it did not make."""
    if work is None:
        work = tempfile.mkdtemp(prefix="bisect-simulation-")
    work = os.path.abspath(work)
    if os.path.isdir(work) and os.listdir(work):
        if not os.path.exists(os.path.join(work, MARKER)):
            raise UsageError(f"--work {work} holds files no simulation made; give a new or empty directory")
        shutil.rmtree(work)
    os.makedirs(work, exist_ok=True)
    open(os.path.join(work, MARKER), "w").close()
    return work


def bisect_environment(work):
    """os.environ with `python3` (the recorder's interpreter) this script's own, not a
    wrapper found first on PATH (a pyenv shim costs 0.15 s per recording)."""
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    os.symlink(sys.executable, os.path.join(bin_dir, "python3"))
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)


def repo_state(repo):
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    branch = git(repo, "symbolic-ref", "-q", "HEAD").stdout.strip()
    return head, branch


def repo_problems(repo, before):
    """What the bisect left changed in the repository ([] when nothing)."""
    problems = []
    if git(repo, "bisect", "log").returncode == 0:
        problems.append("a git bisect is still in progress (git bisect log succeeds)")
    after = repo_state(repo)
    if after != before:
        problems.append(f"HEAD is {after[1] or 'detached'} at {after[0]}, was {before[1]} at {before[0]}")
    status = git(repo, "status", "--porcelain", "--ignored").stdout.strip()
    if status:
        problems.append(f"the working tree changed: {status.splitlines()[:3]}")
    if problems:
        restore(repo, before)
    return problems


def restore(repo, before):
    """Puts the repository back as it was, so that the next run starts as this one did."""
    head, branch = before
    for args in (("bisect", "reset"), ("checkout", "-q", "-f", branch.removeprefix("refs/heads/")),
                 ("reset", "-q", "--hard", head), ("clean", "-q", "-f", "-d", "-x")):
        git(repo, *args)
    if repo_state(repo) != before or git(repo, "bisect", "log").returncode == 0:
        raise RuntimeError(f"{repo}: could not put HEAD back to {branch} at {head}")


def contract_problems(report, exit_code, manifest):
    """Where the JSON report breaks the CLI contract ([] when nowhere)."""
    problems = []
    if report.get("kind") != "perfgate.bisect" or report.get("schema_version") != 1:
        problems.append(f"kind/schema_version {report.get('kind')!r}/{report.get('schema_version')!r}")
    if report.get("outcome") not in OUTCOMES:
        problems.append(f"outcome {report.get('outcome')!r} is none of {OUTCOMES}")
    proven = report.get("proven")
    if proven is not (report.get("outcome") == "culprit") or (exit_code == 0) is not proven:
        problems.append(f"proven {proven!r}, outcome {report.get('outcome')!r} and exit {exit_code} disagree")
    for side in ("good", "bad"):
        commit = (report.get(side) or {}).get("commit")
        if commit != manifest[side]["commit"]:
            problems.append(f"{side}.commit {commit!r} is not {manifest[side]['commit']}")
    culprit = (report.get("culprit") or {}).get("commit")
    if proven and report.get("candidates") != [culprit]:
        problems.append(f"proven culprit {culprit!r} but candidates {report.get('candidates')!r}")
    if not isinstance((report.get("recordings") or {}).get("taken"), int):
        problems.append("recordings.taken is not an integer")
    return problems


def classify(report, expected):
    """The tally columns one run counts in."""
    outcome, candidates = report["outcome"], report.get("candidates") or []
    culprit = (report.get("culprit") or {}).get("commit")
    if report["proven"]:
        right = expected["provable"] and culprit in expected["culprits"]
        return ["right"] if right else ["proven_wrong"]
    columns = [outcome] if outcome in ("uncertain", "no_regression", "undecided") else []
    if any(c in candidates for c in expected["culprits"]):
        columns.append("range_with_truth")
    elif candidates and expected["culprits"]:
        columns.append("proven_wrong" if outcome == "range" else "range_without_truth")
    if outcome == expected["outcome"] == "no_regression" or (
            outcome == expected["outcome"] == "range" and set(candidates) <= set(expected["candidates"])
            and "range_with_truth" in columns):
        columns.append("right")
    return columns


def run_bisect(command, env, manifest, bisect, seed, run_dir):
    """Runs one bisect; returns its record (columns, recordings, seconds, problems)."""
    repo, work, log = manifest["repo"], os.path.join(run_dir, "work"), os.path.join(run_dir, "bisect.log")
    perfgate, more = command
    argv = [perfgate] + bisect["argv"][1:] + ["--work", work, "--log", log, "--format", "json"] + more
    before = repo_state(repo)
    started = time.monotonic()
    try:
        done = subprocess.run(argv, env=dict(env, BISECT_SIM_SEED=str(seed)), capture_output=True,
                              text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return failed_run(seed, time.monotonic() - started, [f"timed out after {RUN_TIMEOUT_S} s"], repo, before)
    seconds = time.monotonic() - started
    save(run_dir, done)
    if done.returncode not in (0, 1):
        return failed_run(seed, seconds, [f"exit {done.returncode}: {done.stderr.strip()[:800]}"], repo, before)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        return failed_run(seed, seconds, [f"stdout is not JSON ({e})"], repo, before)
    if not isinstance(report, dict):
        return failed_run(seed, seconds, ["stdout is not a JSON object"], repo, before)
    problems = contract_problems(report, done.returncode, manifest) + repo_problems(repo, before)
    columns = ["errors"] if problems else classify(report, bisect)
    if not problems and not {"proven_wrong", "range_without_truth"} & set(columns):
        shutil.rmtree(work, ignore_errors=True)
    return {"seed": seed, "exit": done.returncode, "outcome": report.get("outcome"), "columns": columns,
            "culprit": (report.get("culprit") or {}).get("commit"), "candidates": report.get("candidates"),
            "recordings": (report.get("recordings") or {}).get("taken"), "seconds": seconds, "problems": problems}


def failed_run(seed, seconds, problems, repo, before):
    return {"seed": seed, "exit": None, "outcome": None, "columns": ["errors"], "culprit": None,
            "candidates": None, "recordings": None, "seconds": seconds,
            "problems": problems + repo_problems(repo, before)}


def save(run_dir, done):
    for name, text in (("report.json", done.stdout), ("stderr.txt", done.stderr)):
        with open(os.path.join(run_dir, name), "w", encoding="utf-8") as f:
            f.write(text)


def tally(runs):
    counts = {column: sum(column in r["columns"] for r in runs) for column in COLUMNS}
    recordings = [r["recordings"] for r in runs if r["recordings"] is not None]
    counts["recordings_mean"] = statistics.fmean(recordings) if recordings else None
    counts["recordings_max"] = max(recordings) if recordings else None
    counts["seconds_mean"] = statistics.fmean(r["seconds"] for r in runs)
    return counts


def simulate_case(command, env, case, seeds, work):
    """Generates the case's repository and runs each of its bisects for every seed."""
    manifest = make_repo.make_repo(case, os.path.join(work, "repos", case), make_repo.DEFAULT_COMMITS)
    results = []
    for bisect in manifest["bisects"]:
        runs = []
        for seed in seeds:
            run_dir = os.path.join(work, "runs", case, bisect["metric"].replace("/", "."), f"seed-{seed}")
            os.makedirs(run_dir)
            runs.append(run_bisect(command, env, manifest, bisect, seed, run_dir))
            print_problems(case, bisect["metric"], runs[-1])
        results.append({"case": case, "metric": bisect["metric"], "expected": bisect["outcome"],
                        "tally": tally(runs), "runs": runs})
    return results


def print_problems(case, metric, run):
    for problem in run["problems"]:
        print(f"ERROR {case} {metric} seed {run['seed']}: {problem}", flush=True)
    if "proven_wrong" in run["columns"]:
        print(f"WRONG {case} {metric} seed {run['seed']}: {run['outcome']} {run['culprit'] or run['candidates']}",
              flush=True)


def print_table(results):
    header = ("case", "metric", "expected", "runs", "right", "proven wrong", "range∋truth", "range∌truth",
              "uncertain", "no_regr", "undecided", "errors", "recs mean", "recs max", "s mean")
    rows = [header]
    for r in results:
        t = r["tally"]
        rows.append((r["case"], r["metric"], r["expected"], str(len(r["runs"])),
                     *(str(t[c]) for c in COLUMNS), fmt(t["recordings_mean"]), fmt(t["recordings_max"]),
                     fmt(t["seconds_mean"])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))


def fmt(value):
    return "-" if value is None else f"{value:.1f}" if isinstance(value, float) else str(value)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--perfgate", required=True, help="the perfgate binary")
    parser.add_argument("--runs", type=int, default=100, help="seeds 1..RUNS per bisect")
    parser.add_argument("--cases", default=",".join(make_repo.CASES), help="comma-separated, of: %(default)s")
    parser.add_argument("--work", help="the simulation's directory (default: a new temporary one)")
    parser.add_argument("--json", help="write the tally and every run here")
    parser.add_argument("bisect_args", nargs="*", help="after --: more arguments for every perfgate bisect")
    args = parser.parse_args()
    args.cases = args.cases.split(",")
    unknown = [c for c in args.cases if c not in make_repo.CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)} (cases: {', '.join(make_repo.CASES)})")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.access(args.perfgate, os.X_OK):
        parser.error(f"--perfgate {args.perfgate} is not an executable file")
    args.perfgate = os.path.abspath(args.perfgate)
    return args


def main():
    args = parse_args()
    try:
        work = prepare_work(args.work)
    except UsageError as e:
        print(f"simulate.py: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"simulation in {work}", flush=True)
    started = time.monotonic()
    env = bisect_environment(work)
    results = []
    for case in args.cases:
        try:
            results += simulate_case((args.perfgate, args.bisect_args), env, case, range(1, args.runs + 1), work)
        except (ValueError, RuntimeError) as e:
            sys.exit(f"simulate.py: {case}: {e}")
    print_table(results)
    print(f"{sum(len(r['runs']) for r in results)} bisects in {time.monotonic() - started:.0f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"kind": "perfgate.bisect_simulation", "work": work, "results": results}, f, indent=1)
    failed = sum(r["tally"]["proven_wrong"] + r["tally"]["errors"] for r in results)
    if failed:
        print(f"FAILED: {failed} run(s) proven wrong or in error (above)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
