#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Code without a symbol in .init, .fini and the PLT sections: tally's
names against Callgrind's (tests/peer/callgraph.sh).

  cgunsym.py [--as=absolute|callgrind] CALLGRIND-STDERR CALLGRIND-FILE TALLY-FILE

Both files are of the same program, run in one environment with
--dump-instr=yes; CALLGRIND-STDERR
is Callgrind's stderr with -v -v -v, where each object Valgrind reads has
"Reading syms from PATH" and then "svma 0x..., avma 0x...": its load bias
is avma - svma. Callgrind puts such code in object ??? and names it by its
run-time address (0x0000000000109000); tally names it by its address
relative to the load bias in its own object (docs/tally-record.md, "Code
without a symbol"). Checks, one line per difference:

  - every function of Callgrind's in ??? named 0xADDR with a self cost
    lies in a section of one object O (ADDR - bias(O), by O's section
    headers, readelf -SW);
  - one in .init, .fini or another section but the PLT's: tally has the
    function 0x%016x(ADDR - bias) in O, with Callgrind's self cost (the
    first event);
  - a PLT stub (.plt, .plt.got, .plt.sec): tally's stub code is the
    function it leads to (--skip-plt=yes): tally's costs at the stub's
    instruction addresses (run-time addresses, as both tools write code
    without debug information), and, for .plt.sec stubs, at the .plt code
    of O (a lazy call goes on there; Callgrind adds that code to the
    stub's last instruction), are in functions with a symbol that
    Callgrind's stub calls, and add up to the self costs of O's stubs;
  - the reverse: every function 0xOFF of tally's lies in a section of its
    object (OFF by the section headers).

--as renames tally's functions 0xOFF of the objects with a known bias
before checking, to show the checks fail on names that are not tally's:
absolute gives them their run-time address (in their object), callgrind
also moves them into ??? (Callgrind's names); stubs makes tally's costs
at PLT code functions 0xOFF of their own instead of the functions the
stubs lead to.
Prints a first line with what was checked; exits 1 on a difference.
"""
import collections
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # (no __pycache__ beside the tests)
from cgcheck import name_table  # noqa: E402

UNSYM = re.compile(r'^0x[0-9a-f]+$')
PLT = ('.plt', '.plt.got', '.plt.sec')


def biases(path):
    """{object path: load bias} from Valgrind's -v -v -v stderr"""
    res, obj = {}, None
    with open(path, errors='replace') as f:
        for line in f:
            m = re.search(r'Reading syms from (\S+)', line)
            if m:
                obj = m.group(1)
                continue
            m = re.search(r'svma (0x[0-9a-f]+), avma (0x[0-9a-f]+)', line)
            if m and obj:
                res[obj] = int(m.group(2), 16) - int(m.group(1), 16)
                obj = None
    return res


SECTIONS = {}


def sections(obj):
    """[(name, start, size)] of the sections of obj that have an address"""
    if obj not in SECTIONS:
        rows = []
        try:
            out = subprocess.run(['readelf', '-SW', obj], capture_output=True,
                                 text=True).stdout
        except OSError:
            out = ''
        for line in out.splitlines():
            m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)',
                         line)
            if m and int(m.group(2), 16):
                rows.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
        SECTIONS[obj] = rows
    return SECTIONS[obj]


def section_at(obj, off):
    for name, a, n in sections(obj):
        if a <= off < a + n:
            return name
    return None


def parse(path):
    """self {(ob, fn): first event}, at {address: {(ob, fn): first event}}
    (the costs of the instructions of file ???, code without debug
    information, whose addresses are run-time addresses in both tools'
    files), callees {(ob, fn): {(ob, fn)}}"""
    nm = name_table(lambda i: '(' + i + ')')
    self_ = collections.Counter()
    at = collections.defaultdict(collections.Counter)
    callees = collections.defaultdict(set)
    ob = fn = fl = '???'
    cob = cfn = None
    addr, calls = 0, False
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('ob='):
                ob = nm('ob', line[3:])
            elif line.startswith(('fl=', 'fi=', 'fe=')):
                fl = nm('fl', line[3:])
            elif line.startswith('fn='):
                fn = nm('fn', line[3:])
                cob = cfn = None
            elif line.startswith('cob='):
                cob = nm('ob', line[4:])
            elif line.startswith(('cfi=', 'cfl=', 'jfi=')):
                nm('fl', line[4:])
            elif line.startswith(('cfn=', 'jfn=')):
                v = nm('fn', line[4:])
                if line[0] == 'c':
                    cfn = v
            elif line.startswith('calls='):
                calls = True
                callees[(ob, fn)].add((cob or ob, cfn))
                cob = cfn = None
            elif re.match(r'^(0x|[+*-])', line):
                f_ = line.split()
                a = f_[0]
                if a.startswith('0x'):
                    addr = int(a, 16)
                elif a[0] in '+-':
                    addr += int(a, 0)
                if calls:
                    calls = False
                    continue
                v = int(f_[2]) if len(f_) > 2 else 0
                self_[(ob, fn)] += v
                if fl == '???':
                    at[addr][(ob, fn)] += v
    return self_, at, callees


def plt_object(addr, bias):
    """the object whose PLT sections hold run-time address addr, or None"""
    for o, b in bias.items():
        if addr >= b and section_at(o, addr - b) in PLT:
            return o
    return None


def rename(tally, bias, how):
    """tally's 0xOFF functions of objects with a known bias, as --as says"""
    self_, at, callees = tally
    if how == 'stubs':
        # the costs at PLT code move to a function 0xOFF of its own
        s2, at2 = collections.Counter(self_), collections.defaultdict(collections.Counter)
        for a, c in at.items():
            o = plt_object(a, bias)
            for k, v in c.items():
                k2 = (o, '0x%016x' % (a - bias[o])) if o else k
                at2[a][k2] += v
                s2[k] -= v
                s2[k2] += v
        return s2, at2, callees

    def new(key):
        ob, fn = key
        if not UNSYM.match(fn) or ob not in bias:
            return key
        return ('???' if how == 'callgrind' else ob, '0x%016x' % (int(fn, 16) + bias[ob]))
    s2 = collections.Counter()
    for k, v in self_.items():
        s2[new(k)] += v
    at2 = collections.defaultdict(collections.Counter)
    for a, c in at.items():
        for k, v in c.items():
            at2[a][new(k)] += v
    c2 = collections.defaultdict(set)
    for k, v in callees.items():
        c2[new(k)] |= {new(x) for x in v}
    return s2, at2, c2


def main(argv):
    how = None
    args = argv[1:]
    if args and args[0].startswith('--as='):
        how = args.pop(0)[5:]
    if len(args) != 3 or how not in (None, 'absolute', 'callgrind', 'stubs'):
        print(__doc__, file=sys.stderr)
        return 2
    bias = biases(args[0])
    cg = parse(args[1])
    tl = parse(args[2])
    if how:
        tl = rename(tl, bias, how)
    cself, cat, ccallees = cg
    tself, tat, _ = tl
    bad, seen = [], collections.Counter()
    stubs = collections.defaultdict(list)  # object: Callgrind's stub functions
    for (ob, fn), v in sorted(cself.items()):
        if ob != '???' or not UNSYM.match(fn) or not v:
            continue
        addr = int(fn, 16)
        where = [(o, addr - b, section_at(o, addr - b)) for o, b in bias.items()
                 if addr >= b and section_at(o, addr - b)]
        if len(where) != 1:
            bad.append(f'??? {fn}: in {len(where)} objects ' +
                       ', '.join(f'{o} {s}' for o, _, s in where))
            continue
        o, off, sec = where[0]
        seen[sec] += 1
        if sec in PLT:
            stubs[o].append((ob, fn))
            continue
        want = (o, '0x%016x' % off)
        if want not in tself:
            bad.append(f'??? {fn} ({sec} of {o}): tally has no function {want[1]} there')
        elif tself[want] != v:
            bad.append(f'??? {fn} ({sec} of {o}): self cost {v}, tally {tself[want]}')
    nstubs = 0
    for o, fns in sorted(stubs.items()):
        b = bias[o]
        addrs = {a for f in fns for a in cat if f in cat[a]}
        if any(section_at(o, int(f[1], 16) - b) == '.plt.sec' for f in fns):
            addrs |= {a for a in tat if a >= b and section_at(o, a - b) == '.plt'}
        targets = set().union(*(ccallees[f] for f in fns))
        got = collections.Counter()
        for a in addrs:
            for k, v in tat.get(a, {}).items():
                if v:
                    got[k] += v
        wrong = [k for k in got if k not in targets or UNSYM.match(k[1])]
        want = sum(cself[f] for f in fns)
        nstubs += len(fns)
        if wrong:
            bad.append(f'{o}: the code of its stubs {" ".join(f[1] for f in fns)} is in tally\'s ' +
                       ', '.join(f'{k[1]} ({k[0]})' for k in sorted(wrong)) +
                       ', not in a function they call')
        if sum(got.values()) != want:
            bad.append(f'{o}: its stubs {" ".join(f[1] for f in fns)} cost {want}, tally '
                       f'{sum(got.values())} at their code')
    nt = 0
    for (ob, fn) in sorted(tself):
        if not UNSYM.match(fn):
            continue
        nt += 1
        if not ob.startswith('/') or not section_at(ob, int(fn, 16)):
            bad.append(f'tally {fn} of {ob}: in no section of its object')
    secs = ', '.join(f'{n} {s}' for s, n in sorted(seen.items()))
    print(f"Callgrind's functions in ??? ({secs or 'none'}): tally's in their object by "
          f"address less the load bias, {nstubs} PLT stub(s) in the functions they lead to; "
          f"tally's {nt} functions 0x... in a section of their object")
    for m in bad:
        print('  ' + m)
    return 1 if bad or not seen else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
