#!/usr/bin/env python3
"""Fails when a backend is named outside its folder and the registry (issue #31).

A backend is one folder, backends/<name>/, plus its name in the registry line (backends/meson.build's
backend_names) and, because Meson options are static, in meson_options.txt's memory_backend choices.
This check proves that holds for every tracked file outside backends/:

  1. the registry line lists exactly the folders of backends/ that have a meson.build, and the
     memory_backend choices are 'auto' and the registry's names, in its order;
  2. no code (comments and prose are free to name backends) uses EDGEMEM_BACKEND_<NAME>,
     -Dmemory_backend=<name> / memory_backend=<name>, a path backends/<name>, a quoted backend name in
     a build or script file, or a quoted backend name on a C/C++ line that speaks of a backend;
  3. no meson.build outside backends/ uses a variable a backend's meson.build defines (its
     dependencies: a backend's dependency is reached through the registry entry only).

A file that must pick a configuration by name would be listed in ALLOWED with the reason, and printed
on every run so the exception stays visible; none is (scripts choose backends by trait through
scripts/registry.sh). Run from anywhere: python3 scripts/check_backend_names.py
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# file or folder prefix -> why it may still name backends (empty: every script reads the registry)
ALLOWED = {}
SKIP_SUFFIXES = (".md", ".bin", ".png", ".json", ".supp")  # prose and data
SKIP_PREFIXES = ("backends/", "docs/", "subprojects/")


def fail(msg, problems):
    problems.append(msg)


def registry():
    text = open(os.path.join(ROOT, "backends", "meson.build")).read()
    m = re.search(r"^backend_names = \[(.*)\]", text, re.M)
    if not m:
        sys.exit("check_backend_names: no backend_names line in backends/meson.build")
    return re.findall(r"'([a-z0-9_]+)'", m.group(1))


def strip_comments(path, text):
    """The code of a file with its comments blanked (line numbers kept)."""
    if path.endswith((".cpp", ".hpp", ".inc", ".h", ".c", ".in")):
        text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
        return re.sub(r"//[^\n]*", "", text)
    # meson, shell, python, ini: '#' to the end of the line, outside quotes (roughly: not after a quote
    # opened on that line)
    out = []
    for line in text.split("\n"):
        quote = None
        cut = len(line)
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif (ch == "#" and (i == 0 or line[i - 1] not in "${")) or (ch == ";" and path.endswith(".ini")):
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def main():
    problems = []
    names = registry()
    folders = sorted(d for d in os.listdir(os.path.join(ROOT, "backends"))
                     if os.path.isfile(os.path.join(ROOT, "backends", d, "meson.build")))
    if sorted(names) != folders:
        fail(f"backends/meson.build lists {names}, the folders with a meson.build are {folders}", problems)
    opts = open(os.path.join(ROOT, "meson_options.txt")).read()
    m = re.search(r"option\('memory_backend',[^)]*?choices: \[([^\]]*)\]", opts, re.S)
    choices = re.findall(r"'([a-z0-9_]+)'", m.group(1)) if m else []
    if choices != ["auto"] + names:
        fail(f"meson_options.txt memory_backend choices {choices}, expected {['auto'] + names}", problems)

    # Variables each backend's meson.build files define (rule 3): its entry's, its tests' and benches'.
    backend_vars = {}
    for b in folders:
        for dirpath, _, names_here in os.walk(os.path.join(ROOT, "backends", b)):
            if "meson.build" not in names_here:
                continue
            for var in re.findall(r"^\s*([a-z_][a-z0-9_]*)\s*\+?=", open(os.path.join(dirpath, "meson.build")).read(), re.M):
                if var != "backend_registry":
                    backend_vars[var] = b

    alt = "|".join(map(re.escape, names))
    macro = re.compile(r"\bEDGEMEM_BACKEND_(%s)\b" % "|".join(n.upper() for n in names))
    option = re.compile(r"memory_backend=(%s)\b" % alt)
    path_re = re.compile(r"\bbackends/(%s)\b|'backends'\s*/\s*'(%s)'" % (alt, alt))
    quoted = re.compile(r"""(['"])(%s)\1""" % alt)
    var_re = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, backend_vars))) if backend_vars else None

    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    used_allowances = set()
    for path in files:
        if path.startswith(SKIP_PREFIXES) or path.endswith(SKIP_SUFFIXES) or path == "meson_options.txt":
            continue
        allowed = next((a for a in ALLOWED if path == a or (a.endswith("/") and path.startswith(a))), None)
        full = os.path.join(ROOT, path)
        if not os.path.isfile(full):
            continue
        try:
            text = open(full, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        code = strip_comments(path, text)
        build_or_script = path.endswith(("meson.build", ".sh", ".py", ".ini")) or path.startswith(".ci/")
        for n, line in enumerate(code.split("\n"), 1):
            hits = []
            if macro.search(line):
                hits.append("EDGEMEM_BACKEND_<NAME>")
            if option.search(line):
                hits.append("memory_backend=<name>")
            if path_re.search(line):
                hits.append("a path into backends/<name>")
            if quoted.search(line) and (build_or_script or re.search(r"backend", line, re.I)):
                hits.append("a quoted backend name")
            if var_re and path.endswith("meson.build") and var_re.search(line):
                hits.append(f"the variable {var_re.search(line).group(1)} of backends/{backend_vars[var_re.search(line).group(1)]}/meson.build")
            if hits:
                if allowed:
                    used_allowances.add(allowed)
                else:
                    fail(f"{path}:{n}: {', '.join(hits)}: {line.strip()}", problems)
    for a in sorted(used_allowances):
        print(f"check_backend_names: allowed to name backends: {a} ({ALLOWED[a]})")
    for a in sorted(set(ALLOWED) - used_allowances):
        fail(f"ALLOWED lists {a}, which names no backend any more: remove it", problems)
    if problems:
        for p in problems:
            print("check_backend_names:", p, file=sys.stderr)
        print(f"check_backend_names: {len(problems)} problem(s): a backend is named outside backends/ and the "
              "registry (see docs/adding_a_backend.md)", file=sys.stderr)
        return 1
    print(f"check_backend_names: backends {names}: named only in backends/, the registry line and the option choices")
    return 0


if __name__ == "__main__":
    sys.exit(main())
