#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check the call graph of callgrind-format files (tests' tool).

  cgcheck.py check FILE...        invariants of each part, one line per part:
      every function with a cost has a caller, apart from the roots (the
      pseudo functions `<signal N>`, and --root NAME, repeatable);
      no function outside a cycle has an inclusive cost (the sum of the
      arcs into it) below that of one arc out of it;
      the roots (self cost plus the arcs out of them) add up to the total.
    Prints "PART functions=N unsymbolled=N orphans=N below=N roots=R total=T"
    and exits 1 when an invariant fails.
  cgcheck.py arcs FILE [--through-stubs]
                                 "CALLER -> CALLEE COUNT" for every arc
                                 between functions named by symbols (summed
                                 over parts and objects); --through-stubs
                                 makes PLT stubs that a file shows as
                                 functions 0x... transparent (Callgrind's
                                 .plt.got and .plt.sec stubs)
 cgcheck.py arcs-in FILE OBJ   the same for the arcs between functions of
                                 the objects whose path ends with OBJ
  cgcheck.py self-in FILE OBJ    "FUNCTION SELF" (first event) for every
                                 function of the objects whose path ends
                                 with OBJ, summed over parts
  cgcheck.py stat FILE KEY       one figure: unsymbolled, functions,
                                 functions:OBJ (of the objects whose path ends
                                 with OBJ), or incl:NAME (inclusive cost of
                                 NAME, first event)
"""
import collections
import re
import subprocess
import sys

UNSYM = re.compile(r'^0x[0-9a-f]+$')


def name_table(unknown):
    """The names of one callgrind file's compressed ids: the function
    nm(kind, v) gives the name of a value of ob=, fl= or fn= (and their
    c/j forms), "(id) name" defining it and "(id)" using it; an id used
    before any definition gives unknown(id)."""
    names = {'fl': {}, 'fn': {}, 'ob': {}}

    def nm(kind, v):
        m = re.match(r'\((\d+)\)\s*(.*)$', v)
        if not m:
            return v
        i = m.group(1)
        if m.group(2):
            names[kind][i] = m.group(2)
        return names[kind][i] if i in names[kind] else unknown(i)
    return nm


def parse(path):
    """The parts of a callgrind file: self costs and arcs per (ob, fn)."""
    nm = name_table(lambda i: '?')

    def part():
        return {'self': collections.Counter(), 'arcs': collections.defaultdict(lambda: [0, 0]),
                'totals': None}

    parts = [part()]
    ob, fn = '???', '???'
    cob = cfn = None
    calls = None
    npos = 1
    seen_events = False
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line[0] == '#':
                continue
            if line.startswith('part:'):
                if seen_events:
                    parts.append(part())
                continue
            if line.startswith('positions:'):
                npos = len(line.split()) - 1
            elif line.startswith('events:'):
                seen_events = True
            elif line.startswith('totals:'):
                parts[-1]['totals'] = int(line.split()[1])
            elif line.startswith('ob='):
                ob = nm('ob', line[3:])
            elif line.startswith(('fl=', 'fi=', 'fe=')):
                nm('fl', line[3:])
            elif line.startswith('fn='):
                fn = nm('fn', line[3:])
                cob = cfn = None
                parts[-1]['self'][(ob, fn)] += 0
            elif line.startswith('cob='):
                cob = nm('ob', line[4:])
            elif line.startswith(('cfi=', 'cfl=')):
                nm('fl', line[4:])
            elif line.startswith('cfn='):
                cfn = nm('fn', line[4:])
            elif line.startswith('calls='):
                calls = int(line[6:].split()[0])
            elif re.match(r'^([0-9+*-]|0x)', line):
                f2 = line.split()
                v = int(f2[npos]) if len(f2) > npos else 0
                if calls is not None:
                    a = parts[-1]['arcs'][((ob, fn), (cob or ob, cfn))]
                    a[0] += calls
                    a[1] += v
                    calls = None
                    cob = cfn = None
                else:
                    parts[-1]['self'][(ob, fn)] += v
    return parts


def check(part, label, roots):
    self_, arcs = part['self'], part['arcs']
    fns = set(self_) | {a for a, b in arcs} | {b for a, b in arcs}
    inc, out = collections.defaultdict(list), collections.defaultdict(list)
    for (a, b), (c, v) in arcs.items():
        inc[b].append((a, v))
        out[a].append((b, v))

    def in_cycle(f):
        seen, todo = set(), [f]
        while todo:
            for y, _ in out[todo.pop()]:
                if y == f:
                    return True
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    orphans = [f for f in fns if self_[f] > 0 and not inc[f] and f[1] not in roots and
               not f[1].startswith('<signal ')]
    below = []
    for f in fns:
        if inc[f] and f[1] not in roots and not in_cycle(f):
            total_in = sum(v for _, v in inc[f])
            below += [(f, total_in, y, v) for y, v in out[f] if v > total_in]
    total = sum(self_.values())
    rootsum = sum(self_[f] + sum(v for y, v in out[f] if y != f) for f in fns if not inc[f])
    unsym = sum(1 for f in fns if UNSYM.match(f[1]))
    print(f'{label} functions={len(fns)} unsymbolled={unsym} orphans={len(orphans)} '
          f'below={len(below)} roots={rootsum} total={total}')
    for f in sorted(orphans)[:10]:
        print(f'  orphan: {f[1]} [{f[0]}] self {self_[f]}')
    for f, t, y, v in below[:10]:  # roots of a thread are called in another one
        print(f'  below: {f[1]} inclusive {t} < arc to {y[1]} {v}')
    return not orphans and not below and rootsum == total


SECTIONS = {}


def plt_section(obj, name):
    """True when function `name` (0x<offset>) of object `obj` lies in a
    PLT section (.plt, .plt.sec, .plt.got), by the object's section table."""
    m = UNSYM.match(name)
    if not m or not obj.startswith('/'):
        return False
    if obj not in SECTIONS:
        rows = []
        try:
            out = subprocess.run(['readelf', '-SW', obj], capture_output=True, text=True).stdout
        except OSError:
            out = ''
        for line in out.splitlines():
            f = line.replace('[ ', '[').split()
            if len(f) > 5 and f[1].startswith('.plt'):
                rows.append((int(f[3], 16), int(f[5], 16)))
        SECTIONS[obj] = rows
    off = int(name, 16)
    return any(a <= off < a + n for a, n in SECTIONS[obj])


def through_stubs(arcs, self_):
    """Callgrind's arcs with its PLT stub functions (X -> stub -> T) made
    transparent (X -> T), as tally records them; a caller's calls into a
    stub go to the stub's main callee (a stub has one target; the lazy
    binding resolver may be a second). A stub is known by its object's
    section table, or, in an unknown object (Callgrind names a .plt.got stub
    of a library by its absolute address), by its shape: at most three
    instructions per call."""
    out_of = collections.defaultdict(list)
    calls_in = collections.Counter()
    for (a, b), (n, v) in arcs.items():
        out_of[a].append((b, n, v))
        calls_in[b] += n

    def stub(f):
        if f[0] == '???' and UNSYM.match(f[1]):
            return calls_in[f] > 0 and out_of[f] and self_[f] <= 3 * calls_in[f]
        return plt_section(*f)
    res = collections.defaultdict(lambda: [0, 0])
    for (a, b), (n, v) in arcs.items():
        if stub(a):
            continue
        if stub(b) and out_of[b]:
            t = max(out_of[b], key=lambda o: o[1])[0]
            r = res[(a, t)]
            r[0] += n
            r[1] += v
            continue
        r = res[(a, b)]
        r[0] += n
        r[1] += v
    return res


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    if cmd == 'check':
        roots, files, args = set(), [], argv[2:]
        while args:
            a = args.pop(0)
            if a == '--root':
                roots.add(args.pop(0))
            else:
                files.append(a)
        good = True
        for path in files:
            for k, p in enumerate(parse(path)):
                good &= check(p, f'{path}#{k + 1}', roots)
        return 0 if good else 1
    parts = parse(argv[2])
    if cmd in ('arcs', 'arcs-in'):
        c = collections.Counter()
        for p in parts:
            arcs = p['arcs']
            if '--through-stubs' in argv:
                arcs = through_stubs(arcs, p['self'])
            for (a, b), (n, _) in arcs.items():
                if cmd == 'arcs-in':
                    if a[0].endswith(argv[3]) and b[0].endswith(argv[3]):
                        c[(a[1], b[1])] += n
                elif not UNSYM.match(a[1]) and not UNSYM.match(b[1]):
                    c[(a[1], b[1])] += n
        for (a, b), n in sorted(c.items()):
            print(f'{a} -> {b} {n}')
        return 0
    if cmd == 'self-in':
        c = collections.Counter()
        for p in parts:
            for (ob, fn), v in p['self'].items():
                if ob.endswith(argv[3]):
                    c[fn] += v
        for fn, v in sorted(c.items()):
            print(f'{fn} {v}')
        return 0
    if cmd == 'stat':
        key = argv[3]
        fns = set()
        for p in parts:
            fns |= set(p['self']) | {a for a, b in p['arcs']} | {b for a, b in p['arcs']}
        if key == 'unsymbolled':
            print(sum(1 for f in fns if UNSYM.match(f[1])))
        elif key == 'functions':
            print(len(fns))
        elif key.startswith('functions:'):  # of the objects whose path ends so
            print(sum(1 for f in fns if f[0].endswith(key[10:])))
        elif key.startswith('incl:'):
            name = key[5:]
            print(sum(v for p in parts for (a, b), (n, v) in p['arcs'].items()
                      if b[1] == name and a[1] != name))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
