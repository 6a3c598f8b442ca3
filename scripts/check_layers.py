#!/usr/bin/python3
"""check_layers.py: the include graph between the folders of src/ (the
stages of docs/ARCHITECTURE.md) points one way and has no cycle.

Every `#include "DIR/file.h"` in src/STAGE/*.[ch] is an edge STAGE -> DIR.
An edge must be allowed by ALLOWED below (the table in ARCHITECTURE.md);
the preload libraries may include util/ only. Whatever the table says, a
cycle between folders is reported with its path. Exit 0 when clean, 1 with
one line per problem.

    /usr/bin/python3 scripts/check_layers.py [ROOT]
"""
import os
import re
import sys

# Who may include whom. Downward only: cli -> bisect, reproduce -> localize -> run -> pressure,
# diagnose -> results, signature -> util; survey sits beside run, under cli;
# suite (per-test results of a test suite) under run.
ALLOWED = {
    "cli": {"bisect", "localize", "reproduce", "run", "survey", "deploy", "pressure", "diagnose", "results", "suite", "signature", "util"},
    "bisect": {"run", "pressure", "results", "signature", "util"},
    "localize": {"run", "pressure", "diagnose", "results", "signature", "util"},
    "reproduce": {"localize", "run", "pressure", "results", "signature", "util"},
    "run": {"pressure", "diagnose", "results", "suite", "signature", "util"},
    "survey": {"signature", "util"},
    "deploy": {"util"},
    "suite": {"signature", "util"},
    "pressure": {"results", "util"},
    "diagnose": {"signature", "util"},
    "results": {"util"},
    "signature": {"util"},
    "util": set(),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def edges(root):
    """(from_stage, to_stage, file, line) for every cross-folder include."""
    out, problems = [], []
    src = os.path.join(root, "src")
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            problems.append(f"src/{name}: every source file lives in a stage folder")
            continue
        if name not in ALLOWED:
            problems.append(f"src/{name}/: not a stage of ALLOWED in scripts/check_layers.py "
                            "(add it there and to docs/ARCHITECTURE.md)")
            continue
        for f in sorted(os.listdir(path)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(path, f), encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                where = f"src/{name}/{f}:{line}"
                if "/" not in inc:
                    problems.append(f"{where}: '#include \"{inc}\"' names no stage folder "
                                    "(write \"STAGE/{inc}\")")
                    continue
                to = inc.split("/", 1)[0]
                if to != name:
                    out.append((name, to, where))
    pre = os.path.join(root, "preload")
    if os.path.isdir(pre):
        for f in sorted(os.listdir(pre)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(pre, f), encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                inc = m.group(1)
                if "/" in inc and not inc.startswith("util/"):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"preload/{f}:{line}: includes '{inc}'; the preload "
                                    "libraries may include util/ only")
    return out, problems


def find_cycle(graph):
    """A list of stages forming a cycle, or None."""
    color, stack = {}, []

    def visit(n):
        color[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if color.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not color.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = 2
        return None

    for n in sorted(graph):
        if not color.get(n):
            c = visit(n)
            if c:
                return c
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    es, problems = edges(root)
    graph = {}
    for a, b, where in es:
        graph.setdefault(a, set()).add(b)
        if b not in ALLOWED.get(a, set()):
            problems.append(f"{where}: src/{a}/ may not include src/{b}/ "
                            f"(allowed: {', '.join(sorted(ALLOWED.get(a, ()))) or 'nothing'}; "
                            "see docs/ARCHITECTURE.md)")
    cycle = find_cycle(graph)
    if cycle:
        problems.append("include cycle between folders: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
