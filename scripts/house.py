#!/usr/bin/env python3
"""The house rules, checked: which Rust file names an item of which, and what breaks the rules.

A file depends on another when it names an item of it: by a `use` line, or by an inline
`crate::...`, `super::...`, `self::...` path or a path through a child module's name. A parent's
`mod child;` does not count. Reported (and the exit status is 1 when any is found):

- a command file (`native/src/*_cmd.rs` or a file under `native/src/*_cmd/`) that depends on a
  file of another command;
- import circles: every set of two or more files that reach each other (strongly connected
  components of the file graph);
- non-test files over 500 lines (`tests.rs` files and `tests/` folders are exempt).

Usage: scripts/house.py [--graph]   (from anywhere; reads the repository it lives in)
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = {
    "memwall_core": "crates/memwall-core/src/lib.rs",
    "memwall_report": "crates/memwall-report/src/lib.rs",
    "memwall": "native/src/main.rs",
    "memwall_web": "web/src/lib.rs",
}
MAX_LINES = 500


def strip(text):
    """Source with comments, strings and char literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Crate:
    def __init__(self, name, root):
        self.name = name
        self.root = root
        self.files = {}  # module path tuple -> file
        self.children = {}  # module path tuple -> {child name}
        self.walk((), root)

    def walk(self, modpath, path):
        self.files[modpath] = path
        text = strip(open(os.path.join(ROOT, path)).read())
        base = os.path.dirname(path)
        stem = os.path.basename(path)[:-3]
        if stem not in ("mod", "lib", "main"):
            base = os.path.join(base, stem)
        kids = self.children.setdefault(modpath, set())
        for m in re.finditer(r"(#\[path\s*=\s*\"\"\]\s*)?\bmod\s+([a-z_][a-z0-9_]*)\s*;", text):
            name = m.group(2)
            kids.add(name)
            for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
                if os.path.exists(os.path.join(ROOT, cand)):
                    self.walk(modpath + (name,), cand)
                    break
        # Inline modules' names are children too (they live in the same file).
        for m in re.finditer(r"\bmod\s+([a-z_][a-z0-9_]*)\s*\{", text):
            kids.add(m.group(1))

    def file_of(self, modpath):
        """The file holding the longest file-module prefix of modpath."""
        for k in range(len(modpath), -1, -1):
            if modpath[:k] in self.files:
                return self.files[modpath[:k]]
        return None


def use_paths(tree):
    """Expand a use tree (`a::{b, c::{d, e}}`) into its paths."""
    tree = re.sub(r"\s+", "", tree)
    depth, start, parts = 0, None, []
    i = tree.find("{")
    if i < 0:
        return [tree]
    prefix = tree[:i]
    inner = tree[i + 1:tree.rfind("}")]
    cur = ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    out = []
    for p in parts:
        for q in use_paths(p):
            out.append(prefix + q if q not in ("self",) else prefix.rstrip(":"))
    return out


def deps_of(crate, modpath, path):
    """Files this file names items of."""
    text = strip(open(os.path.join(ROOT, path)).read())
    deps = set()
    # Inline modules move `super`/`self`: track them by brace depth.
    spans = []  # (start, end, name)
    for m in re.finditer(r"\bmod\s+([a-z_][a-z0-9_]*)\s*\{", text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        spans.append((m.end(), j, m.group(1)))

    def mod_at(pos):
        inner = [s for s in spans if s[0] <= pos < s[1]]
        inner.sort()
        return modpath + tuple(s[2] for s in inner)

    def resolve(segs, here, is_use):
        if not segs:
            return None
        head = segs[0]
        if head == "crate":
            full = list(segs[1:])
        elif head in ("super", "self"):
            cur = list(here)
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    cur = cur[:-1]
                segs = segs[1:]
            full = cur + list(segs)
        elif head in CRATES and head != crate.name:
            return ("ext", head, tuple(segs[1:]))
        elif head in crate.children.get(tuple(here), set()):
            full = list(here) + list(segs)
        elif is_use and not here and head in crate.children.get((), set()):
            full = list(segs)
        else:
            return None
        return ("in", tuple(full))

    def add(res):
        if res is None:
            return
        if res[0] == "in":
            target = crate.file_of(res[1])
        else:
            other = CRATE_OBJS.get(res[1])
            target = other.file_of(res[2]) if other else None
        if target and target != path:
            deps.add(target)

    for m in re.finditer(r"\buse\s+([^;]+);", text):
        for p in use_paths(m.group(1)):
            p = re.sub(r"\bas\b.*$", "", p)
            segs = [s for s in p.split("::") if s and s != "*"]
            add(resolve(segs, mod_at(m.start()), True))
    for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:[a-z_][A-Za-z0-9_]*::)+[A-Za-z_][A-Za-z0-9_]*)", text):
        if re.search(r"\buse\s+[^;]*$", text[max(0, m.start() - 300):m.start()]):
            continue
        segs = m.group(1).split("::")
        add(resolve(segs, mod_at(m.start()), False))
    return deps


def is_test(path):
    return os.path.basename(path) == "tests.rs" or "/tests/" in path


def components(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def command_of(path):
    m = re.match(r"native/src/([a-z_]+_cmd)(?:\.rs|/)", path)
    return m.group(1) if m else None


CRATE_OBJS = {}


def main():
    for name, root in CRATES.items():
        CRATE_OBJS[name] = Crate(name, root)
    graph = {}
    for crate in CRATE_OBJS.values():
        for modpath, path in crate.files.items():
            graph[path] = deps_of(crate, modpath, path)
    if "--graph" in sys.argv:
        for f in sorted(graph):
            for d in sorted(graph[f]):
                print(f"{f} -> {d}")
    problems = 0
    for f in sorted(graph):
        mine = command_of(f)
        if not mine:
            continue
        for d in sorted(graph[f]):
            theirs = command_of(d)
            if theirs and theirs != mine:
                print(f"command depends on another command: {f} -> {d}")
                problems += 1
    for comp in components(graph):
        if len(comp) > 1:
            print(f"import circle of {len(comp)} files: " + ", ".join(comp))
            problems += 1
    for f in sorted(graph):
        lines = open(os.path.join(ROOT, f)).read().count("\n")
        if lines > MAX_LINES and not is_test(f):
            print(f"file over {MAX_LINES} lines: {f} ({lines})")
            problems += 1
    files = len(graph)
    arrows = sum(len(d) for d in graph.values())
    print(f"house: {files} files, {arrows} arrows between them, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
