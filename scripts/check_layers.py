#!/usr/bin/python3
"""check_layers.py: the include graph between the folders of src/ (the
stages of docs/ARCHITECTURE.md) points one way and has no cycle, and
neither has the graph between the files.

Every `#include "DIR/file.h"` in src/STAGE/*.[ch] is an edge STAGE -> DIR.
An edge must be allowed by ALLOWED below (the table in ARCHITECTURE.md);
the preload libraries may include util/ only. Whatever the table says, a
cycle between folders is reported with its path.

Between files, src/A/x.c -> src/B/y.c when x.c calls a function that y.c
defines (what its include of y's declarations is for). A cycle there is a
module that cannot be read, tested or replaced without the other; it is
reported with its path and the functions on each edge. A function named in
a backend table without being called (`.write = report_md`) is how the
backends of one header plug in, not a dependency, and makes no edge.
Exit 0 when clean, 1 with one line per problem.

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
# a function defined at the start of a line, not static: its name
DEFINE = re.compile(r'^(?!static\b)(?!typedef\b)[A-Za-z_][\w \t*]*?\b([a-z_]\w*)\s*\([^;{}]*?\)\s*\{',
                    re.M | re.S)
CALL = re.compile(r'\b([a-z_]\w*)\s*\(')
# a declaration at the start of a line (a prototype in a .c file): no call
PROTOTYPE = re.compile(r'^[A-Za-z_][\w \t*]*?\b[a-z_]\w*\s*\([^;{}]*?\)[^;{}]*;', re.M | re.S)


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


def c_code(text):
    """text without comments, string and character literals, or preprocessor lines."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)
    return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)


def file_edges(root):
    """{file: {file: [functions it calls there]}} between the .c files of src/."""
    src = os.path.join(root, "src")
    code, defined = {}, {}
    for d in sorted(os.listdir(src)):
        if d not in ALLOWED or not os.path.isdir(os.path.join(src, d)):
            continue
        for f in sorted(os.listdir(os.path.join(src, d))):
            if f.endswith(".c"):
                name = f"src/{d}/{f}"
                text = c_code(open(os.path.join(src, d, f), encoding="utf-8", errors="replace").read())
                code[name] = text
                for m in DEFINE.finditer(text):
                    defined.setdefault(m.group(1), set()).add(name)
    graph = {}
    for name, text in code.items():
        for fn in sorted(set(CALL.findall(PROTOTYPE.sub(' ', text)))):
            for to in defined.get(fn, ()):
                if to != name:
                    graph.setdefault(name, {}).setdefault(to, []).append(fn)
    return graph


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
    calls = file_edges(root)
    while True:
        cycle = find_cycle(calls)
        if not cycle:
            break
        steps = [f"{a} -> {b} ({', '.join(calls[a][b][:3])}{', ...' if len(calls[a][b]) > 3 else ''})"
                 for a, b in zip(cycle, cycle[1:])]
        problems.append("cycle between files: " + "; ".join(steps) +
                        " (move what both need to a file below them)")
        # one line per cycle: cut its first edge and look again
        calls[cycle[0]] = {k: v for k, v in calls[cycle[0]].items() if k != cycle[1]}
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
