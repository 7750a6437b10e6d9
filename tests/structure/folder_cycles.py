#!/usr/bin/env python3
"""Fails when framework folders include each other in a cycle.

The framework's folders are the steps of its data path (docs/design.md): a folder may
include the folders before it, never one that (directly or through others) includes
it back. A folder is the first component below framework/src/ or
framework/include/perfgate/, so src/sources/metal/x.cc belongs to `sources`, and
perfgate/core/status.h to `core`.

Usage: folder_cycles.py FRAMEWORK_DIR       exit 0, or 1 listing each cycle with the
                                             #include lines that close it
       folder_cycles.py --self-test          builds a tree with a cycle and checks that
                                             the first form fails on it, naming it
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_ENDINGS = (".h", ".hpp", ".cc", ".cpp", ".mm", ".m", ".inc", ".def")


def folder_of(path, roots):
    """The framework folder `path` (a file under one of `roots`) belongs to."""
    for root in roots:
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            return rel.split(os.sep)[0]
    return None


def resolve(include, including_file, src, public):
    """The framework folder an #include "..." names, or None for a non-framework one."""
    if include.startswith("perfgate/"):
        parts = include.split("/")
        return parts[1] if len(parts) > 2 else None
    # Private headers are named from framework/src ("report/report_util.h"), from the
    # including file's own folder, or from src/core, which is on the include path.
    for base in (src, os.path.dirname(including_file), os.path.join(src, "core")):
        candidate = os.path.normpath(os.path.join(base, include))
        if os.path.isfile(candidate):
            return folder_of(candidate, [src, public])
    return None


def include_edges(framework):
    """{folder: {included folder: [(file, line number, line)]}} across folders."""
    src = os.path.join(framework, "src")
    public = os.path.join(framework, "include", "perfgate")
    edges = {}
    for root in (src, public):
        for directory, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(SOURCE_ENDINGS):
                    continue
                path = os.path.join(directory, name)
                here = folder_of(path, [root])
                edges.setdefault(here, {})
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        there = resolve(m.group(1), path, src, public)
                        if there is None or there == here:
                            continue
                        rel = os.path.relpath(path, framework)
                        edges[here].setdefault(there, []).append((rel, number, line.strip()))
    return edges


def cycles(edges):
    """The strongly connected components of more than one folder (Tarjan), sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    nodes = set(edges) | {w for targets in edges.values() for w in targets}
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(found)


def report(framework):
    edges = include_edges(framework)
    found = cycles(edges)
    if not found:
        print(f"folder_cycles: no include cycle between the {len(edges)} folders of {framework}")
        return 0
    for component in found:
        print(f"error[structure.include_cycle]: folders {{{', '.join(component)}}} include each other:")
        for a in component:
            for b in component:
                for rel, number, line in edges.get(a, {}).get(b, []):
                    print(f"  {rel}:{number}: {a} -> {b}: {line}")
    return 1


def self_test():
    """A two-folder cycle must fail and be named; the same tree without it must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "include/perfgate/alpha/a.h": '#include "perfgate/beta/b.h"\n',
            "include/perfgate/beta/b.h": "// no includes\n",
            "src/beta/b.cc": '#include "alpha/private.h"\n',
            "src/alpha/private.h": '#include "status.h"\n',
            "src/core/status.h": "\n",
        }
        for rel, text in files.items():
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        found = cycles(include_edges(tmp))
        if found != [["alpha", "beta"]]:
            print(f"self-test: expected the cycle [alpha, beta], found {found}")
            return 1
        os.remove(os.path.join(tmp, "src/beta/b.cc"))
        if cycles(include_edges(tmp)):
            print("self-test: a tree without a cycle was reported as having one")
            return 1
    print("self-test: a cycle through a private header fails and is named; without it the tree passes")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(report(sys.argv[1]))
