#!/usr/bin/env python3
"""The bad-input suite: crafted inputs, each run through perfgate with its expected end.

Each `cases_<format>.py` beside this file defines CASES, a list of Case. Nothing is
checked in but these scripts: `run` writes a case's files into a fresh directory of
the build tree, runs the program, and asserts

  * the exact exit code (a signal, a timeout or a sanitizer report always fails);
  * `error[<code>]` on stderr when the case names a code;
  * the compiler-form location `<path>:<line>:<col>: error[<code>]` when the case
    gives `at=(line, col)`, or `<path>: error[<code>]` for `at="file"`;
  * every string of `stderr_has` / `stdout_has`.

  badinput.py cmake OUT.cmake           writes one add_test per case (run at configure)
  badinput.py run FORMAT NAME --perfgate P --read R --work DIR
  badinput.py count                     cases per format (the issue asks for >= 30)

Each case is a CTest test, so this script starts once per case: it imports only what a
run needs (no argparse or typing), and CMake runs it as `python3 -S` with the real
interpreter rather than a version manager's shim (tests/badinput/CMakeLists.txt).
"""
from __future__ import annotations  # the annotations stay text: no typing import

import dataclasses
import importlib
import os
import subprocess
import sys
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))

# What a crash, an uncaught exception or undefined behaviour prints.
CRASH_MARKS = ("terminate called", "AddressSanitizer", "LeakSanitizer", "runtime error:",
               "Segmentation fault", "std::bad_alloc", "what():")


@dataclasses.dataclass
class Case:
    name: str
    args: list[str]                      # argv after the program; {file} names a file of
                                         # `files`, {dir} the case directory
    files: dict[str, bytes | str] = dataclasses.field(default_factory=dict)
    exit: int = 2
    code: str = ""                       # the error code in `error[code]`
    at: None | str | tuple[int, int] = None  # (line, col), "file", or None
    where: str = ""                      # the file `at` names; default: the first of `files`
    program: str = "perfgate"            # or "perfgate_read" (tests/badinput/perfgate_read.cc)
    setup: Callable[[str], None] | None = None  # fn(case_dir): FIFOs, links, modes
    stderr_has: list[str] = dataclasses.field(default_factory=list)
    stdout_has: list[str] = dataclasses.field(default_factory=list)
    timeout: float = 60
    why: str = ""                        # what the input is, for the failure message


def position_of(text: str | bytes, marker: str | bytes, nth: int = 0) -> tuple[int, int]:
    """(line, col) of the nth occurrence of `marker`, counted in bytes as perfgate does.
    A str marker in bytes text stands for its latin-1 bytes (each char one byte)."""
    data = text.encode() if isinstance(text, str) else text
    if isinstance(marker, str):
        marker = marker.encode() if isinstance(text, str) else marker.encode("latin-1")
    m = marker
    off = -1
    for _ in range(nth + 1):
        off = data.index(m, off + 1)
    return data.count(b"\n", 0, off) + 1, off - (data.rfind(b"\n", 0, off) + 1) + 1


def end_of(text: str | bytes) -> tuple[int, int]:
    """(line, col) just past the last byte: where a reader reports a truncated input."""
    data = text.encode() if isinstance(text, str) else text
    return data.count(b"\n") + 1, len(data) - (data.rfind(b"\n") + 1) + 1


def formats() -> list[str]:
    return sorted(f[len("cases_"):-3] for f in os.listdir(HERE)
                  if f.startswith("cases_") and f.endswith(".py"))


def cases_of(fmt: str) -> list[Case]:
    sys.path.insert(0, HERE)
    cases = importlib.import_module("cases_" + fmt).CASES
    names = [c.name for c in cases]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SystemExit(f"badinput: cases_{fmt}.py names a case twice: {', '.join(dupes)}")
    return cases


def write_cmake(out: str) -> None:
    lines = []
    for fmt in formats():
        for c in cases_of(fmt):
            test = f"badinput.{fmt}.{c.name}"
            lines.append(
                f'add_test(NAME {test} COMMAND "${{perfgate_badinput_python}}" -S "{HERE}/badinput.py" run {fmt} {c.name} '
                f'--perfgate "$<TARGET_FILE:perfgate>" --read "$<TARGET_FILE:perfgate_read>" '
                f'--work "${{CMAKE_CURRENT_BINARY_DIR}}/work")')
            lines.append(f"set_tests_properties({test} PROPERTIES LABELS unit TIMEOUT {int(c.timeout) + 30})")
    text = "\n".join(lines) + "\n"
    if not os.path.exists(out) or open(out).read() != text:
        with open(out, "w") as f:
            f.write(text)


def materialize(case: Case, case_dir: str) -> dict[str, str]:
    if os.path.lexists(case_dir):  # a rerun: only then is shutil needed
        import shutil
        subprocess.run(["chmod", "-R", "u+rwx", case_dir], check=False)
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    paths = {}
    for rel, content in case.files.items():
        path = os.path.join(case_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)
        paths[rel] = path
    if case.setup is not None:
        case.setup(case_dir)
    return paths


def expand(arg: str, paths: dict[str, str], case_dir: str) -> str:
    arg = arg.replace("{dir}", case_dir)
    for rel, path in paths.items():
        arg = arg.replace("{" + rel + "}", path)
    return arg


def expected_location(case: Case, paths: dict[str, str], case_dir: str) -> str | None:
    if case.at is None:
        return None
    rel = case.where or next(iter(case.files), "")
    path = paths.get(rel) or os.path.join(case_dir, rel)
    if case.at == "file":
        return f"{path}: error[{case.code}]"
    line, col = case.at
    return f"{path}:{line}:{col}: error[{case.code}]"


def run_case(fmt: str, name: str, programs: dict[str, str], work: str) -> int:
    found = [c for c in cases_of(fmt) if c.name == name]
    if not found:
        print(f"badinput: no case {name} in cases_{fmt}.py", file=sys.stderr)
        return 2
    case = found[0]
    case_dir = os.path.join(work, fmt, name)
    paths = materialize(case, case_dir)
    argv = [programs[case.program]] + [expand(a, paths, case_dir) for a in case.args]
    try:
        done = subprocess.run(argv, cwd=case_dir, capture_output=True, timeout=case.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL {fmt}.{name}: no answer within {case.timeout} s (a hang)\n  {' '.join(argv)}")
        return 1
    out = done.stdout.decode(errors="replace")
    err = done.stderr.decode(errors="replace")
    problems = []
    if done.returncode < 0:
        problems.append(f"killed by signal {-done.returncode}")
    elif done.returncode != case.exit:
        problems.append(f"exit {done.returncode}, expected {case.exit}")
    problems += [f"stderr shows a crash ({m!r})" for m in CRASH_MARKS if m in err]
    if case.code and f"error[{case.code}]" not in err:
        problems.append(f"stderr lacks error[{case.code}]")
    where = expected_location(case, paths, case_dir)
    if where is not None and where not in err:
        problems.append(f"stderr lacks the location {where!r}")
    problems += [f"stderr lacks {s!r}" for s in case.stderr_has if expand(s, paths, case_dir) not in err]
    problems += [f"stdout lacks {s!r}" for s in case.stdout_has if expand(s, paths, case_dir) not in out]
    if problems:
        print(f"FAIL {fmt}.{name}: {case.why}\n  {' '.join(argv)}")
        for p in problems:
            print("  - " + p)
        print("--- stderr ---\n" + err[-4000:] + "\n--- stdout ---\n" + out[-2000:])
        return 1
    print(f"ok {fmt}.{name}: exit {done.returncode}" + (f", error[{case.code}]" if case.code else ""))
    return 0


USAGE = ("usage: badinput.py cmake OUT.cmake | count |"
         " run FORMAT NAME --perfgate P --read R --work DIR")


def parse_run(argv: list[str]) -> dict[str, str] | None:
    """FORMAT NAME and the three options of `run`, or None when they are not all there."""
    positional, options = [], {}
    it = iter(argv)
    for word in it:
        if word in ("--perfgate", "--read", "--work"):
            value = next(it, None)
            if value is None or word in options:
                return None
            options[word[2:]] = value
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
    if len(positional) != 2 or len(options) != 3:
        return None
    return dict(options, format=positional[0], name=positional[1])


def main(argv: list[str]) -> int:
    # The cases' `from badinput import Case` must find this module, not load it again.
    sys.modules.setdefault("badinput", sys.modules[__name__])
    cmd, rest = (argv[0], argv[1:]) if argv else ("", [])
    if cmd == "cmake" and len(rest) == 1:
        write_cmake(rest[0])
        return 0
    if cmd == "count" and not rest:
        for fmt in formats():
            print(f"{fmt}\t{len(cases_of(fmt))}")
        return 0
    a = parse_run(rest) if cmd == "run" else None
    if a is None:
        print(USAGE, file=sys.stderr)
        return 2
    return run_case(a["format"], a["name"],
                    {"perfgate": os.path.abspath(a["perfgate"]), "perfgate_read": os.path.abspath(a["read"])},
                    a["work"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
