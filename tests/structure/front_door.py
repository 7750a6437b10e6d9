#!/usr/bin/env python3
"""Keeps the front door a front door, and the documents the code cites real.

Checks, on the repository root given:
  * README.md has at most 400 lines, and its first code block of C++ (the suite
    example) starts within its first 120;
  * every relative link of README.md, CHANGELOG.md and docs/*.md names a file that
    exists (and, with #anchor, a heading of it);
  * every docs/<page>.md a source file cites exists, and a "§N" after it names a
    section "## N." or "## §N" of that page;
  * tools/test has at most 80 lines and names no test (no ctest -R, -E, -I or -L
    other than the unit and fuzz labels).

Usage: front_door.py ROOT          exit 0, or 1 listing every problem
       front_door.py --self-test   shows each check failing on a tree made to fail it
"""
import os
import re
import sys
import tempfile

README_MAX_LINES = 400
EXAMPLE_BY_LINE = 120
TOOLS_TEST_MAX_LINES = 80
SOURCE_ENDINGS = (".h", ".cc", ".cpp", ".py", ".cmake", ".txt", ".sh", ".def", ".m")
LINK = re.compile(r"\]\(([^)\s]+)\)")
CITATION = re.compile(r"docs/([A-Za-z0-9_-]+\.md)((?:\s*§\s*\d+)?)")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def anchor_of(heading):
    """GitHub's anchor of a Markdown heading's text."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found = set()
    for line in read(path).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            found.add(anchor_of(m.group(1)))
    return found


def check_readme(root):
    problems = []
    lines = read(os.path.join(root, "README.md")).splitlines()
    if len(lines) > README_MAX_LINES:
        problems.append(f"README.md: {len(lines)} lines, more than {README_MAX_LINES}")
    first_cpp = next((i + 1 for i, l in enumerate(lines) if l.strip() == "```cpp"), None)
    if first_cpp is None or first_cpp > EXAMPLE_BY_LINE:
        problems.append(f"README.md: the first C++ example starts at line {first_cpp}, not within "
                        f"{EXAMPLE_BY_LINE}")
    return problems


def check_links(root):
    problems = []
    pages = ["README.md", "CHANGELOG.md"]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += [os.path.join("docs", p) for p in sorted(os.listdir(docs)) if p.endswith(".md")]
    for page in pages:
        path = os.path.join(root, page)
        if not os.path.isfile(path):
            continue
        in_code = False
        for number, line in enumerate(read(path).splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                file_part, _, anchor = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(linked):
                    problems.append(f"{page}:{number}: link to {target}: no such file")
                elif anchor and linked.endswith(".md") and anchor not in anchors(linked):
                    problems.append(f"{page}:{number}: link to {target}: no such heading")
    return problems


def sections(path):
    """The numbers of a page's numbered sections: '## 3. Title', '## §3', '### 3.'."""
    return set(re.findall(r"^#{2,4}\s+§?(\d+)[.\s]", read(path), re.M))


def check_citations(root):
    problems = []
    for top in ("framework", "tools", "tests", "cmake", "suites", "benchmarks"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith(SOURCE_ENDINGS) or name == "front_door.py":
                    continue
                path = os.path.join(directory, name)
                for number, line in enumerate(read(path).splitlines(), 1):
                    for page, section in CITATION.findall(line):
                        doc = os.path.join(root, "docs", page)
                        where = f"{os.path.relpath(path, root)}:{number}"
                        if not os.path.isfile(doc):
                            problems.append(f"{where}: cites docs/{page}, which does not exist")
                            continue
                        n = re.sub(r"\D", "", section)
                        if n and n not in sections(doc):
                            problems.append(f"{where}: cites docs/{page} §{n}, which has no such section")
    return problems


def check_tools_test(root):
    problems = []
    text = read(os.path.join(root, "tools", "test"))
    lines = text.splitlines()
    if len(lines) > TOOLS_TEST_MAX_LINES:
        problems.append(f"tools/test: {len(lines)} lines, more than {TOOLS_TEST_MAX_LINES}")
    for number, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        if "ctest" not in code:
            continue
        if re.search(r"\s-(R|E|I)\b|--tests-regex|--exclude-regex|--tests-information", code):
            problems.append(f"tools/test:{number}: selects tests by name: {line.strip()}")
        for label in re.findall(r"\s-L\s+(\S+)", code):
            if label not in ("unit", "fuzz"):
                problems.append(f"tools/test:{number}: selects the label {label}")
    return problems


def report(root):
    problems = check_readme(root) + check_links(root) + check_citations(root) + check_tools_test(root)
    for p in problems:
        print(f"error[structure.front_door]: {p}")
    if not problems:
        print("front_door: README within its bounds, links and citations resolve, tools/test names no test")
    return 1 if problems else 0


def self_test():
    """Each check fails on a tree made to fail it, and a tree made to pass passes."""
    good_readme = "# x\n```cpp\nint main() {}\n```\n[d](docs/a.md#one)\n"
    good = {
        "README.md": good_readme,
        "CHANGELOG.md": "# c\n",
        "docs/a.md": "# A\n## One\n## 2. Two\n",
        "framework/x.cc": "// docs/a.md §2\n",
        "tools/test": "ctest --test-dir b -L unit\n",
    }
    bad_cases = {
        "a long README": {"README.md": good_readme + "x\n" * 400},
        "a late example": {"README.md": "x\n" * 130 + good_readme},
        "a broken link": {"README.md": good_readme + "[e](docs/missing.md)\n"},
        "a broken anchor": {"README.md": good_readme + "[e](docs/a.md#three)\n"},
        "a missing cited page": {"framework/x.cc": "// docs/gone.md\n"},
        "a missing section": {"framework/x.cc": "// docs/a.md §7\n"},
        "a test named": {"tools/test": "ctest --test-dir b -R 'Foo\\.Bar'\n"},
        "a long tools/test": {"tools/test": "true\n" * 81},
    }
    failures = []

    def run(files):
        with tempfile.TemporaryDirectory() as tmp:
            for rel, text in files.items():
                p = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(text)
            return check_readme(tmp) + check_links(tmp) + check_citations(tmp) + check_tools_test(tmp)

    if run(good):
        failures.append(f"the good tree failed: {run(good)}")
    for what, change in bad_cases.items():
        if not run({**good, **change}):
            failures.append(f"{what} passed")
    for f in failures:
        print(f"self-test: {f}")
    if not failures:
        print(f"self-test: the good tree passes; each of {len(bad_cases)} bad trees fails")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(report(sys.argv[1]))
