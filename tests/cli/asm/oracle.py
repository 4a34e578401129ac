#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What tests/cli/asm.sh compares, each as sorted lines of text.

  oracle.py callgrind FILE OBJECT   the functions of OBJECT in a callgrind
                                    file (positions: instr line): per
                                    function its self cost (first event),
                                    the cost of each address and its jumps
  oracle.py tally FILE OBJECT       the same, from `tally annotate --asm`
                                    output (--show-percs=no), with each
                                    instruction's address and mnemonic
  oracle.py objdump FILE            `objdump -d -M intel --no-show-raw-insn`
                                    output: the address and mnemonic of each
                                    instruction, per function
  oracle.py table FILE OBJECT NM    the function table of tally annotate or
                                    callgrind_annotate (--show-percs=no):
                                    the first cost of the rows (of every
                                    file) of each function that NM (nm -S
                                    -C) names and no other object has
  oracle.py insns T O NM            compare the instructions of T (tally
                                    mode's lines) with O's (objdump mode's)
                                    within the function symbols of NM
                                    (nm -S -C --defined-only)
  oracle.py jumpsum L NM            jumps of L (lines of the modes above)
                                    summed over functions, inside NM's
                                    symbols: "SRC TARGET KIND TAKEN"
  oracle.py jcndexe L               conditional jumps of L whose executions
                                    are not their instruction's count

Lines: "FUNC\tself\tN", "FUNC\tcost\t0xADDR\tN" (N > 0),
"FUNC\tjump\t0xSRC\t0xTARGET\tcond|uncond\tEXECUTED\tTAKEN",
"FUNC\tinsn\t0xADDR\tMNEMONIC", "FUNC\trow\tN".
"""
import re
import sys

# prefixes that both tools print as a word before the mnemonic
PREFIXES = {'rep', 'repz', 'repnz', 'repe', 'repne', 'lock', 'bnd', 'notrack', 'data16', 'cs',
            'ds', 'es', 'ss', 'addr32'}


def mnemonic(text):
    words = text.split()
    out = []
    for w in words:
        out.append(w)
        if w not in PREFIXES:
            break
    return ' '.join(out)


def callgrind(path, objpath):
    names = {'ob': {}, 'fl': {}, 'fn': {}}
    kinds = {'ob': 'ob', 'cob': 'ob', 'fl': 'fl', 'fi': 'fl', 'fe': 'fl', 'cfi': 'fl',
             'cfl': 'fl', 'jfi': 'fl', 'fn': 'fn', 'cfn': 'fn', 'jfn': 'fn'}

    def name(kind, v):
        m = re.match(r'\((\d+)\)\s*(.*)', v)
        if not m:
            return v.strip()
        if m.group(2):
            names[kind][m.group(1)] = m.group(2).strip()
        return names[kind].get(m.group(1), '?')

    def pos(tok, base):
        if tok == '*':
            return base
        if tok[0] in '+-':
            return base + int(tok, 0)
        return int(tok, 0)

    ob = fn = None
    last = [0, 0]
    npos = 1
    pending = None  # 'call' or ('jump', cond, exe, taken, target)
    selfc, cost, jumps = {}, {}, {}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'([a-z]+)=(.*)', line)
            if m and m.group(1) in kinds:
                v = name(kinds[m.group(1)], m.group(2))
                if m.group(1) == 'ob':
                    ob = v
                elif m.group(1) == 'fn':
                    fn = v
                continue
            if line.startswith('positions:'):
                npos = len(line.split()) - 1
                continue
            if line.startswith('calls='):
                pending = 'call'
                continue
            if line.startswith(('jump=', 'jcnd=')):
                t = line.split('=', 1)[1].split()
                if line.startswith('jump='):
                    exe = taken = int(t[0])
                    rest = t[1:]
                else:
                    taken, exe = (int(x) for x in t[0].split('/'))
                    rest = t[1:]
                pending = ('jump', line.startswith('jcnd='), exe, taken, pos(rest[0], last[0]))
                continue
            if not line or not (line[0] in '+-*' or line[0].isdigit()):
                continue
            t = line.split()
            for i in range(min(npos, len(t))):
                last[i] = pos(t[i], last[i])
            here = ob == objpath
            if pending == 'call':
                pending = None
                continue
            if pending:
                _, cond, exe, taken, target = pending
                pending = None
                if here:
                    k = (fn, last[0], target, cond)
                    e = jumps.get(k, (0, 0))
                    jumps[k] = (e[0] + exe, e[1] + taken)
                continue
            if here:
                c = int(t[npos]) if len(t) > npos else 0
                selfc[fn] = selfc.get(fn, 0) + c
                cost[(fn, last[0])] = cost.get((fn, last[0]), 0) + c
    out = []
    for f, c in selfc.items():
        out.append('%s\tself\t%d' % (f, c))
    for (f, a), c in cost.items():
        if c > 0:
            out.append('%s\tcost\t0x%x\t%d' % (f, a, c))
    for (f, s, t, cond), (e, k) in jumps.items():
        out.append('%s\tjump\t0x%x\t0x%x\t%s\t%d\t%d' % (f, s, t, 'cond' if cond else 'uncond', e, k))
    return out


def num(s):
    return 0 if s == '.' else int(s.replace(',', ''))


def tally(path, objpath):
    out = []
    fn = None
    head = re.compile(r'^-- Machine code: (.*?):(.*) \[(.*)\]$')
    row = re.compile(r'^\s*([0-9,.]+)\s.*?[ *] ([0-9a-f]+):(?:  (.*))?$')
    jump = re.compile(r'^\s*\..*-> 0x([0-9a-f]+)( \(.*\))?  (?:taken ([0-9,]+) of ([0-9,]+)'
                      r'(?: \(.*\))?|jumped ([0-9,]+)x)$')
    total = re.compile(r'^\s*([0-9,.]+)\s.*total: the self cost of ')
    addr = None
    bias = 0
    sums = {}
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = head.match(line)
            if m:
                fn = m.group(2) if m.group(3) == objpath else None
                bias = 0
                continue
            if line.startswith('-- Machine code:'):
                fn = None
            if fn is None:
                continue
            m = re.search(r', run-time addresses less 0x([0-9a-f]+);', line)
            if m:
                bias = int(m.group(1), 16)
                continue
            m = total.match(line)
            if m:
                out.append('%s\tself\t%d' % (fn, num(m.group(1))))
                out.append('%s\tsum\t%d' % (fn, sums.get(fn, 0)))
                fn = None
                continue
            m = jump.match(line)
            if m:
                t = int(m.group(1), 16) + (0 if m.group(2) else bias)
                if m.group(5):
                    e = k = num(m.group(5))
                    out.append('%s\tjump\t0x%x\t0x%x\tuncond\t%d\t%d' % (fn, addr, t, e, k))
                else:
                    k, e = num(m.group(3)), num(m.group(4))
                    out.append('%s\tjump\t0x%x\t0x%x\tcond\t%d\t%d' % (fn, addr, t, e, k))
                continue
            m = row.match(line)
            if m and '=>' not in line and ' -- ' not in line:
                addr = int(m.group(2), 16) + bias  # the profile's address
                c = num(m.group(1))
                sums[fn] = sums.get(fn, 0) + c
                if c > 0:
                    out.append('%s\tcost\t0x%x\t%d' % (fn, addr, c))
                if m.group(3):
                    out.append('%s\tinsn\t0x%x\t%s' % (fn, addr - bias, mnemonic(m.group(3))))
    return out


def objdump(path):
    out = []
    fn = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^[0-9a-f]+ <(.*)>:$', line)
            if m:
                fn = m.group(1)
                continue
            m = re.match(r'^\s+([0-9a-f]+):\t(.*)$', line)
            if m and fn:
                text = re.sub(r'\s+#.*$', '', m.group(2))
                out.append('%s\tinsn\t0x%x\t%s' % (fn, int(m.group(1), 16), mnemonic(text)))
    return out


def table(path, objpath, nmpath):
    names = {r[2] for r in nm_ranges(nmpath)}
    sums, elsewhere = {}, set()
    rowre = re.compile(r'^\s*([0-9,.]+)(?:\s+[0-9,.]+)*\s+[^ :]*:(.*?)(?: \[([^]]*)\])?$')
    with open(path, errors='replace') as f:
        for line in f:
            m = rowre.match(line.rstrip('\n'))
            if not m or m.group(2) not in names:
                continue
            if m.group(3) and m.group(3) != objpath:
                elsewhere.add(m.group(2))
            sums[m.group(2)] = sums.get(m.group(2), 0) + num(m.group(1))
    return ['%s\trow\t%d' % (k, v) for k, v in sums.items() if k not in elsewhere]


def nm_ranges(path):
    """The sized function symbols of `nm -S -C --defined-only`: (lo, hi, name)."""
    out = []
    with open(path, errors='replace') as f:
        for line in f:
            t = line.rstrip('\n').split(None, 3)
            if len(t) == 4 and t[2] in 'TtWw' and int(t[1], 16) > 0:
                lo = int(t[0], 16)
                out.append((lo, lo + int(t[1], 16), t[3]))
    return out


def inside(ranges, a):
    return any(lo <= a < hi for lo, hi, _ in ranges)


def read_lines(path):
    with open(path) as f:
        return [line.rstrip('\n').split('\t') for line in f]


def jumpsum(path, nmpath):
    """Jumps summed over functions (Callgrind's NAME'2 levels are one function's code):
    "SRC TARGET KIND TAKEN", for sources inside a function symbol."""
    ranges = nm_ranges(nmpath)
    sums = {}
    for t in read_lines(path):
        if len(t) == 7 and t[1] == 'jump' and inside(ranges, int(t[2], 16)):
            k = (t[2], t[3], t[4])
            sums[k] = sums.get(k, 0) + int(t[6])
    return ['%s\t%s\t%s\t%d' % (k + (v,)) for k, v in sums.items()]


def jcndexe(path):
    """Conditional jumps whose executions differ from their instruction's count."""
    cost, exe = {}, {}
    for t in read_lines(path):
        if t[1] == 'cost':
            cost[(t[0], t[2])] = int(t[3])
        elif t[1] == 'jump' and t[4] == 'cond':
            exe[(t[0], t[2])] = exe.get((t[0], t[2]), 0) + int(t[5])
    return ['%s at %s: executed %d, instruction count %d' % (k[0], k[1], v, cost.get(k, 0))
            for k, v in exe.items() if cost.get(k, 0) != v] + ['checked %d' % len(exe)]


def insns(tallypath, objdumppath, nmpath):
    """Every instruction of tally's listing is objdump's (address and mnemonic), and every
    instruction objdump shows inside a function symbol that the listing enters is there."""
    ranges = nm_ranges(nmpath)
    od = {}
    for t in read_lines(objdumppath):
        od[int(t[2], 16)] = t[3]
    out, seen, funcs = [], {}, set()
    for t in read_lines(tallypath):
        if t[1] != 'insn':
            continue
        a = int(t[2], 16)
        seen[a] = t[3]
        funcs.add(t[0])
        if od.get(a) != t[3]:
            out.append('%s: 0x%x is "%s", objdump: "%s"' % (t[0], a, t[3], od.get(a)))
    for lo, hi, name in ranges:
        if not any(lo <= a < hi for a in seen):
            continue
        for a in od:
            if lo <= a < hi and a not in seen:
                out.append('%s: objdump\'s 0x%x (%s) is missing' % (name, a, od[a]))
    return out + ['checked %d instructions of %d functions' % (len(seen), len(funcs))]


def main(argv):
    mode = argv[1]
    if mode == 'callgrind':
        lines = callgrind(argv[2], argv[3])
    elif mode == 'tally':
        lines = tally(argv[2], argv[3])
    elif mode == 'objdump':
        lines = objdump(argv[2])
    elif mode == 'table':
        lines = table(argv[2], argv[3], argv[4])
    elif mode == 'jumpsum':
        lines = jumpsum(argv[2], argv[3])
    elif mode == 'jcndexe':
        lines = jcndexe(argv[2])
    elif mode == 'insns':
        lines = insns(argv[2], argv[3], argv[4])
    else:
        sys.exit('oracle.py: unknown mode ' + mode)
    for line in sorted(lines):
        print(line)


if __name__ == '__main__':
    main(sys.argv)
