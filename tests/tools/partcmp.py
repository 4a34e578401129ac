#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the parts of two callgrind files (Callgrind's, tally's).

usage: partcmp.py [--tol N] [--order-only] [--fns F,G] [--exact H,I] CG TL

Each file may be a list of files joined by ':' (--combine-dumps=no: one
part per file). Checks, part by part: the same number of parts, the same
`part:` numbers and `desc: Trigger:` lines; the totals and the self costs
(first event, Ir) of the --fns functions within N (a block that runs
across a dump or a switch is charged when it starts by Callgrind, as its
instructions run by tally); the --exact functions equal. With --order-only
only the triggers are compared. Prints one line per part; exits 1 on a
difference.
"""
import collections
import re
import sys


def parts(paths):
    res = []
    for path in paths.split(':'):
        cur = None
        fn = None
        names = {}
        skip = False
        for line in open(path):
            line = line.rstrip('\n')
            if line.startswith('part:'):
                cur = {'part': int(line.split()[1]), 'trigger': None, 'totals': None,
                       'self': collections.Counter()}
                res.append(cur)
                fn = None
                continue
            if cur is None:
                continue
            if line.startswith('desc: Trigger: '):
                cur['trigger'] = line[len('desc: Trigger: '):]
            elif line.startswith('totals:'):
                cur['totals'] = int(line.split()[1])
            elif line.startswith(('fn=', 'cfn=')):
                key, val = line.split('=', 1)
                m = re.match(r'\((\d+)\)(?: (.*))?$', val)
                name = val
                if m:
                    if m.group(2) is not None:
                        names[m.group(1)] = m.group(2)
                    name = names.get(m.group(1), val)
                if key == 'fn':
                    fn = name
            elif line.startswith('calls='):
                skip = True
            elif line and (line[0].isdigit() or line[0] in '+-*'):
                if skip:
                    skip = False
                    continue
                f = line.split()
                if len(f) >= 2 and fn:
                    cur['self'][fn] += int(f[1])
    return res


def main(argv):
    tol, order_only, fns, exact = 0, False, [], []
    while argv and argv[0].startswith('--'):
        o = argv.pop(0)
        if o == '--tol':
            tol = int(argv.pop(0))
        elif o == '--order-only':
            order_only = True
        elif o == '--fns':
            fns = argv.pop(0).split(',')
        elif o == '--exact':
            exact = argv.pop(0).split(',')
    a, b = parts(argv[0]), parts(argv[1])
    bad = 0
    if len(a) != len(b):
        print('parts: Callgrind %d, tally %d' % (len(a), len(b)))
        bad = 1
    for x, y in zip(a, b):
        why = []
        if x['part'] != y['part'] or x['trigger'] != y['trigger']:
            why.append('header')
        if not order_only:
            if abs(x['totals'] - y['totals']) > tol:
                why.append('totals')
            for f in fns:
                if abs(x['self'][f] - y['self'][f]) > tol:
                    why.append(f)
            for f in exact:
                if x['self'][f] != y['self'][f]:
                    why.append(f)
        print('part %d/%d %r/%r totals %d/%d %s%s' % (
            x['part'], y['part'], x['trigger'], y['trigger'], x['totals'], y['totals'],
            ' '.join('%s=%d/%d' % (f, x['self'][f], y['self'][f]) for f in fns + exact),
            ' DIFFERS: ' + ','.join(why) if why else ''))
        bad |= bool(why)
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
