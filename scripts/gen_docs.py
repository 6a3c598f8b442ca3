#!/usr/bin/python3
"""gen_docs.py: the --help texts are the one source of jostle's options.

Each command's `jostle CMD --help` defines its options (the lines that start
with `-x, --opt` or `--opt`). From them this script

  check JOSTLE [ROOT]    checks the guide and the man page against them and
                         prints one TAP line per check (tests/e2e/t900-docs.sh):
                         every option a command defines is in one of its
                         guide pages (docs/*.md, outside the README) and in
                         docs/jostle.1; every option in an option table of
                         docs/*.md (first column "option") or in a .TP entry
                         of the man page is one that some --help defines (no
                         stale option); every command has a .SS section and
                         a SYNOPSIS line; where --help gives "(default V)",
                         the option's table rows and man entries that speak
                         of a default say V.
  links [ROOT]           checks that every relative link of README.md and
                         docs/*.md names a file that exists, and a heading of
                         it where it has a #fragment, and that every guide
                         page shows its examples first: a code block within
                         its first 12 lines (TAP, t900).
  table JOSTLE CMD       prints the option table of CMD as Markdown, for a
                         guide page (hand-edit the meanings from there).
  man JOSTLE CMD         prints the .TP entries of CMD for the man page.
  examples JOSTLE [ROOT] [--list]
                         finds every `jostle CMD ...` command shown in README.md
                         and docs/*.md (code blocks and code spans) and checks,
                         one TAP line each, that CMD is a command and that every
                         option it gives before `--` is one CMD takes
                         (tests/e2e/t905-docs-commands.sh); --list prints them
                         as FILE:LINE<TAB>COMMAND instead.

Why check and not generate whole pages: the pages say far more than --help
(why, examples, limits), so the --help text is the source of the option
list and its one-line meaning, and the pages are held to it.
"""
import os
import re
import shlex
import subprocess
import sys

# The guide pages that document a command's options. A command not listed
# is documented in docs/CMD.md. Options of `jostle run` are spread over the
# topic pages, and localize, bisect, slurm, k8s and reproduce take them too.
PAGES = {
    "run": ["run.md", "chaos.md", "auto.md", "diagnosis.md", "timeouts.md",
            "motion.md", "reports.md", "tests.md", "clusters.md", "reproduce.md"],
    "explain": ["diagnosis.md"],
    "stacks": ["diagnosis.md"],
    "report": ["reports.md"],
    "compare": ["reports.md"],
    "merge": ["reports.md", "clusters.md"],
    "slurm": ["clusters.md"],
    "k8s": ["clusters.md"],
}

DEF_RE = re.compile(r"^\s{1,8}(?:(-[A-Za-z]), )?(--[a-z][a-z0-9-]*)(.*)$")
ARG_RE = re.compile(r"^[ =]([A-Z][A-Z0-9_|,.=:/-]*)(?=\s{2,}|$)")
OPT_RE = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def helptext(jostle, cmd=None):
    argv = [jostle] + ([cmd] if cmd else []) + ["--help"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    return p.returncode, p.stdout


def commands(jostle):
    _, text = helptext(jostle)
    cmds, on = [], False
    for line in text.splitlines():
        if line.startswith("commands:"):
            on = True
            continue
        m = re.match(r"^  ([a-z][a-z0-9]*)\s", line)
        if on and m:
            cmds.append(m.group(1))
        elif on and line and not line.startswith(" "):
            on = False
    return cmds


def definitions(text):
    """The options a --help text defines, in order: (short, long, arg, meaning).

    A definition line is indented and starts with "-x, --opt" or "--opt",
    then maybe an argument in capitals (N, DUR, NAME=V1,V2,...), then two or
    more spaces and the meaning, which may go on in lines indented deeper."""
    defs, cur = [], None
    for line in text.splitlines():
        m = DEF_RE.match(line)
        if m:
            short, opt, rest = m.groups()
            am = ARG_RE.match(rest)
            arg = am.group(1) if am else ""
            meaning = (rest[am.end():] if am else rest).strip()
            cur = None
            if opt == "--help":
                continue
            cur = [short or "", opt, arg, meaning]
            defs.append(cur)
        elif cur is not None and re.match(r"^\s{10,}\S", line):
            cur[3] = (cur[3] + " " + line.strip()).strip()
        else:
            cur = None
    return [tuple(d) for d in defs]


def pages_of(cmd):
    return PAGES.get(cmd, [cmd + ".md"])


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def man_escape(opt):
    return opt.replace("-", "\\-")


def table_options(md):
    """Options named in the first cell of a row of an option table: a
    Markdown table whose first column is headed "option" (a table of
    programs may name a program's own --fixed)."""
    found, in_opts, prev = set(), False, ""
    for line in md.splitlines():
        m = re.match(r"^\|\s*([^|]*)\|", line)
        if not m:
            in_opts = False
        elif re.match(r"^\|\s*:?-{3,}", line):
            in_opts = prev.strip().lower().startswith("option")
        elif in_opts:
            found.update(OPT_RE.findall(m.group(1)))
        if m:
            prev = m.group(1)
    return found


def doc_rows(md):
    """Option -> the Markdown table rows whose first cell names it."""
    rows = {}
    for line in md.splitlines():
        m = re.match(r"^\|\s*([^|]*)\|", line)
        if m:
            for opt in OPT_RE.findall(m.group(1)):
                rows.setdefault(opt, []).append(line)
    return rows


def man_entries(man):
    """Option -> the text of each .TP entry of the man page that names it."""
    entries, lines = {}, man.replace("\\-", "-").splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith(".TP"):
            body = []
            for l in lines[i + 2:]:
                if l.startswith((".TP", ".SS", ".SH", ".PP")):
                    break
                body.append(re.sub(r"\\f[BIRP]", "", l))
            for opt in OPT_RE.findall(lines[i + 1]):
                entries.setdefault(opt, []).append(" ".join(body))
    return entries


def man_tp_options(man):
    """Options named on the line after each .TP of the man page."""
    found, lines = set(), man.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith(".TP"):
            found.update(OPT_RE.findall(lines[i + 1].replace("\\-", "-")))
    return found


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, why=""):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, what))
        if not ok:
            self.failed += 1
            if why:
                print("#   " + why)


def check(jostle, root):
    tap = Tap()
    docs = os.path.join(root, "docs")
    man = read(os.path.join(docs, "jostle.1")) or ""
    man_ents = man_entries(man)
    cmds = commands(jostle)
    tap.check(bool(cmds), "jostle --help lists commands")
    defined = set()
    for cmd in cmds:
        rc, text = helptext(jostle, cmd)
        tap.check(rc == 0, "%s --help exits 0" % cmd)
        defs = definitions(text)
        defined.update(d[1] for d in defs)
        pages = [(p, read(os.path.join(docs, p))) for p in pages_of(cmd)]
        present = [(p, t) for p, t in pages if t is not None]
        tap.check(bool(present), "docs/ has a page for %s" % cmd,
                  "none of docs/%s exists" % ", docs/".join(pages_of(cmd)))
        guide = "\n".join(t for _, t in present)
        tap.check("jostle %s" % cmd in guide, "docs/ shows 'jostle %s'" % cmd,
                  "no 'jostle %s' in docs/%s" % (cmd, ", docs/".join(p for p, _ in present)))
        tap.check(re.search(r"^\.SS.*\b%s\b" % re.escape(cmd), man, re.M) is not None,
                  "man page has a section for %s" % cmd)
        rows = doc_rows(guide)
        for short, opt, _, meaning in defs:
            dm = re.search(r"\(default ([^\s,;)]+)[;)]", meaning)
            mine = [r for r in rows.get(opt, []) if "default" in r]
            want = dm.group(1).split("<")[0] if dm else ""   # jostle-<seed>: its fixed part
            end = "" if dm and "<" in dm.group(1) else r"(?![\w.])"
            if dm and mine:
                tap.check(any(re.search(r"(?<![\w.])`?%s`?%s" % (re.escape(want), end), r) for r in mine),
                          "docs/ gives the default of %s %s as --help does (%s)" % (cmd, opt, want),
                          "a table row of %s says another default: %s" % (opt, mine[0][:160]))
            mine = [e for e in man_ents.get(opt, []) if "default" in e]
            if dm and mine:
                tap.check(any(re.search(r"(?<![\w.])%s%s" % (re.escape(want), end), e) for e in mine),
                          "man page gives the default of %s %s as --help does (%s)" % (cmd, opt, want),
                          "its .TP entry says another default: %s" % mine[0][:160])
            tap.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), guide) is not None,
                      "docs/ documents %s %s" % (cmd, opt),
                      "add it to docs/%s (a table row `| `%s ...` | meaning |`)" % (pages_of(cmd)[0], opt))
            tap.check(man_escape(opt) in man, "man page documents %s %s" % (cmd, opt),
                      "add a .TP entry to docs/jostle.1 (scripts/gen_docs.py man JOSTLE %s prints them)" % cmd)
    # Nothing documented that no command defines (a renamed or removed option).
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".md"):
            continue
        for opt in sorted(table_options(read(os.path.join(docs, name)) or "")):
            tap.check(opt in defined, "docs/%s: %s is an option of jostle" % (name, opt),
                      "no command's --help defines %s" % opt)
    for opt in sorted(man_tp_options(man)):
        tap.check(opt in defined, "man page: %s is an option of jostle" % opt,
                  "no command's --help defines %s" % opt)
    syn = re.search(r"^\.SH SYNOPSIS\n(.*?)^\.SH", man, re.M | re.S)
    syn = syn.group(1) if syn else ""
    for cmd in cmds:
        tap.check(re.search(r"^\.B jostle %s\b" % re.escape(cmd), syn, re.M) is not None,
                  "man SYNOPSIS lists 'jostle %s'" % cmd)
    return tap.failed


NOT_GUIDE = {"README.md", "FORMAT.md", "ARCHITECTURE.md"}   # index and references
CMD_RE = re.compile(r"(?:^|[\s'\"(;&|])(?:\$J|(?:\S*/)?jostle)\s+([a-z][a-z0-9]*)(?=\s|$|`)(.*)$")
STOP = {"|", "||", "&&", ";", ">", ">>", "<", "2>&1", "&"}


def shown_commands(root):
    """(file, line, text) of every jostle command in a code block or span."""
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    files += [os.path.join(docs, n) for n in sorted(os.listdir(docs)) if n.endswith(".md")]
    found = []
    for path in files:
        text = read(path) or ""
        rel = os.path.relpath(path, root)
        lines = text.split("\n")
        fenced, i = False, 0
        while i < len(lines):
            line, no = lines[i], i + 1
            if line.lstrip().startswith("```"):
                fenced = not fenced
                i += 1
                continue
            # a shell line continued with a backslash is one command
            while (fenced or line.startswith("    ")) and line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
            if fenced or line.startswith("    "):
                code = re.sub(r"\s#\s.*$", "", line.strip())    # a comment
                code = [code[2:] if code.startswith("$ ") else code]
            else:
                code = [c for c in re.findall(r"`([^`]+)`", line)
                        if re.match(r"^(\$J|(\S*/)?jostle) [a-z]", c)]
            for c in code:
                m = CMD_RE.search(c)
                if m:
                    found.append((rel, no, c[m.start():].strip()))
    return found


def takes_run_options(text):
    return re.search(r"(every option of|those of) 'jostle run'", text) is not None


def option_sets(jostle):
    cmds = commands(jostle)
    sets = {}
    run_defs = definitions(helptext(jostle, "run")[1])
    for cmd in cmds:
        text = helptext(jostle, cmd)[1]
        defs = definitions(text) + (run_defs if takes_run_options(text) and cmd != "run" else [])
        longs = {d[1] for d in defs} | {"--help"}
        shorts = {d[0] for d in defs if d[0]} | {"-h"}
        sets[cmd] = (longs, shorts)
    return sets


def used_options(cmdline):
    """The options a shown command gives jostle: those before `--`."""
    m = CMD_RE.search(cmdline)
    sub, rest = m.group(1), m.group(2)
    rest = re.sub(r"\s#\s.*$", "", rest)          # a trailing comment
    try:
        toks = shlex.split(rest, posix=True)
    except ValueError:
        toks = rest.split()
    opts = []
    for t in toks:
        if t == "--" or t in STOP or t.startswith(">"):
            break
        t = t.strip("[]`")
        if re.match(r"^--[a-z][a-z0-9-]*", t):
            opts.append(re.match(r"^--[a-z][a-z0-9-]*", t).group(0))
        elif re.match(r"^-[A-Za-z]$", t) or re.match(r"^-[A-Za-z][0-9]", t):
            opts.append(t[:2])
    return sub, opts


def examples(jostle, root, listing=False):
    shown = shown_commands(root)
    if listing:
        for rel, no, c in shown:
            print("%s:%d\t%s" % (rel, no, c))
        return 0
    tap = Tap()
    sets = option_sets(jostle)
    tap.check(len(shown) > 0, "README.md and docs/ show jostle commands (%d)" % len(shown))
    for rel, no, c in shown:
        sub, opts = used_options(c)
        where = "%s:%d" % (rel, no)
        if sub not in sets:
            tap.check(False, "%s: 'jostle %s' is a command" % (where, sub), c)
            continue
        longs, shorts = sets[sub]
        bad = [o for o in opts if o not in (longs if o.startswith("--") else shorts)]
        tap.check(not bad, "%s: jostle %s %s" % (where, sub, " ".join(opts) or "(no options)"),
                  "not an option of 'jostle %s': %s; in: %s" % (sub, ", ".join(bad), c))
    return tap.failed


def slug(heading):
    """GitHub's anchor of a Markdown heading."""
    h = heading.strip().lower().replace("`", "")
    h = re.sub(r"[^\w\- ]", "", h, flags=re.UNICODE)
    return h.replace(" ", "-")


def anchors(text):
    found, seen, fenced = set(), {}, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if m and not fenced:
            a = slug(m.group(1))
            n = seen.get(a, 0)
            seen[a] = n + 1
            found.add(a if n == 0 else "%s-%d" % (a, n))
    return found


def links(root):
    tap = Tap()
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    files += [os.path.join(docs, n) for n in sorted(os.listdir(docs)) if n.endswith(".md")]
    for path in files:
        text = read(path) or ""
        rel = os.path.relpath(path, root)
        for target in sorted(set(re.findall(r"\]\(([^)\s]+)\)", text))):
            if re.match(r"^[a-z]+:", target):
                continue                     # http:, https:, mailto:
            file, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                tap.check(False, "%s: link %s" % (rel, target), "no file %s" % os.path.relpath(dest, root))
                continue
            if frag and dest.endswith(".md"):
                tap.check(frag in anchors(read(dest) or ""), "%s: link %s" % (rel, target),
                          "no heading with anchor #%s in %s" % (frag, os.path.relpath(dest, root)))
            else:
                tap.check(True, "%s: link %s" % (rel, target))
    for path in files[1:]:
        name = os.path.basename(path)
        if name in NOT_GUIDE:
            continue
        head = (read(path) or "").split("\n")[:12]
        tap.check(any(l.startswith("    ") or l.startswith("```") for l in head),
                  "docs/%s shows its examples first" % name,
                  "put a few example commands right under the title")
    return tap.failed


def table(jostle, cmd):
    _, text = helptext(jostle, cmd)
    print("| option | meaning |")
    print("| --- | --- |")
    for short, opt, arg, meaning in definitions(text):
        name = ("%s, %s" % (short, opt)) if short else opt
        print("| `%s` | %s |" % ((name + (" " + arg if arg else "")).replace("|", "\\|"), meaning.replace("|", "\\|")))


def manpage(jostle, cmd):
    _, text = helptext(jostle, cmd)
    for short, opt, arg, meaning in definitions(text):
        name = ("\\fB%s\\fR, \\fB%s\\fR" % (man_escape(short), man_escape(opt))) if short else "\\fB%s\\fR" % man_escape(opt)
        print(".TP")
        print(name + ((" \\fI%s\\fR" % arg) if arg else ""))
        print(meaning.replace("-", "\\-"))


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        root = argv[3] if len(argv) > 3 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        check(argv[2], root)
        return 0  # TAP: the failures are the "not ok" lines
    if len(argv) == 4 and argv[1] == "table":
        table(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "man":
        manpage(argv[2], argv[3])
        return 0
    if len(argv) >= 2 and argv[1] == "links":
        links(argv[2] if len(argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        return 0
    if len(argv) >= 3 and argv[1] == "examples":
        rest = [a for a in argv[3:] if a != "--list"]
        root = rest[0] if rest else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        examples(argv[2], root, "--list" in argv[3:])
        return 0
    sys.stderr.write("usage: gen_docs.py check JOSTLE [ROOT] | examples JOSTLE [ROOT] [--list] | table JOSTLE CMD | man JOSTLE CMD\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
