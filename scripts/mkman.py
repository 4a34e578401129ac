#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the man page of one docs/ page: scripts/mkman.py TALLY PAGE.md > PAGE.1

The Markdown of docs/ is the only source: this script rewrites what man
pages cannot show well (tables become definition lists, links to other
pages become "tally-x(1)", the page title becomes the NAME section, the
other headings move up one level) and hands the result to lowdown, which
writes the roff. The one-line description of the NAME section is the
command's line in `TALLY --help` (TALLY: the tally binary just built).
"""
import os
import re
import subprocess
import sys


def split_row(line):
    """The cells of a Markdown table row ("| a | b \\| c |")."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, cur, i = [], "", 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if body[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += body[i]
        i += 1
    cells.append(cur.strip())
    return cells


def table_to_deflist(rows):
    """A table (header, separator, body rows) as a definition list."""
    head = split_row(rows[0])
    out = []
    for row in rows[2:]:
        cells = split_row(row)
        term = cells[0] if cells and cells[0] else "(none)"
        parts = []
        for name, cell in zip(head[1:], cells[1:]):
            if not cell:
                continue
            label = re.sub(r"[*`]", "", name).strip()
            # a column that says what the term is needs no label
            if label.lower() in ("meaning", "does what", "description", "what"):
                label = ""
            parts.append(f"{label}: {cell}" if label else cell)
        out.append(term)
        out.append(": " + (". ".join(p[0].upper() + p[1:] if p else p for p in parts) if parts else "-"))
        out.append("")
    return out


def fix_links(line, pages):
    def repl(m):
        text, target = m.group(1), m.group(2)
        base = target.split("#")[0]
        name = os.path.basename(base)
        if name.endswith(".md") and name[:-3] in pages:
            return f"{text[:-3] if text.endswith('.md') else text} ({name[:-3]}(1))" \
                if text != name else f"{name[:-3]}(1)"
        if re.match(r"https?://", target):
            return f"{text} <{target}>"
        return text

    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", repl, line)


def convert(md, name, summary, pages):
    lines = md.split("\n")
    out = [f"# NAME", "", f"{name} - {summary}", "", "# DESCRIPTION", ""]
    i = 0
    in_code = False
    seen_title = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_code = not in_code
            out.append(line)
            i += 1
            continue
        if in_code:
            out.append(line)
            i += 1
            continue
        if not seen_title and line.startswith("# "):
            seen_title = True
            i += 1
            continue
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|?\s*$", lines[i + 1]):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(fix_links(lines[i], pages))
                i += 1
            if out and out[-1] != "":
                out.append("")
            out.extend(table_to_deflist(rows))
            continue
        m = re.match(r"^(#{2,6}) (.*)$", line)
        if m:
            level = len(m.group(1)) - 1
            text = m.group(2)
            out.append("#" * level + " " + (text.upper() if level == 1 else text))
            i += 1
            continue
        out.append(fix_links(line, pages))
        i += 1
    see = sorted(f"{p}(1)" for p in pages if p != name)
    if "# SEE ALSO" not in out:
        out += ["", "# SEE ALSO"]
    out += ["", ", ".join(see) + ".", "",
            "The same text, with the internals pages, is in the docs/ directory of the "
            "source tree and in share/doc/tally/ where tally is installed."]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/mkman.py TALLY PAGE.md")
    tally, path = sys.argv[1], sys.argv[2]
    name = os.path.basename(path)[:-3]
    summary = "measure programs and explain where their cost goes"
    if name.startswith("tally-"):
        helptext = subprocess.run([tally, "--help"], capture_output=True, text=True).stdout
        m = re.search(r"^  " + re.escape(name[6:]) + r" +(.*)$", helptext, re.M)
        if not m:
            sys.exit(f"mkman: '{tally} --help' does not list {name[6:]}")
        summary = m.group(1)
    docdir = os.path.dirname(path) or "."
    pages = {f[:-3] for f in os.listdir(docdir) if f.startswith("tally") and f.endswith(".md")}
    with open(path, encoding="utf-8") as fp:
        md = convert(fp.read(), name, summary, pages)
    try:
        r = subprocess.run(["lowdown", "-s", "-Tman", "-M", f"title={name}", "-M", "section=1",
                            "-M", "source=tally", "--parse-no-metadata"],
                           input=md.encode(), capture_output=True)
    except FileNotFoundError:
        sys.exit("mkman: the man pages need lowdown (Debian: apt-get install lowdown, or "
                 "sh scripts/install-deps.sh build)")
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode())
        sys.exit(f"mkman: lowdown failed on {path}")
    sys.stdout.buffer.write(r.stdout)


if __name__ == "__main__":
    main()
