#!/usr/bin/env python3
"""Checks that the docs cannot drift from the tree (issue #31). Run from the repository root:

    python3 scripts/check_docs.py

(a) every path the README's architecture map (the fenced block under "## Architecture") names exists;
    a `<name>` placeholder is expanded over the real folders (at least one must match), `{a,b}` and `*`
    as the shell does;
(b) every folder directly under src/ and backends/, and every top-level folder of the project, is named
    in the map;
(c) every relative markdown link [text](path) in README.md, CHANGELOG.md and docs/**/*.md points to a
    file or folder that exists (http(s), mailto and pure #anchor links are ignored; #anchors are cut);
(d) the backend contract's rows (the X(...) lines of src/contract/backend_contract.hpp) and its prose
    agree: every operation is named in the header's /// documentation, and the table of operations in
    docs/adding_a_backend.md (between the contract-rows markers) is the one generated from the rows.
    `python3 scripts/check_docs.py --write` regenerates that table.

Exit status 0 when everything holds, 1 (with one line per problem) otherwise. Standard library only.
"""
import glob
import os
import re
import sys

# Top-level folders the map must name (include/ too: it is the public API).
TOP_LEVEL = ["include", "src", "backends", "bench", "tests", "examples", "tools", "scripts", "docs", "cross",
             "subprojects"]
# Folders whose direct sub-folders must each be named.
MUST_NAME_CHILDREN = ["src", "backends"]

PATH_TOKEN = re.compile(r"(?<![\w./<>{}*-])((?:%s)/[\w./<>{},*-]*)" % "|".join(TOP_LEVEL))
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def architecture_map(readme_text):
    """The text of the first fenced block after the '## Architecture' heading, or None."""
    m = re.search(r"^## Architecture[^\n]*\n(.*?)(?=^## |\Z)", readme_text, re.S | re.M)
    if not m:
        return None
    block = re.search(r"^```[^\n]*\n(.*?)^```", m.group(1), re.S | re.M)
    return block.group(1) if block else None


def expand_braces(pattern):
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(pattern[:m.start()] + alt + pattern[m.end():]))
    return out


def path_exists(token):
    """True when the map's path token names something in the tree."""
    pattern = re.sub(r"<[^<>/]+>", "*", token)  # backends/<name>/ -> backends/*/
    for p in expand_braces(pattern):
        p = p.rstrip("/") or p
        if any(ch in p for ch in "*?["):
            if glob.glob(p):
                return True
        elif os.path.exists(p):
            return True
    return False


def check_map(errors):
    try:
        readme = open("README.md", encoding="utf-8").read()
    except OSError as e:
        errors.append("README.md: cannot read it (%s); run from the repository root" % e)
        return
    block = architecture_map(readme)
    if block is None:
        errors.append("README.md: no fenced block under '## Architecture' (the architecture map)")
        return
    tokens = []
    for line in block.splitlines():
        for m in PATH_TOKEN.finditer(line):
            tok = m.group(1).rstrip(".,;:)")
            tokens.append(tok)
    named = set()
    for tok in tokens:
        if not path_exists(tok):
            errors.append("README.md architecture map: '%s' does not exist" % tok)
        parts = tok.rstrip("/").split("/")
        named.add(parts[0])
        if len(parts) >= 2:
            named.add(parts[0] + "/" + parts[1])
    for top in TOP_LEVEL:
        if os.path.isdir(top) and top not in named:
            errors.append("README.md architecture map: the folder '%s/' is not named" % top)
    for parent in MUST_NAME_CHILDREN:
        if not os.path.isdir(parent):
            continue
        for child in sorted(os.listdir(parent)):
            full = parent + "/" + child
            if not os.path.isdir(full) or child.startswith("."):
                continue
            if not os.listdir(full):
                continue  # an empty folder left by a move is not part of the tree git keeps
            if full not in named:
                errors.append("README.md architecture map: the folder '%s/' is not named" % full)


def markdown_files():
    files = [f for f in ("README.md", "CHANGELOG.md") if os.path.isfile(f)]
    files += sorted(glob.glob("docs/**/*.md", recursive=True))
    return files


def strip_code(text):
    """Text with fenced blocks and inline code removed (links inside code are not links)."""
    text = re.sub(r"^```.*?^```[^\n]*$", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def check_links(errors):
    for md in markdown_files():
        text = strip_code(open(md, encoding="utf-8").read())
        base = os.path.dirname(md)
        for m in LINK.finditer(text):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # http(s), mailto, ...; an anchor in the same file
            path = target.split("#", 1)[0].split("?", 1)[0]
            if not path:
                continue
            if not os.path.exists(os.path.normpath(os.path.join(base, path))):
                line = text.count("\n", 0, m.start()) + 1
                errors.append("%s:%d: link to '%s', which does not exist" % (md, line, target))


CONTRACT = "src/contract/backend_contract.hpp"
ROWS_DOC = "docs/adding_a_backend.md"
ROWS_BEGIN = "<!-- contract-rows:begin (generated by scripts/check_docs.py --write from the contract's rows) -->"
ROWS_END = "<!-- contract-rows:end -->"
ROW = re.compile(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*([\w:<>*]+)\s*,\s*\((.*?)\)\s*\)", re.S)


def contract_rows():
    """(group, name, fault, errc, returns, parameters) of every operation row, in the header's order."""
    text = open(CONTRACT).read()
    text = re.sub(r"\\\n", " ", text)  # macro line continuations
    rows = []
    for m in ROW.finditer(text):
        group, name, fault, errc, returns, params = m.groups()
        if group == "group":  # the comment describing the row format
            continue
        rows.append((group, name, fault, errc, returns, re.sub(r"\s+", " ", params).replace(" &", "&").strip()))
    return rows


def rows_table(rows):
    lines = ["| group | operation | returns | parameters | fault point (`fault_injection`) |", "|---|---|---|---|---|"]
    for group, name, fault, errc, returns, params in rows:
        point = "none" if fault == "never" else "%s the call: `%s`" % (fault, errc)
        lines.append("| %s | `%s` | `%s` | `%s` | %s |" % (group, name, returns, params, point))
    return "\n".join(lines)


def check_contract(errors, write):
    rows = contract_rows()
    if len(rows) < 30:
        errors.append("%s: found only %d operation rows; has the X(...) format changed?" % (CONTRACT, len(rows)))
        return
    doc = " ".join(l for l in open(CONTRACT).read().splitlines() if l.lstrip().startswith("///"))
    for row in rows:
        if not re.search(r"\b%s\b" % re.escape(row[1]), doc):
            errors.append("%s: operation '%s' has a row but no word in the header's /// documentation" % (CONTRACT, row[1]))
    text = open(ROWS_DOC).read()
    if ROWS_BEGIN not in text or ROWS_END not in text:
        errors.append("%s: the contract-rows markers are missing" % ROWS_DOC)
        return
    head, rest = text.split(ROWS_BEGIN, 1)
    _, tail = rest.split(ROWS_END, 1)
    wanted = head + ROWS_BEGIN + "\n" + rows_table(rows) + "\n" + ROWS_END + tail
    if wanted != text:
        if write:
            open(ROWS_DOC, "w").write(wanted)
            print("check_docs: wrote the contract's table into %s" % ROWS_DOC)
        else:
            errors.append("%s: the table of operations differs from the contract's rows "
                          "(run python3 scripts/check_docs.py --write)" % ROWS_DOC)


def main():
    errors = []
    check_map(errors)
    check_links(errors)
    check_contract(errors, "--write" in sys.argv[1:])
    if errors:
        for e in errors:
            print("check_docs: " + e, file=sys.stderr)
        print("check_docs: %d problem(s); fix the docs or the tree so they agree" % len(errors), file=sys.stderr)
        return 1
    print("check_docs: architecture map, %d markdown files and the contract's %d operations agree with the tree"
          % (len(markdown_files()), len(contract_rows())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
