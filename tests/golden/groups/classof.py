# SPDX-License-Identifier: GPL-2.0-or-later
"""The test's own reading of a C++ function's class (tests/golden/groups.sh),
written apart from tally's (analysis/groups.c): the scope before the last
top-level "::" of the name without its parameters, each <...> folded; no
scope: (none)."""
import re


def cls(name):
    name = re.sub(r"\(([^()]|\([^()]*\))*\)( const)?$", "", name)
    depth, last = 0, -1
    for i, c in enumerate(name):
        depth += c in "<({"
        depth -= c in ">)}"
        if depth == 0 and name.startswith("::", i):
            last = i
    if last < 0:
        return "(none)"
    scope, out, d = name[:last].split(" ")[-1], "", 0
    for c in scope:
        if c == "<":
            if d == 0:
                out += "<...>"
            d += 1
        elif c == ">":
            d -= 1
        elif d == 0:
            out += c
    return out
