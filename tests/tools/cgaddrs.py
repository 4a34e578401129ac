#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The addresses of a callgrind file written with positions: instr line.

Prints one line "OBJECT KIND ADDRESS" (object by its base name, address in
hex) for every cost line (cost), call target (call) and jump target (jump),
sorted and unique, so that two files of the same run compare as sets.
Relative positions (+N, -N, *) are relative to the last cost line's; a
target does not move it.
"""
import os
import re
import sys


def main(path):
    names = {}
    ob = cob = None
    last = 0
    out = set()

    def obj(v):
        m = re.match(r'\((\d+)\)\s*(.*)', v)
        if not m:
            return v
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), '?')

    def pos(tok, base):
        if tok == '*':
            return base
        if tok[0] in '+-':
            return base + int(tok, 0)
        return int(tok, 0)

    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('ob='):
                ob = obj(line[3:])
                cob = None
            elif line.startswith('cob='):
                cob = obj(line[4:])
            elif line.startswith('calls='):
                t = line.split()[1:]
                out.add((os.path.basename(cob or ob), 'call', pos(t[0], last)))
                cob = None
            elif line.startswith(('jump=', 'jcnd=')):
                t = line.split()[1:]
                out.add((os.path.basename(ob), 'jump', pos(t[0], last)))
            elif line and (line[0] in '+-*' or line.startswith('0x')):
                last = pos(line.split()[0], last)
                out.add((os.path.basename(ob), 'cost', last))
    for o, k, a in sorted(out):
        print('%s %s 0x%x' % (o, k, a))


if __name__ == '__main__':
    main(sys.argv[1])
